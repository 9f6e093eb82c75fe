// The roots and turning points of a cubic Hermite interpolant over [0, 1], for the located
// impacts (located_crossing.wgsl) and the observers' crossings inside a step
// (located_observe.wgsl). Twins: the functions of the same names in reference::hermite_root
// (src/reference/hermite_root.rs), in the same operations.

// A root of the interpolant, where `found`.
struct Root {
    found: bool,
    s: real,
}

// The interpolant p(s) of p(0) = y0, p′(0) = d0, p(1) = y1, p′(1) = d1 at s (y1 from s = 1 on),
// from its coefficients a, b. Twin: the `p` closure of first_root.
fn hermite_at(y0: real, d0: real, y1: real, a: real, b: real, s: real) -> real {
    if (s >= 1.0) {
        return y1;
    }
    return ((a * s + b) * s + d0) * s + y0;
}

// The real roots of a x² + b x + c (a linear or constant one when a = 0): (roots, count).
// Twin: quadratic_roots.
fn quadratic_roots(a: real, b: real, c: real) -> vec3<real> {
    if (a == 0.0) {
        if (b == 0.0) {
            return vec3<real>(real(0.0), real(0.0), real(0.0));
        }
        return vec3<real>(-c / b, real(0.0), real(1.0));
    }
    let disc = b * b - real(4.0) * a * c;
    if (disc < 0.0) {
        return vec3<real>(real(0.0), real(0.0), real(0.0));
    }
    // The stable pair: q = −(b + sign(b) √disc)/2, roots q/a and c/q; sign(b) as Rust's
    // signum: −1 for −0 too (1/−0 < 0).
    let sign = select(real(1.0), real(-1.0), b < 0.0 || (b == 0.0 && real(1.0) / b < 0.0));
    let q = -(b + sign * sqrt(disc)) / real(2.0);
    if (q == 0.0) {
        return vec3<real>(real(0.0), real(0.0), real(1.0));
    }
    return vec3<real>(q / a, c / q, real(2.0));
}

// Newton's start for the piece [lo, hi]: the first root inside it of b s² + d0 s + y0, the
// interpolant without its cubic term, if it has one there. Twin: quadratic_start.
fn quadratic_start(b: real, d0: real, y0: real, lo: real, hi: real) -> Root {
    let roots = quadratic_roots(b, d0, y0);
    var ordered = roots.xy;
    if (roots.z == 2.0 && roots.y < roots.x) {
        ordered = roots.yx;
    }
    for (var k = 0u; k < u32(roots.z); k++) {
        if (ordered[k] > lo && ordered[k] < hi) {
            return Root(true, ordered[k]);
        }
    }
    return Root(false, real(0.0));
}

// The smallest s in [lo, hi] (to rounding) where the interpolant, open at lo (p > 0) and closed
// at hi (p ≤ 0), is closed: safeguarded Newton from `start` (else the secant point), an iterate
// not converged and not strictly inside the bracket replaced by its midpoint, the bracket closed
// to a few ulps around its last iterate, then bisection to adjacent floats; the closed end.
// Twin: monotone_root.
fn monotone_root(y0: real, d0: real, y1: real, a: real, b: real, start: Root, lo_in: real, hi_in: real) -> real {
    var lo = lo_in;
    var hi = hi_in;
    var x = start.s;
    if (!start.found) {
        let open = hermite_at(y0, d0, y1, a, b, lo);
        let closed = hermite_at(y0, d0, y1, a, b, hi);
        x = lo + open * (hi - lo) / (open - closed);
    }
    for (var i = 0u; i < NEWTON_STEPS; i++) {
        if (!(x > lo && x < hi)) {
            break;
        }
        let px = hermite_at(y0, d0, y1, a, b, x);
        if (px <= 0.0) {
            hi = x;
        } else {
            lo = x;
        }
        let newton = x - px / ((real(3.0) * a * x + real(2.0) * b) * x + d0);
        let converged = abs(newton - x) <= REAL_EPSILON * abs(newton);
        x = select(real(0.5) * (lo + hi), newton, converged || (newton > lo && newton < hi));
        if (converged) {
            break;
        }
    }
    let delta = real(8.0) * REAL_EPSILON * abs(x);
    let below = x - delta;
    let above = x + delta;
    if (below > lo && below < hi && hermite_at(y0, d0, y1, a, b, below) > 0.0) {
        lo = below;
    }
    if (above > lo && above < hi && hermite_at(y0, d0, y1, a, b, above) <= 0.0) {
        hi = above;
    }
    loop {
        let mid = real(0.5) * (lo + hi);
        if (mid <= lo || mid >= hi) {
            break;
        }
        if (hermite_at(y0, d0, y1, a, b, mid) <= 0.0) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    return hi;
}

// The first s in (0, 1] where the interpolant of (y0, d0, y1, d1) goes from open (> 0) to
// closed (≤ 0): its pieces between the roots of p′ in (0, 1), in order. Twin: first_root.
fn first_root(y0: real, d0: real, y1: real, d1: real) -> Root {
    var none = Root(false, real(0.0));
    if (!(is_finite(y0) && is_finite(d0) && is_finite(y1) && is_finite(d1))) {
        return none;
    }
    let a = real(2.0) * (y0 - y1) + d0 + d1;
    let b = real(3.0) * (y1 - y0) - real(2.0) * d0 - d1;
    let roots = quadratic_roots(real(3.0) * a, real(2.0) * b, d0);
    var cuts = vec3<real>(real(1.0), real(1.0), real(1.0));
    var len = 0u;
    for (var k = 0u; k < u32(roots.z); k++) {
        let s = roots[k];
        if (s > 0.0 && s < 1.0) {
            cuts[len] = s;
            len = len + 1u;
        }
    }
    if (len == 2u && cuts[1] < cuts[0]) {
        let first = cuts[1];
        cuts[1] = cuts[0];
        cuts[0] = first;
    }
    var lo = real(0.0);
    for (var k = 0u; k <= len; k++) {
        let hi = cuts[k];
        if (hermite_at(y0, d0, y1, a, b, lo) > 0.0 && hermite_at(y0, d0, y1, a, b, hi) <= 0.0) {
            let start = quadratic_start(b, d0, y0, lo, hi);
            return Root(true, monotone_root(y0, d0, y1, a, b, start, lo, hi));
        }
        lo = hi;
    }
    return none;
}

// Where the interpolant has its maximum inside (0, 1) when it rises at 0 and falls at 1: that
// (s, p(s), 1), or (0, 0, 0) where it has none. Twin: interior_maximum.
fn interior_maximum(y0: real, d0: real, y1: real, d1: real) -> vec3<real> {
    if (!(d0 > 0.0 && d1 < 0.0 && is_finite(y0) && is_finite(y1))) {
        return vec3<real>(real(0.0), real(0.0), real(0.0));
    }
    let a = real(2.0) * (y0 - y1) + d0 + d1;
    let b = real(3.0) * (y1 - y0) - real(2.0) * d0 - d1;
    let roots = quadratic_roots(real(3.0) * a, real(2.0) * b, d0);
    for (var k = 0u; k < u32(roots.z); k++) {
        let s = roots[k];
        if (s > 0.0 && s < 1.0) {
            return vec3<real>(s, ((a * s + b) * s + d0) * s + y0, real(1.0));
        }
    }
    return vec3<real>(real(0.0), real(0.0), real(0.0));
}
