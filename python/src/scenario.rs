//! A scenario from Python: a file, a TOML text or a dict (given as JSON), parsed and checked
//! by the library as `ricochet run` parses a file.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use ricochet::ensemble;
use std::sync::{Arc, Mutex, PoisonError};

use crate::callbacks::Failure;

use crate::convert::exception;

/// A checked scenario (`ricochet.load` makes one).
#[pyclass(module = "ricochet._ricochet", frozen)]
#[derive(Clone)]
pub struct Scenario {
    pub inner: ensemble::Scenario,
    /// The scenes built by a Python function whose models have Python functions: where
    /// each keeps an exception (see [`Failures`]).
    pub failures: Failures,
}

/// The scenes whose models have Python functions, each with the [`Failure`] its functions
/// keep an exception in: the run reports the scenes that raised.
#[derive(Clone, Default)]
pub struct Failures(Arc<Mutex<Vec<(usize, Failure)>>>);

impl Failures {
    /// Records the failures of scene `scene`'s models.
    pub fn add(&self, scene: usize, failures: &[Failure]) {
        let mut all = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        all.extend(failures.iter().map(|f| (scene, f.clone())));
    }

    /// The exceptions raised, one per scene (the first), in scene order; forgets them all.
    pub fn take(&self) -> Vec<(usize, PyErr)> {
        let all = std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner));
        let mut raised: Vec<(usize, PyErr)> = all
            .into_iter()
            .filter_map(|(scene, f)| Some((scene, f.take()?)))
            .collect();
        raised.sort_by_key(|(scene, _)| *scene);
        raised.dedup_by_key(|(scene, _)| *scene);
        raised
    }
}

#[pymethods]
impl Scenario {
    /// Parses `source`: a path when `kind` is `"path"`, a TOML text when `"toml"`, and the
    /// JSON of a dict of the TOML's shape when `"json"`; `scenes` and `seed`, where given,
    /// replace its own before it is checked.
    #[new]
    #[pyo3(signature = (source, kind, scenes=None, seed=None))]
    fn new(source: &str, kind: &str, scenes: Option<usize>, seed: Option<u64>) -> PyResult<Self> {
        let sizes = (scenes, seed);
        let inner = match kind {
            "path" => ensemble::Scenario::load_with(source, sizes),
            "toml" => ensemble::Scenario::from_toml_with(source, sizes),
            "json" => {
                let value: toml::Value = serde_json::from_str(source)
                    .map_err(|e| PyValueError::new_err(format!("scenario: the dict is not a scenario's shape: {e}")))?;
                let text = toml::to_string(&value)
                    .map_err(|e| PyValueError::new_err(format!("scenario: the dict has no TOML form: {e}")))?;
                ensemble::Scenario::from_toml_with(&text, sizes)
            }
            _ => {
                return Err(PyValueError::new_err(format!(
                    "scenario kind `{kind}`: expected path, toml or json"
                )));
            }
        }
        .map_err(exception)?;
        Ok(Self {
            inner,
            failures: Failures::default(),
        })
    }

    /// Pickles as its JSON form, read back by [`scenario_from_json`] (the same fingerprint);
    /// a scenario whose scenes a Python function builds does not pickle (its function is
    /// not part of it): a TypeError says so.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        if matches!(self.inner.scene, ensemble::custom::Scenes::Custom(..)) {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "scenario `{}`: its scenes are built by your function, which it does not hold: pickle the settings and the function, and load them again",
                self.inner.name
            )));
        }
        let json = serde_json::to_string(&self.inner).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let module = py.import("ricochet._ricochet")?;
        Ok((module.getattr("scenario_from_json")?, (json,)))
    }

    /// This scenario with `scenes` scenes and seed `seed` where given (checked again).
    #[pyo3(signature = (scenes=None, seed=None))]
    fn with_size(&self, scenes: Option<usize>, seed: Option<u64>) -> PyResult<Self> {
        let mut inner = self.inner.clone();
        inner.scenes = scenes.unwrap_or(inner.scenes);
        inner.seed = seed.unwrap_or(inner.seed);
        inner.validate().map_err(exception)?;
        Ok(Self {
            inner,
            failures: self.failures.clone(),
        })
    }

    /// This scenario with the stop rule `stop`, the JSON of a dict of `[stop]`'s shape
    /// (`min_scenes`, `every`, `max_scenes`, `target`: a list of `{column, half_width}` or
    /// `{column, relative}`); its `max_scenes` becomes the scenario's `scenes` (checked again).
    fn with_stop(&self, stop: &str) -> PyResult<Self> {
        let mut rule: ensemble::stop::StopRule =
            serde_json::from_str(stop).map_err(|e| PyValueError::new_err(format!("stop: {e}")))?;
        let mut inner = self.inner.clone();
        if let Some(max) = rule.max_scenes.take() {
            inner.scenes = max;
        }
        inner.stop = Some(rule);
        inner.validate().map_err(exception)?;
        Ok(Self {
            inner,
            failures: self.failures.clone(),
        })
    }

    /// The scenario's name.
    #[getter]
    fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// Its number of scenes.
    #[getter]
    fn scenes(&self) -> usize {
        self.inner.scenes
    }

    /// Its seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.inner.seed
    }

    /// Steps per scene.
    #[getter]
    fn steps(&self) -> u64 {
        self.inner.steps()
    }

    /// The units of its summary columns whose unit is known, as JSON (`{"height": "m", …}`,
    /// as `run.json`'s `units`).
    #[getter]
    fn units(&self) -> PyResult<String> {
        let plan = self.inner.plan().map_err(exception)?;
        Ok(serde_json::to_string(&plan.units).unwrap_or_default())
    }

    /// Its stop rule (`[stop]`) as JSON, or `None`.
    #[getter]
    fn stop(&self) -> Option<String> {
        self.inner
            .stop
            .as_ref()
            .map(|s| serde_json::to_string(s).unwrap_or_default())
    }

    /// A hash of everything it says (as `run.json`'s).
    #[getter]
    fn fingerprint(&self) -> String {
        self.inner.fingerprint()
    }

    /// Whether it records impact events, stroboscopic samples.
    #[getter]
    fn records(&self) -> (bool, bool) {
        (self.inner.events.is_some(), self.inner.strobe.is_some())
    }

    fn __repr__(&self) -> String {
        format!(
            "Scenario({:?}, scenes={}, seed={}, steps={})",
            self.inner.name,
            self.inner.scenes,
            self.inner.seed,
            self.inner.steps()
        )
    }
}

/// A scenario from the JSON form it pickles as (checked again).
#[pyfunction]
pub fn scenario_from_json(json: &str) -> PyResult<Scenario> {
    let inner: ensemble::Scenario =
        serde_json::from_str(json).map_err(|e| PyValueError::new_err(format!("scenario: {e}")))?;
    inner.validate().map_err(exception)?;
    Ok(Scenario {
        inner,
        failures: Failures::default(),
    })
}
