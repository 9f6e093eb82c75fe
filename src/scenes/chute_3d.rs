//! Spheres flowing down a chute: a flat frictional floor inclined at an angle θ (gravity
//! tilted, g = 9.81 (sin θ, 0, −cos θ) m/s²), two side walls, and periodic in the flow
//! direction x — the set-up of chute-flow studies (Silbert et al., Phys. Rev. E 64:051302,
//! 2001, there with a rough base and periodic sides).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use crate::error::Result;
use crate::large_scene::{Bodies, Dimension, LargeScene, Wall};
use crate::model::NewtonImpactFrictionNSL;
use crate::validate;

use super::grains;

/// The chute's parameters.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Chute3d {
    /// Spheres (default 1000).
    pub spheres: usize,
    /// The mean radius R (m; default 0.005).
    pub radius: f64,
    /// p: radii uniform in [R (1 − p), R (1 + p)] (default 0.1).
    pub polydispersity: f64,
    /// The spheres' density ρ (kg/m³; default 2500): m = ρ 4π R³/3.
    pub density: f64,
    /// The period L along the flow, in mean diameters (default 20).
    pub length: f64,
    /// The width between the side walls, in mean diameters (default 10).
    pub width: f64,
    /// The inclination θ (degrees, in [0, 90); default 30).
    pub angle: f64,
    /// μ of sphere–sphere contacts (default 0.5).
    pub friction: f64,
    /// μ of the floor and side walls (default 0.5).
    pub wall_friction: f64,
    /// e_N of every contact (default 0).
    pub restitution: f64,
}

impl Default for Chute3d {
    fn default() -> Self {
        Self {
            spheres: 1000,
            radius: 0.005,
            polydispersity: 0.1,
            density: 2500.0,
            length: 20.0,
            width: 10.0,
            angle: 30.0,
            friction: 0.5,
            wall_friction: 0.5,
            restitution: 0.0,
        }
    }
}

impl Chute3d {
    /// The scene, time step `h`, radii and jitter drawn from `seed`: spheres at rest on a
    /// lattice of pitch 2.2 R_max (jittered by ±0.05 R_max) filling the period and the width
    /// layer after layer from the floor z = 0, side walls at y = 0 and y = W, period L in x.
    pub fn build(&self, h: f64, seed: u64) -> Result<LargeScene> {
        let p = self.polydispersity;
        grains::check("chute_3d", ("spheres", self.spheres), self.radius, p, self.density)?;
        validate::scalar(
            "chute_3d: angle",
            self.angle,
            (0.0..90.0).contains(&self.angle),
            "must be in [0, 90) degrees",
        )?;
        let grains = NewtonImpactFrictionNSL::new(self.restitution, 0.0, self.friction, 3)?;
        let wall_law = NewtonImpactFrictionNSL::new(self.restitution, 0.0, self.wall_friction, 3)?;
        let d = 2.0 * self.radius;
        let r_max = self.radius * (1.0 + p);
        let (length, width) = (self.length * d, self.width * d);
        let pitch = 2.2 * r_max;
        let (along, across) = ((length / pitch).floor() as usize, (width / pitch).floor() as usize);
        validate::scalar(
            "chute_3d: length",
            self.length,
            along >= 3,
            "must hold three spheres along the period",
        )?;
        validate::scalar(
            "chute_3d: width",
            self.width,
            across >= 1,
            "must hold one sphere across",
        )?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (x, radius, mass) = grains::sphere_lattice(
            &mut rng,
            self.spheres,
            (along, length / along as f64),
            across,
            pitch,
            (self.radius, p, self.density),
        );
        let mut bodies = Bodies::new(Dimension::Three, x, radius, mass)?;
        bodies.period = Some(length);
        let walls = vec![
            Wall::plane([0.0; 3], [0.0, 0.0, 1.0], wall_law)?,
            Wall::plane([0.0; 3], [0.0, 1.0, 0.0], wall_law)?,
            Wall::plane([0.0, width, 0.0], [0.0, -1.0, 0.0], wall_law)?,
        ];
        let theta = self.angle.to_radians();
        let g = [9.81 * theta.sin(), 0.0, -9.81 * theta.cos()];
        LargeScene::new(bodies, walls, grains, g, h)
    }
}
