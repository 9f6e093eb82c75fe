//! One large scene as a job: a scenario with a `[large_scene]` table (the template and its
//! parameters), `[time]`, `[solver]` and `[output]`, run step by step and written as
//! `series.csv` (one row every `every` steps), `final.csv` (one row per body) and, with
//! `[output] snapshots = K`, a VTK PolyData snapshot every K steps indexed by
//! `snapshots.pvd` (ParaView: open the `.pvd`, glyph the points by `radius`).
//!
//! ```toml
//! name = "pyramid_2d"
//! [large_scene]
//! template = "pyramid_2d"   # or "hopper_2d", "pile_3d", "chute_3d"
//! rows = 14
//! [time]
//! step = 1e-3
//! final = 1.0
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::large_scene::{LargeScene, SolverOptions};
use crate::scenes::chute_3d::Chute3d;
use crate::scenes::hopper_2d::Hopper2d;
use crate::scenes::pile_3d::Pile3d;
use crate::scenes::pyramid_2d::Pyramid2d;
use crate::validate;

/// The large-scene templates, by `template = "…"`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "template", rename_all = "snake_case")]
pub enum LargeTemplate {
    /// [`Pyramid2d`]: equal discs in a triangle on a floor.
    #[serde(rename = "pyramid_2d")]
    Pyramid2d(Pyramid2d),
    /// [`Hopper2d`]: polydisperse discs discharging through an orifice.
    #[serde(rename = "hopper_2d")]
    Hopper2d(Hopper2d),
    /// [`Pile3d`]: spheres poured into a box.
    #[serde(rename = "pile_3d")]
    Pile3d(Pile3d),
    /// [`Chute3d`]: spheres flowing down a periodic chute.
    #[serde(rename = "chute_3d")]
    Chute3d(Chute3d),
}

impl LargeTemplate {
    /// The names `template` takes.
    pub const NAMES: [&str; 4] = ["pyramid_2d", "hopper_2d", "pile_3d", "chute_3d"];

    /// Each template by name with its parameters' defaults, `key = value` in the order of
    /// its table (what `ricochet templates` lists).
    pub fn defaults() -> Vec<(&'static str, String)> {
        let table = |t: std::result::Result<String, toml::ser::Error>| {
            t.map(|text| text.lines().collect::<Vec<_>>().join(", "))
                .unwrap_or_default()
        };
        vec![
            ("pyramid_2d", table(toml::to_string(&Pyramid2d::default()))),
            ("hopper_2d", table(toml::to_string(&Hopper2d::default()))),
            ("pile_3d", table(toml::to_string(&Pile3d::default()))),
            ("chute_3d", table(toml::to_string(&Chute3d::default()))),
        ]
    }

    /// The scene at t = 0 with time step `h`, drawn from `seed`.
    pub fn build(&self, h: f64, seed: u64) -> Result<LargeScene> {
        match self {
            Self::Pyramid2d(p) => p.build(h),
            Self::Hopper2d(p) => p.build(h, seed),
            Self::Pile3d(p) => p.build(h, seed),
            Self::Chute3d(p) => p.build(h, seed),
        }
    }

    /// The same template scaled to about `bodies` bodies (the pyramid's rows; the hopper's
    /// discs and width, the pile's spheres and box width, the chute's spheres, period and
    /// width, so that each keeps its depth-to-width ratio).
    pub fn scaled(&self, bodies: usize) -> Self {
        match self {
            Self::Pyramid2d(p) => Self::Pyramid2d(Pyramid2d {
                rows: Pyramid2d::rows_for(bodies),
                ..p.clone()
            }),
            Self::Hopper2d(p) => Self::Hopper2d(Hopper2d {
                discs: bodies,
                width: p.width * (bodies as f64 / p.discs.max(1) as f64).sqrt(),
                ..p.clone()
            }),
            Self::Pile3d(p) => Self::Pile3d(Pile3d {
                spheres: bodies,
                width: p.width * (bodies as f64 / p.spheres.max(1) as f64).cbrt(),
                ..p.clone()
            }),
            Self::Chute3d(p) => {
                let scale = (bodies as f64 / p.spheres.max(1) as f64).cbrt();
                Self::Chute3d(Chute3d {
                    spheres: bodies,
                    length: p.length * scale,
                    width: p.width * scale,
                    ..p.clone()
                })
            }
        }
    }
}

/// `[solver] method`: how the contacts' sweeps go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Graph-coloured nonsmooth Gauss–Seidel ([`crate::large_scene::solve`]).
    #[default]
    Nsgs,
    /// Jacobi with mass splitting ([`crate::large_scene::jacobi`]).
    Jacobi,
}

/// `[time]`: the step and the final time.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LargeTime {
    /// h (s).
    pub step: f64,
    /// The final time (s).
    #[serde(rename = "final")]
    pub final_time: f64,
    /// θ of the position update (default 1).
    #[serde(default = "one")]
    pub theta: f64,
}

fn one() -> f64 {
    1.0
}

/// `[solver]`: the sweeps' tolerance, cap, warm start ([`SolverOptions`]) and method.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LargeSolver {
    /// Siconos's relative error to reach (default 1e-6).
    pub tolerance: f64,
    /// The sweep cap per step (default 1000).
    pub max_sweeps: usize,
    /// Whether each step starts from the last one's impulses (default true).
    pub warm_start: bool,
    /// `"nsgs"` (graph-coloured Gauss–Seidel, the default) or `"jacobi"` (Jacobi with mass
    /// splitting), on either backend.
    pub method: Method,
}

impl Default for LargeSolver {
    fn default() -> Self {
        let o = SolverOptions::default();
        Self {
            tolerance: o.tolerance,
            max_sweeps: o.max_sweeps,
            warm_start: o.warm_start,
            method: Method::default(),
        }
    }
}

/// `[output]`: how often `series.csv` gets a row, a snapshot is written and the state is
/// kept for `--resume`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LargeOutput {
    /// A row every `every` steps (default 100), and after the last.
    pub every: u64,
    /// A VTK snapshot (`snapshots/step_NNNNNNN.vtp`, indexed by `snapshots.pvd`) every
    /// `snapshots` steps, at t = 0 and after the last; 0 (the default): none.
    pub snapshots: u64,
    /// The scene's state is kept in `.checkpoint/` every `checkpoint` steps (default 1000;
    /// 0: only when the run is cancelled), for `ricochet run --resume` to continue from after
    /// a kill.
    pub checkpoint: u64,
}

impl Default for LargeOutput {
    fn default() -> Self {
        Self {
            every: 100,
            snapshots: 0,
            checkpoint: 1000,
        }
    }
}

/// A large-scene scenario file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LargeScenario {
    /// The run's name.
    pub name: String,
    /// The seed of the template's draws (default 0).
    #[serde(default)]
    pub seed: u64,
    /// The template and its parameters.
    pub large_scene: LargeTemplate,
    /// The step and final time.
    pub time: LargeTime,
    /// The sweeps' stopping rule.
    #[serde(default)]
    pub solver: LargeSolver,
    /// The outputs' cadence.
    #[serde(default)]
    pub output: LargeOutput,
}

impl LargeScenario {
    /// Whether a scenario's text is a large-scene one (it has a `[large_scene]` table).
    pub fn is_large(text: &str) -> bool {
        text.parse::<toml::Table>().is_ok_and(|t| t.contains_key("large_scene"))
    }

    /// Parses and checks a scenario (`file` names it in errors).
    pub fn from_toml(text: &str, file: &str) -> Result<Self> {
        let scenario: Self = toml::from_str(text).map_err(|e| Error::Scenario {
            what: format!("{file}: TOML"),
            reason: e.to_string(),
        })?;
        scenario.check().map_err(|e| e.in_place(file))?;
        Ok(scenario)
    }

    fn check(&self) -> Result<()> {
        let scenario = self;
        let t = &scenario.time;
        validate::positive("[time] step", t.step)?;
        validate::scalar(
            "[time] final",
            t.final_time,
            t.final_time >= t.step,
            "must be ≥ the step",
        )?;
        validate::scalar(
            "[time] theta",
            t.theta,
            (0.0..=1.0).contains(&t.theta),
            "must be in [0, 1]",
        )?;
        let s = &scenario.solver;
        validate::positive("[solver] tolerance", s.tolerance)?;
        validate::scalar(
            "[solver] max_sweeps",
            s.max_sweeps as f64,
            s.max_sweeps >= 1,
            "must be ≥ 1",
        )?;
        validate::scalar(
            "[output] every",
            scenario.output.every as f64,
            scenario.output.every >= 1,
            "must be ≥ 1",
        )
    }

    /// Reads and checks a scenario file.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Parse {
            file: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Self::from_toml(&text, &path.display().to_string())
    }

    /// The steps to the final time (a final time within 10⁻⁹ h of a step is that step).
    pub fn steps(&self) -> u64 {
        (self.time.final_time / self.time.step * (1.0 + 1e-9)).floor() as u64
    }

    /// The scene at t = 0 with the scenario's time and solver settings.
    pub fn build(&self) -> Result<LargeScene> {
        let mut scene = self
            .large_scene
            .build(self.time.step, self.seed)
            .map_err(|e| e.in_place(&format!("scenario {}: [large_scene]", self.name)))?;
        scene.theta = self.time.theta;
        scene.solver = SolverOptions {
            tolerance: self.solver.tolerance,
            max_sweeps: self.solver.max_sweeps,
            warm_start: self.solver.warm_start,
        };
        Ok(scene)
    }

    /// The scenario's fingerprint ([`fnv1a`](super::fingerprint::fnv1a) of its JSON, the
    /// checkpoints' cadence left out: it changes no output): what a checkpoint must have been
    /// written by.
    pub fn fingerprint(&self) -> String {
        let mut hashed = self.clone();
        hashed.output.checkpoint = 0;
        super::fingerprint::fnv1a(&serde_json::to_vec(&hashed).unwrap_or_default())
    }
}
