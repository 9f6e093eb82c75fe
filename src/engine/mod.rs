//! The engines behind one interface: an [`Engine`] runs a [`Job`] — scenes, the Moreau–Jean
//! step and its solver, a number of steps — and returns the scenes' final states and health
//! as one [`BatchOutcome`], whichever engine it is:
//!
//! - [`ReferenceEngine`]: the dense f64 reference [`TimeStepping`](crate::reference::TimeStepping),
//!   one scene per task on all cores, any solver;
//! - [`CpuEngine`]: the batched CPU lanes (`batch::cpu::moreau_jean_pgs`), f64, all cores;
//! - `GpuEngine` (with the `gpu` feature): the WGSL kernel, f32 or f64.
//!
//! The batched engines (CPU, GPU) reduce each scene to its step's operators
//! ([`LinearScene`](crate::batch::LinearScene), or directly its rows of a
//! [`SceneBatch`]) and solve with PGS.

pub mod cpu;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod reference;
mod scene;

use rayon::prelude::*;

pub use crate::batch::BatchOutcome;
use crate::batch::layout::{HAS_NONLINEAR, HAS_STIFFNESS, SPAN_DYNAMICS};
use crate::batch::observe::{self, Observer, Recording, Signal};
use crate::batch::{BatchOptions, Progress, SceneBatch};
use crate::error::{Error, Result};
use crate::numerics::SolverKind;
use crate::scheme::{LagrangianIntegrator, MoreauJeanOSI, Stabilization};
pub use cpu::CpuEngine;
#[cfg(feature = "gpu")]
pub use gpu::GpuEngine;
pub use reference::ReferenceEngine;
pub use scene::{Scene, velocity_name};

/// Why the batched engines (CPU lanes, GPU kernel) cannot run a job with `solver`, the
/// relaxation `omega` and `observers`: they solve with PGS and ω = 1, and refuse anything else
/// rather than run plain PGS silently, and they do not compute the energy (the reference
/// engine does); `None` when they can.
pub fn batched_refusal(solver: SolverKind, omega: Option<f64>, observers: &[Observer]) -> Option<Error> {
    if solver != SolverKind::Pgs {
        return Some(Error::Unsupported {
            what: format!("solver {solver:?}"),
            reason: "the batched engines solve with PGS: use the reference backend for other solvers".into(),
        });
    }
    if let Some(omega) = omega.filter(|&w| w != 1.0) {
        return Some(Error::Unsupported {
            what: format!("relaxation omega = {omega}"),
            reason: "the batched engines run PGS without relaxation (ω = 1): use the reference backend for SOR".into(),
        });
    }
    observers
        .iter()
        .any(|o| o.signal == Signal::Energy)
        .then(|| Error::Unsupported {
            what: "observing the energy".into(),
            reason: "the batched engines do not compute it while stepping: use the reference backend".into(),
        })
}

/// Why a batched engine computing in f64 (`double`) or f32 cannot locate impacts inside the
/// step for a job of `integrator` and `stabilization`: the CPU lanes and the GPU kernel locate
/// them in f64, under Moreau–Jean, without Baumgarte's feedback (β c(q)/h would act over every
/// sub-step, however short). Both refuse some scenes when their batch is built
/// ([`lanes_location_refusal`]). `None` when it can.
pub fn location_refusal(double: bool, integrator: LagrangianIntegrator, stabilization: Stabilization) -> Option<Error> {
    let what = || "locating impacts inside the step (`locate_impacts`)".to_string();
    if !double {
        return Some(crate::batch::f32_location_refusal());
    }
    if integrator != LagrangianIntegrator::MoreauJean {
        return Some(Error::Unsupported {
            what: format!("{} with RATTLE", what()),
            reason: "impacts are located under Moreau–Jean only".into(),
        });
    }
    matches!(stabilization, Stabilization::Baumgarte { .. }).then(|| Error::Unsupported {
        what: format!("{} with Baumgarte stabilisation", what()),
        reason: "its feedback β c(q)/h would act over every sub-step: use none".into(),
    })
}

/// Why the CPU lanes (and the GPU kernel, their twin) cannot locate the impacts of scene
/// `scene`, of header `flags`: with stiffness or damping whose W(τ) = M + θτC + θ²τ²K is not
/// stored ([`SPAN_DYNAMICS`]: kept where M is symmetric positive definite and C, K symmetric
/// positive semi-definite, in linear scenes only: a nonlinear scene's Newton iterates take
/// the grid step's W⁻¹); `None` when they can.
pub fn lanes_location_refusal(scene: usize, flags: u32) -> Option<Error> {
    let reason = if flags & HAS_NONLINEAR != 0 && flags & HAS_STIFFNESS != 0 {
        "it has nonlinear rows and stiffness or damping: a located sub-step's Newton iterates would need W(τ) = M + θτC + θ²τ²K, and the lanes hold the grid step's W"
    } else if flags & HAS_STIFFNESS != 0 && flags & SPAN_DYNAMICS == 0 {
        "a sub-step of length τ needs W(τ) = M + θτC + θ²τ²K, which the lanes invert without pivoting: M must be symmetric positive definite and C, K symmetric positive semi-definite"
    } else {
        return None;
    };
    Some(Error::Unsupported {
        what: format!("locating impacts in scene {scene} on the CPU lanes"),
        reason: format!("{reason}: use the reference backend"),
    })
}

/// A run: `steps` steps of every scene (Moreau–Jean or nonsmooth RATTLE), from its initial
/// state or from `start`.
#[derive(Clone)]
pub struct Job<'a> {
    /// The scenes.
    pub scenes: Vec<&'a dyn Scene>,
    /// The index of `scenes[0]` in its ensemble, by which errors name a scene.
    pub first_scene: usize,
    /// Time step h.
    pub step: f64,
    /// θ, γ and the activation rule.
    pub osi: MoreauJeanOSI,
    /// The integrator of the Lagrangian scenes (Moreau–Jean with `osi`, or RATTLE).
    pub integrator: LagrangianIntegrator,
    /// Locate each impact inside its step (Moreau–Jean on the reference engine, and in f64 on
    /// the CPU lanes and the GPU kernel: [`location_refusal`]).
    pub locate_impacts: bool,
    /// What holds equality rows on their manifold.
    pub stabilization: Stabilization,
    /// The reference engine's solver (the batched engines run PGS).
    pub solver: SolverKind,
    /// Siconos's error tolerance; `None`: the engine's precision's default
    /// ([`Job::tolerance`]).
    pub tolerance: Option<f64>,
    /// PGS sweeps (or pivots) per step.
    pub max_iterations: u32,
    /// Relaxation ω of the reference engine's PGS (SOR; `None`: 1) and Jacobi (`None`:
    /// provably convergent); the batched engines run PGS with ω = 1.
    pub omega: Option<f64>,
    /// (t₀, q and v of every scene in batch layout): start there instead of at t = 0 from the
    /// scenes' initial states.
    pub start: Option<(f64, &'a [f64])>,
    /// Steps to take.
    pub steps: u32,
    /// What to record of every scene while stepping it ([`BatchOutcome::observed`]).
    pub recording: &'a Recording,
    /// Where the engine adds the scene-steps it finishes as it goes.
    pub progress: &'a Progress,
}

impl Job<'_> {
    /// The tolerance for an engine computing in f64 (`double`) or f32: 1e-12 or 1e-6 unless
    /// the job names one.
    pub fn tolerance(&self, double: bool) -> f64 {
        self.tolerance.unwrap_or(if double { 1e-12 } else { 1e-6 })
    }

    /// Where each scene's q, v start in batch layout (as in [`BatchOutcome::state`]), and
    /// their total length.
    pub fn offsets(&self) -> (Vec<usize>, usize) {
        let mut end = 0;
        let offsets = self
            .scenes
            .iter()
            .map(|scene| {
                let at = end;
                end += 2 * scene.dof();
                at
            })
            .collect();
        (offsets, end)
    }

    /// Checks what every engine relies on: a start state of the scenes' size.
    fn check(&self) -> Result<()> {
        if let Some((_, state)) = self.start {
            let (_, len) = self.offsets();
            if state.len() != len {
                return Err(Error::Dimension {
                    what: "Job: start state (q, v of every scene)".into(),
                    expected: len.to_string(),
                    got: state.len().to_string(),
                });
            }
        }
        Ok(())
    }

    /// The batched engines refuse what [`batched_refusal`] refuses, and an engine in f64
    /// (`double`) or f32 what [`location_refusal`] refuses where impacts are located.
    fn check_batched(&self, double: bool) -> Result<()> {
        self.check()?;
        if self.locate_impacts
            && let Some(e) = location_refusal(double, self.integrator, self.stabilization)
        {
            return Err(e);
        }
        batched_refusal(self.solver, self.omega, &self.recording.observers).map_or(Ok(()), Err)
    }

    /// The batched engines' options in f64 (`double`) or f32.
    fn batch_options(&self, double: bool) -> BatchOptions {
        BatchOptions {
            tolerance: self.tolerance(double),
            max_iterations: self.max_iterations,
            locate_impacts: self.locate_impacts,
            first_scene: self.first_scene,
            ..BatchOptions::for_precision(double)
        }
    }

    /// The scenes reduced to their step's operators in one batch (from `start` if given),
    /// after [`Job::check_batched`]; scenes of at least `compress_from` rows stored by
    /// compressed rows where that halves their matrices ([`SceneBatch::compress_from`]).
    /// The scenes are assembled in parts on all cores, then appended in order: the batch is
    /// the one pushing them one by one gives. For an engine in f64 (`double`) or f32; both
    /// refuse located impacts in some scenes ([`lanes_location_refusal`]).
    fn batch(&self, compress_from: usize, double: bool) -> Result<SceneBatch> {
        self.check_batched(double)?;
        let mut empty = match self.integrator {
            LagrangianIntegrator::MoreauJean => SceneBatch::new(self.step, self.osi)?,
            LagrangianIntegrator::Rattle => SceneBatch::rattle(self.step)?,
        };
        empty.compress_from = compress_from;
        empty.sub_steps = self.locate_impacts;
        let part = self.scenes.len().div_ceil(4 * rayon::current_num_threads()).max(1);
        let parts: Vec<SceneBatch> = self
            .scenes
            .par_chunks(part)
            .enumerate()
            .map(|(k, scenes)| {
                let mut batch = empty.clone();
                for (i, scene) in scenes.iter().enumerate() {
                    let index = self.first_scene + k * part + i;
                    scene
                        .push_to(&mut batch, self.stabilization)
                        .map_err(|e| e.in_place(&format!("scene {index}")))?;
                }
                Ok(batch)
            })
            .collect::<Result<_>>()?;
        let mut batch = empty;
        batch.headers.reserve_exact(self.scenes.len());
        batch.state.reserve_exact(parts.iter().map(|p| p.state.len()).sum());
        batch
            .operators
            .reserve_exact(parts.iter().map(|p| p.operators.len()).sum());
        for part in &parts {
            batch.append(part)?;
        }
        if let Some((t0, state)) = self.start {
            batch.t0 = t0;
            batch.state.copy_from_slice(state);
        }
        for (s, h) in batch.headers.iter().enumerate() {
            observe::check(
                &self.recording.observers,
                self.first_scene + s,
                h.ndof as usize,
                h.ncontacts as usize,
            )?;
            if self.locate_impacts
                && let Some(e) = lanes_location_refusal(self.first_scene + s, h.flags)
            {
                return Err(e);
            }
            let first = batch.headers[0];
            let len = |h: &crate::batch::SceneHeader| self.recording.len(h.ndof as usize, h.ncontacts as usize);
            if len(h) != len(&first) {
                return Err(Error::Unsupported {
                    what: format!(
                        "recording scene {} beside scene {} (samples or events of another size)",
                        self.first_scene + s,
                        self.first_scene
                    ),
                    reason: "the batched engines keep records of one length: run scenes of one size together".into(),
                });
            }
        }
        batch.recording = self.recording.clone();
        Ok(batch)
    }
}

/// One engine: runs jobs.
pub trait Engine {
    /// `reference`, `cpu` or `gpu`.
    fn name(&self) -> &'static str;

    /// One line naming the engine, e.g. `gpu NVIDIA H100 (Vulkan) F64`.
    fn describe(&self) -> String;

    /// Whether it computes in f64 (else f32).
    fn double(&self) -> bool;

    /// The adapter's driver and its version, where the engine runs on one (`bench` records it).
    fn driver(&self) -> Option<String> {
        None
    }

    /// The kernel's launch (`workgroup=64,steps=1000`), where the engine runs on an adapter
    /// (`bench` records it).
    fn tuning(&self) -> Option<String> {
        None
    }

    /// Runs `job`: the final q, v of every scene (batch layout) and each scene's health.
    fn run(&self, job: &Job<'_>) -> Result<BatchOutcome>;

    /// How many scenes like those of `example` (a job of one scene) to hand it per run to
    /// keep it busy: by default [`SCENES_IN_FLIGHT`], which all cores step at full speed while
    /// the host memory of a chunk stays small.
    fn scenes_in_flight(&self, example: &Job<'_>) -> Result<usize> {
        example.check()?;
        Ok(SCENES_IN_FLIGHT)
    }
}

/// The scenes per run of the CPU engines and of a GPU on a CPU adapter: 2¹⁶.
pub const SCENES_IN_FLIGHT: usize = 1 << 16;
