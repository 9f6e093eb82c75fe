//! A run's tables from the engines' outcomes: the summary (one row per scene), and the
//! trajectories of the recorded scenes.

use nalgebra::DVector;
use rayon::prelude::*;

use super::derive::Derived;
use super::scene_spec::SampledScene;
use super::{Engine, Scenario, Table, engine, records};
use crate::batch::layout::{EXTREMES, HealthCounters, NON_FINITE, NOT_CONVERGED};
use crate::batch::observe::{NOTHING, Recording, SLOTS};
use crate::batch::{BatchOutcome, Progress};
use crate::engine::velocity_name;
use crate::error::{Error, Result};

/// The summary columns that hold counts and flags: integers in NPY and Parquet files.
pub const INTEGER_COLUMNS: [&str; 7] = [
    "scene",
    "events_dropped",
    "impacts",
    "in_contact",
    "lcp_iterations",
    "converged",
    "finite",
];

/// The summary columns: `scene`, the drawn parameters, the observables (`[[observe]]`, in
/// their order), `impacts` (contact onsets; with `[time] locate_impacts`, the located
/// impacts, one per time, and the onsets of steps without one), `last_impact_time` (end of
/// the step of the last one, or its located time;
/// NaN without impacts), `in_contact`
/// (1 if a contact carried an impulse in the last step: at rest on a support),
/// the final state (the coordinates by name, `z`, `theta`, …, or `q0…`, then their
/// velocities `z_dot`, … or `v0…`), `max_penetration` (max over steps of −y, ≥ 0),
/// `cone_violation` (max over steps and friction contacts of ‖λ_T‖ − μ λ_N, ≥ 0: 0 when
/// Coulomb's cone holds),
/// `energy_initial`, `energy_change` (final − initial), `lcp_residual` (worst Siconos
/// error), `lcp_iterations` (most sweeps in a step), `converged` and `finite` (1 or 0), then
/// the derived columns (`[[derive]]`, in their order).
///
/// Read off the scenario's [`Plan`](super::Plan): an error in its observers or `[events]`
/// is this function's error too.
pub fn summary_columns(scenario: &Scenario) -> Result<Vec<String>> {
    Ok(scenario.plan()?.columns)
}

/// [`summary_columns`] of scenes of `coordinates`, with the parameters `drawn`.
pub(super) fn columns(scenario: &Scenario, drawn: &[String], coordinates: &[String]) -> Result<Vec<String>> {
    let mut columns = vec!["scene".to_string()];
    columns.extend(drawn.iter().cloned());
    columns.extend(scenario.observe.iter().map(|o| o.name.clone()));
    if scenario.events.is_some() {
        columns.push("events_dropped".into());
    }
    columns.extend(["impacts", "last_impact_time", "in_contact"].map(String::from));
    columns.extend(state_columns(coordinates));
    columns.extend(
        [
            "max_penetration",
            "cone_violation",
            "energy_initial",
            "energy_change",
            "lcp_residual",
            "lcp_iterations",
            "converged",
            "finite",
        ]
        .map(String::from),
    );
    // A name twice: the observable's fault where it is one's, else the parameter's or the
    // coordinate's.
    let twice = |c: &&String| columns.iter().filter(|d| d == c).count() > 1;
    if let Some(o) = scenario.observe.iter().find(|o| twice(&&o.name)) {
        return Err(Error::Scenario {
            what: format!("[[observe]] `{}`", o.name),
            reason: "the name is taken by a column of the summary".into(),
        });
    }
    if let Some(c) = columns.iter().find(twice) {
        return Err(Error::Scenario {
            what: format!("the summary's column `{c}`"),
            reason: "two columns have this name (a drawn parameter, a coordinate or its velocity, or an output column): rename the parameter or the coordinate".into(),
        });
    }
    // (Compiled here to check the expressions before any scene runs.)
    Derived::compile(&scenario.derive, &columns)?;
    columns.extend(scenario.derive.iter().map(|d| d.name.clone()));
    Ok(columns)
}

/// The state's columns: the coordinates (`z`, `theta`, … or `q0`, `q1`, …), then their
/// velocities (`z_dot`, … or `v0`, …).
fn state_columns(coordinates: &[String]) -> Vec<String> {
    let velocities = coordinates.iter().map(|c| velocity_name(c));
    coordinates.iter().cloned().chain(velocities).collect()
}

/// The trajectory columns: `scene`, `t`, then the state's (coordinates, velocities).
pub(super) fn trajectory_columns(coordinates: &[String]) -> Vec<String> {
    let mut columns = vec!["scene".to_string(), "t".to_string()];
    columns.extend(state_columns(coordinates));
    columns
}

/// Appends the scenes' summary rows, their stroboscopic samples and their impact events; the
/// scenes have n dof and m rows (`sizes`).
pub(super) fn append_summary(
    [summary, strobe, events]: [&mut Table; 3],
    (scenario, recording, sizes): (&Scenario, &Recording, (usize, usize)),
    scenes: &[SampledScene],
    outcome: &BatchOutcome,
    offsets: &[usize],
) -> Result<()> {
    let expected = recording.len(sizes.0, sizes.1) * scenes.len();
    if outcome.observed.len() != expected {
        return Err(Error::Unsupported {
            what: "a chunk's records".into(),
            reason: format!(
                "{} values where scenes of {} dof and {} rows leave {expected}: the scenes of an ensemble have one size",
                outcome.observed.len(),
                sizes.0,
                sizes.1
            ),
        });
    }
    // The rows on all cores, each written in its place (and its scratch freed there);
    // `offsets`: where each scene's q, v start in `outcome`.
    let width = summary.columns.len();
    let derived = Derived::compile(
        &scenario.derive,
        &summary.columns[..width.saturating_sub(scenario.derive.len())],
    )?;
    let start = summary.values.len();
    summary.values.resize(start + width * scenes.len(), 0.0);
    let written = summary.values[start..]
        .par_chunks_mut(width)
        .zip(scenes.par_iter().zip(offsets))
        .enumerate()
        .try_for_each(|(k, (out, (scene, &offset)))| {
            let mut row = summary_row((scenario, recording, sizes), scene, outcome, k, offset)?;
            Derived::extend(&derived, &mut row)?;
            if row.len() != width {
                return Err(Error::Unsupported {
                    what: format!("scene {}'s summary row", scene.index),
                    reason: format!("{} values for {width} columns", row.len()),
                });
            }
            out.copy_from_slice(&row);
            Ok(())
        });
    if let Err(e) = written {
        // (No half-written rows stay.)
        summary.values.truncate(start);
        return Err(e);
    }
    records::append(
        (strobe, events),
        (recording, sizes, scenario.time.step),
        scenes,
        outcome,
    );
    Ok(())
}

/// Scene `k`'s summary row; its q, v start at `offset` in the outcome.
fn summary_row(
    (scenario, recording, sizes): (&Scenario, &Recording, (usize, usize)),
    scene: &SampledScene,
    outcome: &BatchOutcome,
    k: usize,
    offset: usize,
) -> Result<Vec<f64>> {
    let (q0, v0) = scene.scene.initial_state();
    let n = q0.len();
    let state = &outcome.state[offset..offset + 2 * n];
    let c: HealthCounters = outcome.counters[k];
    let [residual, deepest, cone] = [0, 1, 2].map(|i| outcome.extremes[EXTREMES * k + i]);
    let (q, v) = (
        DVector::from_column_slice(&state[..n]),
        DVector::from_column_slice(&state[n..]),
    );
    let energy_initial = scene.scene.energy(&q0, &v0)?;
    let energy_final = scene.scene.energy(&q, &v)?;
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    let mut row = Vec::with_capacity(scene.drawn.len() + 2 * n + 12);
    row.push(scene.index as f64);
    row.extend(&scene.drawn);
    let slots = &outcome.observed[recording.len(sizes.0, sizes.1) * k..];
    for (observer, slots) in recording.observers.iter().zip(slots.chunks(SLOTS)) {
        row.push(observer.value(slots, 0.0, scenario.time.step, c.steps));
    }
    if recording.events.is_some() {
        row.push(records::dropped(recording, sizes, outcome, k));
    }
    row.push(f64::from(c.impacts));
    row.push(match outcome.impact_times.get(k) {
        Some(&located) => located,
        None if c.impacts > 0 => f64::from(c.last_impact) * scenario.time.step,
        None => f64::NAN,
    });
    row.push(flag(c.in_contact()));
    row.extend(state);
    row.push(deepest.max(0.0));
    row.push(cone.max(0.0));
    row.push(energy_initial);
    row.push(energy_final - energy_initial);
    row.push(residual.max(0.0));
    row.push(f64::from(c.max_iterations));
    row.push(flag(c.flags & NOT_CONVERGED == 0));
    // Finite: no NaN or infinity appeared while stepping, and none in what the row reports
    // (an energy can overflow where the state does not: ½ m v² at |v| = 1e160).
    // (The extremes before they are clamped: f64::MIN where nothing was recorded.)
    let reported = [energy_initial, energy_final, residual, deepest, cone]
        .iter()
        .chain(state)
        .all(|&x| x.is_finite());
    row.push(flag(c.flags & NON_FINITE == 0 && reported));
    Ok(row)
}

/// The trajectories of `scenes` (of `coordinates`, `steps` steps): the run cut into segments
/// of `record.stride` steps, the state read back after each (until `progress` is cancelled).
pub(super) fn record(
    engine: &dyn Engine,
    (scenario, coordinates, steps): (&Scenario, &[String], u32),
    scenes: &[usize],
    progress: &Progress,
) -> Result<Table> {
    let sampler = scenario.sampler()?;
    let sampled: Vec<SampledScene> = scenes.iter().map(|&s| sampler.sample(s)).collect::<Result<_>>()?;
    let n = coordinates.len();
    let mut table = Table::new(trajectory_columns(coordinates));
    if sampled.is_empty() {
        return Ok(table);
    }
    let mut state: Vec<f64> = sampled
        .iter()
        .flat_map(|s| {
            let (q, v) = s.scene.initial_state();
            q.iter().chain(v.iter()).copied().collect::<Vec<_>>()
        })
        .collect();
    let mut rows: Vec<(usize, u32, Vec<f64>)> = Vec::new();
    let mut push = |k: u32, state: &[f64]| {
        for (i, s) in scenes.iter().enumerate() {
            rows.push((*s, k, state[2 * n * i..2 * n * (i + 1)].to_vec()));
        }
    };
    push(0, &state);
    let mut k = 0;
    while k < steps && !progress.cancelled() {
        let segment = scenario.record.stride.min(steps - k);
        let t0 = f64::from(k) * scenario.time.step;
        state = engine
            .run(&engine::job(scenario, &sampled, Some((t0, &state)), segment, &NOTHING))?
            .state;
        k += segment;
        push(k, &state);
    }
    rows.sort_by_key(|(s, k, _)| (*s, *k));
    for (s, k, values) in rows {
        let mut row = vec![s as f64, f64::from(k) * scenario.time.step];
        row.extend(values);
        table.push(&row);
    }
    Ok(table)
}
