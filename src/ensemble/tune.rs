//! `ricochet tune`: the scene-parallel kernel's launch for this machine's GPU, chosen by a
//! short timed probe — a batch of bouncing balls stepped under each launch the adapter
//! takes (every workgroup size of [`WORKGROUP_SIZES`] × [`STEPS_PER_DISPATCH`]) — and kept
//! in the tuning cache ([`store`]), which every later run on that adapter and
//! driver reads. The launch changes no result, only the speed.

use std::path::{Path, PathBuf};

use crate::batch::gpu::tuning::CACHE_VAR;
use crate::batch::gpu::tuning::WORKGROUP_SIZES;
use crate::batch::gpu::{BatchKernel, GpuContext, Precision, Tuning};
use crate::batch::{BatchOptions, LinearScene, Progress, SceneBatch};
use crate::error::{Error, Result};
use crate::reference::Stabilization;
use crate::scenes::bouncing_ball::BouncingBall;
use crate::scheme::moreau_jean::MoreauJeanOSI;

use super::atomic::write_atomically;

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
    let precision = ctx.best_precision();
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
    let options = BatchOptions::for_precision(precision == Precision::F64);
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
    let cache = store(chosen, &adapter)?;
    Ok(Tuned {
        adapter,
        trials,
        chosen,
        cache,
    })
}

/// Keeps `launch` for the adapter `key` in the cache file ([`Tuning::cache_file`]); the file.
pub fn store(launch: Tuning, key: &str) -> Result<PathBuf> {
    let file = Tuning::cache_file().ok_or_else(|| Error::Unsupported {
        what: "the GPU tuning cache".into(),
        reason: format!("no folder for it: set {CACHE_VAR}, XDG_CACHE_HOME or HOME"),
    })?;
    store_in(&file, launch, key)?;
    Ok(file)
}

/// Keeps `launch` for `key` in `file`, the other keys' lines kept, replaced whole
/// ([`write_atomically`]: a reader never sees half a file).
fn store_in(file: &Path, launch: Tuning, key: &str) -> Result<()> {
    let old = std::fs::read_to_string(file).unwrap_or_default();
    let mut text: String = old
        .lines()
        .filter(|line| line.split_once('\t').is_none_or(|(k, _)| k != key))
        .map(|line| format!("{line}\n"))
        .collect();
    text.push_str(&format!("{key}\t{launch}\n"));
    if let Some(folder) = file.parent() {
        std::fs::create_dir_all(folder).map_err(|e| Error::Parse {
            file: file.display().to_string(),
            reason: format!("cannot create its folder: {e}"),
        })?;
    }
    write_atomically(file, |partial| Ok(std::fs::write(partial, text)?))
}

#[cfg(test)]
mod tests {
    use super::{Tuning, store_in};

    /// A stored launch is read back for its adapter only, the other adapters' lines kept,
    /// a line that does not read left out, a key stored again replaced.
    #[test]
    fn the_cache_keeps_one_launch_per_adapter() {
        let dir = std::env::temp_dir().join(format!("ricochet-tuning-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let file = dir.join("cache").join("gpu-tuning.tsv");
        let launch = |w, s| Tuning {
            workgroup_size: w,
            steps_per_dispatch: s,
        };
        assert_eq!(Tuning::cached_in(&file, "a"), None, "no file yet");
        store_in(&file, launch(32, 250), "a (Vulkan) | driver 1").unwrap();
        std::fs::write(&file, std::fs::read_to_string(&file).unwrap() + "b\tworkgroup=zero\n").unwrap();
        store_in(&file, launch(128, 1000), "c").unwrap();
        store_in(&file, launch(256, 4000), "c").unwrap();
        assert_eq!(Tuning::cached_in(&file, "a (Vulkan) | driver 1"), Some(launch(32, 250)));
        assert_eq!(Tuning::cached_in(&file, "b"), None, "a line that does not read");
        assert_eq!(Tuning::cached_in(&file, "c"), Some(launch(256, 4000)));
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text.lines().count(), 3, "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
