//! What a time stepping does about the drift of holonomic equality constraints g(q) = 0.
//!
//! Moreau–Jean enforces an equality at velocity level, G(q) v_{k+1} = 0, so g(q) drifts by
//! O(h²) per step; every engine reports max |g(q_{k+1})| whatever the choice.

use crate::error::Result;
use crate::validate;

/// How the time stepping treats the drift of holonomic equality constraints.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Stabilization {
    /// Velocity level only, as Siconos's `MoreauJeanOSI`: g(q) drifts.
    #[default]
    None,
    /// Baumgarte-like feedback at velocity level: the equality rows ask
    /// `G v_{k+1} + (β/h) g(q_k) = 0`, which pulls g back towards 0 over about 1/β steps
    /// (β ∈ (0, 1] is stable with θ = ½).
    Baumgarte {
        /// The feedback gain β.
        beta: f64,
    },
    /// After every step, the closest point on the manifold in the mass metric,
    /// `q ← argmin ‖q − q̃‖_M subject to g(q) = 0`, by Newton's method
    /// `Δq = −M⁻¹Gᵀ (G M⁻¹ Gᵀ)⁻¹ g(q)` until max |g| ≤ `tolerance`; then the velocity is
    /// projected onto the constraints' tangent space, `v ← v − M⁻¹Gᵀ (G M⁻¹ Gᵀ)⁻¹ (G v + ∂g/∂t)`
    /// (every equality row, Pfaffian ones included).
    Projection {
        /// The largest |g(q)| accepted.
        tolerance: f64,
        /// Newton iterations before [`Error::NotConverged`](crate::error::Error::NotConverged).
        max_iterations: usize,
    },
}

impl Stabilization {
    /// A projection to 10⁻¹² in at most 20 Newton iterations.
    pub fn projection() -> Self {
        Self::Projection {
            tolerance: 1e-12,
            max_iterations: 20,
        }
    }

    pub(crate) fn check(&self) -> Result<()> {
        match *self {
            Self::None => Ok(()),
            Self::Baumgarte { beta } => {
                validate::scalar("Baumgarte gain β", beta, beta > 0.0 && beta <= 1.0, "must be in (0, 1]")
            }
            Self::Projection { tolerance, .. } => {
                validate::scalar("projection tolerance", tolerance, tolerance > 0.0, "must be > 0")
            }
        }
    }
}
