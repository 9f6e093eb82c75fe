//! Row helpers of the CPU twin, lane-wise: Siconos's MLCP error as squares, its tolerance
//! test, the sphere–sphere rows and the friction contacts' blocks (the kernel's
//! `moreau_jean_rows.wgsl`).

use num_traits::Float;

use super::lanes::{LANES, Lanes, Mask, and};

type L2<T> = Lanes<T, LANES>;

/// The separation x₁ − x₀ of a sphere–sphere row (its 6 operators: dim, i₀ (−1: the fixed
/// centre c), i₁, c) in lane `l` of coordinates x, and its dimension (0: not such a row).
#[inline(always)]
fn separation<T: Float>(sphere: &[Lanes<T, LANES>], x: &[Lanes<T, LANES>], l: usize) -> ([T; 3], usize) {
    let dim = sphere[0].0[l].to_usize().unwrap_or(0);
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

#[inline(always)]
fn dot<T: Float>(a: [T; 3], b: [T; 3]) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// d / ‖d‖ (zero when d is).
#[inline(always)]
fn unit<T: Float>(d: [T; 3]) -> [T; 3] {
    let norm = dot(d, d).sqrt();
    if norm > T::zero() {
        d.map(|x| x / norm)
    } else {
        [T::zero(); 3]
    }
}

/// y += ‖x₁ − x₀‖, ẏ += n·(v₁ − v₀) on a sphere–sphere row (its 6 operators `sphere`), from
/// q and v (the kernel's sphere branch of `outputs_and_activation`, with `add_normal_rate`).
#[inline(always)]
pub(super) fn add_sphere_gap<T: Float>(
    sphere: &[Lanes<T, LANES>],
    q: &[Lanes<T, LANES>],
    v: &[Lanes<T, LANES>],
    y: &mut Lanes<T, LANES>,
    ydot: &mut Lanes<T, LANES>,
) {
    for l in 0..LANES {
        let (d, dim) = separation(sphere, q, l);
        if dim > 0 {
            let (i0, i1) = (sphere[1].0[l], sphere[2].0[l].to_usize().unwrap_or(0));
            y.0[l] = y.0[l] + dot(d, d).sqrt();
            for (k, nk) in unit(d).iter().enumerate().take(dim) {
                let v0 = if i0 >= T::zero() {
                    v[i0.to_usize().unwrap_or(0) + k].0[l]
                } else {
                    T::zero()
                };
                ydot.0[l] = ydot.0[l] + *nk * (v[i1 + k].0[l] - v0);
            }
        }
    }
}

/// Adds the normal of a sphere–sphere row (its 6 operators `sphere`) at q^i to that row of
/// G (`g_row`), in the lanes not `settled`. Kernel: `add_normal`.
#[inline(always)]
pub(super) fn add_normal<T: Float>(
    sphere: &[Lanes<T, LANES>],
    qi: &[Lanes<T, LANES>],
    g_row: &mut [Lanes<T, LANES>],
    settled: Mask<LANES>,
) {
    for l in (0..LANES).filter(|&l| !settled[l]) {
        let (d, dim) = separation(sphere, qi, l);
        let (i0, i1) = (sphere[1].0[l], sphere[2].0[l].to_usize().unwrap_or(0));
        for (k, nk) in unit(d).iter().enumerate().take(dim) {
            let g = &mut g_row[i1 + k].0[l];
            *g = *g + *nk;
            if i0 >= T::zero() {
                let g = &mut g_row[i0.to_usize().unwrap_or(0) + k].0[l];
                *g = *g - *nk;
            }
        }
    }
}

/// Siconos's error ‖λ − max(0, λ − w)‖ / ‖q‖ over the active rows (w = q + D λ; w itself on
/// the `equality` rows when EQUALITY; a friction contact's block counts its natural map
/// ‖λ − P_K(λ − ŵ)‖², [`friction_error`], on its normal row), as the squares (‖·‖², ‖q‖²): the
/// sweeps compare squares, without roots. `friction` is the rows' (kind, μ) operators, empty
/// without friction.
#[inline(always)]
pub(super) fn lcp_error<T: Float, const EQUALITY: bool>(
    d: &[Lanes<T, LANES>],
    lcp_q: &[Lanes<T, LANES>],
    active: &[Mask<LANES>],
    equality: &[Mask<LANES>],
    friction: &[Lanes<T, LANES>],
    lambda: &[Lanes<T, LANES>],
) -> (Lanes<T, LANES>, Lanes<T, LANES>) {
    let m = lcp_q.len();
    let zero = Lanes::zero();
    let (mut err, mut norm) = (zero, zero);
    // w_r = q_r + Σ_k D_rk λ_k (the kernel's `local_velocity`).
    let w = |r: usize| {
        let mut wr = lcp_q[r];
        for k in 0..m {
            wr = wr + d[r * m + k] * lambda[k];
        }
        wr
    };
    for r in 0..m {
        let kind = friction_kind(friction, r);
        let x2 = if kind == 2 {
            friction_error_2d([lambda[r], lambda[r + 1]], [w(r), w(r + 1)], friction[2 * r + 1])
        } else if kind > 0 {
            let rows = kind as usize;
            let mut wb = [zero; 3];
            for (a, wa) in wb.iter_mut().enumerate().take(rows) {
                *wa = w(r + a);
            }
            Lanes(std::array::from_fn(|l| {
                let (mut lam, mut wl) = ([T::zero(); 3], [T::zero(); 3]);
                for a in 0..rows {
                    (lam[a], wl[a]) = (lambda[r + a].0[l], wb[a].0[l]);
                }
                friction_error(rows, &lam, &wl, friction[2 * r + 1].0[l])
            }))
        } else if kind < 0 {
            zero
        } else {
            let wr = w(r);
            let projected = lambda[r] - (lambda[r] - wr).max(zero);
            let x = if EQUALITY {
                Lanes::select(equality[r], wr, projected)
            } else {
                projected
            };
            x * x
        };
        err = Lanes::select(active[r], err + x2, err);
        norm = Lanes::select(active[r], norm + lcp_q[r] * lcp_q[r], norm);
    }
    (err, norm)
}

/// Row r's friction kind (the same in every lane of a group): d = 2 or 3 on a contact's normal
/// row, −k on its k-th tangent row, 0 elsewhere (always 0 without `friction` operators).
#[inline(always)]
pub(super) fn friction_kind<T: Float>(friction: &[Lanes<T, LANES>], r: usize) -> i32 {
    friction.get(2 * r).map_or(0, |kind| kind.0[0].to_i32().unwrap_or(0))
}

/// The cone K = {‖r_T‖ ≤ μ r_N} projection of one contact's `d` components (Siconos's
/// `projectionOnCone`). Kernel: `project_on_cone`.
#[inline(always)]
fn project_on_cone<T: Float>(d: usize, r: &mut [T; 3], mu: T) {
    let mut nt2 = T::zero();
    for x in &r[1..d] {
        nt2 = nt2 + *x * *x;
    }
    let nt = nt2.sqrt();
    if mu * nt <= -r[0] {
        *r = [T::zero(); 3];
    } else if nt > mu * r[0] {
        r[0] = (mu * nt + r[0]) / (mu * mu + T::one());
        let scale = mu * r[0] / nt;
        for x in r.iter_mut().take(d).skip(1) {
            *x = *x * scale;
        }
    }
}

/// A friction contact's squared natural map ‖λ − P_K(λ − ŵ)‖², ŵ = w + (μ ‖w_T‖, 0, 0), for
/// its `d` rows. Kernel: `friction_error`.
#[inline(always)]
pub(super) fn friction_error<T: Float>(d: usize, lambda: &[T; 3], w: &[T; 3], mu: T) -> T {
    let mut wt2 = T::zero();
    for x in &w[1..d] {
        wt2 = wt2 + *x * *x;
    }
    let mut t = [T::zero(); 3];
    t[0] = lambda[0] - (w[0] + mu * wt2.sqrt());
    for k in 1..d {
        t[k] = lambda[k] - w[k];
    }
    project_on_cone(d, &mut t, mu);
    let mut e = T::zero();
    for k in 0..d {
        e = e + (lambda[k] - t[k]) * (lambda[k] - t[k]);
    }
    e
}

/// [`friction_error`] of a 2-D contact in every lane at once, with selects for the cone's
/// cases: the same operations, so the same bits.
#[inline(always)]
fn friction_error_2d<T: Float>(lambda: [L2<T>; 2], w: [L2<T>; 2], mu: L2<T>) -> L2<T> {
    let zero = Lanes::zero();
    let wt = (zero + w[1] * w[1]).sqrt();
    let (t0, t1) = (lambda[0] - (w[0] + mu * wt), lambda[1] - w[1]);
    // project_on_cone(2, t, μ).
    let nt = (zero + t1 * t1).sqrt();
    let polar = (mu * nt).le(-t0);
    let outside = nt.gt(mu * t0);
    let normal = (mu * nt + t0) / (mu * mu + Lanes::splat(T::one()));
    let (p0, p1) = (
        Lanes::select(polar, zero, Lanes::select(outside, normal, t0)),
        Lanes::select(polar, zero, Lanes::select(outside, t1 * (mu * normal / nt), t1)),
    );
    let (e0, e1) = (lambda[0] - p0, lambda[1] - p1);
    zero + e0 * e0 + e1 * e1
}

/// One friction contact's reactions given the others' (its block `wbb` of D, d × d row-major,
/// and its local q̃, so that w = wbb λ + q̃), in place: in 2-D the exact solution of Siconos's
/// dense NSGS (separation if q̃_N ≥ 0; else sticking, W λ = −q̃, if in the cone; else sliding
/// forward, λ_T = μ λ_N, if that slides backwards — its u_T with W_NT for W_TN, as Siconos's,
/// equal for a symmetric D —; else sliding backwards), by Cramer's rule;
/// in 3-D one projected step λ ← P_K(λ − diag(W)⁻¹ ŵ) (Siconos's ProjectionOnCone local solver
/// with a step per component, 1/W_kk: its 1/W_NN alone diverges where W_TT > 2 W_NN, as for a
/// rolling sphere).
/// Kernel: `friction_block`.
#[inline(always)]
pub(super) fn friction_block<T: Float>(d: usize, wbb: &[T; 9], local: &[T; 3], lambda: &mut [T; 3], mu: T) {
    if d == 2 {
        let (a, b, c, dd) = (wbb[0], wbb[1], wbb[2], wbb[3]);
        let z = [T::zero() - local[0], T::zero() - local[1]];
        if -z[0] >= T::zero() {
            *lambda = [T::zero(); 3];
            return;
        }
        let det = a * dd - c * b;
        let stick = [(z[0] * dd - b * z[1]) / det, (a * z[1] - c * z[0]) / det];
        if stick[0] >= T::zero() && stick[1].abs() <= mu * stick[0] {
            *lambda = [stick[0], stick[1], T::zero()];
            return;
        }
        let rn = z[0] / (a + mu * b);
        let ut = -z[1] + rn * (b + mu * dd);
        if rn >= T::zero() && ut <= T::zero() {
            *lambda = [rn, mu * rn, T::zero()];
            return;
        }
        let rn = z[0] / (a - mu * b);
        *lambda = [rn, -(mu * rn), T::zero()];
        return;
    }
    let mut u = [T::zero(); 3];
    for a in 0..3 {
        u[a] = local[a];
        for b in 0..3 {
            u[a] = u[a] + wbb[3 * a + b] * lambda[b];
        }
    }
    let ut = (u[1] * u[1] + u[2] * u[2]).sqrt();
    let mut x = [
        lambda[0] - (u[0] + mu * ut) / wbb[0],
        lambda[1] - u[1] / wbb[4],
        lambda[2] - u[2] / wbb[8],
    ];
    project_on_cone(3, &mut x, mu);
    *lambda = x;
}

/// Whether the error is within `tol`: ‖·‖² ≤ tol² ‖q‖² (relative) when ‖q‖ > ε, else
/// ‖·‖² ≤ tol²; false for NaN.
#[inline(always)]
pub(super) fn within<T: Float>((err, norm): (Lanes<T, LANES>, Lanes<T, LANES>), tol: T) -> Mask<LANES> {
    err.le(Lanes::splat(tol * tol) * scale(norm))
}

/// Siconos's error from its squares.
#[inline(always)]
pub(super) fn residual<T: Float>((err, norm): (Lanes<T, LANES>, Lanes<T, LANES>)) -> Lanes<T, LANES> {
    (err / scale(norm)).sqrt()
}

/// ‖q‖² where ‖q‖ > ε, else 1: what the error is relative to.
#[inline(always)]
fn scale<T: Float>(norm: Lanes<T, LANES>) -> Lanes<T, LANES> {
    let eps = Lanes::splat(T::epsilon() * T::epsilon());
    Lanes::select(norm.gt(eps), norm, Lanes::splat(T::one()))
}

/// The sweep's step on the friction contact of `rows` rows from row `r`, in the lanes of
/// `update`: w of its rows at the current λ, its local q̃ = w − D_bb λ_b, and
/// [`friction_block`]'s new reactions (the part of the kernel's `solve_local` that branches on
/// a friction row).
#[inline(always)]
pub(super) fn solve_friction_block<T: Float>(
    dd: &[Lanes<T, LANES>],
    lcp_q: &[Lanes<T, LANES>],
    friction: &[Lanes<T, LANES>],
    lambda: &mut [Lanes<T, LANES>],
    r: usize,
    rows: usize,
    update: Mask<LANES>,
) {
    let m = lcp_q.len();
    let mut w = [Lanes::zero(); 3];
    for (a, wa) in w.iter_mut().enumerate().take(rows) {
        *wa = lcp_q[r + a];
        for k in 0..m {
            *wa = *wa + dd[(r + a) * m + k] * lambda[k];
        }
    }
    if rows == 2 {
        // [`friction_block`]'s 2-D case analysis with every case in every lane, then selects:
        // the same operations, so the same bits, as the per-lane branches.
        let zero = Lanes::zero();
        let mu = friction[2 * r + 1];
        let (a, b) = (dd[r * m + r], dd[r * m + r + 1]);
        let (c, d) = (dd[(r + 1) * m + r], dd[(r + 1) * m + r + 1]);
        let (l0, l1) = (lambda[r], lambda[r + 1]);
        let (z0, z1) = (zero - (w[0] - a * l0 - b * l1), zero - (w[1] - c * l0 - d * l1));
        let separate = zero.le(-z0);
        let det = a * d - c * b;
        let (s0, s1) = ((z0 * d - b * z1) / det, (a * z1 - c * z0) / det);
        let stick = and(zero.le(s0), s1.abs().le(mu * s0));
        let forward = z0 / (a + mu * b);
        let slides_back = and(zero.le(forward), (-z1 + forward * (b + mu * d)).le(zero));
        let backward = z0 / (a - mu * b);
        let pick = |sticking: L2<T>, ahead: L2<T>, behind: L2<T>| {
            Lanes::select(
                separate,
                zero,
                Lanes::select(stick, sticking, Lanes::select(slides_back, ahead, behind)),
            )
        };
        lambda[r] = Lanes::select(update, pick(s0, forward, backward), l0);
        lambda[r + 1] = Lanes::select(update, pick(s1, mu * forward, -(mu * backward)), l1);
        return;
    }
    for l in (0..LANES).filter(|&l| update[l]) {
        let (mut wbb, mut local, mut lam) = ([T::zero(); 9], [T::zero(); 3], [T::zero(); 3]);
        for a in 0..rows {
            lam[a] = lambda[r + a].0[l];
        }
        for a in 0..rows {
            local[a] = w[a].0[l];
            for b in 0..rows {
                wbb[rows * a + b] = dd[(r + a) * m + r + b].0[l];
                local[a] = local[a] - wbb[rows * a + b] * lam[b];
            }
        }
        friction_block(rows, &wbb, &local, &mut lam, friction[2 * r + 1].0[l]);
        for a in 0..rows {
            lambda[r + a].0[l] = lam[a];
        }
    }
}
