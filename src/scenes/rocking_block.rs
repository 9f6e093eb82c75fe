//! A rigid block rocking on the ground (Housner's problem): a planar body q = (x, y, θ) of
//! width w, height H and mass m, M = diag(m, m, I) with I = m (w² + H²)/12, under gravity and
//! a horizontal ground-acceleration pulse a_g(t) (in the ground's frame, the inertial force
//! −m a_g(t) on the body). Its four corners c = (±w/2, ±H/2) in the body frame (the top ones
//! catch a toppled block) touch the ground y = 0, each through a contact of rows (normal,
//! tangent) under `NewtonImpactFrictionNSL(e_N, 0, μ, 2)`, a [`PlanarContactR`] with the line
//! y = 0:
//! ```text
//!     g_N = y + c_x sin θ + c_y cos θ,      G_N = [0, 1, c_x cos θ − c_y sin θ]
//!     (tangent: the corner's x)             G_T = [1, 0, −c_x sin θ − c_y cos θ]
//! ```
//! re-evaluated at each Newton iterate by every engine. The pulse is a harmonic F_ext that
//! ends (`Harmonic::end`), which the batched engines evaluate too. Rocking on one corner without
//! sliding, a corner impact with e_N = 0 multiplies the angular velocity by Housner's ratio
//! 1 − (3/2) sin² α_b, α_b = atan(w/H); a block tilted beyond α_b topples.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{Harmonic, LagrangianLinearTIDS, NewtonImpactFrictionNSL, Nsds, PlanarContactR};
use crate::reference::TimeStepping;
use crate::scenes::parameters::{Parameters, require, require_non_negative, require_positive};

/// A ground acceleration pulse a_g(t) = A sin(2π f t) for 0 ≤ t < `duration` (one sine when
/// `duration` = 1/f), 0 after it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundPulse {
    /// Amplitude A (m/s²).
    pub amplitude: f64,
    /// Frequency f (Hz).
    pub frequency: f64,
    /// Duration (s); 1/f is one sine.
    pub duration: f64,
}

/// Parameters of the rocking block.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RockingBlock {
    /// Width w (m). Default 0.2.
    pub width: f64,
    /// Height H (m). Default 0.6.
    pub height: f64,
    /// Mass m (kg). Default 1.
    pub mass: f64,
    /// Normal restitution e_N of the corners. Default 0.
    pub restitution: f64,
    /// Coulomb coefficient μ of the corners. Default 0.7.
    pub friction: f64,
    /// Gravity g (m/s²). Default 9.81.
    pub gravity: f64,
    /// Initial tilt θ₀ (rad; > 0 lifts the right corner, the block resting on the left one;
    /// in [0, π/2], where every corner starts on or above the ground). Default 0.
    pub tilt: f64,
    /// Initial angular velocity (rad/s, about the resting corner). Default 0.
    pub angular_velocity: f64,
    /// The ground's pulse, if any. Default none.
    pub pulse: Option<GroundPulse>,
    /// Time step h (s). Default 1e-4.
    pub step: f64,
}

impl Default for RockingBlock {
    fn default() -> Self {
        Self {
            width: 0.2,
            height: 0.6,
            mass: 1.0,
            restitution: 0.0,
            friction: 0.7,
            gravity: 9.81,
            tilt: 0.0,
            angular_velocity: 0.0,
            pulse: None,
            step: 1e-4,
        }
    }
}

impl RockingBlock {
    /// The block of the `rocking_block` template: `width`, `height`, `mass`, `restitution`,
    /// `friction`, `gravity`, `tilt`, `angular_velocity`, then the ground pulse `amplitude`
    /// (0: none), `frequency` (2 Hz) and `duration` (one sine, 1/frequency) from `p`, in this
    /// order; the other defaults as above. Refuses, naming the parameter, a width, height or
    /// mass that is not a positive normal number, a negative friction, a tilt outside
    /// [0, π/2] (a corner would start below the ground) and a frequency or duration ≤ 0.
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let d = Self::default();
        let block = Self {
            width: p.scalar("width", "m", d.width)?,
            height: p.scalar("height", "m", d.height)?,
            mass: p.scalar("mass", "kg", d.mass)?,
            restitution: p.scalar("restitution", "", d.restitution)?,
            friction: p.scalar("friction", "", d.friction)?,
            gravity: p.scalar("gravity", "m/s²", d.gravity)?,
            tilt: p.scalar("tilt", "rad", d.tilt)?,
            angular_velocity: p.scalar("angular_velocity", "rad/s", d.angular_velocity)?,
            ..d
        };
        let t = "rocking_block";
        let amplitude = p.scalar("amplitude", "m/s²", 0.0)?;
        let frequency = p.scalar("frequency", "Hz", 2.0)?;
        // The pulse is A sin(2π f t) for 0 ≤ t < duration: a frequency or a duration ≤ 0 would
        // make it vanish without a word (the default duration 1/f with it).
        require(
            t,
            "frequency",
            frequency,
            frequency.is_normal() && frequency > 0.0,
            "must be > 0 (Hz): the pulse is A sin(2π f t) for 0 ≤ t < duration",
        )?;
        let duration = p.scalar("duration", "s", 1.0 / frequency)?;
        require(
            t,
            "duration",
            duration,
            duration > 0.0,
            "must be > 0 (s): the pulse acts for 0 ≤ t < duration",
        )?;
        let pulse = (amplitude != 0.0).then_some(GroundPulse {
            amplitude,
            frequency,
            duration,
        });
        for (name, value) in [("width", block.width), ("height", block.height), ("mass", block.mass)] {
            require_positive(t, name, value)?;
        }
        require_non_negative(t, "friction", block.friction)?;
        let inertia = block.inertia();
        require(
            t,
            "mass",
            block.mass,
            inertia.is_normal(),
            "the block's moment of inertia m (w² + H²)/12 is not a positive normal number (it under- or overflows)",
        )?;
        // Resting on its bottom left corner, the block has its bottom right corner at height
        // w sin θ and its top left one at H cos θ (`initial_state`): both clear the ground
        // for 0 ≤ θ ≤ π/2 only.
        require(
            t,
            "tilt",
            block.tilt,
            (0.0..=std::f64::consts::FRAC_PI_2).contains(&block.tilt),
            "must be in [0, π/2] rad: the block rests on its bottom left corner, so a tilt < 0 starts its bottom right corner below the ground and one > π/2 its top left corner",
        )?;
        Ok(Self { pulse, ..block })
    }

    /// The moment of inertia about the centre, I = m (w² + H²)/12.
    pub fn inertia(&self) -> f64 {
        self.mass * (self.width * self.width + self.height * self.height) / 12.0
    }

    /// α_b = atan(w/H): a block tilted beyond it topples.
    pub fn slenderness(&self) -> f64 {
        (self.width / self.height).atan()
    }

    /// Housner's ratio 1 − (3/2) sin² α_b of the angular velocities after and before a corner
    /// impact with e_N = 0 and no sliding.
    pub fn housner_ratio(&self) -> f64 {
        1.0 - 1.5 * self.slenderness().sin().powi(2)
    }

    /// The corners (c_x, c_y) in the body frame: bottom left, bottom right, top left, top
    /// right.
    fn corners(&self) -> [[f64; 2]; 4] {
        let (a, b) = (0.5 * self.width, 0.5 * self.height);
        [[-a, -b], [a, -b], [-a, b], [a, b]]
    }

    /// The initial state: resting on the left corner at the origin, tilted by θ₀ (the right
    /// corner up for θ₀ > 0), rotating about that corner at the initial angular velocity.
    pub fn initial_state(&self) -> ([f64; 3], [f64; 3]) {
        let [c, ..] = self.corners();
        let (sin, cos) = self.tilt.sin_cos();
        // Corner = centre + R(θ) c = 0.
        let offset = [c[0] * cos - c[1] * sin, c[0] * sin + c[1] * cos];
        let w = self.angular_velocity;
        // The centre's velocity about the corner: ω ẑ × (centre − corner) = ω ẑ × (−offset).
        ([-offset[0], -offset[1], self.tilt], [w * offset[1], -w * offset[0], w])
    }

    /// The scene: system `block`; interactions `left corner`, `right corner`, `top left
    /// corner`, `top right corner`.
    pub fn nsds(&self) -> Result<Nsds> {
        let m = self.mass;
        let inertia = self.inertia();
        let (q0, v0) = self.initial_state();
        let block = LagrangianLinearTIDS::new(
            DVector::from_column_slice(&q0),
            DVector::from_column_slice(&v0),
            DMatrix::from_diagonal(&DVector::from_vec(vec![m, m, inertia])),
        )?;
        let weight = DVector::from_vec(vec![0.0, -m * self.gravity, 0.0]);
        let block = match self.pulse {
            // −m A sin(2π f t) = −m A cos(2π f t − π/2) on x, for t < duration.
            Some(pulse) => block.with_fext_harmonic(Harmonic {
                constant: weight,
                amplitude: DVector::from_vec(vec![-m * pulse.amplitude, 0.0, 0.0]),
                omega: 2.0 * std::f64::consts::PI * pulse.frequency,
                phase: -std::f64::consts::FRAC_PI_2,
                end: pulse.duration,
            })?,
            None => block.with_fext(weight)?,
        };
        let mut nsds = Nsds::new();
        let block = nsds.add("block", block);
        let law = NewtonImpactFrictionNSL::new(self.restitution, 0.0, self.friction, 2)?;
        let names = ["left corner", "right corner", "top left corner", "top right corner"];
        for (name, corner) in names.into_iter().zip(self.corners()) {
            let ground = PlanarContactR::new(3, corner, 0.0, [0.0, 1.0], 0.0)?;
            nsds.link(name, law, ground, &[block])?;
        }
        nsds.name_coordinates(["x", "y", "theta"])?;
        Ok(nsds)
    }

    /// The simulation from t = 0 (Moreau–Jean, θ = ½).
    pub fn simulation(&self) -> Result<TimeStepping> {
        super::moreau_jean(self.nsds()?, self.step)
    }
}
