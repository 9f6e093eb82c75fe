//! Which engine an ensemble runs on ([`Backend`], [`open`]), and the [`Job`] of a chunk of
//! its scenes.

use super::scenario::PrecisionChoice;
use super::scenario::Scenario;
use super::scene_spec::SampledScene;
#[cfg(feature = "gpu")]
use crate::batch::gpu::{GpuContext, Precision};
use crate::batch::observe::{Observer, Recording};
use crate::batch::progress::UNWATCHED;
#[cfg(feature = "gpu")]
use crate::engine::GpuEngine;
use crate::engine::{
    CpuEngine, Engine, Job, ReferenceEngine, batched_refusal, lanes_location_refusal, location_refusal,
};
use crate::error::{Error, Result};

/// Where to run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// A hardware GPU if there is one, else the CPU (with a notice).
    #[default]
    Auto,
    /// The GPU kernels on the best adapter (software adapters included).
    Gpu,
    /// The batched CPU stepper in f64 on all cores.
    Cpu,
    /// The dense f64 reference stepper, one scene per task on all cores (any solver).
    Reference,
}

impl Backend {
    /// Every backend, in the order the command line lists them.
    pub const ALL: [Backend; 4] = [Self::Auto, Self::Gpu, Self::Cpu, Self::Reference];

    /// Its name on the command line and in files: `auto`, `gpu`, `cpu`, `reference`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Gpu => "gpu",
            Self::Cpu => "cpu",
            Self::Reference => "reference",
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Backend {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| Error::Scenario {
                what: format!("backend `{s}`"),
                reason: "expected auto, gpu, cpu or reference".into(),
            })
    }
}

/// Opens `backend` for `scenario`, and says why when `Auto` did not take the GPU.
pub fn open(backend: Backend, scenario: &Scenario) -> Result<(Box<dyn Engine>, Option<String>)> {
    open_planned(backend, scenario, &scenario.observers()?)
}

/// [`open`] for a scenario whose observers are known (from its plan).
pub(super) fn open_planned(
    backend: Backend,
    scenario: &Scenario,
    observers: &[Observer],
) -> Result<(Box<dyn Engine>, Option<String>)> {
    let reference = || -> Box<dyn Engine> { Box::new(ReferenceEngine) };
    // What keeps the scenario off the batched engines: its solver settings, its observers,
    // then its scenes.
    let refused =
        batched_refusal(scenario.solver.kind, scenario.solver.omega, observers).or_else(|| unbatchable(scenario));
    // Impacts located: on the CPU lanes and the GPU kernel in f64 (or the reference stepper).
    let located = scenario.time.locate_impacts;
    let (integrator, stabilization) = (scenario.time.integrator, scenario.stabilization());
    let lanes_refused = if located {
        location_refusal(true, integrator, stabilization).or_else(|| unlocatable(scenario))
    } else {
        None
    };
    let refused = refused.or(lanes_refused);
    let single = scenario.solver.precision == PrecisionChoice::F32;
    match backend {
        Backend::Gpu | Backend::Cpu if let Some(e) = refused => Err(e),
        Backend::Gpu if let Some(e) = location_refusal(!single, integrator, stabilization).filter(|_| located) => {
            Err(e)
        }
        Backend::Gpu => Ok((open_gpu(scenario)?, None)),
        Backend::Cpu => Ok((Box::new(CpuEngine::requested()?), None)),
        Backend::Reference => Ok((reference(), None)),
        Backend::Auto if let Some(e) = refused => {
            Ok((reference(), Some(format!("{e}: running on the reference stepper"))))
        }
        Backend::Auto => auto(scenario),
    }
}

/// The job of running `scenes` of `scenario` for `steps` steps (from `start` if given),
/// recording `recording`.
pub fn job<'a>(
    scenario: &Scenario,
    scenes: &'a [SampledScene],
    start: Option<(f64, &'a [f64])>,
    steps: u32,
    recording: &'a Recording,
) -> Job<'a> {
    Job {
        scenes: scenes.iter().map(|s| s.scene.as_ref()).collect(),
        first_scene: scenes.first().map_or(0, |s| s.index),
        step: scenario.time.step,
        osi: scenario.osi(),
        integrator: scenario.time.integrator,
        locate_impacts: scenario.time.locate_impacts,
        stabilization: scenario.stabilization(),
        solver: scenario.solver.kind,
        tolerance: scenario.solver.tolerance,
        max_iterations: scenario.solver.max_iterations,
        omega: scenario.solver.omega,
        start,
        steps,
        recording,
        progress: &UNWATCHED,
    }
}

/// The GPU kernel on the best adapter, in the scenario's precision (f64 where the adapter
/// has it when `auto`).
#[cfg(feature = "gpu")]
fn open_gpu(scenario: &Scenario) -> Result<Box<dyn Engine>> {
    gpu(GpuContext::new()?, scenario)
}

#[cfg(feature = "gpu")]
fn gpu(ctx: GpuContext, scenario: &Scenario) -> Result<Box<dyn Engine>> {
    let precision = match scenario.solver.precision {
        PrecisionChoice::F32 => Some(Precision::F32),
        PrecisionChoice::F64 => Some(Precision::F64),
        PrecisionChoice::Auto => None,
    };
    Ok(Box::new(GpuEngine::new(ctx, precision)?))
}

/// A hardware GPU, else the CPU engine and why.
#[cfg(feature = "gpu")]
fn auto(scenario: &Scenario) -> Result<(Box<dyn Engine>, Option<String>)> {
    match GpuContext::new() {
        // Impacts are located in f64 only.
        Ok(ctx)
            if scenario.time.locate_impacts
                && (ctx.best_precision() != Precision::F64 || scenario.solver.precision == PrecisionChoice::F32) =>
        {
            Ok((
                Box::new(CpuEngine::requested()?),
                Some(format!(
                    "impacts are located in f64 and {} runs this scenario in f32: locating them on the CPU backend",
                    ctx.adapter_name()
                )),
            ))
        }
        Ok(ctx) if !ctx.is_cpu() => Ok((gpu(ctx, scenario)?, None)),
        Ok(ctx) => Ok((
            Box::new(CpuEngine::requested()?),
            Some(format!(
                "only a software adapter ({}): running on the CPU backend (--backend gpu to use it)",
                ctx.adapter_name()
            )),
        )),
        // A bad RICOCHET_GPU_TUNING is the user's to fix, not a missing GPU.
        Err(e @ Error::Argument { .. }) => Err(e),
        Err(e) => Ok((
            Box::new(CpuEngine::requested()?),
            Some(format!("{e}: running on the CPU backend")),
        )),
    }
}

#[cfg(not(feature = "gpu"))]
fn open_gpu(_: &Scenario) -> Result<Box<dyn Engine>> {
    Err(no_gpu_feature())
}

#[cfg(not(feature = "gpu"))]
fn auto(_: &Scenario) -> Result<(Box<dyn Engine>, Option<String>)> {
    Ok((
        Box::new(CpuEngine::requested()?),
        Some(format!("{}: running on the CPU backend", no_gpu_feature())),
    ))
}

/// The error of a GPU request in a build without the `gpu` feature.
#[cfg(not(feature = "gpu"))]
fn no_gpu_feature() -> Error {
    Error::Unsupported {
        what: "the GPU backend".into(),
        reason: "this build of ricochet has no `gpu` feature (cargo build --features gpu)".into(),
    }
}

/// Why the CPU lanes cannot locate the impacts of the scenario's scenes (judged on scene 0),
/// as the engine refuses them when it builds the batch ([`lanes_location_refusal`]).
fn unlocatable(scenario: &Scenario) -> Option<Error> {
    let scene = scenario.sample(0).ok()?;
    let linear = scene
        .scene
        .linear(scenario.time.step, scenario.time.theta, scenario.stabilization())
        .ok()?;
    lanes_location_refusal(0, linear.header_flags(true))
}

/// Why the batched engines cannot run the scenario's scenes (judged on scene 0), if they cannot.
fn unbatchable(scenario: &Scenario) -> Option<Error> {
    let scene = scenario.sample(0).ok()?;
    match scene
        .scene
        .linear(scenario.time.step, scenario.time.theta, scenario.stabilization())
    {
        Err(e @ Error::Unsupported { .. }) => Some(e.in_place("scene 0")),
        _ => None,
    }
}
