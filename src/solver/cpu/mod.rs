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
mod moreau_jean_step;
pub mod pgs;
pub mod stepper;
pub mod trajectory;

use nalgebra::DVector;

use super::{SolverReport, lcp::LinearComplementarityProblem};
pub use stepper::{Integrator, StepReport, TimeStepping};
pub use trajectory::{Sample, Trajectory};

/// The report for `z` as it stands after `iterations`, judged against `tolerance`.
fn report(lcp: &LinearComplementarityProblem, z: &DVector<f64>, iterations: usize, tolerance: f64) -> SolverReport {
    let residual = lcp.error(z);
    SolverReport {
        converged: residual <= tolerance,
        iterations,
        residual,
    }
}
