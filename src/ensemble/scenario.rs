//! Scenario files (TOML): what to simulate, how many times, and what to record.
//!
//! ```toml
//! name = "bouncing_ball"
//! scenes = 100000
//! seed = 42
//!
//! [scene]
//! template = "bouncing_ball"
//! height = { uniform = [1.0, 2.0] }
//! restitution = 0.9
//!
//! [time]
//! step = 1e-3
//! final = 2.0
//!
//! [solver]          # optional
//! tolerance = 1e-12
//!
//! [record]          # optional
//! trajectories = 4
//! stride = 10
//! ```
//!
//! A scenario's checks before anything runs ([`Scenario::validate`]) are in `checks`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::custom::{Sampler, Scenes};
use super::design::{DesignKind, Draws};
use super::observables::{EventSettings, ObserveSpec, StrobeSettings};
use super::scene_spec::SampledScene;
pub use super::settings::{PrecisionChoice, RecordSettings, SolverSettings, StabilizationChoice, TimeSettings};
use super::stop::StopRule;
use crate::batch::observe::{Observer, Recording};
use crate::engine::velocity_name;
use crate::error::{Error, Result};
use crate::scheme::Stabilization;
use crate::scheme::moreau_jean::{Activation, MoreauJeanOSI};

mod checks;

/// A Monte Carlo ensemble: N scenes drawn from one template.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A name for reports.
    pub name: String,
    /// Number of scenes N.
    #[serde(default = "default_scenes")]
    pub scenes: usize,
    /// Seed of the scenes' random streams.
    #[serde(default)]
    pub seed: u64,
    /// How the drawn parameters are placed together: `"saltelli"` for Sobol indices
    /// ([`super::design`], [`super::sensitivity`]); by default each is drawn on its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design: Option<DesignKind>,
    /// The template and its parameters.
    pub scene: Scenes,
    /// Time stepping.
    pub time: TimeSettings,
    /// The one-step problem's solver.
    #[serde(default)]
    pub solver: SolverSettings,
    /// What to record besides the per-scene summary.
    #[serde(default)]
    pub record: RecordSettings,
    /// `[[observe]]`: observables, each a summary column.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observe: Vec<ObserveSpec>,
    /// `[[derive]]`: summary columns computed from the others ([`super::derive`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub derive: Vec<super::derive::DeriveSpec>,
    /// `[strobe]`: the state of every scene at t₀ + k T (the `strobe` table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strobe: Option<StrobeSettings>,
    /// `[events]`: every scene's impacts (the `events` table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<EventSettings>,
    /// `[stop]`: run until the targets are met, `scenes` at most ([`StopRule`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<StopRule>,
    /// `[output]`: the tables' formats. Not serialized: how results are written is not
    /// what is computed, so the [`Scenario::fingerprint`] leaves it out.
    #[serde(default, skip_serializing)]
    pub output: super::formats::OutputSettings,
}

fn default_scenes() -> usize {
    1000
}

impl Scenario {
    /// An ensemble of your own system: `scenes` scenes, scene s built by `build` from its
    /// random stream (seeded by `seed` and s), stepped as `time` says; the default solver and
    /// no trajectories (set the other fields as for a scenario file). Checked as
    /// [`Scenario::validate`] checks, which builds scene 0.
    pub fn custom(
        name: &str,
        (scenes, seed): (usize, u64),
        time: TimeSettings,
        build: impl Fn(usize, &mut rand_chacha::ChaCha8Rng) -> Result<super::custom::Built> + Send + Sync + 'static,
    ) -> Result<Self> {
        let scenario = Self {
            name: name.into(),
            scenes,
            seed,
            design: None,
            scene: Scenes::custom(build),
            time,
            solver: SolverSettings::default(),
            record: RecordSettings {
                trajectories: 0,
                ..RecordSettings::default()
            },
            observe: Vec::new(),
            derive: Vec::new(),
            strobe: None,
            events: None,
            stop: None,
            output: Default::default(),
        };
        scenario.validate()?;
        Ok(scenario)
    }

    /// Parses and checks a scenario.
    pub fn from_toml(text: &str) -> Result<Self> {
        Self::from_toml_with(text, (None, None))
    }

    /// Parses a scenario, sets the `scenes` and `seed` given and checks it (a `[stop]` rule or
    /// a Saltelli design is checked against the scenes it will run).
    pub fn from_toml_with(text: &str, (scenes, seed): (Option<usize>, Option<u64>)) -> Result<Self> {
        let mut scenario = Self::parse(text)?;
        scenario.scenes = scenes.unwrap_or(scenario.scenes);
        scenario.seed = seed.unwrap_or(scenario.seed);
        scenario.validate()?;
        Ok(scenario)
    }

    /// Parses a scenario without checking its numbers (set what overrides them, then
    /// [`Scenario::validate`]).
    fn parse(text: &str) -> Result<Self> {
        if super::large_scene::LargeScenario::is_large(text) {
            return Err(Error::Scenario {
                what: "[large_scene]".into(),
                reason: "this is a large-scene scenario (one scene of many bodies): `ricochet run FILE --out DIR` \
                         runs it; ensembles, sweeps and `verify` take [scene] scenarios"
                    .into(),
            });
        }
        let toml_error = |e: toml::de::Error| Error::Scenario {
            what: "TOML".into(),
            reason: e.to_string(),
        };
        let mut scenario: Self = toml::from_str(text).map_err(toml_error)?;
        // `[stop] max_scenes` is the cap, `scenes`, when that is not given (once read, the
        // cap is `scenes` only: `--scenes` changes it).
        if let Some(stop) = &mut scenario.stop {
            let table: toml::Table = toml::from_str(text).map_err(toml_error)?;
            match stop.max_scenes {
                // (Both given and different: `validate` names them.)
                Some(max) if table.contains_key("scenes") && max != scenario.scenes => {}
                Some(max) => (scenario.scenes, stop.max_scenes) = (max, None),
                None => {}
            }
        }
        Ok(scenario)
    }

    /// Reads and checks a scenario file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        Self::load_with(path, (None, None))
    }

    /// Reads a scenario file, sets the `scenes` and `seed` given (the command line's
    /// `--scenes`, `--seed`) and checks it: a `[stop]` rule or a Saltelli design is checked
    /// against the scenes it will run. Errors name the file.
    pub fn load_with(path: impl AsRef<Path>, (scenes, seed): (Option<usize>, Option<u64>)) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::Parse {
            file: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Self::from_toml_with(&text, (scenes, seed)).map_err(|e| e.in_place(&path.display().to_string()))
    }

    /// What the engines record: the observers and the stroboscopic steps.
    pub fn recording(&self) -> Result<Recording> {
        self.recording_of(self.observers()?)
    }

    /// What the engines record with `observers` ([`Scenario::recording`]).
    pub(super) fn recording_of(&self, observers: Vec<Observer>) -> Result<Recording> {
        if let Some(events) = self.events
            && !(1..=1 << 20).contains(&events.max)
        {
            return Err(Error::Scenario {
                what: "events.max".into(),
                reason: format!("{} events per scene: between 1 and 2²⁰", events.max),
            });
        }
        Ok(Recording {
            observers,
            strobe: self
                .strobe
                .map(|s| s.steps(self.time.step, self.steps() as u32, self.time.final_time))
                .transpose()?,
            events: self.events.map(|e| e.max),
        })
    }

    /// The names of the scenes' coordinates (scene 0's: `run` refuses draws that change
    /// them), which name the state's columns and signals. A name that reads as another
    /// signal (`y0`, `lambda1`, `energy`, or `q2` for coordinate 0) is refused.
    pub fn coordinates(&self) -> Result<Vec<String>> {
        self.checked_coordinates(self.sample(0)?.scene.coordinate_names())
    }

    /// `names`, scene 0's coordinates, checked as [`Scenario::coordinates`] says.
    pub(super) fn checked_coordinates(&self, names: Vec<String>) -> Result<Vec<String>> {
        for (i, name) in names.iter().enumerate() {
            let fail = |reason: &str| Error::Scenario {
                what: format!("the scene's coordinate {i}, `{name}`"),
                reason: reason.into(),
            };
            if super::observables::is_signal(name) && *name != format!("q{i}") {
                return Err(fail(
                    "the name reads as another signal (q<i>, v<i>, y<r>, ydot<r>, lambda<r>, energy)",
                ));
            }
            if ["scene", "t"].contains(&name.as_str()) || names.contains(&velocity_name(name)) {
                return Err(fail(
                    "the name is taken by a column of the tables (`scene`, `t`) or by another coordinate's velocity",
                ));
            }
        }
        Ok(names)
    }

    /// The degrees of freedom and rows of the scenes (scene 0's).
    pub fn sizes(&self) -> Result<(usize, usize)> {
        let scene = self.sample(0)?.scene;
        Ok((scene.dof(), scene.nsds()?.gap_rows().len()))
    }

    /// The observers of `[[observe]]`, checked against scene 0's sizes (sizes are never
    /// drawn), their names unique and none a drawn parameter's.
    pub fn observers(&self) -> Result<Vec<Observer>> {
        if self.observe.is_empty() {
            // (The drawn names are checked all the same.)
            self.drawn_names()?;
            return Ok(Vec::new());
        }
        let first = self.sample(0)?.scene;
        let coordinates = self.checked_coordinates(first.coordinate_names())?;
        self.observers_of(&self.drawn_names()?, &coordinates, first.nsds()?.gap_rows().len())
    }

    /// The observers of `[[observe]]` for scenes of `coordinates` and `m` rows, with the
    /// parameters `drawn` ([`Scenario::observers`]).
    pub(super) fn observers_of(&self, drawn: &[String], coordinates: &[String], m: usize) -> Result<Vec<Observer>> {
        let mut names: Vec<&str> = drawn.iter().map(String::as_str).collect();
        self.observe
            .iter()
            .map(|spec| {
                if names.contains(&spec.name.as_str()) {
                    return Err(Error::Scenario {
                        what: format!("[[observe]] `{}`", spec.name),
                        reason: "the name is taken (by another observable or a drawn parameter)".into(),
                    });
                }
                names.push(&spec.name);
                spec.observer(coordinates, m)
            })
            .collect()
    }

    /// A fingerprint of everything the scenario says (FNV-1a, 64 bits, of its canonical JSON,
    /// as 16 hex digits): shards merge only when it is the same.
    pub fn fingerprint(&self) -> String {
        super::fingerprint::fnv1a(&serde_json::to_vec(self).unwrap_or_default())
    }

    /// Number of steps ⌈T/h⌉ (a T within 10⁻⁹ h of a grid time counts as that time).
    pub fn steps(&self) -> u64 {
        ((self.time.final_time / self.time.step - 1e-9).ceil().max(0.0)) as u64
    }

    /// What keeps the equality constraints on their manifold.
    pub fn stabilization(&self) -> Stabilization {
        self.time.stabilization.into()
    }

    /// The Moreau–Jean integrator of the scenario's θ and γ.
    pub fn osi(&self) -> MoreauJeanOSI {
        MoreauJeanOSI {
            theta: self.time.theta,
            gamma: self.time.gamma,
            activation: Activation::Current,
        }
    }

    /// What places the scenes: seed, size and design.
    pub fn draws(&self) -> Draws {
        Draws {
            seed: self.seed,
            scenes: self.scenes,
            design: self.design,
        }
    }

    /// Names of the drawn parameters, in the order of their summary columns.
    pub fn drawn_names(&self) -> Result<Vec<String>> {
        self.scene.drawn_names(self.draws())
    }

    /// Scene `index`, drawn from its own stream.
    pub fn sample(&self, index: usize) -> Result<SampledScene> {
        self.scene.sample(index, self.draws())
    }

    /// Draws its scenes, what they share built once ([`Scenario::sample`] of many scenes).
    pub fn sampler(&self) -> Result<Sampler<'_>> {
        self.scene.sampler(self.draws())
    }

    /// The K scenes whose trajectories are recorded: ⌊i N / K⌋ for i < K.
    pub fn recorded_scenes(&self) -> Vec<usize> {
        self.recorded_among(self.scenes)
    }

    /// The K scenes of the first `n` whose trajectories are recorded: ⌊i n / K⌋ for i < K
    /// (a run stopped at n scenes records these).
    pub fn recorded_among(&self, n: usize) -> Vec<usize> {
        let k = self.record.trajectories.min(n);
        let mut scenes: Vec<usize> = (0..k).map(|i| i * n / k).collect();
        scenes.dedup();
        scenes
    }
}
