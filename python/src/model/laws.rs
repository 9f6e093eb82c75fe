//! The nonsmooth laws: Newton impact (with or without Coulomb friction), equality,
//! complementarity, mixed complementarity and relay.

use pyo3::prelude::*;
use ricochet::model;

use crate::convert::exception;

/// A nonsmooth law (the base class of the laws `Nsds.link` takes).
#[pyclass(module = "ricochet._ricochet", subclass, frozen)]
pub struct NonSmoothLaw {
    pub inner: model::NonSmoothLaw,
}

/// `law`, checked, as the base of a law's class.
fn base<L: Into<model::NonSmoothLaw>>(law: ricochet::Result<L>) -> PyResult<NonSmoothLaw> {
    Ok(NonSmoothLaw {
        inner: law.map_err(exception)?.into(),
    })
}

/// Newton's impact law: 0 ≤ ẏ⁺ + e ẏ⁻ ⟂ λ ≥ 0 where a contact closes (y ≤ 0).
#[pyclass(module = "ricochet._ricochet", extends = NonSmoothLaw, frozen)]
pub struct NewtonImpactNSL;

#[pymethods]
impl NewtonImpactNSL {
    /// The restitution e ∈ [0, 1], for `size` rows.
    #[new]
    #[pyo3(signature = (e, size=1))]
    fn new(e: f64, size: usize) -> PyResult<PyClassInitializer<Self>> {
        Ok(PyClassInitializer::from(base(model::NewtonImpactNSL::with_size(e, size))?).add_subclass(Self))
    }
}

/// Newton impact and Coulomb friction on a contact's rows (normal, then one or two
/// tangents): ẏ_N⁺ = −e_N ẏ_N⁻ where it closes, ‖λ_T‖ ≤ μ λ_N, sliding against ẏ_T.
#[pyclass(module = "ricochet._ricochet", extends = NonSmoothLaw, frozen)]
pub struct NewtonImpactFrictionNSL;

#[pymethods]
impl NewtonImpactFrictionNSL {
    /// Restitutions e_N, e_T ∈ [0, 1], friction coefficient μ ≥ 0, `size` 2 (planar) or 3.
    #[new]
    #[pyo3(signature = (e_n, e_t, mu, size=2))]
    fn new(e_n: f64, e_t: f64, mu: f64, size: usize) -> PyResult<PyClassInitializer<Self>> {
        Ok(PyClassInitializer::from(base(model::NewtonImpactFrictionNSL::new(e_n, e_t, mu, size))?).add_subclass(Self))
    }
}

/// y = 0 on `size` rows (a bilateral constraint; λ free).
#[pyclass(module = "ricochet._ricochet", extends = NonSmoothLaw, frozen)]
pub struct EqualityConditionNSL;

#[pymethods]
impl EqualityConditionNSL {
    #[new]
    #[pyo3(signature = (size=1))]
    fn new(size: usize) -> PyResult<PyClassInitializer<Self>> {
        Ok(PyClassInitializer::from(base(model::EqualityConditionNSL::new(size))?).add_subclass(Self))
    }
}

/// 0 ≤ y ⟂ λ ≥ 0 on `size` rows.
#[pyclass(module = "ricochet._ricochet", extends = NonSmoothLaw, frozen)]
pub struct ComplementarityConditionNSL;

#[pymethods]
impl ComplementarityConditionNSL {
    #[new]
    #[pyo3(signature = (size=1))]
    fn new(size: usize) -> PyResult<PyClassInitializer<Self>> {
        Ok(PyClassInitializer::from(base(model::ComplementarityConditionNSL::new(size))?).add_subclass(Self))
    }
}

/// y = 0 on the first `equalities` rows, 0 ≤ y ⟂ λ ≥ 0 on the `complementarities` after them.
#[pyclass(module = "ricochet._ricochet", extends = NonSmoothLaw, frozen)]
pub struct MixedComplementarityConditionNSL;

#[pymethods]
impl MixedComplementarityConditionNSL {
    /// Siconos's argument order: complementarity rows, then equality rows.
    #[new]
    fn new(complementarities: usize, equalities: usize) -> PyResult<PyClassInitializer<Self>> {
        let law = model::MixedComplementarityConditionNSL::new(complementarities, equalities);
        Ok(PyClassInitializer::from(base(law)?).add_subclass(Self))
    }
}

/// The relay −y ∈ N_[lb, ub](λ) on `size` rows: λ = ub where y < 0, λ = lb where y > 0,
/// lb ≤ λ ≤ ub where y = 0.
#[pyclass(module = "ricochet._ricochet", extends = NonSmoothLaw, frozen)]
pub struct RelayNSL;

#[pymethods]
impl RelayNSL {
    #[new]
    #[pyo3(signature = (size=1, lb=-1.0, ub=1.0))]
    fn new(size: usize, lb: f64, ub: f64) -> PyResult<PyClassInitializer<Self>> {
        Ok(PyClassInitializer::from(base(model::RelayNSL::with_bounds(size, lb, ub))?).add_subclass(Self))
    }
}
