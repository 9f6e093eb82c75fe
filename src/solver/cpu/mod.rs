//! CPU solvers in f64: the LCP solvers and the reference time stepper.
//!
//! Readable before fast: these are the yardsticks the batched and GPU paths are checked against.

pub mod batch;
pub mod chain;
pub mod enumerative;
mod euler_moreau_step;
pub mod jacobi;
pub mod lanes;
pub mod lemke;
pub mod mlcp;
mod moreau_jean_step;
pub mod pgs;
pub mod projection;
pub mod stepper;
pub mod trajectory;

use nalgebra::{DMatrix, DVector};

use super::{MixedLinearComplementarityProblem, SolverReport, lcp::LinearComplementarityProblem};
pub use projection::Stabilization;
pub use stepper::{Integrator, StepReport, TimeStepping};
pub use trajectory::{Sample, Trajectory};

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
fn report(problem: &impl Rows, z: &DVector<f64>, iterations: usize, tolerance: f64) -> SolverReport {
    let residual = problem.error(z);
    SolverReport {
        converged: residual <= tolerance,
        iterations,
        residual,
    }
}
