//! Validation helpers shared by the model builders: every check returns an [`Error`] that
//! names the object and field at fault.

use nalgebra::{DMatrix, DVector};

use crate::error::{Error, Result};

/// Rejects NaN and infinities in a vector.
pub fn finite_vector(what: &str, v: &DVector<f64>) -> Result<()> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(Error::NonFinite { what: what.into() })
    }
}

/// Rejects NaN and infinities in a matrix.
pub fn finite_matrix(what: &str, m: &DMatrix<f64>) -> Result<()> {
    if m.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(Error::NonFinite { what: what.into() })
    }
}

/// Checks a vector's length (and that it is finite).
pub fn vector(what: &str, v: &DVector<f64>, len: usize) -> Result<()> {
    if v.len() != len {
        return Err(Error::Dimension {
            what: what.into(),
            expected: len.to_string(),
            got: v.len().to_string(),
        });
    }
    finite_vector(what, v)
}

/// Checks a matrix's shape (and that it is finite).
pub fn matrix(what: &str, m: &DMatrix<f64>, rows: usize, cols: usize) -> Result<()> {
    if m.shape() != (rows, cols) {
        return Err(Error::Dimension {
            what: what.into(),
            expected: format!("{rows}x{cols}"),
            got: format!("{}x{}", m.nrows(), m.ncols()),
        });
    }
    finite_matrix(what, m)
}

/// Checks that a square matrix is symmetric (to a relative 1e-12) and positive definite
/// (its Cholesky factorisation exists).
pub fn symmetric_positive_definite(what: &str, m: &DMatrix<f64>) -> Result<()> {
    let n = m.nrows();
    matrix(what, m, n, n)?;
    let scale = m.amax().max(f64::MIN_POSITIVE);
    let symmetric = (0..n).all(|i| (0..i).all(|j| (m[(i, j)] - m[(j, i)]).abs() <= 1e-12 * scale));
    if symmetric && n > 0 && m.clone().cholesky().is_some() {
        Ok(())
    } else {
        Err(Error::MassNotSpd { what: what.into() })
    }
}

/// Checks a scalar is finite and satisfies `ok`, else reports `reason`.
pub fn scalar(what: &str, value: f64, ok: bool, reason: &str) -> Result<()> {
    if value.is_finite() && ok {
        Ok(())
    } else {
        Err(Error::Parameter {
            what: what.into(),
            value,
            reason: reason.into(),
        })
    }
}

/// The reason [`positive`] gives: the smallest positive normal f64 is f64::MIN_POSITIVE ≈
/// 2.2e-308; below it (a subnormal such as 1e-320) the reciprocal overflows to infinity.
pub const POSITIVE_NORMAL: &str = "must be a positive normal number (≥ 2.2e-308, so that its reciprocal is finite)";

/// Checks a physical quantity the model divides by or inverts (a mass, an inertia, a length,
/// a radius, a modulus): > 0, finite and normal (≥ f64::MIN_POSITIVE), else an error naming
/// `what` with [`POSITIVE_NORMAL`] — a subnormal mass gave NaN rows without naming it.
pub fn positive(what: &str, value: f64) -> Result<()> {
    scalar(what, value, value.is_normal() && value > 0.0, POSITIVE_NORMAL)
}

/// Checks a quantity that may vanish but not change sign (a friction coefficient, a damping,
/// a spring's stiffness, a drop): finite and ≥ 0.
pub fn non_negative(what: &str, value: f64) -> Result<()> {
    scalar(what, value, value >= 0.0, "must be ≥ 0")
}

/// Whether `name` is an identifier: ASCII letters, digits and `_`, not starting with a digit
/// (a column of the outputs, a name in scenarios).
pub fn is_identifier(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The machine's memory in bytes (`MemTotal` of /proc/meminfo), where the system tells;
/// read once per process (templates ask it per scene drawn, and reading the file costs more
/// than building a small scene).
pub fn machine_memory() -> Option<u64> {
    static MEMORY: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *MEMORY.get_or_init(|| {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        kib.checked_mul(1024)
    })
}

/// Bytes as a short text: `512 B`, `3.2 GB`, `8.0 TB`.
pub fn bytes(n: f64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB", "PB"];
    let k = ((n.max(1.0).log10() / 3.0).floor() as usize).min(units.len() - 1);
    if k == 0 {
        format!("{n:.0} B")
    } else {
        format!("{:.1} {}", n / 1e3_f64.powi(k as i32), units[k])
    }
}
