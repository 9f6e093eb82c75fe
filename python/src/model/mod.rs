//! Models built from Python with arrays and functions, in Siconos's vocabulary: the
//! dynamical systems ([`systems`]), the relations ([`relations`], [`contacts`]) and the laws
//! ([`laws`]), each a subclass of its kind's base class; the [`Nsds`] that links them; and the
//! reference [`TimeStepping`](time_stepping::TimeStepping) that steps it, whose trajectory
//! comes back as arrays.

pub mod contacts;
pub mod laws;
pub mod relations;
pub mod systems;
pub mod time_stepping;

use pyo3::prelude::*;
use ricochet::model::{self, DsId};

use crate::callbacks::{Failure, raised_or};
use laws::NonSmoothLaw;
use relations::Relation;
use systems::DynamicalSystem;

/// A nonsmooth dynamical system: systems linked by interactions (one scene).
#[pyclass(module = "ricochet._ricochet")]
#[derive(Default)]
pub struct Nsds {
    pub inner: model::Nsds,
    /// Where its systems' and relations' Python functions keep an exception (those that
    /// have functions).
    pub failures: Vec<Failure>,
}

#[pymethods]
impl Nsds {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// Adds a system under `name`; returns its index (for `link`).
    fn add(&mut self, name: &str, system: PyRef<'_, DynamicalSystem>) -> usize {
        if system.failure.is_shared() {
            self.failures.push(system.failure.clone());
        }
        self.inner.add(name, system.inner.clone()).0
    }

    /// Links the systems `systems` (indices from `add`, in the order the relation reads
    /// their coordinates) by `relation` under `law`; returns the interaction's index.
    fn link(
        &mut self,
        name: &str,
        law: PyRef<'_, NonSmoothLaw>,
        relation: PyRef<'_, Relation>,
        systems: Vec<usize>,
    ) -> PyResult<usize> {
        let systems: Vec<DsId> = systems.into_iter().map(DsId).collect();
        match (self.inner).link(name, law.inner, relation.inner.clone(), &systems) {
            Ok(id) => {
                if relation.failure.is_shared() {
                    self.failures.push(relation.failure.clone());
                }
                Ok(id.0)
            }
            Err(e) => Err(raised_or(std::iter::once(&relation.failure).chain(&self.failures), e)),
        }
    }
}
