//! An interaction: a relation and a non-smooth law linking one or two dynamical systems.

use nalgebra::{DMatrix, DVector};

use super::nonsmooth_law::NonSmoothLaw;
use super::relation::Relation;
use crate::error::Result;
use crate::validate;

/// Index of a dynamical system in its [`Nsds`](super::Nsds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DsId(pub usize);

/// Index of an interaction in its [`Nsds`](super::Nsds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InteractionId(pub usize);

/// One interaction of a scene. Its relation sees the coordinates of its systems concatenated
/// in the order given (q = [q₁; q₂]).
#[derive(Clone)]
pub struct Interaction {
    /// A name for reports and errors.
    pub name: String,
    /// The non-smooth law.
    pub law: NonSmoothLaw,
    /// The relation.
    pub relation: Relation,
    /// The one or two systems linked.
    pub systems: Vec<DsId>,
}

impl Interaction {
    /// Number of scalar rows (the law's size).
    pub fn size(&self) -> usize {
        self.law.size()
    }

    /// How errors name it: `interaction `n``, and the constraint's own name when it has one.
    fn label(&self) -> String {
        match &self.relation {
            Relation::CoordinateVector(c) if c.name() != self.name => {
                format!(
                    "interaction `{}` (coordinate-vector constraint `{}`)",
                    self.name,
                    c.name()
                )
            }
            _ => format!("interaction `{}`", self.name),
        }
    }

    /// y = h(q, t) of a Lagrangian relation (with `z` the linked systems' discrete states),
    /// checked to have the law's size.
    pub fn output(&self, q: &DVector<f64>, z: &DVector<f64>, t: f64) -> Result<DVector<f64>> {
        let y = self.relation.output(q, z, t)?;
        validate::vector(&format!("{}: output y", self.label()), &y, self.size())?;
        Ok(y)
    }

    /// G0(q, t) (z the linked systems' discrete states), checked to be (law size) ×
    /// (coordinates).
    pub fn jacobian(&self, q: &DVector<f64>, z: &DVector<f64>, t: f64) -> Result<DMatrix<f64>> {
        let g = self.relation.jacobian(q, z, t)?;
        validate::matrix(&format!("{}: Jacobian G0", self.label()), &g, self.size(), q.len())?;
        Ok(g)
    }

    /// ẏ = G0(q, t) v + ∂h/∂t.
    pub fn velocity(&self, q: &DVector<f64>, v: &DVector<f64>, z: &DVector<f64>, t: f64) -> Result<DVector<f64>> {
        self.velocity_with(&self.jacobian(q, z, t)?, q, v, z, t)
    }

    /// ẏ = G0 v + ∂h/∂t with G0 = `g`, the Jacobian at (q, t) already at hand.
    pub fn velocity_with(
        &self,
        g: &DMatrix<f64>,
        q: &DVector<f64>,
        v: &DVector<f64>,
        z: &DVector<f64>,
        t: f64,
    ) -> Result<DVector<f64>> {
        Ok(g * v + self.relation.hdot(q, z, t, self.size())?)
    }
}
