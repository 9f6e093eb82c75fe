//! What the row-by-row solvers (PGS, Jacobi, enumeration) see of an LCP or an MLCP.

use nalgebra::{DMatrix, DVector};

use super::{LinearComplementarityProblem, MixedLinearComplementarityProblem, SolverReport};

/// What the row-by-row solvers (PGS, Jacobi, enumeration) see of an LCP or an MLCP:
/// w = M z + q, which rows are equalities (z_i free, w_i = 0), and the problem's error.
pub(crate) trait Rows {
    fn matrix(&self) -> &DMatrix<f64>;
    fn vector(&self) -> &DVector<f64>;
    fn is_equality(&self, i: usize) -> bool;
    fn error(&self, z: &DVector<f64>) -> f64;

    fn size(&self) -> usize {
        self.vector().len()
    }

    /// The projection of row i: the identity on an equality row, max(0, ·) otherwise.
    fn project(&self, i: usize, x: f64) -> f64 {
        if self.is_equality(i) { x } else { x.max(0.0) }
    }
}

impl Rows for LinearComplementarityProblem {
    fn matrix(&self) -> &DMatrix<f64> {
        &self.m
    }
    fn vector(&self) -> &DVector<f64> {
        &self.q
    }
    fn is_equality(&self, _: usize) -> bool {
        false
    }
    fn error(&self, z: &DVector<f64>) -> f64 {
        LinearComplementarityProblem::error(self, z)
    }
}

impl Rows for MixedLinearComplementarityProblem {
    fn matrix(&self) -> &DMatrix<f64> {
        &self.m
    }
    fn vector(&self) -> &DVector<f64> {
        &self.q
    }
    fn is_equality(&self, i: usize) -> bool {
        self.equality[i]
    }
    fn error(&self, z: &DVector<f64>) -> f64 {
        MixedLinearComplementarityProblem::error(self, z)
    }
}

/// The report for `z` as it stands after `iterations`, judged against `tolerance`.
pub(crate) fn report(problem: &impl Rows, z: &DVector<f64>, iterations: usize, tolerance: f64) -> SolverReport {
    let residual = problem.error(z);
    SolverReport {
        converged: residual <= tolerance,
        iterations,
        residual,
    }
}
