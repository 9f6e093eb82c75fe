//! `ricochet check SCENARIO`: a dry run — the scenario validated (every scene built), its
//! drawn parameters' ranges, its size, what it records, and per backend an estimate of the
//! run's time (from a short timed sample) and of its memory and output.

use std::process::ExitCode;

use rayon::prelude::*;
use ricochet::batch::SceneHeader;
use ricochet::ensemble::{self, Backend, Scenario};

/// Scenes (on the reference stepper, on the batched engines) and steps of the timed sample
/// behind each backend's estimate, taken after a one-step warm-up (which compiles kernels).
const SAMPLE: (usize, usize, f64) = (64, 1024, 200.0);

pub fn check(scenario: &Scenario) -> ricochet::Result<ExitCode> {
    let steps = scenario.steps();
    let (n, m) = scenario.sizes()?;
    let names = scenario.drawn_names()?;
    // Every scene built (what `run` checks before stepping), and the drawn values' ranges.
    let ranges = (0..scenario.scenes)
        .into_par_iter()
        .map(|s| scenario.sample(s).map(|scene| scene.drawn))
        .try_fold(
            || vec![(f64::INFINITY, f64::NEG_INFINITY); names.len()],
            |mut ranges, drawn| {
                for (r, x) in ranges.iter_mut().zip(drawn?) {
                    *r = (r.0.min(x), r.1.max(x));
                }
                Ok::<_, ricochet::Error>(ranges)
            },
        )
        .try_reduce(
            || vec![(f64::INFINITY, f64::NEG_INFINITY); names.len()],
            |a, b| Ok(a.iter().zip(&b).map(|(x, y)| (x.0.min(y.0), x.1.max(y.1))).collect()),
        )?;
    out!(
        "{}: {} scenes of {n} degrees of freedom and {m} rows, {steps} steps of h = {} s to t = {} s (every scene built: ok)",
        scenario.name,
        scenario.scenes,
        scenario.time.step,
        scenario.time.final_time
    )?;
    out!("  coordinates: {}", scenario.coordinates()?.join(", "))?;
    for (name, (lo, hi)) in names.iter().zip(&ranges) {
        out!("  {name:<20} drawn in [{lo}, {hi}]")?;
    }
    let recording = scenario.recording()?;
    let strobe = recording.strobe.map_or(0, |s| s.count as usize);
    out!(
        "  records: {} observables, {strobe} stroboscopic samples and at most {} impact events per scene",
        recording.observers.len(),
        recording.events.unwrap_or(0)
    )?;
    let rows = scenario.scenes as f64;
    let output = rows * (24.0 * (names.len() + 2 * n + 16) as f64)
        + rows * strobe as f64 * 24.0 * (2 * n + 2) as f64
        + rows * f64::from(recording.events.unwrap_or(0)) * 24.0 * 6.0;
    out!(
        "  output: about {} (summary, samples and events at most; CSV and .npy)",
        ricochet::validate::bytes(output)
    )?;
    let per_scene = 16 * SceneHeader::operator_len(n, m, ricochet::batch::layout::RATTLE) as u64;
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        let engine = match ensemble::open_engine(backend, scenario) {
            Ok((engine, _)) => engine,
            Err(e) => {
                out!("  {backend:?}: not available: {e}")?;
                continue;
            }
        };
        let mut sample = scenario.clone();
        (sample.strobe, sample.events) = (None, None);
        let k = if backend == Backend::Reference {
            SAMPLE.0
        } else {
            SAMPLE.1
        }
        .min(scenario.scenes);
        sample.time.final_time = scenario.time.step;
        ensemble::run_on(engine.as_ref(), &sample, 0..k, None, &ensemble::Progress::new())?;
        sample.time.final_time = scenario.time.step * SAMPLE.2.min(steps as f64);
        let timed = ensemble::run_on(engine.as_ref(), &sample, 0..k, None, &ensemble::Progress::new())?;
        let rate = timed.scene_steps as f64 / timed.seconds;
        out!(
            "  {:<45} {rate:.2e} scene-steps/s on a sample: about {:.0} s for the run; {} per scene in flight",
            timed.engine,
            rows * steps as f64 / rate,
            ricochet::validate::bytes(per_scene as f64)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
