//! The Chaplygin sleigh: a rigid body in the plane on a knife edge that cannot slide sideways,
//! the classic non-holonomic (Pfaffian) constraint.
//!
//! q = (x, y, φ): the centre of mass C and the heading; M = diag(m, m, I) with I about C. The
//! blade sits at P = C − a e₁ (e₁ = (cos φ, sin φ), e₂ = (−sin φ, cos φ)) and P may not move
//! along e₂:
//! ```text
//!     a(q) v = −sin φ ẋ + cos φ ẏ − a φ̇ = 0        (PfaffianR + EqualityConditionNSL)
//! ```
//! With u = v_C·e₁ the forward speed and ω = φ̇, the exact motion is
//! ```text
//!     u̇ = a ω²,   ω̇ = −m a u ω / J,   J = I + m a²
//!     u(t) = u_∞ tanh(s(t)),   ω(t) = ω₀ cosh(s₀) / cosh(s(t)),
//!     s(t) = s₀ + m a u_∞ t / J,   s₀ = artanh(u₀/u_∞),   u_∞² = u₀² + J ω₀² / m
//!     φ(t) = φ₀ + ω₀ cosh(s₀) J / (m a u_∞) · (gd(s(t)) − gd(s₀)),   gd(s) = atan(sinh s)
//! ```
//! ([`ChaplyginSleigh::exact`]): the sleigh ends up moving straight ahead at u_∞.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{EqualityConditionNSL, LagrangianLinearTIDS, Nsds, PfaffianR};
use crate::reference::{Integrator, TimeStepping};
use crate::scenes::parameters::{Parameters, require_positive};
use crate::scheme::moreau_jean::MoreauJeanOSI;

/// Parameters of the sleigh (defaults: m = 1 kg, I = 0.1 kg m², a = 0.5 m, u₀ = 0, ω₀ = 2 rad/s,
/// φ₀ = 0, h = 10⁻³ s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChaplyginSleigh {
    /// Mass m (kg).
    pub mass: f64,
    /// Moment of inertia I about the centre of mass (kg m²).
    pub inertia: f64,
    /// Distance a from the blade to the centre of mass (m), > 0.
    pub arm: f64,
    /// Initial forward speed u₀ (m/s).
    pub speed: f64,
    /// Initial angular velocity ω₀ (rad/s).
    pub angular_velocity: f64,
    /// Initial heading φ₀ (rad).
    pub heading: f64,
    /// Time step h (s).
    pub step: f64,
    /// The integrator.
    pub osi: MoreauJeanOSI,
}

impl Default for ChaplyginSleigh {
    fn default() -> Self {
        Self {
            mass: 1.0,
            inertia: 0.1,
            arm: 0.5,
            speed: 0.0,
            angular_velocity: 2.0,
            heading: 0.0,
            step: 1e-3,
            osi: MoreauJeanOSI::default(),
        }
    }
}

impl ChaplyginSleigh {
    /// The sleigh of the `chaplygin_sleigh` template: `mass`, `inertia`, `arm`, `speed`,
    /// `angular_velocity`, `heading` from `p` (in this order), defaults as above.
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let d = Self::default();
        let sleigh = Self {
            mass: p.scalar("mass", "kg", d.mass)?,
            inertia: p.scalar("inertia", "kg·m²", d.inertia)?,
            arm: p.scalar("arm", "m", d.arm)?,
            speed: p.scalar("speed", "m/s", d.speed)?,
            angular_velocity: p.scalar("angular_velocity", "rad/s", d.angular_velocity)?,
            heading: p.scalar("heading", "rad", d.heading)?,
            ..d
        };
        for (name, value) in [("mass", sleigh.mass), ("inertia", sleigh.inertia), ("arm", sleigh.arm)] {
            require_positive("chaplygin_sleigh", name, value)?;
        }
        Ok(sleigh)
    }

    /// The scene: system `sleigh`, interaction `blade`.
    pub fn nsds(&self) -> Result<Nsds> {
        let (sin, cos) = self.heading.sin_cos();
        let (u, w, a) = (self.speed, self.angular_velocity, self.arm);
        let q0 = DVector::from_vec(vec![0.0, 0.0, self.heading]);
        // v_C = u e₁ + a ω e₂ keeps the blade from sliding.
        let v0 = DVector::from_vec(vec![u * cos - a * w * sin, u * sin + a * w * cos, w]);
        let mass = DMatrix::from_diagonal(&DVector::from_vec(vec![self.mass, self.mass, self.inertia]));
        let mut nsds = Nsds::new();
        let sleigh = nsds.add("sleigh", LagrangianLinearTIDS::new(q0, v0, mass)?);
        let blade = PfaffianR::new(move |q| {
            let (sin, cos) = q[2].sin_cos();
            DMatrix::from_row_slice(1, 3, &[-sin, cos, -a])
        });
        nsds.link("blade", EqualityConditionNSL::new(1)?, blade, &[sleigh])?;
        nsds.name_coordinates(["x", "y", "phi"])?;
        Ok(nsds)
    }

    /// The simulation from t = 0.
    pub fn simulation(&self) -> Result<TimeStepping> {
        TimeStepping::new(self.nsds()?, Integrator::MoreauJean(self.osi), 0.0, self.step)
    }

    /// The exact (u, ω, φ) at time t (module docs).
    pub fn exact(&self, t: f64) -> (f64, f64, f64) {
        let (m, a) = (self.mass, self.arm);
        let j = self.inertia + m * a * a;
        let (u0, w0) = (self.speed, self.angular_velocity);
        let u_inf = (u0 * u0 + j * w0 * w0 / m).sqrt();
        let s0 = (u0 / u_inf).atanh();
        let s = s0 + m * a * u_inf * t / j;
        let gd = |s: f64| s.sinh().atan();
        let phi = self.heading + w0 * s0.cosh() * j / (m * a * u_inf) * (gd(s) - gd(s0));
        (u_inf * s.tanh(), w0 * s0.cosh() / s.cosh(), phi)
    }

    /// The forward speed u = v_C·e₁ and ω = φ̇ of a state (q, v).
    pub fn speeds(q: &DVector<f64>, v: &DVector<f64>) -> (f64, f64) {
        let (sin, cos) = q[2].sin_cos();
        (v[0] * cos + v[1] * sin, v[2])
    }
}
