//! Row helpers of the CPU twin, lane-wise: Siconos's MLCP error as squares, its tolerance
//! test and the friction contacts' blocks (the kernel's `moreau_jean_rows.wgsl`; the
//! sphere–sphere rows are in `sphere_rows.rs`).

use std::array::from_fn;

use num_traits::Float;

use super::lanes::{LANES, Lanes, Mask, and};
use crate::batch::RowKind;

type L2<T> = Lanes<T, LANES>;

/// Siconos's error ‖λ − max(0, λ − w)‖ / ‖q‖ over the active rows (w = q + D λ; w itself on
/// equality rows; a friction contact's block counts its natural map ‖λ − P_K(λ − ŵ)‖²,
/// [`friction_error`], on its normal row), as the squares (‖·‖², ‖q‖²): the sweeps compare
/// squares, without roots. `rows` are the rows' [`RowKind`] codes, `mu` their μ.
#[inline(always)]
pub(super) fn lcp_error<T: Float>(
    d: &[Lanes<T, LANES>],
    lcp_q: &[Lanes<T, LANES>],
    active: &[Mask<LANES>],
    (rows, mu): (&[u32], &[Lanes<T, LANES>]),
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
        let kind = row_kind(rows, r);
        let x2 = if is_normal(kind) {
            let d = kind as usize;
            let (mut lam, mut wb) = ([zero; 3], [zero; 3]);
            for a in 0..d {
                (lam[a], wb[a]) = (lambda[r + a], w(r + a));
            }
            friction_error(d, lam, wb, mu[r])
        } else if kind == TANGENT {
            zero
        } else {
            let wr = w(r);
            let x = if kind == EQUALITY {
                wr
            } else {
                lambda[r] - (lambda[r] - wr).max(zero)
            };
            x * x
        };
        err = Lanes::select(active[r], err + x2, err);
        norm = Lanes::select(active[r], norm + lcp_q[r] * lcp_q[r], norm);
    }
    (err, norm)
}

/// [`RowKind::Equality`]'s code, one of the codes the stages branch on.
pub(super) const EQUALITY: u32 = RowKind::Equality.code();
/// [`RowKind::Normal2d`]'s code (2, the contact's rows).
pub(super) const NORMAL_2D: u32 = RowKind::Normal2d.code();
/// [`RowKind::Normal3d`]'s code (3, the contact's rows).
pub(super) const NORMAL_3D: u32 = RowKind::Normal3d.code();
/// [`RowKind::Tangent`]'s code.
pub(super) const TANGENT: u32 = RowKind::Tangent.code();

/// Row r's [`RowKind`] code (the same in every lane of a group). Kernel: `row_kind`.
#[inline(always)]
pub(super) fn row_kind(rows: &[u32], r: usize) -> u32 {
    rows[r]
}

/// Whether a row of kind `kind` is a Coulomb contact's normal row (its code is then the
/// contact's rows d). Kernel: `is_normal`.
#[inline(always)]
pub(super) fn is_normal(kind: u32) -> bool {
    kind == NORMAL_2D || kind == NORMAL_3D
}

/// ‖λ_T‖ − μ λ_N of the friction contact of `d` rows from row r (|λ_T| in 2-D): ≤ 0 inside
/// its cone. Kernel: `cone_violation`.
#[inline(always)]
pub(super) fn cone_violation<T: Float>(mu: &[L2<T>], lambda: &[L2<T>], r: usize, d: usize) -> L2<T> {
    let tangent = if d == 3 {
        (lambda[r + 1] * lambda[r + 1] + lambda[r + 2] * lambda[r + 2]).sqrt()
    } else {
        lambda[r + 1].abs()
    };
    tangent - mu[r] * lambda[r]
}

/// The projection of one contact's `d` components onto its Coulomb cone K = {‖r_T‖ ≤ μ r_N}
/// (Siconos's `projectionOnCone`: 0 in the polar cone, unchanged inside K, else
/// r_N ← (μ‖r_T‖ + r_N)/(μ² + 1), r_T ← μ r_N r_T/‖r_T‖), in every lane at once, the cases
/// picked by selects. Kernel: `project_on_cone`.
#[inline(always)]
fn project_on_cone<T: Float>(d: usize, r: [L2<T>; 3], mu: L2<T>) -> [L2<T>; 3] {
    let zero = Lanes::zero();
    let mut nt2 = zero;
    for x in &r[1..d] {
        nt2 = nt2 + *x * *x;
    }
    let nt = nt2.sqrt();
    let polar = (mu * nt).le(-r[0]);
    let outside = nt.gt(mu * r[0]);
    let normal = (mu * nt + r[0]) / (mu * mu + Lanes::splat(T::one()));
    let scale = mu * normal / nt;
    let pick = |k: usize, projected: L2<T>| Lanes::select(polar, zero, Lanes::select(outside, projected, r[k]));
    let mut out = r;
    out[0] = pick(0, normal);
    for k in 1..d {
        out[k] = pick(k, r[k] * scale);
    }
    out
}

/// A friction contact's squared natural map ‖λ − P_K(λ − ŵ)‖², ŵ = w + (μ ‖w_T‖, 0, 0), for
/// its `d` rows, in every lane. Kernel: `friction_error`.
#[inline(always)]
fn friction_error<T: Float>(d: usize, lambda: [L2<T>; 3], w: [L2<T>; 3], mu: L2<T>) -> L2<T> {
    let zero = Lanes::zero();
    let mut wt2 = zero;
    for x in &w[1..d] {
        wt2 = wt2 + *x * *x;
    }
    let mut t = [zero; 3];
    t[0] = lambda[0] - (w[0] + mu * wt2.sqrt());
    for k in 1..d {
        t[k] = lambda[k] - w[k];
    }
    let t = project_on_cone(d, t, mu);
    let mut e = zero;
    for k in 0..d {
        e = e + (lambda[k] - t[k]) * (lambda[k] - t[k]);
    }
    e
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

/// A unilateral (normal) row's PGS update: λ ← max(0, λ − w/D_rr), w its row of the MLCP at
/// the current λ. Kernel: `normal_row`.
#[inline(always)]
pub(super) fn normal_row<T: Float>(lambda: L2<T>, w: L2<T>, diagonal: L2<T>) -> L2<T> {
    equality_row(lambda, w, diagonal).max(Lanes::zero())
}

/// An equality row's Gauss–Seidel update: λ ← λ − w/D_rr (unprojected). Kernel:
/// `equality_row`.
#[inline(always)]
pub(super) fn equality_row<T: Float>(lambda: L2<T>, w: L2<T>, diagonal: L2<T>) -> L2<T> {
    lambda - w / diagonal
}

/// The sweep's step on the friction contact of `rows` rows from row `r`, in the lanes of
/// `update`: w of its rows at the current λ, its local q̃ = w − D_bb λ_b (u = D_bb λ_b + q̃),
/// and its new reactions by [`friction_2d`] or [`friction_3d`]. Kernel: `friction_block` (and
/// the friction part of `solve_local`).
#[inline(always)]
pub(super) fn friction_block<T: Float>(
    dd: &[Lanes<T, LANES>],
    lcp_q: &[Lanes<T, LANES>],
    mu: &[Lanes<T, LANES>],
    lambda: &mut [Lanes<T, LANES>],
    r: usize,
    rows: usize,
    update: Mask<LANES>,
) {
    let m = lcp_q.len();
    let at = |a: usize, b: usize| dd[(r + a) * m + r + b];
    let mut lam = [Lanes::zero(); 3];
    lam[..rows].copy_from_slice(&lambda[r..r + rows]);
    let mut local = [Lanes::zero(); 3];
    for (a, la) in local.iter_mut().enumerate().take(rows) {
        *la = lcp_q[r + a];
        for k in 0..m {
            *la = *la + dd[(r + a) * m + k] * lambda[k];
        }
        for (b, lb) in lam.iter().enumerate().take(rows) {
            *la = *la - at(a, b) * *lb;
        }
    }
    let mu = mu[r];
    let x = if rows == 2 {
        let [n, t] = friction_2d([[at(0, 0), at(0, 1)], [at(1, 0), at(1, 1)]], [local[0], local[1]], mu);
        [n, t, Lanes::zero()]
    } else {
        friction_3d(from_fn(|a| from_fn(|b| at(a, b))), local, lam, mu)
    };
    for a in 0..rows {
        lambda[r + a] = Lanes::select(update, x[a], lam[a]);
    }
}

/// A 2-D friction contact's reactions given the others' (its block W = D_bb and local
/// velocity q̃, u = W λ + q̃), every case computed in every lane and picked by selects (the
/// same operations as the kernel's branches, so the same bits): the exact solution of
/// Siconos's dense NSGS (`fc2d_nsgs.c`) — separation if q̃_N ≥ 0; else sticking, W λ = −q̃ by
/// Cramer's rule, if in the cone; else sliding forward, λ_T = μ λ_N, if its u_T ≤ 0 (with W_NT
/// for W_TN, as Siconos's, equal for a symmetric W); else sliding backwards.
/// Kernel: `friction_2d`.
#[inline(always)]
pub(super) fn friction_2d<T: Float>(w: [[L2<T>; 2]; 2], q: [L2<T>; 2], mu: L2<T>) -> [L2<T>; 2] {
    let zero = Lanes::zero();
    let ([a, b], [c, d]) = (w[0], w[1]);
    let (z0, z1) = (zero - q[0], zero - q[1]);
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
    [pick(s0, forward, backward), pick(s1, mu * forward, -(mu * backward))]
}

/// Sliding directions tried from the sticking solution's (the fixed point's iterates): the
/// first is exact for an isotropic block (W_NT = 0, W_TT = c I: a sphere on a plane or on a
/// sphere), the others refine it for an anisotropic one. Kernel: `SLIDE_ITERATIONS`.
pub(crate) const SLIDE_ITERATIONS: usize = 3;

/// A 3-D friction contact's reactions λ given the others' (its block W = D_bb and local
/// velocity q̃, so that u = W λ + q̃), every case computed in every lane and picked by selects:
/// separation λ = 0 if q̃_N ≥ 0; else sticking, W λ = −q̃ (the normal row eliminated first),
/// if W_NN > 0, the tangents' Schur complement has det > 0 and ‖λ_T‖ ≤ μ λ_N; else the sliding
/// solution u_N = 0, λ_T = μ λ_N d, d = −u_T/‖u_T‖, found by [`SLIDE_ITERATIONS`] fixed-point
/// steps on d from the sticking solution's direction (exact for isotropic blocks), if its
/// λ_N ≥ 0 and its local natural map ‖λ − P_K(λ − ŵ)‖ is at most both the current λ's and
/// that of one projected step λ ← P_K(λ − ρ ŵ) from the current λ, ŵ = u + (μ‖u_T‖, 0, 0),
/// ρ = 2/(min_k W_kk + max_k W_kk) (De Saxcé's map, whose fixed point is the solution only for
/// a scalar ρ; 1/W_NN alone diverges where W_TT > 2 W_NN, as for a rolling sphere); else that
/// projected step. Where the sliding iterates are not exact (anisotropic blocks), the sweeps
/// then leave them for the projected steps once those do better, instead of returning to
/// them. Kernel: `friction_3d`.
#[inline(always)]
pub(super) fn friction_3d<T: Float>(w: [[L2<T>; 3]; 3], q: [L2<T>; 3], lam: [L2<T>; 3], mu: L2<T>) -> [L2<T>; 3] {
    let zero = Lanes::zero();
    let velocity =
        |x: [L2<T>; 3]| -> [L2<T>; 3] { from_fn(|a| q[a] + w[a][0] * x[0] + w[a][1] * x[1] + w[a][2] * x[2]) };
    // Sticking: W s = −q̃ with W_NN as the first pivot — the tangents' Schur complement
    // S = W_TT − W_TN W_NT / W_NN by Cramer's rule, then s_N = (−q̃_N − W_NT s_T)/W_NN — so that a
    // contact whose normal is decoupled (W_NT = 0) gets s_N = −q̃_N/W_NN exactly, as the
    // reference's solvers do (a resting ball's λ_N = m g h, not a rounding above it).
    let schur = |a: usize, b: usize| w[a][b] - w[a][0] * w[0][b] / w[0][0];
    let (s11, s12, s21, s22) = (schur(1, 1), schur(1, 2), schur(2, 1), schur(2, 2));
    let (r1, r2) = (w[1][0] * q[0] / w[0][0] - q[1], w[2][0] * q[0] / w[0][0] - q[2]);
    let det = s11 * s22 - s12 * s21;
    let (t1, t2) = ((r1 * s22 - s12 * r2) / det, (s11 * r2 - s21 * r1) / det);
    let s = [(zero - q[0] - w[0][1] * t1 - w[0][2] * t2) / w[0][0], t1, t2];
    let st = (s[1] * s[1] + s[2] * s[2]).sqrt();
    let stick = and(
        and(and(w[0][0].gt(zero), det.gt(zero)), zero.le(s[0])),
        st.le(mu * s[0]),
    );
    // Sliding: d ← −u_T/‖u_T‖ with λ_N from u_N = 0, from the sticking direction.
    let normal = |d: [L2<T>; 2]| zero - q[0] / (w[0][0] + mu * (w[0][1] * d[0] + w[0][2] * d[1]));
    let mut d = [s[1] / st, s[2] / st];
    for _ in 0..SLIDE_ITERATIONS {
        let n = normal(d);
        let u1 = q[1] + w[1][0] * n + mu * n * (w[1][1] * d[0] + w[1][2] * d[1]);
        let u2 = q[2] + w[2][0] * n + mu * n * (w[2][1] * d[0] + w[2][2] * d[1]);
        let ut = (u1 * u1 + u2 * u2).sqrt();
        d = [zero - u1 / ut, zero - u2 / ut];
    }
    let n = normal(d);
    let slide = [n, mu * n * d[0], mu * n * d[1]];
    // One projected step from the current λ.
    let u = velocity(lam);
    let ut = (u[1] * u[1] + u[2] * u[2]).sqrt();
    let rho =
        Lanes::splat(T::one() + T::one()) / (w[0][0].min(w[1][1]).min(w[2][2]) + w[0][0].max(w[1][1]).max(w[2][2]));
    let step = project_on_cone(
        3,
        [
            lam[0] - rho * (u[0] + mu * ut),
            lam[1] - rho * u[1],
            lam[2] - rho * u[2],
        ],
        mu,
    );
    let slide_error = friction_error(3, slide, velocity(slide), mu);
    let better = and(
        slide_error.le(friction_error(3, step, velocity(step), mu)),
        slide_error.le(friction_error(3, lam, velocity(lam), mu)),
    );
    let slides = and(zero.le(slide[0]), better);
    let separate = zero.le(q[0]);
    from_fn(|a| {
        Lanes::select(
            separate,
            zero,
            Lanes::select(stick, s[a], Lanes::select(slides, slide[a], step[a])),
        )
    })
}
