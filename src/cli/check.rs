//! `ricochet check SCENARIO`, printed: the library's [`ricochet::ensemble::check`] (a dry run:
//! every scene built, the drawn parameters' ranges, the size, what is recorded, and per
//! backend an estimate of the run's time, memory and output).

use std::process::ExitCode;

use ricochet::ensemble::{Scenario, check::check as dry_run};

use super::progress::Bar;

pub fn check(scenario: &Scenario) -> ricochet::Result<ExitCode> {
    let check = dry_run(scenario, &Bar)?;
    let built = if check.built == check.scenes {
        "every scene built: ok".to_string()
    } else {
        format!("{} scenes spread over the ensemble built: ok", check.built)
    };
    out!(
        "{}: {} scenes of {} degrees of freedom and {} rows, {} steps of h = {} s to t = {} s ({built})",
        check.scenario,
        check.scenes,
        check.dof,
        check.rows,
        check.steps,
        check.step,
        check.final_time
    )?;
    out!("  coordinates: {}", check.coordinates.join(", "))?;
    for range in &check.drawn {
        out!("  {:<20} drawn in [{}, {}]", range.name, range.min, range.max)?;
    }
    out!(
        "  records: {} observables, {} stroboscopic samples and at most {} impact events per scene",
        check.observables,
        check.strobe_samples,
        check.max_events
    )?;
    out!(
        "  output: about {} (summary as CSV and .npy, trajectories, samples and events at most)",
        ricochet::validate::bytes(check.output_bytes)
    )?;
    for estimate in &check.estimates {
        match (&estimate.engine, &estimate.unavailable) {
            (Some(engine), Some(why)) => out!("  {engine}: cannot run this ensemble: {why}")?,
            (Some(engine), None) => out!(
                "  {engine:<45} {:.2e} scene-steps/s on a sample: about {:.0} s for the run; {} per scene in flight",
                estimate.scene_steps_per_second,
                estimate.seconds,
                ricochet::validate::bytes(estimate.bytes_per_scene as f64)
            )?,
            (None, why) => out!(
                "  {}: not available: {}",
                estimate.backend,
                why.as_deref().unwrap_or_default()
            )?,
        }
    }
    Ok(ExitCode::SUCCESS)
}
