//! `ricochet verify` (every backend against the reference stepper) and `ricochet bench`
//! (every backend's throughput), printed: the library's [`ricochet::ensemble::verify`] and
//! [`ricochet::ensemble::bench`].

use std::process::ExitCode;

use ricochet::ensemble::{Scenario, bench::bench as measure, verify::verify as compare};

use super::progress::Bar;

/// Compares the first `scenes` scenes on every backend with the reference stepper; with
/// `json`, one JSON object on stdout instead of the table.
pub fn verify(scenario: Scenario, scenes: usize, max_time: Option<f64>, json: bool) -> ricochet::Result<ExitCode> {
    let verdict = compare(scenario, scenes, max_time, &Bar)?;
    if json {
        let engines: Vec<serde_json::Value> = (verdict.engines.iter())
            .map(|e| {
                let columns: serde_json::Map<String, serde_json::Value> = (e.columns.iter())
                    .map(|c| {
                        (
                            c.column.clone(),
                            serde_json::json!({ "deviation": c.deviation, "ok": c.ok }),
                        )
                    })
                    .collect();
                serde_json::json!({ "engine": e.engine, "tolerance": e.tolerance, "columns": columns })
            })
            .collect();
        let object = serde_json::json!({
            "scenario": verdict.scenario, "scenes": verdict.scenes, "engines": engines, "ok": verdict.ok
        });
        out!("{object}")?;
    } else {
        for skipped in &verdict.skipped {
            let (backend, why) = (skipped.backend, &skipped.reason);
            if skipped.no_adapter {
                log::info!("notice: {why}: the GPU is not verified");
            } else {
                out!("{backend:?}: {why}: only the reference stepper runs these scenes, nothing to compare")?;
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
    Ok(if verdict.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Every backend's throughput at `sizes`: one JSON line per run on stdout (for scripts) as it
/// is measured, and a table for people on stderr at the end.
pub fn bench(scenario: Scenario, sizes: &[usize], reference_up_to: usize) -> ricochet::Result<()> {
    let rows = measure(scenario, (sizes, reference_up_to), &Bar, |row| {
        out!("{}", serde_json::json!(row))
    })?;
    log::info!(
        "\n{:<45} {:>10} {:>10} {:>16} {:>10}",
        "backend",
        "scenes",
        "seconds",
        "scene-steps/s",
        "device s"
    );
    for row in rows {
        let device = row.device_seconds.map_or("—".to_string(), |d| format!("{d:.3}"));
        log::info!(
            "{:<45} {:>10} {:>10.3} {:>16.3e} {device:>10}",
            row.adapter,
            row.scenes,
            row.seconds,
            row.scene_steps_per_second
        );
    }
    Ok(())
}
