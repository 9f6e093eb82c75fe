//! Relations: how an interaction's output y and input (p or r) depend on the coordinates
//! of its systems.

pub mod first_order;
pub mod lagrangian;

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::check;
pub use first_order::{FirstOrderLinearR, FirstOrderLinearTIR, FirstOrderOperators};
pub use lagrangian::{
    LagrangianCompliantLinearTIR, LagrangianLinearTIR, LagrangianRheonomousR, LagrangianScleronomousR,
};

/// Any relation.
pub enum Relation {
    /// `y = H q + b`.
    LagrangianLinearTIR(LagrangianLinearTIR),
    /// `y = h(q)`.
    LagrangianScleronomousR(LagrangianScleronomousR),
    /// `y = h(q, t)`.
    LagrangianRheonomousR(LagrangianRheonomousR),
    /// `y = H q + b + D λ`.
    LagrangianCompliantLinearTIR(LagrangianCompliantLinearTIR),
    /// `y = C x + D λ + e`, `r = B λ`, constant operators.
    FirstOrderLinearTIR(FirstOrderLinearTIR),
    /// `y = C(t) x + D(t) λ + e(t)`, `r = B(t) λ`.
    FirstOrderLinearR(FirstOrderLinearR),
}

impl Relation {
    /// Whether the relation acts on Lagrangian systems (else on first-order ones).
    pub fn is_lagrangian(&self) -> bool {
        !matches!(self, Self::FirstOrderLinearTIR(_) | Self::FirstOrderLinearR(_))
    }

    /// Whether y is affine in the coordinates with constant operators (no Newton loop needed).
    pub fn is_linear(&self) -> bool {
        matches!(
            self,
            Self::LagrangianLinearTIR(_) | Self::LagrangianCompliantLinearTIR(_) | Self::FirstOrderLinearTIR(_)
        )
    }

    /// The compliance D of a compliant relation.
    pub fn compliance(&self) -> Option<&DMatrix<f64>> {
        match self {
            Self::LagrangianCompliantLinearTIR(r) => Some(&r.compliance),
            _ => None,
        }
    }

    /// Lagrangian output without the λ term: y = h(q, t) (H q + b for linear relations).
    pub fn output(&self, q: &DVector<f64>, t: f64) -> Result<DVector<f64>> {
        let y = match self {
            Self::LagrangianLinearTIR(r) => &r.h * q + &r.b,
            Self::LagrangianCompliantLinearTIR(r) => &r.h * q + &r.b,
            Self::LagrangianScleronomousR(r) => (r.h)(q),
            Self::LagrangianRheonomousR(r) => (r.h)(q, t),
            Self::FirstOrderLinearTIR(_) | Self::FirstOrderLinearR(_) => {
                return Err(not_lagrangian());
            }
        };
        check::finite_vector("relation output y = h(q, t)", &y)?;
        Ok(y)
    }

    /// Lagrangian Jacobian G0(q, t) = ∇_q h (H for linear relations).
    pub fn jacobian(&self, q: &DVector<f64>, t: f64) -> Result<DMatrix<f64>> {
        let g = match self {
            Self::LagrangianLinearTIR(r) => r.h.clone(),
            Self::LagrangianCompliantLinearTIR(r) => r.h.clone(),
            Self::LagrangianScleronomousR(r) => (r.jacobian)(q),
            Self::LagrangianRheonomousR(r) => (r.jacobian)(q, t),
            Self::FirstOrderLinearTIR(_) | Self::FirstOrderLinearR(_) => {
                return Err(not_lagrangian());
            }
        };
        check::finite_matrix("relation Jacobian G0(q, t)", &g)?;
        Ok(g)
    }

    /// ∂h/∂t (zero unless rheonomous).
    pub fn hdot(&self, q: &DVector<f64>, t: f64, size: usize) -> Result<DVector<f64>> {
        match self {
            Self::LagrangianRheonomousR(r) => {
                let hdot = (r.hdot)(q, t);
                check::vector("LagrangianRheonomousR: ∂h/∂t", &hdot, size)?;
                Ok(hdot)
            }
            _ => Ok(DVector::zeros(size)),
        }
    }

    /// First-order operators (C, D, B, e) at time t.
    pub fn first_order_operators(&self, t: f64) -> Result<FirstOrderOperators> {
        match self {
            Self::FirstOrderLinearTIR(r) => Ok(r.operators.clone()),
            Self::FirstOrderLinearR(r) => Ok((r.operators)(t)),
            _ => Err(crate::error::Error::Unsupported {
                what: "Lagrangian relation".into(),
                reason: "has no first-order operators".into(),
            }),
        }
    }
}

fn not_lagrangian() -> crate::error::Error {
    crate::error::Error::Unsupported {
        what: "first-order relation".into(),
        reason: "has no Lagrangian output".into(),
    }
}

macro_rules! relation_from {
    ($($ty:ident),*) => {$(
        impl From<$ty> for Relation {
            fn from(r: $ty) -> Self {
                Self::$ty(r)
            }
        }
    )*};
}
relation_from!(
    LagrangianLinearTIR,
    LagrangianScleronomousR,
    LagrangianRheonomousR,
    LagrangianCompliantLinearTIR,
    FirstOrderLinearTIR,
    FirstOrderLinearR
);
