//! ricochet's errors as Python exceptions, its tables as `.npy` bytes, and matrices from
//! Python's rows.

use nalgebra::DMatrix;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use ricochet::Error;
use ricochet::ensemble::Table;

/// The exception of `e`, with its message: `ValueError` for bad input (a scenario, a
/// parameter, a file), `RuntimeError` for a run that failed (a solver that did not converge,
/// the GPU, the disk, an interruption).
pub fn exception(e: Error) -> PyErr {
    match e {
        Error::Dimension { .. }
        | Error::MassNotSpd { .. }
        | Error::Restitution { .. }
        | Error::NonFinite { .. }
        | Error::Parameter { .. }
        | Error::Unsupported { .. }
        | Error::Scenario { .. }
        | Error::Singular { .. }
        | Error::Parse { .. } => PyValueError::new_err(e.to_string()),
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}

/// `table` as the bytes of a `.npy` file of a structured array (`numpy.load` reads it), the
/// columns named in `integers` as 64-bit integers and the rest as doubles: the bytes `ricochet
/// run` writes to `summary.npy` for the summary.
pub fn npy(table: &Table, integers: &[&str]) -> PyResult<Vec<u8>> {
    let mut bytes = Vec::new();
    table.write_npy(&mut bytes, integers).map_err(exception)?;
    Ok(bytes)
}

/// A matrix from its rows (`what` names it in errors).
pub fn rows_to_matrix(what: &str, rows: Vec<Vec<f64>>) -> PyResult<DMatrix<f64>> {
    let columns = rows.first().map_or(0, Vec::len);
    if rows.iter().any(|r| r.len() != columns) {
        return Err(PyValueError::new_err(format!("{what}: rows of different lengths")));
    }
    Ok(DMatrix::from_row_iterator(
        rows.len(),
        columns,
        rows.into_iter().flatten(),
    ))
}
