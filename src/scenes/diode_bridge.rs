//! Siconos's DiodeBridge: an LC oscillator feeding a resistor through a bridge of four
//! ideal diodes (a full-wave rectifier).
//!
//! The state x = (capacitor voltage, inductor current) follows `ẋ = A x + r` with
//! A = [[0, −1/C], [1/L, 0]]. One `FirstOrderLinearTIR` of size 4 with a
//! `ComplementarityConditionNSL(4)` models the diodes: y = C x + D λ, r = B λ. In
//! Siconos's conventions y₀ is the current through diode R1, −λ₀ and −λ₁ the voltages
//! across R1 and F2, λ₂ the current through F1, and y₀ + λ₂ the resistor current.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{ComplementarityConditionNSL, FirstOrderLinearDS, FirstOrderLinearTIR, Nsds};
use crate::reference::TimeStepping;

/// The LC oscillator of Siconos's circuit examples: x = (capacitor voltage, inductor
/// current), `ẋ = A x + r` with A = [[0, −1/C], [1/L, 0]], starting at (voltage, 0).
pub fn lc_oscillator(inductance: f64, capacitance: f64, voltage: f64) -> Result<FirstOrderLinearDS> {
    let a = DMatrix::from_row_slice(2, 2, &[0.0, -1.0 / capacitance, 1.0 / inductance, 0.0]);
    FirstOrderLinearDS::new(DVector::from_vec(vec![voltage, 0.0]), a)
}

/// Parameters of the circuit (defaults: Siconos's DiodeBridge).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiodeBridge {
    /// Inductance L (H). Default 1e-2.
    pub inductance: f64,
    /// Capacitance C (F). Default 1e-6.
    pub capacitance: f64,
    /// Load resistance R (Ω). Default 1e3.
    pub resistance: f64,
    /// Initial capacitor voltage (V). Default 10.
    pub voltage: f64,
    /// Time step h (s). Default 1e-6.
    pub step: f64,
    /// θ of the Euler–Moreau scheme. Default ½.
    pub theta: f64,
}

impl Default for DiodeBridge {
    fn default() -> Self {
        Self {
            inductance: 1e-2,
            capacitance: 1e-6,
            resistance: 1e3,
            voltage: 10.0,
            step: 1e-6,
            theta: 0.5,
        }
    }
}

impl DiodeBridge {
    /// The scene: the LC circuit and the diode bridge.
    pub fn nsds(&self) -> Result<Nsds> {
        let (c, r) = (self.capacitance, self.resistance);
        let lc = lc_oscillator(self.inductance, c, self.voltage)?;
        #[rustfmt::skip]
        let c_op = DMatrix::from_row_slice(4, 2, &[
            0.0, 0.0,
            0.0, 0.0,
            -1.0, 0.0,
            1.0, 0.0,
        ]);
        #[rustfmt::skip]
        let d_op = DMatrix::from_row_slice(4, 4, &[
            1.0 / r, 1.0 / r, -1.0, 0.0,
            1.0 / r, 1.0 / r, 0.0, -1.0,
            1.0, 0.0, 0.0, 0.0,
            0.0, 1.0, 0.0, 0.0,
        ]);
        #[rustfmt::skip]
        let b_op = DMatrix::from_row_slice(2, 4, &[
            0.0, 0.0, -1.0 / c, 1.0 / c,
            0.0, 0.0, 0.0, 0.0,
        ]);
        let bridge = FirstOrderLinearTIR::new(c_op, d_op, b_op, DVector::zeros(4))?;
        let mut nsds = Nsds::new();
        let lc = nsds.add("LC oscillator", lc);
        nsds.link("diode bridge", ComplementarityConditionNSL::new(4)?, bridge, &[lc])?;
        Ok(nsds)
    }

    /// The simulation from t = 0.
    pub fn simulation(&self) -> Result<TimeStepping> {
        super::euler_moreau(self.nsds()?, self.theta, self.step)
    }
}
