//! The linear complementarity problem and its one residual measure.
//!
//! Find z ∈ ℝⁿ with
//! ```text
//!     w = M z + q,    0 ≤ z ⟂ w ≥ 0
//! ```
//! The error of a candidate z is Siconos's (`lcp_compute_error.c`):
//! ```text
//!     err(z) = ‖z − max(0, z − w)‖₂ / ‖q‖₂      (not divided when ‖q‖₂ ≈ 0)
//! ```
//! which is zero exactly at a solution and is the yardstick of every solver here.

use nalgebra::{DMatrix, DVector};

use crate::error::{Error, Result};
use crate::numerics::mlcp::mixed_natural_map_error;
use crate::validate;

/// A linear complementarity problem `0 ≤ z ⟂ M z + q ≥ 0`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearComplementarityProblem {
    /// The n×n matrix M.
    pub m: DMatrix<f64>,
    /// The vector q of length n.
    pub q: DVector<f64>,
}

impl LinearComplementarityProblem {
    /// Builds an LCP, checking that M is square, q matches, and both are finite.
    pub fn new(m: DMatrix<f64>, q: DVector<f64>) -> Result<Self> {
        let n = q.len();
        validate::matrix("LCP matrix M", &m, n, n)?;
        validate::finite_vector("LCP vector q", &q)?;
        Ok(Self { m, q })
    }

    /// The number of unknowns n.
    pub fn size(&self) -> usize {
        self.q.len()
    }

    /// w = M z + q.
    pub fn w(&self, z: &DVector<f64>) -> DVector<f64> {
        &self.m * z + &self.q
    }

    /// Siconos's error ‖z − max(0, z − w)‖ / ‖q‖ (see the module docs).
    pub fn error(&self, z: &DVector<f64>) -> f64 {
        mixed_natural_map_error(z, &self.w(z), &[], self.q.norm())
    }

    /// Whether M is symmetric positive definite (the class on which PGS and Jacobi converge).
    pub fn is_spd(&self) -> bool {
        validate::symmetric_positive_definite("M", &self.m).is_ok()
    }

    /// Checks the problem's own shapes (its fields are public) and that a warm-start or
    /// output vector has length n.
    pub(crate) fn check_unknown(&self, z: &DVector<f64>) -> Result<()> {
        validate::matrix("LCP matrix M", &self.m, self.size(), self.size())?;
        validate::finite_vector("LCP vector q", &self.q)?;
        if z.len() == self.size() {
            Ok(())
        } else {
            Err(Error::Dimension {
                what: "LCP unknown z".into(),
                expected: self.size().to_string(),
                got: z.len().to_string(),
            })
        }
    }
}
