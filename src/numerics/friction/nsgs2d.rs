//! NSGS for 2-D friction contact, in Siconos's two implementations (`fc2d_nsgs_dense` and
//! `fc2d_nsgs`, `numerics/src/FrictionContact/fc2d_nsgs.c`): both sweep the contacts in order,
//! each solving its 2 × 2 block exactly with the others' reactions fixed; they differ in the
//! start, the case analysis and the stopping rule.

use nalgebra::DVector;

use super::{FrictionContactProblem, FrictionOptions, LightWithFullFinal, Velocities, report};
use crate::numerics::SolverReport;

/// Contact α's 2 × 2 block [[W_nn, W_nt], [W_tn, W_tt]].
fn block(problem: &FrictionContactProblem, alpha: usize) -> [[f64; 2]; 2] {
    block_at(&problem.w, 2 * alpha)
}

/// The 2 × 2 block of `w` at (`start`, `start`).
pub(super) fn block_at(w: &nalgebra::DMatrix<f64>, start: usize) -> [[f64; 2]; 2] {
    [
        [w[(start, start)], w[(start, start + 1)]],
        [w[(start + 1, start)], w[(start + 1, start + 1)]],
    ]
}

/// Solves [[a, b], [c, d]] x = z: Cramer's rule, or elimination with partial pivoting when
/// |det| < 100 ε (as `fc2d_nsgs_dense`).
fn solve2(w: [[f64; 2]; 2], z: [f64; 2]) -> [f64; 2] {
    let [[a, b], [c, d]] = w;
    let det = a * d - c * b;
    if det.abs() >= 100.0 * f64::EPSILON {
        return [(z[0] * d - b * z[1]) / det, (a * z[1] - c * z[0]) / det];
    }
    let (rows, rhs) = if a.abs() >= c.abs() {
        ([[a, b], [c, d]], z)
    } else {
        ([[c, d], [a, b]], [z[1], z[0]])
    };
    let factor = rows[1][0] / rows[0][0];
    let x1 = (rhs[1] - factor * rhs[0]) / (rows[1][1] - factor * rows[0][1]);
    [(rhs[0] - rows[0][1] * x1) / rows[0][0], x1]
}

/// Siconos's `fc2d_nsgs_dense`: from r = u = 0, sweeps in which contact i, with
/// z = −(q_i + Σ_{j≠i} W_ij r_j), takes
/// - r_i = 0, u_i = −z if −z_n ≥ 0 (separation);
/// - else u_i = 0 and W_ii r_i = z if that r_i is in the cone (stick);
/// - else slip+ (r_t = μ r_n, r_n = z_n/(W_nn + μ W_nt)) if r_n ≥ 0 and its
///   u_t = −z_t + r_n (W_nt + μ W_tt) ≤ 0;
/// - else slip− (r_t = −μ r_n, r_n = z_n/(W_nn − μ W_nt), u_t = −z_t + r_n (W_nt − μ W_tt)).
///
/// It stops when ‖W r + q − u‖ / ‖q‖ ≤ tol, u the velocities computed in the sweep; that value
/// decides `converged` (a slip denominator below 1e-12 is a failure, Siconos's info = 2), and
/// the report's residual is the natural-map error of the result.
pub(super) fn solve_dense(
    problem: &FrictionContactProblem,
    r: &mut DVector<f64>,
    options: &FrictionOptions,
) -> SolverReport {
    r.fill(0.0);
    let n_c = problem.contacts();
    let mut u = DVector::zeros(2 * n_c);
    let mut velocities = Velocities::new(&problem.w, &problem.q, r);
    let q_norm = problem.q.norm();
    let (mut stop, mut iterations, mut singular) = (1.0, 0, false);
    while iterations < options.max_iterations && stop > options.tolerance {
        for i in 0..n_c {
            let local = velocities.local_q(&problem.w, 2 * i, 2, r);
            let (ri, ui, tiny) = dense_local(block(problem, i), [local[0], local[1]], problem.mu[i]);
            singular |= tiny;
            velocities.update(&problem.w, 2 * i, &[ri[0] - r[2 * i], ri[1] - r[2 * i + 1]]);
            r.rows_mut(2 * i, 2).copy_from_slice(&ri);
            u.rows_mut(2 * i, 2).copy_from_slice(&ui);
        }
        iterations += 1;
        let gap = (problem.u(r) - &u).norm();
        stop = if q_norm > f64::EPSILON { gap / q_norm } else { gap };
    }
    SolverReport {
        converged: stop <= options.tolerance && !singular && r.iter().all(|x| x.is_finite()),
        iterations,
        residual: problem.error(r),
    }
}

/// `fc2d_nsgs_dense`'s solution of one contact: (r, u, whether a slip denominator was below
/// 1e-12) for its block `w`, its local q̃ and μ (the case analysis of [`solve_dense`]).
pub(super) fn dense_local(w: [[f64; 2]; 2], local: [f64; 2], mu: f64) -> ([f64; 2], [f64; 2], bool) {
    let z = [-local[0], -local[1]];
    if -z[0] >= 0.0 {
        return ([0.0, 0.0], [-z[0], -z[1]], false);
    }
    let stick = solve2(w, z);
    if stick[0] >= 0.0 && stick[1].abs() <= mu * stick[0] {
        return (stick, [0.0, 0.0], false);
    }
    let slip = |sign: f64| {
        let denominator = w[0][0] + sign * mu * w[0][1];
        let rn = z[0] / denominator;
        let ut = -z[1] + rn * (w[0][1] + sign * mu * w[1][1]);
        ([rn, sign * mu * rn], [0.0, ut], denominator.abs() < 1e-12)
    };
    let (rp, up, tiny) = slip(1.0);
    if rp[0] >= 0.0 && up[1] <= 0.0 {
        (rp, up, tiny)
    } else {
        slip(-1.0)
    }
}

/// Siconos's `fc2d_nsgs` (its SBM and sparse path): from the given r, sweeps in which contact
/// i, with q̃ = q_i + Σ_{j≠i} W_ij r_j, takes r_i = 0 if q̃_n > 0, else the stick solution
/// P = −W_ii⁻¹ q̃, replaced when |P_t| > μ P_n by slip− (P_n = −q̃_n/(W_nn − μ W_nt),
/// P_t = −μ P_n) if P_t + μ P_n < 0, else slip+ (P_n = −q̃_n/(W_nn + μ W_nt), P_t = μ P_n).
/// Stopping: [`LightWithFullFinal`]. A diagonal block with det < ε is reported
/// as a failure before any sweep.
pub(super) fn solve(problem: &FrictionContactProblem, r: &mut DVector<f64>, options: &FrictionOptions) -> SolverReport {
    let n_c = problem.contacts();
    let blocks: Vec<[[f64; 2]; 2]> = (0..n_c).map(|i| block(problem, i)).collect();
    // det W_ii < ε (Siconos's check: a block that is not positive definite enough).
    if blocks.iter().any(|[[a, b], [c, d]]| a * d < c * b + f64::EPSILON) {
        return SolverReport {
            converged: false,
            iterations: 0,
            residual: problem.error(r),
        };
    }
    let tolerance = options.tolerance;
    let mut stopping = LightWithFullFinal::new(tolerance);
    let mut velocities = Velocities::new(&problem.w, &problem.q, r);
    for iteration in 1..=options.max_iterations {
        let mut change = 0.0;
        for (i, &w) in blocks.iter().enumerate() {
            let local = velocities.local_q(&problem.w, 2 * i, 2, r);
            let mu = problem.mu[i];
            let p = if local[0] > 0.0 {
                [0.0, 0.0]
            } else {
                let p = solve2(w, [-local[0], -local[1]]);
                if p[1].abs() <= mu * p[0] {
                    p
                } else if p[1] + mu * p[0] < 0.0 {
                    let pn = -local[0] / (w[0][0] - mu * w[0][1]);
                    [pn, -mu * pn]
                } else {
                    let pn = -local[0] / (w[0][0] + mu * w[0][1]);
                    [pn, mu * pn]
                }
            };
            let delta = [p[0] - r[2 * i], p[1] - r[2 * i + 1]];
            change += delta[0] * delta[0] + delta[1] * delta[1];
            velocities.update(&problem.w, 2 * i, &delta);
            r.rows_mut(2 * i, 2).copy_from_slice(&p);
        }
        if stopping.stop(change, r, || problem.error(r)) {
            return report(problem, r, iteration, tolerance);
        }
    }
    report(problem, r, options.max_iterations, tolerance)
}
