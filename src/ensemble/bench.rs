//! Every backend's throughput on a scenario at several ensemble sizes (`ricochet bench`):
//! each size run several times, the median and the spread reported with the engine, its
//! driver and its precision.

use serde::Serialize;

use super::scenario::PrecisionChoice;
use super::watch::Watch;
use super::{Backend, Progress, Scenario, open_engine, run_on};
use crate::error::Result;

/// One backend at one size.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    /// The engine's kind (`reference`, `cpu`, `gpu`).
    pub backend: String,
    /// The engine, described (adapter, threads).
    pub adapter: String,
    /// The adapter's driver and its version, where the engine runs on one.
    pub driver: Option<String>,
    /// `f64` or `f32`.
    pub precision: &'static str,
    /// The kernel's launch (invocations per workgroup, steps per dispatch), on an adapter.
    pub tuning: Option<String>,
    /// The scenario's name.
    pub scenario: String,
    /// The scenes stepped.
    pub scenes: usize,
    /// Steps per scene.
    pub steps: u64,
    /// The median of the runs' wall-clock seconds.
    pub seconds: f64,
    /// Each run's wall-clock seconds, in the order run.
    pub runs: Vec<f64>,
    /// The spread of the runs: (slowest − fastest) / median.
    pub spread: f64,
    /// Scenes × steps / the median seconds.
    pub scene_steps_per_second: f64,
    /// Seconds the device spent stepping in the median run, where it measures them.
    pub device_seconds: Option<f64>,
    /// Seconds of the one-step warm-up run before the timed ones (kernel compilation).
    pub warmup_seconds: f64,
}

/// What `bench` measures: the backends, the ensemble sizes, the largest the reference stepper
/// runs, the runs per size and the GPU's precisions.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchPlan {
    /// The backends measured, of `Reference`, `Cpu` and `Gpu` (in that order).
    pub backends: Vec<Backend>,
    /// Ensemble sizes.
    pub sizes: Vec<usize>,
    /// The reference stepper runs sizes up to this.
    pub reference_up_to: usize,
    /// Runs per backend and size (≥ 1); the row reports their median.
    pub repeat: usize,
    /// The GPU's precisions, each its own rows (`Auto`: f64 where the adapter has it).
    pub precisions: Vec<PrecisionChoice>,
}

/// The median of `x` (the mean of the middle two of an even count).
fn median(x: &[f64]) -> f64 {
    let mut sorted = x.to_vec();
    sorted.sort_by(f64::total_cmp);
    let half = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[half]
    } else {
        0.5 * (sorted[half - 1] + sorted[half])
    }
}

/// Runs `scenario` as `plan` says on the reference stepper, the CPU backend and the GPU at
/// each precision (a backend that does not open is skipped, with a notice in the log), after a
/// one-step warm-up of each; `row` is given each row as it is measured.
pub fn bench(
    mut scenario: Scenario,
    plan: &BenchPlan,
    watch: &impl Watch,
    mut row: impl FnMut(&BenchRow) -> Result<()>,
) -> Result<Vec<BenchRow>> {
    scenario.record.trajectories = 0;
    // (Each size is measured whole: a stop rule would end it early.)
    scenario.stop = None;
    let base = scenario.scenes;
    let mut rows = Vec::new();
    let engines = [Backend::Reference, Backend::Cpu]
        .into_iter()
        .filter(|b| plan.backends.contains(b))
        .map(|b| (b, None))
        .chain(
            plan.precisions
                .iter()
                .filter(|_| plan.backends.contains(&Backend::Gpu))
                .map(|&p| (Backend::Gpu, Some(p))),
        );
    for (backend, precision) in engines {
        if let Some(p) = precision {
            scenario.solver.precision = p;
        }
        let engine = match open_engine(backend, &scenario) {
            Ok((engine, _)) => engine,
            Err(e @ crate::error::Error::Argument { .. }) => return Err(e),
            Err(e) => {
                log::info!("notice: {backend:?} skipped: {e}");
                continue;
            }
        };
        // A warm-up run compiles the kernels (lavapipe's LLVM takes seconds on a cold Mesa
        // shader cache) and spins up the threads, so that the figures below are steady ones.
        let warmup = {
            let mut small = scenario.clone();
            small.time.final_time = small.time.step;
            small.strobe = None;
            run_on(engine.as_ref(), &small, 0..64.min(small.scenes), None, &Progress::new())?.seconds
        };
        for &n in &plan.sizes {
            if backend == Backend::Reference && n > plan.reference_up_to {
                continue;
            }
            // A whole number of the scenario's ensembles (so that its sweeps stay valid).
            scenario.scenes = n.div_ceil(base) * base;
            let mut runs = Vec::new();
            for k in 0..plan.repeat.max(1) {
                let name = format!("bench {} {n} ({}/{})", engine.name(), k + 1, plan.repeat.max(1));
                runs.push(watch.watch(&name, (n, scenario.steps()), |progress| {
                    run_on(engine.as_ref(), &scenario, 0..n, None, progress)
                })?);
            }
            let seconds: Vec<f64> = runs.iter().map(|r| r.seconds).collect();
            let middle = median(&seconds);
            // The run whose time is nearest the median gives the device's seconds.
            let typical = runs
                .iter()
                .min_by(|a, b| (a.seconds - middle).abs().total_cmp(&(b.seconds - middle).abs()))
                .expect("at least one run");
            let (fastest, slowest) = seconds
                .iter()
                .fold((f64::MAX, 0.0f64), |(lo, hi), &s| (lo.min(s), hi.max(s)));
            let measured = BenchRow {
                backend: engine.name().to_string(),
                adapter: typical.engine.clone(),
                driver: engine.driver(),
                tuning: engine.tuning(),
                precision: if engine.double() { "f64" } else { "f32" },
                scenario: scenario.name.clone(),
                scenes: n,
                steps: scenario.steps(),
                seconds: middle,
                spread: (slowest - fastest) / middle,
                runs: seconds,
                scene_steps_per_second: typical.scene_steps as f64 / middle,
                device_seconds: typical.device_seconds,
                warmup_seconds: warmup,
            };
            row(&measured)?;
            rows.push(measured);
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn the_median_is_the_middle_run() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[7.0]), 7.0);
    }
}
