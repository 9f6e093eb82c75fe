//! The Moreau–Jean θ-method for Lagrangian systems, as Siconos's `MoreauJeanOSI` computes it
//! (the backend-neutral formulas; the CPU stepper and the GPU kernels both follow them).
//!
//! One step from (q_k, v_k) at t_k to t_{k+1} = t_k + h:
//! ```text
//!   W       = M − hθ ∂F/∂v − h²θ² ∂F/∂q                 (LTIDS: M + hθ C + h²θ² K)
//!   R_free  = M (v − v_k) − h(1−θ) F(t_k, q_k, v_k) − hθ F(t_{k+1}, q, v),
//!             q = q_k + h(1−θ) v_k + hθ v
//!   v_free  = v − W⁻¹ R_free
//!   active  : ỹ = y(q̂) + γ h ẏ_k ≤ 0,  q̂ = q_k or q_k + h v_k (see [`Activation`]), γ = ½
//!   LCP     : 0 ≤ λ ⟂ H W⁻¹ Hᵀ λ + H v_free + e ẏ_k (+ ∂h/∂t) ≥ 0
//!   p       = Hᵀ λ,   v_{k+1} = v_free + W⁻¹ p
//!   q_{k+1} = q_k + h [θ v_{k+1} + (1−θ) v_k]
//! ```
//! For a linear time-invariant scene one pass from v = v_k is exact; otherwise the pass is a
//! Newton iteration repeated until ‖R_free − p‖ ≤ tolerance.

use crate::error::Result;
use crate::validate;

/// Where the activation test ỹ = y(q̂) + γ h ẏ_k ≤ 0 evaluates the output y.
///
/// Siconos's two Newton branches differ here, and its reference files were made with both
/// (`TimeStepping::newtonSolve`, `MoreauJeanOSI::addInteractionInIndexSet`, Siconos
/// `kernel/src/simulationTools/`): the LINEAR branch tests the outputs of the end of the last
/// step, the NONLINEAR branch recomputes them after predicting q = q_k + h v_k. For a linear
/// relation `Predicted` with γ equals `Current` with γ + 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Activation {
    /// q̂ = q_k (BouncingBallTS, ColumnOfBeadsTS, ImpactingBar, CompliantContact references).
    #[default]
    Current,
    /// q̂ = q_k + h v_k (BouncingBallTS-Scleronomous reference).
    Predicted,
}

/// Parameters of the Moreau–Jean one-step integrator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoreauJeanOSI {
    /// θ ∈ [0, 1] of the θ-method (½: trapezoidal, energy-conserving for e = 1).
    pub theta: f64,
    /// γ ≥ 0 of the activation predictor ỹ = y + γ h ẏ (Siconos's default ½).
    pub gamma: f64,
    /// Where y is evaluated in the activation test.
    pub activation: Activation,
}

impl Default for MoreauJeanOSI {
    fn default() -> Self {
        Self {
            theta: 0.5,
            gamma: 0.5,
            activation: Activation::Current,
        }
    }
}

impl MoreauJeanOSI {
    /// θ ∈ [0, 1], γ ∈ [0, ∞).
    pub fn new(theta: f64, gamma: f64) -> Result<Self> {
        validate::scalar(
            "MoreauJeanOSI θ",
            theta,
            (0.0..=1.0).contains(&theta),
            "must be in [0, 1]",
        )?;
        validate::scalar("MoreauJeanOSI γ", gamma, gamma >= 0.0, "must be ≥ 0")?;
        Ok(Self {
            theta,
            gamma,
            activation: Activation::Current,
        })
    }

    /// The same integrator with another activation rule.
    pub fn with_activation(self, activation: Activation) -> Self {
        Self { activation, ..self }
    }

    /// Activation of a unilateral interaction: ỹ = y + γ h ẏ ≤ 0.
    pub fn is_active(&self, y: f64, ydot: f64, h: f64) -> bool {
        y + self.gamma * h * ydot <= 0.0
    }

    /// The position update q_{k+1} = q_k + h [θ v_{k+1} + (1−θ) v_k], componentwise.
    pub fn position(&self, q_k: f64, v_k: f64, v_next: f64, h: f64) -> f64 {
        q_k + h * (self.theta * v_next + (1.0 - self.theta) * v_k)
    }
}

/// Parameters of the Newton loop used for nonlinear systems or relations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewtonOptions {
    /// Stop when ‖M(v − v_k) − h(1−θ)F_k − hθF_{k+1} − p‖₂ ≤ this. Default 1e-6 (Siconos).
    pub tolerance: f64,
    /// At most this many iterations per step. Default 50 (Siconos).
    pub max_iterations: usize,
    /// Siconos's `SICONOS_TS_LINEAR`: one pass per step with the relations' Jacobians at q_k
    /// (exact for linear scenes, a linearisation otherwise). Default false (Newton).
    pub single_pass: bool,
    /// Siconos's `resetAllLambda` (Euler–Moreau's Newton loop): start each step from λ = 0
    /// (default true); false: from the last step's λ.
    pub reset_lambda: bool,
}

impl Default for NewtonOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-6,
            max_iterations: 50,
            single_pass: false,
            reset_lambda: true,
        }
    }
}
