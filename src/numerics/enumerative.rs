//! Enumeration of complementary bases, for few complementarity rows.
//!
//! For each subset S of the complementarity rows taken as basic (w_S = 0; z = 0 on the other
//! complementarity rows), with every equality row E basic too, it solves
//! `M_BB z_B = −q_B` on B = E ∪ S and accepts the first z whose error is within the
//! tolerance. The cost is 2ᶜ small solves (c complementarity rows), so [`MAX_SIZE`] bounds c.

use nalgebra::{DMatrix, DVector};

use super::{Rows, SolverOptions, SolverReport, report};

/// The most complementarity rows enumeration accepts (2¹⁶ bases).
pub const MAX_SIZE: usize = 16;

/// Tries the bases in order of increasing size; `z` holds the best candidate found.
/// `iterations` counts the bases tried.
pub(crate) fn solve(problem: &impl Rows, z: &mut DVector<f64>, options: &SolverOptions) -> SolverReport {
    let n = problem.size();
    let free: Vec<usize> = (0..n).filter(|&i| problem.is_equality(i)).collect();
    let complementary: Vec<usize> = (0..n).filter(|&i| !problem.is_equality(i)).collect();
    let mut best = report(problem, z, 0, options.tolerance);
    if complementary.len() > MAX_SIZE || best.converged {
        // (`solve_lcp` and `solve_mlcp` refuse more than MAX_SIZE rows before calling this.)
        return best;
    }
    let mut masks: Vec<u32> = (0..1u32 << complementary.len()).collect();
    masks.sort_by_key(|mask| mask.count_ones());
    let mut candidate = DVector::zeros(n);
    for (tried, &mask) in masks.iter().enumerate() {
        let basic: Vec<usize> = free
            .iter()
            .copied()
            .chain(
                (0..complementary.len())
                    .filter(|k| mask & (1 << k) != 0)
                    .map(|k| complementary[k]),
            )
            .collect();
        if !basis_solution(problem, &basic, &mut candidate) {
            continue;
        }
        let r = report(problem, &candidate, tried + 1, options.tolerance);
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

/// z_B = −M_BB⁻¹ q_B, projected row by row, zero elsewhere; false when M_BB is singular.
fn basis_solution(problem: &impl Rows, basic: &[usize], z: &mut DVector<f64>) -> bool {
    let (m, q) = (problem.matrix(), problem.vector());
    z.fill(0.0);
    if basic.is_empty() {
        return true;
    }
    let m_bb = DMatrix::from_fn(basic.len(), basic.len(), |r, c| m[(basic[r], basic[c])]);
    let q_b = DVector::from_fn(basic.len(), |r, _| -q[basic[r]]);
    let Some(z_b) = m_bb.lu().solve(&q_b) else {
        return false;
    };
    for (k, &i) in basic.iter().enumerate() {
        z[i] = problem.project(i, z_b[k]);
    }
    true
}
