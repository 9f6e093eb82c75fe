//! The one-contact 3-D solvers of FC3D NSGS (Siconos's `numerics/src/FrictionContact/`:
//! `fc3d_nsgs.c`, `fc3d_onecontact_nonsmooth_Newton_solvers.c`, `fc3d_projection.c`,
//! `fc3d_AlartCurnier_functions.c`): Alart–Curnier's nonsmooth Newton damped by a
//! Goldstein–Price line search, the projection with local iterations (PLI), and Siconos's
//! default hybrid of the two (ONECONTACT_NSN_GP_HYBRID).
//!
//! A local problem is u = W r + q̃ with W the contact's 3 × 3 block and μ its coefficient.

use nalgebra::{Matrix3, Vector3};

use super::cone;

/// One contact's problem u = W r + q̃ with friction μ.
#[derive(Clone, Copy, Debug)]
pub struct LocalProblem {
    /// W (3 × 3).
    pub w: Matrix3<f64>,
    /// q̃.
    pub q: Vector3<f64>,
    /// μ.
    pub mu: f64,
}

/// The hybrid solver's settings (Siconos's defaults: Newton 10 iterations at 1e-14, PLI 100).
const NEWTON_ITERATIONS: usize = 10;
const NEWTON_TOLERANCE: f64 = 1e-14;
const PLI_ITERATIONS: usize = 100;
const LINE_SEARCH_TRIES: usize = 10;

impl LocalProblem {
    fn u(&self, r: &Vector3<f64>) -> Vector3<f64> {
        self.w * r + self.q
    }

    /// The contact's natural-map error ‖r − P_K(r − û)‖ / ‖q̃‖ (not divided when ‖q̃‖ ≤ ε).
    pub fn error(&self, r: &Vector3<f64>) -> f64 {
        let e = cone::natural_map_error(r.as_slice(), self.u(r).as_slice(), self.mu).sqrt();
        let norm = self.q.norm();
        if norm > f64::EPSILON { e / norm } else { e }
    }

    /// (ρ_N, ρ_T) of Siconos's SPLIT_SPECTRAL_NORM: ρ_N = 1/W_NN, ρ_T = 2/(s + d) with
    /// s = W₁₁ + W₂₂ and, as Siconos codes it, d = √max(0, s² − 4(s − W₂₁ + W₁₂)).
    fn rho(&self) -> (f64, f64) {
        let w = &self.w;
        let s = w[(1, 1)] + w[(2, 2)];
        let d = (s * s - 4.0 * (s - w[(2, 1)] + w[(1, 2)])).max(0.0).sqrt();
        (1.0 / w[(0, 0)], 2.0 / (s + d))
    }

    /// Alart–Curnier's function F(r) (`computeAlartCurnierSTD`) and its generalised Jacobian
    /// J = ∂F/∂r + ∂F/∂u W at r, with R̂_N = r_N − ρ_N u_N, R̂_T = r_T − ρ_T u_T:
    /// ```text
    ///     F_N = r_N − max(0, R̂_N),    F_T = r_T − proj_{disk(μ max(0, R̂_N))}(R̂_T)
    /// ```
    fn alart_curnier(&self, r: &Vector3<f64>, (rho_n, rho_t): (f64, f64)) -> (Vector3<f64>, Matrix3<f64>) {
        let u = self.u(r);
        let (mut dr, mut du) = (Matrix3::zeros(), Matrix3::zeros());
        let mut f = Vector3::zeros();
        let normal = r[0] - rho_n * u[0];
        if normal > 0.0 {
            f[0] = rho_n * u[0];
            du[(0, 0)] = rho_n;
        } else {
            f[0] = r[0];
            dr[(0, 0)] = 1.0;
        }
        let tangent = [r[1] - rho_t * u[1], r[2] - rho_t * u[2]];
        let radius = self.mu * normal.max(0.0);
        let norm = (tangent[0] * tangent[0] + tangent[1] * tangent[1]).sqrt();
        if norm <= radius {
            for k in 1..3 {
                f[k] = rho_t * u[k];
                du[(k, k)] = rho_t;
            }
        } else {
            let n = [tangent[0] / norm, tangent[1] / norm];
            let scale = radius / norm;
            for a in 0..2 {
                f[a + 1] = r[a + 1] - radius * n[a];
                for b in 0..2 {
                    // ∂P/∂R̂_T = (radius/‖R̂_T‖)(I − n nᵀ).
                    let dp = scale * (if a == b { 1.0 } else { 0.0 } - n[a] * n[b]);
                    dr[(a + 1, b + 1)] = if a == b { 1.0 } else { 0.0 } - dp;
                    du[(a + 1, b + 1)] = rho_t * dp;
                }
                if normal > 0.0 {
                    dr[(a + 1, 0)] = -self.mu * n[a];
                    du[(a + 1, 0)] = self.mu * rho_n * n[a];
                }
            }
        }
        (f, dr + du * self.w)
    }

    /// Alart–Curnier's Newton from `r` (at most 9 steps — Siconos's loop counts from 1 below
    /// its 10 —, stopping when a step is below 10ε or when ‖F‖/‖q̃‖ ≤ 1e-14:
    /// with the ½‖F‖²/‖q̃‖ ≤ 1e-14 of Siconos's damped local Newton
    /// (`fc3d_onecontact_nonsmooth_Newton_solvers.c`), NSGS stalls near 1e-8, while this stop
    /// gives the sweep counts Siconos 4.4.0's `fc3d_driver` reports at 1e-12 as well as at 1e-5),
    /// each step J dr = −F solved by Gaussian elimination with partial pivoting and
    /// damped by a Goldstein–Price search on ½‖F‖² (m₁ = 0.1, m₂ = 0.9, t₀ = 1, 10 tries).
    pub fn newton(&self, r: &mut Vector3<f64>) {
        let rho = self.rho();
        let q_norm = self.q.norm().max(f64::EPSILON);
        // Siconos counts from 1 below its 10: nine steps at most.
        for _ in 1..NEWTON_ITERATIONS {
            let (f, j) = self.alart_curnier(r, rho);
            let merit = 0.5 * f.norm_squared();
            if f.norm() / q_norm <= NEWTON_TOLERANCE {
                return;
            }
            let Some(step) = j.lu().solve(&-f) else {
                return;
            };
            // φ(t) = ½‖F(r + t dr)‖², φ'(0) = −‖F‖² along the Newton step.
            let slope = -f.norm_squared();
            let (mut low, mut high, mut t) = (0.0, f64::INFINITY, 1.0);
            for _ in 0..LINE_SEARCH_TRIES {
                let trial = 0.5 * self.alart_curnier(&(*r + step * t), rho).0.norm_squared();
                let rate = (trial - merit) / t;
                if rate > 0.1 * slope {
                    high = t;
                } else if rate < 0.9 * slope {
                    low = t;
                } else {
                    break;
                }
                t = if high.is_finite() { 0.5 * (low + high) } else { 2.0 * t };
            }
            *r += step * t;
            if (step * t).norm() < 10.0 * f64::EPSILON {
                return;
            }
        }
    }

    /// The projection with local iterations from `r` (Siconos's PLI): r ← P_K(r − ρ_k û) with
    /// ρ_k from the contact's persistent `rho`, backtracked by ⅔ until ρ_k‖Δu‖ ≤ 0.9‖Δr‖ (10
    /// tries) and `rho` enlarged by 3/2 when ρ_k‖Δu‖ < 0.3‖Δr‖ and the error fell; it stops
    /// when the squared natural map is ≤ 1e-14 or after 100 iterations.
    pub fn projection_with_local_iterations(&self, r: &mut Vector3<f64>, rho: &mut f64) {
        let squared_error = |r: &Vector3<f64>| cone::natural_map_error(r.as_slice(), self.u(r).as_slice(), self.mu);
        let mut error = squared_error(r);
        for _ in 0..PLI_ITERATIONS {
            if error <= NEWTON_TOLERANCE {
                return;
            }
            let u = self.u(r);
            let ut = (u[1] * u[1] + u[2] * u[2]).sqrt();
            let hat = Vector3::new(u[0] + self.mu * ut, u[1], u[2]);
            let mut rho_k = *rho;
            let (mut next, mut ratio) = (*r, 0.0);
            for attempt in 0..LINE_SEARCH_TRIES {
                if attempt > 0 {
                    rho_k *= 2.0 / 3.0;
                }
                next = *r - hat * rho_k;
                cone::project(next.as_mut_slice(), self.mu);
                let dr = (next - *r).norm();
                ratio = rho_k * (self.w * (next - *r)).norm() / dr.max(f64::MIN_POSITIVE);
                if ratio <= 0.9 {
                    break;
                }
            }
            *r = next;
            let new_error = squared_error(r);
            *rho = if ratio < 0.3 && new_error < error {
                1.5 * rho_k
            } else {
                rho_k
            };
            error = new_error;
        }
    }

    /// Siconos's default local solver (ONECONTACT_NSN_GP_HYBRID, NSN_AND_PLI_NSN_LOOP): r = 0
    /// when q̃_N > −ε; otherwise Newton, then — while above 1e-14 — PLI and Newton again, each
    /// result kept only if it meets the tolerance or lowers the contact's error; the result is
    /// projected onto the cone (so ‖r_T‖ ≤ μ r_N holds to rounding).
    pub fn solve(&self, r: &mut Vector3<f64>, rho: &mut f64) {
        if self.q[0] > -f64::EPSILON {
            *r = Vector3::zeros();
            return;
        }
        let mut error = self.error(r);
        let attempt = |r: &mut Vector3<f64>, error: &mut f64, run: &mut dyn FnMut(&mut Vector3<f64>)| {
            let mut trial = *r;
            run(&mut trial);
            let trial_error = self.error(&trial);
            if trial_error <= NEWTON_TOLERANCE || trial_error <= *error {
                (*r, *error) = (trial, trial_error);
            }
        };
        attempt(r, &mut error, &mut |r| self.newton(r));
        if error > NEWTON_TOLERANCE {
            attempt(r, &mut error, &mut |r| self.projection_with_local_iterations(r, rho));
            attempt(r, &mut error, &mut |r| self.newton(r));
        }
        // Newton approaches the cone's boundary from either side: the reaction returned is in
        // the cone (a move of the order of the local error).
        cone::project(r.as_mut_slice(), self.mu);
    }
}
