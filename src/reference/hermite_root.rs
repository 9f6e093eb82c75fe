//! The first crossing of a gap inside a step: the first root of the cubic Hermite
//! interpolant of y from its values and rates at both ends (Hairer, Nørsett & Wanner,
//! *Solving Ordinary Differential Equations I*, §II.6, dense output).

use num_traits::Float;

/// The first s ∈ (0, 1] where the cubic Hermite interpolant p(s) of p(0) = `y0`,
/// p′(0) = `d0`, p(1) = `y1`, p′(1) = `d1` goes from open (p > 0) to closed (p ≤ 0), if it
/// does: from y0 > 0, its first root; from y0 ≤ 0 rising, the root after it rose.
///
/// p(s) = a s³ + b s² + d0 s + y0 with a = 2(y0 − y1) + d0 + d1, b = 3(y1 − y0) − 2 d0 − d1;
/// [0, 1] is cut at the roots of p′ into monotone pieces, and the first piece that starts open
/// and ends closed is narrowed by Newton's method (from the root of p's quadratic part, each
/// iterate narrowing the bracket), closed around the last iterate and bisected to rounding:
/// the bisection alone would take some 50 halvings, Newton and the probes bring it to a
/// handful. In f64 or f32 (the CPU lanes'), without allocating.
pub(crate) fn first_root<T: Float>(y0: T, d0: T, y1: T, d1: T) -> Option<T> {
    if !(y0.is_finite() && d0.is_finite() && y1.is_finite() && d1.is_finite()) {
        return None;
    }
    let (zero, one) = (T::zero(), T::one());
    let (two, three) = (one + one, one + one + one);
    let a = two * (y0 - y1) + d0 + d1;
    let b = three * (y1 - y0) - two * d0 - d1;
    let p = |s: T| if s >= one { y1 } else { ((a * s + b) * s + d0) * s + y0 };
    // p′(s) = 3a s² + 2b s + d0: its roots inside (0, 1), in order, then 1.
    let (roots, count) = quadratic_roots(three * a, two * b, d0);
    let mut cuts = [one; 3];
    let mut len = 0;
    for &s in &roots[..count] {
        if s > zero && s < one {
            cuts[len] = s;
            len += 1;
        }
    }
    if len == 2 && cuts[1] < cuts[0] {
        cuts.swap(0, 1);
    }
    let mut lo = zero;
    for &hi in &cuts[..=len] {
        if p(lo) > zero && p(hi) <= zero {
            let slope = |s: T| (three * a * s + two * b) * s + d0;
            return Some(monotone_root(p, slope, quadratic_start(b, d0, y0, lo, hi), lo, hi));
        }
        lo = hi;
    }
    None
}

/// Where the cubic Hermite interpolant p(s) of p(0) = `y0`, p′(0) = `d0`, p(1) = `y1`,
/// p′(1) = `d1` has its maximum inside (0, 1), when it rises at 0 and falls at 1
/// (d0 > 0 > d1): then p′(s) = 3a s² + 2b s + d0 (a, b as in [`first_root`]) has one root
/// there; that s and p(s). Exact for a parabola (a free flight under a constant force).
pub(crate) fn interior_maximum<T: Float>(y0: T, d0: T, y1: T, d1: T) -> Option<(T, T)> {
    let (zero, one) = (T::zero(), T::one());
    if !(d0 > zero && d1 < zero && y0.is_finite() && y1.is_finite()) {
        return None;
    }
    let (two, three) = (one + one, one + one + one);
    let a = two * (y0 - y1) + d0 + d1;
    let b = three * (y1 - y0) - two * d0 - d1;
    let (roots, count) = quadratic_roots(three * a, two * b, d0);
    roots[..count]
        .iter()
        .copied()
        .find(|&s| s > zero && s < one)
        .map(|s| (s, ((a * s + b) * s + d0) * s + y0))
}

/// Newton iterations taken before the bracket is closed around the last one.
pub(crate) const NEWTON_STEPS: usize = 8;

/// The smallest s in [`lo`, `hi`] (to rounding) where `p`, open at `lo` (p > 0) and closed
/// at `hi` (p ≤ 0), is closed: from `start` (else the secant point), Newton's iterates
/// s − p(s)/p′(s), each narrowing the bracket, an iterate not converged and not strictly
/// inside it replaced by its midpoint (safeguarded Newton: Press et al., *Numerical Recipes*,
/// 3rd ed., §9.4, `rtsafe`);
/// then the bracket closed to a few ulps around the last iterate where p changes sign there;
/// then bisection to adjacent floats, returning the closed end.
///
/// The start matters where the piece begins at a turning point — a flight that rises from
/// y0 = 0 after an impact and falls back within the step: from the secant point, next to
/// that maximum, Newton's first step leaves the bracket and the bisection took some 50
/// halvings; from the root of p's quadratic part (exact for such a flight) it converges at
/// once. A sign of p that changes once across the floats gives one answer from any bracket.
fn monotone_root<T: Float>(p: impl Fn(T) -> T, slope: impl Fn(T) -> T, start: Option<T>, lo: T, hi: T) -> T {
    let (zero, half, eps) = (T::zero(), T::from(0.5).unwrap_or_else(T::nan), T::epsilon());
    let (mut lo, mut hi) = (lo, hi);
    let mut x = start.unwrap_or_else(|| {
        let (open, closed) = (p(lo), p(hi));
        lo + open * (hi - lo) / (open - closed)
    });
    for _ in 0..NEWTON_STEPS {
        if !(x > lo && x < hi) {
            break;
        }
        let px = p(x);
        if px <= zero {
            hi = x;
        } else {
            lo = x;
        }
        let newton = x - px / slope(x);
        let converged = (newton - x).abs() <= eps * newton.abs();
        x = if converged || (newton > lo && newton < hi) {
            newton
        } else {
            half * (lo + hi)
        };
        if converged {
            break;
        }
    }
    let delta = T::from(8.0).unwrap_or_else(T::nan) * eps * x.abs();
    let (below, above) = (x - delta, x + delta);
    if below > lo && below < hi && p(below) > zero {
        lo = below;
    }
    if above > lo && above < hi && p(above) <= zero {
        hi = above;
    }
    loop {
        let mid = half * (lo + hi);
        if mid <= lo || mid >= hi {
            return hi;
        }
        if p(mid) <= zero {
            hi = mid;
        } else {
            lo = mid;
        }
    }
}

/// Newton's start for the piece [`lo`, `hi`] of p(s) = a s³ + b s² + d0 s + y0: the first
/// root inside it of b s² + d0 s + y0 — p without its cubic term, exact for a free flight
/// under a constant force (a = 0 but for rounding) — if it has one there.
fn quadratic_start<T: Float>(b: T, d0: T, y0: T, lo: T, hi: T) -> Option<T> {
    let (mut roots, count) = quadratic_roots(b, d0, y0);
    if count == 2 && roots[1] < roots[0] {
        roots.swap(0, 1);
    }
    roots[..count].iter().copied().find(|&s| s > lo && s < hi)
}

/// The real roots of a x² + b x + c (a linear or constant one when a = 0), and how many.
fn quadratic_roots<T: Float>(a: T, b: T, c: T) -> ([T; 2], usize) {
    let zero = T::zero();
    if a == zero {
        return if b == zero { ([zero; 2], 0) } else { ([-c / b, zero], 1) };
    }
    let four = T::from(4.0).unwrap_or_else(T::nan);
    let disc = b * b - four * a * c;
    if disc < zero {
        return ([zero; 2], 0);
    }
    // The stable pair: q = −(b + sign(b) √disc)/2, roots q/a and c/q.
    let q = -(b + b.signum() * disc.sqrt()) / (T::one() + T::one());
    if q == zero { ([zero; 2], 1) } else { ([q / a, c / q], 2) }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// `p`, each evaluation counted in `evaluations`.
    fn counted<'a>(p: impl Fn(f64) -> f64 + 'a, evaluations: &'a Cell<usize>) -> impl Fn(f64) -> f64 + 'a {
        move |s| {
            evaluations.set(evaluations.get() + 1);
            p(s)
        }
    }

    #[test]
    fn the_hermite_root_of_a_falling_body_is_its_landing_time() {
        // y(τ) = 1 − 2τ − 4.9τ² over τ ∈ [0, 1]: exact in the cubic, root at
        // (−2 + √(4 + 19.6))/9.8.
        let y = |t: f64| 1.0 - 2.0 * t - 4.9 * t * t;
        let yd = |t: f64| -2.0 - 9.8 * t;
        let s = first_root(y(0.0), yd(0.0), y(1.0), yd(1.0)).unwrap();
        let exact = (-2.0 + (4.0f64 + 19.6).sqrt()) / 9.8;
        assert!((s - exact).abs() <= 4.0 * f64::EPSILON, "{s} vs {exact}");
    }

    #[test]
    fn the_apex_of_a_flight_is_its_interpolant_maximum() {
        // y(s) = 1 + 2s − 4.9s²: its apex at s = 2/9.8, y = 1 + 2²/(4 · 4.9).
        let y = |s: f64| 1.0 + 2.0 * s - 4.9 * s * s;
        let yd = |s: f64| 2.0 - 9.8 * s;
        let (s, top) = interior_maximum(y(0.0), yd(0.0), y(1.0), yd(1.0)).unwrap();
        assert!((s - 2.0 / 9.8).abs() <= 2.0 * f64::EPSILON, "{s}");
        assert!((top - (1.0 + 4.0 / 19.6)).abs() <= 2.0 * f64::EPSILON, "{top}");
        // Rising throughout, or falling at the start: no maximum inside.
        assert_eq!(interior_maximum(0.0, 1.0, 1.0, 1.0), None);
        assert_eq!(interior_maximum(1.0, -1.0, 0.0, -1.0), None);
        assert_eq!(interior_maximum(f64::NAN, 1.0, 0.0, -1.0), None);
    }

    #[test]
    fn a_dip_inside_the_step_is_found_and_a_miss_is_not() {
        // y(s) = (s − ½)² − 0.01: closes at 0.4 and opens again at 0.6.
        let y = |s: f64| (s - 0.5) * (s - 0.5) - 0.01;
        let yd = |s: f64| 2.0 * (s - 0.5);
        let s = first_root(y(0.0), yd(0.0), y(1.0), yd(1.0)).unwrap();
        assert!((s - 0.4).abs() < 1e-15, "{s}");
        // (s − ½)² + 0.01 never closes; a closed start going down is no crossing.
        assert_eq!(first_root(0.26, -1.0, 0.26, 1.0), None);
        assert_eq!(first_root(0.0, -1.0, -1.0, -1.0), None);
        assert_eq!(first_root(-1e-300, -1.0, -1.0, -1.0), None);
    }

    #[test]
    fn a_short_hop_from_the_floor_lands_where_bisection_finds_it() {
        // The hops of an accumulation: from y = 0 going up at τ d0 and back down within the
        // step (a parabola, a ≈ 0 but for rounding), the piece [apex, 1] starting at the
        // maximum. Its root is the smallest float where p ≤ 0, as plain bisection over the
        // whole piece finds it, and −d0/b to rounding; Newton starts there (the quadratic
        // part's root), so a handful of evaluations of p find it.
        let g = 9.81 * 1e-3 * 1e-3;
        for k in 0..40 {
            let d0 = 2e-6 * 0.7f64.powi(k);
            let (y1, d1) = (d0 - 0.5 * g, d0 - g);
            let a = 2.0 * (0.0 - y1) + d0 + d1;
            let b = 3.0 * (y1 - 0.0) - 2.0 * d0 - d1;
            let p = |s: f64| if s >= 1.0 { y1 } else { ((a * s + b) * s + d0) * s };
            let (apex, _) = interior_maximum(0.0, d0, y1, d1).expect("a hop's apex inside the step");
            let (mut lo, mut hi) = (apex, 1.0);
            while 0.5 * (lo + hi) > lo && 0.5 * (lo + hi) < hi {
                let mid = 0.5 * (lo + hi);
                if p(mid) <= 0.0 { hi = mid } else { lo = mid }
            }
            let s = first_root(0.0, d0, y1, d1).unwrap();
            assert_eq!(s, hi, "hop {k}: d0 = {d0:e}");
            assert!(
                (s + d0 / b).abs() <= 4.0 * f64::EPSILON * s,
                "hop {k}: {s} vs {}",
                -d0 / b
            );
            let start = quadratic_start(b, d0, 0.0, apex, 1.0).expect("a start inside the piece");
            assert!(
                (start + d0 / b).abs() <= 4.0 * f64::EPSILON * s,
                "hop {k}: start {start}"
            );
            let evaluations = Cell::new(0);
            let slope = |s: f64| (3.0 * a * s + 2.0 * b) * s + d0;
            assert_eq!(
                monotone_root(counted(p, &evaluations), slope, Some(start), apex, 1.0),
                s,
                "hop {k}"
            );
            assert!(
                evaluations.get() <= 12,
                "hop {k}: {} evaluations of p",
                evaluations.get()
            );
        }
    }

    #[test]
    fn a_newton_step_out_of_the_bracket_takes_its_midpoint() {
        // y(s) = s − s² − 0.01 on [½, 1] from s = 0.6, near its apex: Newton's steps go past
        // 1 (and one lands on it) until the bracket's midpoints bring them near the root
        // (1 + √0.96)/2.
        let p = |s: f64| s - s * s - 0.01;
        let evaluations = Cell::new(0);
        let slope = |s: f64| 1.0 - 2.0 * s;
        let s = monotone_root(counted(p, &evaluations), slope, Some(0.6), 0.5, 1.0);
        let exact = (1.0 + 0.96f64.sqrt()) / 2.0;
        assert!((s - exact).abs() <= 4.0 * f64::EPSILON, "{s} vs {exact}");
        assert!(p(s) <= 0.0 && p(s - f64::EPSILON / 2.0) > 0.0, "{s}");
        // (Left out of the bracket, the last iterate would end Newton's steps, and the
        // bisection would close [0.6, 1] alone: some 50 halvings.)
        assert!(evaluations.get() <= 16, "{} evaluations of p", evaluations.get());
    }

    #[test]
    fn a_flight_from_the_floor_returns_at_its_end() {
        // y(s) = s − s², from y = 0 going up: back at s = 1; at s = ½ for 2s − 4s².
        assert_eq!(first_root(0.0, 1.0, 0.0, -1.0), Some(1.0));
        let s = first_root(0.0, 2.0, -2.0, -6.0).unwrap();
        assert!((s - 0.5).abs() < 1e-15, "{s}");
    }
}
