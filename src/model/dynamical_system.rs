//! Dynamical systems, in Siconos's vocabulary.
//!
//! - [`LagrangianLinearTIDS`]: `M v̇ + C v + K q = F_ext(t) + p`, M, C, K constant (and
//!   [`LagrangianLinearDiagonalDS`](super::LagrangianLinearDiagonalDS), its diagonal form).
//! - [`LagrangianDS`]: `M(q) v̇ + F_gyr(q, v) + F_int(q, v, t) = F_ext(t) + p`.
//! - [`FirstOrderLinearDS`]: `ẋ = A x + b + r`, b constant or b(t, z) with the discrete state z.
//! - [`FirstOrderNonLinearDS`]: `M ẋ = f(x, t, z) + r`.
//!
//! A model object holds its operators and its initial state; the time stepper owns the
//! evolving state. Lagrangian systems expose the total force
//! `F(t, q, v) = F_ext(t) − F_gyr(q, v) − F_int(q, v, t)` and its Jacobians, from which the
//! Moreau–Jean iteration matrix `W = M − hθ ∂F/∂v − h²θ² ∂F/∂q` is built.

use std::sync::Arc;

use nalgebra::{DMatrix, DVector};

use super::force::{ExternalForce, ExternalForceFn, Force, Harmonic, MassFn};
use super::{FirstOrderLinearDS, FirstOrderNonLinearDS};
use crate::error::Result;
use crate::validate;

/// A linear time-invariant Lagrangian system `M v̇ + C v + K q = F_ext(t) + p`.
#[derive(Clone)]
pub struct LagrangianLinearTIDS {
    pub(crate) q0: DVector<f64>,
    pub(crate) v0: DVector<f64>,
    pub(crate) mass: DMatrix<f64>,
    pub(crate) stiffness: DMatrix<f64>,
    pub(crate) damping: DMatrix<f64>,
    pub(crate) fext: ExternalForce,
}

impl LagrangianLinearTIDS {
    /// A system with initial position `q0`, velocity `v0` and constant mass matrix `mass`
    /// (symmetric positive definite); K, C and F_ext start at zero.
    pub fn new(q0: DVector<f64>, v0: DVector<f64>, mass: DMatrix<f64>) -> Result<Self> {
        Self::check(&q0, &v0, &mass)?;
        let n = q0.len();
        let zero = DMatrix::zeros(n, n);
        Ok(Self {
            q0,
            v0,
            mass,
            stiffness: zero.clone(),
            damping: zero,
            fext: ExternalForce::zero(n),
        })
    }

    /// What [`new`](Self::new) checks (q₀ finite, v₀ finite of its size, M symmetric positive
    /// definite of its size), for scenes that give a system in closed form.
    pub fn check(q0: &DVector<f64>, v0: &DVector<f64>, mass: &DMatrix<f64>) -> Result<()> {
        let n = q0.len();
        validate::finite_vector("LagrangianLinearTIDS: q0", q0)?;
        validate::vector("LagrangianLinearTIDS: v0", v0, n)?;
        validate::matrix("LagrangianLinearTIDS: mass M", mass, n, n)?;
        validate::symmetric_positive_definite("LagrangianLinearTIDS: mass M", mass)
    }

    /// Sets the stiffness K (n × n).
    pub fn with_stiffness(mut self, k: DMatrix<f64>) -> Result<Self> {
        validate::matrix("LagrangianLinearTIDS: stiffness K", &k, self.ndof(), self.ndof())?;
        self.stiffness = k;
        Ok(self)
    }

    /// Sets the damping C (n × n).
    pub fn with_damping(mut self, c: DMatrix<f64>) -> Result<Self> {
        validate::matrix("LagrangianLinearTIDS: damping C", &c, self.ndof(), self.ndof())?;
        self.damping = c;
        Ok(self)
    }

    /// Sets a constant external force F_ext.
    pub fn with_fext(mut self, f: DVector<f64>) -> Result<Self> {
        self.fext = ExternalForce::constant("LagrangianLinearTIDS: F_ext", f, self.ndof())?;
        Ok(self)
    }

    /// Sets a time-dependent external force F_ext(t); its value at t = 0 is checked.
    pub fn with_fext_fn(mut self, f: impl Fn(f64) -> DVector<f64> + Send + Sync + 'static) -> Result<Self> {
        let f: ExternalForceFn = Arc::new(move |t, _| f(t));
        self.fext = ExternalForce::function("LagrangianLinearTIDS: F_ext(t)", f, self.ndof(), &DVector::zeros(0))?;
        Ok(self)
    }

    /// Sets the harmonic external force F_ext(t) = f₀ + a cos(ω t + φ) (which, unlike a
    /// closure, the batched engines can run).
    pub fn with_fext_harmonic(mut self, force: Harmonic) -> Result<Self> {
        self.fext = ExternalForce::harmonic("LagrangianLinearTIDS: F_ext(t)", force, self.ndof())?;
        Ok(self)
    }

    /// Number of degrees of freedom.
    pub fn ndof(&self) -> usize {
        self.q0.len()
    }
}

/// A nonlinear Lagrangian system `M(q) v̇ + F_gyr(q, v) + F_int(q, v, t) = F_ext(t) + p`.
///
/// Jacobians of F_int and F_gyr may be given with the forces; those not given are computed
/// by central finite differences (step 1e-7·max(1, |x_j|)) when the iteration matrix is built.
///
/// Its discrete state z (Siconos's Z: a held control, a switched parameter) is passed to
/// every closure — M(q, z), F_int(q, v, t, z), F_gyr(q, v, z), F_ext(t, z) — and changed
/// between steps by [`TimeStepping::set_z`](crate::reference::TimeStepping::set_z). Give it
/// ([`with_z`](Self::with_z)) before the closures that read it: each closure is checked
/// once at (q₀, v₀, 0, z) when it is set.
#[derive(Clone)]
pub struct LagrangianDS {
    pub(crate) q0: DVector<f64>,
    pub(crate) v0: DVector<f64>,
    pub(crate) mass: MassFn,
    /// M when it was given as a constant matrix (the batched engines need it).
    pub(crate) constant_mass: Option<DMatrix<f64>>,
    pub(crate) fint: Option<Force>,
    pub(crate) fgyr: Option<Force>,
    pub(crate) fext: ExternalForce,
    pub(crate) z: DVector<f64>,
}

impl LagrangianDS {
    /// A system with a constant mass matrix (symmetric positive definite).
    pub fn new(q0: DVector<f64>, v0: DVector<f64>, mass: DMatrix<f64>) -> Result<Self> {
        validate::symmetric_positive_definite("LagrangianDS: mass M", &mass)?;
        let constant = mass.clone();
        let mut ds = Self::with_mass_fn(q0, v0, move |_| mass.clone())?;
        ds.constant_mass = Some(constant);
        Ok(ds)
    }

    /// A system with a configuration-dependent mass M(q), checked at q0.
    pub fn with_mass_fn(
        q0: DVector<f64>,
        v0: DVector<f64>,
        mass: impl Fn(&DVector<f64>) -> DMatrix<f64> + Send + Sync + 'static,
    ) -> Result<Self> {
        let n = q0.len();
        validate::finite_vector("LagrangianDS: q0", &q0)?;
        validate::vector("LagrangianDS: v0", &v0, n)?;
        let ds = Self {
            q0,
            v0,
            mass: Arc::new(move |q, _| mass(q)),
            constant_mass: None,
            fint: None,
            fgyr: None,
            fext: ExternalForce::zero(n),
            z: DVector::zeros(0),
        };
        ds.check_mass()?;
        Ok(ds)
    }

    /// Sets the discrete state z (its size is then fixed: `set_z` keeps it) and checks the
    /// closures set so far with it.
    pub fn with_z(mut self, z: DVector<f64>) -> Result<Self> {
        validate::finite_vector("LagrangianDS: z", &z)?;
        self.z = z;
        self.check_mass()?;
        for (what, force) in [("LagrangianDS: F_int", &self.fint), ("LagrangianDS: F_gyr", &self.fgyr)] {
            if let Some(force) = force {
                force.check(what, &self.q0, &self.v0, &self.z)?;
            }
        }
        self.fext.at(0.0, &self.z, self.ndof())?;
        Ok(self)
    }

    /// Sets a mass M(q, z) of the configuration and the discrete state, checked at (q0, z).
    pub fn with_mass_z_fn(
        mut self,
        mass: impl Fn(&DVector<f64>, &DVector<f64>) -> DMatrix<f64> + Send + Sync + 'static,
    ) -> Result<Self> {
        self.mass = Arc::new(mass);
        self.constant_mass = None;
        self.check_mass()?;
        Ok(self)
    }

    fn check_mass(&self) -> Result<()> {
        let n = self.ndof();
        let m0 = (self.mass)(&self.q0, &self.z);
        validate::matrix("LagrangianDS: mass M(q0)", &m0, n, n)?;
        validate::symmetric_positive_definite("LagrangianDS: mass M(q0)", &m0)
    }

    /// Sets the internal force F_int(q, v, t) (with optional Jacobians ∂/∂q, ∂/∂v).
    pub fn with_fint(mut self, force: Force) -> Result<Self> {
        force.check("LagrangianDS: F_int", &self.q0, &self.v0, &self.z)?;
        self.fint = Some(force);
        Ok(self)
    }

    /// Sets the gyroscopic force F_gyr(q, v) (the `t` argument of the closures is ignored).
    pub fn with_fgyr(mut self, force: Force) -> Result<Self> {
        force.check("LagrangianDS: F_gyr", &self.q0, &self.v0, &self.z)?;
        self.fgyr = Some(force);
        Ok(self)
    }

    /// Sets a constant external force F_ext.
    pub fn with_fext(mut self, f: DVector<f64>) -> Result<Self> {
        self.fext = ExternalForce::constant("LagrangianDS: F_ext", f, self.ndof())?;
        Ok(self)
    }

    /// Sets a time-dependent external force F_ext(t).
    pub fn with_fext_fn(self, f: impl Fn(f64) -> DVector<f64> + Send + Sync + 'static) -> Result<Self> {
        self.with_fext_z_fn(move |t, _| f(t))
    }

    /// Sets an external force F_ext(t, z) of time and the discrete state, checked at (0, z).
    pub fn with_fext_z_fn(
        mut self,
        f: impl Fn(f64, &DVector<f64>) -> DVector<f64> + Send + Sync + 'static,
    ) -> Result<Self> {
        self.fext = ExternalForce::function("LagrangianDS: F_ext(t, z)", Arc::new(f), self.ndof(), &self.z)?;
        Ok(self)
    }

    /// Number of degrees of freedom.
    pub fn ndof(&self) -> usize {
        self.q0.len()
    }
}

/// Any dynamical system of a scene.
#[derive(Clone)]
pub enum DynamicalSystem {
    /// See [`LagrangianLinearTIDS`].
    LagrangianLinearTIDS(LagrangianLinearTIDS),
    /// See [`LagrangianDS`].
    LagrangianDS(LagrangianDS),
    /// See [`FirstOrderLinearDS`].
    FirstOrderLinearDS(FirstOrderLinearDS),
    /// See [`FirstOrderNonLinearDS`].
    FirstOrderNonLinearDS(FirstOrderNonLinearDS),
}

impl DynamicalSystem {
    /// Size of the coordinate vector (q for Lagrangian systems, x for first-order ones).
    pub fn dimension(&self) -> usize {
        match self {
            Self::LagrangianLinearTIDS(ds) => ds.ndof(),
            Self::LagrangianDS(ds) => ds.ndof(),
            Self::FirstOrderLinearDS(ds) => ds.dimension(),
            Self::FirstOrderNonLinearDS(ds) => ds.dimension(),
        }
    }

    /// The discrete state z (empty for the systems that have none).
    pub fn z(&self) -> DVector<f64> {
        match self {
            Self::FirstOrderLinearDS(ds) => ds.z.clone(),
            Self::FirstOrderNonLinearDS(ds) => ds.z.clone(),
            Self::LagrangianDS(ds) => ds.z.clone(),
            _ => DVector::zeros(0),
        }
    }

    /// The discrete state z of a system that has one (a first-order system or a
    /// `LagrangianDS`; `None` for the others).
    pub(crate) fn z_mut(&mut self) -> Option<&mut DVector<f64>> {
        match self {
            Self::FirstOrderLinearDS(ds) => Some(&mut ds.z),
            Self::FirstOrderNonLinearDS(ds) => Some(&mut ds.z),
            Self::LagrangianDS(ds) => Some(&mut ds.z),
            _ => None,
        }
    }

    /// The rate ẋ = M⁻¹ (f(t, x, z) + r) of a first-order system at (t, x) under the input r
    /// (A x + b(t, z) + r for a linear one); `None` for a Lagrangian system or a singular M.
    pub fn first_order_rate(&self, t: f64, x: &DVector<f64>, r: &DVector<f64>) -> Option<DVector<f64>> {
        match self {
            Self::FirstOrderLinearDS(ds) => Some(&ds.a * x + ds.b_at(t, &ds.z) + r),
            Self::FirstOrderNonLinearDS(ds) => {
                let rhs = ds.f(t, x, &ds.z) + r;
                match &ds.mass {
                    Some(mass) => mass.clone().lu().solve(&rhs),
                    None => Some(rhs),
                }
            }
            _ => None,
        }
    }

    /// Whether this is a second-order (Lagrangian) system.
    pub fn is_lagrangian(&self) -> bool {
        !matches!(self, Self::FirstOrderLinearDS(_) | Self::FirstOrderNonLinearDS(_))
    }

    /// Initial coordinates (q0 or x0) and velocity (v0, empty for first-order systems).
    pub fn initial_state(&self) -> (DVector<f64>, DVector<f64>) {
        match self {
            Self::LagrangianLinearTIDS(ds) => (ds.q0.clone(), ds.v0.clone()),
            Self::LagrangianDS(ds) => (ds.q0.clone(), ds.v0.clone()),
            Self::FirstOrderLinearDS(ds) => (ds.x0.clone(), DVector::zeros(0)),
            Self::FirstOrderNonLinearDS(ds) => (ds.x0.clone(), DVector::zeros(0)),
        }
    }
}

impl From<LagrangianLinearTIDS> for DynamicalSystem {
    fn from(ds: LagrangianLinearTIDS) -> Self {
        Self::LagrangianLinearTIDS(ds)
    }
}

impl From<LagrangianDS> for DynamicalSystem {
    fn from(ds: LagrangianDS) -> Self {
        Self::LagrangianDS(ds)
    }
}

impl From<FirstOrderLinearDS> for DynamicalSystem {
    fn from(ds: FirstOrderLinearDS) -> Self {
        Self::FirstOrderLinearDS(ds)
    }
}

impl From<FirstOrderNonLinearDS> for DynamicalSystem {
    fn from(ds: FirstOrderNonLinearDS) -> Self {
        Self::FirstOrderNonLinearDS(ds)
    }
}
