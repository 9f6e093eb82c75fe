//! First-order linear relations: `y = C x + D λ + F z + e`, `r = B λ`.
//!
//! x is the concatenation of the states of the interaction's one or two systems, z of their
//! discrete states (Siconos's Z; F constant, where given).

use std::sync::Arc;

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::validate;

/// The operators (C, D, B, e) of a first-order linear relation at one time.
#[derive(Clone, Debug, PartialEq)]
pub struct FirstOrderOperators {
    /// C (m × n): output from the state.
    pub c: DMatrix<f64>,
    /// D (m × m): feed-through of λ.
    pub d: DMatrix<f64>,
    /// B (n × m): input r = B λ.
    pub b: DMatrix<f64>,
    /// e (m): output offset.
    pub e: DVector<f64>,
}

impl FirstOrderOperators {
    /// Checks the shapes against the relation size m and the state size n.
    pub(crate) fn check(&self, what: &str, m: usize, n: usize) -> Result<()> {
        validate::matrix(&format!("{what}: C"), &self.c, m, n)?;
        validate::matrix(&format!("{what}: D"), &self.d, m, m)?;
        validate::matrix(&format!("{what}: B"), &self.b, n, m)?;
        validate::vector(&format!("{what}: e"), &self.e, m)
    }
}

/// Time-invariant `y = C x + D λ + F z + e`, `r = B λ`.
#[derive(Clone, Debug)]
pub struct FirstOrderLinearTIR {
    pub(crate) operators: FirstOrderOperators,
    /// F (m × n_z), where z is given.
    pub(crate) f: Option<DMatrix<f64>>,
}

impl FirstOrderLinearTIR {
    /// From C (m × n), D (m × m), B (n × m) and e (m).
    pub fn new(c: DMatrix<f64>, d: DMatrix<f64>, b: DMatrix<f64>, e: DVector<f64>) -> Result<Self> {
        let operators = FirstOrderOperators { c, d, b, e };
        operators.check("FirstOrderLinearTIR", operators.c.nrows(), operators.c.ncols())?;
        Ok(Self { operators, f: None })
    }

    /// Adds the term F z of the linked systems' discrete states z (F: m rows, one column per
    /// entry of their z, checked when linked).
    pub fn with_f(mut self, f: DMatrix<f64>) -> Result<Self> {
        let m = self.operators.c.nrows();
        validate::matrix("FirstOrderLinearTIR: F", &f, m, f.ncols())?;
        validate::finite_matrix("FirstOrderLinearTIR: F", &f)?;
        self.f = Some(f);
        Ok(self)
    }

    /// The operators (C, D, B, e).
    pub fn operators(&self) -> &FirstOrderOperators {
        &self.operators
    }
}

/// A closure giving the operators at time t.
pub type OperatorsFn = Arc<dyn Fn(f64) -> FirstOrderOperators + Send + Sync>;

/// Time-dependent `y = C(t) x + D(t) λ + F z + e(t)`, `r = B(t) λ`.
#[derive(Clone)]
pub struct FirstOrderLinearR {
    pub(crate) operators: OperatorsFn,
    /// F (m × n_z), where z is given.
    pub(crate) f: Option<DMatrix<f64>>,
}

impl FirstOrderLinearR {
    /// From a closure returning (C, D, B, e) at t; its value at t = 0 is checked.
    pub fn new(operators: impl Fn(f64) -> FirstOrderOperators + Send + Sync + 'static) -> Result<Self> {
        let at0 = operators(0.0);
        at0.check("FirstOrderLinearR", at0.c.nrows(), at0.c.ncols())?;
        Ok(Self {
            operators: Arc::new(operators),
            f: None,
        })
    }

    /// Adds the term F z of the linked systems' discrete states z (F constant: m rows, one
    /// column per entry of their z, checked when linked).
    pub fn with_f(mut self, f: DMatrix<f64>) -> Result<Self> {
        let m = (self.operators)(0.0).c.nrows();
        validate::matrix("FirstOrderLinearR: F", &f, m, f.ncols())?;
        validate::finite_matrix("FirstOrderLinearR: F", &f)?;
        self.f = Some(f);
        Ok(self)
    }
}

/// e + F z, F checked against the linked systems' z (`what`: the relation).
pub(crate) fn fold_f(what: &str, e: &mut DVector<f64>, f: Option<&DMatrix<f64>>, z: &DVector<f64>) -> Result<()> {
    if let Some(f) = f {
        validate::matrix(&format!("{what}: F (m × the linked systems' z)"), f, f.nrows(), z.len())?;
        *e += f * z;
    }
    Ok(())
}
