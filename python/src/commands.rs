//! `run`, `verify`, `bench` and `check` started as [`Job`]s, and `templates`: the library's
//! commands, as `ricochet`'s command line runs them.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use ricochet::ensemble::{self, INTEGER_COLUMNS, RunOptions, Shard};
use ricochet::scenes::template::Template;

use crate::convert::{exception, npy};
use crate::files::summarised;
use crate::job::{Job, Output};
use crate::scenario::Scenario;

/// `value` handed to Python as its JSON text (`json.loads` makes it a dict or a list).
fn json(value: &impl serde::Serialize) -> ricochet::Result<Output> {
    let text =
        serde_json::to_string(value).map_err(|e| ricochet::Error::Io(std::io::Error::other(format!("JSON: {e}"))))?;
    Ok(Box::new(move |py| Ok(text.into_pyobject(py)?.into_any().unbind())))
}

/// Runs the ensemble of `scenario` on `backend` (`auto`, `gpu`, `cpu`, `reference`), the
/// scenes of `shard` (`i/n`), `chunk` scenes at a time, keeping each finished chunk in the
/// directory `checkpoints` where given (and continuing the run interrupted there when
/// `resume`). The result is a dict: `engine`,
/// `arithmetic`, `notice`, `seconds`, `device_seconds`, `scene_steps`, the `.npy` bytes of
/// `summary`, `trajectories`, `strobe` and `events` (the last two `None` when the scenario
/// records none), `stats` (JSON), `stop` (JSON of where `[stop]` stopped the run, or `None`),
/// `shard` ([i, n], `auto` resolved), and `failures`: `[(scene, exception)]` for the scenes
/// whose Python functions raised (their summary rows are not finite).
#[pyfunction]
#[pyo3(signature = (scenario, backend="auto", shard="0/1", chunk=None, checkpoints=None, resume=false))]
pub fn start_run(
    scenario: &Scenario,
    backend: &str,
    shard: &str,
    chunk: Option<usize>,
    checkpoints: Option<std::path::PathBuf>,
    resume: bool,
) -> PyResult<Job> {
    if resume && checkpoints.is_none() {
        return Err(PyValueError::new_err(
            "resume: there is nothing to resume without `checkpoints` (the directory the interrupted run kept its chunks in)",
        ));
    }
    let options = RunOptions {
        backend: backend.parse().map_err(exception)?,
        chunk,
        shard: shard.parse::<Shard>().map_err(exception)?,
        checkpoints,
        resume,
    };
    let (scenario, failures) = (scenario.inner.clone(), scenario.failures.clone());
    failures.take();
    Job::start(move |watch| {
        let total = options.shard.range(scenario.scenes).len();
        let run = ricochet::ensemble::Watch::watch(watch, &scenario.name, (total, scenario.steps()), |progress| {
            ensemble::run(&scenario, &options, progress)
        })?;
        let (stats, sensitivity) = summarised(&run.summary, &run.plan.saltelli, scenario.seed);
        let stop = run.stop.as_ref().map(|s| serde_json::to_string(s).unwrap_or_default());
        let tables = [
            Some(npy(&run.summary, &INTEGER_COLUMNS)),
            Some(npy(&run.trajectories, &["scene"])),
            scenario.strobe.is_some().then(|| npy(&run.strobe, &["scene"])),
            scenario.events.is_some().then(|| npy(&run.events, &["scene", "row"])),
        ];
        let raised = failures.take();
        let shard = [options.shard.index, options.shard.count];
        let output: Output = Box::new(move |py| {
            let result = PyDict::new(py);
            result.set_item(
                "failures",
                raised
                    .into_iter()
                    .map(|(scene, e)| (scene, e.into_value(py)))
                    .collect::<Vec<_>>(),
            )?;
            result.set_item("shard", shard)?;
            result.set_item("engine", &run.engine)?;
            result.set_item("arithmetic", &run.arithmetic)?;
            result.set_item("notice", &run.notice)?;
            result.set_item("seconds", run.seconds)?;
            result.set_item("device_seconds", run.device_seconds)?;
            result.set_item("scene_steps", run.scene_steps)?;
            result.set_item("stats", stats)?;
            result.set_item("stop", stop)?;
            result.set_item("sensitivity", sensitivity)?;
            for (name, table) in ["summary", "trajectories", "strobe", "events"].into_iter().zip(tables) {
                match table {
                    Some(bytes) => result.set_item(name, PyBytes::new(py, &bytes?))?,
                    None => result.set_item(name, py.None())?,
                }
            }
            Ok(result.into_any().unbind())
        });
        Ok(output)
    })
}

/// What a run computes of its summary, for one put together from shards (`run(...,
/// client=)`): the statistics (stats.json's JSON) and, for a Saltelli design's `scenario`,
/// the Sobol indices (sensitivity.json's JSON, else `None`) of the table whose `columns` are
/// named and whose rows × columns values are `values` (f64, native byte order) — the same
/// numbers as a run of all its scenes computes.
#[pyfunction]
pub fn summarise(scenario: &Scenario, columns: Vec<String>, values: &[u8]) -> PyResult<(String, Option<String>)> {
    let table = crate::files::table((columns, values.to_vec()))?;
    let saltelli = match scenario.inner.design {
        Some(_) => scenario.inner.plan().map_err(exception)?.saltelli,
        None => Vec::new(),
    };
    Ok(summarised(&table, &saltelli, scenario.inner.seed))
}

/// `ricochet run` on a large-scene scenario (`text`, read from `origin`): one scene stepped
/// on `backend` (`auto`, `gpu`, `cpu`), its files written into `out`; the run as JSON
/// (`engine`, `notice`, `bodies`, `steps`, `resumed_steps`, `seconds`, `contact_iterations`,
/// `unconverged_steps`, `files`); with `resume`, continued from the checkpoint an
/// interrupted run left in `out`.
#[pyfunction]
#[pyo3(signature = (text, origin, out, backend="auto", resume=false))]
pub fn start_large_run(
    text: &str,
    origin: &str,
    out: std::path::PathBuf,
    backend: &str,
    resume: bool,
) -> PyResult<Job> {
    use ricochet::ensemble::large_scene::LargeScenario;
    let scenario = LargeScenario::from_toml(text, origin).map_err(exception)?;
    let backend = backend.parse().map_err(exception)?;
    Job::start(move |watch| {
        let (mut solver, engine, notice) = ensemble::large_solver::solver(backend, scenario.solver.method)?;
        let run = ricochet::ensemble::Watch::watch(watch, &scenario.name, (1, scenario.steps()), |progress| {
            scenario.run(&out, solver.as_mut(), resume, progress)
        })?;
        // The engine's fallback and the picture's, if any (None when neither).
        let notices: Vec<String> = [notice, run.notice.clone()].into_iter().flatten().collect();
        let notices = (!notices.is_empty()).then(|| notices.join("; "));
        json(&serde_json::json!({
            "engine": engine,
            "notice": notices,
            "bodies": run.bodies,
            "steps": run.steps,
            "resumed_steps": run.resumed_steps,
            "seconds": run.seconds,
            "contact_iterations": run.contact_iterations,
            "unconverged_steps": run.unconverged_steps,
            "files": run.files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        }))
    })
}

/// `ricochet verify`: the first `scenes` scenes (to `max_time` at most) on every backend
/// against the reference stepper; the verdict as JSON.
#[pyfunction]
#[pyo3(signature = (scenario, scenes=8, max_time=None))]
pub fn start_verify(scenario: &Scenario, scenes: usize, max_time: Option<f64>) -> PyResult<Job> {
    let scenario = scenario.inner.clone();
    Job::start(move |watch| json(&ensemble::verify::verify(scenario, scenes, max_time, watch)?))
}

/// `ricochet bench`: every backend's throughput at each of `sizes` (the reference up to
/// `reference_up_to` scenes), each the median of `repeat` runs, the GPU at each of
/// `precisions` (`auto`, `f32`, `f64`); the rows as JSON.
#[pyfunction]
#[pyo3(signature = (scenario, sizes, reference_up_to=1000, repeat=3, precisions=vec!["auto".to_string()]))]
pub fn start_bench(
    scenario: &Scenario,
    sizes: Vec<usize>,
    reference_up_to: usize,
    repeat: usize,
    precisions: Vec<String>,
) -> PyResult<Job> {
    use ricochet::ensemble::scenario::PrecisionChoice;
    let precisions = precisions
        .iter()
        .map(|p| match p.as_str() {
            "auto" => Ok(PrecisionChoice::Auto),
            "f32" => Ok(PrecisionChoice::F32),
            "f64" => Ok(PrecisionChoice::F64),
            other => Err(pyo3::exceptions::PyValueError::new_err(format!(
                "precision {other:?}: expected auto, f32 or f64"
            ))),
        })
        .collect::<PyResult<Vec<_>>>()?;
    use ensemble::Backend;
    let plan = ensemble::bench::BenchPlan {
        backends: vec![Backend::Reference, Backend::Cpu, Backend::Gpu],
        sizes,
        reference_up_to,
        repeat: repeat.max(1),
        precisions,
    };
    let scenario = scenario.inner.clone();
    Job::start(move |watch| json(&ensemble::bench::bench(scenario, &plan, watch, |_| Ok(()))?))
}

/// `ricochet check`: the dry run's findings as JSON.
#[pyfunction]
pub fn start_check(scenario: &Scenario) -> PyResult<Job> {
    let scenario = scenario.inner.clone();
    Job::start(move |watch| json(&ensemble::check::check(&scenario, watch)?))
}

/// The shipped scenarios (`scenarios/*.toml`, compiled in) as `{name: TOML text}`.
#[pyfunction]
pub fn shipped_scenarios() -> std::collections::BTreeMap<&'static str, &'static str> {
    ensemble::shipped::SHIPPED.iter().copied().collect()
}

/// Every template: `[{"name", "parameters": [{"name", "default", "unit"}]}]` in the order it
/// asks for them (as `ricochet templates`), as JSON.
#[pyfunction]
pub fn templates() -> String {
    let all: Vec<serde_json::Value> = Template::all()
        .map(|template| {
            let parameters: Vec<serde_json::Value> = (template.parameters().into_iter())
                .map(|d| serde_json::json!({ "name": d.name, "default": d.default, "unit": d.unit }))
                .collect();
            serde_json::json!({ "name": template.name(), "parameters": parameters })
        })
        .collect();
    serde_json::Value::Array(all).to_string()
}
