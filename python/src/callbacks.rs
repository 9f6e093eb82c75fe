//! Python functions as a system's M(q), F_int(q, v, t), its Jacobians and F_ext(t). The
//! library's closures return plain values, so a Python exception raised inside one is kept
//! in the system's [`Failure`] (the closure returns NaN, which stops the step) and raised
//! again, unchanged, where the run returns to Python.

use std::sync::{Arc, Mutex, PoisonError};

use nalgebra::{DMatrix, DVector};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::convert::rows_to_matrix;

/// The first Python exception a system's functions raised, if any.
#[derive(Clone, Default)]
pub struct Failure(Arc<Mutex<Option<PyErr>>>);

impl Failure {
    /// Keeps `e` unless an earlier exception is kept.
    fn keep(&self, e: PyErr) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(e);
    }

    /// The kept exception, taken.
    pub fn take(&self) -> Option<PyErr> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// The arguments of a call, made with the GIL held.
type Args<'a> = &'a dyn for<'py> Fn(Python<'py>) -> PyResult<Bound<'py, PyTuple>>;

/// `read(f(*args))`, or `nan` where the call or `read` raised (the exception kept in
/// `failure`).
fn call<T>(
    f: &Py<PyAny>,
    failure: &Failure,
    args: Args<'_>,
    read: impl FnOnce(Bound<'_, PyAny>) -> PyResult<T>,
    nan: T,
) -> T {
    Python::attach(|py| {
        let value = args(py).and_then(|args| f.bind(py).call1(args)).and_then(read);
        value.unwrap_or_else(|e| {
            failure.keep(e);
            nan
        })
    })
}

/// `f(*args)` as a vector of `n` (NaN where it raised or returned another length).
fn vector(f: &Py<PyAny>, failure: &Failure, n: usize, args: Args<'_>) -> DVector<f64> {
    let read = |out: Bound<'_, PyAny>| {
        let v: Vec<f64> = out.extract()?;
        match v.len() == n {
            true => Ok(DVector::from_vec(v)),
            false => Err(PyValueError::new_err(format!(
                "a function returned {} values where {n} are expected",
                v.len()
            ))),
        }
    };
    call(f, failure, args, read, DVector::from_element(n, f64::NAN))
}

/// `f(*args)` as an n × n matrix (NaN where it raised or has another shape).
fn matrix(f: &Py<PyAny>, failure: &Failure, n: usize, args: Args<'_>) -> DMatrix<f64> {
    let read = |out: Bound<'_, PyAny>| {
        let m = rows_to_matrix("a function's matrix", out.extract()?)?;
        match m.shape() == (n, n) {
            true => Ok(m),
            false => Err(PyValueError::new_err(format!(
                "a function returned a matrix that is not {n} × {n}"
            ))),
        }
    };
    call(f, failure, args, read, DMatrix::from_element(n, n, f64::NAN))
}

/// The first exception the functions of `failures` raised, taken.
pub fn first(failures: &[Failure]) -> Option<PyErr> {
    failures.iter().find_map(Failure::take)
}

/// `x` as a numpy array.
fn array<'py>(py: Python<'py>, x: &DVector<f64>) -> PyResult<Bound<'py, PyAny>> {
    py.import("numpy")?.call_method1("array", (x.as_slice().to_vec(),))
}

/// M(q) from `f(q)`.
pub fn mass(f: Py<PyAny>, failure: Failure, n: usize) -> impl Fn(&DVector<f64>) -> DMatrix<f64> + Send + Sync {
    move |q| matrix(&f, &failure, n, &|py| PyTuple::new(py, [array(py, q)?]))
}

/// A force of (q, v, t) from `f(q, v, t)`: a vector of n.
pub fn force(
    f: Py<PyAny>,
    failure: Failure,
    n: usize,
) -> impl Fn(&DVector<f64>, &DVector<f64>, f64) -> DVector<f64> + Send + Sync {
    move |q, v, t| {
        vector(&f, &failure, n, &|py| {
            (array(py, q)?, array(py, v)?, t).into_pyobject(py)
        })
    }
}

/// A Jacobian of (q, v, t) from `f(q, v, t)`: an n × n matrix.
pub fn jacobian(
    f: Py<PyAny>,
    failure: Failure,
    n: usize,
) -> impl Fn(&DVector<f64>, &DVector<f64>, f64) -> DMatrix<f64> + Send + Sync {
    move |q, v, t| {
        matrix(&f, &failure, n, &|py| {
            (array(py, q)?, array(py, v)?, t).into_pyobject(py)
        })
    }
}

/// F_ext(t) from `f(t)`.
pub fn external(f: Py<PyAny>, failure: Failure, n: usize) -> impl Fn(f64) -> DVector<f64> + Send + Sync {
    move |t| vector(&f, &failure, n, &|py| (t,).into_pyobject(py))
}
