//! `ricochet verify` (every backend against the reference stepper) and `ricochet bench`
//! (every backend's throughput), printed: the library's [`ricochet::ensemble::verify`] and
//! [`ricochet::ensemble::bench`].

use std::process::ExitCode;

use ricochet::ensemble::bench::{BenchPlan, bench as measure};
use ricochet::ensemble::{Scenario, verify::verify as compare};

use super::progress::Bar;

/// Compares the first `scenes` scenes on every backend with the reference stepper; with
/// `json`, the library's verdict ([`ricochet::ensemble::verify::Verification`]) as one JSON
/// object on stdout instead of the table. Fails when a column is out of tolerance, or when
/// nothing could be compared unless `allow_nothing`.
pub fn verify(
    scenario: Scenario,
    scenes: usize,
    max_time: Option<f64>,
    (json, allow_nothing): (bool, bool),
) -> ricochet::Result<ExitCode> {
    let verdict = compare(scenario, scenes, max_time, &Bar)?;
    if json {
        let text = serde_json::to_string(&verdict).map_err(std::io::Error::other)?;
        out!("{text}")?;
    } else {
        for skipped in &verdict.skipped {
            let (backend, why) = (skipped.backend, &skipped.reason);
            if skipped.no_adapter {
                log::info!("notice: {why}: the GPU is not verified");
            } else {
                out!("{backend}: not compared: {why}")?;
            }
        }
        for engine in &verdict.engines {
            out!(
                "{} vs reference ({} scenes), relative deviations (tolerance {:e}):",
                engine.engine,
                verdict.scenes,
                engine.tolerance
            )?;
            for c in &engine.columns {
                out!(
                    "  {:>20} {:10.3e} {}",
                    c.column,
                    c.deviation,
                    if c.ok { "ok" } else { "FAIL" }
                )?;
            }
        }
    }
    if verdict.nothing_compared {
        if allow_nothing {
            log::info!("notice: nothing to compare (--allow-nothing): no batched engine runs these scenes here");
            return Ok(ExitCode::SUCCESS);
        }
        log::error!("nothing to compare: no batched engine runs these scenes here (--allow-nothing accepts that)");
    }
    Ok(if verdict.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::exit::NOT_VERIFIED)
    })
}

/// Every backend's throughput as `plan` says: one JSON line per backend and size on stdout
/// (for scripts) as it is measured, and a table for people on stderr at the end (the median
/// of the runs, and their spread).
pub fn bench(scenario: Scenario, plan: &BenchPlan) -> ricochet::Result<()> {
    let rows = measure(scenario, plan, &Bar, |row| out!("{}", serde_json::json!(row)))?;
    log::info!(
        "\n{:<45} {:>10} {:>10} {:>8} {:>16} {:>10}",
        "backend",
        "scenes",
        "seconds",
        "spread",
        "scene-steps/s",
        "device s"
    );
    for row in &rows {
        let device = row.device_seconds.map_or("—".to_string(), |d| format!("{d:.3}"));
        log::info!(
            "{:<45} {:>10} {:>10.3} {:>7.1}% {:>16.3e} {device:>10}",
            row.adapter,
            row.scenes,
            row.seconds,
            100.0 * row.spread,
            row.scene_steps_per_second
        );
    }
    let driver = rows.iter().find_map(|r| r.driver.as_deref());
    log::info!(
        "(medians of {} runs each; spread = (slowest − fastest) / median{})",
        plan.repeat,
        driver.map_or(String::new(), |d| format!("; GPU driver: {d}"))
    );
    Ok(())
}

/// `bench` on a large-scene scenario: per size, one thread then all cores, one JSON line each
/// on stdout and a table on stderr.
pub fn bench_large(
    scenario: &ricochet::ensemble::large_scene::LargeScenario,
    (sizes, steps): (&[usize], u64),
    backends: &[ricochet::ensemble::Backend],
) -> ricochet::Result<()> {
    use ricochet::ensemble::Backend;
    use ricochet::ensemble::large_scene::Method;
    use ricochet::ensemble::large_solver::solver;
    let mut rows = Vec::new();
    // NSGS on one thread and on all, Jacobi on all; the GPU kernels where there is an adapter
    // (each where `backends` has it).
    let cpus = if backends.contains(&Backend::Cpu) {
        vec![(Some(1), Method::Nsgs), (None, Method::Nsgs), (None, Method::Jacobi)]
    } else {
        Vec::new()
    };
    let mut gpus: Vec<_> = [Method::Nsgs, Method::Jacobi]
        .into_iter()
        .filter(|_| backends.contains(&Backend::Gpu))
        .filter_map(|method| {
            solver(Backend::Gpu, method)
                .inspect_err(|e| log::info!("no GPU engine in the bench: {e}"))
                .ok()
        })
        .collect();
    // Beside the whole step on the device, NSGS's sweeps alone there: what the step gains.
    #[cfg(feature = "gpu")]
    if !gpus.is_empty() {
        let (sweeps, name) = ricochet::ensemble::large_solver::gpu_sweeps_only()?;
        gpus.insert(1, (sweeps, name, None));
    }
    for &bodies in sizes {
        for &(threads, method) in &cpus {
            let (mut cpu, name, _) = solver(Backend::Cpu, method)?;
            let row = scenario.bench(bodies, steps, threads, (cpu.as_mut(), &name))?;
            out!("{}", serde_json::json!(row))?;
            rows.push(row);
        }
        for (gpu, name, _) in &mut gpus {
            let row = scenario.bench(bodies, steps, None, (gpu.as_mut(), name))?;
            out!("{}", serde_json::json!(row))?;
            rows.push(row);
        }
    }
    log::info!(
        "\n{:<32} {:>9} {:>9} {:>6} {:>9} {:>14} {:>14} {:>8}",
        "engine",
        "bodies",
        "contacts",
        "steps",
        "seconds",
        "body-steps/s",
        "contact-it/s",
        "sweeps"
    );
    for r in &rows {
        log::info!(
            "{:<32} {:>9} {:>9} {:>6} {:>9.3} {:>14.3e} {:>14.3e} {:>8.1}",
            r.engine,
            r.bodies,
            r.contacts,
            r.steps,
            r.seconds,
            r.body_steps_per_second,
            r.contact_iterations_per_second,
            r.sweeps_per_step
        );
    }
    // Where the whole step on a device spent its time.
    for (r, stages) in rows.iter().filter_map(|r| Some((r, r.stages?))) {
        let device = |s: Option<f64>| s.map_or("untimed".to_string(), |s| format!("{s:.3} s"));
        log::info!(
            "{} at {} bodies: broad phases {:.3} s (wall clock); on the device {} before the sweeps, {} \
             sweeping, {} after",
            r.engine,
            r.bodies,
            stages.broad_phase,
            device(stages.before_sweeps),
            device(stages.sweeps),
            device(stages.after_sweeps),
        );
    }
    Ok(())
}
