//! The dynamical systems: Lagrangian (linear time-invariant, or with Python functions for
//! M, F_int, F_gyr, F_ext and the discrete state z) and first-order linear.

use nalgebra::{DMatrix, DVector};
use pyo3::prelude::*;
use ricochet::model::{self, Force};

use crate::callbacks::{Arg, Callback, Failure};
use crate::convert::{exception, rows_to_matrix};

/// A dynamical system (the base class of the systems `Nsds.add` takes).
#[pyclass(module = "ricochet._ricochet", subclass, frozen)]
pub struct DynamicalSystem {
    pub inner: model::DynamicalSystem,
    /// Where its Python functions keep an exception.
    pub failure: Failure,
}

impl DynamicalSystem {
    fn of(inner: impl Into<model::DynamicalSystem>, failure: Failure) -> Self {
        Self {
            inner: inner.into(),
            failure,
        }
    }
}

/// M v̇ = F_ext − K q − C v + p (Siconos's `LagrangianLinearTIDS`).
#[pyclass(module = "ricochet._ricochet", extends = DynamicalSystem, frozen)]
pub struct LagrangianLinearTIDS;

#[pymethods]
impl LagrangianLinearTIDS {
    /// q0, v0 (n), the mass M (n × n, symmetric positive definite), and optionally the
    /// stiffness K, the damping C (n × n) and a constant F_ext (n).
    #[new]
    #[pyo3(signature = (q0, v0, mass, stiffness=None, damping=None, fext=None))]
    fn new(
        q0: Vec<f64>,
        v0: Vec<f64>,
        mass: Vec<Vec<f64>>,
        stiffness: Option<Vec<Vec<f64>>>,
        damping: Option<Vec<Vec<f64>>>,
        fext: Option<Vec<f64>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let mut ds = model::LagrangianLinearTIDS::new(
            DVector::from_vec(q0),
            DVector::from_vec(v0),
            rows_to_matrix("mass", mass)?,
        )
        .map_err(exception)?;
        if let Some(k) = stiffness {
            ds = ds.with_stiffness(rows_to_matrix("stiffness", k)?).map_err(exception)?;
        }
        if let Some(c) = damping {
            ds = ds.with_damping(rows_to_matrix("damping", c)?).map_err(exception)?;
        }
        if let Some(f) = fext {
            ds = ds.with_fext(DVector::from_vec(f)).map_err(exception)?;
        }
        Ok(PyClassInitializer::from(DynamicalSystem::of(ds, Failure::default())).add_subclass(Self))
    }
}

/// A force f(q, v, t) (or f(q, v) when `timeless`) from a Python function and its optional
/// Jacobians (∂f/∂q, ∂f/∂v) of the same arguments; each also gets z when `takes_z`.
fn force(
    (what, f): (&'static str, Py<PyAny>),
    jacobians: Option<(Py<PyAny>, Py<PyAny>)>,
    (n, timeless, takes_z): (usize, bool, bool),
    failure: &Failure,
) -> Force {
    let value = Callback::new(what, f, failure).shaped((n, 1)).taking_z(takes_z);
    let mut force = Force::with_z(move |q, v, t, z| value.vector(&arguments(q, v, t, timeless), z));
    if let Some((dq, dv)) = jacobians {
        let [dq, dv] = [(dq, "∂F/∂q"), (dv, "∂F/∂v")]
            .map(|(j, what)| Callback::new(what, j, failure).shaped((n, n)).taking_z(takes_z));
        force = force
            .with_jacobian_q_z(move |q, v, t, z| dq.matrix(&arguments(q, v, t, timeless), z))
            .with_jacobian_v_z(move |q, v, t, z| dv.matrix(&arguments(q, v, t, timeless), z));
    }
    force
}

/// The arguments (q, v, t) of a force, or (q, v) when `timeless`.
fn arguments<'a>(q: &'a DVector<f64>, v: &'a DVector<f64>, t: f64, timeless: bool) -> Vec<Arg<'a>> {
    match timeless {
        true => vec![Arg::Array(q), Arg::Array(v)],
        false => vec![Arg::Array(q), Arg::Array(v), Arg::Time(t)],
    }
}

/// M(q) v̇ + F_gyr(q, v) + F_int(q, v, t) = F_ext(t) + p (Siconos's `LagrangianDS`), M,
/// F_int, F_gyr and F_ext given as arrays or Python functions.
#[pyclass(module = "ricochet._ricochet", extends = DynamicalSystem, frozen)]
pub struct LagrangianDS;

#[pymethods]
impl LagrangianDS {
    /// q0, v0 (n); `mass`: an n × n matrix or a function M(q); `fint`: a function F_int(q, v,
    /// t) with optional `fint_jacobians = (∂F_int/∂q, ∂F_int/∂v)` of (q, v, t); `fgyr`: a
    /// function F_gyr(q, v) with optional `fgyr_jacobians` of (q, v) (central differences
    /// where Jacobians are not given); `fext`: a vector or a function F_ext(t); `z`: the
    /// discrete state, which every function then also gets as its last argument (M(q, z),
    /// F_int(q, v, t, z), F_gyr(q, v, z), F_ext(t, z)). Functions get numpy arrays and return
    /// arrays (or lists) of the right size.
    #[new]
    #[pyo3(signature = (q0, v0, mass, fint=None, fint_jacobians=None, fgyr=None, fgyr_jacobians=None, fext=None, z=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        q0: Vec<f64>,
        v0: Vec<f64>,
        mass: Bound<'_, PyAny>,
        fint: Option<Py<PyAny>>,
        fint_jacobians: Option<(Py<PyAny>, Py<PyAny>)>,
        fgyr: Option<Py<PyAny>>,
        fgyr_jacobians: Option<(Py<PyAny>, Py<PyAny>)>,
        fext: Option<Bound<'_, PyAny>>,
        z: Option<Vec<f64>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let (n, takes_z, failure) = (q0.len(), z.is_some(), Failure::default());
        let (q0, v0) = (DVector::from_vec(q0), DVector::from_vec(v0));
        let built = (|| {
            let mut ds = match mass.is_callable() {
                // The identity until z is set: M(q, z) replaces it below.
                true => model::LagrangianDS::with_mass_fn(q0, v0, move |_| DMatrix::identity(n, n)),
                false => model::LagrangianDS::new(q0, v0, rows_to_matrix("mass", mass.extract()?)?),
            }
            .map_err(exception)?;
            if let Some(z) = z {
                ds = ds.with_z(DVector::from_vec(z)).map_err(exception)?;
            }
            if mass.is_callable() {
                let m = Callback::new("M(q)", mass.unbind(), &failure)
                    .shaped((n, n))
                    .taking_z(takes_z);
                ds = (ds.with_mass_z_fn(move |q, z| m.matrix(&[Arg::Array(q)], z))).map_err(exception)?;
            }
            if let Some(f) = fint {
                ds = ds
                    .with_fint(force(
                        ("F_int(q, v, t)", f),
                        fint_jacobians,
                        (n, false, takes_z),
                        &failure,
                    ))
                    .map_err(exception)?;
            }
            if let Some(f) = fgyr {
                ds = ds
                    .with_fgyr(force(("F_gyr(q, v)", f), fgyr_jacobians, (n, true, takes_z), &failure))
                    .map_err(exception)?;
            }
            match fext {
                Some(f) if f.is_callable() => {
                    let f = Callback::new("F_ext(t)", f.unbind(), &failure)
                        .shaped((n, 1))
                        .taking_z(takes_z);
                    ds = (ds.with_fext_z_fn(move |t, z| f.vector(&[Arg::Time(t)], z))).map_err(exception)?;
                }
                Some(f) => ds = ds.with_fext(DVector::from_vec(f.extract()?)).map_err(exception)?,
                None => {}
            }
            Ok::<_, PyErr>(ds)
        })();
        Ok(PyClassInitializer::from(DynamicalSystem::of(failure.or(built)?, failure)).add_subclass(Self))
    }
}

/// ẋ = A x + b + r (Siconos's `FirstOrderLinearDS`), b constant or a Python function.
#[pyclass(module = "ricochet._ricochet", extends = DynamicalSystem, frozen)]
pub struct FirstOrderLinearDS;

#[pymethods]
impl FirstOrderLinearDS {
    /// x0 (n), A (n × n), `b`: a vector or a function b(t); `z`: the discrete state, which b
    /// then also gets, b(t, z).
    #[new]
    #[pyo3(signature = (x0, a, b=None, z=None))]
    fn new(
        x0: Vec<f64>,
        a: Vec<Vec<f64>>,
        b: Option<Bound<'_, PyAny>>,
        z: Option<Vec<f64>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let (n, takes_z, failure) = (x0.len(), z.is_some(), Failure::default());
        let built = (|| {
            let mut ds =
                model::FirstOrderLinearDS::new(DVector::from_vec(x0), rows_to_matrix("A", a)?).map_err(exception)?;
            if let Some(z) = z {
                ds = ds.with_z(DVector::from_vec(z)).map_err(exception)?;
            }
            match b {
                Some(b) if b.is_callable() => {
                    let b = Callback::new("b(t)", b.unbind(), &failure)
                        .shaped((n, 1))
                        .taking_z(takes_z);
                    ds = ds
                        .with_b_fn(move |t, z| b.vector(&[Arg::Time(t)], z))
                        .map_err(exception)?;
                }
                Some(b) => ds = ds.with_b(DVector::from_vec(b.extract()?)).map_err(exception)?,
                None => {}
            }
            Ok::<_, PyErr>(ds)
        })();
        Ok(PyClassInitializer::from(DynamicalSystem::of(failure.or(built)?, failure)).add_subclass(Self))
    }
}
