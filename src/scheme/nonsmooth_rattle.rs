//! The nonsmooth RATTLE scheme (Breuling, Capobianco, Eugster, Leine 2024, "A nonsmooth RATTLE
//! algorithm for mechanical systems with frictional unilateral constraints", Nonlinear Analysis:
//! Hybrid Systems 53, 101469; the authors' code: cardillo's `cardillo/solver/rattle.py`), here
//! without friction, for Lagrangian systems: second order between impacts, constraints held at
//! position and velocity level, Newton's impact law exact. One step from (q_n, v_n) at t_n:
//! ```text
//!   half kick : M_n (v̄ − v_n) = (h/2) F(t_n, q_n, v̄)                    (W½ = M_n − (h/2) ∂F/∂v)
//!   drift     : q̄ = q_n + h v̄
//!   stage 1   : q(P¹) = q̄ + h W½⁻¹ J_nᵀ P¹,   on the equalities and the contacts with
//!               h_α(q̄) ≤ δ:  h(q(P¹), t_{n+1}) = 0,  0 ≤ h_α(q(P¹)) ⟂ P¹_α ≥ 0
//!               (Newton–Josephy: an MLCP of matrix J(q^i) W½⁻¹ J_nᵀ per iterate, to 1e-13)
//!   update    : v½ = v̄ + W½⁻¹ J_nᵀ P¹,   q_{n+1} = q_n + h v½
//!   free kick : v* = v½ + M⁻¹ [(h/2) F(t_{n+1}, q_{n+1}, v½) − J_{n+1}ᵀ P¹]
//!   stage 2   : v_{n+1} = v* + M⁻¹ J_{n+1}ᵀ P on the equalities and the contacts closed by
//!               stage 1:  ẏ⁺ = 0 (equalities),  0 ≤ ẏ⁺_α + e_α ẏ⁻_α ⟂ P_α ≥ 0,
//!               ẏ⁺ = J_{n+1} v_{n+1} + ∂h/∂t, ẏ⁻ = J_n v_n + ∂h/∂t(t_n)
//! ```
//! P is the step's total percussion, reported as λ (Moreau–Jean's impulse, not the force
//! P/h). The forces are explicit in q: stable for h ω_max < 2. Stage 1 holds the equalities,
//! so a simulation's Baumgarte stabilisation has nothing to act on and is not applied
//! (a projection after the step finds them already held). Stage 1's default tolerance is an
//! absolute 1e-13 rather than a relative 1e-12 L: one more Newton–Josephy iterate, which
//! keeps g_N ≥ −1e-13 in a persistent contact.

use nalgebra::DMatrix;

use crate::error::{Error, Result};
use crate::validate;

/// Parameters of the nonsmooth RATTLE one-step integrator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NonsmoothRattleOSI {
    /// Stage 1 stops when every equality's |h| and every contact's complementarity residual
    /// is at most this (absolute, in the units of y: scale it with a scene far from unit
    /// size, where round-off in y exceeds it). Default 1e-13.
    pub position_tolerance: f64,
    /// δ ≥ 0: a contact enters stage 1 when h_α(q̄) ≤ δ. Default 0.
    pub candidate_margin: f64,
}

impl Default for NonsmoothRattleOSI {
    fn default() -> Self {
        Self {
            position_tolerance: 1e-13,
            candidate_margin: 0.0,
        }
    }
}

impl NonsmoothRattleOSI {
    /// Checks the tolerance (> 0) and the margin (≥ 0).
    pub fn checked(self) -> Result<Self> {
        let tol = self.position_tolerance;
        validate::scalar("NonsmoothRattleOSI position tolerance", tol, tol > 0.0, "must be > 0")?;
        let delta = self.candidate_margin;
        validate::scalar(
            "NonsmoothRattleOSI candidate margin δ",
            delta,
            delta >= 0.0,
            "must be ≥ 0",
        )?;
        Ok(self)
    }

    /// The stability guard: refuses a step h with h ω_max ≥ 2 for the system `what` of
    /// constant mass M and stiffness K (the forces are explicit), where ω_max = √λ_max(M⁻¹K)
    /// (K symmetrised; no bound where M is not positive definite or K is zero).
    pub fn check_stability(mass: &DMatrix<f64>, stiffness: &DMatrix<f64>, h: f64, what: &str) -> Result<()> {
        match highest_frequency(mass, stiffness) {
            Some(omega) if h * omega >= 2.0 => Err(Error::Unsupported {
                what: format!("nonsmooth RATTLE on {what} with h = {h}"),
                reason: format!(
                    "its forces are explicit: stable only for h ω_max < 2, and ω_max = {omega:.6e} rad/s (h ω_max = {:.3}); take h < {:.3e} or Moreau–Jean",
                    h * omega,
                    2.0 / omega
                ),
            }),
            _ => Ok(()),
        }
    }
}

/// ω_max = √λ_max(M⁻¹ K) of a linear system (K symmetrised; `None` where M is not positive
/// definite or K is zero).
fn highest_frequency(mass: &DMatrix<f64>, stiffness: &DMatrix<f64>) -> Option<f64> {
    if stiffness.iter().all(|&k| k == 0.0) {
        return None;
    }
    let l = mass.clone().cholesky()?.unpack();
    let l_inv = l.try_inverse()?;
    let a = &l_inv * (stiffness + stiffness.transpose()) * 0.5 * l_inv.transpose();
    let largest = a.symmetric_eigenvalues().iter().copied().fold(0.0, f64::max);
    Some(largest.sqrt())
}
