//! 2-D friction contact as an LCP (Siconos's `fc2d_tolcp`, used by its FC2D Lemke and
//! enumeration solvers), solved by lexicographic Lemke. Per contact the LCP unknowns are
//! z = (r_N, r_T + μ r_N, σ) and
//! ```text
//!     w₁ = u_N                       (r_T = z₂ − μ z₁ in u = W r + q)
//!     w₂ = u_T + σ
//!     w₃ = μ r_N − r_T = 2μ z₁ − z₂
//! ```
//! so that 0 ≤ z ⟂ w ≥ 0 is Signorini and Coulomb's law (σ = |u_T| when sliding backwards):
//! the reactions are r_N = z₁, r_T = z₂ − μ z₁ = (z₂ − w₃)/2, exact up to round-off.

use nalgebra::{DMatrix, DVector};

use super::{FrictionContactProblem, FrictionOptions, report};
use crate::error::Result;
use crate::numerics::{LinearComplementarityProblem, SolverOptions, SolverReport, lemke};

/// The LCP (M, q) of size 3 n_c of `problem` (d = 2).
pub fn lcp(problem: &FrictionContactProblem) -> Result<LinearComplementarityProblem> {
    let n_c = problem.contacts();
    let w = &problem.w;
    let mut m = DMatrix::zeros(3 * n_c, 3 * n_c);
    let mut q = DVector::zeros(3 * n_c);
    for i in 0..n_c {
        let (n_i, t_i) = (2 * i, 2 * i + 1);
        for j in 0..n_c {
            let (n_j, t_j, mu_j) = (2 * j, 2 * j + 1, problem.mu[j]);
            for (row, wrow) in [(3 * i, n_i), (3 * i + 1, t_i)] {
                m[(row, 3 * j)] = w[(wrow, n_j)] - mu_j * w[(wrow, t_j)];
                m[(row, 3 * j + 1)] = w[(wrow, t_j)];
            }
        }
        m[(3 * i + 1, 3 * i + 2)] = 1.0;
        m[(3 * i + 2, 3 * i)] = 2.0 * problem.mu[i];
        m[(3 * i + 2, 3 * i + 1)] = -1.0;
        q[3 * i] = problem.q[n_i];
        q[3 * i + 1] = problem.q[t_i];
    }
    LinearComplementarityProblem::new(m, q)
}

/// Solves `problem` (d = 2) through its LCP; the report's residual is the friction problem's
/// own error, its iterations Lemke's pivots.
pub(super) fn solve(
    problem: &FrictionContactProblem,
    r: &mut DVector<f64>,
    options: &FrictionOptions,
) -> Result<SolverReport> {
    // z(s q) = s z(q): Lemke runs on q/‖q‖, where its pivot tolerances mean what they say
    // even when q is round-off (FrictionContactProblem00394: ‖q‖ ≈ 1e-15).
    let mut lcp = lcp(problem)?;
    let scale = lcp.q.norm();
    if scale > 0.0 {
        lcp.q /= scale;
    }
    let mut z = DVector::zeros(lcp.size());
    let lcp_options = SolverOptions {
        tolerance: options.tolerance,
        max_iterations: options.max_iterations,
        ..SolverOptions::default()
    };
    let pivots = lemke::solve(&lcp, &mut z, &lcp_options);
    if scale > 0.0 {
        z *= scale;
    }
    for i in 0..problem.contacts() {
        let (normal, mu) = (z[3 * i], problem.mu[i]);
        r[2 * i] = normal;
        // r_T = z₂ − μ z₁ (= (z₂ − w₃)/2, Siconos's form), held in [−μ r_N, μ r_N] where the
        // LCP's w₃ ≥ 0 and z₂ ≥ 0 hold only to round-off.
        let bound = mu * normal;
        r[2 * i + 1] = (z[3 * i + 1] - bound).max(-bound).min(bound);
    }
    let mut result = report(problem, r, pivots.iterations, options.tolerance);
    result.converged &= pivots.converged;
    Ok(result)
}
