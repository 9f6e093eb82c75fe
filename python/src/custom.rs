//! Your own system as an ensemble from Python: a function `build(index, rng)` returns scene
//! `index` as an `Nsds` (or `(Nsds, {name: value})`, the values it drew, which become summary
//! columns), drawing from `rng`, the scene's own random stream (ChaCha8 on stream `index` of
//! the seed, as a template's scene draws). The scenes then run through the library's ensemble
//! machinery: the batched engines where the systems reduce to their step operators (the
//! linear systems and relations built here do), else the reference stepper.

use std::sync::Mutex;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution as _, Normal};
use ricochet::ensemble::{self, custom::Built};

use crate::convert::exception;
use crate::model::Nsds;
use crate::scenario::{Failures, Scenario};

/// The keys of a scenario's settings besides `[scene]`, which `build` replaces.
const SETTINGS: [&str; 9] = [
    "name", "scenes", "seed", "time", "solver", "record", "observe", "strobe", "events",
];

/// A scene's random stream, for `build` to draw from.
#[pyclass(module = "ricochet._ricochet", frozen)]
pub struct Rng {
    inner: Mutex<ChaCha8Rng>,
}

impl Rng {
    fn draw<T>(&self, f: impl FnOnce(&mut ChaCha8Rng) -> T) -> T {
        f(&mut self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }
}

#[pymethods]
impl Rng {
    /// A uniform number in [0, 1).
    fn random(&self) -> f64 {
        self.draw(|rng| rng.random::<f64>())
    }

    /// A uniform number in [low, high): low + (high − low) u.
    fn uniform(&self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.random()
    }

    /// A normal number of mean `mean` and standard deviation `std` ≥ 0.
    fn normal(&self, mean: f64, std: f64) -> PyResult<f64> {
        let normal =
            Normal::new(mean, std).map_err(|e| PyValueError::new_err(format!("normal({mean}, {std}): {e}")))?;
        Ok(self.draw(|rng| normal.sample(rng)))
    }

    /// An integer in [low, high).
    fn integers(&self, low: i64, high: i64) -> PyResult<i64> {
        if low >= high {
            return Err(PyValueError::new_err(format!(
                "integers({low}, {high}): low must be below high"
            )));
        }
        Ok(self.draw(|rng| rng.random_range(low..high)))
    }
}

/// Scene `index` built by the Python function `build`; its models' failures recorded in
/// `failures`.
fn built(build: &Py<PyAny>, index: usize, rng: &ChaCha8Rng, failures: &Failures) -> PyResult<Built> {
    Python::attach(|py| {
        let rng = Py::new(
            py,
            Rng {
                inner: Mutex::new(rng.clone()),
            },
        )?;
        let out = build.call1(py, (index, rng))?;
        let out = out.bind(py);
        let (nsds, drawn) = match out.cast::<PyTuple>() {
            Ok(pair) if pair.len() == 2 => (pair.get_item(0)?, Some(pair.get_item(1)?)),
            _ => (out.clone(), None),
        };
        let nsds = nsds
            .extract::<PyRef<'_, Nsds>>()
            .map_err(|_| PyValueError::new_err("build must return an Nsds, or (Nsds, {name: value})"))?;
        let drawn = match drawn {
            None => Vec::new(),
            Some(values) => values
                .cast::<PyDict>()
                .map_err(|_| PyValueError::new_err("the values drawn must be a dict {name: value}"))?
                .iter()
                .map(|(name, value)| {
                    let (name, value) = (name.extract::<String>()?, value.extract::<f64>()?);
                    match value.is_finite() {
                        true => Ok((name, value)),
                        false => Err(PyValueError::new_err(format!(
                            "the value `{name}` build drew for scene {index} is {value}: drawn values are summary columns and must be finite"
                        ))),
                    }
                })
                .collect::<PyResult<_>>()?,
        };
        failures.add(index, &nsds.failures);
        Ok((Box::new(nsds.inner.clone()) as Box<dyn ricochet::engine::Scene>, drawn))
    })
}

/// The setting `key` of a scenario from its value.
fn parse<T: serde::de::DeserializeOwned>(key: &str, value: toml::Value) -> PyResult<T> {
    value
        .try_into()
        .map_err(|e| PyValueError::new_err(format!("scenario: `{key}`: {e}")))
}

/// A scenario whose scenes `build` makes: `settings` is the JSON of a scenario's table
/// without `[scene]` (`name`, `scenes`, `seed`, `[time]`, `[solver]`, `[record]`,
/// `[[observe]]`, `[strobe]`, `[events]`) when `kind` is `"json"`, or that table's TOML text
/// when `"toml"`.
#[pyfunction]
pub fn custom_scenario(settings: &str, kind: &str, build: Py<PyAny>) -> PyResult<Scenario> {
    let table: toml::Table = match kind {
        "json" => serde_json::from_str(settings).map_err(|e| e.to_string()),
        "toml" => toml::from_str(settings).map_err(|e| e.to_string()),
        _ => Err(format!("kind `{kind}`: expected json or toml")),
    }
    .map_err(|e| PyValueError::new_err(format!("scenario: {e}")))?;
    if let Some(key) = table.keys().find(|k| !SETTINGS.contains(&k.as_str())) {
        let why = if key == "scene" {
            "a scenario built by a function has no [scene]: the function builds the scenes".to_string()
        } else {
            format!("unknown key; expected one of {}", SETTINGS.join(", "))
        };
        return Err(PyValueError::new_err(format!("scenario: `{key}`: {why}")));
    }
    let field = |key: &str| table.get(key).cloned();
    let name: String = parse("name", field("name").unwrap_or_else(|| "custom".into()))?;
    let scenes: usize = parse("scenes", field("scenes").unwrap_or(toml::Value::Integer(1000)))?;
    let seed: u64 = parse("seed", field("seed").unwrap_or(toml::Value::Integer(0)))?;
    let time = parse(
        "time",
        field("time").ok_or_else(|| PyValueError::new_err("scenario: `time`: missing"))?,
    )?;
    let failures = Failures::default();
    let kept = failures.clone();
    let build = move |index: usize, rng: &mut ChaCha8Rng| {
        built(&build, index, rng, &kept).map_err(|e| ricochet::Error::Scenario {
            what: "build".into(),
            reason: Python::attach(|py| {
                let traceback = e.traceback(py).and_then(|t| t.format().ok()).unwrap_or_default();
                format!("{e}\n{traceback}")
            }),
        })
    };
    let mut inner = ensemble::Scenario::custom(&name, (scenes, seed), time, build).map_err(exception)?;
    if let Some(v) = field("solver") {
        inner.solver = parse("solver", v)?;
    }
    if let Some(v) = field("record") {
        inner.record = parse("record", v)?;
    }
    if let Some(v) = field("observe") {
        inner.observe = parse("observe", v)?;
    }
    if let Some(v) = field("strobe") {
        inner.strobe = Some(parse("strobe", v)?);
    }
    if let Some(v) = field("events") {
        inner.events = Some(parse("events", v)?);
    }
    inner.validate().map_err(exception)?;
    Ok(Scenario { inner, failures })
}
