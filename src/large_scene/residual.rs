//! When a step's sweeps stop: Siconos's errors of the impulses — the light error after each
//! sweep, the natural-map error when it is within the tolerance — summed over the contacts in
//! one fixed order ([`blocked_sum`]) that the device's block sums reproduce bit for bit.

use rayon::prelude::*;

use super::bodies::Dimension;
use super::narrow_phase::{Contact, Moving, relative_velocity};
use crate::contact::lanes::Lanes;
use crate::contact::local::friction_error;

/// ‖x‖², summed in order.
#[inline(always)]
pub fn square(x: [f64; 3]) -> f64 {
    x[0] * x[0] + x[1] * x[1] + x[2] * x[2]
}

/// The contacts of one partial sum of [`blocked_sum`] (the kernel's `BLOCK`).
pub const BLOCK: usize = 256;

/// Σ_k term(k) for k < n, each of the K components summed the same way: the blocks of
/// [`BLOCK`] consecutive terms summed in order from 0 (in parallel), then the blocks' sums in
/// order — one fixed tree, which the kernel's `block_sums` and the host's sum of its partials
/// reproduce bit for bit.
pub fn blocked_sum<const K: usize>(n: usize, term: impl Fn(usize) -> [f64; K] + Sync) -> [f64; K] {
    let partials: Vec<[f64; K]> = (0..n.div_ceil(BLOCK))
        .into_par_iter()
        .map(|block| {
            let mut sum = [0.0; K];
            for k in block * BLOCK..n.min(block * BLOCK + BLOCK) {
                let t = term(k);
                for a in 0..K {
                    sum[a] += t[a];
                }
            }
            sum
        })
        .collect();
    sum_in_order(&partials)
}

/// The component-wise sum of `partials`, in order from 0.
pub fn sum_in_order<const K: usize>(partials: &[[f64; K]]) -> [f64; K] {
    let mut sum = [0.0; K];
    for p in partials {
        for a in 0..K {
            sum[a] += p[a];
        }
    }
    sum
}

/// One active contact's terms of [`error`] (its bodies `i` and `j`, `None` for a wall):
/// ‖r − P_K(r − û)‖², ‖q‖², ‖r‖², ‖u‖² and the squared velocities of its bodies,
/// Σ_{b∈c} ‖v_b‖² + ‖R_b ω_b‖².
#[inline(always)]
pub fn error_terms(dimension: Dimension, c: &Contact, i: &Moving, j: Option<&Moving>) -> [f64; ERROR_TERMS] {
    let u = relative_velocity(c, i, j);
    let u = [u[0] + c.target[0], u[1] + c.target[1], u[2] + c.target[2]];
    let one = |x: f64| Lanes::<f64, 1>([x]);
    let natural = friction_error(dimension.rows(), c.r.map(one), u.map(one), one(c.law.mu())).0[0];
    let size = |b: &Moving| {
        let spin = b.omega.map(|w| b.radius * w);
        square(b.v) + square(spin)
    };
    let velocities = size(i) + j.map_or(0.0, size);
    [natural, square(c.q), square(c.r), square(u), velocities]
}

/// The terms of [`error`] per contact.
pub const ERROR_TERMS: usize = 5;

/// Siconos's relative error of the current impulses (`fc3d_compute_error`):
/// √(Σ_c ‖r_c − P_K(r_c − û_c)‖²) / max(‖q‖, ‖r‖, ‖u‖) over the active contacts, with
/// u = H v + ê and û = u + (μ‖u_T‖, 0, 0) ([`error_terms`], summed by [`blocked_sum`]). Also
/// whether the natural map is within rounding of the velocities u is a difference of,
/// √(Σ ‖r − P_K(r − û)‖²) ≤ 64 ε V with V² = Σ_c Σ_{b∈c} ‖v_b‖² + ‖R_b ω_b‖²: where q, r and u
/// are themselves rounding (two balls of a cradle moving together, touching), no sweep can
/// lower the relative error, and the solve counts as converged.
pub fn error(bodies: &[Moving], dimension: Dimension, contacts: &[Contact]) -> (f64, bool) {
    let sums = blocked_sum(contacts.len(), |k| {
        let c = &contacts[k];
        if c.active {
            let (i, j) = (c.pair.i as usize, c.pair.j as usize);
            error_terms(dimension, c, &bodies[i], bodies.get(j))
        } else {
            [0.0; ERROR_TERMS]
        }
    });
    relative_error(sums)
}

/// [`error`] from the summed terms [natural, ‖q‖², ‖r‖², ‖u‖², V²].
pub fn relative_error(sum: [f64; ERROR_TERMS]) -> (f64, bool) {
    let natural = sum[0].sqrt();
    let rounding = natural <= 64.0 * f64::EPSILON * sum[4].sqrt();
    let scale = sum[1].max(sum[2]).max(sum[3]).sqrt();
    (if scale > f64::EPSILON { natural / scale } else { natural }, rounding)
}

/// Siconos's light error √(Σ‖Δr‖²)/‖r‖ (√Σ‖Δr‖² when r ≈ 0) from the sums of
/// the sweep (`solve::sweep`).
pub fn light_error([change, norm]: [f64; 2]) -> f64 {
    if norm > f64::EPSILON {
        (change / norm).sqrt()
    } else {
        change.sqrt()
    }
}
