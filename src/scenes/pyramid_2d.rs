//! A triangle of equal discs resting on a floor, its bottom row held between two walls —
//! the large-scene engine's test of rest: with μ = 0.5 it must not move, and the walls carry
//! its weight. (Free-standing, the outer discs of the bottom row roll out: with touching
//! discs, NSGS's first step moves them at five rows even with μ = 1.)

use serde::Deserialize;

use crate::error::Result;
use crate::large_scene::{Bodies, Dimension, LargeScene, Wall};
use crate::model::NewtonImpactFrictionNSL;
use crate::validate;

/// The pyramid's parameters.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Pyramid2d {
    /// Rows n: n(n + 1)/2 discs (default 14: 105 discs).
    pub rows: usize,
    /// Each disc's radius R (m; default 0.05).
    pub radius: f64,
    /// Each disc's mass m (kg; default 1).
    pub mass: f64,
    /// μ of every contact, discs and walls (default 0.5).
    pub friction: f64,
    /// e_N of every contact (default 0).
    pub restitution: f64,
}

impl Default for Pyramid2d {
    fn default() -> Self {
        Self {
            rows: 14,
            radius: 0.05,
            mass: 1.0,
            friction: 0.5,
            restitution: 0.0,
        }
    }
}

impl Pyramid2d {
    /// The rows whose pyramid holds about `bodies` discs: n(n + 1)/2 ≈ bodies.
    pub fn rows_for(bodies: usize) -> usize {
        ((((8 * bodies + 1) as f64).sqrt() - 1.0) / 2.0).round().max(1.0) as usize
    }

    /// The scene, gravity 9.81 m/s² along −y, time step `h`: row k's discs at heights
    /// R + k √3 R, each in the grooves of the row below, neighbours 10⁻¹¹ R closer than
    /// touching (so that rounding leaves no touching pair with a positive gap, inactive at rest
    /// by Moreau–Jean's activation).
    pub fn build(&self, h: f64) -> Result<LargeScene> {
        validate::scalar("pyramid_2d: rows", self.rows as f64, self.rows >= 1, "must be ≥ 1")?;
        let law = NewtonImpactFrictionNSL::new(self.restitution, 0.0, self.friction, 2)?;
        let s = self.radius * (1.0 - 1e-11);
        let mut x = Vec::with_capacity(self.rows * (self.rows + 1) / 2);
        for row in 0..self.rows {
            for k in 0..self.rows - row {
                x.push([s * (2 * k + 1 + row) as f64, s + row as f64 * 3f64.sqrt() * s, 0.0]);
            }
        }
        let n = x.len();
        let bodies = Bodies::new(Dimension::Two, x, vec![self.radius; n], vec![self.mass; n])?;
        let width = 2.0 * s * self.rows as f64;
        let walls = vec![
            Wall::plane([0.0; 3], [0.0, 1.0, 0.0], law)?,
            Wall::plane([0.0; 3], [1.0, 0.0, 0.0], law)?,
            Wall::plane([width, 0.0, 0.0], [-1.0, 0.0, 0.0], law)?,
        ];
        LargeScene::new(bodies, walls, law, [0.0, -9.81, 0.0], h)
    }
}
