//! A scenario from Python: a file, a TOML text or a dict (given as JSON), parsed and checked
//! by the library as `ricochet run` parses a file.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use ricochet::ensemble;

use crate::convert::exception;

/// A checked scenario (`ricochet.load` makes one).
#[pyclass(module = "ricochet._ricochet", frozen)]
#[derive(Clone)]
pub struct Scenario {
    pub inner: ensemble::Scenario,
}

#[pymethods]
impl Scenario {
    /// Parses `source`: a path when `kind` is `"path"`, a TOML text when `"toml"`, and the
    /// JSON of a dict of the TOML's shape when `"json"`.
    #[new]
    fn new(source: &str, kind: &str) -> PyResult<Self> {
        let inner = match kind {
            "path" => ensemble::Scenario::load(source),
            "toml" => ensemble::Scenario::from_toml(source),
            "json" => {
                let value: toml::Value = serde_json::from_str(source)
                    .map_err(|e| PyValueError::new_err(format!("scenario: the dict is not a scenario's shape: {e}")))?;
                let text = toml::to_string(&value)
                    .map_err(|e| PyValueError::new_err(format!("scenario: the dict has no TOML form: {e}")))?;
                ensemble::Scenario::from_toml(&text)
            }
            _ => {
                return Err(PyValueError::new_err(format!(
                    "scenario kind `{kind}`: expected path, toml or json"
                )));
            }
        }
        .map_err(exception)?;
        Ok(Self { inner })
    }

    /// This scenario with `scenes` scenes and seed `seed` where given (checked again).
    #[pyo3(signature = (scenes=None, seed=None))]
    fn with_size(&self, scenes: Option<usize>, seed: Option<u64>) -> PyResult<Self> {
        let mut inner = self.inner.clone();
        inner.scenes = scenes.unwrap_or(inner.scenes);
        inner.seed = seed.unwrap_or(inner.seed);
        inner.validate().map_err(exception)?;
        Ok(Self { inner })
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
