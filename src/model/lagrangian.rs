//! What the Moreau–Jean integrator asks of a Lagrangian system: M(q), the total force
//! `F(t, q, v) = F_ext(t) − F_gyr(q, v) − F_int(q, v, t)`, its Jacobians and the energy.

use nalgebra::{DMatrix, DVector};

use super::dynamical_system::{LagrangianDS, LagrangianLinearTIDS};
use crate::error::Result;
use crate::validate;

/// The operators of `M(q) v̇ = F(t, q, v) + p`.
pub trait LagrangianDynamics {
    /// M(q).
    fn mass(&self, q: &DVector<f64>) -> Result<DMatrix<f64>>;
    /// F(t, q, v) = F_ext(t) − F_gyr(q, v) − F_int(q, v, t).
    fn force(&self, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> Result<DVector<f64>>;
    /// (∂F/∂q, ∂F/∂v).
    fn force_jacobians(&self, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> Result<(DMatrix<f64>, DMatrix<f64>)>;
    /// Mechanical energy: ½ vᵀ M v plus the potential energy where one is defined
    /// (½ qᵀ K q − F_extᵀ q for a linear system with constant F_ext).
    fn energy(&self, q: &DVector<f64>, v: &DVector<f64>) -> Result<f64>;
    /// Whether M, ∂F/∂q and ∂F/∂v are constant (W can be factorised once).
    fn is_linear_time_invariant(&self) -> bool;
}

impl LagrangianDynamics for LagrangianLinearTIDS {
    fn mass(&self, _q: &DVector<f64>) -> Result<DMatrix<f64>> {
        Ok(self.mass.clone())
    }

    /// F = F_ext(t) − C v − K q.
    fn force(&self, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> Result<DVector<f64>> {
        Ok(self.fext.at(t, &DVector::zeros(0), q.len())? - &self.damping * v - &self.stiffness * q)
    }

    /// (−K, −C).
    fn force_jacobians(&self, _t: f64, _q: &DVector<f64>, _v: &DVector<f64>) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
        Ok((-&self.stiffness, -&self.damping))
    }

    fn energy(&self, q: &DVector<f64>, v: &DVector<f64>) -> Result<f64> {
        let kinetic = 0.5 * v.dot(&(&self.mass * v));
        let elastic = 0.5 * q.dot(&(&self.stiffness * q));
        Ok(kinetic + elastic + self.fext.potential(q))
    }

    fn is_linear_time_invariant(&self) -> bool {
        true
    }
}

impl LagrangianDynamics for LagrangianDS {
    fn mass(&self, q: &DVector<f64>) -> Result<DMatrix<f64>> {
        let m = (self.mass)(q, &self.z);
        validate::matrix("LagrangianDS: mass M(q)", &m, q.len(), q.len())?;
        Ok(m)
    }

    fn force(&self, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> Result<DVector<f64>> {
        let mut f = self.fext.at(t, &self.z, q.len())?;
        for term in [&self.fint, &self.fgyr].into_iter().flatten() {
            f -= term.value(q, v, t, &self.z)?;
        }
        Ok(f)
    }

    fn force_jacobians(&self, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
        let n = q.len();
        let (mut dq, mut dv) = (DMatrix::zeros(n, n), DMatrix::zeros(n, n));
        for term in [&self.fint, &self.fgyr].into_iter().flatten() {
            let (jq, jv) = term.jacobians(q, v, t, &self.z)?;
            dq -= jq;
            dv -= jv;
        }
        Ok((dq, dv))
    }

    /// Kinetic energy ½ vᵀ M(q) v plus −F_extᵀ q for a constant F_ext (F_int has no
    /// potential known to the library).
    fn energy(&self, q: &DVector<f64>, v: &DVector<f64>) -> Result<f64> {
        Ok(0.5 * v.dot(&(self.mass(q)? * v)) + self.fext.potential(q))
    }

    fn is_linear_time_invariant(&self) -> bool {
        false
    }
}

impl super::DynamicalSystem {
    /// The Lagrangian operators of a second-order system; `None` for first-order systems.
    pub fn as_lagrangian(&self) -> Option<&dyn LagrangianDynamics> {
        match self {
            Self::LagrangianLinearTIDS(ds) => Some(ds),
            Self::LagrangianDS(ds) => Some(ds),
            Self::FirstOrderLinearDS(_) | Self::FirstOrderNonLinearDS(_) => None,
        }
    }
}
