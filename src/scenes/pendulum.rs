//! A point mass on a massless rod: the pendulum, and the pendulum hitting a wall.
//!
//! q = (x, y), M = m I, F_ext = (0, −m g). The rod is Exudyn's coordinate-vector constraint
//! between the ground and the mass with the quadratic term Y = [1 1] and offset L²:
//! ```text
//!     c(q) = x² + y² − L² = 0        (EqualityConditionNSL, λ free)
//! ```
//! With a wall, a unilateral contact y_w = x − x_w ≥ 0 under Newton's law with restitution e
//! joins it, and each step solves an MLCP mixing the two.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{
    CoordinateVectorConstraint, EqualityConditionNSL, InteractionId, LagrangianLinearTIDS, LagrangianLinearTIR,
    NewtonImpactNSL, Nsds,
};
use crate::reference::{Integrator, Stabilization, TimeStepping};
use crate::scenes::parameters::{Parameters, require, require_positive};
use crate::scheme::moreau_jean::MoreauJeanOSI;

/// A vertical wall x = `position` that the mass stays to the right of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wall {
    /// x_w (m).
    pub position: f64,
    /// Restitution e.
    pub restitution: f64,
}

/// Parameters of the pendulum (defaults: L = 1 m, m = 1 kg, g = 9.81 m/s², released at rest
/// from (L, 0), h = 10⁻³ s, θ = ½, projection onto the constraint after each step).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pendulum {
    /// Rod length L (m).
    pub length: f64,
    /// Mass m (kg).
    pub mass: f64,
    /// Gravity g (m/s²), along −y.
    pub gravity: f64,
    /// Initial angle from the downward vertical (rad); π/2 is (x, y) = (L, 0).
    pub angle: f64,
    /// Initial angular velocity (rad/s).
    pub angular_velocity: f64,
    /// An optional wall.
    pub wall: Option<Wall>,
    /// Time step h (s).
    pub step: f64,
    /// The integrator.
    pub osi: MoreauJeanOSI,
    /// What keeps x² + y² = L².
    pub stabilization: Stabilization,
}

impl Default for Pendulum {
    fn default() -> Self {
        Self {
            length: 1.0,
            mass: 1.0,
            gravity: 9.81,
            angle: std::f64::consts::FRAC_PI_2,
            angular_velocity: 0.0,
            wall: None,
            step: 1e-3,
            osi: MoreauJeanOSI::default(),
            stabilization: Stabilization::projection(),
        }
    }
}

/// The rod constraint's interaction (the first one linked).
pub const ROD: InteractionId = InteractionId(0);

impl Pendulum {
    /// The pendulum of the `pendulum` template, or with `wall` that of
    /// `pendulum_hitting_wall` (the wall at x = 0): `length`, `mass`, `gravity`, `angle`,
    /// `angular_velocity` and with a wall `restitution` (default 0.8) from `p`, in this order.
    pub fn from_parameters(p: &mut dyn Parameters, wall: bool) -> Result<Self> {
        let d = Self::default();
        let pendulum = Self {
            length: p.scalar("length", "m", d.length)?,
            mass: p.scalar("mass", "kg", d.mass)?,
            gravity: p.scalar("gravity", "m/s²", d.gravity)?,
            angle: p.scalar("angle", "rad", d.angle)?,
            angular_velocity: p.scalar("angular_velocity", "rad/s", d.angular_velocity)?,
            ..d
        };
        let wall = if wall {
            Some(Wall {
                position: 0.0,
                restitution: p.scalar("restitution", "", 0.8)?,
            })
        } else {
            None
        };
        let t = if wall.is_some() {
            "pendulum_hitting_wall"
        } else {
            "pendulum"
        };
        require_positive(t, "length", pendulum.length)?;
        require_positive(t, "mass", pendulum.mass)?;
        // The wall is x = 0 and the mass starts at x = L sin(angle).
        if wall.is_some() {
            require(
                t,
                "angle",
                pendulum.angle,
                pendulum.angle.sin() >= 0.0,
                "the mass would start behind the wall at x = 0 (sin(angle) < 0)",
            )?;
        }
        Ok(Self { wall, ..pendulum })
    }

    /// The pendulum hitting a wall at x = 0 (the bottom of the swing) with restitution `e`.
    pub fn hitting_wall(e: f64) -> Self {
        Self {
            wall: Some(Wall {
                position: 0.0,
                restitution: e,
            }),
            ..Self::default()
        }
    }

    /// The scene: the mass, the rod and the optional wall.
    pub fn nsds(&self) -> Result<Nsds> {
        let (m, l) = (self.mass, self.length);
        let (sin, cos) = self.angle.sin_cos();
        let q0 = DVector::from_vec(vec![l * sin, -l * cos]);
        let v0 = DVector::from_vec(vec![l * cos, l * sin]) * self.angular_velocity;
        let body = LagrangianLinearTIDS::new(q0, v0, DMatrix::identity(2, 2) * m)?
            .with_fext(DVector::from_vec(vec![0.0, -m * self.gravity]))?;
        let mut nsds = Nsds::new();
        let body = nsds.add("mass", body);
        let rod = CoordinateVectorConstraint::builder("rod", [0, 2])
            .quadratic(1, DMatrix::from_row_slice(1, 2, &[1.0, 1.0]))
            .offset(DVector::from_element(1, l * l))
            .build()?;
        nsds.link("rod", EqualityConditionNSL::new(1)?, rod, &[body])?;
        if let Some(wall) = self.wall {
            let contact = LagrangianLinearTIR::with_offset(
                DMatrix::from_row_slice(1, 2, &[1.0, 0.0]),
                DVector::from_element(1, -wall.position),
            )?;
            nsds.link("wall", NewtonImpactNSL::new(wall.restitution)?, contact, &[body])?;
        }
        nsds.name_coordinates(["x", "y"])?;
        Ok(nsds)
    }

    /// The simulation from t = 0.
    pub fn simulation(&self) -> Result<TimeStepping> {
        let mut simulation = TimeStepping::new(self.nsds()?, Integrator::MoreauJean(self.osi), 0.0, self.step)?;
        simulation.stabilization = self.stabilization;
        Ok(simulation)
    }
}
