//! A run's directory from Python: an ensemble's result written as `ricochet run` writes it
//! (`EnsembleResult.save`), and a directory read back (`ricochet.load(dir)`).

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use ricochet::ensemble::formats::Format;
use ricochet::ensemble::output::{RunFiles, RunInfo};
use ricochet::ensemble::provenance::Provenance;
use ricochet::ensemble::stop::Stopped;
use ricochet::ensemble::{INTEGER_COLUMNS, Statistics, Table, sensitivity};

use crate::convert::{exception, npy};
use crate::scenario::Scenario;

/// A table from its column names and its rows × columns f64 values (native byte order).
pub fn table((columns, values): (Vec<String>, Vec<u8>)) -> PyResult<Table> {
    if columns.is_empty() || !values.len().is_multiple_of(8 * columns.len()) {
        return Err(PyValueError::new_err(format!(
            "table: {} bytes are not rows of {} f64 columns",
            values.len(),
            columns.len()
        )));
    }
    let values = values
        .chunks_exact(8)
        .map(|b| f64::from_ne_bytes(b.try_into().unwrap_or_default()))
        .collect();
    Ok(Table { columns, values })
}

/// The scenario as a TOML text (its JSON form without the keys it leaves unset, which TOML
/// cannot hold, and without its seed, which `run.json` holds and TOML may not: a u64),
/// which `ricochet.load` parses back to the same scenario; empty for scenes a Python function
/// builds (the text cannot hold the function).
fn toml_text(scenario: &ricochet::ensemble::Scenario) -> PyResult<String> {
    if matches!(scenario.scene, ricochet::ensemble::custom::Scenes::Custom(..)) {
        return Ok(String::new());
    }
    fn unset_removed(value: serde_json::Value) -> serde_json::Value {
        match value {
            serde_json::Value::Object(map) => map
                .into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, unset_removed(v)))
                .collect(),
            serde_json::Value::Array(items) => items.into_iter().map(unset_removed).collect(),
            other => other,
        }
    }
    let mut json = serde_json::to_value(scenario).map_err(|e| PyValueError::new_err(format!("scenario: {e}")))?;
    if let Some(map) = json.as_object_mut() {
        map.remove("seed");
    }
    let value: toml::Value = serde_json::from_value(unset_removed(json))
        .map_err(|e| PyValueError::new_err(format!("scenario: no TOML form: {e}")))?;
    toml::to_string(&value).map_err(|e| PyValueError::new_err(format!("scenario: no TOML form: {e}")))
}

/// Writes into `dir` the files `ricochet run` writes for a run of `scenario`: the `tables`
/// (summary, trajectories, strobe, events; each column names and f64 row bytes, the last two
/// `None` where the scenario records none) of the run `run` describes (JSON: `engine`,
/// `driver`, `arithmetic`, `seconds`, `scene_steps`, `shard` [i, n], `stop`, and
/// `formats`, the tables' formats where not the scenario's `[output] formats`), and a
/// `provenance.json` holding the scenario as TOML. Returns the paths written.
#[pyfunction]
pub fn write_run(
    scenario: &Scenario,
    dir: PathBuf,
    tables: Vec<Option<(Vec<String>, Vec<u8>)>>,
    run: &str,
) -> PyResult<Vec<String>> {
    let run: serde_json::Value = serde_json::from_str(run).map_err(|e| PyValueError::new_err(format!("run: {e}")))?;
    let text = |key: &str| run[key].as_str().unwrap_or_default().to_string();
    let mut tables = tables.into_iter().map(|t| t.map(table).transpose());
    let mut next = || tables.next().unwrap_or(Ok(None));
    let (summary, trajectories, strobe, events) = (next()?, next()?, next()?, next()?);
    let (Some(summary), Some(trajectories)) = (summary, trajectories) else {
        return Err(PyValueError::new_err("write_run: a run has a summary and trajectories"));
    };
    let inner = &scenario.inner;
    // (First what may fail: the directory is cleared only once the files are ready.)
    let scenario_text = toml_text(inner)?;
    let plan = inner.plan().map_err(exception)?;
    let stop: Option<Stopped> = serde_json::from_value(run["stop"].clone()).unwrap_or_default();
    let shard = serde_json::from_value::<[usize; 2]>(run["shard"].clone()).unwrap_or([0, 1]);
    let formats: Vec<Format> = match &run["formats"] {
        serde_json::Value::Null => inner.output.formats.clone(),
        given => serde_json::from_value(given.clone())
            .map_err(|e| PyValueError::new_err(format!("formats: {e} (csv, npy or parquet)")))?,
    };
    let info = RunInfo {
        scenario: inner.name.clone(),
        seed: inner.seed,
        scenes: stop.as_ref().map_or(inner.scenes, |s| s.scenes),
        shard,
        scenario_hash: inner.fingerprint(),
        arithmetic: text("arithmetic"),
        parameters: plan.drawn,
        observables: inner.answers(),
        units: plan.units,
        saltelli: plan.saltelli,
        stop,
        formats,
    };
    let files = RunFiles {
        info,
        summary,
        trajectories,
        strobe,
        events,
    };
    let written = files.write(&dir).map_err(exception)?;
    let (ricochet, commit) = Provenance::build();
    let seconds = run["seconds"].as_f64().unwrap_or(f64::NAN);
    let now = std::time::SystemTime::now();
    let started = now - std::time::Duration::try_from_secs_f64(seconds).unwrap_or_default();
    let provenance = Provenance {
        ricochet,
        commit,
        command: std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect(),
        scenario_file: String::new(),
        scenario_hash: inner.fingerprint(),
        scenario_text,
        engine: text("engine"),
        driver: run["driver"].as_str().map(String::from),
        arithmetic: text("arithmetic"),
        resumed: false,
        started: humantime::format_rfc3339_seconds(started).to_string(),
        finished: humantime::format_rfc3339_seconds(now).to_string(),
        seconds,
        scene_steps_per_second: run["scene_steps"].as_f64().unwrap_or(f64::NAN) / seconds,
        host: Provenance::host(),
        cpu: Provenance::cpu(),
        dirty: Provenance::dirty(),
    };
    let mut paths = written.paths;
    paths.push(provenance.write(&dir).map_err(exception)?);
    Ok(paths.iter().map(|p| p.display().to_string()).collect())
}

/// Reads the run directory `dir` (`ricochet run`'s, a merge's, or `EnsembleResult.save`'s):
/// a dict of the `.npy` bytes of `summary`, `trajectories`, `strobe` and `events` (the last
/// two `None` where absent), `info` (run.json), `stats` and, for a Saltelli design,
/// `sensitivity` (JSON, computed from the summary as the run did).
#[pyfunction]
pub fn read_run<'py>(py: Python<'py>, dir: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let files = RunFiles::read(&dir).map_err(exception)?;
    let result = PyDict::new(py);
    result.set_item("summary", PyBytes::new(py, &npy(&files.summary, &INTEGER_COLUMNS)?))?;
    result.set_item("trajectories", PyBytes::new(py, &npy(&files.trajectories, &["scene"])?))?;
    for (name, table, integers) in [
        ("strobe", &files.strobe, &["scene"][..]),
        ("events", &files.events, &["scene", "row"][..]),
    ] {
        match table {
            Some(table) => result.set_item(name, PyBytes::new(py, &npy(table, integers)?))?,
            None => result.set_item(name, py.None())?,
        }
    }
    result.set_item("info", json(&files.info))?;
    let (stats, indices) = summarised(&files.summary, &files.info.saltelli, files.info.seed);
    result.set_item("stats", stats)?;
    result.set_item("sensitivity", indices)?;
    Ok(result)
}

/// What a run computes of its `summary`, as JSON: the statistics and, for a Saltelli design
/// of the parameters `saltelli` (else `None`), the Sobol indices drawn from `seed`.
pub fn summarised(summary: &Table, saltelli: &[String], seed: u64) -> (String, Option<String>) {
    let indices = sensitivity::of(summary, saltelli, seed);
    (json(&Statistics::of(summary)), indices.as_ref().map(json))
}

/// The JSON text of `value`.
fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
