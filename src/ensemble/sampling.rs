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
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The random stream of scene `index` in an ensemble seeded with `seed`.
pub fn scene_rng(seed: u64, index: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    rng
}

/// A scenario parameter: `x = 1.5`, or `x = { uniform = [1, 2] }`, `{ normal = { mean, std } }`,
/// `{ log_normal = { mu, sigma } }` (of ln x), `{ truncated_normal = { mean, std, min, max } }`,
/// `{ choice = [a, b, …] }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Parameter {
    /// The same value in every scene.
    Fixed(f64),
    /// Drawn per scene.
    Drawn(Distribution),
}

/// The distributions a parameter can be drawn from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
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
    /// N(mean, std²) conditioned on [min, max] (drawn by rejection).
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
                if (min - mean) / std > 6.0 || (mean - max) / std > 6.0 =>
            {
                bad("truncated_normal: [min, max] lies more than 6 std from the mean (rejection would stall)")
            }
            Self::Drawn(Distribution::Choice(xs)) if xs.is_empty() || !finite(xs) => {
                bad("choice needs at least one finite value")
            }
            _ => Ok(()),
        }
    }

    /// Whether the value differs between scenes.
    pub fn is_drawn(&self) -> bool {
        matches!(self, Self::Drawn(_))
    }

    /// The value for one scene (a validated parameter; a fixed one consumes no randomness).
    pub fn sample(&self, rng: &mut impl Rng) -> f64 {
        match self {
            Self::Fixed(x) => *x,
            Self::Drawn(Distribution::Uniform([a, b])) => a + (b - a) * rng.random::<f64>(),
            Self::Drawn(Distribution::Normal { mean, std }) => normal(*mean, *std, rng),
            Self::Drawn(Distribution::LogNormal { mu, sigma }) => {
                LogNormal::new(*mu, *sigma).map(|d| d.sample(rng)).unwrap_or(f64::NAN)
            }
            Self::Drawn(Distribution::TruncatedNormal { mean, std, min, max }) => loop {
                let x = normal(*mean, *std, rng);
                if (*min..=*max).contains(&x) {
                    break x;
                }
            },
            Self::Drawn(Distribution::Choice(xs)) => xs[rng.random_range(0..xs.len())],
        }
    }
}

fn normal(mean: f64, std: f64, rng: &mut impl Rng) -> f64 {
    Normal::new(mean, std).map(|d| d.sample(rng)).unwrap_or(f64::NAN)
}
