//! Newton's cradle, one-dimensional: n equal balls on a line along x, ball 0 launched at
//! the others. Each ball is a one-dof `LagrangianLinearTIDS` (no gravity: the strings of a
//! real cradle only keep the balls in line); neighbours i, i+1 meet through
//! y = x_{i+1} − x_i − 2R with `NewtonImpactNSL(e)`.
//!
//! With a small gap between the resting balls the impacts are sequential, and with e = 1
//! each one exchanges the velocities of equal masses: the last ball leaves with v₀.

use nalgebra::{DMatrix, DVector};

use crate::batch::{Gathered, LinearScene, RowKind};
use crate::engine::Scene;
use crate::error::Result;
use crate::model::{DsId, LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds};
use crate::reference::{Integrator, TimeStepping};
use crate::scenes::parameters::{Parameters, require, require_memory, require_positive};
use crate::scheme::Stabilization;
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
        let cradle = Self {
            balls: p.count("balls", d.balls).and_then(|n| {
                // n balls: n dof, n − 1 contacts.
                require_memory("newtons_cradle", ("balls", n), n, n).map(|()| n)
            })?,
            radius: p.scalar("radius", "m", d.radius)?,
            mass: p.scalar("mass", "kg", d.mass)?,
            gap: p.scalar("gap", "m", d.gap)?,
            approach: p.scalar("approach", "m", d.approach)?,
            velocity: p.scalar("velocity", "m/s", d.velocity)?,
            restitution: p.scalar("restitution", "", d.restitution)?,
            ..d
        };
        let t = "newtons_cradle";
        require_positive(t, "radius", cradle.radius)?;
        require_positive(t, "mass", cradle.mass)?;
        require(
            t,
            "gap",
            cradle.gap,
            cradle.gap >= 0.0,
            "the resting balls would overlap (gap < 0)",
        )?;
        let approach = cradle.approach;
        require(
            t,
            "approach",
            approach,
            approach >= 0.0,
            "the first ball would overlap the second",
        )?;
        Ok(cradle)
    }

    /// The initial positions: ball 0 at 0, ball 1 at 2R + approach, then 2R + gap apart.
    fn positions(&self) -> impl Iterator<Item = f64> + '_ {
        (0..self.balls).scan(0.0, |x, i| {
            let at = *x;
            *x += 2.0 * self.radius + if i == 0 { self.approach } else { self.gap };
            Some(at)
        })
    }

    /// The initial velocities: ball 0's, the others at rest.
    fn velocities(&self) -> impl Iterator<Item = f64> + '_ {
        (0..self.balls).map(|i| if i == 0 { self.velocity } else { 0.0 })
    }

    /// The cradle, after the checks building its `Nsds` makes (with the same errors).
    pub fn checked(self) -> Result<Self> {
        self.check()?;
        Ok(self)
    }

    /// The checks of [`NewtonsCradle::nsds`]'s constructors, in its order.
    fn check(&self) -> Result<()> {
        let (one, mass) = (
            |x: f64| DVector::from_element(1, x),
            DMatrix::from_element(1, 1, self.mass),
        );
        for (x, v) in self.positions().zip(self.velocities()) {
            LagrangianLinearTIDS::check(&one(x), &one(v), &mass)?;
        }
        if self.balls > 1 {
            LagrangianLinearTIR::check(&Self::pair(), &one(-2.0 * self.radius))?;
            NewtonImpactNSL::new(self.restitution)?;
        }
        Ok(())
    }

    /// H of a contact between neighbours: y = x_{i+1} − x_i − 2R.
    fn pair() -> DMatrix<f64> {
        DMatrix::from_row_slice(1, 2, &[-1.0, 1.0])
    }

    /// The scene and the ball handles, ball 0 first.
    pub fn nsds(&self) -> Result<(Nsds, Vec<DsId>)> {
        let mut nsds = Nsds::new();
        let mut balls = Vec::with_capacity(self.balls);
        for (i, (x, v)) in self.positions().zip(self.velocities()).enumerate() {
            let ball = LagrangianLinearTIDS::new(
                DVector::from_element(1, x),
                DVector::from_element(1, v),
                DMatrix::from_element(1, 1, self.mass),
            )?;
            balls.push(nsds.add(&format!("ball {i}"), ball));
        }
        for i in 1..self.balls {
            let relation =
                LagrangianLinearTIR::with_offset(Self::pair(), DVector::from_element(1, -2.0 * self.radius))?;
            nsds.link(
                &format!("balls {}-{i}", i - 1),
                NewtonImpactNSL::new(self.restitution)?,
                relation,
                &[balls[i - 1], balls[i]],
            )?;
        }
        nsds.name_coordinates(super::body_coordinates(&["x"], self.balls))?;
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

/// The cradle in closed form: M = m I, no force, H with rows e_{i+1} − e_i, b = −2R; the
/// batched engines get its operators (through the same reduction as its `Nsds`'s, so the same
/// bits: `tests/integration/scenes.rs`) without an `Nsds` being built.
impl Scene for NewtonsCradle {
    fn nsds(&self) -> Result<Nsds> {
        Ok(NewtonsCradle::nsds(self)?.0)
    }

    fn dof(&self) -> usize {
        self.balls
    }

    fn coordinate_names(&self) -> Vec<String> {
        super::body_coordinates(&["x"], self.balls)
    }

    fn initial_state(&self) -> (DVector<f64>, DVector<f64>) {
        (
            DVector::from_iterator(self.balls, self.positions()),
            DVector::from_iterator(self.balls, self.velocities()),
        )
    }

    /// Σ ½ m vᵢ², summed over the balls as `Nsds::energy`.
    fn energy(&self, q: &DVector<f64>, v: &DVector<f64>) -> Result<f64> {
        Ok((0..self.balls).fold(0.0, |energy, i| {
            energy + super::one_dof_energy(self.mass, 0.0, 0.0, q[i], v[i])
        }))
    }

    fn linear(&self, h: f64, theta: f64, stabilization: Stabilization) -> Result<LinearScene> {
        LinearScene::check_step(h, theta)?;
        self.check()?;
        let beta = LinearScene::feedback_gain(stabilization)?;
        let (q0, v0) = self.initial_state();
        let (n, m) = (self.balls, self.balls.saturating_sub(1));
        let mut hmat = DMatrix::zeros(m, n);
        for i in 1..n {
            hmat.view_mut((i - 1, i - 1), (1, 2)).copy_from(&Self::pair());
        }
        let gathered = Gathered {
            mass: DMatrix::from_diagonal_element(n, n, self.mass),
            stiffness: DMatrix::zeros(n, n),
            damping: DMatrix::zeros(n, n),
            fext: DVector::zeros(n),
            amplitude: DVector::zeros(n),
            frequency: None,
            q0,
            v0,
            g0: hmat.clone(),
            h: hmat,
            quadratic: DMatrix::zeros(m, n),
            offset: DVector::from_element(m, -2.0 * self.radius),
            restitution: DVector::from_element(m, self.restitution),
            rows: vec![RowKind::Contact; m],
            mu: vec![0.0; m],
            lever: vec![[0.0; 3]; m],
            distance: vec![[0.0; 6]; m],
        };
        LinearScene::reduce(gathered, h, theta, beta, &|row| {
            format!("interaction `balls {row}-{}`", row + 1)
        })
    }
}
