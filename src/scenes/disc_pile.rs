//! Discs (2-D spheres) dropped into a box: every disc meets the floor and both walls through
//! sphere–plane gaps (linear) and every other disc through a sphere–sphere gap (nonlinear,
//! ‖x_j − x_i‖ − 2R), each under Newton's impact law — a small granular pile.
//!
//! Disc i is a `LagrangianLinearTIDS` with q = (x, z), M = m I, F_ext = (0, −m g). The box is
//! 0 ≤ x ≤ width, z ≥ 0.

use nalgebra::{DMatrix, DVector};

use crate::error::{Error, Result};
use crate::model::{
    DiskDiskR, DsId, LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactFrictionNSL, NewtonImpactNSL, Nsds,
    SphereSphereR,
};
use crate::reference::TimeStepping;
use crate::scenes::parameters::{Parameters, require, require_memory, require_non_negative, require_positive};

/// A pile of discs in a box.
#[derive(Clone, Debug, PartialEq)]
pub struct DiscPile {
    /// Initial centres (x, z) of the discs (m).
    pub centres: Vec<[f64; 2]>,
    /// Initial velocities (m/s).
    pub velocities: Vec<[f64; 2]>,
    /// Radius R of every disc (m).
    pub radius: f64,
    /// Mass of every disc (kg).
    pub mass: f64,
    /// Width of the box (m).
    pub width: f64,
    /// Gravity g (m/s²), along −z.
    pub gravity: f64,
    /// Restitution e of every contact.
    pub restitution: f64,
    /// Coulomb coefficient μ of every contact; 0: frictionless discs without rotation (the
    /// batched engines' scene), > 0: rotating discs (see [`DiscPile::nsds`]).
    pub friction: f64,
    /// Time step h (s).
    pub step: f64,
}

impl DiscPile {
    /// The pile of the `disc_pile` template: `discs` (4) and `stagger` (0.05) give the
    /// [`column`](Self::column), then `radius`, `mass`, `width`, `gravity`, `restitution`, an
    /// extra sideways shift `x0`, `x1`, … of each disc (0) and `friction` (0) from `p`, in this
    /// order. Refuses, naming the parameter, a mass or radius that is not a positive normal
    /// number, a negative friction, and discs that would start in a wall or overlapping.
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let count = p.count("discs", 4)?;
        // 3 dof per disc; up to 2 rows per pair and 3 walls (with friction).
        require_memory(
            "disc_pile",
            ("discs", count),
            3 * count,
            count * (count - 1) + 6 * count,
        )?;
        let stagger = p.scalar("stagger", "m", 0.05)?;
        let mut pile = Self::column(count, stagger);
        pile.radius = p.scalar("radius", "m", pile.radius)?;
        pile.mass = p.scalar("mass", "kg", pile.mass)?;
        pile.width = p.scalar("width", "m", pile.width)?;
        pile.gravity = p.scalar("gravity", "m/s²", pile.gravity)?;
        pile.restitution = p.scalar("restitution", "", pile.restitution)?;
        for (i, centre) in pile.centres.iter_mut().enumerate() {
            centre[0] += p.scalar(&format!("x{i}"), "m", 0.0)?;
        }
        pile.friction = p.scalar("friction", "", 0.0)?;
        require_positive("disc_pile", "mass", pile.mass)?;
        pile.check_geometry()?;
        Ok(pile)
    }

    /// `count` discs of radius 0.1 m and mass 1 kg at rest in a column above the middle of a
    /// 1 m box, each shifted sideways by ±`stagger` (alternately), e = 0.5, h = 10⁻³ s.
    pub fn column(count: usize, stagger: f64) -> Self {
        Self {
            centres: (0..count)
                .map(|i| [0.5 + if i % 2 == 0 { stagger } else { -stagger }, 0.3 + 0.25 * i as f64])
                .collect(),
            velocities: vec![[0.0; 2]; count],
            radius: 0.1,
            mass: 1.0,
            width: 1.0,
            gravity: 9.81,
            restitution: 0.5,
            friction: 0.0,
            step: 1e-3,
        }
    }

    /// The scene: systems `disc i`; interactions `floor i`, `left i`, `right i`, `discs i-j`.
    /// Without friction a disc is q = (x, z) and its contacts one row each under Newton's law;
    /// with friction ([`DiscPile::rough_nsds`]) it also turns.
    pub fn nsds(&self) -> Result<Nsds> {
        // Here, not in the law: a negative μ ran frictionless discs (the law is built only for
        // μ > 0), and a drawn one changed the scene's size instead of naming `friction`.
        require_non_negative("disc_pile", "friction", self.friction)?;
        if self.friction > 0.0 {
            return self.rough_nsds();
        }
        self.check_discs()?;
        let r = self.radius;
        let law = NewtonImpactNSL::new(self.restitution)?;
        let mut nsds = Nsds::new();
        let discs = self.add_discs(&mut nsds, false)?;
        for (i, &disc) in discs.iter().enumerate() {
            for (wall, normal, d) in [
                ("floor", [0.0, 1.0], 0.0),
                ("left", [1.0, 0.0], 0.0),
                ("right", [-1.0, 0.0], -self.width),
            ] {
                let relation = LagrangianLinearTIR::sphere_plane(2, 2, &normal, d, r)?;
                nsds.link(&format!("{wall} {i}"), law, relation, &[disc])?;
            }
        }
        for i in 0..discs.len() {
            for j in i + 1..discs.len() {
                let relation = SphereSphereR::new(2, [2, 2], 2.0 * r)?;
                nsds.link(&format!("discs {i}-{j}"), law, relation, &[discs[i], discs[j]])?;
            }
        }
        nsds.name_coordinates(super::body_coordinates(&["x", "z"], self.centres.len()))?;
        Ok(nsds)
    }

    /// Adds the (checked) discs as systems `disc i`: q = (x, z), M = diag(m, m),
    /// F_ext = (0, −m g); a `rough` disc also turns: q = (x, z, θ = 0), M = diag(m, m, ½ m R²),
    /// F_ext = (0, −m g, 0).
    fn add_discs(&self, nsds: &mut Nsds, rough: bool) -> Result<Vec<DsId>> {
        let (r, m) = (self.radius, self.mass);
        let turning = |x: &[f64; 2], third: f64| {
            let mut v = x.to_vec();
            if rough {
                v.push(third);
            }
            DVector::from_vec(v)
        };
        let mass = DMatrix::from_diagonal(&turning(&[m, m], 0.5 * m * r * r));
        let weight = turning(&[0.0, -m * self.gravity], 0.0);
        self.centres
            .iter()
            .zip(&self.velocities)
            .enumerate()
            .map(|(i, (x, v))| {
                let disc = LagrangianLinearTIDS::new(turning(x, 0.0), turning(v, 0.0), mass.clone())?
                    .with_fext(weight.clone())?;
                Ok(nsds.add(&format!("disc {i}"), disc))
            })
            .collect()
    }

    /// The template's geometry: a radius that is a positive normal number (and, with friction,
    /// so is the turning disc's inertia ½ m R²), a box at least one disc wide, every disc
    /// starting inside the box and clear of the others.
    fn check_geometry(&self) -> Result<()> {
        let (t, r, w) = ("disc_pile", self.radius, self.width);
        require_positive(t, "radius", r)?;
        // The turning discs' inertia ½ m R² (with friction).
        let inertia = 0.5 * self.mass * r * r;
        require(
            t,
            "radius",
            r,
            self.friction == 0.0 || inertia.is_normal(),
            "a disc's moment of inertia ½ m R² is not a positive normal number (it under- or overflows)",
        )?;
        require(
            t,
            "width",
            w,
            w >= 2.0 * r,
            "the box is narrower than a disc (width < 2 radius)",
        )?;
        for (i, c) in self.centres.iter().enumerate() {
            let inside = c[0] >= r && c[0] <= w - r && c[1] >= r;
            require(
                t,
                &format!("x{i}"),
                c[0],
                inside,
                &format!("disc {i} would start in a wall or the floor"),
            )?;
            for (j, d) in self.centres.iter().enumerate().skip(i + 1) {
                let apart = (d[0] - c[0]).hypot(d[1] - c[1]) >= 2.0 * r;
                require(
                    t,
                    "radius",
                    r,
                    apart,
                    &format!("discs {i} and {j} would start overlapping"),
                )?;
            }
        }
        Ok(())
    }

    /// A velocity per centre, and at least one disc.
    fn check_discs(&self) -> Result<()> {
        if self.centres.len() != self.velocities.len() || self.centres.is_empty() {
            return Err(Error::Dimension {
                what: "disc pile: centres and velocities".into(),
                expected: format!("{} velocities, at least one disc", self.centres.len()),
                got: self.velocities.len().to_string(),
            });
        }
        Ok(())
    }

    /// Rotating discs with Coulomb friction: disc i is q = (x, z, θ), M = diag(m, m, ½ m R²),
    /// F_ext = (0, −m g, 0); every contact is `NewtonImpactFrictionNSL(e, 0, μ, 2)` with rows
    /// (normal, tangent), the tangent the contact point's velocity: against the floor
    /// (z − R; v_x + R ω), the left wall (x − R; v_z − R ω), the right wall (w − x − R;
    /// v_z + R ω); between discs i, j, with n = (x_j − x_i)/‖x_j − x_i‖ and t = (−n_z, n_x),
    /// (‖x_j − x_i‖ − 2R; t·(v_j − v_i) − R (ω_i + ω_j)), a [`DiskDiskR`]. Every engine runs it.
    pub fn rough_nsds(&self) -> Result<Nsds> {
        self.check_discs()?;
        let r = self.radius;
        let law = NewtonImpactFrictionNSL::new(self.restitution, 0.0, self.friction, 2)?;
        let mut nsds = Nsds::new();
        let discs = self.add_discs(&mut nsds, true)?;
        let w = self.width;
        for (i, &disc) in discs.iter().enumerate() {
            for (wall, rows, offset) in [
                ("floor", [0.0, 1.0, 0.0, 1.0, 0.0, r], -r),
                ("left", [1.0, 0.0, 0.0, 0.0, 1.0, -r], -r),
                ("right", [-1.0, 0.0, 0.0, 0.0, 1.0, r], w - r),
            ] {
                let relation = LagrangianLinearTIR::with_offset(
                    DMatrix::from_row_slice(2, 3, &rows),
                    DVector::from_vec(vec![offset, 0.0]),
                )?;
                nsds.link(&format!("{wall} {i}"), law, relation, &[disc])?;
            }
        }
        for i in 0..discs.len() {
            for j in i + 1..discs.len() {
                let relation = DiskDiskR::new([3, 3], [r, r])?;
                nsds.link(&format!("discs {i}-{j}"), law, relation, &[discs[i], discs[j]])?;
            }
        }
        nsds.name_coordinates(super::body_coordinates(&["x", "z", "theta"], self.centres.len()))?;
        Ok(nsds)
    }

    /// The simulation from t = 0.
    pub fn simulation(&self) -> Result<TimeStepping> {
        super::moreau_jean(self.nsds()?, self.step)
    }
}
