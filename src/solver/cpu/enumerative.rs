//! Enumeration of complementary bases, for small n.
//!
//! For each subset S of unknowns taken as basic (w_S = 0, z outside S = 0) it solves
//! `M_SS z_S = −q_S` and accepts the first z whose Siconos error is within the tolerance.
//! The cost is 2ⁿ small solves, so [`MAX_SIZE`] bounds n.

use nalgebra::{DMatrix, DVector};

use super::report;
use crate::solver::{SolverOptions, SolverReport, lcp::LinearComplementarityProblem};

/// The largest n enumeration accepts (2¹⁶ bases).
pub const MAX_SIZE: usize = 16;

/// Tries the bases in order of increasing size; `z` holds the best candidate found.
/// `iterations` counts the bases tried.
pub(crate) fn solve(lcp: &LinearComplementarityProblem, z: &mut DVector<f64>, options: &SolverOptions) -> SolverReport {
    let n = lcp.size();
    let mut best = report(lcp, z, 0, options.tolerance);
    if n > MAX_SIZE || best.converged {
        // (`solve_lcp` refuses n > MAX_SIZE before calling this.)
        return best;
    }
    let mut masks: Vec<u32> = (0..1u32 << n).collect();
    masks.sort_by_key(|mask| mask.count_ones());
    let mut candidate = DVector::zeros(n);
    for (tried, &mask) in masks.iter().enumerate() {
        if !basis_solution(lcp, mask, &mut candidate) {
            continue;
        }
        let r = report(lcp, &candidate, tried + 1, options.tolerance);
        if r.residual < best.residual {
            z.copy_from(&candidate);
            best = r;
        }
        if r.converged {
            return r;
        }
    }
    SolverReport {
        iterations: masks.len(),
        ..best
    }
}

/// z_S = −M_SS⁻¹ q_S projected onto z ≥ 0, zero elsewhere; false when M_SS is singular.
fn basis_solution(lcp: &LinearComplementarityProblem, mask: u32, z: &mut DVector<f64>) -> bool {
    let basic: Vec<usize> = (0..lcp.size()).filter(|i| mask & (1 << i) != 0).collect();
    z.fill(0.0);
    if basic.is_empty() {
        return true;
    }
    let m_ss = DMatrix::from_fn(basic.len(), basic.len(), |r, c| lcp.m[(basic[r], basic[c])]);
    let q_s = DVector::from_fn(basic.len(), |r, _| -lcp.q[basic[r]]);
    let Some(z_s) = m_ss.lu().solve(&q_s) else {
        return false;
    };
    for (k, &i) in basic.iter().enumerate() {
        z[i] = z_s[k].max(0.0);
    }
    true
}
