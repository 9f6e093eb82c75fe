//! Sweeps: where scene s of an ensemble lies in its design. A parameter given as
//! `{ grid = [a, b, n] }` or `{ log_grid = [a, b, n] }` takes n values from a to b (evenly, or
//! evenly in log); the scenes run through the cartesian product of every gridded parameter
//! (in the byte order of their names — `x10` before `x2` —, entries of a vector in order, the last varying
//! fastest), scene s at point s mod P of the P points, so `scenes = r P` repeats the grid r
//! times with fresh draws of the random parameters. `{ sobol = [a, b] }` takes coordinate d
//! of point s of the Sobol sequence (Joe and Kuo's direction numbers, the `sobol` crate's;
//! digitally shifted by a word drawn from the seed: other seeds give independent randomised
//! replicas), d counting the Sobol parameters in the same order; `{ lhs = [a, b] }` a Latin
//! hypercube over the N scenes: scene s in stratum π_d(s) of N, jittered uniformly within it,
//! π_d a permutation drawn from the seed (Kensler's hashed permutation: computed for one
//! index without the others). With the scenario's top-level `design = "saltelli"`, the drawn
//! `uniform = [a, b]` parameters (d of them) span Saltelli's design for Sobol indices
//! (Saltelli et al., Comput. Phys. Commun. 181:259, 2010): base point j of N takes rows A_j
//! and B_j from coordinates 0..d and d..2d of Sobol point j (digitally shifted as above), and
//! scenes j (d + 2) + k run A_j (k = 0), A_j with coordinate i from B_j (k = i + 1, "AB_i") and
//! B_j (k = d + 1) — SALib's order. Every value depends on (seed, N, s) only, so shards are
//! exact.
//! A sweep is refused, naming its parameter, when it would not give the values it says: a
//! grid of one point between different ends, of more than 2³² − 1 points, or whose span
//! (b − a, or b/a on a log grid) overflows.

use std::sync::OnceLock;

use rand::{Rng as _, RngExt};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::sampling::{Distribution, Parameter, Position, scene_rng};
use crate::error::{Error, Result};

/// Sobol dimensions available (the direction numbers of `JoeKuoD6::minimal`).
const SOBOL_DIMENSIONS: usize = 100;

/// A scenario's top-level `design`: how its drawn parameters are placed together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DesignKind {
    /// Saltelli's design for first-order and total Sobol indices ([`super::sensitivity`]).
    Saltelli,
}

/// What places an ensemble's scenes: its seed, its size and its top-level design.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Draws {
    /// The scenario's seed.
    pub seed: u64,
    /// Its scenes N.
    pub scenes: usize,
    /// Its top-level design.
    pub design: Option<DesignKind>,
}

/// The swept parameters of a scenario and where each scene lies among them.
#[derive(Clone, Debug)]
pub struct Design {
    /// (name, how it is swept) in the order above.
    axes: Vec<(String, Axis)>,
    /// Points of the grid: the product of the gridded parameters' sizes.
    points: usize,
    /// Parameters of a Saltelli design (0 without one).
    saltelli: usize,
    seed: u64,
    scenes: usize,
}

#[derive(Clone, Copy, Debug)]
enum Axis {
    Grid { stride: usize, points: usize },
    Sobol { dimension: usize },
    Lhs { dimension: usize },
    Saltelli { dimension: usize },
}

impl Design {
    /// The design of the `parameters` (named, in order) of the ensemble `draws`; an error
    /// when the scenes are not a whole number of grid passes or Saltelli groups, or too many
    /// Sobol, Latin-hypercube or Saltelli parameters or scenes.
    pub fn new<'a>(parameters: impl Iterator<Item = (String, &'a Parameter)>, draws: Draws) -> Result<Self> {
        let Draws { seed, scenes, design } = draws;
        let (mut axes, mut sobol, mut lhs, mut saltelli) = (Vec::new(), 0, 0, 0);
        for (name, p) in parameters {
            let axis = match (design, p) {
                (Some(DesignKind::Saltelli), Parameter::Drawn(Distribution::Uniform(_))) => {
                    saltelli += 1;
                    Axis::Saltelli {
                        dimension: saltelli - 1,
                    }
                }
                (Some(DesignKind::Saltelli), Parameter::Drawn(_)) => {
                    return Err(Error::Scenario {
                        what: format!("parameter `{name}`"),
                        reason: "design = \"saltelli\" places `uniform = [a, b]` parameters (its box), not other draws or sweeps: make it uniform or fixed".into(),
                    });
                }
                (_, p) => match p {
                    Parameter::Drawn(Distribution::Grid(_, _, n) | Distribution::LogGrid(_, _, n)) => {
                        Axis::Grid { stride: 1, points: *n }
                    }
                    Parameter::Drawn(Distribution::Sobol(_)) => {
                        sobol += 1;
                        Axis::Sobol { dimension: sobol - 1 }
                    }
                    Parameter::Drawn(Distribution::Lhs(_)) => {
                        lhs += 1;
                        Axis::Lhs { dimension: lhs - 1 }
                    }
                    _ => continue,
                },
            };
            // Its own mistakes first: they say more than the grid's size.
            p.validate(&name)?;
            check_sweep(&name, p)?;
            axes.push((name, axis));
        }
        // Strides: the last gridded parameter varies fastest.
        let mut points = 1usize;
        for (name, axis) in axes.iter_mut().rev() {
            if let Axis::Grid { stride, points: n } = axis {
                *stride = points;
                points = points.checked_mul(*n).ok_or_else(|| Error::Scenario {
                    what: format!("parameter `{name}`"),
                    reason: "the grid has more points than a computer can count".into(),
                })?;
            }
        }
        if !scenes.is_multiple_of(points) {
            return Err(Error::Scenario {
                what: "scenes".into(),
                reason: format!(
                    "{scenes} scenes is not a whole number of passes over the grid's {points} points (scenes = {points} runs it once)"
                ),
            });
        }
        if sobol > SOBOL_DIMENSIONS {
            return Err(Error::Scenario {
                what: "sobol".into(),
                reason: format!("{sobol} parameters drawn by Sobol: at most {SOBOL_DIMENSIONS}"),
            });
        }
        if design == Some(DesignKind::Saltelli) {
            check_saltelli(saltelli, scenes)?;
        }
        if lhs > 0 && u32::try_from(scenes).is_err() {
            return Err(Error::Scenario {
                what: "lhs".into(),
                reason: format!("a Latin hypercube of {scenes} scenes: at most 2³² − 1"),
            });
        }
        Ok(Self {
            axes,
            points,
            saltelli,
            seed,
            scenes,
        })
    }

    /// The scenes of one whole block of the design, which a subset of the scenes must keep
    /// whole to stay balanced: a pass over the grid, or a Saltelli group (d + 2).
    pub fn block(&self) -> usize {
        if self.saltelli > 0 {
            self.saltelli + 2
        } else {
            self.points
        }
    }

    /// The parameters of a Saltelli design, in its order (scene k = i + 1 of a group takes
    /// parameter i from B); none without one.
    pub fn saltelli_parameters(&self) -> Vec<String> {
        // (`new` numbers their dimensions in the axes' order.)
        self.axes
            .iter()
            .filter(|(_, axis)| matches!(axis, Axis::Saltelli { .. }))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// Points of the grid (1 without gridded parameters).
    pub fn grid_points(&self) -> usize {
        self.points
    }

    /// Whether a parameter is drawn by Latin hypercube (whose strata only all N scenes cover).
    pub fn latin_hypercube(&self) -> bool {
        self.axes.iter().any(|(_, axis)| matches!(axis, Axis::Lhs { .. }))
    }

    /// Where parameter `name` lies in scene `index` (`None`: not swept); a Latin-hypercube
    /// jitter is drawn from the scene's stream `rng`.
    pub fn position(&self, name: &str, index: usize, rng: &mut ChaCha8Rng) -> Option<Position> {
        let (_, axis) = self.axes.iter().find(|(n, _)| n == name)?;
        Some(match *axis {
            Axis::Grid { stride, points } => Position::Grid(index % self.points / stride % points),
            Axis::Sobol { dimension } => {
                let shift = scene_rng(self.seed, u64::MAX - 2 * dimension as u64).next_u64();
                Position::Unit(unit(sobol(index as u64, dimension) ^ shift))
            }
            Axis::Lhs { dimension } => {
                let key = scene_rng(self.seed, u64::MAX - 2 * dimension as u64 - 1).next_u32();
                let n = self.scenes as u32;
                let stratum = permute(index as u32, n, key);
                Position::Unit((f64::from(stratum) + rng.random::<f64>()) / f64::from(n))
            }
            Axis::Saltelli { dimension } => {
                let d = self.saltelli;
                let (point, k) = (index / (d + 2), index % (d + 2));
                // B's coordinate in B_j and in AB_i for i = dimension, A's elsewhere.
                let coordinate = if k == d + 1 || k == dimension + 1 {
                    d + dimension
                } else {
                    dimension
                };
                let shift = scene_rng(self.seed, u64::MAX - 2 * coordinate as u64).next_u64();
                Position::Unit(unit(sobol(point as u64, coordinate) ^ shift))
            }
        })
    }
}

/// Refuses a Saltelli design of `d` parameters that cannot be run as one: no parameter,
/// more than the Sobol dimensions hold (2d coordinates), or scenes that are not N (d + 2).
fn check_saltelli(d: usize, scenes: usize) -> Result<()> {
    let wrong = |reason: String| {
        Err(Error::Scenario {
            what: "design = \"saltelli\"".into(),
            reason,
        })
    };
    if d == 0 {
        return wrong("no parameter is drawn `uniform = [a, b]`: nothing to find the indices of".into());
    }
    if 2 * d > SOBOL_DIMENSIONS {
        return wrong(format!(
            "{d} parameters: at most {} (each takes two Sobol coordinates)",
            SOBOL_DIMENSIONS / 2
        ));
    }
    if !scenes.is_multiple_of(d + 2) {
        let n = (scenes / (d + 2)).max(1);
        return wrong(format!(
            "{scenes} scenes: the design runs N (d + 2) scenes for its d = {d} parameters — scenes = {} for N = {n}",
            n * (d + 2)
        ));
    }
    Ok(())
}

/// The most points a grid may have: 2³² − 1.
pub const MAX_GRID_POINTS: usize = u32::MAX as usize;

/// Refuses a sweep (a validated parameter) whose values would not be what it says: a grid of
/// one point between two different ends (b silently dropped), a grid of more than
/// [`MAX_GRID_POINTS`] points, and ends so far apart that the step overflows (b − a for a grid,
/// Sobol or Latin hypercube, b/a for a log grid: the scenes got NaN or infinite values, which
/// a template then reported as a misleading geometry error).
fn check_sweep(name: &str, p: &Parameter) -> Result<()> {
    let wrong = |reason: String| {
        Err(Error::Scenario {
            what: format!("parameter `{name}`"),
            reason,
        })
    };
    let (form, a, b, n) = match p {
        Parameter::Drawn(Distribution::Grid(a, b, n)) => (format!("grid = [{a:?}, {b:?}, {n}]"), *a, *b, *n),
        Parameter::Drawn(Distribution::LogGrid(a, b, n)) => (format!("log_grid = [{a:?}, {b:?}, {n}]"), *a, *b, *n),
        Parameter::Drawn(Distribution::Sobol([a, b])) => (format!("sobol = [{a:?}, {b:?}]"), *a, *b, 0),
        Parameter::Drawn(Distribution::Lhs([a, b])) => (format!("lhs = [{a:?}, {b:?}]"), *a, *b, 0),
        _ => return Ok(()),
    };
    let log = matches!(p, Parameter::Drawn(Distribution::LogGrid(..)));
    if !(a.is_finite() && b.is_finite()) {
        return wrong(format!("{form}: its end points must be finite"));
    }
    if n > MAX_GRID_POINTS {
        return wrong(format!("{form}: a grid has at most 2³² − 1 = {MAX_GRID_POINTS} points"));
    }
    if n == 1 && a != b {
        return wrong(format!(
            "{form} is a grid of one point from a to b (b would be dropped): give n ≥ 2 or a fixed value"
        ));
    }
    if log && !(b / a).is_normal() {
        return wrong(format!(
            "{form}: the ratio b/a = {:e} of its ends over- or underflows, so its values would be infinite or 0; narrow it",
            b / a
        ));
    }
    if !log && !(b - a).is_finite() {
        let what = if n > 0 {
            "its step (b − a)/(n − 1)"
        } else {
            "its span b − a"
        };
        return wrong(format!(
            "{form}: {what} overflows (b − a is beyond the largest number, about 1.8e308), so its values would be infinite or NaN; narrow it"
        ));
    }
    Ok(())
}

/// A 64-bit word w as w / 2⁶⁴ ∈ [0, 1), to the 53 bits of an f64.
fn unit(word: u64) -> f64 {
    (word >> 11) as f64 / (1u64 << 53) as f64
}

/// Coordinate `dimension` of Sobol point `index` as a 64-bit word: the XOR of the direction
/// numbers v_j over the set bits j of the Gray code index ⊕ (index ≫ 1) (the sequence the
/// `sobol` crate iterates, point 0 = 0).
fn sobol(index: u64, dimension: usize) -> u64 {
    static DIRECTIONS: OnceLock<Vec<Vec<u64>>> = OnceLock::new();
    let directions = DIRECTIONS.get_or_init(|| {
        let params = sobol::params::JoeKuoD6::minimal();
        sobol::Sobol::<f64>::init_direction_vals::<u32>(SOBOL_DIMENSIONS, 64, &params)
    });
    let gray = index ^ (index >> 1);
    (0..64)
        .filter(|j| gray >> j & 1 == 1)
        .fold(0u64, |x, j| x ^ directions[dimension][j])
}

/// Kensler's hashed permutation of [0, n) ("Correlated Multi-Jittered Sampling", Pixar 2013):
/// index i's image under the permutation keyed by `key`, by invertible integer hashing of the
/// bits below n's next power of two, cycle-walking until the image is below n.
pub fn permute(mut i: u32, n: u32, key: u32) -> u32 {
    if n == 0 {
        return 0;
    }
    let mut w = n.wrapping_sub(1);
    w |= w >> 1;
    w |= w >> 2;
    w |= w >> 4;
    w |= w >> 8;
    w |= w >> 16;
    loop {
        i ^= key;
        i = i.wrapping_mul(0xe170_893d);
        i ^= key >> 16;
        i ^= (i & w) >> 4;
        i ^= key >> 8;
        i = i.wrapping_mul(0x0929_eb3f);
        i ^= key >> 23;
        i ^= (i & w) >> 1;
        i = i.wrapping_mul(1 | key >> 27);
        i = i.wrapping_mul(0x6935_fa69);
        i ^= (i & w) >> 11;
        i = i.wrapping_mul(0x74dc_b303);
        i ^= (i & w) >> 2;
        i = i.wrapping_mul(0x9e50_1cc3);
        i ^= (i & w) >> 2;
        i = i.wrapping_mul(0xc860_a3df);
        i &= w;
        i ^= i >> 5;
        if i < n {
            break;
        }
    }
    ((u64::from(i) + u64::from(key)) % u64::from(n)) as u32
}

#[cfg(test)]
mod tests;
