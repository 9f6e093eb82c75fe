//! The sphere–sphere rows of the CPU twin, lane-wise (the kernel's sphere helpers in
//! `moreau_jean_rows.wgsl`). A row's 6 operators are [kind, i₀, i₁, c₀, c₁, c₂], i the scene
//! coordinate of a body's first entry:
//! ```text
//!   kind d > 0   the gap ‖x₁ − x₀‖ in d dimensions (i₀ = −1: the fixed centre c), direction n
//!   kind −2      a disc pair's tangent t = (−n_y, n_x) (DiskDiskR; its −R θ̇ terms are in H)
//!   kind −3, −4  a sphere pair's tangent t₁, t₂ of the frame ortho_base(n) (SphereLDSSphereLDSR),
//!                with −R₀ (n × t)·ω₀ − R₁ (n × t)·ω₁, R₀ = c₀, R₁ = c₁, ω at i + 3
//! ```
//! The direction u enters ẏ as u·(v₁ − v₀) and G as ±u on the centres, re-evaluated at each
//! Newton iterate.

use num_traits::Float;

use crate::contact::lanes::{LANES, Lanes, Mask};
use crate::contact::vector::{cross, dot, ortho_tangent, unit};

type L<T> = Lanes<T, LANES>;

/// The dimension of a row's separation: d for a gap, 2 for a disc tangent, 3 for a sphere
/// tangent (0: not a sphere row).
#[inline(always)]
fn pair_dim<T: Float>(kind: T) -> usize {
    let k = kind.to_i32().unwrap_or(0);
    match k {
        1..=3 => k as usize,
        -2 => 2,
        -4..=-3 => 3,
        _ => 0,
    }
}

/// The separation x₁ − x₀ of a sphere row in lane `l` of coordinates x, and its dimension.
#[inline(always)]
fn separation<T: Float>(sphere: &[L<T>], x: &[L<T>], l: usize) -> ([T; 3], usize) {
    let dim = pair_dim(sphere[0].0[l]);
    let (i0, i1) = (sphere[1].0[l], sphere[2].0[l].to_usize().unwrap_or(0));
    let mut d = [T::zero(); 3];
    for (k, dk) in d.iter_mut().enumerate().take(dim) {
        let x0 = if i0 >= T::zero() {
            x[i0.to_usize().unwrap_or(0) + k].0[l]
        } else {
            sphere[3 + k].0[l]
        };
        *dk = x[i1 + k].0[l] - x0;
    }
    (d, dim)
}

/// A sphere row's direction u in lane l of separation d (module docs), and for a sphere
/// tangent m = n × u (else zero). Kernel: `pair_direction`, `pair_lever`.
#[inline(always)]
fn direction<T: Float>(sphere: &[L<T>], d: [T; 3], l: usize) -> ([T; 3], [T; 3]) {
    let n = unit(d);
    let zero = [T::zero(); 3];
    match sphere[0].0[l].to_i32().unwrap_or(0) {
        -2 => ([-n[1], n[0], T::zero()], zero),
        kind @ -4..=-3 => {
            if n == zero {
                return (zero, zero);
            }
            let t = ortho_tangent(n, (-3 - kind) as usize);
            (t, cross(n, t))
        }
        _ => (n, zero),
    }
}

/// On a sphere row (its 6 operators `sphere`), from q and v: y += ‖x₁ − x₀‖ on a gap row,
/// ẏ += u·(v₁ − v₀), and on a sphere tangent ẏ −= R₀ m·ω₀ + R₁ m·ω₁ term by term (the
/// kernel's sphere branch of `outputs_and_activation`, with `add_normal_rate`).
#[inline(always)]
pub(super) fn add_sphere_gap<T: Float>(sphere: &[L<T>], q: &[L<T>], v: &[L<T>], y: &mut L<T>, ydot: &mut L<T>) {
    for l in 0..LANES {
        let (d, dim) = separation(sphere, q, l);
        if dim == 0 {
            continue;
        }
        let (i0, i1) = (sphere[1].0[l], sphere[2].0[l].to_usize().unwrap_or(0));
        if sphere[0].0[l] > T::zero() {
            y.0[l] = y.0[l] + dot(d, d).sqrt();
        }
        let (u, m) = direction(sphere, d, l);
        for (k, uk) in u.iter().enumerate().take(dim) {
            let v0 = if i0 >= T::zero() {
                v[i0.to_usize().unwrap_or(0) + k].0[l]
            } else {
                T::zero()
            };
            ydot.0[l] = ydot.0[l] + *uk * (v[i1 + k].0[l] - v0);
        }
        if sphere[0].0[l] < -T::from(2.5).unwrap_or_else(T::one) {
            let (r0, r1, j0) = (sphere[3].0[l], sphere[4].0[l], i0.to_usize().unwrap_or(0));
            for (k, mk) in m.iter().enumerate() {
                ydot.0[l] = ydot.0[l] - r0 * *mk * v[j0 + 3 + k].0[l];
                ydot.0[l] = ydot.0[l] - r1 * *mk * v[i1 + 3 + k].0[l];
            }
        }
    }
}

/// Adds a sphere row's Jacobian at q^i to that row of G (`g_row`): ±u on the centres, and on a
/// sphere tangent −R₀ m, −R₁ m on the angular rates; in the lanes not `settled`. Kernel:
/// `add_normal`.
#[inline(always)]
pub(super) fn add_normal<T: Float>(sphere: &[L<T>], qi: &[L<T>], g_row: &mut [L<T>], settled: Mask<LANES>) {
    for l in (0..LANES).filter(|&l| !settled[l]) {
        let (d, dim) = separation(sphere, qi, l);
        let (i0, i1) = (sphere[1].0[l], sphere[2].0[l].to_usize().unwrap_or(0));
        let (u, m) = direction(sphere, d, l);
        for (k, uk) in u.iter().enumerate().take(dim) {
            let g = &mut g_row[i1 + k].0[l];
            *g = *g + *uk;
            if i0 >= T::zero() {
                let g = &mut g_row[i0.to_usize().unwrap_or(0) + k].0[l];
                *g = *g - *uk;
            }
        }
        if dim > 0 && sphere[0].0[l] < -T::from(2.5).unwrap_or_else(T::one) {
            let (r0, r1, j0) = (sphere[3].0[l], sphere[4].0[l], i0.to_usize().unwrap_or(0));
            for (k, mk) in m.iter().enumerate() {
                g_row[j0 + 3 + k].0[l] = g_row[j0 + 3 + k].0[l] - r0 * *mk;
                g_row[i1 + 3 + k].0[l] = g_row[i1 + 3 + k].0[l] - r1 * *mk;
            }
        }
    }
}
