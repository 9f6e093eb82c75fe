//! The mixed linear complementarity problem: equality rows beside complementarity rows.
//!
//! Find z ∈ ℝⁿ with w = M z + q and, row by row,
//! ```text
//!     equality row i:          w_i = 0            (z_i free)
//!     complementarity row i:   0 ≤ z_i ⟂ w_i ≥ 0
//! ```
//! Siconos writes the partitioned form `A u + C v + a = 0, 0 ≤ v ⟂ D u + B v + b ≥ 0`, which is
//! this with M = [[A, C], [D, B]], q = [a; b] and the first rows equalities
//! ([`MixedLinearComplementarityProblem::from_blocks`]); the rows may also be interleaved, as a
//! time step that mixes bilateral constraints and contacts produces them.
//!
//! The error extends the LCP's natural map (see [`super::lcp`]) to the free rows, where the
//! projection is the identity and the natural map is w_i itself:
//! ```text
//!     err(z) = ‖( w_E , z_C − max(0, z_C − w_C) )‖₂ / ‖q‖₂      (not divided when ‖q‖₂ ≈ 0)
//! ```
//! (E the equality rows, C the complementarity rows). It is zero exactly at a solution and
//! equals the LCP error when there is no equality row.

use nalgebra::{DMatrix, DVector};

use crate::error::{Error, Result};
use crate::validate;

/// A mixed linear complementarity problem (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct MixedLinearComplementarityProblem {
    /// The n×n matrix M.
    pub m: DMatrix<f64>,
    /// The vector q of length n.
    pub q: DVector<f64>,
    /// `equality[i]`: row i is an equality (z_i free, w_i = 0); else a complementarity row.
    pub equality: Vec<bool>,
}

impl MixedLinearComplementarityProblem {
    /// Builds an MLCP, checking that M is square, q and the row kinds match, and all is finite.
    pub fn new(m: DMatrix<f64>, q: DVector<f64>, equality: Vec<bool>) -> Result<Self> {
        let problem = Self { m, q, equality };
        problem.check()?;
        Ok(problem)
    }

    /// Siconos's partitioned form `A u + C v + a = 0, 0 ≤ v ⟂ D u + B v + b ≥ 0`, with u the
    /// first `a.len()` unknowns.
    pub fn from_blocks(
        (a, c, a_vec): (&DMatrix<f64>, &DMatrix<f64>, &DVector<f64>),
        (d, b, b_vec): (&DMatrix<f64>, &DMatrix<f64>, &DVector<f64>),
    ) -> Result<Self> {
        let (n, m) = (a_vec.len(), b_vec.len());
        validate::matrix("MLCP block A", a, n, n)?;
        validate::matrix("MLCP block C", c, n, m)?;
        validate::matrix("MLCP block D", d, m, n)?;
        validate::matrix("MLCP block B", b, m, m)?;
        let mut full = DMatrix::zeros(n + m, n + m);
        full.view_mut((0, 0), (n, n)).copy_from(a);
        full.view_mut((0, n), (n, m)).copy_from(c);
        full.view_mut((n, 0), (m, n)).copy_from(d);
        full.view_mut((n, n), (m, m)).copy_from(b);
        let q = DVector::from_iterator(n + m, a_vec.iter().chain(b_vec.iter()).copied());
        let equality = (0..n + m).map(|i| i < n).collect();
        Self::new(full, q, equality)
    }

    /// The number of unknowns n.
    pub fn size(&self) -> usize {
        self.q.len()
    }

    /// The number of equality rows.
    pub fn equalities(&self) -> usize {
        self.equality.iter().filter(|&&e| e).count()
    }

    /// The number of complementarity rows.
    pub fn complementarities(&self) -> usize {
        self.size() - self.equalities()
    }

    /// w = M z + q.
    pub fn w(&self, z: &DVector<f64>) -> DVector<f64> {
        &self.m * z + &self.q
    }

    /// The error of the module docs.
    pub fn error(&self, z: &DVector<f64>) -> f64 {
        mixed_natural_map_error(z, &self.w(z), &self.equality, self.q.norm())
    }

    fn check(&self) -> Result<()> {
        let n = self.size();
        validate::matrix("MLCP matrix M", &self.m, n, n)?;
        validate::finite_vector("MLCP vector q", &self.q)?;
        if self.equality.len() != n {
            return Err(Error::Dimension {
                what: "MLCP row kinds".into(),
                expected: n.to_string(),
                got: self.equality.len().to_string(),
            });
        }
        Ok(())
    }

    /// Checks the problem's own shapes (its fields are public) and an unknown's length.
    pub(crate) fn check_unknown(&self, z: &DVector<f64>) -> Result<()> {
        self.check()?;
        if z.len() == self.size() {
            Ok(())
        } else {
            Err(Error::Dimension {
                what: "MLCP unknown z".into(),
                expected: self.size().to_string(),
                got: z.len().to_string(),
            })
        }
    }
}

/// ‖(w_E, z_C − max(0, z_C − w_C))‖₂ / ‖q‖₂, the divisor dropped when ‖q‖₂ ≤ f64::EPSILON.
pub fn mixed_natural_map_error(z: &DVector<f64>, w: &DVector<f64>, equality: &[bool], q_norm: f64) -> f64 {
    let err = z
        .iter()
        .zip(w.iter())
        .enumerate()
        .map(|(i, (&zi, &wi))| {
            if equality.get(i).copied().unwrap_or(false) {
                wi * wi
            } else {
                (zi - (zi - wi).max(0.0)).powi(2)
            }
        })
        .sum::<f64>()
        .sqrt();
    if q_norm > f64::EPSILON { err / q_norm } else { err }
}
