//! Two balls joined by a rigid rod, falling on the floor: dofs z₀ (lower ball) and z₁ (upper
//! ball), each M = mᵢ, F_ext = −mᵢ g; the rod is the equality z₁ − z₀ = L (a linear
//! coordinate-vector constraint, `EqualityConditionNSL`), and the lower ball meets the floor
//! through y = z₀ − R under Newton's law. It bounces as one ball of mass m₀ + m₁.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{
    CoordinateVectorConstraint, EqualityConditionNSL, LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds,
};
use crate::scenes::parameters::{Parameters, require, require_positive};

/// Parameters of the dumbbell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dumbbell {
    /// Mass m₀ of the lower ball (kg). Default 1.
    pub mass0: f64,
    /// Mass m₁ of the upper ball (kg). Default 1.
    pub mass1: f64,
    /// Radius R of the lower ball (m). Default 0.1.
    pub radius: f64,
    /// Initial height z₀ of the lower ball's centre (m), released at rest. Default 1.
    pub height: f64,
    /// Rod length L (m). Default 0.5.
    pub length: f64,
    /// Restitution e at the floor. Default 0.9.
    pub restitution: f64,
    /// Gravity g (m/s²). Default 9.81.
    pub gravity: f64,
}

impl Default for Dumbbell {
    fn default() -> Self {
        Self {
            mass0: 1.0,
            mass1: 1.0,
            radius: 0.1,
            height: 1.0,
            length: 0.5,
            restitution: 0.9,
            gravity: 9.81,
        }
    }
}

impl Dumbbell {
    /// The dumbbell of the `dumbbell` template: `mass0`, `mass1`, `radius`, `height`,
    /// `length`, `restitution`, `gravity` from `p` (in this order), defaults as above.
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let d = Self::default();
        let dumbbell = Self {
            mass0: p.scalar("mass0", "kg", d.mass0)?,
            mass1: p.scalar("mass1", "kg", d.mass1)?,
            radius: p.scalar("radius", "m", d.radius)?,
            height: p.scalar("height", "m", d.height)?,
            length: p.scalar("length", "m", d.length)?,
            restitution: p.scalar("restitution", "", d.restitution)?,
            gravity: p.scalar("gravity", "m/s²", d.gravity)?,
        };
        let t = "dumbbell";
        for (name, value) in [
            ("mass0", dumbbell.mass0),
            ("mass1", dumbbell.mass1),
            ("radius", dumbbell.radius),
        ] {
            require_positive(t, name, value)?;
        }
        require(
            t,
            "height",
            dumbbell.height,
            dumbbell.height >= dumbbell.radius,
            "the lower ball would start inside the floor (height < radius)",
        )?;
        // Only the lower ball meets the floor: the upper one must stay above it.
        require(
            t,
            "length",
            dumbbell.length,
            dumbbell.length > 0.0,
            "must be > 0: the upper ball is `length` above the lower one, the only one that meets the floor",
        )?;
        Ok(dumbbell)
    }

    /// The scene: systems `lower ball`, `upper ball`; interactions `rod`, `floor`.
    pub fn nsds(&self) -> Result<Nsds> {
        let one = |x: f64| DVector::from_element(1, x);
        let ball = |z: f64, m: f64| -> Result<LagrangianLinearTIDS> {
            LagrangianLinearTIDS::new(one(z), one(0.0), DMatrix::from_element(1, 1, m))?
                .with_fext(one(-m * self.gravity))
        };
        let mut nsds = Nsds::new();
        let lower = nsds.add("lower ball", ball(self.height, self.mass0)?);
        let upper = nsds.add("upper ball", ball(self.height + self.length, self.mass1)?);
        let identity = DMatrix::from_element(1, 1, 1.0);
        let rod = CoordinateVectorConstraint::builder("rod", [1, 1])
            .scaling(0, identity.clone())
            .scaling(1, identity.clone())
            .offset(one(self.length))
            .build()?;
        nsds.link("rod", EqualityConditionNSL::new(1)?, rod, &[lower, upper])?;
        let floor = LagrangianLinearTIR::with_offset(identity, one(-self.radius))?;
        nsds.link("floor", NewtonImpactNSL::new(self.restitution)?, floor, &[lower])?;
        nsds.name_coordinates(["z_0", "z_1"])?;
        Ok(nsds)
    }
}
