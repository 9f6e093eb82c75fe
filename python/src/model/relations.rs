//! The relations given by operators or Python functions: linear (Lagrangian, compliant,
//! first-order), scleronomous and rheonomous (h, its Jacobian and ∂h/∂t as functions), and
//! the non-holonomic a(q) v = 0. The contact geometry is in [`super::contacts`].

use nalgebra::{DMatrix, DVector};
use pyo3::prelude::*;
use ricochet::model;

use crate::callbacks::{Arg, Callback, Failure};
use crate::convert::{exception, rows_to_matrix};

/// A relation (the base class of the relations `Nsds.link` takes).
#[pyclass(module = "ricochet._ricochet", subclass, frozen)]
pub struct Relation {
    pub inner: model::Relation,
    /// Where its Python functions keep an exception.
    pub failure: Failure,
}

impl Relation {
    /// `relation`, checked, as the base of a relation's class (no Python functions).
    pub fn of<R: Into<model::Relation>>(relation: ricochet::Result<R>) -> PyResult<Self> {
        Ok(Self {
            inner: relation.map_err(exception)?.into(),
            failure: Failure::default(),
        })
    }
}

/// y = H q + b (+ F z), p = Hᵀ λ (Siconos's `LagrangianLinearTIR`).
#[pyclass(module = "ricochet._ricochet", extends = Relation, frozen)]
pub struct LagrangianLinearTIR;

#[pymethods]
impl LagrangianLinearTIR {
    /// H (m × n: the rows over the coordinates of the linked systems, in order), b (m), and
    /// F (m × the linked systems' z) for a term F z of their discrete states.
    #[new]
    #[pyo3(signature = (h, b=None, f=None))]
    fn new(h: Vec<Vec<f64>>, b: Option<Vec<f64>>, f: Option<Vec<Vec<f64>>>) -> PyResult<PyClassInitializer<Self>> {
        let h = rows_to_matrix("H", h)?;
        let b = b.map_or_else(|| DVector::zeros(h.nrows()), DVector::from_vec);
        let mut relation = model::LagrangianLinearTIR::with_offset(h, b);
        if let Some(f) = f {
            let f = rows_to_matrix("F", f)?;
            relation = relation.and_then(|r| r.with_f(f));
        }
        Ok(PyClassInitializer::from(Relation::of(relation)?).add_subclass(Self))
    }

    /// The gap between a sphere of `radius` (centre: the first `dim` coordinates of a system
    /// of `ndof`) and the plane `normal`·x = `d`, on the side the normal points to:
    /// y = n·x − d − r, n normalised.
    #[staticmethod]
    fn sphere_plane(
        py: Python<'_>,
        dim: usize,
        ndof: usize,
        normal: Vec<f64>,
        d: f64,
        radius: f64,
    ) -> PyResult<Py<Self>> {
        let relation = model::LagrangianLinearTIR::sphere_plane(dim, ndof, &normal, d, radius);
        Py::new(py, PyClassInitializer::from(Relation::of(relation)?).add_subclass(Self))
    }
}

/// y = H q + b + D λ, p = Hᵀ λ (Siconos's `LagrangianCompliantLinearTIR`): with a
/// complementarity law, a unilateral spring of stiffness D⁻¹.
#[pyclass(module = "ricochet._ricochet", extends = Relation, frozen)]
pub struct LagrangianCompliantLinearTIR;

#[pymethods]
impl LagrangianCompliantLinearTIR {
    /// H (m × n), b (m) and the compliance D (m × m, symmetric, ≥ 0).
    #[new]
    fn new(h: Vec<Vec<f64>>, b: Vec<f64>, compliance: Vec<Vec<f64>>) -> PyResult<PyClassInitializer<Self>> {
        let relation = model::LagrangianCompliantLinearTIR::new(
            rows_to_matrix("H", h)?,
            DVector::from_vec(b),
            rows_to_matrix("compliance D", compliance)?,
        );
        Ok(PyClassInitializer::from(Relation::of(relation)?).add_subclass(Self))
    }
}

/// The base of a relation with Python functions, each taking z too when `takes_z`.
fn with_functions(
    build: impl FnOnce(&dyn Fn(&'static str, Py<PyAny>) -> Callback) -> model::Relation,
    takes_z: bool,
) -> Relation {
    let failure = Failure::default();
    let inner = build(&|what, f| Callback::new(what, f, &failure).taking_z(takes_z));
    Relation { inner, failure }
}

/// y = h(q), ẏ = G0(q) v, p = G0(q)ᵀ λ with G0 = ∂h/∂q (Siconos's
/// `LagrangianScleronomousR`).
#[pyclass(module = "ricochet._ricochet", extends = Relation, frozen)]
pub struct LagrangianScleronomousR;

#[pymethods]
impl LagrangianScleronomousR {
    /// `h(q)` (m values) and `jacobian(q)` = G0 (m × n), q the coordinates of the linked
    /// systems in order; with `takes_z` both also get their discrete states z: h(q, z).
    #[new]
    #[pyo3(signature = (h, jacobian, takes_z=false))]
    fn new(h: Py<PyAny>, jacobian: Py<PyAny>, takes_z: bool) -> PyClassInitializer<Self> {
        let base = with_functions(
            |callback| {
                let (h, g) = (callback("h(q)", h), callback("G0(q)", jacobian));
                model::LagrangianScleronomousR::with_z(
                    move |q, z| h.vector(&[Arg::Array(q)], z),
                    move |q, z| g.matrix(&[Arg::Array(q)], z),
                )
                .into()
            },
            takes_z,
        );
        PyClassInitializer::from(base).add_subclass(Self)
    }
}

/// y = h(q, t), ẏ = G0(q, t) v + ∂h/∂t(q, t), p = G0ᵀ λ (Siconos's
/// `LagrangianRheonomousR`): a constraint that moves in time.
#[pyclass(module = "ricochet._ricochet", extends = Relation, frozen)]
pub struct LagrangianRheonomousR;

#[pymethods]
impl LagrangianRheonomousR {
    /// `h(q, t)`, `jacobian(q, t)` = G0 and `hdot(q, t)` = ∂h/∂t; with `takes_z` each also
    /// gets the linked systems' discrete states z: h(q, t, z).
    #[new]
    #[pyo3(signature = (h, jacobian, hdot, takes_z=false))]
    fn new(h: Py<PyAny>, jacobian: Py<PyAny>, hdot: Py<PyAny>, takes_z: bool) -> PyClassInitializer<Self> {
        let base = with_functions(
            |callback| {
                let (h, g, hdot) = (
                    callback("h(q, t)", h),
                    callback("G0(q, t)", jacobian),
                    callback("∂h/∂t(q, t)", hdot),
                );
                model::LagrangianRheonomousR::with_z(
                    move |q, t, z| h.vector(&[Arg::Array(q), Arg::Time(t)], z),
                    move |q, t, z| g.matrix(&[Arg::Array(q), Arg::Time(t)], z),
                    move |q, t, z| hdot.vector(&[Arg::Array(q), Arg::Time(t)], z),
                )
                .into()
            },
            takes_z,
        );
        PyClassInitializer::from(base).add_subclass(Self)
    }
}

/// The non-holonomic constraint a(q) v = 0 (velocity level only; with
/// `EqualityConditionNSL`): a knife edge, a rolling disc.
#[pyclass(module = "ricochet._ricochet", extends = Relation, frozen)]
pub struct PfaffianR;

#[pymethods]
impl PfaffianR {
    /// `a(q)` (equations × the coordinates of the linked systems).
    #[new]
    fn new(a: Py<PyAny>) -> PyClassInitializer<Self> {
        let base = with_functions(
            |callback| {
                let a = callback("a(q)", a);
                model::PfaffianR::new(move |q| a.matrix(&[Arg::Array(q)], &DVector::zeros(0))).into()
            },
            false,
        );
        PyClassInitializer::from(base).add_subclass(Self)
    }
}

/// y = C x + D λ + e (+ F z), r = B λ (Siconos's `FirstOrderLinearTIR`), x the states of
/// the linked first-order systems in order.
#[pyclass(module = "ricochet._ricochet", extends = Relation, frozen)]
pub struct FirstOrderLinearTIR;

#[pymethods]
impl FirstOrderLinearTIR {
    /// C (m × n) and B (n × m); D (m × m) and e (m) zero where not given; F (m × the linked
    /// systems' z) for a term F z of their discrete states.
    #[new]
    #[pyo3(signature = (c, b, d=None, e=None, f=None))]
    fn new(
        c: Vec<Vec<f64>>,
        b: Vec<Vec<f64>>,
        d: Option<Vec<Vec<f64>>>,
        e: Option<Vec<f64>>,
        f: Option<Vec<Vec<f64>>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let c = rows_to_matrix("C", c)?;
        let m = c.nrows();
        let d = d.map_or_else(|| Ok(DMatrix::zeros(m, m)), |d| rows_to_matrix("D", d))?;
        let e = e.map_or_else(|| DVector::zeros(m), DVector::from_vec);
        let mut relation = model::FirstOrderLinearTIR::new(c, d, rows_to_matrix("B", b)?, e);
        if let Some(f) = f {
            let f = rows_to_matrix("F", f)?;
            relation = relation.and_then(|r| r.with_f(f));
        }
        Ok(PyClassInitializer::from(Relation::of(relation)?).add_subclass(Self))
    }
}
