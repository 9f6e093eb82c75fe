//! Every batched backend against the reference stepper on the first scenes of an ensemble
//! (`ricochet verify`): the largest deviation of each summary column, and a verdict.

use serde::Serialize;

use super::watch::Watch;
use super::{Backend, Scenario, Table, open_engine, run_on};
use crate::error::{Error, Result};

/// Columns not compared: the scene index, and the solvers' own effort.
const SKIPPED: [&str; 3] = ["scene", "lcp_residual", "lcp_iterations"];

/// Counts and flags: equal on f64 engines, within 0.5 (one impact near a grazing contact)
/// on f32 ones.
const EXACT: [&str; 4] = ["impacts", "in_contact", "converged", "finite"];

/// One column's largest deviation from the reference.
#[derive(Clone, Debug, Serialize)]
pub struct ColumnDeviation {
    /// The summary column.
    pub column: String,
    /// max |x − x_ref| / (1 + |x_ref|) over the scenes (0 where both are NaN; ∞ where one is).
    pub deviation: f64,
    /// Within the engine's tolerance.
    pub ok: bool,
}

/// One engine's summary against the reference's.
#[derive(Clone, Debug, Serialize)]
pub struct EngineVerdict {
    /// The engine, described.
    pub engine: String,
    /// The relative tolerance: 1e-9 for f64 engines (rounding), 1e-3 for f32 ones.
    pub tolerance: f64,
    /// Every compared column.
    pub columns: Vec<ColumnDeviation>,
}

/// A backend [`verify`] did not compare.
#[derive(Clone, Debug, Serialize)]
pub struct Skipped {
    /// The backend.
    pub backend: Backend,
    /// Why: it did not open.
    pub reason: String,
    /// Because there is no GPU (rather than scenes only the reference steps).
    pub no_adapter: bool,
}

/// The verdict of [`verify`].
#[derive(Debug, Serialize)]
pub struct Verification {
    /// The scenario's name.
    pub scenario: String,
    /// The scenes compared.
    pub scenes: usize,
    /// The engines compared with the reference.
    pub engines: Vec<EngineVerdict>,
    /// The backends not compared, and why (no GPU; scenes only the reference runs).
    pub skipped: Vec<Skipped>,
    /// Every column of every engine within tolerance, and at least one engine compared.
    pub ok: bool,
    /// No engine was compared (no GPU, and scenes the CPU backend does not run): not `ok`,
    /// unless the caller accepts it.
    pub nothing_compared: bool,
}

/// The largest deviation of each compared column of `other` from `reference`, relative to
/// 1 + |reference|.
fn deviations(reference: &Table, other: &Table) -> Vec<(String, f64)> {
    reference
        .columns
        .iter()
        .filter(|c| !SKIPPED.contains(&c.as_str()))
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

/// Runs the first `scenes` scenes of `scenario` (to `max_time` at most) on the reference
/// stepper, the CPU backend and the GPU, and compares each batched summary with the
/// reference's (observables included; samples and events are not compared).
pub fn verify(
    mut scenario: Scenario,
    scenes: usize,
    max_time: Option<f64>,
    watch: &impl Watch,
) -> Result<Verification> {
    if scenes == 0 {
        return Err(Error::Scenario {
            what: "--scenes".into(),
            reason: "verify needs at least 1 scene to compare".into(),
        });
    }
    // The ensemble's first scenes (its size stays: it places swept parameters).
    let scenes = scenes.min(scenario.scenes);
    scenario.record.trajectories = 0;
    // (The first `scenes` scenes, compared: no samples, events or stop rule.)
    (scenario.strobe, scenario.events, scenario.stop) = (None, None, None);
    if let Some(t) = max_time {
        crate::validate::scalar("--max-time", t, t > 0.0 && t.is_finite(), "must be a positive time (s)")?;
        scenario.time.final_time = scenario.time.final_time.min(t);
        scenario.validate()?;
    }
    let mut skipped = Vec::new();
    let mut run = |backend| -> Result<Option<(String, Table, f64)>> {
        let engine = match open_engine(backend, &scenario) {
            Ok((engine, _)) => engine,
            Err(e @ (Error::NoAdapter { .. } | Error::Unsupported { .. })) if backend != Backend::Reference => {
                skipped.push(Skipped {
                    backend,
                    reason: e.to_string(),
                    no_adapter: matches!(e, Error::NoAdapter { .. }),
                });
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let double = engine.double();
        let name = format!("verify {}", engine.name());
        let run = watch.watch(&name, (scenes, scenario.steps()), |progress| {
            run_on(engine.as_ref(), &scenario, 0..scenes, None, progress)
        })?;
        // f64 engines agree with the reference to rounding; f32 to its rounding over the run.
        Ok(Some((run.engine, run.summary, if double { 1e-9 } else { 1e-3 })))
    };
    let (_, reference, _) = run(Backend::Reference)?.expect("the reference backend always opens");
    let mut engines = Vec::new();
    for backend in [Backend::Cpu, Backend::Gpu] {
        let Some((engine, summary, tolerance)) = run(backend)? else {
            continue;
        };
        let columns = deviations(&reference, &summary)
            .into_iter()
            .map(|(column, deviation)| {
                let exact = EXACT.contains(&column.as_str());
                let ok = if exact && tolerance < 1e-6 {
                    deviation == 0.0
                } else {
                    deviation <= tolerance.max(if exact { 0.5 } else { 0.0 })
                };
                ColumnDeviation { column, deviation, ok }
            })
            .collect();
        engines.push(EngineVerdict {
            engine,
            tolerance,
            columns,
        });
    }
    let nothing_compared = engines.is_empty();
    let ok = !nothing_compared && engines.iter().all(|e| e.columns.iter().all(|c| c.ok));
    Ok(Verification {
        scenario: scenario.name,
        scenes,
        engines,
        skipped,
        ok,
        nothing_compared,
    })
}
