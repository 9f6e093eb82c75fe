//! A scenario's scenes: a template's (`[scene]` in a scenario file), or your own system built
//! by Rust code — any [`Scene`], an [`Nsds`](crate::model::Nsds) included — run through the
//! same ensemble machinery (backends, summary, observables, sweeps of your own, outputs).

use std::fmt;
use std::sync::{Arc, OnceLock};

use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::design::Draws;
use super::sampling::scene_rng;
use super::scene_spec::{SampledScene, Sampler as TemplateSampler, SceneSpec};
use crate::engine::Scene;
use crate::error::{Error, Result};

/// A scene built by code, and the values it drew, named.
pub type Built = (Box<dyn Scene>, Vec<(String, f64)>);

/// Builds scene `index` from its random stream (`rng`: ChaCha8 on stream `index` of the
/// scenario's seed, as a template's scene draws), returning it with the values it drew, named
/// (its summary columns: the same names in the same order for every scene).
pub type Build = dyn Fn(usize, &mut ChaCha8Rng) -> Result<Built> + Send + Sync;

/// Draws the scenes of one ensemble ([`Scenes::sampler`]).
pub enum Sampler<'a> {
    /// A template's, with its design.
    Template(TemplateSampler<'a>),
    /// Built by code, with the names of scene 0's draws and the scenario's seed.
    Custom(&'a Arc<Build>, &'a OnceLock<Vec<String>>, u64),
}

impl Sampler<'_> {
    /// A template's design of its swept parameters (`None`: scenes built by code).
    pub fn design(&self) -> Option<&super::design::Design> {
        match self {
            Self::Template(sampler) => Some(sampler.design()),
            Self::Custom(..) => None,
        }
    }

    /// Scene `index` of the ensemble.
    pub fn sample(&self, index: usize) -> Result<SampledScene> {
        match self {
            Self::Template(sampler) => sampler.sample(index),
            Self::Custom(build, names, seed) => built(build, names, index, *seed),
        }
    }
}

/// Where a scenario's scenes come from.
#[derive(Clone)]
pub enum Scenes {
    /// A template and its parameters (`[scene]`).
    Template(SceneSpec),
    /// Built by code; the drawn names are scene 0's, kept once known.
    Custom(Arc<Build>, Arc<OnceLock<Vec<String>>>),
}

impl Scenes {
    /// Your own scenes, built by `build`.
    pub fn custom(build: impl Fn(usize, &mut ChaCha8Rng) -> Result<Built> + Send + Sync + 'static) -> Self {
        Self::Custom(Arc::new(build), Arc::default())
    }

    /// Scene `index` of the ensemble `draws`.
    pub fn sample(&self, index: usize, draws: Draws) -> Result<SampledScene> {
        self.sampler(draws)?.sample(index)
    }

    /// The sampler of the ensemble `draws`: what its scenes share, built once.
    pub fn sampler(&self, draws: Draws) -> Result<Sampler<'_>> {
        Ok(match self {
            Self::Template(spec) => Sampler::Template(spec.sampler(draws)?),
            Self::Custom(..) if draws.design.is_some() => {
                return Err(Error::Scenario {
                    what: "design".into(),
                    reason: "your `build` draws its own values: a top-level design places a template's parameters only"
                        .into(),
                });
            }
            Self::Custom(build, names) => Sampler::Custom(build, names, draws.seed),
        })
    }

    /// The names of the drawn values (their summary columns).
    pub fn drawn_names(&self, draws: Draws) -> Result<Vec<String>> {
        match self {
            Self::Template(spec) => spec.drawn_names(draws),
            Self::Custom(_, names) => {
                // (Known once a scene is built: build scene 0 only if none was.)
                if names.get().is_none() {
                    self.sample(0, draws)?;
                }
                Ok(names.get().cloned().unwrap_or_default())
            }
        }
    }
}

/// Scene `index` built by `build` from stream `index` of `seed`, checked to draw the values
/// the first scene built drew (`names`, set by the first).
fn built(build: &Arc<Build>, names: &OnceLock<Vec<String>>, index: usize, seed: u64) -> Result<SampledScene> {
    let (scene, drawn) = build(index, &mut scene_rng(seed, index as u64)).map_err(|e| Error::Scenario {
        what: format!("scene {index} (built by your code)"),
        reason: e.to_string(),
    })?;
    let these: Vec<&str> = drawn.iter().map(|(n, _)| n.as_str()).collect();
    let first = names.get_or_init(|| these.iter().map(|n| n.to_string()).collect());
    if these != first.iter().map(String::as_str).collect::<Vec<_>>() {
        return Err(Error::Scenario {
            what: format!("scene {index} (built by your code)"),
            reason: format!(
                "drew {these:?}, where the first scene built drew {first:?}: every scene names the same values"
            ),
        });
    }
    Ok(SampledScene {
        index,
        drawn: drawn.into_iter().map(|(_, x)| x).collect(),
        scene,
    })
}

impl fmt::Debug for Scenes {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::Template(spec) => spec.fmt(f),
            Self::Custom(..) => f.write_str("Custom(..)"),
        }
    }
}

/// The same template and parameters, or the same code.
impl PartialEq for Scenes {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Template(a), Self::Template(b)) => a == b,
            (Self::Custom(a, _), Self::Custom(b, _)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// A template's table, or `"custom"` (a fingerprint covers the settings, not the code).
impl Serialize for Scenes {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Self::Template(spec) => spec.serialize(serializer),
            Self::Custom(..) => serializer.serialize_str("custom"),
        }
    }
}

impl<'de> Deserialize<'de> for Scenes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        SceneSpec::deserialize(deserializer).map(Self::Template)
    }
}
