//! The De Saxcé fixed point (Siconos's FC3D_DSFP, here in 2-D and 3-D): projected Jacobi on
//! the modified velocity, every contact at once —
//! ```text
//!     u = W r + q,    r^α ← P_K^α(r^α − ρ (u^α_N + μ^α ‖u^α_T‖, u^α_T))
//! ```
//! — one matrix–vector product and one projection per contact per iteration: the shape of a
//! GPU kernel. Siconos states no convergence guarantee; its default ρ is 1, which the user
//! must scale to about 1/‖W‖. Here ρ defaults to 1/‖W‖_∞ (the largest row sum of |W|, an upper
//! bound of W's spectral radius). It stops on Siconos's error.

use nalgebra::DVector;

use super::{FrictionContactProblem, FrictionOptions, cone, report};
use crate::numerics::SolverReport;

/// The default step 1/‖W‖_∞.
pub fn default_rho(problem: &FrictionContactProblem) -> f64 {
    let norm = problem
        .w
        .row_iter()
        .map(|row| row.iter().map(|x| x.abs()).sum::<f64>())
        .fold(0.0, f64::max);
    if norm > 0.0 { 1.0 / norm } else { 1.0 }
}

/// Solves `problem` from `r`.
pub(super) fn solve(problem: &FrictionContactProblem, r: &mut DVector<f64>, options: &FrictionOptions) -> SolverReport {
    let rho = options.rho.unwrap_or_else(|| default_rho(problem));
    let d = problem.dimension;
    for iteration in 0..options.max_iterations {
        if problem.error(r) <= options.tolerance {
            return report(problem, r, iteration, options.tolerance);
        }
        let u = problem.u(r);
        for alpha in 0..problem.contacts() {
            let mu = problem.mu[alpha];
            let (ra, ua) = (&mut r.as_mut_slice()[alpha * d..][..d], &u.as_slice()[alpha * d..][..d]);
            let ut = ua[1..].iter().map(|x| x * x).sum::<f64>().sqrt();
            ra[0] -= rho * (ua[0] + mu * ut);
            for k in 1..d {
                ra[k] -= rho * ua[k];
            }
            cone::project(ra, mu);
        }
    }
    report(problem, r, options.max_iterations, options.tolerance)
}
