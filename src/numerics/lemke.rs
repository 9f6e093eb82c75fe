//! Lemke's complementary pivoting with the lexicographic ratio test: the exact reference.
//!
//! It works on the tableau of
//! ```text
//!     w − M z − d z₀ = q,    d = (1, …, 1)ᵀ
//! ```
//! starting from the basis w = q + d z₀ with z₀ = −min q. Each pivot brings in the complement
//! of the variable that just left; ties in the ratio test are broken lexicographically on the
//! rows of the basis inverse, which prevents cycling on degenerate problems. It ends when z₀
//! leaves (a solution) or when the entering column has no positive entry (a secondary ray:
//! no solution found, which is certain for copositive-plus M). The basic z are finally
//! re-solved from the original M ("polishing"), which removes the tableau's round-off.

use nalgebra::{DMatrix, DVector};

use super::report;
use crate::numerics::{SolverOptions, SolverReport, lcp::LinearComplementarityProblem};

/// Pivot entries below this fraction of their column's largest entry count as zero.
const PIVOT_TOLERANCE: f64 = 1e-11;

/// Variable numbering in the tableau: w_i is i, z_i is n + i, z₀ is 2n.
struct Tableau {
    n: usize,
    /// n × (2n + 2): the columns of w, z, z₀, then the right-hand side.
    t: DMatrix<f64>,
    /// `basis[row]` = the variable basic in that row.
    basis: Vec<usize>,
}

impl Tableau {
    fn new(lcp: &LinearComplementarityProblem) -> Self {
        let n = lcp.size();
        let mut t = DMatrix::zeros(n, 2 * n + 2);
        for i in 0..n {
            t[(i, i)] = 1.0;
            for j in 0..n {
                t[(i, n + j)] = -lcp.m[(i, j)];
            }
            t[(i, 2 * n)] = -1.0;
            t[(i, 2 * n + 1)] = lcp.q[i];
        }
        Self {
            n,
            t,
            basis: (0..n).collect(),
        }
    }

    fn rhs(&self, row: usize) -> f64 {
        self.t[(row, 2 * self.n + 1)]
    }

    /// Gauss–Jordan pivot on (row, col).
    fn pivot(&mut self, row: usize, col: usize) {
        let p = self.t[(row, col)];
        self.t.row_mut(row).scale_mut(1.0 / p);
        let pivot_row = self.t.row(row).clone_owned();
        for r in (0..self.n).filter(|&r| r != row) {
            let factor = self.t[(r, col)];
            if factor != 0.0 {
                for (c, &value) in pivot_row.iter().enumerate() {
                    self.t[(r, c)] -= factor * value;
                }
            }
        }
        self.basis[row] = col;
    }

    /// The lexicographic minimum-ratio row for entering column `col`; `None` on a ray.
    /// z₀ leaves whenever its row ties for the minimum ratio.
    fn leaving_row(&self, col: usize) -> Option<usize> {
        let scale = self.t.column(col).amax();
        let mut rows: Vec<usize> = (0..self.n)
            .filter(|&r| self.t[(r, col)] > PIVOT_TOLERANCE * scale)
            .collect();
        // Column 2n+1 (rhs) first, then the basis-inverse columns (those of w) in order.
        let keys = std::iter::once(2 * self.n + 1).chain(0..self.n);
        for key in keys {
            if rows.len() <= 1 {
                break;
            }
            let ratio = |r: usize| self.t[(r, key)] / self.t[(r, col)];
            let min = rows.iter().map(|&r| ratio(r)).fold(f64::INFINITY, f64::min);
            let tie = 1e-12 * (1.0 + min.abs());
            rows.retain(|&r| ratio(r) <= min + tie);
            if key == 2 * self.n + 1
                && let Some(&r0) = rows.iter().find(|&&r| self.basis[r] == 2 * self.n)
            {
                return Some(r0);
            }
        }
        rows.first().copied()
    }
}

/// Solves by lexicographic Lemke; `iterations` counts pivots.
pub(crate) fn solve(lcp: &LinearComplementarityProblem, z: &mut DVector<f64>, options: &SolverOptions) -> SolverReport {
    let n = lcp.size();
    z.fill(0.0);
    if n == 0 || lcp.q.min() >= 0.0 {
        return report(lcp, z, 0, options.tolerance);
    }
    let mut tab = Tableau::new(lcp);
    // z₀ enters; the row of the most negative q (lexicographically) leaves.
    let mut entering = 2 * n;
    let mut leaving_row = (0..n)
        .min_by(|&a, &b| lcp.q[a].total_cmp(&lcp.q[b]).then(b.cmp(&a)))
        .unwrap_or(0);
    for pivots in 1..=options.max_iterations {
        let leaving = tab.basis[leaving_row];
        tab.pivot(leaving_row, entering);
        if leaving == 2 * n {
            extract(&tab, z);
            polish(lcp, z);
            return report(lcp, z, pivots, options.tolerance);
        }
        entering = if leaving < n { leaving + n } else { leaving - n };
        match tab.leaving_row(entering) {
            Some(row) => leaving_row = row,
            None => {
                extract(&tab, z);
                return SolverReport {
                    converged: false,
                    ..report(lcp, z, pivots, options.tolerance)
                };
            }
        }
    }
    extract(&tab, z);
    SolverReport {
        converged: false,
        ..report(lcp, z, options.max_iterations, options.tolerance)
    }
}

/// z from the basic z-variables of the tableau (non-basic ones are zero).
fn extract(tab: &Tableau, z: &mut DVector<f64>) {
    let n = tab.n;
    z.fill(0.0);
    for (row, &var) in tab.basis.iter().enumerate() {
        if (n..2 * n).contains(&var) {
            z[var - n] = tab.rhs(row).max(0.0);
        }
    }
}

/// Re-solves M_SS z_S = −q_S on the support S of z; keeps the result if it is more accurate.
fn polish(lcp: &LinearComplementarityProblem, z: &mut DVector<f64>) {
    let support: Vec<usize> = (0..lcp.size()).filter(|&i| z[i] > 0.0).collect();
    if support.is_empty() {
        return;
    }
    let m_ss = DMatrix::from_fn(support.len(), support.len(), |r, c| lcp.m[(support[r], support[c])]);
    let rhs = DVector::from_fn(support.len(), |r, _| -lcp.q[support[r]]);
    let Some(z_s) = m_ss.lu().solve(&rhs) else {
        return;
    };
    let mut polished = DVector::zeros(lcp.size());
    for (k, &i) in support.iter().enumerate() {
        polished[i] = z_s[k].max(0.0);
    }
    if lcp.error(&polished) < lcp.error(z) {
        z.copy_from(&polished);
    }
}
