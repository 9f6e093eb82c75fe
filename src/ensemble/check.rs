//! A dry run (`ricochet check`): the scenario validated with its scenes built (all of them,
//! or [`BUILT`] spread over a larger ensemble, so that it answers in seconds at any size), its
//! drawn parameters' ranges, its size, what it records, and per backend an estimate of the
//! run's time (from a short timed sample) and of its memory and output.

use rayon::prelude::*;
use serde::Serialize;

use super::watch::Watch;
use super::{Backend, Scenario, open_engine, run_on};
use crate::batch::SceneHeader;
use crate::batch::layout::{HAS_STIFFNESS, RATTLE};
use crate::error::{Error, Result};

/// Scenes (on the reference stepper, on the batched engines) and steps of the timed sample
/// behind each backend's estimate, taken after a one-step warm-up (which compiles kernels).
const SAMPLE: (usize, usize, f64) = (64, 1024, 200.0);

/// Scenes built at most: an ensemble up to this size is built whole; a larger one through
/// this many scenes spread evenly over it (the first and the last among them), so that the
/// dry run answers in seconds at any size.
pub const BUILT: usize = 100_000;

/// The scenes [`check`] builds of `scenes`: all of them up to [`BUILT`], else ⌊i (N − 1) /
/// (BUILT − 1)⌋ for i < BUILT.
fn built(scenes: usize) -> Vec<usize> {
    if scenes <= BUILT {
        return (0..scenes).collect();
    }
    let last = (scenes - 1) as u128;
    (0..BUILT)
        .map(|i| (i as u128 * last / (BUILT as u128 - 1)) as usize)
        .collect()
}

/// A drawn parameter's range over the ensemble.
#[derive(Clone, Debug, Serialize)]
pub struct Range {
    /// The parameter.
    pub name: String,
    /// Its smallest drawn value.
    pub min: f64,
    /// Its largest drawn value.
    pub max: f64,
}

/// One backend's estimate, or why it does not open.
#[derive(Clone, Debug, Serialize)]
pub struct Estimate {
    /// The backend.
    pub backend: Backend,
    /// The engine, described; `None` when it does not open.
    pub engine: Option<String>,
    /// Why it does not open.
    pub unavailable: Option<String>,
    /// Scene-steps per second on the timed sample.
    pub scene_steps_per_second: f64,
    /// The whole run's seconds at that rate.
    pub seconds: f64,
    /// Bytes each scene in flight takes (its operators, twice).
    pub bytes_per_scene: u64,
}

/// What [`check`] found.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// The scenario's name.
    pub scenario: String,
    /// Its scenes.
    pub scenes: usize,
    /// Degrees of freedom of each scene.
    pub dof: usize,
    /// Constraint rows of each scene.
    pub rows: usize,
    /// Steps per scene.
    pub steps: u64,
    /// The time step h (s).
    pub step: f64,
    /// The final time (s).
    pub final_time: f64,
    /// The scenes' coordinates.
    pub coordinates: Vec<String>,
    /// The scenes built: all of them, or [`BUILT`] spread over a larger ensemble.
    pub built: usize,
    /// The drawn parameters' ranges (over the scenes built).
    pub drawn: Vec<Range>,
    /// Observables recorded per scene.
    pub observables: usize,
    /// Stroboscopic samples per scene.
    pub strobe_samples: usize,
    /// Impact events kept per scene at most.
    pub max_events: u32,
    /// The output's size at most (bytes): the summary (CSV and `.npy`), the recorded
    /// trajectories, the stroboscopic samples and the events.
    pub output_bytes: f64,
    /// Per backend.
    pub estimates: Vec<Estimate>,
}

/// Builds the scenes of `scenario` ([`BUILT`] at most; an invalid draw is an error naming
/// it), and times a short sample on each backend (one that fails there is reported
/// unavailable, with the error).
pub fn check(scenario: &Scenario, watch: &impl Watch) -> Result<Check> {
    let steps = scenario.steps();
    let plan = scenario.plan()?;
    let (dof, rows) = plan.sizes();
    let names = plan.drawn.clone();
    let unbounded = || vec![(f64::INFINITY, f64::NEG_INFINITY); names.len()];
    let (built, sampler) = (built(scenario.scenes), scenario.sampler()?);
    // Shown as a run of one step per scene built.
    let ranges = watch.watch("check: building the scenes", (built.len(), 1), |progress| {
        built
            .par_iter()
            .map(|&s| {
                if progress.cancelled() {
                    return Err(Error::Interrupted {
                        what: "while building the scenes".into(),
                    });
                }
                let drawn = sampler.sample(s).map(|scene| scene.drawn);
                progress.add(1);
                drawn
            })
            .try_fold(unbounded, |mut ranges, drawn| {
                for (r, x) in ranges.iter_mut().zip(drawn?) {
                    *r = (r.0.min(x), r.1.max(x));
                }
                Ok::<_, Error>(ranges)
            })
            .try_reduce(unbounded, |a, b| {
                Ok(a.iter().zip(&b).map(|(x, y)| (x.0.min(y.0), x.1.max(y.1))).collect())
            })
    })?;
    let recording = &plan.recording;
    let strobe_samples = recording.strobe.map_or(0, |s| s.count as usize);
    let max_events = recording.events.unwrap_or(0);
    let n = scenario.scenes as f64;
    // About 24 characters per CSV value, 8 bytes per `.npy` one.
    let summary_values = (names.len() + recording.observers.len() + 2 * dof + 16) as f64;
    let samples = (steps / u64::from(scenario.record.stride) + 1) as f64;
    let trajectories = scenario.recorded_scenes().len() as f64 * samples * 24.0 * (2 * dof + 2) as f64;
    let output_bytes = n * 32.0 * summary_values
        + trajectories
        + n * strobe_samples as f64 * 24.0 * (2 * dof + 2) as f64
        + n * f64::from(max_events) * 24.0 * 6.0;
    let bytes_per_scene = 16 * SceneHeader::operator_len(dof, rows, RATTLE | HAS_STIFFNESS) as u64;
    let mut estimates = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        let engine = match open_engine(backend, scenario) {
            Ok((engine, _)) => engine,
            Err(e) => {
                estimates.push(Estimate {
                    backend,
                    engine: None,
                    unavailable: Some(e.to_string()),
                    scene_steps_per_second: 0.0,
                    seconds: 0.0,
                    bytes_per_scene,
                });
                continue;
            }
        };
        let mut sample = scenario.clone();
        // (A few scenes of a few steps, timed: no samples, events or stop rule.)
        (sample.strobe, sample.events, sample.stop) = (None, None, None);
        let k = if backend == Backend::Reference {
            SAMPLE.0
        } else {
            SAMPLE.1
        }
        .min(scenario.scenes);
        sample.time.final_time = scenario.time.step;
        let name = format!("check {}", engine.name());
        let warm_up = watch.watch(&name, (k, 1), |progress| {
            run_on(engine.as_ref(), &sample, 0..k, None, progress)
        });
        sample.time.final_time = scenario.time.step * SAMPLE.2.min(steps as f64);
        let timed = warm_up.and_then(|_| {
            watch.watch(&name, (k, sample.steps()), |progress| {
                run_on(engine.as_ref(), &sample, 0..k, None, progress)
            })
        });
        estimates.push(match timed {
            Ok(timed) => {
                let rate = timed.scene_steps as f64 / timed.seconds;
                Estimate {
                    backend,
                    engine: Some(timed.engine),
                    unavailable: None,
                    scene_steps_per_second: rate,
                    seconds: n * steps as f64 / rate,
                    bytes_per_scene,
                }
            }
            Err(e @ Error::Interrupted { .. }) => return Err(e),
            // (A scene the engine cannot step: this backend cannot run the ensemble.)
            Err(e) => Estimate {
                backend,
                engine: Some(engine.describe()),
                unavailable: Some(e.to_string()),
                scene_steps_per_second: 0.0,
                seconds: 0.0,
                bytes_per_scene,
            },
        });
    }
    Ok(Check {
        scenario: scenario.name.clone(),
        scenes: scenario.scenes,
        dof,
        rows,
        steps,
        step: scenario.time.step,
        final_time: scenario.time.final_time,
        coordinates: plan.coordinates.clone(),
        built: built.len(),
        drawn: names
            .into_iter()
            .zip(ranges)
            .map(|(name, (min, max))| Range { name, min, max })
            .collect(),
        observables: recording.observers.len(),
        strobe_samples,
        max_events,
        output_bytes,
        estimates,
    })
}
