//! Siconos's BouncingBallTS: a ball of radius R and mass m falling on the plane z = 0.
//!
//! A `LagrangianLinearTIDS` with q = (z, x, θ), M = diag(m, m, ⅖ m R²), F_ext = (−m g, 0, 0),
//! one `LagrangianLinearTIR` y = z (the radius is not subtracted, as in Siconos) and a
//! `NewtonImpactNSL(e)`.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds};
use crate::reference::{Integrator, TimeStepping};
use crate::scheme::moreau_jean::MoreauJeanOSI;

/// Parameters of the bouncing ball (defaults: Siconos's BouncingBallTS).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BouncingBall {
    /// Radius R (m). Default 0.1.
    pub radius: f64,
    /// Mass m (kg). Default 1.
    pub mass: f64,
    /// Gravity g (m/s²). Default 9.81.
    pub gravity: f64,
    /// Initial height z₀ (m). Default 1.
    pub height: f64,
    /// Initial vertical velocity (m/s). Default 0.
    pub velocity: f64,
    /// Restitution e. Default 0.9.
    pub restitution: f64,
    /// Time step h (s). Default 0.005.
    pub step: f64,
    /// The integrator. Default θ = ½, γ = ½.
    pub osi: MoreauJeanOSI,
}

impl Default for BouncingBall {
    fn default() -> Self {
        Self {
            radius: 0.1,
            mass: 1.0,
            gravity: 9.81,
            height: 1.0,
            velocity: 0.0,
            restitution: 0.9,
            step: 0.005,
            osi: MoreauJeanOSI::default(),
        }
    }
}

impl BouncingBall {
    /// The scene: one ball and its floor contact.
    pub fn nsds(&self) -> Result<Nsds> {
        let (m, r) = (self.mass, self.radius);
        let mass = DMatrix::from_diagonal(&DVector::from_vec(vec![m, m, 0.4 * m * r * r]));
        let q0 = DVector::from_vec(vec![self.height, 0.0, 0.0]);
        let v0 = DVector::from_vec(vec![self.velocity, 0.0, 0.0]);
        let ball =
            LagrangianLinearTIDS::new(q0, v0, mass)?.with_fext(DVector::from_vec(vec![-m * self.gravity, 0.0, 0.0]))?;
        let mut nsds = Nsds::new();
        let ball = nsds.add("ball", ball);
        let floor = LagrangianLinearTIR::new(DMatrix::from_row_slice(1, 3, &[1.0, 0.0, 0.0]))?;
        nsds.link("floor", NewtonImpactNSL::new(self.restitution)?, floor, &[ball])?;
        nsds.name_coordinates(["z", "x", "theta"])?;
        Ok(nsds)
    }

    /// The simulation from t = 0.
    pub fn simulation(&self) -> Result<TimeStepping> {
        TimeStepping::new(self.nsds()?, Integrator::MoreauJean(self.osi), 0.0, self.step)
    }
}
