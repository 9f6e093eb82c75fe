//! The broad phase by sorting (S. Green, "Particle Simulation using CUDA", NVIDIA 2010): bodies
//! sorted by the key of their cell in a uniform grid of cells s = 2 R_max + δ wide, so that a
//! pair within the margin δ lies in neighbouring cells; each body then scans its 3^d cells.
//! The candidate pairs come out sorted by pair key, whatever the thread count.

use rayon::prelude::*;

use super::bodies::Bodies;
use super::walls::Wall;
use crate::{Error, Result};

/// A candidate contact: bodies i < j, or body i and wall j − N (j ≥ N, N bodies), so that
/// ordering pairs by (i, j) orders them by pair key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pair {
    /// The body of lower id.
    pub i: u32,
    /// The other body, or N + the wall's index.
    pub j: u32,
}

impl Pair {
    /// The pair key (i, j) as one integer, i in the high half.
    pub fn key(self) -> u64 {
        (u64::from(self.i) << 32) | u64::from(self.j)
    }
}

/// The uniform grid over the bodies' bounding box (along a periodic x, over [0, L) in a
/// whole number of cells, at least 3, so that the neighbours across the period are distinct).
pub(crate) struct Grid {
    /// The corner of cell (0, 0, 0) (m).
    pub origin: [f64; 3],
    /// The cells' widths (m).
    pub cell: [f64; 3],
    /// The cells along each axis.
    pub cells: [u64; 3],
    /// Whether x is periodic.
    pub periodic: bool,
}

/// The bounding box [lo, hi] of the centres of `bodies` along their dimension's axes (0 on
/// the others).
pub(crate) fn bodies_box(bodies: &Bodies) -> [[f64; 3]; 2] {
    let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
    for k in 0..bodies.dimension.rows() {
        lo[k] = bodies.x.iter().fold(f64::INFINITY, |a, x| a.min(x[k]));
        hi[k] = bodies.x.iter().fold(f64::NEG_INFINITY, |a, x| a.max(x[k]));
    }
    [lo, hi]
}

impl Grid {
    /// Cells of width ≥ `cell` over the bounding box of the centres, along the dimension's axes.
    pub fn new(bodies: &Bodies, cell: f64) -> Result<Self> {
        Self::over(bodies_box(bodies), bodies, cell)
    }

    /// Cells of width ≥ `cell` over the box `[lo, hi]` of the centres of `bodies` (their
    /// dimension's axes, their period).
    pub fn over([mut lo, hi]: [[f64; 3]; 2], bodies: &Bodies, cell: f64) -> Result<Self> {
        let axes = bodies.dimension.rows();
        let mut cells = [1u64; 3];
        let mut width = [cell; 3];
        for k in 0..axes {
            cells[k] = ((hi[k] - lo[k]) / cell).floor() as u64 + 1;
        }
        if let Some(l) = bodies.period {
            let across = (l / cell).floor();
            if across < 3.0 {
                return Err(Error::Unsupported {
                    what: format!("large scene: a period of {l:e} m"),
                    reason: format!("must hold 3 cells of 2 R_max + δ = {cell:e} m (the nearest image must be unique)"),
                });
            }
            (lo[0], cells[0], width[0]) = (0.0, across as u64, l / across);
        }
        let total = cells.iter().try_fold(1u64, |a, &c| a.checked_mul(c));
        if total.is_none_or(|t| t >= u64::MAX / 2) || !lo.iter().chain(&hi).all(|c| c.is_finite()) {
            return Err(Error::Unsupported {
                what: format!("large scene: a grid of {cell:e} m cells over the bodies' box {lo:?}–{hi:?}"),
                reason: "its cells overflow a 64-bit key (a body far from the others, or a non-finite centre)".into(),
            });
        }
        Ok(Self {
            origin: lo,
            cell: width,
            cells,
            periodic: bodies.period.is_some(),
        })
    }

    /// The cell coordinates of a centre.
    fn coordinates(&self, x: [f64; 3]) -> [u64; 3] {
        std::array::from_fn(|k| {
            (((x[k] - self.origin[k]) / self.cell[k]).floor().max(0.0) as u64).min(self.cells[k] - 1)
        })
    }

    /// The linear key of a cell, x fastest.
    fn key(&self, c: [u64; 3]) -> u64 {
        (c[2] * self.cells[1] + c[1]) * self.cells[0] + c[0]
    }
}

/// Bodies whose candidate pairs one task finds: the pairs are collected per task, not per body.
const TASK: usize = 1024;

/// The pairs whose gap is at most `margin` δ — body–body g = ‖x_j − x_i‖ − R_i − R_j, and
/// body–wall by [`super::walls::Shape::contact`] — sorted by pair key. Tasks of 1024
/// consecutive bodies find their partners in parallel; their lists are concatenated in id
/// order, so the list never depends on the thread count.
pub fn candidate_pairs(bodies: &Bodies, walls: &[Wall], margin: f64) -> Result<Vec<Pair>> {
    let n = bodies.len();
    if n == 0 {
        return Ok(Vec::new());
    }
    let grid = Grid::new(bodies, 2.0 * bodies.max_radius() + margin)?;
    let mut sorted: Vec<(u64, u32)> = (0..n)
        .into_par_iter()
        .filter(|&b| bodies.present[b])
        .map(|b| (grid.key(grid.coordinates(bodies.x[b])), b as u32))
        .collect();
    sorted.par_sort_unstable();
    let tasks: Vec<Vec<Pair>> = (0..n.div_ceil(TASK))
        .into_par_iter()
        .map(|task| {
            let (mut pairs, mut found) = (Vec::new(), Vec::new());
            for i in task * TASK..n.min((task + 1) * TASK) {
                if bodies.present[i] {
                    partners(bodies, walls, margin, (&grid, &sorted), i, &mut found);
                    pairs.extend(found.iter().map(|&j| Pair { i: i as u32, j }));
                }
            }
            pairs
        })
        .collect();
    Ok(tasks.concat())
}

/// Body i's partners within `margin` into `found`: the bodies j > i in its 3^d neighbouring
/// cells of `grid` (`sorted`: the bodies by cell key), in increasing order, then the walls
/// as N + their index. A row of neighbouring cells along x has consecutive keys: one search
/// of `sorted` per row (two where it wraps around a periodic x).
fn partners(
    bodies: &Bodies,
    walls: &[Wall],
    margin: f64,
    (grid, sorted): (&Grid, &[(u64, u32)]),
    i: usize,
    found: &mut Vec<u32>,
) {
    let n = bodies.len();
    let reach: [i64; 3] = std::array::from_fn(|k| i64::from(k < bodies.dimension.rows()));
    let (xi, ri) = (bodies.x[i], bodies.radius[i]);
    let c = grid.coordinates(xi);
    found.clear();
    for dz in -reach[2]..=reach[2] {
        for dy in -reach[1]..=reach[1] {
            for [lo, hi] in row_runs(grid, c, [reach[0], dy, dz]).into_iter().flatten() {
                let start = sorted.partition_point(|&(k, _)| k < lo);
                for &(_, j) in sorted[start..].iter().take_while(|&&(k, _)| k <= hi) {
                    if (j as usize) > i && gap(bodies, i, j as usize) <= margin {
                        found.push(j);
                    }
                }
            }
        }
    }
    found.sort_unstable();
    for (w, wall) in walls.iter().enumerate() {
        if wall.shape.contact(xi, ri).is_some_and(|(g, _)| g <= margin) {
            found.push((n + w) as u32);
        }
    }
}

/// The cells from x − `d`\[0\] to x + `d`\[0\] of the row at offset (`d`\[1\], `d`\[2\])
/// from cell `c`, as at most two runs of consecutive keys [lo, hi]: clipped to the grid, or
/// two where the row wraps around a periodic x (at least 3 cells, so the runs are apart);
/// none where the row is off the grid.
fn row_runs(grid: &Grid, c: [u64; 3], d: [i64; 3]) -> [Option<[u64; 2]>; 2] {
    let Some(row) = neighbour(grid, c, [0, d[1], d[2]]) else {
        return [None, None];
    };
    let (x, reach, cells) = (row[0], d[0] as u64, grid.cells[0]);
    let key = |x: u64| grid.key([x, row[1], row[2]]);
    if !grid.periodic || (reach <= x && x + reach < cells) {
        return [
            Some([key(x.saturating_sub(reach)), key((x + reach).min(cells - 1))]),
            None,
        ];
    }
    // Wrapped around the period: [x − reach, end of the row] and [start of the row, x + reach].
    let (lo, hi) = ((x + cells - reach) % cells, (x + reach) % cells);
    [Some([key(lo), key(cells - 1)]), Some([key(0), key(hi)])]
}

/// The cell at offset `d` from `c`, if inside the grid (wrapped along a periodic x).
fn neighbour(grid: &Grid, c: [u64; 3], d: [i64; 3]) -> Option<[u64; 3]> {
    let mut out = [0u64; 3];
    for k in 0..3 {
        let mut x = c[k] as i64 + d[k];
        if k == 0 && grid.periodic {
            x = x.rem_euclid(grid.cells[0] as i64);
        }
        if x < 0 || x as u64 >= grid.cells[k] {
            return None;
        }
        out[k] = x as u64;
    }
    Some(out)
}

/// The gap ‖x_j − x_i‖ − R_i − R_j of two bodies (through the period, if any).
pub fn gap(bodies: &Bodies, i: usize, j: usize) -> f64 {
    let d = bodies.separation(i, j);
    crate::contact::vector::dot(d, d).sqrt() - bodies.radius[i] - bodies.radius[j]
}
