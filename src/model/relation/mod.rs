//! Relations: how an interaction's output y and input (p or r) depend on the coordinates
//! of its systems.

pub mod contact;
pub mod coordinate_vector;
pub mod first_order;
pub mod first_order_nonlinear;
pub mod lagrangian;
pub mod pfaffian;
pub mod planar;

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::validate;
pub use contact::{DiskDiskR, SphereLDSSphereLDSR, SphereSphereR, ortho_base_from_vector};
pub use coordinate_vector::{CoordinateVectorBuilder, CoordinateVectorConstraint, CoordinateVectorOutputs};
pub use first_order::{FirstOrderLinearR, FirstOrderLinearTIR, FirstOrderOperators};
pub use first_order_nonlinear::{FirstOrderNonLinearR, FirstOrderType1R, FirstOrderType2R, Jacobian};
pub use lagrangian::{
    LagrangianCompliantLinearTIR, LagrangianCompliantR, LagrangianLinearTIR, LagrangianRheonomousR,
    LagrangianScleronomousR,
};
pub use pfaffian::PfaffianR;
pub use planar::PlanarContactR;

/// Any relation.
#[derive(Clone)]
pub enum Relation {
    /// `y = H q + b + F z`.
    LagrangianLinearTIR(LagrangianLinearTIR),
    /// `y = h(q)`.
    LagrangianScleronomousR(LagrangianScleronomousR),
    /// `y = h(q, t)`.
    LagrangianRheonomousR(LagrangianRheonomousR),
    /// `y = H q + b + D λ`.
    LagrangianCompliantLinearTIR(LagrangianCompliantLinearTIR),
    /// `y = h(q, λ, z)`.
    LagrangianCompliantR(LagrangianCompliantR),
    /// Exudyn's coordinate-vector constraint `X₁q₁ + Y₁q₁² − X₀q₀ − Y₀q₀² − v_off`.
    CoordinateVector(CoordinateVectorConstraint),
    /// A non-holonomic constraint `a(q) v = 0` (velocity level only).
    Pfaffian(PfaffianR),
    /// The gap between two spheres `‖x₁ − x₀‖ − ρ`.
    SphereSphere(SphereSphereR),
    /// Two rotating discs in frictional contact (normal, tangent).
    DiskDisk(DiskDiskR),
    /// Two spheres with angular velocities in frictional contact (normal, two tangents).
    SphereLDSSphereLDS(SphereLDSSphereLDSR),
    /// A planar rigid body's point against a fixed line (normal, tangent).
    PlanarContact(PlanarContactR),
    /// `y = C x + D λ + e`, `r = B λ`, constant operators.
    FirstOrderLinearTIR(FirstOrderLinearTIR),
    /// `y = C(t) x + D(t) λ + F z + e(t)`, `r = B(t) λ`.
    FirstOrderLinearR(FirstOrderLinearR),
    /// `y = h(t, x, λ, z)`, `r = g(t, x, λ, z)` (and Type1R, Type2R).
    FirstOrderNonLinearR(FirstOrderNonLinearR),
}

impl Relation {
    /// Whether the relation acts on Lagrangian systems (else on first-order ones).
    pub fn is_lagrangian(&self) -> bool {
        !matches!(
            self,
            Self::FirstOrderLinearTIR(_) | Self::FirstOrderLinearR(_) | Self::FirstOrderNonLinearR(_)
        )
    }

    /// Whether y is affine in the coordinates with constant operators (no Newton loop needed).
    pub fn is_linear(&self) -> bool {
        match self {
            Self::LagrangianLinearTIR(_) | Self::LagrangianCompliantLinearTIR(_) | Self::FirstOrderLinearTIR(_) => true,
            Self::CoordinateVector(c) => c.is_linear(),
            _ => false,
        }
    }

    /// Whether the relation constrains velocities only (it has no position output to
    /// activate on, to project, or to report as a residual).
    pub fn is_velocity_level(&self) -> bool {
        match self {
            Self::Pfaffian(_) => true,
            Self::CoordinateVector(c) => c.is_velocity_level(),
            _ => false,
        }
    }

    /// Whether the relation currently applies a force (only a coordinate-vector constraint
    /// can be switched off).
    pub fn is_active(&self) -> bool {
        match self {
            Self::CoordinateVector(c) => c.is_active(),
            _ => true,
        }
    }

    /// Whether y depends on λ (a compliant relation, linear or not).
    pub fn is_compliant(&self) -> bool {
        matches!(
            self,
            Self::LagrangianCompliantLinearTIR(_) | Self::LagrangianCompliantR(_)
        )
    }

    /// A compliant relation's linearisation in λ at `lambda` (see [`CompliantLinearisation`]);
    /// `None` for the others.
    pub fn compliant_at(
        &self,
        q: &DVector<f64>,
        lambda: &DVector<f64>,
        z: &DVector<f64>,
    ) -> Option<Result<CompliantLinearisation>> {
        match self {
            Self::LagrangianCompliantLinearTIR(r) => Some(Ok(CompliantLinearisation {
                y0: &r.h * q + &r.b,
                g0: r.h.clone(),
                d: r.compliance.clone(),
            })),
            Self::LagrangianCompliantR(r) => {
                let (y, g0, g1) = r.evaluate(q, lambda, z);
                let m = lambda.len();
                Some((|| {
                    validate::vector("LagrangianCompliantR: h(q, λ, z)", &y, m)?;
                    validate::finite_vector("LagrangianCompliantR: h(q, λ, z)", &y)?;
                    validate::matrix("LagrangianCompliantR: G0(q, λ, z)", &g0, m, q.len())?;
                    validate::finite_matrix("LagrangianCompliantR: G0(q, λ, z)", &g0)?;
                    validate::matrix("LagrangianCompliantR: G1(q, λ, z)", &g1, m, m)?;
                    validate::finite_matrix("LagrangianCompliantR: G1(q, λ, z)", &g1)?;
                    Ok(CompliantLinearisation {
                        y0: &y - &g1 * lambda,
                        g0,
                        d: g1,
                    })
                })())
            }
            _ => None,
        }
    }

    /// Lagrangian output without the λ term: y = h(q, t) (H q + b for linear relations, and
    /// F z of the linked systems' discrete states `z` where F is given).
    pub fn output(&self, q: &DVector<f64>, z: &DVector<f64>, t: f64) -> Result<DVector<f64>> {
        let y = match self {
            Self::LagrangianLinearTIR(r) => &r.h * q + r.offset(z)?,
            Self::LagrangianCompliantLinearTIR(r) => &r.h * q + &r.b,
            Self::LagrangianCompliantR(r) => (r.h)(q, &DVector::zeros(r.size), z),
            Self::LagrangianScleronomousR(r) => (r.h)(q, z),
            Self::LagrangianRheonomousR(r) => (r.h)(q, t, z),
            Self::CoordinateVector(c) => c.output(q, t),
            Self::SphereSphere(r) => r.output(q),
            Self::PlanarContact(r) => r.output(q),
            Self::DiskDisk(r) => r.output(q),
            Self::SphereLDSSphereLDS(r) => r.output(q),
            Self::Pfaffian(r) => DVector::zeros((r.a)(q).nrows()),
            Self::FirstOrderLinearTIR(_) | Self::FirstOrderLinearR(_) | Self::FirstOrderNonLinearR(_) => {
                return Err(not_lagrangian());
            }
        };
        validate::finite_vector("relation output y = h(q, t)", &y)?;
        Ok(y)
    }

    /// Lagrangian Jacobian G0(q, t) = ∇_q h (H for linear relations), z the linked systems'
    /// discrete states.
    pub fn jacobian(&self, q: &DVector<f64>, z: &DVector<f64>, t: f64) -> Result<DMatrix<f64>> {
        let g = match self {
            Self::LagrangianLinearTIR(r) => r.h.clone(),
            Self::LagrangianCompliantLinearTIR(r) => r.h.clone(),
            Self::LagrangianCompliantR(r) => r.evaluate(q, &DVector::zeros(r.size), z).1,
            Self::LagrangianScleronomousR(r) => (r.jacobian)(q, z),
            Self::LagrangianRheonomousR(r) => (r.jacobian)(q, t, z),
            Self::CoordinateVector(c) => c.jacobian(q, t),
            Self::SphereSphere(r) => r.jacobian(q),
            Self::PlanarContact(r) => r.jacobian(q),
            Self::DiskDisk(r) => r.jacobian(q),
            Self::SphereLDSSphereLDS(r) => r.jacobian(q),
            Self::Pfaffian(r) => (r.a)(q),
            Self::FirstOrderLinearTIR(_) | Self::FirstOrderLinearR(_) | Self::FirstOrderNonLinearR(_) => {
                return Err(not_lagrangian());
            }
        };
        validate::finite_matrix("relation Jacobian G0(q, t)", &g)?;
        Ok(g)
    }

    /// ∂h/∂t (zero unless rheonomous or a velocity-level coordinate-vector constraint).
    pub fn hdot(&self, q: &DVector<f64>, z: &DVector<f64>, t: f64, size: usize) -> Result<DVector<f64>> {
        match self {
            Self::CoordinateVector(c) => {
                let hdot = c.hdot(q, t);
                validate::vector("CoordinateVectorConstraint: −v_off", &hdot, size)?;
                Ok(hdot)
            }
            Self::LagrangianRheonomousR(r) => {
                let hdot = (r.hdot)(q, t, z);
                validate::vector("LagrangianRheonomousR: ∂h/∂t", &hdot, size)?;
                Ok(hdot)
            }
            _ => Ok(DVector::zeros(size)),
        }
    }

    /// First-order operators (C, D, B, e) at time t, with the linked systems' discrete states
    /// `z`: a time-invariant relation's F z is folded into e (y = C x + D λ + (e + F z)).
    pub fn first_order_operators(&self, t: f64, z: &DVector<f64>) -> Result<FirstOrderOperators> {
        match self {
            Self::FirstOrderLinearTIR(r) => {
                let mut operators = r.operators.clone();
                first_order::fold_f("FirstOrderLinearTIR", &mut operators.e, r.f.as_ref(), z)?;
                Ok(operators)
            }
            Self::FirstOrderLinearR(r) => {
                let mut operators = (r.operators)(t);
                first_order::fold_f("FirstOrderLinearR", &mut operators.e, r.f.as_ref(), z)?;
                Ok(operators)
            }
            Self::FirstOrderNonLinearR(r) => Err(crate::error::Error::Unsupported {
                what: r.kind.into(),
                reason: "is nonlinear: Euler–Moreau's Newton loop linearises it at each iterate".into(),
            }),
            _ => Err(crate::error::Error::Unsupported {
                what: "Lagrangian relation".into(),
                reason: "has no first-order operators".into(),
            }),
        }
    }
}

/// A compliant relation's output linearised in λ: y ≈ y₀ + D λ, with G0 = ∇_q h — (H q + b,
/// H, D) for `LagrangianCompliantLinearTIR`, (h(q, λ*, z) − G1 λ*, G0, G1) at λ* for
/// `LagrangianCompliantR`.
#[derive(Clone, Debug)]
pub struct CompliantLinearisation {
    /// y₀, the output without its λ term.
    pub y0: DVector<f64>,
    /// G0 = ∇_q h.
    pub g0: DMatrix<f64>,
    /// D = ∇_λ h (the compliance).
    pub d: DMatrix<f64>,
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
    LagrangianCompliantR,
    FirstOrderLinearTIR,
    FirstOrderLinearR,
    FirstOrderNonLinearR
);

impl From<SphereSphereR> for Relation {
    fn from(r: SphereSphereR) -> Self {
        Self::SphereSphere(r)
    }
}

impl From<SphereLDSSphereLDSR> for Relation {
    fn from(r: SphereLDSSphereLDSR) -> Self {
        Self::SphereLDSSphereLDS(r)
    }
}

impl From<DiskDiskR> for Relation {
    fn from(r: DiskDiskR) -> Self {
        Self::DiskDisk(r)
    }
}

impl From<PlanarContactR> for Relation {
    fn from(r: PlanarContactR) -> Self {
        Self::PlanarContact(r)
    }
}

impl From<PfaffianR> for Relation {
    fn from(r: PfaffianR) -> Self {
        Self::Pfaffian(r)
    }
}

impl From<CoordinateVectorConstraint> for Relation {
    fn from(c: CoordinateVectorConstraint) -> Self {
        Self::CoordinateVector(c)
    }
}
