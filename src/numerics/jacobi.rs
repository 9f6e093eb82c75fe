//! Relaxed projected Jacobi.
//!
//! Every unknown is updated from the previous iterate (the form that parallelises, one row
//! per GPU invocation):
//! ```text
//!     w = q + M z_old,     z_i ← max(0, z_old_i − ω w_i / M_ii)
//! ```
//! This is a projected gradient step preconditioned by D = diag(M); for symmetric positive
//! definite M it converges when ω < 2/λ_max(D^{-1/2} M D^{-1/2}). The default ω is 1/ρ̄, with
//! ρ̄ = max_i Σ_j |M_ij| / √(M_ii M_jj) the Gershgorin bound on that eigenvalue. On an MLCP
//! the equality rows are not projected.

use nalgebra::{DMatrix, DVector};

use super::{Rows, SolverOptions, SolverReport, report};

/// Runs Jacobi sweeps from `z` until Siconos's error is ≤ the tolerance or the sweeps run out.
pub(crate) fn solve(lcp: &impl Rows, z: &mut DVector<f64>, options: &SolverOptions) -> SolverReport {
    let (m, q) = (lcp.matrix(), lcp.vector());
    if (0..lcp.size()).any(|i| m[(i, i)] <= f64::EPSILON) {
        return report(lcp, z, 0, options.tolerance);
    }
    let omega = options.omega.unwrap_or_else(|| 1.0 / gershgorin_bound(m));
    let mut w = DVector::zeros(lcp.size());
    let mut last = report(lcp, z, 0, options.tolerance);
    for sweep in 1..=options.max_iterations {
        if last.converged {
            break;
        }
        m.mul_to(z, &mut w);
        w += q;
        for i in 0..lcp.size() {
            z[i] = lcp.project(i, z[i] - omega * w[i] / m[(i, i)]);
        }
        last = report(lcp, z, sweep, options.tolerance);
    }
    last
}

/// max_i Σ_j |M_ij| / √(M_ii M_jj): an upper bound on λ_max(D^{-1/2} M D^{-1/2}).
/// Requires a positive diagonal.
pub fn gershgorin_bound(m: &DMatrix<f64>) -> f64 {
    (0..m.nrows())
        .map(|i| {
            (0..m.ncols())
                .map(|j| m[(i, j)].abs() / (m[(i, i)] * m[(j, j)]).sqrt())
                .sum::<f64>()
        })
        .fold(0.0, f64::max)
}
