//! Spheres poured into a square box and settling: polydisperse radii, seeded; the 3-D
//! workload of the large-scene engine (a packing, floor load and energy study).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use crate::error::Result;
use crate::large_scene::{Bodies, Dimension, LargeScene, Wall};
use crate::model::NewtonImpactFrictionNSL;
use crate::validate;

use super::grains;

/// The pile's parameters.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Pile3d {
    /// Spheres poured (default 1000).
    pub spheres: usize,
    /// The mean radius R (m; default 0.01).
    pub radius: f64,
    /// p: radii uniform in [R (1 − p), R (1 + p)] (default 0: equal spheres).
    pub polydispersity: f64,
    /// The spheres' density ρ (kg/m³; default 2500, glass): m = ρ 4π R³/3.
    pub density: f64,
    /// The box's inner side, in mean diameters (default 12).
    pub width: f64,
    /// μ of sphere–sphere contacts (default 0.5).
    pub friction: f64,
    /// μ of sphere–wall contacts (default 0.5).
    pub wall_friction: f64,
    /// e_N of every contact (default 0).
    pub restitution: f64,
}

impl Default for Pile3d {
    fn default() -> Self {
        Self {
            spheres: 1000,
            radius: 0.01,
            polydispersity: 0.0,
            density: 2500.0,
            width: 12.0,
            friction: 0.5,
            wall_friction: 0.5,
            restitution: 0.0,
        }
    }
}

impl Pile3d {
    /// The scene, gravity 9.81 m/s² along −z, time step `h`, radii and the lattice's jitter
    /// drawn from `seed`: spheres on a square lattice of pitch 2.2 R_max (jittered by
    /// ±0.05 R_max, random horizontal velocities of ±0.05 m/s), layer after layer from the
    /// floor of a box open at the top.
    pub fn build(&self, h: f64, seed: u64) -> Result<LargeScene> {
        let p = self.polydispersity;
        grains::check("pile_3d", ("spheres", self.spheres), self.radius, p, self.density)?;
        let grains = NewtonImpactFrictionNSL::new(self.restitution, 0.0, self.friction, 3)?;
        let walls_law = NewtonImpactFrictionNSL::new(self.restitution, 0.0, self.wall_friction, 3)?;
        let r_max = self.radius * (1.0 + p);
        let side = self.width * 2.0 * self.radius;
        let pitch = 2.2 * r_max;
        let across = (side / pitch).floor() as usize;
        validate::scalar("pile_3d: width", self.width, across >= 1, "must hold one sphere across")?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (x, radius, mass) = grains::sphere_lattice(
            &mut rng,
            self.spheres,
            (across, pitch),
            across,
            pitch,
            (self.radius, p, self.density),
        );
        let mut bodies = Bodies::new(Dimension::Three, x, radius, mass)?;
        for v in &mut bodies.v {
            v[0] = 0.05 * (2.0 * rng.random::<f64>() - 1.0);
            v[1] = 0.05 * (2.0 * rng.random::<f64>() - 1.0);
        }
        let mut walls = vec![Wall::plane([0.0; 3], [0.0, 0.0, 1.0], walls_law)?];
        for axis in 0..2 {
            let mut n = [0.0; 3];
            n[axis] = 1.0;
            walls.push(Wall::plane([0.0; 3], n, walls_law)?);
            n[axis] = -1.0;
            let mut at = [0.0; 3];
            at[axis] = side;
            walls.push(Wall::plane(at, n, walls_law)?);
        }
        LargeScene::new(bodies, walls, grains, [0.0, 0.0, -9.81], h)
    }
}
