//! `ricochet verify` (every backend against the reference stepper) and `ricochet bench`
//! (every backend's throughput).

use std::process::ExitCode;

use ricochet::ensemble::{self, Backend, Scenario, Table};

use super::progress::watch;

/// The largest deviation of each compared column of `other` from `reference`, relative to
/// 1 + |reference|.
fn deviations(reference: &Table, other: &Table) -> Vec<(String, f64)> {
    let skip = ["scene", "lcp_residual", "lcp_iterations"];
    reference
        .columns
        .iter()
        .filter(|c| !skip.contains(&c.as_str()))
        .map(|c| {
            let (a, b) = (
                reference.column(c).unwrap_or_default(),
                other.column(c).unwrap_or_default(),
            );
            let worst = a
                .iter()
                .zip(&b)
                .map(|(x, y)| {
                    if x.is_nan() && y.is_nan() {
                        0.0
                    } else {
                        (x - y).abs() / (1.0 + x.abs())
                    }
                })
                .fold(0.0, |m: f64, d| if d.is_nan() { f64::INFINITY } else { m.max(d) });
            (c.clone(), worst)
        })
        .collect()
}

/// Compares the first `scenes` scenes on every backend with the reference stepper; with
/// `json`, one JSON object on stdout instead of the table.
pub fn verify(mut scenario: Scenario, scenes: usize, max_time: Option<f64>, json: bool) -> ricochet::Result<ExitCode> {
    if scenes == 0 {
        return Err(ricochet::Error::Scenario {
            what: "--scenes".into(),
            reason: "verify needs at least 1 scene to compare".into(),
        });
    }
    // The ensemble's first scenes (its size stays: it places swept parameters).
    let scenes = scenes.min(scenario.scenes);
    scenario.record.trajectories = 0;
    // The summaries are compared (observables included); the samples and events, which
    // `--max-time` may cut, are not.
    (scenario.strobe, scenario.events) = (None, None);
    if let Some(t) = max_time {
        scenario.time.final_time = scenario.time.final_time.min(t);
        scenario.validate()?;
    }
    let run_on = |backend| -> ricochet::Result<Option<(String, Table, f64)>> {
        let engine = match ensemble::open_engine(backend, &scenario) {
            Ok((engine, _)) => engine,
            Err(e @ ricochet::Error::NoAdapter { .. }) => {
                log::info!("notice: {e}: the GPU is not verified");
                return Ok(None);
            }
            Err(e @ ricochet::Error::Unsupported { .. }) if backend != Backend::Reference => {
                if !json {
                    out!("{backend:?}: {e}: only the reference stepper runs these scenes, nothing to compare")?;
                }
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let double = engine.double();
        let name = format!("verify {}", engine.name());
        let run = watch(&name, (scenes, scenario.steps()), |progress| {
            ensemble::run_on(engine.as_ref(), &scenario, 0..scenes, None, progress)
        })?;
        // f64 engines agree with the reference to rounding; f32 to its rounding over the run.
        Ok(Some((run.engine, run.summary, if double { 1e-9 } else { 1e-3 })))
    };
    let (_, reference, _) = run_on(Backend::Reference)?.expect("the reference backend always opens");
    let (mut ok, mut report) = (true, Vec::new());
    for backend in [Backend::Cpu, Backend::Gpu] {
        let Some((name, summary, tolerance)) = run_on(backend)? else {
            continue;
        };
        if !json {
            out!("{name} vs reference ({scenes} scenes), relative deviations (tolerance {tolerance:e}):")?;
        }
        let mut columns = serde_json::Map::new();
        for (column, worst) in deviations(&reference, &summary) {
            let exact = ["impacts", "in_contact", "converged", "finite"].contains(&column.as_str());
            let pass = if exact && tolerance < 1e-6 {
                worst == 0.0
            } else {
                worst <= tolerance.max(if exact { 0.5 } else { 0.0 })
            };
            ok &= pass;
            if !json {
                out!("  {column:>20} {worst:10.3e} {}", if pass { "ok" } else { "FAIL" })?;
            }
            columns.insert(column, serde_json::json!({ "deviation": worst, "ok": pass }));
        }
        report.push(serde_json::json!({ "engine": name, "tolerance": tolerance, "columns": columns }));
    }
    if json {
        let object = serde_json::json!({ "scenario": scenario.name, "scenes": scenes, "engines": report, "ok": ok });
        out!("{object}")?;
    }
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

pub fn bench(mut scenario: Scenario, sizes: &[usize], reference_up_to: usize) -> ricochet::Result<()> {
    scenario.record.trajectories = 0;
    let base = scenario.scenes;
    let mut rows = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        let engine = match ensemble::open_engine(backend, &scenario) {
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
            ensemble::run_on(
                engine.as_ref(),
                &small,
                0..64.min(small.scenes),
                None,
                &ensemble::Progress::new(),
            )?
            .seconds
        };
        for &n in sizes {
            if backend == Backend::Reference && n > reference_up_to {
                continue;
            }
            // A whole number of the scenario's ensembles (so that its sweeps stay valid).
            scenario.scenes = n.div_ceil(base) * base;
            let name = format!("bench {} {n}", engine.name());
            let run = watch(&name, (n, scenario.steps()), |progress| {
                ensemble::run_on(engine.as_ref(), &scenario, 0..n, None, progress)
            })?;
            let rate = run.scene_steps as f64 / run.seconds;
            out!(
                "{}",
                serde_json::json!({
                    "backend": engine.name(),
                    "adapter": run.engine,
                    "scenario": scenario.name,
                    "scenes": n,
                    "steps": scenario.steps(),
                    "seconds": run.seconds,
                    "scene_steps_per_second": rate,
                    "device_seconds": run.device_seconds,
                    "warmup_seconds": warmup,
                })
            )?;
            rows.push((run.engine, n, run.seconds, rate, run.device_seconds));
        }
    }
    // The table for people on stderr: stdout stays JSON lines, one per run, for scripts.
    log::info!(
        "\n{:<45} {:>10} {:>10} {:>16} {:>10}",
        "backend",
        "scenes",
        "seconds",
        "scene-steps/s",
        "device s"
    );
    for (engine, n, seconds, rate, device) in rows {
        let device = device.map_or("—".to_string(), |d| format!("{d:.3}"));
        log::info!("{engine:<45} {n:>10} {seconds:>10.3} {rate:>16.3e} {device:>10}");
    }
    Ok(())
}
