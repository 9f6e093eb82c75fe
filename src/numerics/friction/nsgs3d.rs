//! NSGS for 3-D friction contact (Siconos's `fc3d_nsgs` with its defaults): the trivial
//! case first (every q_N ≥ −ε: r = 0, u = q), then sweeps over the contacts in order, each
//! replaced by the hybrid local solver's answer ([`super::local`]) with the others fixed,
//! stopped by the light error with a full final check as in 2-D.

use nalgebra::{DVector, Matrix3, Vector3};

use super::local::LocalProblem;
use super::{FrictionContactProblem, FrictionOptions, LightWithFullFinal, Velocities, report};
use crate::numerics::SolverReport;

/// Solves `problem` (d = 3) from `r`.
pub(super) fn solve(problem: &FrictionContactProblem, r: &mut DVector<f64>, options: &FrictionOptions) -> SolverReport {
    let n_c = problem.contacts();
    let tolerance = options.tolerance;
    if (0..n_c).all(|alpha| problem.q[3 * alpha] >= -f64::EPSILON) {
        r.fill(0.0);
        return report(problem, r, 0, tolerance);
    }
    let blocks: Vec<Matrix3<f64>> = (0..n_c)
        .map(|alpha| Matrix3::from_fn(|i, j| problem.w[(3 * alpha + i, 3 * alpha + j)]))
        .collect();
    // PLI's step per contact, kept from sweep to sweep.
    let mut rho = vec![1.0; n_c];
    let mut stopping = LightWithFullFinal::new(tolerance);
    let mut velocities = Velocities::new(&problem.w, &problem.q, r);
    for iteration in 1..=options.max_iterations {
        let mut change = 0.0;
        for alpha in 0..n_c {
            let local = LocalProblem {
                w: blocks[alpha],
                q: Vector3::from_column_slice(velocities.local_q(&problem.w, 3 * alpha, 3, r).as_slice()),
                mu: problem.mu[alpha],
            };
            let old = Vector3::from_column_slice(&r.as_slice()[3 * alpha..3 * alpha + 3]);
            let mut new = old;
            local.solve(&mut new, &mut rho[alpha]);
            change += (new - old).norm_squared();
            velocities.update(&problem.w, 3 * alpha, (new - old).as_slice());
            r.rows_mut(3 * alpha, 3).copy_from(&new);
        }
        if stopping.stop(change, r, || problem.error(r)) {
            return report(problem, r, iteration, tolerance);
        }
    }
    report(problem, r, options.max_iterations, tolerance)
}
