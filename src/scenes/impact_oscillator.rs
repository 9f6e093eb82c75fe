//! The impact oscillator: a mass–spring–damper under harmonic forcing that hits a rigid stop
//! (Shaw & Holmes' model of impacting machinery).
//!
//! One dof x, M = m, K = k, C = c, F_ext(t) = A cos(ω t + φ), and the stop at x = g:
//! ```text
//!     m ẍ + c ẋ + k x = A cos(ω t + φ) + λ,    y = g − x ≥ 0,  Newton impact e
//! ```
//! Without the stop (g out of reach), from rest at x = 0 with c = 0, φ = 0 and ω ≠ ω_n = √(k/m),
//! the exact motion is x(t) = A / (k − m ω²) (cos ω t − cos ω_n t) ([`ImpactOscillator::free_response`]).

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{Harmonic, LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds};
use crate::reference::TimeStepping;
use crate::scenes::parameters::{Parameters, require, require_non_negative, require_positive};

/// Parameters of the impact oscillator (defaults: m = 1, k = 1, c = 0, A = 1, ω = 0.8, φ = 0,
/// gap g = 1, e = 0.8, at rest at x = 0, h = 10⁻³).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpactOscillator {
    /// Mass m.
    pub mass: f64,
    /// Stiffness k.
    pub stiffness: f64,
    /// Damping c.
    pub damping: f64,
    /// Forcing amplitude A.
    pub amplitude: f64,
    /// Forcing angular frequency ω.
    pub frequency: f64,
    /// Forcing phase φ.
    pub phase: f64,
    /// Position g of the stop.
    pub gap: f64,
    /// Restitution e.
    pub restitution: f64,
    /// Initial position x₀.
    pub position: f64,
    /// Initial velocity ẋ₀.
    pub velocity: f64,
    /// Time step h.
    pub step: f64,
}

impl Default for ImpactOscillator {
    fn default() -> Self {
        Self {
            mass: 1.0,
            stiffness: 1.0,
            damping: 0.0,
            amplitude: 1.0,
            frequency: 0.8,
            phase: 0.0,
            gap: 1.0,
            restitution: 0.8,
            position: 0.0,
            velocity: 0.0,
            step: 1e-3,
        }
    }
}

impl ImpactOscillator {
    /// The oscillator of the `impact_oscillator` template: `mass`, `stiffness`, `damping`,
    /// `amplitude`, `frequency`, `phase`, `gap`, `restitution`, `position`, `velocity` from `p`
    /// (in this order), defaults as above.
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let d = Self::default();
        let oscillator = Self {
            mass: p.scalar("mass", "kg", d.mass)?,
            stiffness: p.scalar("stiffness", "N/m", d.stiffness)?,
            damping: p.scalar("damping", "N·s/m", d.damping)?,
            amplitude: p.scalar("amplitude", "N", d.amplitude)?,
            frequency: p.scalar("frequency", "rad/s", d.frequency)?,
            phase: p.scalar("phase", "rad", d.phase)?,
            gap: p.scalar("gap", "m", d.gap)?,
            restitution: p.scalar("restitution", "", d.restitution)?,
            position: p.scalar("position", "m", d.position)?,
            velocity: p.scalar("velocity", "m/s", d.velocity)?,
            ..d
        };
        let t = "impact_oscillator";
        require_positive(t, "mass", oscillator.mass)?;
        require_non_negative(t, "stiffness", oscillator.stiffness)?;
        require_non_negative(t, "damping", oscillator.damping)?;
        // y = g − x ≥ 0.
        require(
            t,
            "position",
            oscillator.position,
            oscillator.position <= oscillator.gap,
            "the mass would start beyond the stop (position > gap)",
        )?;
        Ok(oscillator)
    }

    /// The scene: system `mass`, interaction `stop`.
    pub fn nsds(&self) -> Result<Nsds> {
        let one = |x: f64| DMatrix::from_element(1, 1, x);
        let mass = LagrangianLinearTIDS::new(
            DVector::from_element(1, self.position),
            DVector::from_element(1, self.velocity),
            one(self.mass),
        )?
        .with_stiffness(one(self.stiffness))?
        .with_damping(one(self.damping))?
        .with_fext_harmonic(Harmonic {
            constant: DVector::zeros(1),
            amplitude: DVector::from_element(1, self.amplitude),
            omega: self.frequency,
            phase: self.phase,
            end: f64::INFINITY,
        })?;
        let mut nsds = Nsds::new();
        let mass = nsds.add("mass", mass);
        let stop = LagrangianLinearTIR::with_offset(one(-1.0), DVector::from_element(1, self.gap))?;
        nsds.link("stop", NewtonImpactNSL::new(self.restitution)?, stop, &[mass])?;
        nsds.name_coordinates(["x"])?;
        Ok(nsds)
    }

    /// The simulation from t = 0.
    pub fn simulation(&self) -> Result<TimeStepping> {
        super::moreau_jean(self.nsds()?, self.step)
    }

    /// x(t) of the undamped oscillator without the stop, from rest at 0 (module docs).
    pub fn free_response(&self, t: f64) -> f64 {
        let wn = (self.stiffness / self.mass).sqrt();
        let w = self.frequency;
        self.amplitude / (self.stiffness - self.mass * w * w) * ((w * t).cos() - (wn * t).cos())
    }
}
