//! Siconos's ImpactingBar: a free elastic bar, discretised by linear finite elements, moving
//! at −0.1 m/s onto a rigid wall at its first node.
//!
//! A `LagrangianLinearTIDS` of n nodal displacements with the consistent mass ρSl·[⅓ ⅙; ⅙ ⅓]
//! and stiffness ES/l·[1 −1; −1 1] assembled per element (so the end rows are ⅓, ⅙ and
//! 1, −1), a contact y = q₀ and `NewtonImpactNSL(0)`.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds};
use crate::reference::{Integrator, TimeStepping};
use crate::scenes::parameters::{Parameters, require, require_memory, require_positive};
use crate::scheme::moreau_jean::{Activation, MoreauJeanOSI};

/// Parameters of the bar (defaults: Siconos's `UserDefinedParameter-ref.hpp`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpactingBar {
    /// Number of nodes. Default 100.
    pub nodes: usize,
    /// Young's modulus E (Pa). Default 210e9.
    pub young: f64,
    /// Cross-section S (m²). Default 3.14e-4.
    pub section: f64,
    /// Length L (m). Default 1.
    pub length: f64,
    /// Density ρ (kg/m³). Default 7800.
    pub density: f64,
    /// Initial displacement of every node (m). Default 5e-5.
    pub position: f64,
    /// Initial velocity of every node (m/s). Default −0.1.
    pub velocity: f64,
    /// Restitution at the wall. Default 0.
    pub restitution: f64,
    /// Time step h (s). Default 2e-6.
    pub step: f64,
    /// Initial time (s). Default 1e-8.
    pub t0: f64,
    /// The integrator: θ = ½, γ = 0 (the contact is active once y_k ≤ 0).
    pub osi: MoreauJeanOSI,
}

impl Default for ImpactingBar {
    fn default() -> Self {
        Self {
            nodes: 100,
            young: 210e9,
            section: 3.14e-4,
            length: 1.0,
            density: 7800.0,
            position: 5e-5,
            velocity: -0.1,
            restitution: 0.0,
            step: 2e-6,
            t0: 1e-8,
            osi: MoreauJeanOSI {
                theta: 0.5,
                gamma: 0.0,
                activation: Activation::Current,
            },
        }
    }
}

impl ImpactingBar {
    /// The bar of the `impacting_bar` template: `nodes` (default 20, a lighter bar than
    /// Siconos's 100 for ensembles), `young`, `section`, `length`, `density`, `position`,
    /// `velocity`, `restitution` from `p` (in this order), the other defaults as above.
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let d = Self::default();
        let bar = Self {
            nodes: p
                .count("nodes", 20)
                .and_then(|n| require_memory("impacting_bar", ("nodes", n), n, 1).map(|()| n))?,
            young: p.scalar("young", "Pa", d.young)?,
            section: p.scalar("section", "m²", d.section)?,
            length: p.scalar("length", "m", d.length)?,
            density: p.scalar("density", "kg/m³", d.density)?,
            position: p.scalar("position", "m", d.position)?,
            velocity: p.scalar("velocity", "m/s", d.velocity)?,
            restitution: p.scalar("restitution", "", d.restitution)?,
            ..d
        };
        let t = "impacting_bar";
        for (name, value) in [
            ("young", bar.young),
            ("section", bar.section),
            ("length", bar.length),
            ("density", bar.density),
        ] {
            require_positive(t, name, value)?;
        }
        // Each element's mass ρ S l and stiffness E S / l (l = L / nodes) must be normal too.
        let l = bar.length / bar.nodes as f64;
        let (element_mass, element_stiffness) = (bar.density * bar.section * l, bar.young * bar.section / l);
        require(
            t,
            "density",
            bar.density,
            element_mass.is_normal(),
            "an element's mass density × section × length/nodes is not a positive normal number (it under- or overflows)",
        )?;
        require(
            t,
            "young",
            bar.young,
            element_stiffness.is_normal(),
            "an element's stiffness young × section / (length/nodes) is not a positive normal number (it under- or overflows)",
        )?;
        // The wall's gap is the first node's displacement.
        require(
            t,
            "position",
            bar.position,
            bar.position >= 0.0,
            "the bar would start inside the wall (position < 0)",
        )?;
        Ok(bar)
    }

    /// Consistent mass and stiffness matrices (M, K).
    pub fn matrices(&self) -> (DMatrix<f64>, DMatrix<f64>) {
        let n = self.nodes;
        let l = self.length / n as f64;
        let end = |i: usize| i == 0 || i + 1 == n;
        let mass = DMatrix::from_fn(n, n, |i, j| match i.abs_diff(j) {
            0 if end(i) => 1.0 / 3.0,
            0 => 2.0 / 3.0,
            1 => 1.0 / 6.0,
            _ => 0.0,
        });
        let stiffness = DMatrix::from_fn(n, n, |i, j| match i.abs_diff(j) {
            0 if end(i) => 1.0,
            0 => 2.0,
            1 => -1.0,
            _ => 0.0,
        });
        (
            mass * (self.density * self.section * l),
            stiffness * (self.young * self.section / l),
        )
    }

    /// The scene: the bar and its wall contact.
    pub fn nsds(&self) -> Result<Nsds> {
        let n = self.nodes;
        let (mass, stiffness) = self.matrices();
        let q0 = DVector::from_element(n, self.position);
        let v0 = DVector::from_element(n, self.velocity);
        let bar = LagrangianLinearTIDS::new(q0, v0, mass)?.with_stiffness(stiffness)?;
        let mut nsds = Nsds::new();
        let bar = nsds.add("bar", bar);
        let mut h = DMatrix::zeros(1, n);
        h[(0, 0)] = 1.0;
        nsds.link(
            "wall",
            NewtonImpactNSL::new(self.restitution)?,
            LagrangianLinearTIR::new(h)?,
            &[bar],
        )?;
        nsds.name_coordinates(super::body_coordinates(&["u"], self.nodes))?;
        Ok(nsds)
    }

    /// The simulation from t0.
    pub fn simulation(&self) -> Result<TimeStepping> {
        TimeStepping::new(self.nsds()?, Integrator::MoreauJean(self.osi), self.t0, self.step)
    }
}
