//! A nonlinear first-order system, Siconos's `FirstOrderNonLinearDS`:
//! ```text
//!     M ẋ = f(x, t, z) + r
//! ```
//! M constant (the identity unless given), f and its Jacobian ∇ₓf closures of (t, x, z) — ∇ₓf
//! by central finite differences (step 1e-7·max(1, |x_j|)) where it is not given — and z the
//! system's discrete state (Siconos's Z), which the closures read and user code changes
//! between steps ([`TimeStepping::set_z`](crate::reference::TimeStepping::set_z)).

use std::sync::Arc;

use nalgebra::{DMatrix, DVector};

use super::force::central_difference;
use crate::error::Result;
use crate::validate;

/// f(t, x, z) of a [`FirstOrderNonLinearDS`].
pub type VectorFieldFn = Arc<dyn Fn(f64, &DVector<f64>, &DVector<f64>) -> DVector<f64> + Send + Sync>;
/// ∇ₓf(t, x, z) of a [`FirstOrderNonLinearDS`].
pub type VectorFieldJacobianFn = Arc<dyn Fn(f64, &DVector<f64>, &DVector<f64>) -> DMatrix<f64> + Send + Sync>;

/// `M ẋ = f(x, t, z) + r` (see the [module](self) documentation).
#[derive(Clone)]
pub struct FirstOrderNonLinearDS {
    pub(crate) x0: DVector<f64>,
    pub(crate) mass: Option<DMatrix<f64>>,
    pub(crate) f: VectorFieldFn,
    pub(crate) jacobian: Option<VectorFieldJacobianFn>,
    pub(crate) z: DVector<f64>,
}

impl FirstOrderNonLinearDS {
    /// A system with initial state `x0` and vector field f(t, x, z), checked at (0, x0, z);
    /// M = I, z empty, ∇ₓf by finite differences.
    pub fn new(
        x0: DVector<f64>,
        f: impl Fn(f64, &DVector<f64>, &DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
    ) -> Result<Self> {
        validate::finite_vector("FirstOrderNonLinearDS: x0", &x0)?;
        let ds = Self {
            x0,
            mass: None,
            f: Arc::new(f),
            jacobian: None,
            z: DVector::zeros(0),
        };
        ds.check()?;
        Ok(ds)
    }

    /// Sets ∇ₓf(t, x, z) (n × n), checked at (0, x0, z).
    pub fn with_jacobian(
        mut self,
        jacobian: impl Fn(f64, &DVector<f64>, &DVector<f64>) -> DMatrix<f64> + Send + Sync + 'static,
    ) -> Result<Self> {
        self.jacobian = Some(Arc::new(jacobian));
        self.check()?;
        Ok(self)
    }

    /// Sets the constant M (n × n, finite; Euler–Moreau needs M − hθ∇ₓf invertible).
    pub fn with_mass(mut self, mass: DMatrix<f64>) -> Result<Self> {
        let n = self.dimension();
        validate::matrix("FirstOrderNonLinearDS: M", &mass, n, n)?;
        validate::finite_matrix("FirstOrderNonLinearDS: M", &mass)?;
        self.mass = Some(mass);
        Ok(self)
    }

    /// Sets the discrete state z (its size is then fixed), the closures checked with it.
    pub fn with_z(mut self, z: DVector<f64>) -> Result<Self> {
        validate::finite_vector("FirstOrderNonLinearDS: z", &z)?;
        self.z = z;
        self.check()?;
        Ok(self)
    }

    fn check(&self) -> Result<()> {
        let n = self.dimension();
        let f = self.f(0.0, &self.x0, &self.z);
        validate::vector("FirstOrderNonLinearDS: f(0, x0, z)", &f, n)?;
        validate::finite_vector("FirstOrderNonLinearDS: f(0, x0, z)", &f)?;
        let jacobian = self.jacobian(0.0, &self.x0, &self.z);
        validate::matrix("FirstOrderNonLinearDS: ∇ₓf(0, x0, z)", &jacobian, n, n)?;
        validate::finite_matrix("FirstOrderNonLinearDS: ∇ₓf(0, x0, z)", &jacobian)
    }

    /// f(t, x, z).
    pub(crate) fn f(&self, t: f64, x: &DVector<f64>, z: &DVector<f64>) -> DVector<f64> {
        (self.f)(t, x, z)
    }

    /// ∇ₓf(t, x, z): the closure, or central differences of f.
    pub(crate) fn jacobian(&self, t: f64, x: &DVector<f64>, z: &DVector<f64>) -> DMatrix<f64> {
        match &self.jacobian {
            Some(jacobian) => jacobian(t, x, z),
            None => central_difference(|x| self.f(t, x, z), x),
        }
    }

    /// M (the identity when not given).
    pub(crate) fn mass(&self) -> DMatrix<f64> {
        let n = self.dimension();
        self.mass.clone().unwrap_or_else(|| DMatrix::identity(n, n))
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
