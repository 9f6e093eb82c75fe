//! Row helpers of the CPU twin, lane-wise: Siconos's MLCP error as squares, its tolerance
//! test, and the sphere–sphere rows (the kernel's `moreau_jean_rows.wgsl`).

use num_traits::Float;

use super::lanes::{LANES, Lanes, Mask};

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
/// the `equality` rows when EQUALITY), as the squares (‖·‖², ‖q‖²): the sweeps compare squares,
/// without roots.
#[inline(always)]
pub(super) fn lcp_error<T: Float, const EQUALITY: bool>(
    d: &[Lanes<T, LANES>],
    lcp_q: &[Lanes<T, LANES>],
    active: &[Mask<LANES>],
    equality: &[Mask<LANES>],
    lambda: &[Lanes<T, LANES>],
) -> (Lanes<T, LANES>, Lanes<T, LANES>) {
    let m = lcp_q.len();
    let zero = Lanes::zero();
    let (mut err, mut norm) = (zero, zero);
    for r in 0..m {
        let mut w = lcp_q[r];
        for k in 0..m {
            w = w + d[r * m + k] * lambda[k];
        }
        let projected = lambda[r] - (lambda[r] - w).max(zero);
        let x = if EQUALITY {
            Lanes::select(equality[r], w, projected)
        } else {
            projected
        };
        err = Lanes::select(active[r], err + x * x, err);
        norm = Lanes::select(active[r], norm + lcp_q[r] * lcp_q[r], norm);
    }
    (err, norm)
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
