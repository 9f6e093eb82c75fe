//! Every backend's throughput on a scenario at several ensemble sizes (`ricochet bench`).

use serde::Serialize;

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
    /// The scenario's name.
    pub scenario: String,
    /// The scenes stepped.
    pub scenes: usize,
    /// Steps per scene.
    pub steps: u64,
    /// Wall-clock seconds of the run.
    pub seconds: f64,
    /// Scenes × steps / seconds.
    pub scene_steps_per_second: f64,
    /// Seconds the device spent stepping, where it measures them.
    pub device_seconds: Option<f64>,
    /// Seconds of the one-step warm-up run before the timed ones (kernel compilation).
    pub warmup_seconds: f64,
}

/// Runs `scenario` at each of `sizes` (the reference only up to `reference_up_to` scenes) on
/// the reference stepper, the CPU backend and the GPU (a backend that does not open is
/// skipped, with a notice in the log), after a one-step warm-up of each; `row` is given each
/// row as it is measured.
pub fn bench(
    mut scenario: Scenario,
    (sizes, reference_up_to): (&[usize], usize),
    watch: &impl Watch,
    mut row: impl FnMut(&BenchRow) -> Result<()>,
) -> Result<Vec<BenchRow>> {
    scenario.record.trajectories = 0;
    let base = scenario.scenes;
    let mut rows = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        let engine = match open_engine(backend, &scenario) {
            Ok((engine, _)) => engine,
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
        for &n in sizes {
            if backend == Backend::Reference && n > reference_up_to {
                continue;
            }
            // A whole number of the scenario's ensembles (so that its sweeps stay valid).
            scenario.scenes = n.div_ceil(base) * base;
            let name = format!("bench {} {n}", engine.name());
            let run = watch.watch(&name, (n, scenario.steps()), |progress| {
                run_on(engine.as_ref(), &scenario, 0..n, None, progress)
            })?;
            let measured = BenchRow {
                backend: engine.name().to_string(),
                adapter: run.engine,
                scenario: scenario.name.clone(),
                scenes: n,
                steps: scenario.steps(),
                seconds: run.seconds,
                scene_steps_per_second: run.scene_steps as f64 / run.seconds,
                device_seconds: run.device_seconds,
                warmup_seconds: warmup,
            };
            row(&measured)?;
            rows.push(measured);
        }
    }
    Ok(rows)
}
