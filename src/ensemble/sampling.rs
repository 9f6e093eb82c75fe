//! Uncertain parameters: a number, or a distribution it is drawn from per scene, and the
//! random stream of each scene.
//!
//! Scene s of an ensemble with seed S draws from ChaCha8 seeded with S on stream s, so its
//! parameters depend on (S, s) only — not on the chunking, the sharding, the backend or the
//! thread that builds it.

use rand::SeedableRng;
use rand::{Rng, RngExt};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution as _, LogNormal, Normal};
use serde::Serialize;
use statrs::function::erf::{erfc, erfc_inv};

use crate::error::{Error, Result};

/// Where a swept parameter lies in one scene ([`super::design`]): grid point i, or a
/// coordinate in [0, 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Position {
    /// Point i of the parameter's grid.
    Grid(usize),
    /// Coordinate u ∈ [0, 1) of a Sobol point or a Latin-hypercube sample.
    Unit(f64),
}

/// The random stream of scene `index` in an ensemble seeded with `seed`.
pub fn scene_rng(seed: u64, index: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    rng
}

/// A scenario parameter: `x = 1.5`, or `x = { uniform = [1, 2] }`, `{ normal = { mean, std } }`,
/// `{ log_normal = { mu, sigma } }` (of ln x), `{ truncated_normal = { mean, std, min, max } }`,
/// `{ choice = [a, b, …] }`, or swept ([`super::design`]): `{ grid = [a, b, n] }`,
/// `{ log_grid = [a, b, n] }`, `{ sobol = [a, b] }`, `{ lhs = [a, b] }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Parameter {
    /// The same value in every scene.
    Fixed(f64),
    /// Drawn per scene.
    Drawn(Distribution),
}

/// The distributions a parameter can be drawn from (read from scenarios by `scene_toml`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Distribution {
    /// Uniform on [a, b).
    Uniform([f64; 2]),
    /// Normal N(mean, std²).
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation.
        std: f64,
    },
    /// exp(N(mu, sigma²)).
    LogNormal {
        /// Mean of ln x.
        mu: f64,
        /// Standard deviation of ln x.
        sigma: f64,
    },
    /// N(mean, std²) conditioned on [min, max] (drawn by inverting its distribution function:
    /// one uniform per draw, any window, however far in a tail).
    TruncatedNormal {
        /// Mean before truncation.
        mean: f64,
        /// Standard deviation before truncation.
        std: f64,
        /// Lower bound.
        min: f64,
        /// Upper bound.
        max: f64,
    },
    /// One of the values, each equally likely.
    Choice(Vec<f64>),
    /// `[a, b, n]`: n values evenly spaced from a to b, the scenes running through the grid
    /// ([`super::design`]).
    Grid(f64, f64, usize),
    /// `[a, b, n]`: n values from a to b evenly spaced in log (a, b > 0).
    LogGrid(f64, f64, usize),
    /// `[a, b]`: a + (b − a) u, u the scene's coordinate of a Sobol sequence.
    Sobol([f64; 2]),
    /// `[a, b]`: a + (b − a) u, u the scene's coordinate of a Latin hypercube.
    Lhs([f64; 2]),
}

impl Parameter {
    /// Checks the distribution's parameters; `name` is used in the error.
    pub fn validate(&self, name: &str) -> Result<()> {
        let bad = |reason: &str| {
            Err(Error::Scenario {
                what: format!("parameter `{name}`"),
                reason: reason.into(),
            })
        };
        let finite = |xs: &[f64]| xs.iter().all(|x| x.is_finite());
        match self {
            Self::Fixed(x) if !x.is_finite() => bad("must be finite"),
            Self::Drawn(Distribution::Uniform([a, b])) if !(finite(&[*a, *b]) && a <= b) => {
                bad("uniform = [a, b] needs finite a ≤ b")
            }
            Self::Drawn(Distribution::Normal { mean, std }) if !(finite(&[*mean, *std]) && *std >= 0.0) => {
                bad("normal needs a finite mean and std ≥ 0")
            }
            Self::Drawn(Distribution::LogNormal { mu, sigma }) if !(finite(&[*mu, *sigma]) && *sigma >= 0.0) => {
                bad("log_normal needs a finite mu and sigma ≥ 0")
            }
            Self::Drawn(Distribution::TruncatedNormal { mean, std, min, max })
                if !(finite(&[*mean, *std, *min, *max]) && *std > 0.0 && min < max) =>
            {
                bad("truncated_normal needs finite values, std > 0 and min < max")
            }
            Self::Drawn(Distribution::TruncatedNormal { mean, std, min, max })
                if window_mass((min - mean) / std, (max - mean) / std) <= 0.0 =>
            {
                bad(
                    "truncated_normal: [min, max] lies so far in a tail (about 37 std or more from the mean) that its probability underflows",
                )
            }
            Self::Drawn(Distribution::Choice(xs)) if xs.is_empty() || !finite(xs) => {
                bad("choice needs at least one finite value")
            }
            Self::Drawn(Distribution::Grid(a, b, n)) if !(finite(&[*a, *b]) && *n >= 1) => {
                bad("grid = [a, b, n] needs finite a, b and n ≥ 1 points")
            }
            Self::Drawn(Distribution::LogGrid(a, b, n)) if !(finite(&[*a, *b]) && *a > 0.0 && *b > 0.0 && *n >= 1) => {
                bad("log_grid = [a, b, n] needs a, b > 0 (finite) and n ≥ 1 points")
            }
            Self::Drawn(Distribution::Sobol([a, b]) | Distribution::Lhs([a, b])) if !(finite(&[*a, *b]) && a <= b) => {
                bad("sobol = [a, b] and lhs = [a, b] need finite a ≤ b")
            }
            _ => Ok(()),
        }
    }

    /// Whether the value differs between scenes.
    pub fn is_drawn(&self) -> bool {
        matches!(self, Self::Drawn(_))
    }

    /// The value for one scene (a validated parameter; a fixed one consumes no randomness; a
    /// swept one is placed by [`Parameter::at`], NaN here).
    pub fn sample(&self, rng: &mut impl Rng) -> f64 {
        match self {
            Self::Fixed(x) => *x,
            Self::Drawn(Distribution::Uniform([a, b])) => a + (b - a) * rng.random::<f64>(),
            Self::Drawn(Distribution::Normal { mean, std }) => normal(*mean, *std, rng),
            Self::Drawn(Distribution::LogNormal { mu, sigma }) => {
                LogNormal::new(*mu, *sigma).map(|d| d.sample(rng)).unwrap_or(f64::NAN)
            }
            Self::Drawn(Distribution::TruncatedNormal { mean, std, min, max }) => {
                truncated_normal(*mean, *std, *min, *max, rng.random::<f64>())
            }
            Self::Drawn(Distribution::Choice(xs)) => xs[rng.random_range(0..xs.len())],
            Self::Drawn(
                Distribution::Grid(..) | Distribution::LogGrid(..) | Distribution::Sobol(_) | Distribution::Lhs(_),
            ) => f64::NAN,
        }
    }

    /// The value of a swept parameter at `position`: grid point i of n is a + (b − a) i/(n − 1)
    /// (a·(b/a)^{i/(n−1)} on a log grid; b exactly at the end, a alone when n = 1); a Sobol or
    /// Latin-hypercube coordinate u (or a uniform parameter's in a Saltelli design) gives
    /// a + (b − a) u. NaN for a parameter that is not swept
    /// that way.
    pub fn at(&self, position: Position) -> f64 {
        let fraction = |i: usize, n: usize| if n > 1 { i as f64 / (n - 1) as f64 } else { 0.0 };
        match (self, position) {
            (Self::Drawn(Distribution::Grid(a, b, n)), Position::Grid(i)) if i + 1 == *n && *n > 1 => *b,
            (Self::Drawn(Distribution::Grid(a, b, n)), Position::Grid(i)) => a + (b - a) * fraction(i, *n),
            (Self::Drawn(Distribution::LogGrid(a, b, n)), Position::Grid(i)) if i + 1 == *n && *n > 1 => *b,
            (Self::Drawn(Distribution::LogGrid(a, b, n)), Position::Grid(i)) => a * (b / a).powf(fraction(i, *n)),
            (
                Self::Drawn(Distribution::Sobol([a, b]) | Distribution::Lhs([a, b]) | Distribution::Uniform([a, b])),
                Position::Unit(u),
            ) => a + (b - a) * u,
            _ => f64::NAN,
        }
    }
}

/// The upper tail Q(z) = P(Z > z) = ½ erfc(z/√2) of the standard normal: accurate far in the
/// upper tail, where 1 − Φ(z) would cancel.
fn upper_tail(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// The standard normal's probability of [a, b], computed on the side that keeps its digits.
fn window_mass(a: f64, b: f64) -> f64 {
    if a >= 0.0 {
        upper_tail(a) - upper_tail(b)
    } else if b <= 0.0 {
        upper_tail(-b) - upper_tail(-a)
    } else {
        1.0 - upper_tail(b) - upper_tail(-a)
    }
}

/// The draw of N(mean, std²) conditioned on [min, max] for the uniform `u` ∈ [0, 1): with
/// a = (min − mean)/std, b = (max − mean)/std, z = Φ⁻¹(Φ(a) + u (Φ(b) − Φ(a))), where a window
/// above the mean is inverted through the upper tail, z = Q⁻¹(Q(a) − u (Q(a) − Q(b))) with
/// Q⁻¹(p) = √2 erfc⁻¹(2p), one below it through the mirror image, and one around it through Φ —
/// so a window 6 std out is drawn as exactly as one at the mean. The result is clamped to
/// [min, max] against the last rounding.
pub fn truncated_normal(mean: f64, std: f64, min: f64, max: f64, u: f64) -> f64 {
    let (a, b) = ((min - mean) / std, (max - mean) / std);
    let inverse_tail = |p: f64| std::f64::consts::SQRT_2 * erfc_inv(2.0 * p);
    let z = if a >= 0.0 {
        let (qa, qb) = (upper_tail(a), upper_tail(b));
        inverse_tail(qa - u * (qa - qb))
    } else if b <= 0.0 {
        let (qa, qb) = (upper_tail(-a), upper_tail(-b));
        -inverse_tail(qb + u * (qa - qb))
    } else {
        // Φ(a) = Q(−a), Φ(b) = 1 − Q(b), Φ⁻¹(p) = −Q⁻¹(p).
        let (pa, pb) = (upper_tail(-a), 1.0 - upper_tail(b));
        -inverse_tail(pa + u * (pb - pa))
    };
    (mean + std * z).clamp(min, max)
}

fn normal(mean: f64, std: f64, rng: &mut impl Rng) -> f64 {
    Normal::new(mean, std).map(|d| d.sample(rng)).unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The truncated normal's mean: mean + std (φ(a) − φ(b)) / (Φ(b) − Φ(a)).
    fn exact_mean(mean: f64, std: f64, min: f64, max: f64) -> f64 {
        let density = |z: f64| (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let (a, b) = ((min - mean) / std, (max - mean) / std);
        mean + std * (density(a) - density(b)) / window_mass(a, b)
    }

    /// Windows at the mean, on either side and 6 std out (where rejection sampling had hung):
    /// every draw lies in the window, different uniforms give different draws (one each), and
    /// the mean of 20 000 draws is the exact truncated mean within 4 standard errors.
    #[test]
    fn truncated_normal_draws_any_window() {
        for (mean, std, min, max) in [
            (0.9, 0.03, 0.8, 1.0),
            (0.0, 1.0, 5.9, 6.0),
            (0.0, 1.0, -6.0, -5.9),
            (2.0, 0.5, -1.0, 1.0),
            (0.0, 1.0, 8.0, 30.0),
        ] {
            let mut rng = scene_rng(7, 3);
            let n = 20_000;
            let draws: Vec<f64> = (0..n)
                .map(|_| truncated_normal(mean, std, min, max, rng.random::<f64>()))
                .collect();
            assert!(draws.iter().all(|x| (min..=max).contains(x)), "[{min}, {max}]");
            let average = draws.iter().sum::<f64>() / n as f64;
            let spread = (draws.iter().map(|x| (x - average).powi(2)).sum::<f64>() / n as f64).sqrt();
            let expected = exact_mean(mean, std, min, max);
            assert!(
                (average - expected).abs() <= 4.0 * spread / (n as f64).sqrt() + 1e-12,
                "[{min}, {max}]: mean {average} vs {expected}"
            );
            let (low, high) = (
                truncated_normal(mean, std, min, max, 0.1),
                truncated_normal(mean, std, min, max, 0.9),
            );
            assert!(low != high, "[{min}, {max}]: {low} {high}");
        }
    }

    /// A window whose probability underflows is refused with its parameter named.
    #[test]
    fn a_window_beyond_the_doubles_is_refused() {
        let p = Parameter::Drawn(Distribution::TruncatedNormal {
            mean: 0.0,
            std: 1.0,
            min: 40.0,
            max: 41.0,
        });
        let e = p.validate("height").unwrap_err().to_string();
        assert!(e.contains("height") && e.contains("underflows"), "{e}");
        let far = Parameter::Drawn(Distribution::TruncatedNormal {
            mean: 0.0,
            std: 1.0,
            min: 5.9,
            max: 6.0,
        });
        assert!(far.validate("height").is_ok());
    }
}
