//! `ricochet tune`: the scene-parallel kernel's launch for this machine's GPU, chosen by a
//! short timed probe — a batch of bouncing balls stepped under each launch the adapter
//! takes (every workgroup size of [`WORKGROUP_SIZES`] × [`STEPS_PER_DISPATCH`]) — and kept
//! in the tuning cache ([`Tuning::store`]), which every later run on that adapter and
//! driver reads. The launch changes no result, only the speed.

use std::path::PathBuf;

use crate::batch::gpu::tuning::WORKGROUP_SIZES;
use crate::batch::gpu::{BatchKernel, GpuContext, Precision, Tuning};
use crate::batch::{BatchOptions, LinearScene, Progress, SceneBatch};
use crate::error::Result;
use crate::reference::Stabilization;
use crate::scenes::bouncing_ball::BouncingBall;
use crate::scheme::moreau_jean::MoreauJeanOSI;

/// The steps per dispatch a probe tries.
pub const STEPS_PER_DISPATCH: [u32; 3] = [250, 1000, 4000];

/// The time step of the probe's balls (s).
const H: f64 = 1e-3;

/// One launch tried, with its best time.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Trial {
    /// Invocations per workgroup.
    pub workgroup: u32,
    /// Steps per dispatch.
    pub steps_per_dispatch: u32,
    /// The best of the timed runs (s).
    pub seconds: f64,
    /// scenes × steps / seconds.
    pub scene_steps_per_second: f64,
}

/// What a probe found: the adapter, every launch tried, the fastest, where it is kept.
#[derive(Clone, Debug)]
pub struct Tuned {
    /// The adapter's cache key (name, backend, driver).
    pub adapter: String,
    /// Every launch tried, in the order tried.
    pub trials: Vec<Trial>,
    /// The fastest.
    pub chosen: Tuning,
    /// The cache file that now holds it.
    pub cache: PathBuf,
}

/// Times `scenes` balls (default 2¹⁶, 2048 on a CPU adapter) × `steps` steps under each
/// launch the adapter takes (each run once untimed, which compiles it, then `repeat`
/// times), in f64 where the adapter has it, and keeps the fastest in the cache for this
/// adapter.
pub fn tune(scenes: Option<usize>, steps: u32, repeat: usize) -> Result<Tuned> {
    let mut ctx = GpuContext::new()?;
    let scenes = scenes.unwrap_or(if ctx.is_cpu() { 2048 } else { 1 << 16 }).max(1);
    let double = ctx.supports_f64();
    let precision = if double { Precision::F64 } else { Precision::F32 };
    let mut batch = SceneBatch::new(H, MoreauJeanOSI::default())?;
    for k in 0..scenes {
        // Drop heights spread over [1, 2) m: the balls bounce out of step.
        let ball = BouncingBall {
            height: 1.0 + (k % 97) as f64 / 97.0,
            step: H,
            ..Default::default()
        };
        batch.push(&LinearScene::from_nsds(&ball.nsds()?, H, 0.5, Stabilization::None)?)?;
    }
    let kernel = BatchKernel::new(&ctx, precision)?;
    let options = BatchOptions::for_precision(double);
    let most = ctx.max_workgroup_size();
    let mut trials = Vec::new();
    for workgroup in WORKGROUP_SIZES.into_iter().filter(|&w| w <= most) {
        for steps_per_dispatch in STEPS_PER_DISPATCH {
            ctx.set_tuning(Tuning {
                workgroup_size: workgroup,
                steps_per_dispatch,
            })?;
            let mut best = f64::INFINITY;
            for run in 0..=repeat.max(1) {
                let started = std::time::Instant::now();
                kernel.run(&ctx, &batch, (steps, &Progress::new()), &options)?;
                if run > 0 {
                    best = best.min(started.elapsed().as_secs_f64());
                }
            }
            trials.push(Trial {
                workgroup,
                steps_per_dispatch,
                seconds: best,
                scene_steps_per_second: scenes as f64 * f64::from(steps) / best,
            });
        }
    }
    let fastest = trials
        .iter()
        .min_by(|a, b| a.seconds.total_cmp(&b.seconds))
        .expect("a workgroup of 32 fits every adapter");
    let chosen = Tuning {
        workgroup_size: fastest.workgroup,
        steps_per_dispatch: fastest.steps_per_dispatch,
    };
    let adapter = ctx.key();
    let cache = chosen.store(&adapter)?;
    Ok(Tuned {
        adapter,
        trials,
        chosen,
        cache,
    })
}
