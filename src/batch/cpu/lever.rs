//! The lever rows of a planar rigid body's point (`PlanarContactR`), lane-wise: each row's
//! operators [k, a, b] add a cos q_k + b sin q_k to y, (b cos q_k − a sin q_k) v_k to ẏ and
//! b cos q_k − a sin q_k to G's column k (the kernel's lever branches of
//! `outputs_and_activation` and `newton_jacobian`). sin and cos are the kernel's own
//! (`sine_cosine`), and each sum is written term by term (y + a cos, then + b sin), as the
//! kernel writes it, so that f64 lanes and the f64 kernel agree bit for bit.

use num_traits::Float;

use crate::contact::lanes::{LANES, Lanes, Mask};

type L<T> = Lanes<T, LANES>;

/// π/2 split into a 33-bit head (k·head is exact for |k| < 2²⁰) and a tail: the reduction's
/// constants, which the kernel's prelude prints from here.
pub(crate) const PIO2_HI: f64 = 1.570_796_326_734_125_6;
pub(crate) const PIO2_LO: f64 = 6.077_100_506_506_192e-11;
const TWO_OVER_PI: f64 = std::f64::consts::FRAC_2_PI;

/// (sin x, cos x) as the kernel's f64 `sine_cosine` computes them (`batch::gpu::shaders`; the
/// f32 kernel calls WGSL's `sin` and `cos`): Cody–Waite reduction by π/2 (k = x·2/π rounded
/// half to even, r = (x − k·hi) − k·lo) and the Taylor polynomials of cos (to r¹⁶) and sin
/// (to r¹⁷) on |r| ≤ π/4 in Horner form, picked by k mod 4 (so sin 0 = 0 exactly).
pub(crate) fn sine_cosine<T: Float>(x: T) -> (T, T) {
    let c = |v: f64| T::from(v).unwrap_or_else(T::nan);
    let scaled = x * c(TWO_OVER_PI);
    let mut k = scaled.round();
    if (scaled - scaled.trunc()).abs() == c(0.5) && (k / c(2.0)).fract() != T::zero() {
        // WGSL's round takes ties to even.
        k = k - scaled.signum();
    }
    // π/2 = hi + lo in T (in f64 exactly the kernel's constants).
    let hi = c(PIO2_HI);
    let lo = c(PIO2_HI - hi.to_f64().unwrap_or(0.0) + PIO2_LO);
    let r = (x - k * hi) - k * lo;
    let z = r * r;
    let cos = c(1.0)
        + z * (c(-1.0 / 2.0)
            + z * (c(1.0 / 24.0)
                + z * (c(-1.0 / 720.0)
                    + z * (c(1.0 / 40320.0)
                        + z * (c(-1.0 / 3628800.0)
                            + z * (c(1.0 / 479001600.0)
                                + z * (c(-1.0 / 87178291200.0) + z * c(1.0 / 20922789888000.0))))))));
    let sin = r
        * (c(1.0)
            + z * (c(-1.0 / 6.0)
                + z * (c(1.0 / 120.0)
                    + z * (c(-1.0 / 5040.0)
                        + z * (c(1.0 / 362880.0)
                            + z * (c(-1.0 / 39916800.0)
                                + z * (c(1.0 / 6227020800.0)
                                    + z * (c(-1.0 / 1307674368000.0) + z * c(1.0 / 355687428096000.0)))))))));
    match k.to_i64().unwrap_or(0) & 3 {
        0 => (sin, cos),
        1 => (cos, -sin),
        2 => (-sin, -cos),
        _ => (-cos, sin),
    }
}

/// A row's lever operators in lane `l`: (k, a, b), or `None` where a = b = 0.
#[inline(always)]
fn lever_at<T: Float>(lever: &[L<T>], l: usize) -> Option<(usize, T, T)> {
    let (a, b) = (lever[1].0[l], lever[2].0[l]);
    (a != T::zero() || b != T::zero()).then(|| (lever[0].0[l].to_usize().unwrap_or(0), a, b))
}

/// y += a cos q_k + b sin q_k, ẏ += (b cos q_k − a sin q_k) v_k on a row with lever
/// operators `lever`.
#[inline(always)]
pub(super) fn add_lever<T: Float>(lever: &[L<T>], q: &[L<T>], v: &[L<T>], y: &mut L<T>, ydot: &mut L<T>) {
    for l in 0..LANES {
        if let Some((k, a, b)) = lever_at(lever, l) {
            let (sin, cos) = sine_cosine(q[k].0[l]);
            y.0[l] = y.0[l] + a * cos;
            y.0[l] = y.0[l] + b * sin;
            ydot.0[l] = ydot.0[l] + (b * cos - a * sin) * v[k].0[l];
        }
    }
}

/// G_rk += b cos q^i_k − a sin q^i_k on a row with lever operators `lever` (`g_row` its row of
/// G), in the lanes not `settled` (the kernel's lever branch of `newton_jacobian`).
#[inline(always)]
pub(super) fn add_lever_slope<T: Float>(lever: &[L<T>], qi: &[L<T>], g_row: &mut [L<T>], settled: Mask<LANES>) {
    for l in (0..LANES).filter(|&l| !settled[l]) {
        if let Some((k, a, b)) = lever_at(lever, l) {
            let (sin, cos) = sine_cosine(qi[k].0[l]);
            g_row[k].0[l] = g_row[k].0[l] + b * cos;
            g_row[k].0[l] = g_row[k].0[l] - a * sin;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's sin and cos are within a few ulps of libm's over many periods in f64 (two
    /// turns in f32), and exact at 0.
    #[test]
    fn sine_cosine_matches_libm() {
        for i in -4000..4000 {
            let x = f64::from(i) * 0.01237;
            let ((sin, cos), (exact_sin, exact_cos)) = (sine_cosine(x), x.sin_cos());
            assert!(
                (sin - exact_sin).abs() <= 4.0 * f64::EPSILON,
                "sin {x}: {sin} vs {exact_sin}"
            );
            assert!(
                (cos - exact_cos).abs() <= 4.0 * f64::EPSILON,
                "cos {x}: {cos} vs {exact_cos}"
            );
            // In f32, k·hi is exact for the angles of a body that turns at most twice.
            if x.abs() > 4.0 * std::f64::consts::PI {
                continue;
            }
            let x = x as f32;
            let ((sin, cos), (exact_sin, exact_cos)) = (sine_cosine(x), x.sin_cos());
            assert!(
                (sin - exact_sin).abs() <= 8.0 * f32::EPSILON,
                "sin {x}: {sin} vs {exact_sin}"
            );
            assert!(
                (cos - exact_cos).abs() <= 8.0 * f32::EPSILON,
                "cos {x}: {cos} vs {exact_cos}"
            );
        }
        assert_eq!(sine_cosine(0.0_f64), (0.0, 1.0));
    }
}
