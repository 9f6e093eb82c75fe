//! Siconos's DiodeBridgeCapFilter: the LC oscillator of [`super::diode_bridge`] rectified by
//! a bridge of four ideal diodes into a capacitor filter C_f with its load R — two
//! first-order systems linked by one relation.
//!
//! DS 1 is x₁ = (v_C, i_L), `ẋ₁ = A₁ x₁ + r₁`, A₁ = [[0, −1/C], [1/L, 0]]; DS 2 is x₂ = v_F,
//! `ẋ₂ = −v_F/(R C_f) + r₂`. One `FirstOrderLinearTIR` of size 4 on X = (v_C, i_L, v_F) with a
//! `ComplementarityConditionNSL(4)`:
//! ```text
//!     y₀ = v_F − λ₁                (reverse voltage of diode R1; λ₀ its current)
//!     y₁ = λ₀ + λ₂ − λ₃            (current of diode F2; −λ₁ its voltage, by KCL)
//!     y₂ = v_F − v_C − λ₁          (reverse voltage of diode F1; λ₂ its current)
//!     y₃ = v_C − λ₁                (reverse voltage of diode R2; λ₃ its current)
//!     C dv_C/dt = −i_L − λ₂ + λ₃,   L di_L/dt = v_C,   C_f dv_F/dt = −v_F/R + λ₀ + λ₂
//! ```
//! Siconos runs it with θ = 1, h = 1e-6 to 5e-3 s (`DiodeBridgeCapFilter.ref`).

use nalgebra::{DMatrix, DVector};

use super::diode_bridge::lc_oscillator;
use crate::error::Result;
use crate::model::{ComplementarityConditionNSL, FirstOrderLinearDS, FirstOrderLinearTIR, Nsds};
use crate::reference::TimeStepping;

/// Parameters of the circuit (defaults: Siconos's DiodeBridgeCapFilter).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiodeBridgeCapFilter {
    /// Inductance L (H). Default 1e-2.
    pub inductance: f64,
    /// Capacitance C of the oscillator (F). Default 1e-6.
    pub capacitance: f64,
    /// Filter capacitance C_f (F). Default 300e-9.
    pub filter: f64,
    /// Load resistance R (Ω). Default 1e3.
    pub resistance: f64,
    /// Initial capacitor voltage (V). Default 10.
    pub voltage: f64,
    /// Time step h (s). Default 1e-6.
    pub step: f64,
    /// θ of the Euler–Moreau scheme. Default 1.
    pub theta: f64,
}

impl Default for DiodeBridgeCapFilter {
    fn default() -> Self {
        Self {
            inductance: 1e-2,
            capacitance: 1e-6,
            filter: 300e-9,
            resistance: 1e3,
            voltage: 10.0,
            step: 1e-6,
            theta: 1.0,
        }
    }
}

impl DiodeBridgeCapFilter {
    /// The scene: systems `LC oscillator` and `filter`, interaction `diode bridge`.
    pub fn nsds(&self) -> Result<Nsds> {
        let (c, cf) = (self.capacitance, self.filter);
        let lc = lc_oscillator(self.inductance, c, self.voltage)?;
        let filter = FirstOrderLinearDS::new(
            DVector::zeros(1),
            DMatrix::from_element(1, 1, -1.0 / (self.resistance * cf)),
        )?;
        #[rustfmt::skip]
        let c_op = DMatrix::from_row_slice(4, 3, &[
            0.0, 0.0, 1.0,
            0.0, 0.0, 0.0,
            -1.0, 0.0, 1.0,
            1.0, 0.0, 0.0,
        ]);
        #[rustfmt::skip]
        let d_op = DMatrix::from_row_slice(4, 4, &[
            0.0, -1.0, 0.0, 0.0,
            1.0, 0.0, 1.0, -1.0,
            0.0, -1.0, 0.0, 0.0,
            0.0, 1.0, 0.0, 0.0,
        ]);
        #[rustfmt::skip]
        let b_op = DMatrix::from_row_slice(3, 4, &[
            0.0, 0.0, -1.0 / c, 1.0 / c,
            0.0, 0.0, 0.0, 0.0,
            1.0 / cf, 0.0, 1.0 / cf, 0.0,
        ]);
        let bridge = FirstOrderLinearTIR::new(c_op, d_op, b_op, DVector::zeros(4))?;
        let mut nsds = Nsds::new();
        let lc = nsds.add("LC oscillator", lc);
        let filter = nsds.add("filter", filter);
        nsds.link(
            "diode bridge",
            ComplementarityConditionNSL::new(4)?,
            bridge,
            &[lc, filter],
        )?;
        Ok(nsds)
    }

    /// The simulation from t = 0.
    pub fn simulation(&self) -> Result<TimeStepping> {
        super::euler_moreau(self.nsds()?, self.theta, self.step)
    }
}
