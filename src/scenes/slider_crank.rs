//! A slider–crank mechanism with a stop: two point masses held by three equality constraints,
//! and a unilateral contact with Newton restitution.
//!
//! The crank pin A (mass m_A, q_A = (x_A, y_A)) turns about the origin on a crank of length r;
//! the connecting rod of length l joins it to the slider B (mass m_B, q_B = (x_B, y_B)), which
//! runs along the x axis and hits a stop at x = x_s:
//! ```text
//!     crank:  x_A² + y_A² − r² = 0                     (quadratic coordinate-vector constraint)
//!     rod:    (x_B − x_A)² + (y_B − y_A)² − l² = 0     (user function and Jacobian)
//!     guide:  y_B = 0                                  (linear coordinate-vector constraint)
//!     stop:   x_s − x_B ≥ 0,  Newton impact law with restitution e
//! ```
//! No gravity: the mechanism lies in a horizontal plane, so its kinetic energy is constant
//! between impacts and, the mechanism having one degree of freedom, is multiplied by e² at each.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{
    CoordinateVectorConstraint, EqualityConditionNSL, LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds,
};
use crate::reference::{Integrator, Stabilization, TimeStepping};
use crate::scenes::parameters::{Parameters, require, require_positive};
use crate::scheme::moreau_jean::MoreauJeanOSI;

/// Parameters of the slider–crank (defaults: r = 0.1 m, l = 0.3 m, m_A = m_B = 1 kg, crank at
/// φ₀ = π/2 turning at ω₀ = 10 rad/s towards the stop at x_s = 0.38 m, e = 0.8, h = 10⁻⁴ s,
/// projection onto the constraints after each step).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SliderCrank {
    /// Crank length r (m).
    pub crank: f64,
    /// Connecting-rod length l (m).
    pub rod: f64,
    /// Mass of the crank pin m_A (kg).
    pub pin_mass: f64,
    /// Mass of the slider m_B (kg).
    pub slider_mass: f64,
    /// Initial crank angle φ₀ (rad, from the x axis).
    pub angle: f64,
    /// Initial crank angular velocity ω₀ (rad/s; negative turns the slider towards +x at φ₀ = π/2).
    pub angular_velocity: f64,
    /// Position of the stop x_s (m); must be below r + l to be reached.
    pub stop: f64,
    /// Restitution e of the stop.
    pub restitution: f64,
    /// Time step h (s).
    pub step: f64,
    /// The integrator.
    pub osi: MoreauJeanOSI,
    /// What keeps the constraints satisfied at position level.
    pub stabilization: Stabilization,
}

impl Default for SliderCrank {
    fn default() -> Self {
        Self {
            crank: 0.1,
            rod: 0.3,
            pin_mass: 1.0,
            slider_mass: 1.0,
            angle: std::f64::consts::FRAC_PI_2,
            angular_velocity: -10.0,
            stop: 0.38,
            restitution: 0.8,
            step: 1e-4,
            osi: MoreauJeanOSI::default(),
            stabilization: Stabilization::projection(),
        }
    }
}

impl SliderCrank {
    /// The mechanism of the `slider_crank` template: `crank`, `rod`, `pin_mass`,
    /// `slider_mass`, `angle`, `angular_velocity`, `stop`, `restitution` from `p` (in this
    /// order), defaults as above.
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let d = Self::default();
        let mechanism = Self {
            crank: p.scalar("crank", "m", d.crank)?,
            rod: p.scalar("rod", "m", d.rod)?,
            pin_mass: p.scalar("pin_mass", "kg", d.pin_mass)?,
            slider_mass: p.scalar("slider_mass", "kg", d.slider_mass)?,
            angle: p.scalar("angle", "rad", d.angle)?,
            angular_velocity: p.scalar("angular_velocity", "rad/s", d.angular_velocity)?,
            stop: p.scalar("stop", "m", d.stop)?,
            restitution: p.scalar("restitution", "", d.restitution)?,
            ..d
        };
        let t = "slider_crank";
        for (name, value) in [
            ("crank", mechanism.crank),
            ("rod", mechanism.rod),
            ("pin_mass", mechanism.pin_mass),
            ("slider_mass", mechanism.slider_mass),
        ] {
            require_positive(t, name, value)?;
        }
        // x_B = r cos φ + √(l² − r² sin² φ): real for every φ, and the rod never across the
        // guide (a singular position), only for l > r.
        require(
            t,
            "rod",
            mechanism.rod,
            mechanism.rod > mechanism.crank,
            "must be longer than the crank: a rod ≤ crank cannot follow the crank's turn (the slider's position √(l² − r² sin² φ) is not real)",
        )?;
        // The stop's gap x_s − x_B ≥ 0 at the start.
        let start = mechanism.configuration(mechanism.angle, mechanism.angular_velocity)[2][0];
        require(
            t,
            "stop",
            mechanism.stop,
            mechanism.stop >= start,
            &format!("the slider would start beyond the stop (its initial x is {start})"),
        )?;
        Ok(mechanism)
    }

    /// (q_A, v_A, q_B, v_B) on the constraints for the crank angle φ and rate ω.
    pub fn configuration(&self, phi: f64, omega: f64) -> [DVector<f64>; 4] {
        let (r, l) = (self.crank, self.rod);
        let (sin, cos) = phi.sin_cos();
        let root = (l * l - r * r * sin * sin).sqrt();
        let xb = r * cos + root;
        let vxb = -r * omega * sin - r * r * sin * cos * omega / root;
        [
            DVector::from_vec(vec![r * cos, r * sin]),
            DVector::from_vec(vec![-r * omega * sin, r * omega * cos]),
            DVector::from_vec(vec![xb, 0.0]),
            DVector::from_vec(vec![vxb, 0.0]),
        ]
    }

    /// The scene: systems `pin` and `slider`; interactions `crank`, `rod`, `guide`, `stop`.
    pub fn nsds(&self) -> Result<Nsds> {
        let [qa, va, qb, vb] = self.configuration(self.angle, self.angular_velocity);
        let mut nsds = Nsds::new();
        let pin = nsds.add(
            "pin",
            LagrangianLinearTIDS::new(qa, va, DMatrix::identity(2, 2) * self.pin_mass)?,
        );
        let slider = nsds.add(
            "slider",
            LagrangianLinearTIDS::new(qb, vb, DMatrix::identity(2, 2) * self.slider_mass)?,
        );
        let crank = CoordinateVectorConstraint::builder("crank", [0, 2])
            .quadratic(1, DMatrix::from_row_slice(1, 2, &[1.0, 1.0]))
            .offset(DVector::from_element(1, self.crank * self.crank))
            .build()?;
        nsds.link("crank", EqualityConditionNSL::new(1)?, crank, &[pin])?;
        let l2 = self.rod * self.rod;
        let rod = CoordinateVectorConstraint::builder("rod", [2, 2])
            .constraint_function(1, move |_, q| {
                let (dx, dy) = (q[2] - q[0], q[3] - q[1]);
                DVector::from_element(1, dx * dx + dy * dy - l2)
            })
            .jacobian_function(|_, q| {
                let (dx, dy) = (q[2] - q[0], q[3] - q[1]);
                DMatrix::from_row_slice(1, 4, &[-2.0 * dx, -2.0 * dy, 2.0 * dx, 2.0 * dy])
            })
            .build()?;
        nsds.link("rod", EqualityConditionNSL::new(1)?, rod, &[pin, slider])?;
        let guide = CoordinateVectorConstraint::builder("guide", [0, 2])
            .scaling(1, DMatrix::from_row_slice(1, 2, &[0.0, 1.0]))
            .build()?;
        nsds.link("guide", EqualityConditionNSL::new(1)?, guide, &[slider])?;
        let stop = LagrangianLinearTIR::with_offset(
            DMatrix::from_row_slice(1, 2, &[-1.0, 0.0]),
            DVector::from_element(1, self.stop),
        )?;
        nsds.link("stop", NewtonImpactNSL::new(self.restitution)?, stop, &[slider])?;
        nsds.name_coordinates(["x_A", "y_A", "x_B", "y_B"])?;
        Ok(nsds)
    }

    /// The simulation from t = 0.
    pub fn simulation(&self) -> Result<TimeStepping> {
        let mut simulation = TimeStepping::new(self.nsds()?, Integrator::MoreauJean(self.osi), 0.0, self.step)?;
        simulation.stabilization = self.stabilization;
        Ok(simulation)
    }
}
