//! Python functions as a model's closures: a system's M(q), F_int(q, v, t), F_gyr(q, v),
//! their Jacobians and F_ext(t) or b(t); a relation's h, its Jacobian and ∂h/∂t; a
//! non-holonomic constraint's a(q); a coordinate-vector constraint's c(t, q). The library's
//! closures return plain values, so a Python exception raised inside one is kept in the
//! model's [`Failure`] (the closure returns NaN, which stops the step) and raised again,
//! unchanged, where the run returns to Python.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use nalgebra::{DMatrix, DVector};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;

use crate::convert::{exception, rows_to_matrix};

/// The first Python exception a model's functions raised, if any.
#[derive(Clone, Default)]
pub struct Failure(Arc<Mutex<Option<PyErr>>>);

impl Failure {
    /// Keeps `e` unless an earlier exception is kept.
    fn keep(&self, e: PyErr) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(e);
    }

    /// Whether Python functions keep their exceptions here (each [`Callback`] holds a
    /// clone; a model without functions keeps its own, unshared).
    pub fn is_shared(&self) -> bool {
        Arc::strong_count(&self.0) > 1
    }

    /// The kept exception, taken.
    pub fn take(&self) -> Option<PyErr> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// `result`, unless a function raised: then its own exception (taken), rather than the
    /// error of the check that found its NaN.
    pub fn or<T>(&self, result: PyResult<T>) -> PyResult<T> {
        match self.take() {
            Some(e) => Err(e),
            None => result,
        }
    }
}

/// The first exception the functions of `failures` raised (taken) — their own, rather than
/// `e`, the error of the check that found their NaN — else `e` as its exception.
pub fn raised_or<'a>(failures: impl IntoIterator<Item = &'a Failure>, e: ricochet::Error) -> PyErr {
    failures
        .into_iter()
        .find_map(Failure::take)
        .unwrap_or_else(|| exception(e))
}

/// The shape of an answer: (rows, columns), a vector being one column.
type Shape = (usize, usize);

/// An argument of a call: a vector (handed over as a numpy array) or a time.
#[derive(Clone, Copy)]
pub enum Arg<'a> {
    Array(&'a DVector<f64>),
    Time(f64),
}

/// A Python function, its name in errors, the [`Failure`] it keeps its exception in, the shape of its answer
/// (rows, columns; a vector is one column) — given, or fixed by its first answer — and
/// whether it also takes the discrete state z as its last argument.
#[derive(Clone)]
pub struct Callback {
    what: &'static str,
    f: Arc<Py<PyAny>>,
    failure: Failure,
    shape: Arc<OnceLock<Shape>>,
    takes_z: bool,
}

impl Callback {
    /// `f`, named `what` in errors (as `M(q)`), keeping its exceptions in `failure`; its
    /// answers' shape is learnt from the first.
    pub fn new(what: &'static str, f: Py<PyAny>, failure: &Failure) -> Self {
        Self {
            what,
            f: Arc::new(f),
            failure: failure.clone(),
            shape: Arc::default(),
            takes_z: false,
        }
    }

    /// With the answers' shape known: `(n, 1)` for a vector of n.
    pub fn shaped(self, shape: Shape) -> Self {
        let _ = self.shape.set(shape);
        self
    }

    /// Passing the discrete state z as the last argument when `takes_z`.
    pub fn taking_z(mut self, takes_z: bool) -> Self {
        self.takes_z = takes_z;
        self
    }

    /// `read(f(*args[, z]))`, the shape checked (`describe` names a shape in the error), or NaN of the expected shape where the call
    /// or the check raised (the exception kept).
    fn call<T>(
        &self,
        args: &[Arg<'_>],
        z: &DVector<f64>,
        read: impl FnOnce(Bound<'_, PyAny>) -> PyResult<(T, Shape)>,
        (nan, describe): (impl FnOnce(Shape) -> T, fn(Shape) -> String),
    ) -> T {
        Python::attach(|py| {
            let answer = (|| {
                let mut values = args
                    .iter()
                    .map(|arg| match arg {
                        Arg::Array(x) => array(py, x),
                        Arg::Time(t) => Ok(t.into_pyobject(py)?.into_any()),
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                if self.takes_z {
                    values.push(array(py, z)?);
                }
                let (value, shape) = read(self.f.bind(py).call1(PyTuple::new(py, values)?)?)?;
                let expected = *self.shape.get_or_init(|| shape);
                match shape == expected {
                    true => Ok(value),
                    false => Err(PyValueError::new_err(format!(
                        "{} returned {}; it should return {}",
                        self.what,
                        describe(shape),
                        describe(expected)
                    ))),
                }
            })();
            answer.unwrap_or_else(|e| {
                self.failure.keep(e);
                nan(self.shape.get().copied().unwrap_or((1, 1)))
            })
        })
    }

    /// `f(*args[, z])` as a vector.
    pub fn vector(&self, args: &[Arg<'_>], z: &DVector<f64>) -> DVector<f64> {
        let read = |out: Bound<'_, PyAny>| {
            let v: Vec<f64> = out.extract()?;
            let n = v.len();
            Ok((DVector::from_vec(v), (n, 1)))
        };
        let nan = |(n, _)| DVector::from_element(n, f64::NAN);
        self.call(
            args,
            z,
            read,
            (nan, |(n, _)| format!("{n} value{}", if n == 1 { "" } else { "s" })),
        )
    }

    /// `f(*args[, z])` as a matrix (a 1-D answer is one row).
    pub fn matrix(&self, args: &[Arg<'_>], z: &DVector<f64>) -> DMatrix<f64> {
        let read = |out: Bound<'_, PyAny>| {
            let m = match out.extract::<Vec<Vec<f64>>>() {
                Ok(rows) => rows_to_matrix("a function's matrix", rows)?,
                Err(_) => DMatrix::from_row_slice(1, out.len()?, &out.extract::<Vec<f64>>()?),
            };
            let shape = m.shape();
            Ok((m, shape))
        };
        let nan = |(r, c)| DMatrix::from_element(r, c, f64::NAN);
        self.call(args, z, read, (nan, |(r, c)| format!("a {r} × {c} matrix")))
    }
}

/// `numpy.array`, imported once.
static NUMPY_ARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `x` as a numpy array.
fn array<'py>(py: Python<'py>, x: &DVector<f64>) -> PyResult<Bound<'py, PyAny>> {
    NUMPY_ARRAY.import(py, "numpy", "array")?.call1((x.as_slice(),))
}
