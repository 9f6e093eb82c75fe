//! A ball dropped on the floor, its centre height z the one coordinate: M = m,
//! F_ext = −m g, one contact y = z − R with a Newton impact e — the `bouncing_ball` template
//! of scenario files (Siconos's 3-dof BouncingBallTS is [`super::bouncing_ball`]).
//!
//! Its Moreau–Jean step is known in closed form: W = m, W⁻¹ = 1/m, D = H W⁻¹ Hᵀ = 1/m,
//! c = W⁻¹ h F_ext = (1/m)(−m g) h, A = B = 0; so as a [`Scene`] it gives the batched engines
//! its operators, and the ensemble its energy ½ m v² + m g z, without building an [`Nsds`]
//! (each is computed with the operations, in the order, of the `Nsds` reduction it replaces,
//! so the bits are the same: `tests/integration/scenes.rs`).

use nalgebra::{DMatrix, DVector};

use crate::batch::{LinearScene, RowKind, SceneBatch};
use crate::engine::Scene;
use crate::error::Result;
use crate::model::{LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds};
use crate::scenes::parameters::{Parameters, require, require_positive};
use crate::scheme::{LagrangianIntegrator, Stabilization};
use crate::validate;

/// Parameters of the dropped ball.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DroppedBall {
    /// Mass m (kg).
    pub mass: f64,
    /// Radius R (m).
    pub radius: f64,
    /// Initial height z₀ of the centre (m).
    pub height: f64,
    /// Initial velocity ż₀ (m/s).
    pub velocity: f64,
    /// Restitution e.
    pub restitution: f64,
    /// Gravity g (m/s²).
    pub gravity: f64,
}

impl Default for DroppedBall {
    /// m = 1 kg, R = 0.1 m, z₀ = 1 m, ż₀ = 0, e = 0.9, g = 9.81 m/s².
    fn default() -> Self {
        Self {
            mass: 1.0,
            radius: 0.1,
            height: 1.0,
            velocity: 0.0,
            restitution: 0.9,
            gravity: 9.81,
        }
    }
}

impl DroppedBall {
    /// The ball of the `bouncing_ball` template: `mass`, `radius`, `height`, `velocity`,
    /// `restitution`, `gravity` from `p` (in this order), defaults as [`Default`].
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let d = Self::default();
        let (m, r, z0, v0) = (
            p.scalar("mass", "kg", d.mass)?,
            p.scalar("radius", "m", d.radius)?,
            p.scalar("height", "m", d.height)?,
            p.scalar("velocity", "m/s", d.velocity)?,
        );
        let (e, g) = (
            p.scalar("restitution", "", d.restitution)?,
            p.scalar("gravity", "m/s²", d.gravity)?,
        );
        require_positive("bouncing_ball", "mass", m)?;
        require_positive("bouncing_ball", "radius", r)?;
        require(
            "bouncing_ball",
            "height",
            z0,
            z0 >= r,
            "the ball would start inside the floor (height < radius)",
        )?;
        Self::new(m, r, z0, v0, e, g)
    }

    /// The ball, checked as building its [`Nsds`] would check it (the same errors).
    pub fn new(mass: f64, radius: f64, height: f64, velocity: f64, restitution: f64, gravity: f64) -> Result<Self> {
        let ball = Self {
            mass,
            radius,
            height,
            velocity,
            restitution,
            gravity,
        };
        let one = |x: f64| DVector::from_element(1, x);
        LagrangianLinearTIDS::check(&one(height), &one(velocity), &DMatrix::from_element(1, 1, mass))?;
        validate::vector(
            "LagrangianLinearTIDS: F_ext",
            &DVector::from_element(1, -mass * gravity),
            1,
        )?;
        LagrangianLinearTIR::check(&DMatrix::from_element(1, 1, 1.0), &one(-radius))?;
        NewtonImpactNSL::new(restitution)?;
        Ok(ball)
    }
}

impl Scene for DroppedBall {
    fn nsds(&self) -> Result<Nsds> {
        let (m, g) = (self.mass, self.gravity);
        let mut nsds = Nsds::new();
        let ball = LagrangianLinearTIDS::new(
            DVector::from_element(1, self.height),
            DVector::from_element(1, self.velocity),
            DMatrix::from_element(1, 1, m),
        )?
        .with_fext(DVector::from_element(1, -m * g))?;
        let ball = nsds.add("ball", ball);
        let floor =
            LagrangianLinearTIR::with_offset(DMatrix::from_element(1, 1, 1.0), DVector::from_element(1, -self.radius))?;
        nsds.link("floor", NewtonImpactNSL::new(self.restitution)?, floor, &[ball])?;
        nsds.name_coordinates(["z"])?;
        Ok(nsds)
    }

    fn dof(&self) -> usize {
        1
    }

    fn coordinate_names(&self) -> Vec<String> {
        vec!["z".into()]
    }

    fn initial_state(&self) -> (DVector<f64>, DVector<f64>) {
        (
            DVector::from_element(1, self.height),
            DVector::from_element(1, self.velocity),
        )
    }

    /// ½ v (m v) + ½ q (K q) − F_ext q with K = 0 and F_ext = −m g, summed as `Nsds::energy`.
    fn energy(&self, q: &DVector<f64>, v: &DVector<f64>) -> Result<f64> {
        let m = self.mass;
        Ok(0.0 + super::one_dof_energy(m, 0.0, -m * self.gravity, q[0], v[0]))
    }

    fn linear(&self, h: f64, theta: f64, stabilization: Stabilization) -> Result<LinearScene> {
        let (w_inv, c) = self.operators(h, theta, stabilization)?;
        let one = |x: f64| DMatrix::from_element(1, 1, x);
        let column = |x: f64| DVector::from_element(1, x);
        Ok(LinearScene {
            q0: column(self.height),
            v0: column(self.velocity),
            a: one(0.0),
            b: one(0.0),
            c: column(c),
            c_harmonic: column(0.0),
            omega: 0.0,
            phase: 0.0,
            forcing_end: f64::INFINITY,
            winv_ht: one(w_inv),
            h: one(1.0),
            delassus: one(w_inv),
            offset: column(-self.radius),
            restitution: column(self.restitution),
            rows: vec![RowKind::Contact],
            feedback: column(0.0),
            mu: vec![0.0],
            quadratic: one(0.0),
            distance: vec![[0.0; 6]],
            lever: vec![[0.0; 3]],
            w_inv: one(w_inv),
            end_kick: None,
            sub_steps: None,
        })
    }

    /// The rows of [`Scene::linear`] written straight into the batch (no matrices built).
    fn push_to(&self, batch: &mut SceneBatch, stabilization: Stabilization) -> Result<()> {
        if batch.integrator == LagrangianIntegrator::Rattle {
            return batch.push(&self.linear_rattle(batch.h)?);
        }
        let (w_inv, c) = self.operators(batch.h, batch.theta, stabilization)?;
        batch.push_operators(0, &[self.height], &[self.velocity], &[RowKind::Contact], |o, ops| {
            ops[o.c] = c;
            ops[o.w_inv_ht] = w_inv;
            ops[o.h] = 1.0;
            ops[o.delassus] = w_inv;
            ops[o.offset] = -self.radius;
            ops[o.restitution] = self.restitution;
            // ω, φ, end: no harmonic force.
            ops[o.frequency + 2] = f64::INFINITY;
            ops[o.w_inv] = w_inv;
        })
    }
}

impl DroppedBall {
    /// W⁻¹ = 1/m and c = W⁻¹ (−m g) h, after the checks of a step's reduction.
    fn operators(&self, h: f64, theta: f64, stabilization: Stabilization) -> Result<(f64, f64)> {
        LinearScene::check_step(h, theta)?;
        // No equality rows: β only has to be one the batched engines take.
        LinearScene::feedback_gain(stabilization)?;
        let w_inv = 1.0 / self.mass;
        Ok((w_inv, w_inv * (-self.mass * self.gravity) * h))
    }
}
