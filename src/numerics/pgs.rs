//! Projected Gauss–Seidel (successive over-relaxation when ω ≠ 1).
//!
//! One sweep updates each unknown in order from the latest values:
//! ```text
//!     w_i = q_i + Σ_j M_ij z_j,     z_i ← max(0, z_i − ω w_i / M_ii)
//! ```
//! With ω = 1 this is Siconos's `lcp_pgs.c` update z_i = max(0, −(q_i + Σ_{j≠i} M_ij z_j)/M_ii).
//! It converges for symmetric positive definite M and 0 < ω < 2. A zero diagonal entry is a
//! failure (as in Siconos), reported with zero iterations. On an MLCP the equality rows take
//! the same update without the projection (Siconos's `mlcp_pgs`).

use nalgebra::DVector;

use super::{Rows, SolverOptions, SolverReport, report};

/// Runs PGS sweeps from `z` until Siconos's error is ≤ the tolerance or the sweeps run out.
pub(crate) fn solve(lcp: &impl Rows, z: &mut DVector<f64>, options: &SolverOptions) -> SolverReport {
    let (m, q) = (lcp.matrix(), lcp.vector());
    let omega = options.omega.unwrap_or(1.0);
    if (0..lcp.size()).any(|i| m[(i, i)].abs() <= f64::EPSILON) {
        return report(lcp, z, 0, options.tolerance);
    }
    let mut last = report(lcp, z, 0, options.tolerance);
    for sweep in 1..=options.max_iterations {
        if last.converged {
            break;
        }
        for i in 0..lcp.size() {
            let w_i = q[i] + m.row(i).dot(&z.transpose());
            z[i] = lcp.project(i, z[i] - omega * w_i / m[(i, i)]);
        }
        last = report(lcp, z, sweep, options.tolerance);
    }
    last
}
