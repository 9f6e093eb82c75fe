//! The frictional contact problem of a step, solved contact-parallel by graph-coloured
//! NSGS in velocity form: no global Delassus matrix, but the invariant v = v_free + M⁻¹Hᵀr,
//! so that contact c's local problem is u_c = W_cc r_c + q̃_c with q̃_c = H_c v + ê_c − W_cc r_c
//! (Siconos's `fc3d_local_problem_compute_q`: q_c + Σ_{d≠c} W_cd r_d, the shared bodies carrying
//! the coupling; Chrono's `ChSolverPSOR` and LMGC90's `nlgs` keep the same invariant). The local
//! solve is the scene-parallel engine's ([`friction_2d`], [`friction_3d`]), exact for the
//! diagonal blocks of discs and spheres.

use std::ops::Range;

use rayon::prelude::*;

use super::bodies::{Bodies, Dimension};
use super::narrow_phase::{Contact, apply_impulse, local_velocity};
use crate::contact::lanes::Lanes;
use crate::contact::local::{friction_2d, friction_3d, friction_error};

/// Contacts below this many in a colour are solved on one thread (rayon's split overhead).
const PARALLEL_MIN: usize = 64;

/// When the sweeps stop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverOptions {
    /// Siconos's relative natural-map error to reach (default 1e-6).
    pub tolerance: f64,
    /// The sweep cap (default 1000; at least one sweep is made): a capped step is recorded
    /// with its residual, not an error.
    pub max_sweeps: usize,
    /// Start from the impulses of the same pairs at the previous step, carried in the world
    /// frame (default true); false starts from zero, as Siconos does.
    pub warm_start: bool,
}

impl Default for SolverOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-6,
            max_sweeps: 1000,
            warm_start: true,
        }
    }
}

/// How a step's solve ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweeps {
    /// Sweeps done.
    pub sweeps: usize,
    /// Siconos's relative error after the last (0 with no active contact).
    pub residual: f64,
    /// Whether it reached the tolerance (or the natural map is within rounding of the
    /// velocities, [`error`]).
    pub converged: bool,
}

/// The velocity iterate of the sweeps and the bodies it belongs to.
pub struct Velocities<'a> {
    /// The bodies (their v and ω are v_k, read only).
    pub bodies: &'a Bodies,
    /// v, starting at v_free.
    pub v: &'a mut [[f64; 3]],
    /// ω, starting at ω_k (no torque acts but the contacts').
    pub omega: &'a mut [[f64; 3]],
}

/// The contacts in sweep order: the colours as ranges of `contacts`, the overflow last.
pub struct Coloured<'a> {
    /// All candidate contacts, sorted by (colour, pair key).
    pub contacts: &'a mut [Contact],
    /// Each colour's range, in order; the last may be the overflow colour.
    pub colours: &'a [Range<usize>],
    /// Whether the last range is the overflow colour, swept sequentially.
    pub overflow: bool,
}

/// v += M⁻¹Hᵀr for every active contact's (warm-started) r, in sweep order.
pub fn warm_start(state: &mut Velocities, contacts: &[Contact]) {
    for c in contacts.iter().filter(|c| c.active) {
        apply_impulse(state.bodies, state.v, state.omega, c, c.r);
    }
}

/// Contact c's new impulse given the others': with u = H_c v and q̃ = u + ê − W_cc r_c, the
/// exact solution of u = W_cc r + q̃, K ∋ r ⟂ û ∈ K* (2-D: [`friction_2d`]; 3-D: [`friction_3d`]).
#[inline(always)]
pub fn local_solve(b: &Bodies, v: &[[f64; 3]], omega: &[[f64; 3]], c: &Contact) -> [f64; 3] {
    let u = local_velocity(b, v, omega, c);
    let [wn, wt] = c.w;
    let one = |x: f64| Lanes::<f64, 1>([x]);
    let zero = one(0.0);
    let q = [
        one(u[0] + c.target[0] - wn * c.r[0]),
        one(u[1] + c.target[1] - wt * c.r[1]),
        one(u[2] + c.target[2] - wt * c.r[2]),
    ];
    let mu = one(c.law.mu());
    match b.dimension {
        Dimension::Two => {
            let [n, t] = friction_2d([[one(wn), zero], [zero, one(wt)]], [q[0], q[1]], mu);
            [n.0[0], t.0[0], 0.0]
        }
        Dimension::Three => {
            let w = [[one(wn), zero, zero], [zero, one(wt), zero], [zero, zero, one(wt)]];
            friction_3d(w, q, c.r.map(one), mu).map(|x| x.0[0])
        }
    }
}

/// One NSGS sweep, colour after colour: a colour's contacts share no body, so their local
/// solves read velocities no other contact of the colour writes and run in parallel (each
/// writes its Δr), then their impulses are applied; the overflow colour is swept one contact
/// at a time. The result is the sequential sweep in (colour, pair key) order, bit for bit,
/// on any number of threads. Returns Siconos's light error terms (Σ‖Δr_c‖², Σ‖r_c‖²), summed
/// in contact order as the impulses are applied.
pub fn sweep(state: &mut Velocities, coloured: &mut Coloured, delta: &mut [[f64; 3]]) -> (f64, f64) {
    let b = state.bodies;
    let mut light = (0.0, 0.0);
    for (k, range) in coloured.colours.iter().enumerate() {
        let contacts = &mut coloured.contacts[range.clone()];
        if coloured.overflow && k + 1 == coloured.colours.len() {
            for c in contacts.iter_mut().filter(|c| c.active) {
                let r = local_solve(b, state.v, state.omega, c);
                let dr = [r[0] - c.r[0], r[1] - c.r[1], r[2] - c.r[2]];
                c.r = r;
                apply_impulse(b, state.v, state.omega, c, dr);
                light = (light.0 + square(dr), light.1 + square(r));
            }
            continue;
        }
        let delta = &mut delta[..contacts.len()];
        let (v, omega) = (&*state.v, &*state.omega);
        contacts
            .par_iter_mut()
            .zip(delta.par_iter_mut())
            .with_min_len(PARALLEL_MIN)
            .for_each(|(c, d)| {
                if c.active {
                    let r = local_solve(b, v, omega, c);
                    *d = [r[0] - c.r[0], r[1] - c.r[1], r[2] - c.r[2]];
                    c.r = r;
                }
            });
        for (c, d) in contacts.iter().zip(delta.iter()).filter(|(c, _)| c.active) {
            apply_impulse(b, state.v, state.omega, c, *d);
            light = (light.0 + square(*d), light.1 + square(c.r));
        }
    }
    light
}

/// ‖x‖², summed in order.
#[inline(always)]
fn square(x: [f64; 3]) -> f64 {
    x[0] * x[0] + x[1] * x[1] + x[2] * x[2]
}

/// Siconos's relative error of the current impulses (`fc3d_compute_error`):
/// √(Σ_c ‖r_c − P_K(r_c − û_c)‖²) / max(‖q‖, ‖r‖, ‖u‖) over the active contacts, with
/// u = H v + ê and û = u + (μ‖u_T‖, 0, 0); the terms are computed in parallel and summed in
/// contact order. Also whether the natural map is within rounding of the velocities u is a
/// difference of, √(Σ ‖r − P_K(r − û)‖²) ≤ 64 ε V with V² = Σ_c Σ_{b∈c} ‖v_b‖² + ‖R_b ω_b‖²:
/// where q, r and u are themselves rounding (two balls of a cradle moving together,
/// touching), no sweep can lower the relative error, and the solve counts as converged.
pub fn error(state: &Velocities, contacts: &[Contact]) -> (f64, bool) {
    let b = state.bodies;
    let d = b.dimension.rows();
    let terms: Vec<[f64; 5]> = contacts
        .par_iter()
        .with_min_len(PARALLEL_MIN)
        .map(|c| {
            if !c.active {
                return [0.0; 5];
            }
            let u = local_velocity(b, state.v, state.omega, c);
            let u = [u[0] + c.target[0], u[1] + c.target[1], u[2] + c.target[2]];
            let one = |x: f64| Lanes::<f64, 1>([x]);
            let natural = friction_error(d, c.r.map(one), u.map(one), one(c.law.mu())).0[0];
            let size = |k: usize| {
                let spin = state.omega[k].map(|w| b.radius[k] * w);
                square(state.v[k]) + square(spin)
            };
            let (i, j) = (c.pair.i as usize, c.pair.j as usize);
            let velocities = size(i) + if j < b.len() { size(j) } else { 0.0 };
            [natural, square(c.q), square(c.r), square(u), velocities]
        })
        .collect();
    let mut sum = [0.0; 5];
    for t in &terms {
        for k in 0..5 {
            sum[k] += t[k];
        }
    }
    let natural = sum[0].sqrt();
    let rounding = natural <= 64.0 * f64::EPSILON * sum[4].sqrt();
    let scale = sum[1].max(sum[2]).max(sum[3]).sqrt();
    (if scale > f64::EPSILON { natural / scale } else { natural }, rounding)
}

/// Sweeps until [`error`] ≤ the tolerance or the cap, as Siconos's `fc3d_nsgs`: after each
/// sweep the light error √(Σ‖Δr‖²)/‖r‖ is compared with the tolerance, and only when it is
/// within is the full error computed and tested (and once at the cap, to report); with no
/// active contact, no sweep.
pub fn solve(
    state: &mut Velocities,
    coloured: &mut Coloured,
    delta: &mut [[f64; 3]],
    options: &SolverOptions,
) -> Sweeps {
    if !coloured.contacts.iter().any(|c| c.active) {
        return Sweeps {
            sweeps: 0,
            residual: 0.0,
            converged: true,
        };
    }
    let cap = options.max_sweeps.max(1);
    for k in 1..=cap {
        let (change, norm) = sweep(state, coloured, delta);
        let light = if norm > f64::EPSILON {
            (change / norm).sqrt()
        } else {
            change.sqrt()
        };
        if light <= options.tolerance || k == cap {
            let (residual, rounding) = error(state, coloured.contacts);
            let converged = residual <= options.tolerance || rounding;
            if converged || k == cap {
                return Sweeps {
                    sweeps: k,
                    residual,
                    converged,
                };
            }
        }
    }
    unreachable!("the last sweep returns")
}
