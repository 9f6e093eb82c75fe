//! Siconos's CircuitRLCD: a series RLC circuit with an ideal diode.
//!
//! The state x = (capacitor voltage, inductor current) follows `ẋ = A x + r`,
//! A = [[0, −1/C], [1/L, 0]]; the diode is `y = −x₀ + R λ`, `r = (−λ/C, 0)` with
//! `0 ≤ y ⟂ λ ≥ 0` (λ the diode current, −y its voltage).

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{ComplementarityConditionNSL, FirstOrderLinearTIR, Nsds};
use crate::reference::TimeStepping;

/// Parameters of the circuit (defaults: Siconos's CircuitRLCD).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CircuitRlcd {
    /// Inductance L (H). Default 1e-2.
    pub inductance: f64,
    /// Capacitance C (F). Default 1e-6.
    pub capacitance: f64,
    /// Resistance R (Ω). Default 1e3.
    pub resistance: f64,
    /// Initial capacitor voltage (V). Default 10.
    pub voltage: f64,
    /// Time step h (s). Default 1e-5.
    pub step: f64,
    /// θ of the Euler–Moreau scheme. Default 0.5000000000001 (Siconos's).
    pub theta: f64,
}

impl Default for CircuitRlcd {
    fn default() -> Self {
        Self {
            inductance: 1e-2,
            capacitance: 1e-6,
            resistance: 1e3,
            voltage: 10.0,
            step: 1e-5,
            theta: 0.5000000000001,
        }
    }
}

impl CircuitRlcd {
    /// The scene: the RLC circuit and its diode.
    pub fn nsds(&self) -> Result<Nsds> {
        let (c, r) = (self.capacitance, self.resistance);
        let circuit = super::diode_bridge::lc_oscillator(self.inductance, c, self.voltage)?;
        let diode = FirstOrderLinearTIR::new(
            DMatrix::from_row_slice(1, 2, &[-1.0, 0.0]),
            DMatrix::from_element(1, 1, r),
            DMatrix::from_row_slice(2, 1, &[-1.0 / c, 0.0]),
            DVector::zeros(1),
        )?;
        let mut nsds = Nsds::new();
        let circuit = nsds.add("RLC circuit", circuit);
        nsds.link("diode", ComplementarityConditionNSL::new(1)?, diode, &[circuit])?;
        Ok(nsds)
    }

    /// The simulation from t = 0.
    pub fn simulation(&self) -> Result<TimeStepping> {
        super::euler_moreau(self.nsds()?, self.theta, self.step)
    }
}
