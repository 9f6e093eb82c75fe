//! Newton's cradle, one-dimensional: n equal balls on a line along x, ball 0 launched at
//! the others. Each ball is a one-dof `LagrangianLinearTIDS` (no gravity: the strings of a
//! real cradle only keep the balls in line); neighbours i, i+1 meet through
//! y = x_{i+1} − x_i − 2R with `NewtonImpactNSL(e)`.
//!
//! With a small gap between the resting balls the impacts are sequential, and with e = 1
//! each one exchanges the velocities of equal masses: the last ball leaves with v₀.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{DsId, LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds};
use crate::reference::{Integrator, TimeStepping};
use crate::scenes::parameters::Parameters;
use crate::scheme::moreau_jean::MoreauJeanOSI;

/// Parameters of the cradle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewtonsCradle {
    /// Number of balls. Default 5.
    pub balls: usize,
    /// Radius R (m). Default 0.02.
    pub radius: f64,
    /// Mass of each ball (kg). Default 0.1.
    pub mass: f64,
    /// Gap between neighbouring resting balls (m). Default 1e-3.
    pub gap: f64,
    /// Distance ball 0 starts from ball 1 (m). Default 0.01.
    pub approach: f64,
    /// Velocity of ball 0 (m/s). Default 1.
    pub velocity: f64,
    /// Restitution e. Default 1.
    pub restitution: f64,
    /// Time step h (s). Default 1e-4.
    pub step: f64,
}

impl Default for NewtonsCradle {
    fn default() -> Self {
        Self {
            balls: 5,
            radius: 0.02,
            mass: 0.1,
            gap: 1e-3,
            approach: 0.01,
            velocity: 1.0,
            restitution: 1.0,
            step: 1e-4,
        }
    }
}

impl NewtonsCradle {
    /// The cradle of the `newtons_cradle` template: `balls`, `radius`, `mass`, `gap`,
    /// `approach`, `velocity`, `restitution` from `p` (in this order), defaults as above.
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let d = Self::default();
        Ok(Self {
            balls: p.count("balls", d.balls)?,
            radius: p.scalar("radius", d.radius)?,
            mass: p.scalar("mass", d.mass)?,
            gap: p.scalar("gap", d.gap)?,
            approach: p.scalar("approach", d.approach)?,
            velocity: p.scalar("velocity", d.velocity)?,
            restitution: p.scalar("restitution", d.restitution)?,
            ..d
        })
    }

    /// The scene and the ball handles, ball 0 first.
    pub fn nsds(&self) -> Result<(Nsds, Vec<DsId>)> {
        let mut nsds = Nsds::new();
        let mut balls = Vec::with_capacity(self.balls);
        let mut x = 0.0;
        for i in 0..self.balls {
            let v = if i == 0 { self.velocity } else { 0.0 };
            let ball = LagrangianLinearTIDS::new(
                DVector::from_element(1, x),
                DVector::from_element(1, v),
                DMatrix::from_element(1, 1, self.mass),
            )?;
            balls.push(nsds.add(&format!("ball {i}"), ball));
            x += 2.0 * self.radius + if i == 0 { self.approach } else { self.gap };
        }
        for i in 1..self.balls {
            let relation = LagrangianLinearTIR::with_offset(
                DMatrix::from_row_slice(1, 2, &[-1.0, 1.0]),
                DVector::from_element(1, -2.0 * self.radius),
            )?;
            nsds.link(
                &format!("balls {}-{i}", i - 1),
                NewtonImpactNSL::new(self.restitution)?,
                relation,
                &[balls[i - 1], balls[i]],
            )?;
        }
        Ok((nsds, balls))
    }

    /// The simulation from t = 0 and the ball handles.
    pub fn simulation(&self) -> Result<(TimeStepping, Vec<DsId>)> {
        let (nsds, balls) = self.nsds()?;
        Ok((
            TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, self.step)?,
            balls,
        ))
    }
}
