//! Siconos's Filippov_NL (a Python example of its control tutorials): a sliding mode driven
//! to the origin by a relay,
//! ```text
//!     ẋ = B λ,   y = x,   −y ∈ N_[−1, 1](λ),   B = g [[α, 1−α], [−(1−α), α]],
//! ```
//! written as Siconos writes it: a FirstOrderLinearDS (A = 0) under a FirstOrderNonLinearR
//! with h = C x, g = B λ and constant Jacobians C = I, B (D, K = 0 by differences), run by
//! Euler–Moreau's Newton loop (θ = ½, h = 1e-3, T = 0.1: `Filippov_NL_py.ref`).

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{FirstOrderLinearDS, FirstOrderNonLinearR, Nsds, RelayNSL};
use crate::reference::TimeStepping;

/// Parameters of the system (defaults: Siconos's Filippov_NL).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Filippov {
    /// α of B. Default 0.01.
    pub alpha: f64,
    /// The gain g of B. Default 500.
    pub gain: f64,
    /// Initial state x₀. Default (3, 3).
    pub x0: [f64; 2],
    /// Time step h. Default 1e-3.
    pub step: f64,
    /// θ of the Euler–Moreau scheme. Default ½.
    pub theta: f64,
}

impl Default for Filippov {
    fn default() -> Self {
        Self {
            alpha: 0.01,
            gain: 500.0,
            x0: [3.0, 3.0],
            step: 1e-3,
            theta: 0.5,
        }
    }
}

impl Filippov {
    /// B = g [[α, 1−α], [−(1−α), α]].
    pub fn b(&self) -> DMatrix<f64> {
        let a = self.alpha;
        DMatrix::from_row_slice(2, 2, &[a, 1.0 - a, -(1.0 - a), a]) * self.gain
    }

    /// The scene: the system `x` and the relay.
    pub fn nsds(&self) -> Result<Nsds> {
        let system = FirstOrderLinearDS::new(DVector::from_row_slice(&self.x0), DMatrix::zeros(2, 2))?;
        let (b, c) = (self.b(), DMatrix::<f64>::identity(2, 2));
        let (b_g, c_h) = (b.clone(), c.clone());
        let relation = FirstOrderNonLinearR::new(move |_, x, _, _| &c_h * x, move |_, _, l, _| &b_g * l)
            .with_c(c)
            .with_b(b);
        let mut nsds = Nsds::new();
        let id = nsds.add("x", system);
        nsds.name_coordinates(["x_0", "x_1"])?;
        nsds.link("relay", RelayNSL::new(2)?, relation, &[id])?;
        Ok(nsds)
    }

    /// The simulation from t = 0 (Newton defaults: tolerance 1e-6, 50 iterations).
    pub fn simulation(&self) -> Result<TimeStepping> {
        super::euler_moreau(self.nsds()?, self.theta, self.step)
    }
}
