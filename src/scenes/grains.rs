//! What the granular templates (`hopper_2d`, `pile_3d`, `chute_3d`) share: the checks of
//! their grains, the polydisperse radii, the lattice's jitter, and a lattice of spheres
//! filled layer after layer.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::error::Result;
use crate::validate;

/// Checks a template's grains by key: `count` (named `count_key`) ≥ 1, the mean radius and
/// the density > 0, the polydispersity p in [0, 1).
pub fn check(template: &str, (count_key, count): (&str, usize), radius: f64, p: f64, density: f64) -> Result<()> {
    validate::scalar(
        &format!("{template}: {count_key}"),
        count as f64,
        count >= 1,
        "must be ≥ 1",
    )?;
    validate::positive(&format!("{template}: radius"), radius)?;
    validate::scalar(
        &format!("{template}: polydispersity"),
        p,
        (0.0..1.0).contains(&p),
        "must be in [0, 1)",
    )?;
    validate::positive(&format!("{template}: density"), density)
}

/// A radius uniform in [R (1 − p), R (1 + p)]: R (1 + p (2u − 1)).
pub fn radius(rng: &mut ChaCha8Rng, mean: f64, p: f64) -> f64 {
    mean * (1.0 + p * (2.0 * rng.random::<f64>() - 1.0))
}

/// A lattice site's jitter, uniform in ±0.05 R_max.
pub fn jitter(rng: &mut ChaCha8Rng, r_max: f64) -> f64 {
    0.05 * r_max * (2.0 * rng.random::<f64>() - 1.0)
}

/// `count` spheres of density ρ (m = ρ 4π R³/3, radii by [`radius`]) filling layers of
/// `along` × `across` sites from the floor z = 0: site (a, b) of layer l at
/// (step_x (a + ½), pitch (b + ½), pitch (l + ½)), jittered in x and y ([`jitter`]).
/// Returns the centres, radii and masses.
pub fn sphere_lattice(
    rng: &mut ChaCha8Rng,
    count: usize,
    (along, step_x): (usize, f64),
    across: usize,
    pitch: f64,
    (mean, p, density): (f64, f64, f64),
) -> (Vec<[f64; 3]>, Vec<f64>, Vec<f64>) {
    let r_max = mean * (1.0 + p);
    let (mut x, mut radii, mut mass) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..count {
        let (layer, cell) = (k / (along * across), k % (along * across));
        x.push([
            step_x * ((cell % along) as f64 + 0.5) + jitter(rng, r_max),
            pitch * ((cell / along) as f64 + 0.5) + jitter(rng, r_max),
            pitch * (layer as f64 + 0.5),
        ]);
        let r = radius(rng, mean, p);
        radii.push(r);
        mass.push(density * 4.0 / 3.0 * std::f64::consts::PI * r * r * r);
    }
    (x, radii, mass)
}
