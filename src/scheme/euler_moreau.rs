//! Euler–Moreau θ-method for first-order linear systems, as Siconos's `EulerMoreauOSI`
//! computes it (`kernel/src/simulation/EulerMoreauOSI.cpp`, the h C W⁻¹ B term in
//! `LinearOSNS.cpp`):
//! ```text
//!   W       = I − hθ A
//!   x_free  = W⁻¹ [(I + h(1−θ) A) x_k + h b]
//!   LCP     : 0 ≤ λ ⟂ (D + h C W⁻¹ B) λ + C x_free + e ≥ 0     (every interaction; a relay
//!             row's −w ∈ N_[lb, ub](λ), an equality's w = 0)
//!   x_{k+1} = x_free + h W⁻¹ B λ
//! ```
//! and its full θ-γ variant (Siconos's `EulerMoreauOSI(θ, γ)` with
//! `setUseGammaForRelation(true)`, as siconos-tutorials'
//! `examples/electronics/Circuit-ThetaGammaSchemes` use it), which imposes the relation at
//! x_{k+γ} = γ x_{k+1} + (1−γ) x_k:
//! ```text
//!   LCP     : 0 ≤ λ ⟂ (D + γ h C W⁻¹ B) λ + C (γ x_free + (1−γ) x_k) + e ≥ 0
//!   x_{k+1} = x_free + h W⁻¹ B λ
//! ```

use crate::error::Result;
use crate::validate;

/// Parameters of the Euler–Moreau one-step integrator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EulerMoreauOSI {
    /// θ ∈ [0, 1].
    pub theta: f64,
    /// γ ∈ [0, 1] of the full θ-γ variant (the relation imposed at x_{k+γ}); `None`: at
    /// x_{k+1}, as γ = 1.
    pub relation_gamma: Option<f64>,
}

impl Default for EulerMoreauOSI {
    fn default() -> Self {
        Self {
            theta: 0.5,
            relation_gamma: None,
        }
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
        Ok(Self {
            theta,
            relation_gamma: None,
        })
    }

    /// The full θ-γ variant, θ and γ ∈ [0, 1] (Siconos's `EulerMoreauOSI(θ, γ)` with
    /// `setUseGammaForRelation(true)`).
    pub fn theta_gamma(theta: f64, gamma: f64) -> Result<Self> {
        validate::scalar(
            "EulerMoreauOSI γ",
            gamma,
            (0.0..=1.0).contains(&gamma),
            "must be in [0, 1]",
        )?;
        Ok(Self {
            relation_gamma: Some(gamma),
            ..Self::new(theta)?
        })
    }

    /// Checks θ and γ (for an integrator built field by field).
    pub fn checked(self) -> Result<Self> {
        match self.relation_gamma {
            Some(gamma) => Self::theta_gamma(self.theta, gamma),
            None => Self::new(self.theta),
        }
    }
}
