//! Siconos's `LagrangianLinearDiagonalDS`: a linear time-invariant Lagrangian system whose
//! mass, stiffness and damping are diagonal,
//! ```text
//!     mᵢ v̇ᵢ + cᵢ vᵢ + kᵢ qᵢ = F_ext,i(t) + pᵢ,
//! ```
//! n uncoupled oscillators until interactions couple them (a modal basis, lumped masses on a
//! line). It is a [`LagrangianLinearTIDS`] with M = diag(m), K = diag(k), C = diag(c), and
//! every engine runs it as one.

use nalgebra::{DMatrix, DVector};

use super::dynamical_system::{DynamicalSystem, LagrangianLinearTIDS};
use crate::error::{Error, Result};
use crate::validate;

/// `diag(m) v̇ + diag(c) v + diag(k) q = F_ext + p`, built like Siconos's (q₀, v₀, stiffness,
/// damping, mass), the mass 1 where not given.
#[derive(Clone)]
pub struct LagrangianLinearDiagonalDS {
    tids: LagrangianLinearTIDS,
}

impl LagrangianLinearDiagonalDS {
    /// A system at (q₀, v₀) with the diagonals of its stiffness and damping and unit masses
    /// (Siconos's four-argument constructor).
    pub fn new(q0: DVector<f64>, v0: DVector<f64>, stiffness: DVector<f64>, damping: DVector<f64>) -> Result<Self> {
        let n = q0.len();
        Self::with_mass(q0, v0, stiffness, damping, DVector::from_element(n, 1.0))
    }

    /// A system at (q₀, v₀) with the diagonals of its stiffness, damping and mass (each mᵢ > 0).
    pub fn with_mass(
        q0: DVector<f64>,
        v0: DVector<f64>,
        stiffness: DVector<f64>,
        damping: DVector<f64>,
        mass: DVector<f64>,
    ) -> Result<Self> {
        let n = q0.len();
        let what = "LagrangianLinearDiagonalDS";
        for (name, d) in [("stiffness", &stiffness), ("damping", &damping), ("mass", &mass)] {
            validate::vector(&format!("{what}: {name} diagonal"), d, n)?;
            validate::finite_vector(&format!("{what}: {name} diagonal"), d)?;
        }
        if let Some(i) = mass.iter().position(|&m| m <= 0.0) {
            return Err(Error::Parameter {
                what: format!("{what}: mass m[{i}]"),
                value: mass[i],
                reason: "a mass is positive".into(),
            });
        }
        let tids = LagrangianLinearTIDS::new(q0, v0, DMatrix::from_diagonal(&mass))?
            .with_stiffness(DMatrix::from_diagonal(&stiffness))?
            .with_damping(DMatrix::from_diagonal(&damping))?;
        Ok(Self { tids })
    }

    /// Sets a constant external force F_ext.
    pub fn with_fext(self, f: DVector<f64>) -> Result<Self> {
        Ok(Self {
            tids: self.tids.with_fext(f)?,
        })
    }

    /// Sets a time-dependent external force F_ext(t); its value at t = 0 is checked.
    pub fn with_fext_fn(self, f: impl Fn(f64) -> DVector<f64> + Send + Sync + 'static) -> Result<Self> {
        Ok(Self {
            tids: self.tids.with_fext_fn(f)?,
        })
    }

    /// Number of degrees of freedom.
    pub fn ndof(&self) -> usize {
        self.tids.ndof()
    }

    /// The system as the [`LagrangianLinearTIDS`] it is.
    pub fn tids(&self) -> &LagrangianLinearTIDS {
        &self.tids
    }
}

impl From<LagrangianLinearDiagonalDS> for DynamicalSystem {
    fn from(ds: LagrangianLinearDiagonalDS) -> Self {
        Self::LagrangianLinearTIDS(ds.tids)
    }
}
