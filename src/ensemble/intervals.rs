//! 95 % confidence intervals of a column's statistics: of the mean (Student's t), of a
//! quantile (distribution-free, by order statistics) and of a probability (Wilson's score
//! interval). Each is `[NaN, NaN]` where the scenes are too few to give it.

use statrs::distribution::{Binomial, ContinuousCDF, DiscreteCDF, StudentsT};

/// The confidence level of every interval.
pub const LEVEL: f64 = 0.95;

/// The standard normal's quantile at (1 + [`LEVEL`]) / 2.
const Z: f64 = 1.959_963_984_540_054;

/// An interval nobody can give.
const UNDEFINED: [f64; 2] = [f64::NAN, f64::NAN];

/// x̄ ∓ t_{0.975, n−1} s/√n: the interval of the mean of `n` values of mean `mean` and
/// sample standard deviation `std` (Student's t; undefined below two values).
pub fn mean_interval(n: usize, mean: f64, std: f64) -> [f64; 2] {
    if n < 2 {
        return UNDEFINED;
    }
    let Ok(t) = StudentsT::new(0.0, 1.0, (n - 1) as f64) else {
        return UNDEFINED;
    };
    let half = t.inverse_cdf(0.5 + LEVEL / 2.0) * std / (n as f64).sqrt();
    [mean - half, mean + half]
}

/// [x_(l), x_(u)] of the `sorted` values (order statistics, 1-based), an interval of the
/// p-quantile ξ_p that holds it with probability ≥ 95 % whatever the (continuous)
/// distribution: with B ~ Binomial(n, p) the number of values ≤ ξ_p, P(x_(l) ≤ ξ_p < x_(u))
/// = F(u − 1) − F(l − 1), so l is the largest rank with F(l − 1) ≤ 2.5 % and u the smallest
/// with F(u − 1) ≥ 97.5 % (Hahn & Meeker, *Statistical Intervals*, 1991, §5.2). Undefined
/// when such a rank falls outside 1…n (too few values for that quantile).
pub fn quantile_interval(sorted: &[f64], p: f64) -> [f64; 2] {
    let n = sorted.len();
    let Ok(b) = Binomial::new(p, n as u64) else {
        return UNDEFINED;
    };
    let tail = (1.0 - LEVEL) / 2.0;
    // The smallest k with F(k) ≥ tail; l − 1 is it, or the one below when F(k) > tail.
    let k = b.inverse_cdf(tail);
    let below = if b.cdf(k) <= tail { Some(k) } else { k.checked_sub(1) };
    let upper = b.inverse_cdf(1.0 - tail);
    match below {
        // l − 1 = below, u − 1 = upper: 0-based indices of x_(l) and x_(u).
        Some(below) if upper < n as u64 && b.cdf(upper) >= 1.0 - tail => {
            [sorted[below as usize], sorted[upper as usize]]
        }
        _ => UNDEFINED,
    }
}

/// Wilson's score interval of a probability from `successes` of `n` trials:
/// (p̂ + z²/2n ∓ z √(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n) (Wilson, JASA 22:209, 1927). Its
/// lower end is exactly 0 at p̂ = 0 and its upper end exactly 1 at p̂ = 1 (where the formula's
/// two terms cancel, which floating point leaves ~1e-19 off).
pub fn probability_interval(successes: usize, n: usize) -> [f64; 2] {
    if n == 0 {
        return UNDEFINED;
    }
    let (n, p) = (n as f64, successes as f64 / n as f64);
    let z2 = Z * Z;
    let centre = p + z2 / (2.0 * n);
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let scale = 1.0 + z2 / n;
    [
        if successes == 0 { 0.0 } else { (centre - half) / scale },
        if p == 1.0 { 1.0 } else { (centre + half) / scale },
    ]
}
