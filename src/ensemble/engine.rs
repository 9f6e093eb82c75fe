//! The backends an ensemble runs on, behind one interface: scenes in, final states and
//! per-scene health out.

use rayon::prelude::*;

#[cfg(feature = "gpu")]
use super::scenario::PrecisionChoice;
use super::scenario::Scenario;
use super::template::SampledScene;
use crate::batch::cpu::moreau_jean_pgs::{self, BatchState};
#[cfg(feature = "gpu")]
use crate::batch::gpu::{BatchKernel, GpuContext, Precision};
use crate::batch::layout::{HealthCounters, NON_FINITE, NOT_CONVERGED};
use crate::batch::{BatchOptions, BatchOutcome};
use crate::batch::{LinearScene, SceneBatch};
use crate::error::{Error, Result};
use crate::numerics::SolverOptions;
use crate::reference::{Integrator, TimeStepping};

/// Where to run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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

impl std::str::FromStr for Backend {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Self::Auto),
            "gpu" => Ok(Self::Gpu),
            "cpu" => Ok(Self::Cpu),
            "reference" => Ok(Self::Reference),
            _ => Err(Error::Scenario {
                what: format!("backend `{s}`"),
                reason: "expected auto, gpu, cpu or reference".into(),
            }),
        }
    }
}

/// An opened backend.
pub enum Engine {
    /// The scene-parallel GPU kernel.
    #[cfg(feature = "gpu")]
    Gpu {
        /// The device.
        ctx: Box<GpuContext>,
        /// The compiled kernel.
        kernel: BatchKernel,
        /// Its precision.
        precision: Precision,
    },
    /// [`batch::run`] in f64 on all cores.
    Cpu,
    /// [`TimeStepping`] per scene.
    Reference,
}

impl Engine {
    /// Opens `backend` for `scenario`, and says why when `Auto` did not take the GPU.
    pub fn open(backend: Backend, scenario: &Scenario) -> Result<(Self, Option<String>)> {
        let batched = scenario.solver.kind == super::scenario::SolverName::Pgs;
        match backend {
            Backend::Gpu | Backend::Cpu if !batched => Err(Error::Unsupported {
                what: format!("solver {:?}", scenario.solver.kind),
                reason: "the batched engines solve with PGS: use --backend reference for other solvers".into(),
            }),
            Backend::Gpu | Backend::Cpu if let Some(e) = unbatchable(scenario) => Err(e),
            Backend::Gpu => Ok((Self::open_gpu(scenario)?, None)),
            Backend::Cpu => Ok((Self::Cpu, None)),
            Backend::Reference => Ok((Self::Reference, None)),
            Backend::Auto if let Some(e) = unbatchable(scenario) => {
                Ok((Self::Reference, Some(format!("{e}: running on the reference stepper"))))
            }
            Backend::Auto if !batched => Ok((
                Self::Reference,
                Some(format!(
                    "solver {:?} runs on the reference stepper",
                    scenario.solver.kind
                )),
            )),
            Backend::Auto => Self::auto(scenario),
        }
    }

    /// The GPU kernel on the best adapter, in the scenario's precision (f64 where the adapter
    /// has it when `auto`).
    #[cfg(feature = "gpu")]
    fn open_gpu(scenario: &Scenario) -> Result<Self> {
        Self::gpu(GpuContext::new()?, scenario)
    }

    #[cfg(feature = "gpu")]
    fn gpu(ctx: GpuContext, scenario: &Scenario) -> Result<Self> {
        let precision = match scenario.solver.precision {
            PrecisionChoice::F32 => Precision::F32,
            PrecisionChoice::F64 => Precision::F64,
            PrecisionChoice::Auto if ctx.supports_f64() => Precision::F64,
            PrecisionChoice::Auto => Precision::F32,
        };
        let kernel = BatchKernel::new(&ctx, precision)?;
        Ok(Self::Gpu {
            ctx: Box::new(ctx),
            kernel,
            precision,
        })
    }

    /// A hardware GPU, else the CPU backend and why.
    #[cfg(feature = "gpu")]
    fn auto(scenario: &Scenario) -> Result<(Self, Option<String>)> {
        match GpuContext::new() {
            Ok(ctx) if !ctx.is_cpu() => Ok((Self::gpu(ctx, scenario)?, None)),
            Ok(ctx) => Ok((
                Self::Cpu,
                Some(format!(
                    "only a software adapter ({}): running on the CPU backend (--backend gpu to use it)",
                    ctx.adapter_name()
                )),
            )),
            Err(e) => Ok((Self::Cpu, Some(format!("{e}: running on the CPU backend")))),
        }
    }

    #[cfg(not(feature = "gpu"))]
    fn open_gpu(_: &Scenario) -> Result<Self> {
        Err(no_gpu_feature())
    }

    #[cfg(not(feature = "gpu"))]
    fn auto(_: &Scenario) -> Result<(Self, Option<String>)> {
        Ok((
            Self::Cpu,
            Some(format!("{}: running on the CPU backend", no_gpu_feature())),
        ))
    }

    /// One line naming the backend, e.g. `gpu NVIDIA H100 (Vulkan) f64`.
    pub fn describe(&self) -> String {
        match self {
            #[cfg(feature = "gpu")]
            Self::Gpu { ctx, precision, .. } => format!("gpu {} {precision:?}", ctx.adapter_name()),
            Self::Cpu => format!("cpu {} threads f64", rayon::current_num_threads()),
            Self::Reference => format!("reference {} threads f64", rayon::current_num_threads()),
        }
    }

    /// Short name: gpu, cpu or reference.
    pub fn name(&self) -> &'static str {
        match self {
            #[cfg(feature = "gpu")]
            Self::Gpu { .. } => "gpu",
            Self::Cpu => "cpu",
            Self::Reference => "reference",
        }
    }

    fn batch_options(&self, scenario: &Scenario) -> BatchOptions {
        #[cfg(feature = "gpu")]
        let double = !matches!(
            self,
            Self::Gpu {
                precision: Precision::F32,
                ..
            }
        );
        #[cfg(not(feature = "gpu"))]
        let double = true;
        BatchOptions {
            tolerance: scenario.solver.tolerance(double),
            max_iterations: scenario.solver.max_iterations,
            ..BatchOptions::for_precision(double)
        }
    }

    /// Steps `scenes` from their initial states `steps` times (`start` = (t₀, state): starts
    /// at time t₀ from q, v of every scene in batch layout instead).
    pub fn run(
        &self,
        scenario: &Scenario,
        scenes: &[SampledScene],
        start: Option<(f64, &[f64])>,
        steps: u32,
    ) -> Result<BatchOutcome> {
        if let Self::Reference = self {
            return reference(scenario, scenes, start, steps);
        }
        let (h, theta) = (scenario.time.step, scenario.time.theta);
        let linear: Vec<LinearScene> = scenes
            .par_iter()
            .map(|s| LinearScene::from_nsds(&s.nsds, h, theta, scenario.stabilization()))
            .collect::<Result<_>>()?;
        let mut batch = SceneBatch::new(h, scenario.osi())?;
        for scene in &linear {
            batch.push(scene)?;
        }
        if let Some((t0, state)) = start {
            batch.t0 = t0;
            batch.state.copy_from_slice(state);
        }
        let options = self.batch_options(scenario);
        match self {
            #[cfg(feature = "gpu")]
            Self::Gpu { ctx, kernel, .. } => kernel.run(ctx, &batch, steps, &options),
            _ => {
                let mut st = BatchState::<f64>::new(&batch);
                moreau_jean_pgs::run(&batch, &batch.operators, &mut st, steps, &options);
                Ok(BatchOutcome {
                    state: st.state,
                    counters: st.counters,
                    extremes: st.extremes,
                    device_seconds: None,
                })
            }
        }
    }
}

/// The error of a GPU request in a build without the `gpu` feature.
#[cfg(not(feature = "gpu"))]
fn no_gpu_feature() -> Error {
    Error::Unsupported {
        what: "the GPU backend".into(),
        reason: "this build of ricochet has no `gpu` feature (cargo build --features gpu)".into(),
    }
}

/// Why the batched engines cannot run the scenario's scenes (judged on scene 0), if they cannot.
fn unbatchable(scenario: &Scenario) -> Option<Error> {
    let scene = scenario.sample(0).ok()?;
    match LinearScene::from_nsds(
        &scene.nsds,
        scenario.time.step,
        scenario.time.theta,
        scenario.stabilization(),
    ) {
        Err(e @ Error::Unsupported { .. }) => Some(e),
        _ => None,
    }
}

/// The reference stepper on each scene (in parallel), with the batch engines' health.
fn reference(
    scenario: &Scenario,
    scenes: &[SampledScene],
    start: Option<(f64, &[f64])>,
    steps: u32,
) -> Result<BatchOutcome> {
    let per_scene: Vec<(Vec<f64>, HealthCounters, [f64; 2])> = scenes
        .par_iter()
        .enumerate()
        .map(|(k, scene)| {
            let nsds = scenario.sample(scene.index)?.nsds;
            let n: usize = nsds.systems().map(|(_, ds)| ds.dimension()).sum();
            // Impacts and penetration are counted on contact rows, not on equalities.
            let equality = nsds.equality_rows();
            let t0 = start.map_or(0.0, |(t0, _)| t0);
            let mut sim = TimeStepping::new(nsds, Integrator::MoreauJean(scenario.osi()), t0, scenario.time.step)?;
            sim.stabilization = scenario.stabilization();
            if let Some((_, state)) = start {
                sim.set_state(&state[2 * n * k..2 * n * (k + 1)])?;
            }
            sim.solver = scenario.solver.kind();
            sim.solver_options = SolverOptions {
                tolerance: scenario.solver.tolerance(true),
                max_iterations: scenario.solver.max_iterations as usize,
                omega: scenario.solver.omega,
                warm_start: false,
            };
            let mut counters = HealthCounters::default();
            let mut extremes = [f64::MIN; 2];
            for _ in 0..steps {
                let sample = sim.sample()?;
                if let Some(y) = sample
                    .y
                    .iter()
                    .zip(&equality)
                    .filter(|(_, eq)| !**eq)
                    .map(|(&y, _)| -y)
                    .reduce(f64::max)
                {
                    extremes[1] = extremes[1].max(y);
                }
                if let Err(e) = sim.step() {
                    if let Error::NotConverged {
                        residual, iterations, ..
                    } = e
                    {
                        counters.flags |= NOT_CONVERGED;
                        extremes[0] = extremes[0].max(residual);
                        counters.max_iterations = counters.max_iterations.max(iterations as u32);
                    } else {
                        counters.flags |= NON_FINITE;
                    }
                    break;
                }
                if let Some(lcp) = sim.last_report().lcp {
                    extremes[0] = extremes[0].max(lcp.residual);
                    counters.max_iterations = counters.max_iterations.max(lcp.iterations as u32);
                }
                counters.record_contact(sim.lambda().iter().zip(&equality).any(|(&l, &eq)| !eq && l > 0.0));
            }
            let sample = sim.sample()?;
            let state: Vec<f64> = sample.q.iter().chain(sample.v.iter()).copied().collect();
            if !state.iter().all(|x| x.is_finite()) {
                counters.flags |= NON_FINITE;
            }
            Ok((state, counters, extremes))
        })
        .collect::<Result<_>>()?;
    let mut outcome = BatchOutcome {
        state: Vec::new(),
        counters: Vec::new(),
        extremes: Vec::new(),
        device_seconds: None,
    };
    for (state, counters, extremes) in per_scene {
        outcome.state.extend(state);
        outcome.counters.push(counters);
        outcome.extremes.extend(extremes);
    }
    Ok(outcome)
}
