//! Force terms of Lagrangian systems given as data or as user closures, with their
//! Jacobians (given, or by central finite differences). Every closure may read the system's
//! discrete state z (Siconos's Z: M(q, z), F(q, v, t, z), F_ext(t, z)); the constructors
//! without z wrap closures that ignore it.

use std::sync::Arc;

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::validate;

/// A configuration-dependent mass matrix M(q, z).
pub type MassFn = Arc<dyn Fn(&DVector<f64>, &DVector<f64>) -> DMatrix<f64> + Send + Sync>;
/// A force f(q, v, t, z).
pub type ForceFn = Arc<dyn Fn(&DVector<f64>, &DVector<f64>, f64, &DVector<f64>) -> DVector<f64> + Send + Sync>;
/// A Jacobian of a force, ∂f/∂q or ∂f/∂v, as a function of (q, v, t, z).
pub type JacobianFn = Arc<dyn Fn(&DVector<f64>, &DVector<f64>, f64, &DVector<f64>) -> DMatrix<f64> + Send + Sync>;
/// F_ext(t, z).
pub type ExternalForceFn = Arc<dyn Fn(f64, &DVector<f64>) -> DVector<f64> + Send + Sync>;

/// External force F_ext: zero, constant, harmonic, or a function of time.
#[derive(Clone)]
pub enum ExternalForce {
    /// A constant vector (zero by default).
    Constant(DVector<f64>),
    /// F_ext(t) = f₀ + a cos(ω t + φ) (the cosine for t < `end`): data the batched engines
    /// can evaluate.
    Harmonic(Harmonic),
    /// F_ext(t, z).
    Function(ExternalForceFn),
}

/// The harmonic force f₀ + a cos(ω t + φ) for t < `end`, f₀ after it (a pulse of whole
/// periods when ω·end is a multiple of 2π).
#[derive(Clone, Debug, PartialEq)]
pub struct Harmonic {
    /// The constant part f₀.
    pub constant: DVector<f64>,
    /// The amplitude a.
    pub amplitude: DVector<f64>,
    /// The angular frequency ω (rad/s).
    pub omega: f64,
    /// The phase φ (rad).
    pub phase: f64,
    /// The time the harmonic part stops (s; `f64::INFINITY`: never).
    pub end: f64,
}

impl Harmonic {
    /// The factor of the amplitude at time t: cos(ω t + φ) for t < end, else 0.
    pub fn factor(&self, t: f64) -> f64 {
        if t < self.end {
            (self.omega * t + self.phase).cos()
        } else {
            0.0
        }
    }
}

impl ExternalForce {
    pub(crate) fn zero(n: usize) -> Self {
        Self::Constant(DVector::zeros(n))
    }

    pub(crate) fn constant(what: &str, f: DVector<f64>, n: usize) -> Result<Self> {
        validate::vector(what, &f, n)?;
        Ok(Self::Constant(f))
    }

    /// F_ext(t, z), checked at (0, `z`).
    pub(crate) fn function(what: &str, f: ExternalForceFn, n: usize, z: &DVector<f64>) -> Result<Self> {
        validate::vector(what, &f(0.0, z), n)?;
        Ok(Self::Function(f))
    }

    pub(crate) fn harmonic(what: &str, force: Harmonic, n: usize) -> Result<Self> {
        validate::vector(&format!("{what}: constant part"), &force.constant, n)?;
        validate::vector(&format!("{what}: amplitude"), &force.amplitude, n)?;
        validate::scalar(
            &format!("{what}: ω"),
            force.omega,
            force.omega.is_finite(),
            "must be finite",
        )?;
        validate::scalar(
            &format!("{what}: φ"),
            force.phase,
            force.phase.is_finite(),
            "must be finite",
        )?;
        if force.end.is_nan() {
            return Err(crate::error::Error::Parameter {
                what: format!("{what}: end"),
                value: force.end,
                reason: "must be a time or +∞".into(),
            });
        }
        Ok(Self::Harmonic(force))
    }

    /// −f·q for the constant part f of F_ext (0 for a function of time): the potential the
    /// mechanical energy counts.
    pub fn potential(&self, q: &DVector<f64>) -> f64 {
        match self {
            Self::Constant(f) => -f.dot(q),
            Self::Harmonic(h) => -h.constant.dot(q),
            Self::Function(_) => 0.0,
        }
    }

    /// F_ext(t, z), checked to have length `n` and be finite.
    pub fn at(&self, t: f64, z: &DVector<f64>, n: usize) -> Result<DVector<f64>> {
        match self {
            Self::Constant(f) => Ok(f.clone()),
            Self::Harmonic(h) => Ok(&h.constant + &h.amplitude * h.factor(t)),
            Self::Function(f) => {
                let value = f(t, z);
                validate::vector("F_ext(t, z)", &value, n)?;
                Ok(value)
            }
        }
    }
}

/// A force f(q, v, t) — or f(q, v, t, z) of the system's discrete state z — with optional
/// Jacobians; missing Jacobians are approximated by central differences
/// `(f(x + δe_j) − f(x − δe_j)) / 2δ`, δ = 1e-7·max(1, |x_j|).
#[derive(Clone)]
pub struct Force {
    value: ForceFn,
    dq: Option<JacobianFn>,
    dv: Option<JacobianFn>,
}

impl Force {
    /// A force f(q, v, t) whose Jacobians will be computed by finite differences.
    pub fn new(f: impl Fn(&DVector<f64>, &DVector<f64>, f64) -> DVector<f64> + Send + Sync + 'static) -> Self {
        Self::with_z(move |q, v, t, _| f(q, v, t))
    }

    /// A force f(q, v, t, z) of the system's discrete state z, Jacobians by finite
    /// differences until given.
    pub fn with_z(
        f: impl Fn(&DVector<f64>, &DVector<f64>, f64, &DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
    ) -> Self {
        Self {
            value: Arc::new(f),
            dq: None,
            dv: None,
        }
    }

    /// Supplies ∂f/∂q(q, v, t).
    pub fn with_jacobian_q(
        self,
        j: impl Fn(&DVector<f64>, &DVector<f64>, f64) -> DMatrix<f64> + Send + Sync + 'static,
    ) -> Self {
        self.with_jacobian_q_z(move |q, v, t, _| j(q, v, t))
    }

    /// Supplies ∂f/∂v(q, v, t).
    pub fn with_jacobian_v(
        self,
        j: impl Fn(&DVector<f64>, &DVector<f64>, f64) -> DMatrix<f64> + Send + Sync + 'static,
    ) -> Self {
        self.with_jacobian_v_z(move |q, v, t, _| j(q, v, t))
    }

    /// Supplies ∂f/∂q(q, v, t, z).
    pub fn with_jacobian_q_z(
        mut self,
        j: impl Fn(&DVector<f64>, &DVector<f64>, f64, &DVector<f64>) -> DMatrix<f64> + Send + Sync + 'static,
    ) -> Self {
        self.dq = Some(Arc::new(j));
        self
    }

    /// Supplies ∂f/∂v(q, v, t, z).
    pub fn with_jacobian_v_z(
        mut self,
        j: impl Fn(&DVector<f64>, &DVector<f64>, f64, &DVector<f64>) -> DMatrix<f64> + Send + Sync + 'static,
    ) -> Self {
        self.dv = Some(Arc::new(j));
        self
    }

    /// Evaluates everything once at (q0, v0, 0, z) to check sizes.
    pub(crate) fn check(&self, what: &str, q0: &DVector<f64>, v0: &DVector<f64>, z: &DVector<f64>) -> Result<()> {
        let n = q0.len();
        validate::vector(what, &(self.value)(q0, v0, 0.0, z), n)?;
        let (dq, dv) = self.jacobians(q0, v0, 0.0, z)?;
        validate::matrix(&format!("{what} Jacobian ∂/∂q"), &dq, n, n)?;
        validate::matrix(&format!("{what} Jacobian ∂/∂v"), &dv, n, n)
    }

    /// f(q, v, t, z), checked to have the length of q and be finite.
    pub fn value(&self, q: &DVector<f64>, v: &DVector<f64>, t: f64, z: &DVector<f64>) -> Result<DVector<f64>> {
        let f = (self.value)(q, v, t, z);
        validate::vector("force f(q, v, t, z)", &f, q.len())?;
        Ok(f)
    }

    /// (∂f/∂q, ∂f/∂v) at (q, v, t, z).
    pub fn jacobians(
        &self,
        q: &DVector<f64>,
        v: &DVector<f64>,
        t: f64,
        z: &DVector<f64>,
    ) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
        let dq = match &self.dq {
            Some(j) => j(q, v, t, z),
            None => central_difference(|x| (self.value)(x, v, t, z), q),
        };
        let dv = match &self.dv {
            Some(j) => j(q, v, t, z),
            None => central_difference(|x| (self.value)(q, x, t, z), v),
        };
        validate::matrix("force Jacobian ∂f/∂q", &dq, q.len(), q.len())?;
        validate::matrix("force Jacobian ∂f/∂v", &dv, q.len(), q.len())?;
        Ok((dq, dv))
    }
}

/// Central-difference Jacobian of `f` at `x`.
pub(crate) fn central_difference(f: impl Fn(&DVector<f64>) -> DVector<f64>, x: &DVector<f64>) -> DMatrix<f64> {
    let rows = f(x).len();
    let mut jac = DMatrix::zeros(rows, x.len());
    let mut xp = x.clone();
    for j in 0..x.len() {
        let delta = 1e-7 * x[j].abs().max(1.0);
        xp[j] = x[j] + delta;
        let fp = f(&xp);
        xp[j] = x[j] - delta;
        let fm = f(&xp);
        xp[j] = x[j];
        jac.set_column(j, &((fp - fm) / (2.0 * delta)));
    }
    jac
}
