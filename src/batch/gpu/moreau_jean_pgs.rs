//! Runs a [`SceneBatch`] on the device: the batch is split into chunks that fit the
//! adapter's binding limit; each chunk is uploaded once, stepped by dispatches recorded into
//! one command buffer (the time loop runs inside the kernel, `params.steps` steps per
//! dispatch), and only its final state and health are read back.

use super::shaders::{self, KernelSizes};
use super::{GpuContext, Precision};
use crate::batch::BatchOutcome;
use crate::batch::SceneBatch;
use crate::batch::layout::{HAS_NONLINEAR, SPAN_DYNAMICS, SPARSE, SceneHeader};
use crate::batch::observe::{Recording, Signal};
use crate::batch::{BatchOptions, Progress};
use crate::error::{Error, Result};
use crate::scheme::LagrangianIntegrator;

mod chunk;

use chunk::run_chunk;

/// Loop iterations one invocation may run per dispatch on a CPU adapter. Lavapipe's loop
/// limiter (65 535 iterations per invocation, all loops together) silently cuts longer
/// kernels short, so on CPU adapters long runs are cut into dispatches of about this much
/// work. On every adapter each scene's completed step count and the kernel's probe of the
/// limiter ([`CUT_SHORT`](crate::batch::layout::CUT_SHORT)) are checked after a run; a chunk that stopped early is run again
/// from its initial state with half as many steps per dispatch.
pub const CPU_ADAPTER_LOOP_BUDGET: u32 = 30_000;

/// At most this many submissions of dispatches per chunk, each reported when done (fewer
/// when the chunk has fewer dispatches: 2000 steps at 1000 per dispatch make two).
const SUBMISSIONS: usize = 16;
/// The largest scene (degrees of freedom, contacts) the scene-parallel kernel takes: its
/// state and scratch live in private arrays of one invocation.
pub const MAX_SCENE_SIZE: (usize, usize) = (64, 64);

/// How many times a plain step's loop iterations a located step is counted for lavapipe's
/// loop limiter ([`CPU_ADAPTER_LOOP_BUDGET`]): most steps are a plain one, a step with an
/// impact a few trials, its refinement and the impact.
const LOCATED_COST: u32 = 4;

/// One dispatch (the kernel's uniform `params`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Params {
    /// Scenes in the chunk.
    pub scenes: u32,
    /// Steps per invocation.
    pub steps: u32,
    /// 1 for a packed batch; the number of scenes for an interleaved one.
    pub stride: u32,
    /// 2: the trip count of the kernel's loop-limiter probe (its [`CUT_SHORT`](crate::batch::layout::CUT_SHORT) flag).
    pub probe: u32,
    /// 0, which the compiler cannot see: x + 0 is +0 for a −0 x (a constant 0 it would fold).
    pub zero: u32,
}

/// The storage buffers the kernel binds (bindings 1 to 10 of `shaders/common.wgsl`; the
/// 10th, the located record, in a kernel that locates impacts).
pub const STORAGE_BINDINGS: u32 = 10;

/// The kernel for one precision, compiled for each scene size it meets (private arrays of
/// a power of two ≥ 4 entries) and kept; build once, run many batches.
pub struct BatchKernel {
    precision: Precision,
    pipelines: std::sync::Mutex<std::collections::HashMap<KernelSizes, std::sync::Arc<wgpu::ComputePipeline>>>,
}

impl BatchKernel {
    /// A kernel in `precision`; fails when the adapter lacks f64 or binds fewer than the
    /// kernel's [`STORAGE_BINDINGS`] storage buffers.
    pub fn new(ctx: &GpuContext, precision: Precision) -> Result<Self> {
        if ctx.storage_buffers_per_stage() < STORAGE_BINDINGS {
            return Err(Error::Unsupported {
                what: ctx.adapter_name(),
                reason: format!(
                    "binds {} storage buffers per shader stage; the batched kernel needs {STORAGE_BINDINGS}",
                    ctx.storage_buffers_per_stage()
                ),
            });
        }
        ctx.check_precision(precision)?;
        Ok(Self {
            precision,
            pipelines: Default::default(),
        })
    }

    /// The kernel's sizes for `batch`: private arrays of a power of two ≥ 4 entries, fixed
    /// sizes when every scene has the same; impacts located when `locate`.
    fn sizes(ctx: &GpuContext, batch: &SceneBatch, locate: bool) -> KernelSizes {
        let (n, m) = batch.max_sizes();
        let uniform = batch
            .headers
            .windows(2)
            .all(|w| (w[0].ndof, w[0].ncontacts) == (w[1].ndof, w[1].ncontacts));
        KernelSizes {
            max_dof: n.next_power_of_two().max(4),
            max_contacts: m.next_power_of_two().max(4),
            fixed_dof: if uniform { n } else { 0 },
            fixed_contacts: if uniform { m } else { 0 },
            max_operators: batch
                .headers
                .iter()
                .map(|h| h.operators())
                .max()
                .unwrap_or(1)
                .next_power_of_two(),
            nonlinear: batch.headers.iter().any(|h| h.flags & HAS_NONLINEAR != 0),
            rattle: batch.integrator == LagrangianIntegrator::Rattle,
            compressed: batch.headers.iter().any(|h| h.flags & SPARSE != 0),
            observers: batch.recording.observers.len(),
            strobe: batch
                .recording
                .strobe
                .map_or((0, 1, 0), |s| (s.first, s.every, s.count)),
            record: batch
                .headers
                .first()
                .map_or(0, |h| batch.recording.len(h.ndof as usize, h.ncontacts as usize)),
            events: batch.recording.events.unwrap_or(0),
            events_at: batch
                .headers
                .first()
                .map_or(0, |h| batch.recording.events_at(h.ndof as usize)),
            workgroup: ctx.tuning().workgroup_size,
            locate,
            span_operators: locate && batch.headers.iter().any(|h| h.flags & SPAN_DYNAMICS != 0),
        }
    }

    /// The pipeline for the sizes `key`, compiled on first use.
    fn pipeline(&self, ctx: &GpuContext, key: KernelSizes) -> Result<std::sync::Arc<wgpu::ComputePipeline>> {
        let mut pipelines = self
            .pipelines
            .lock()
            .map_err(|_| Error::Gpu("kernel cache poisoned".into()))?;
        if let Some(pipeline) = pipelines.get(&key) {
            return Ok(pipeline.clone());
        }
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = ctx.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("moreau_jean_pgs"),
            source: wgpu::ShaderSource::Wgsl(shaders::moreau_jean_pgs(self.precision, key).into()),
        });
        let pipeline = ctx.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("moreau_jean_pgs"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("the kernel does not compile: {error}")));
        }
        let pipeline = std::sync::Arc::new(pipeline);
        pipelines.insert(key, pipeline.clone());
        Ok(pipeline)
    }

    /// Steps every scene of `batch` `steps` times, adding the scene-steps done to `progress`
    /// as the device finishes them; `batch` is left as it was.
    pub fn run(
        &self,
        ctx: &GpuContext,
        batch: &SceneBatch,
        (steps, progress): (u32, &Progress),
        options: &BatchOptions,
    ) -> Result<BatchOutcome> {
        let precision = self.precision;
        let (n_max, m_max) = MAX_SCENE_SIZE;
        if let Some((s, h)) = batch
            .headers
            .iter()
            .enumerate()
            .find(|(_, h)| h.ndof as usize > n_max || h.ncontacts as usize > m_max)
        {
            return Err(Error::Unsupported {
                what: format!(
                    "scene {} ({} dof, {} contacts)",
                    options.first_scene + s,
                    h.ndof,
                    h.ncontacts
                ),
                reason: format!("the scene-parallel kernel takes at most {n_max} dof and {m_max} contacts per scene"),
            });
        }
        if options.locate_impacts && precision != Precision::F64 {
            return Err(crate::batch::f32_location_refusal());
        }
        let sizes = Self::sizes(ctx, batch, options.locate_impacts);
        let pipeline = self.pipeline(ctx, sizes)?;
        let max_bytes = usize::try_from(ctx.max_binding_bytes()).unwrap_or(usize::MAX);
        let mut outcome = BatchOutcome {
            state: Vec::new(),
            counters: Vec::new(),
            extremes: Vec::new(),
            observed: Vec::new(),
            impact_times: Vec::new(),
            device_seconds: ctx.has_timestamps().then_some(0.0),
        };
        for range in batch.chunks(max_bytes, precision.size())? {
            let chunk = batch.slice(range.clone());
            let cost = chunk
                .headers
                .iter()
                .map(|h| h.cost_per_step() + observe_cost(&chunk.recording, h))
                .max()
                .unwrap_or(1)
                .max(1)
                // (A located step whose grid step does not stand takes a few sub-steps.)
                * if sizes.locate { LOCATED_COST } else { 1 };
            let tuned = ctx.tuning().steps_per_dispatch;
            let mut per_dispatch = if ctx.is_cpu() {
                tuned.min(CPU_ADAPTER_LOOP_BUDGET / cost)
            } else {
                tuned
            };
            per_dispatch = per_dispatch.max(1);
            let part = loop {
                match run_chunk(
                    ctx,
                    (&pipeline, sizes.located_len()),
                    &chunk,
                    precision,
                    (steps, progress),
                    per_dispatch,
                    options,
                )? {
                    Ok(part) => break part,
                    Err(_) if per_dispatch > 1 => per_dispatch /= 2,
                    // One step needs more loop iterations than lavapipe's limiter lets an
                    // invocation run (a slow PGS solve over many rows, or many impacts
                    // located in one step): not a GPU's limit.
                    Err(cut) if ctx.is_cpu() => {
                        let scene = options.first_scene + range.start + cut.scene;
                        let t = batch.t0 + f64::from(cut.steps) * batch.h;
                        return Err(Error::Unsupported {
                            what: format!("scene {scene} on the CPU adapter {}", ctx.adapter_name()),
                            reason: format!(
                                "its step from t = {t} s needs more than the 65 535 loop iterations \
                                 the adapter's loop limiter lets a kernel run (many rows and PGS \
                                 sweeps, or many impacts located in one step); run it on \
                                 --backend cpu or a hardware GPU"
                            ),
                        });
                    }
                    Err(_) => {
                        return Err(Error::Gpu(
                            "the kernel stops early even at one step per dispatch".into(),
                        ));
                    }
                }
            };
            outcome.state.extend(part.state);
            outcome.counters.extend(part.counters);
            outcome.extremes.extend(part.extremes);
            outcome.observed.extend(part.observed);
            outcome.impact_times.extend(part.impact_times);
            outcome.device_seconds = outcome.device_seconds.zip(part.device_seconds).map(|(a, b)| a + b);
        }
        Ok(outcome)
    }
}

/// Loop iterations of the observe stage per step (as [`SceneHeader::cost_per_step`] counts
/// them): one per observer, a row's outputs for each observed output or rate, a copy of the
/// state at a stroboscopic step.
fn observe_cost(recording: &Recording, h: &SceneHeader) -> u32 {
    let observers = &recording.observers;
    let rows = observers
        .iter()
        .filter(|o| matches!(o.signal, Signal::Y(_) | Signal::Ydot(_)))
        .count() as u32;
    let strobe = if recording.strobe.is_some() { h.ndof } else { 0 };
    let events = if recording.events.is_some() {
        h.ncontacts * (2 + h.ndof)
    } else {
        0
    };
    observers.len() as u32 + rows * (1 + h.ndof) + strobe + events
}

/// Steps every scene of `batch` `steps` times on the device in `precision` (compiles the
/// kernel; use [`BatchKernel`] to run many batches).
pub fn run_batch(
    ctx: &GpuContext,
    batch: &SceneBatch,
    precision: Precision,
    steps: u32,
    options: &BatchOptions,
) -> Result<BatchOutcome> {
    BatchKernel::new(ctx, precision)?.run(ctx, batch, (steps, &Progress::new()), options)
}
