//! A block (a point mass) on a line inclined by α through the origin, with Coulomb friction,
//! written in the line's frame: q = (s, d), s along the slope (positive up) and d the distance
//! above the line (t = (cos α, sin α), n = (−sin α, cos α): the point s t + d n), M = m I, and
//! gravity −g ŷ is F_ext = −m g (sin α, cos α); one contact whose rows are the normal and the
//! tangent, y = (d, s), under `NewtonImpactFrictionNSL(0, 0, μ, 2)`. (In this frame the gap is
//! one coordinate, so every engine computes the same gap to the bit.) Launched from the origin
//! at v₀ along the slope (positive up), it moves as
//! ```text
//!     up the slope:    s̈ = −g (sin α + μ cos α)   until it stops, then
//!     tan α ≤ μ:       it sticks;   otherwise   s̈ = −g (sin α − μ cos α)
//! ```
//! (s = t·q, the distance along the slope from the start). [`BlockOnIncline::exact`] is that
//! motion.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactFrictionNSL, Nsds};
use crate::reference::TimeStepping;
use crate::scenes::parameters::{Parameters, require, require_non_negative, require_positive};

/// Parameters of the block on the incline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockOnIncline {
    /// Incline α (rad, in [0, π/2)). Default 0.5.
    pub incline: f64,
    /// Coulomb coefficient μ. Default 0.3.
    pub friction: f64,
    /// Initial velocity along the slope v₀ (m/s, positive up). Default 2.
    pub velocity: f64,
    /// Mass m (kg). Default 1.
    pub mass: f64,
    /// Gravity g (m/s²). Default 9.81.
    pub gravity: f64,
    /// Time step h (s). Default 1e-3.
    pub step: f64,
}

impl Default for BlockOnIncline {
    fn default() -> Self {
        Self {
            incline: 0.5,
            friction: 0.3,
            velocity: 2.0,
            mass: 1.0,
            gravity: 9.81,
            step: 1e-3,
        }
    }
}

impl BlockOnIncline {
    /// The block of the `block_on_incline` template: `incline`, `friction`, `velocity`,
    /// `mass`, `gravity` from `p` (in this order), defaults as above. Refuses, naming the
    /// parameter, an incline outside [0, π/2), a negative friction and a mass that is not a
    /// positive normal number.
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let d = Self::default();
        let block = Self {
            incline: p.scalar("incline", "rad", d.incline)?,
            friction: p.scalar("friction", "", d.friction)?,
            velocity: p.scalar("velocity", "m/s", d.velocity)?,
            mass: p.scalar("mass", "kg", d.mass)?,
            gravity: p.scalar("gravity", "m/s²", d.gravity)?,
            ..d
        };
        let t = "block_on_incline";
        // At α ≥ π/2 (or α < −π/2) gravity pulls the block off the line, and the motion of the
        // module docs (α ≥ 0, "up" the slope) no longer holds; a launch down the slope is a
        // negative `velocity`.
        require(
            t,
            "incline",
            block.incline,
            (0.0..std::f64::consts::FRAC_PI_2).contains(&block.incline),
            "must be in [0, π/2) rad, the slope's angle above the horizontal (launch down the slope with a negative `velocity`)",
        )?;
        require_non_negative(t, "friction", block.friction)?;
        require_positive(t, "mass", block.mass)?;
        Ok(block)
    }

    /// The scene: system `block` (q = (s, d)), interaction `incline` (rows: normal, tangent).
    pub fn nsds(&self) -> Result<Nsds> {
        let (m, (sin, cos)) = (self.mass, self.incline.sin_cos());
        let block = LagrangianLinearTIDS::new(
            DVector::zeros(2),
            DVector::from_vec(vec![self.velocity, 0.0]),
            DMatrix::identity(2, 2) * m,
        )?
        .with_fext(DVector::from_vec(vec![
            -m * self.gravity * sin,
            -m * self.gravity * cos,
        ]))?;
        let mut nsds = Nsds::new();
        let block = nsds.add("block", block);
        let rows = LagrangianLinearTIR::new(DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 1.0, 0.0]))?;
        nsds.link(
            "incline",
            NewtonImpactFrictionNSL::new(0.0, 0.0, self.friction, 2)?,
            rows,
            &[block],
        )?;
        nsds.name_coordinates(["s", "d"])?;
        Ok(nsds)
    }

    /// The simulation from t = 0 (Moreau–Jean, θ = ½).
    pub fn simulation(&self) -> Result<TimeStepping> {
        super::moreau_jean(self.nsds()?, self.step)
    }

    /// The exact (s, ṡ) at time `t` (see the module docs).
    pub fn exact(&self, t: f64) -> (f64, f64) {
        let (sin, cos) = self.incline.sin_cos();
        let (g, mu, v0) = (self.gravity, self.friction, self.velocity);
        // Friction opposes the motion: down the slope while sliding up, up while sliding down.
        let (up, down) = (-g * (sin + mu * cos), -g * (sin - mu * cos));
        let sticks = sin.abs() <= mu * cos;
        if v0 > 0.0 {
            let a = up;
            let stop = -v0 / a;
            if t <= stop {
                return (v0 * t + 0.5 * a * t * t, v0 + a * t);
            }
            let s_stop = v0 * stop + 0.5 * a * stop * stop;
            if sticks {
                return (s_stop, 0.0);
            }
            let tau = t - stop;
            return (s_stop + 0.5 * down * tau * tau, down * tau);
        }
        if v0 == 0.0 && sticks {
            return (0.0, 0.0);
        }
        // Sliding down from the start: it decelerates (and may stop) or accelerates.
        let a = down;
        let stop = if a > 0.0 { -v0 / a } else { f64::INFINITY };
        if t <= stop {
            (v0 * t + 0.5 * a * t * t, v0 + a * t)
        } else {
            (v0 * stop + 0.5 * a * stop * stop, 0.0)
        }
    }
}
