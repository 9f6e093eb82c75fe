//! A capacitor discharging into a DC source through an ideal diode and a cubic resistor: a
//! nonlinear device with a closed-form solution.
//! ```text
//!     C ẋ = −λ                      (x the capacitor voltage, λ the current)
//!     y = β λ³ + E − x              (the diode's reverse voltage; the resistor: v = β i³)
//!     0 ≤ λ ⟂ y ≥ 0
//! ```
//! a FirstOrderNonLinearDS (f = 0, M = C) under a FirstOrderType2R with C_h = −1,
//! D = 3βλ², B = −1. With s = x − E and c = 1/(C β^{1/3}), while the diode conducts
//! s(t) = (s₀^{2/3} − 2ct/3)^{3/2} and λ = (s/β)^{1/3}; it blocks at t* = 3 s₀^{2/3}/(2c),
//! after which x = E and λ = 0. f = 0 makes Euler–Moreau backward Euler on r: per step λ is the
//! real root of β λ³ + h λ/C = s_k.

use nalgebra::{DMatrix, DVector};

use super::parameters::{Parameters, require_positive};
use crate::error::Result;
use crate::model::{ComplementarityConditionNSL, FirstOrderNonLinearDS, FirstOrderType2R, Jacobian, Nsds};
use crate::reference::TimeStepping;
use crate::validate;

/// Parameters of the circuit (defaults: C = β = E = 1, x₀ = 2, h = 0.01).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicResistor {
    /// Capacitance C (F). Default 1.
    pub capacitance: f64,
    /// The resistor's coefficient β (V/A³). Default 1.
    pub beta: f64,
    /// The source E (V). Default 1.
    pub source: f64,
    /// The capacitor's initial voltage x₀ (V). Default 2.
    pub voltage: f64,
    /// Time step h (s). Default 0.01.
    pub step: f64,
}

impl Default for CubicResistor {
    fn default() -> Self {
        Self {
            capacitance: 1.0,
            beta: 1.0,
            source: 1.0,
            voltage: 2.0,
            step: 0.01,
        }
    }
}

impl CubicResistor {
    /// The circuit of a scenario's `template = "cubic_resistor"` (the step is the
    /// scenario's).
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let d = Self::default();
        let circuit = Self {
            capacitance: p.scalar("capacitance", "F", d.capacitance)?,
            beta: p.scalar("beta", "V/A³", d.beta)?,
            source: p.scalar("source", "V", d.source)?,
            voltage: p.scalar("voltage", "V", d.voltage)?,
            ..d
        };
        require_positive("cubic_resistor", "capacitance", circuit.capacitance)?;
        require_positive("cubic_resistor", "beta", circuit.beta)?;
        Ok(circuit)
    }

    /// The exact (x, λ) at time t.
    pub fn exact(&self, t: f64) -> (f64, f64) {
        let s0 = (self.voltage - self.source).max(0.0);
        let c = 1.0 / (self.capacitance * self.beta.cbrt());
        let base = (s0.powf(2.0 / 3.0) - 2.0 * c * t / 3.0).max(0.0);
        let s = base.powf(1.5);
        (self.source + s, (s / self.beta).cbrt())
    }

    /// The time t* = 3 s₀^{2/3}/(2c) at which the diode blocks.
    pub fn blocking_time(&self) -> f64 {
        let s0 = (self.voltage - self.source).max(0.0);
        1.5 * s0.powf(2.0 / 3.0) * self.capacitance * self.beta.cbrt()
    }

    /// The scene: the `capacitor` and the diode with its resistor.
    pub fn nsds(&self) -> Result<Nsds> {
        for (what, value) in [("capacitance", self.capacitance), ("beta", self.beta)] {
            validate::positive(&format!("CubicResistor: {what}"), value)?;
        }
        let (beta, source) = (self.beta, self.source);
        let relation = FirstOrderType2R::new(
            move |x, l| DVector::from_element(1, beta * l[0].powi(3) + source - x[0]),
            |l| -l,
        )
        .with_c(DMatrix::from_element(1, 1, -1.0))
        .with_d(Jacobian::function(move |_, _, l, _| {
            DMatrix::from_element(1, 1, 3.0 * beta * l[0] * l[0])
        }))
        .with_b(DMatrix::from_element(1, 1, -1.0));
        let capacitor =
            FirstOrderNonLinearDS::new(DVector::from_element(1, self.voltage), |_, _, _| DVector::zeros(1))?
                .with_mass(DMatrix::from_element(1, 1, self.capacitance))?;
        let mut nsds = Nsds::new();
        let id = nsds.add("capacitor", capacitor);
        nsds.name_coordinates(["v_C"])?;
        nsds.link(
            "diode and resistor",
            ComplementarityConditionNSL::new(1)?,
            relation,
            &[id],
        )?;
        Ok(nsds)
    }

    /// The simulation from t = 0 (θ = ½, Newton tolerance 1e-12: D = 3βλ² → 0 as the diode
    /// blocks slows the loop, up to 18 iterations).
    pub fn simulation(&self) -> Result<TimeStepping> {
        let mut sim = super::euler_moreau(self.nsds()?, 0.5, self.step)?;
        sim.newton.tolerance = 1e-12;
        Ok(sim)
    }
}
