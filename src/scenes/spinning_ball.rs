//! A solid ball dropped with spin and horizontal velocity onto a rough floor, in 3-D: q = (x,
//! y, z, φ_x, φ_y, φ_z), v = (v, ω) — the angles only integrate ω: a sphere's orientation
//! does not enter its contacts —, M = diag(m, m, m, I, I, I) with I = ⅖ m R², F_ext = (0, 0,
//! −m g, 0, 0, 0). One contact with the floor z = 0 whose rows are the normal and the contact
//! point's velocity ω × (−R ẑ) + v:
//! ```text
//!     y = (z − R, ·, ·),   u = (v_z, v_x − R ω_y, v_y + R ω_x)
//! ```
//! under `NewtonImpactFrictionNSL(e_N, e_T, μ, 3)`. Landing with backspin on a floor with
//! large μ and e_T = 0 it leaves rolling, v_t⁺ = (5/7) v_t⁻ + (2/7) R ω_y⁻.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactFrictionNSL, Nsds};
use crate::reference::TimeStepping;
use crate::scenes::parameters::{Parameters, require, require_non_negative, require_positive};

/// Parameters of the spinning ball.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpinningBall {
    /// Radius R (m). Default 0.1.
    pub radius: f64,
    /// Mass m (kg). Default 1.
    pub mass: f64,
    /// Initial height of the centre (m). Default 0.5.
    pub height: f64,
    /// Initial velocity (v_x, v_y, v_z) (m/s). Default (1, 0, 0).
    pub velocity: [f64; 3],
    /// Initial angular velocity (ω_x, ω_y, ω_z) (rad/s). Default (0, −20, 0): backspin for
    /// v_x > 0.
    pub spin: [f64; 3],
    /// Normal restitution e_N. Default 0.8.
    pub restitution: f64,
    /// Tangential restitution e_T. Default 0.
    pub tangential_restitution: f64,
    /// Coulomb coefficient μ. Default 0.5.
    pub friction: f64,
    /// Gravity g (m/s²). Default 9.81.
    pub gravity: f64,
    /// Time step h (s). Default 1e-3.
    pub step: f64,
}

impl Default for SpinningBall {
    fn default() -> Self {
        Self {
            radius: 0.1,
            mass: 1.0,
            height: 0.5,
            velocity: [1.0, 0.0, 0.0],
            spin: [0.0, -20.0, 0.0],
            restitution: 0.8,
            tangential_restitution: 0.0,
            friction: 0.5,
            gravity: 9.81,
            step: 1e-3,
        }
    }
}

impl SpinningBall {
    /// The ball of the `spinning_ball` template: `radius`, `mass`, `height`, `vx`, `vy`,
    /// `vz`, `wx`, `wy`, `wz`, `restitution`, `tangential_restitution`, `friction`, `gravity`
    /// from `p` (in this order), defaults as above.
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let d = Self::default();
        let (radius, mass, height) = (
            p.scalar("radius", "m", d.radius)?,
            p.scalar("mass", "kg", d.mass)?,
            p.scalar("height", "m", d.height)?,
        );
        let velocity = [
            p.scalar("vx", "m/s", d.velocity[0])?,
            p.scalar("vy", "m/s", d.velocity[1])?,
            p.scalar("vz", "m/s", d.velocity[2])?,
        ];
        let spin = [
            p.scalar("wx", "rad/s", d.spin[0])?,
            p.scalar("wy", "rad/s", d.spin[1])?,
            p.scalar("wz", "rad/s", d.spin[2])?,
        ];
        let t = "spinning_ball";
        require_positive(t, "radius", radius)?;
        require_positive(t, "mass", mass)?;
        require(
            t,
            "radius",
            radius,
            (0.4 * mass * radius * radius).is_normal(),
            "the ball's moment of inertia ⅖ m R² is not a positive normal number (it under- or overflows)",
        )?;
        let inside = "the ball would start inside the floor (height < radius)";
        require(t, "height", height, height >= radius, inside)?;
        let ball = Self {
            radius,
            mass,
            height,
            velocity,
            spin,
            restitution: p.scalar("restitution", "", d.restitution)?,
            tangential_restitution: p.scalar("tangential_restitution", "", d.tangential_restitution)?,
            friction: p.scalar("friction", "", d.friction)?,
            gravity: p.scalar("gravity", "m/s²", d.gravity)?,
            ..d
        };
        require_non_negative(t, "friction", ball.friction)?;
        Ok(ball)
    }

    /// The scene: system `ball`, interaction `floor` (rows: normal, two tangents).
    pub fn nsds(&self) -> Result<Nsds> {
        let (m, r) = (self.mass, self.radius);
        let inertia = 0.4 * m * r * r;
        let [vx, vy, vz] = self.velocity;
        let [wx, wy, wz] = self.spin;
        let ball = LagrangianLinearTIDS::new(
            DVector::from_vec(vec![0.0, 0.0, self.height, 0.0, 0.0, 0.0]),
            DVector::from_vec(vec![vx, vy, vz, wx, wy, wz]),
            DMatrix::from_diagonal(&DVector::from_vec(vec![m, m, m, inertia, inertia, inertia])),
        )?
        .with_fext(DVector::from_vec(vec![0.0, 0.0, -m * self.gravity, 0.0, 0.0, 0.0]))?;
        let mut nsds = Nsds::new();
        let ball = nsds.add("ball", ball);
        #[rustfmt::skip]
        let rows = DMatrix::from_row_slice(3, 6, &[
            0.0, 0.0, 1.0, 0.0, 0.0, 0.0,
            1.0, 0.0, 0.0, 0.0, -r, 0.0,
            0.0, 1.0, 0.0, r, 0.0, 0.0,
        ]);
        let floor = LagrangianLinearTIR::with_offset(rows, DVector::from_vec(vec![-r, 0.0, 0.0]))?;
        let law = NewtonImpactFrictionNSL::new(self.restitution, self.tangential_restitution, self.friction, 3)?;
        nsds.link("floor", law, floor, &[ball])?;
        nsds.name_coordinates(super::SOLID)?;
        Ok(nsds)
    }

    /// The simulation from t = 0 (Moreau–Jean, θ = ½; NSGS for the 3-D contact).
    pub fn simulation(&self) -> Result<TimeStepping> {
        super::moreau_jean(self.nsds()?, self.step)
    }
}
