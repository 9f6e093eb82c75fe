//! A first-order linear system, Siconos's `FirstOrderLinearDS`: `ẋ = A x + b + r`, b
//! constant or a function b(t, z) of time and the discrete state z.

use std::sync::Arc;

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::validate;

/// b(t, z) of a [`FirstOrderLinearDS`].
pub type BFn = Arc<dyn Fn(f64, &DVector<f64>) -> DVector<f64> + Send + Sync>;

/// A first-order linear system `ẋ = A x + b + r`, b constant or a function b(t, z) of time
/// and of the system's discrete state z (Siconos's Z: "a vector of arbitrary algebraic
/// variables, some sort of discrete state" — a sampled control, a parameter), which user
/// code changes between steps ([`TimeStepping::set_z`](crate::reference::TimeStepping::set_z)).
#[derive(Clone)]
pub struct FirstOrderLinearDS {
    pub(crate) x0: DVector<f64>,
    pub(crate) a: DMatrix<f64>,
    pub(crate) b: DVector<f64>,
    pub(crate) b_fn: Option<BFn>,
    pub(crate) z: DVector<f64>,
}

impl std::fmt::Debug for FirstOrderLinearDS {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FirstOrderLinearDS")
            .field("x0", &self.x0)
            .field("a", &self.a)
            .field("b", &self.b_fn.as_ref().map_or("constant", |_| "b(t, z)"))
            .field("z", &self.z)
            .finish()
    }
}

impl FirstOrderLinearDS {
    /// A system with initial state `x0` and constant matrix `a`; b starts at zero, z empty.
    pub fn new(x0: DVector<f64>, a: DMatrix<f64>) -> Result<Self> {
        let n = x0.len();
        validate::finite_vector("FirstOrderLinearDS: x0", &x0)?;
        validate::matrix("FirstOrderLinearDS: A", &a, n, n)?;
        Ok(Self {
            x0,
            a,
            b: DVector::zeros(n),
            b_fn: None,
            z: DVector::zeros(0),
        })
    }

    /// Sets the constant term b.
    pub fn with_b(mut self, b: DVector<f64>) -> Result<Self> {
        validate::vector("FirstOrderLinearDS: b", &b, self.x0.len())?;
        self.b = b;
        Ok(self)
    }

    /// Sets the discrete state z (its size is then fixed: `set_z` keeps it).
    pub fn with_z(mut self, z: DVector<f64>) -> Result<Self> {
        validate::finite_vector("FirstOrderLinearDS: z", &z)?;
        self.z = z;
        self.check_b()?;
        Ok(self)
    }

    /// Sets b(t, z), in place of the constant b; checked at (0, z).
    pub fn with_b_fn(mut self, b: impl Fn(f64, &DVector<f64>) -> DVector<f64> + Send + Sync + 'static) -> Result<Self> {
        self.b_fn = Some(Arc::new(b));
        self.check_b()?;
        Ok(self)
    }

    fn check_b(&self) -> Result<()> {
        let b = self.b_at(0.0, &self.z);
        validate::vector("FirstOrderLinearDS: b(0, z)", &b, self.x0.len())?;
        validate::finite_vector("FirstOrderLinearDS: b(0, z)", &b)
    }

    /// b at time `t` and discrete state `z`: b(t, z), or the constant b.
    pub(crate) fn b_at(&self, t: f64, z: &DVector<f64>) -> DVector<f64> {
        match &self.b_fn {
            Some(b) => b(t, z),
            None => self.b.clone(),
        }
    }

    /// Whether b depends on time or z.
    pub(crate) fn has_b_fn(&self) -> bool {
        self.b_fn.is_some()
    }

    /// The discrete state z.
    pub fn z(&self) -> &DVector<f64> {
        &self.z
    }

    /// Dimension of the state x.
    pub fn dimension(&self) -> usize {
        self.x0.len()
    }
}
