//! The exact local solves of one Coulomb contact that both engines share — the scene-parallel
//! stepper's friction blocks and the large scene's contact-parallel sweeps — with its cone
//! projection and natural map, lane-wise over `L` contacts (one, in the large scene). The
//! kernels' twins are in `shaders/contact_local.wgsl`.

use std::array::from_fn;

use num_traits::Float;

use super::lanes::{Lanes, and};

/// The projection of one contact's `d` components onto its Coulomb cone K = {‖r_T‖ ≤ μ r_N}
/// (Siconos's `projectionOnCone`: 0 in the polar cone, unchanged inside K, else
/// r_N ← (μ‖r_T‖ + r_N)/(μ² + 1), r_T ← μ r_N r_T/‖r_T‖), in every lane at once, the cases
/// picked by selects. Kernel: `project_on_cone`.
#[inline(always)]
pub fn project_on_cone<T: Float, const L: usize>(d: usize, r: [Lanes<T, L>; 3], mu: Lanes<T, L>) -> [Lanes<T, L>; 3] {
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
    let pick = |k: usize, projected: Lanes<T, L>| Lanes::select(polar, zero, Lanes::select(outside, projected, r[k]));
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
pub fn friction_error<T: Float, const L: usize>(
    d: usize,
    lambda: [Lanes<T, L>; 3],
    w: [Lanes<T, L>; 3],
    mu: Lanes<T, L>,
) -> Lanes<T, L> {
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

/// A 2-D friction contact's reactions given the others' (its block W = D_bb and local
/// velocity q̃, u = W λ + q̃), every case computed in every lane and picked by selects (the
/// same operations as the kernel's branches, so the same bits): the exact solution of
/// Siconos's dense NSGS (`fc2d_nsgs.c`) — separation if q̃_N ≥ 0; else sticking, W λ = −q̃ by
/// Cramer's rule, if in the cone; else sliding forward, λ_T = μ λ_N, if its u_T ≤ 0 (with W_NT
/// for W_TN, as Siconos's, equal for a symmetric W); else sliding backwards.
/// Kernel: `friction_2d`.
#[inline(always)]
pub fn friction_2d<T: Float, const L: usize>(
    w: [[Lanes<T, L>; 2]; 2],
    q: [Lanes<T, L>; 2],
    mu: Lanes<T, L>,
) -> [Lanes<T, L>; 2] {
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
    let pick = |sticking: Lanes<T, L>, ahead: Lanes<T, L>, behind: Lanes<T, L>| {
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
pub const SLIDE_ITERATIONS: usize = 3;

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
pub fn friction_3d<T: Float, const L: usize>(
    w: [[Lanes<T, L>; 3]; 3],
    q: [Lanes<T, L>; 3],
    lam: [Lanes<T, L>; 3],
    mu: Lanes<T, L>,
) -> [Lanes<T, L>; 3] {
    let zero = Lanes::zero();
    let velocity = |x: [Lanes<T, L>; 3]| -> [Lanes<T, L>; 3] {
        from_fn(|a| q[a] + w[a][0] * x[0] + w[a][1] * x[1] + w[a][2] * x[2])
    };
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
    let normal = |d: [Lanes<T, L>; 2]| zero - q[0] / (w[0][0] + mu * (w[0][1] * d[0] + w[0][2] * d[1]));
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
