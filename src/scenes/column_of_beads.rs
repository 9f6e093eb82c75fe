//! Siconos's ColumnOfBeadsTS: n beads stacked above a floor, falling and colliding.
//!
//! Each bead is a `LagrangianLinearTIDS` with q = (z, x, θ), M = diag(m, m, ⅗ m R²) and
//! F_ext = (−m g, 0, 0). The floor contact is y = z₀ − R, a bead–bead contact
//! y = z_{i+1} − z_i − 2R, all with `NewtonImpactNSL(e)`. As in Siconos, a contact is linked
//! once its gap falls below the alert distance, and never removed.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{DsId, LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds};
use crate::reference::{Integrator, TimeStepping, Trajectory};
use crate::scenes::parameters::{Parameters, require, require_memory, require_positive};
use crate::scheme::moreau_jean::MoreauJeanOSI;

/// Parameters of the column (defaults: Siconos's ColumnOfBeadsTS).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColumnOfBeads {
    /// Number of beads. Default 10.
    pub beads: usize,
    /// Radius R (m). Default 0.1.
    pub radius: f64,
    /// Mass m (kg). Default 1.
    pub mass: f64,
    /// Gravity g (m/s²). Default 9.81.
    pub gravity: f64,
    /// Height of bead 0 (m). Default 1.
    pub height: f64,
    /// Spacing between initial heights (m). Default 0.25.
    pub spacing: f64,
    /// Restitution e. Default 0.9.
    pub restitution: f64,
    /// Contacts are linked when their gap is below this (m). Default 0.02.
    pub alert: f64,
    /// Time step h (s). Default 5e-4.
    pub step: f64,
}

impl Default for ColumnOfBeads {
    fn default() -> Self {
        Self {
            beads: 10,
            radius: 0.1,
            mass: 1.0,
            gravity: 9.81,
            height: 1.0,
            spacing: 0.25,
            restitution: 0.9,
            alert: 0.02,
            step: 5e-4,
        }
    }
}

/// A running column: the simulation plus which contacts are linked yet.
pub struct ColumnSimulation {
    /// The time stepper.
    pub stepper: TimeStepping,
    beads: Vec<DsId>,
    /// `linked[0]` is the floor contact, `linked[i]` the contact between beads i−1 and i.
    linked: Vec<bool>,
    params: ColumnOfBeads,
}

impl ColumnOfBeads {
    /// The column of the `column_of_beads` template: `beads` (default 4), `radius`, `mass`,
    /// `gravity`, `height`, `spacing`, `restitution` from `p` (in this order), the other
    /// defaults as above.
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let d = Self::default();
        let column = Self {
            beads: p.count("beads", 4).and_then(|n| {
                // n beads: n dof, n contacts (the floor, then each pair).
                require_memory("column_of_beads", ("beads", n), n, n).map(|()| n)
            })?,
            radius: p.scalar("radius", "m", d.radius)?,
            mass: p.scalar("mass", "kg", d.mass)?,
            gravity: p.scalar("gravity", "m/s²", d.gravity)?,
            height: p.scalar("height", "m", d.height)?,
            spacing: p.scalar("spacing", "m", d.spacing)?,
            restitution: p.scalar("restitution", "", d.restitution)?,
            ..d
        };
        let (t, r) = ("column_of_beads", column.radius);
        require_positive(t, "radius", r)?;
        require_positive(t, "mass", column.mass)?;
        require(
            t,
            "height",
            column.height,
            column.height >= r,
            "bead 0 would start inside the floor (height < radius)",
        )?;
        require(
            t,
            "spacing",
            column.spacing,
            column.spacing >= 2.0 * r,
            "the beads would overlap (spacing < 2 radius)",
        )?;
        Ok(column)
    }

    /// The column on a line, as the batched engines run it: bead i is one dof z_i
    /// (M = m, F_ext = −m g, z_i(0) = height + i·spacing, at rest), and every contact is
    /// linked from the start (`floor`: y = z₀ − R; `beads i-1-i`: y = z_i − z_{i−1} − 2R; all
    /// `NewtonImpactNSL(e)`), so no alert distance is needed.
    pub fn line_nsds(&self) -> Result<Nsds> {
        let (n, r, m, g) = (self.beads, self.radius, self.mass, self.gravity);
        let one = |x: f64| DVector::from_element(1, x);
        let mut nsds = Nsds::new();
        let mut beads = Vec::with_capacity(n);
        for i in 0..n {
            let z = self.height + self.spacing * i as f64;
            let bead =
                LagrangianLinearTIDS::new(one(z), one(0.0), DMatrix::from_element(1, 1, m))?.with_fext(one(-m * g))?;
            beads.push(nsds.add(&format!("bead {i}"), bead));
        }
        let law = NewtonImpactNSL::new(self.restitution)?;
        let floor = LagrangianLinearTIR::with_offset(DMatrix::from_element(1, 1, 1.0), one(-r))?;
        nsds.link("floor", law, floor, &[beads[0]])?;
        for i in 1..n {
            let pair = LagrangianLinearTIR::with_offset(DMatrix::from_row_slice(1, 2, &[-1.0, 1.0]), one(-2.0 * r))?;
            nsds.link(&format!("beads {}-{i}", i - 1), law, pair, &[beads[i - 1], beads[i]])?;
        }
        nsds.name_coordinates(super::body_coordinates(&["z"], self.beads))?;
        Ok(nsds)
    }

    /// The scene with its beads and no contact linked yet.
    pub fn simulation(&self) -> Result<ColumnSimulation> {
        let (m, r) = (self.mass, self.radius);
        let mass = DMatrix::from_diagonal(&DVector::from_vec(vec![m, m, 0.6 * m * r * r]));
        let fext = DVector::from_vec(vec![-m * self.gravity, 0.0, 0.0]);
        let mut nsds = Nsds::new();
        let mut beads = Vec::with_capacity(self.beads);
        for i in 0..self.beads {
            let q0 = DVector::from_vec(vec![self.height + self.spacing * i as f64, 0.0, 0.0]);
            let bead = LagrangianLinearTIDS::new(q0, DVector::zeros(3), mass.clone())?.with_fext(fext.clone())?;
            beads.push(nsds.add(&format!("bead {i}"), bead));
        }
        let stepper = TimeStepping::new(nsds, Integrator::MoreauJean(MoreauJeanOSI::default()), 0.0, self.step)?;
        Ok(ColumnSimulation {
            stepper,
            beads,
            linked: vec![false; self.beads],
            params: *self,
        })
    }
}

impl ColumnSimulation {
    /// Links every contact whose gap is below the alert distance (at the current state).
    pub fn link_close_contacts(&mut self) -> Result<()> {
        let (r, e) = (self.params.radius, self.params.restitution);
        for i in 0..self.beads.len() {
            let z = self.stepper.q(self.beads[i])[0];
            let gap = if i == 0 {
                z - r
            } else {
                z - self.stepper.q(self.beads[i - 1])[0] - 2.0 * r
            };
            if self.linked[i] || gap >= self.params.alert {
                continue;
            }
            let law = NewtonImpactNSL::new(e)?;
            if i == 0 {
                let floor = LagrangianLinearTIR::with_offset(
                    DMatrix::from_row_slice(1, 3, &[1.0, 0.0, 0.0]),
                    DVector::from_element(1, -r),
                )?;
                self.stepper.link("floor", law, floor, &[self.beads[0]])?;
            } else {
                let h = DMatrix::from_row_slice(1, 6, &[-1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
                let contact = LagrangianLinearTIR::with_offset(h, DVector::from_element(1, -2.0 * r))?;
                self.stepper.link(
                    &format!("beads {}-{i}", i - 1),
                    law,
                    contact,
                    &[self.beads[i - 1], self.beads[i]],
                )?;
            }
            self.linked[i] = true;
        }
        Ok(())
    }

    /// One step, after linking the contacts that came within the alert distance.
    pub fn step(&mut self) -> Result<()> {
        self.link_close_contacts()?;
        self.stepper.step()
    }

    /// Runs to `t_final` (⌈(t_final − t)/h⌉ steps), recording every step.
    pub fn run(&mut self, t_final: f64, trajectory: &mut Trajectory) -> Result<()> {
        let steps = self.stepper.steps_until(t_final)?;
        if trajectory.is_empty() {
            trajectory.samples.push(self.stepper.sample()?);
        }
        for _ in 0..steps {
            self.step()?;
            trajectory.samples.push(self.stepper.sample()?);
        }
        Ok(())
    }

    /// The bead handles, bottom first.
    pub fn beads(&self) -> &[DsId] {
        &self.beads
    }
}
