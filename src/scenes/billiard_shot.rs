//! A billiard shot in 3-D: a cue ball struck with spin rolls across a rough table and hits an
//! object ball, both solid balls q = (x, y, z, φ_x, φ_y, φ_z), v = (v, ω) — the angles only
//! integrate ω: a sphere's orientation does not enter its contacts —, M = diag(m, m, m, I, I,
//! I) with I = ⅖ m R², F_ext = (0, 0, −m g, 0, 0, 0). The cue ball starts at (0, 0, R + δ) with
//! velocity (v, 0, 0) and spin ω = (0, ω_y, ω_z) (ω_y > 0 is follow: rolling is v = R ω_y;
//! ω_z is side spin), the object ball at rest at (d, b, R + δ) (b ≠ 0: a cut). Both start a
//! small drop δ above the cloth and settle on it in a few small bounces: a ball placed exactly
//! at y = 0 would have its table contact's activation (y + γ h ẏ ≤ 0) decided by the rounding
//! of the resting impulse, differently on each engine; settled, it rests a little below 0.
//! Contacts, each under `NewtonImpactFrictionNSL(e, 0, μ, 3)`:
//! - each ball with the table z = 0, rows (normal, two tangents), the contact point's
//!   velocity: `y = (z − R, ·, ·)`, `u = (v_z, v_x − R ω_y, v_y + R ω_x)` (the spinning ball's);
//! - the two balls with each other, a [`SphereLDSSphereLDSR`]: the gap ‖x₁ − x₀‖ − 2R and the
//!   sliding velocity of the contact points in Siconos's `orthoBaseFromVector` tangents,
//!   re-evaluated per Newton iterate by every engine.
//!
//! Without ball–ball friction the impulses between the balls act through their centres, and
//! the table's friction on a ball conserves m v_x + (I/R) ω_y and m v_y − (I/R) ω_x; so the
//! sum of these over both balls holds to rounding through the whole shot. Nothing resists
//! rolling: the balls roll on after they stop sliding.

use nalgebra::{DMatrix, DVector};

use crate::error::Result;
use crate::model::{
    DsId, LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactFrictionNSL, Nsds, SphereLDSSphereLDSR,
};
use crate::reference::TimeStepping;
use crate::scenes::parameters::{Parameters, require, require_non_negative, require_positive};

/// Parameters of the billiard shot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BilliardShot {
    /// Radius R of both balls (m). Default 0.028575 (a pool ball).
    pub radius: f64,
    /// Mass m of both balls (kg). Default 0.17.
    pub mass: f64,
    /// The cue ball's speed v (m/s, along x). Default 2.
    pub speed: f64,
    /// The cue ball's follow ω_y (rad/s; rolling is v/R, negative is draw). Default 0.
    pub follow: f64,
    /// The cue ball's side spin ω_z (rad/s). Default 0.
    pub english: f64,
    /// The object ball's distance d along x (m, > 0: ahead of the cue ball). Default 0.5.
    pub distance: f64,
    /// The object ball's offset b along y (m; 0 is a full hit, |b| < 2R cuts). Default 0.02.
    pub offset: f64,
    /// The drop δ of both balls onto the cloth (m, ≥ 0). Default 1e-3.
    pub drop: f64,
    /// Coulomb coefficient μ of the table. Default 0.2.
    pub table_friction: f64,
    /// Coulomb coefficient μ between the balls. Default 0.05.
    pub ball_friction: f64,
    /// Normal restitution e between the balls. Default 0.93.
    pub restitution: f64,
    /// Normal restitution e of the table. Default 0.5.
    pub table_restitution: f64,
    /// Gravity g (m/s²). Default 9.81.
    pub gravity: f64,
    /// Time step h (s). Default 1e-3.
    pub step: f64,
}

impl Default for BilliardShot {
    fn default() -> Self {
        Self {
            radius: 0.028575,
            mass: 0.17,
            speed: 2.0,
            follow: 0.0,
            english: 0.0,
            distance: 0.5,
            offset: 0.02,
            drop: 1e-3,
            table_friction: 0.2,
            ball_friction: 0.05,
            restitution: 0.93,
            table_restitution: 0.5,
            gravity: 9.81,
            step: 1e-3,
        }
    }
}

impl BilliardShot {
    /// The shot of the `billiard_shot` template: `radius`, `mass`, `speed`, `follow`,
    /// `english`, `distance`, `offset`, `drop`, `table_friction`, `ball_friction`, `restitution`,
    /// `table_restitution`, `gravity` from `p` (in this order), defaults as above; refused as
    /// `check` says.
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let d = Self::default();
        let (radius, mass, speed) = (
            p.scalar("radius", "m", d.radius)?,
            p.scalar("mass", "kg", d.mass)?,
            p.scalar("speed", "m/s", d.speed)?,
        );
        let (follow, english, distance, offset, drop) = (
            p.scalar("follow", "rad/s", d.follow)?,
            p.scalar("english", "rad/s", d.english)?,
            p.scalar("distance", "m", d.distance)?,
            p.scalar("offset", "m", d.offset)?,
            p.scalar("drop", "m", d.drop)?,
        );
        let (table_friction, ball_friction, restitution) = (
            p.scalar("table_friction", "", d.table_friction)?,
            p.scalar("ball_friction", "", d.ball_friction)?,
            p.scalar("restitution", "", d.restitution)?,
        );
        let shot = Self {
            radius,
            mass,
            speed,
            follow,
            english,
            distance,
            offset,
            drop,
            table_friction,
            ball_friction,
            restitution,
            table_restitution: p.scalar("table_restitution", "", d.table_restitution)?,
            gravity: p.scalar("gravity", "m/s²", d.gravity)?,
            ..d
        };
        shot.check()?;
        Ok(shot)
    }

    /// The template's requirements, each error naming the parameter: a radius and a mass that
    /// are positive normal numbers (and so the balls' inertia ⅖ m R²), the object ball ahead of
    /// the cue ball (d > 0: the cue ball is shot along +x) and clear of it (d² + b² ≥ 4R²), a
    /// drop and frictions ≥ 0.
    fn check(&self) -> Result<()> {
        let (t, r) = ("billiard_shot", self.radius);
        require_positive(t, "radius", r)?;
        require_positive(t, "mass", self.mass)?;
        require(
            t,
            "radius",
            r,
            (0.4 * self.mass * r * r).is_normal(),
            "a ball's moment of inertia ⅖ m R² is not a positive normal number (it under- or overflows)",
        )?;
        require(
            t,
            "distance",
            self.distance,
            self.distance > 0.0,
            "must be > 0: the object ball lies ahead of the cue ball, which is shot along +x",
        )?;
        require(
            t,
            "distance",
            self.distance,
            self.distance.hypot(self.offset) >= 2.0 * r,
            "the balls would start overlapping (distance² + offset² < (2 radius)²)",
        )?;
        require_non_negative(t, "drop", self.drop)?;
        require_non_negative(t, "table_friction", self.table_friction)?;
        require_non_negative(t, "ball_friction", self.ball_friction)
    }

    /// The scene: systems `cue`, `object`; interactions `cue table`, `object table`, `balls`.
    /// Refuses what the template refuses (see `check`: a radius or mass that is not a positive
    /// normal number, an object ball behind the cue ball or overlapping it, a negative drop or
    /// friction); the constructors refuse laws out of range.
    pub fn nsds(&self) -> Result<Nsds> {
        self.check()?;
        let (m, r) = (self.mass, self.radius);
        let inertia = 0.4 * m * r * r;
        let mass = DMatrix::from_diagonal(&DVector::from_vec(vec![m, m, m, inertia, inertia, inertia]));
        let weight = DVector::from_vec(vec![0.0, 0.0, -m * self.gravity, 0.0, 0.0, 0.0]);
        let mut nsds = Nsds::new();
        let mut ball = |name: &str, x: [f64; 2], v: [f64; 6]| -> Result<DsId> {
            let ds = LagrangianLinearTIDS::new(
                DVector::from_vec(vec![x[0], x[1], r + self.drop, 0.0, 0.0, 0.0]),
                DVector::from_row_slice(&v),
                mass.clone(),
            )?
            .with_fext(weight.clone())?;
            Ok(nsds.add(name, ds))
        };
        let cue = ball(
            "cue",
            [0.0, 0.0],
            [self.speed, 0.0, 0.0, 0.0, self.follow, self.english],
        )?;
        let object = ball("object", [self.distance, self.offset], [0.0; 6])?;
        let table = NewtonImpactFrictionNSL::new(self.table_restitution, 0.0, self.table_friction, 3)?;
        #[rustfmt::skip]
        let rows = DMatrix::from_row_slice(3, 6, &[
            0.0, 0.0, 1.0, 0.0, 0.0, 0.0,
            1.0, 0.0, 0.0, 0.0, -r, 0.0,
            0.0, 1.0, 0.0, r, 0.0, 0.0,
        ]);
        for (name, ds) in [("cue table", cue), ("object table", object)] {
            let relation = LagrangianLinearTIR::with_offset(rows.clone(), DVector::from_vec(vec![-r, 0.0, 0.0]))?;
            nsds.link(name, table, relation, &[ds])?;
        }
        let balls = NewtonImpactFrictionNSL::new(self.restitution, 0.0, self.ball_friction, 3)?;
        nsds.link(
            "balls",
            balls,
            SphereLDSSphereLDSR::new([6, 6], [r, r])?,
            &[cue, object],
        )?;
        nsds.name_coordinates(
            ["_cue", "_object"]
                .iter()
                .flat_map(|body| super::SOLID.map(|c| format!("{c}{body}"))),
        )?;
        Ok(nsds)
    }

    /// The simulation from t = 0 (Moreau–Jean, θ = ½; NSGS for the 3-D contacts).
    pub fn simulation(&self) -> Result<TimeStepping> {
        super::moreau_jean(self.nsds()?, self.step)
    }
}
