//! Polydisperse discs discharging from a 2-D hopper through an orifice: two walls inclined
//! towards an orifice of width D, vertical above, and a sink below that counts the discs
//! that left — the flow whose rate Beverloo's law W = C (D − k d)^{3/2} describes (Beverloo,
//! Leniger & van de Velde, Chem. Eng. Sci. 15:260, 1961; in 2-D the exponent is 3/2: Mankoc
//! et al., Granular Matter 9:407, 2007).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use crate::error::Result;
use crate::large_scene::{Bodies, Dimension, LargeScene, Wall};
use crate::model::NewtonImpactFrictionNSL;
use crate::validate;

use super::grains;

/// The hopper's parameters.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Hopper2d {
    /// Discs (default 1000).
    pub discs: usize,
    /// The mean radius R (m; default 0.005): d = 2R is the mean diameter.
    pub radius: f64,
    /// p: radii uniform in [R (1 − p), R (1 + p)] (default 0.2; equal discs crystallise and
    /// arch).
    pub polydispersity: f64,
    /// The discs' areal density (kg/m²; default 1): m = ρ π R².
    pub density: f64,
    /// The orifice's width D, in mean diameters (default 8).
    pub orifice: f64,
    /// The hopper's width above the inclined walls, in mean diameters (default 30).
    pub width: f64,
    /// The inclined walls' angle from the horizontal (degrees, in (0, 90); default 60).
    pub wall_angle: f64,
    /// μ of disc–disc contacts (default 0.5).
    pub friction: f64,
    /// μ of disc–wall contacts (default 0.5).
    pub wall_friction: f64,
    /// e_N of every contact (default 0).
    pub restitution: f64,
}

impl Default for Hopper2d {
    fn default() -> Self {
        Self {
            discs: 1000,
            radius: 0.005,
            polydispersity: 0.2,
            density: 1.0,
            orifice: 8.0,
            width: 30.0,
            wall_angle: 60.0,
            friction: 0.5,
            wall_friction: 0.5,
            restitution: 0.0,
        }
    }
}

impl Hopper2d {
    /// The scene, gravity 9.81 m/s² along −y, time step `h`, radii and jitter drawn from
    /// `seed`: the orifice spans x ∈ [−D/2, D/2] at y = 0, the inclined walls rise from its
    /// edges to the vertical walls at x = ±W/2, which rise above the discs; the discs start
    /// at rest on a lattice of pitch 2.2 R_max (jittered by ±0.05 R_max) filling the
    /// hopper from its walls up; the sink is 4 R_max below the orifice.
    pub fn build(&self, h: f64, seed: u64) -> Result<LargeScene> {
        let p = self.polydispersity;
        grains::check("hopper_2d", ("discs", self.discs), self.radius, p, self.density)?;
        let d = 2.0 * self.radius;
        let r_max = self.radius * (1.0 + p);
        validate::scalar(
            "hopper_2d: orifice",
            self.orifice,
            self.orifice * d > 2.0 * r_max,
            "must let the largest disc through (> 2 R_max / d)",
        )?;
        validate::scalar(
            "hopper_2d: width",
            self.width,
            self.width > self.orifice + 4.0 * (1.0 + p),
            "must exceed the orifice by two largest discs on each side",
        )?;
        let angle = self.wall_angle;
        validate::scalar(
            "hopper_2d: wall_angle",
            angle,
            angle > 0.0 && angle < 90.0,
            "must be in (0, 90) degrees",
        )?;
        let grains = NewtonImpactFrictionNSL::new(self.restitution, 0.0, self.friction, 2)?;
        let wall_law = NewtonImpactFrictionNSL::new(self.restitution, 0.0, self.wall_friction, 2)?;
        let (half_d, half_w) = (self.orifice * d / 2.0, self.width * d / 2.0);
        let slope = angle.to_radians().tan();
        let shoulder = (half_w - half_d) * slope;
        // Fill rows of pitch 2.2 R_max from the inclined walls up, each disc's centre 1.1 R_max
        // from the inclined walls (a horizontal distance of 1.1 R_max / sin α).
        let pitch = 2.2 * r_max;
        let clearance = 1.1 * r_max / angle.to_radians().sin();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut x, mut radius, mut mass) = (Vec::new(), Vec::new(), Vec::new());
        let mut y = pitch;
        while x.len() < self.discs {
            // The hopper's half width at height y (less the clearance).
            let reach = if y < shoulder { half_d + y / slope } else { half_w } - clearance;
            let across = ((2.0 * reach) / pitch).floor() as usize;
            let start = -(across as f64 - 1.0) * pitch / 2.0;
            for k in 0..across {
                if x.len() == self.discs {
                    break;
                }
                let at = start + k as f64 * pitch + grains::jitter(&mut rng, r_max);
                x.push([at, y + grains::jitter(&mut rng, r_max), 0.0]);
                let r = grains::radius(&mut rng, self.radius, p);
                radius.push(r);
                mass.push(self.density * std::f64::consts::PI * r * r);
            }
            y += pitch;
        }
        let top = y + pitch;
        let bodies = Bodies::new(Dimension::Two, x, radius, mass)?;
        let mut walls = Wall::polyline(&[[-half_d, 0.0], [-half_w, shoulder], [-half_w, top]], wall_law)?;
        walls.extend(Wall::polyline(
            &[[half_d, 0.0], [half_w, shoulder], [half_w, top]],
            wall_law,
        )?);
        let mut scene = LargeScene::new(bodies, walls, grains, [0.0, -9.81, 0.0], h)?;
        scene.sink = Some(-4.0 * r_max);
        Ok(scene)
    }
}
