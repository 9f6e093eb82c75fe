//! Euler–Moreau θ-method for first-order linear systems, as Siconos's `EulerMoreauOSI`
//! computes it (SICONOS-NOTES §1.4):
//! ```text
//!   W       = I − hθ A
//!   x_free  = W⁻¹ [(I + h(1−θ) A) x_k + h b]
//!   LCP     : 0 ≤ λ ⟂ (D + h C W⁻¹ B) λ + C x_free + e ≥ 0     (every interaction)
//!   x_{k+1} = x_free + h W⁻¹ B λ
//! ```

use crate::error::Result;
use crate::validate;

/// Parameters of the Euler–Moreau one-step integrator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EulerMoreauOSI {
    /// θ ∈ [0, 1].
    pub theta: f64,
}

impl Default for EulerMoreauOSI {
    fn default() -> Self {
        Self { theta: 0.5 }
    }
}

impl EulerMoreauOSI {
    /// θ ∈ [0, 1].
    pub fn new(theta: f64) -> Result<Self> {
        validate::scalar(
            "EulerMoreauOSI θ",
            theta,
            (0.0..=1.0).contains(&theta),
            "must be in [0, 1]",
        )?;
        Ok(Self { theta })
    }
}
