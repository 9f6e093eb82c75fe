//! A colour's active contacts packed [`WIDTH`] to a block, each value's lanes side by side
//! (as Box2D v3's wide contact constraints, `contact_solver.c`): the NSGS sweep of a colour
//! relaxes a block's contacts in one loop over its lanes, their bodies gathered from and
//! scattered back to the bodies' array around it, so that the compiler vectorises the loop
//! (the lanes' values lie in consecutive memory; the local solve's cases are selects). A
//! colour's contacts share no body, so the lanes never touch one body twice, and each lane
//! runs the operations of the sweep one contact at a time (`solve::relax`): the same
//! bits, in any instruction set. The packing is made once per solve (activation does not
//! change during the sweeps), so that a sweep reads each contact's 18 values from one
//! contiguous block instead of its whole [`Contact`].

use std::array::from_fn;
use std::ops::Range;

use rayon::prelude::*;

use super::bodies::Dimension;
use super::local::local_impulse;
use super::narrow_phase::{Contact, End, Moving, frame_velocity, push};
use super::residual::square;
use crate::batch::cpu::simd::{Isa, Simd};

mod shared;
mod strips;
pub use shared::Shared;
pub use strips::{STRIPS_FROM, Strips, TILE, tile};

/// Contacts per block: measured fastest of 2, 4 and 8 on the development machine (AVX2:
/// one register of f64 per value).
pub const WIDTH: usize = 4;

/// The blocks of a colour one task relaxes (a colour of fewer is relaxed on one thread): 64
/// (256 contacts) against 16, two threads, release: the 990-disc pyramid 3.9·10⁷ against
/// 2.6–3.0·10⁷ contact-it/s, the hopper's run 0.84–0.87 against 0.92–0.98 s, 10⁴ and 10⁵
/// discs within the noise.
const PARALLEL_MIN: usize = 64;

/// One value of each lane.
type Wide = [f64; WIDTH];

/// The lanes' bodies, value by value: v (3), ω (3), 1/m, R/I, R.
type BodyLanes = [Wide; 9];

/// Up to [`WIDTH`] active contacts of one colour, each value's lanes side by side. Lanes
/// past `len` repeat lane 0's contact: they are computed and never written back.
#[derive(Clone, Copy, Debug)]
pub struct Block {
    /// The contacts' indices in the coloured contacts.
    contact: [u32; WIDTH],
    /// Their bodies i.
    i: [u32; WIDTH],
    /// Their bodies j (body i's index where j is a wall).
    j: [u32; WIDTH],
    /// Whether j is a wall.
    wall: [bool; WIDTH],
    /// The lanes in use.
    len: usize,
    /// The frames [n, t₁, t₂], component by component.
    frame: [[Wide; 3]; 3],
    /// The blocks (w_N, w_T).
    w: [Wide; 2],
    /// μ.
    mu: Wide,
    /// ê.
    target: [Wide; 3],
    /// r, updated by each sweep.
    r: [Wide; 3],
}

impl Block {
    /// The active contacts `indices` (1 to [`WIDTH`]) of `contacts`, among `bodies` bodies
    /// (a larger j is a wall).
    fn pack(contacts: &[Contact], indices: &[usize], bodies: usize) -> Self {
        let mut block = Self {
            contact: [0; WIDTH],
            i: [0; WIDTH],
            j: [0; WIDTH],
            wall: [false; WIDTH],
            len: indices.len(),
            frame: [[[0.0; WIDTH]; 3]; 3],
            w: [[0.0; WIDTH]; 2],
            mu: [0.0; WIDTH],
            target: [[0.0; WIDTH]; 3],
            r: [[0.0; WIDTH]; 3],
        };
        for l in 0..WIDTH {
            let k = indices[if l < indices.len() { l } else { 0 }];
            let c = &contacts[k];
            let wall = c.pair.j as usize >= bodies;
            block.contact[l] = k as u32;
            block.i[l] = c.pair.i;
            block.j[l] = if wall { c.pair.i } else { c.pair.j };
            block.wall[l] = wall;
            for a in 0..3 {
                for (axis, frame) in block.frame.iter_mut().enumerate() {
                    frame[a][l] = c.frame[axis][a];
                }
                block.target[a][l] = c.target[a];
                block.r[a][l] = c.r[a];
            }
            block.w[0][l] = c.w[0];
            block.w[1][l] = c.w[1];
            block.mu[l] = c.law.mu();
        }
        block
    }

    /// NSGS's update of its contacts, `solve::relax` in each lane: the bodies
    /// gathered into lanes, each lane's new impulse by [`local_impulse`] and its bodies
    /// kicked by the change Δr, the bodies scattered back; each contact's light error terms
    /// (‖Δr‖², ‖r‖²) to `terms`.
    ///
    /// `SPHERES` is the dimension (false: discs, 2-D; true: spheres, 3-D), a constant so that
    /// the lanes' loop holds one local solve. With `JACOBI`, Jacobi's update instead
    /// (the parallel loop of `jacobi::sweep`): the new impulses from the bodies as they
    /// are, each Δr to `delta`, no body written.
    ///
    /// # Safety
    /// No other thread may hold the block's contacts' terms (and Δr), nor, without `JACOBI`,
    /// its bodies (the blocks relaxed at once are of one colour); with `JACOBI` no thread
    /// may be writing a body.
    #[inline(always)]
    unsafe fn relax<const SPHERES: bool, const JACOBI: bool>(
        &mut self,
        bodies: &Shared<Moving>,
        (terms, delta): (&Shared<[f64; 2]>, &Shared<[f64; 3]>),
    ) {
        let dimension = if SPHERES { Dimension::Three } else { Dimension::Two };
        let (mut bi, mut bj): (BodyLanes, BodyLanes) = ([[0.0; WIDTH]; 9], [[0.0; WIDTH]; 9]);
        for l in 0..WIDTH {
            // SAFETY: the lanes' bodies are the caller's alone (and lanes past `len` repeat
            // lane 0's, read here and never written).
            let (i, j) = unsafe { (bodies.read(self.i[l] as usize), bodies.read(self.j[l] as usize)) };
            // (A disc's v_z, ω_x and ω_y are +0 and stay +0 through every kick, +0 + ±0 being
            // +0: they are neither read nor written back.)
            let values = |m: Moving| {
                let (v, w) = (m.v, m.omega);
                let (z, x, y) = if SPHERES { (v[2], w[0], w[1]) } else { (0.0, 0.0, 0.0) };
                debug_assert!(SPHERES || [v[2], w[0], w[1]].iter().all(|c| c.to_bits() == 0));
                [v[0], v[1], z, x, y, w[2], m.inverse_mass, m.spin_per_impulse, m.radius]
            };
            let (vi, vj) = (values(i), values(j));
            for k in 0..9 {
                (bi[k][l], bj[k][l]) = (vi[k], vj[k]);
            }
        }
        let (mut change, mut dr) = ([[0.0; WIDTH]; 2], [[0.0; WIDTH]; 3]);
        for l in 0..WIDTH {
            let body = |b: &BodyLanes| Moving {
                v: [b[0][l], b[1][l], b[2][l]],
                omega: [b[3][l], b[4][l], b[5][l]],
                inverse_mass: b[6][l],
                spin_per_impulse: b[7][l],
                radius: b[8][l],
            };
            let (mut i, mut j) = (body(&bi), body(&bj));
            // (Indexed, not `map`ped: `map` copies the whole arrays in every lane.)
            let frame: [[f64; 3]; 3] = from_fn(|k| from_fn(|a| self.frame[k][a][l]));
            let pj = j.point(frame[0], End::J);
            let pj = if self.wall[l] { [0.0; 3] } else { pj };
            let u = frame_velocity(&frame, i.point(frame[0], End::I), pj);
            let old = [self.r[0][l], self.r[1][l], self.r[2][l]];
            let target = [self.target[0][l], self.target[1][l], self.target[2][l]];
            let block = ([self.w[0][l], self.w[1][l]], self.mu[l]);
            let r = local_impulse(dimension, u, (target, old), block);
            let d = [r[0] - old[0], r[1] - old[1], r[2] - old[2]];
            if !JACOBI {
                let pushed = push(&frame, d);
                i.kick(pushed, End::I);
                j.kick(pushed, End::J);
            }
            for a in 0..3 {
                self.r[a][l] = r[a];
                dr[a][l] = d[a];
                (bi[a][l], bi[3 + a][l]) = (i.v[a], i.omega[a]);
                (bj[a][l], bj[3 + a][l]) = (j.v[a], j.omega[a]);
            }
            (change[0][l], change[1][l]) = (square(d), square(r));
        }
        for l in 0..self.len {
            let scatter = |at: u32, b: &BodyLanes| {
                // SAFETY: as the gather's.
                let body = unsafe { bodies.at(at as usize) };
                if SPHERES {
                    body.v = [b[0][l], b[1][l], b[2][l]];
                    body.omega = [b[3][l], b[4][l], b[5][l]];
                } else {
                    (body.v[0], body.v[1], body.omega[2]) = (b[0][l], b[1][l], b[5][l]);
                }
            };
            if JACOBI {
                // SAFETY: each contact is in one block.
                unsafe { *delta.at(self.contact[l] as usize) = [dr[0][l], dr[1][l], dr[2][l]] };
            } else {
                scatter(self.i[l], &bi);
                if !self.wall[l] {
                    scatter(self.j[l], &bj);
                }
            }
            // SAFETY: each contact is in one block.
            unsafe { *terms.at(self.contact[l] as usize) = [change[0][l], change[1][l]] };
        }
    }
}

/// The proper colours' active contacts in blocks ([`Block`]), each colour's by strip
/// ([`Strips`]).
#[derive(Clone, Debug, Default)]
pub struct Packed {
    blocks: Vec<Block>,
    indices: Vec<usize>,
    strips: Strips,
    tasks: Vec<Range<usize>>,
}

impl Packed {
    /// Packs the active contacts of each of `colours` (ranges of `contacts`; for NSGS each
    /// proper: no two of its contacts share a body), among `bodies` bodies, in strips of at
    /// least `tile` body ids where each colour's contacts come in order of body i (else in
    /// one, [`Strips`]).
    pub fn pack(&mut self, contacts: &[Contact], colours: &[Range<usize>], bodies: usize, tile: usize) {
        self.blocks.clear();
        self.strips.plan(contacts, colours, bodies, tile);
        for range in colours {
            self.indices.clear();
            self.indices.extend(range.clone().filter(|&k| contacts[k].active));
            let mut rest = &self.indices[..];
            for s in 0..self.strips.count() {
                let (strip, after) = rest.split_at(rest.partition_point(|&k| self.strips.of(contacts[k].pair.i) <= s));
                self.strips.bounds.push(self.blocks.len());
                self.blocks
                    .extend(strip.chunks(WIDTH).map(|lanes| Block::pack(contacts, lanes, bodies)));
                rest = after;
            }
            self.strips.bounds.push(self.blocks.len());
        }
    }

    /// The strips the sweep goes by.
    pub fn strips(&self) -> &Strips {
        &self.strips
    }

    /// One NSGS sweep of the packed colours by `Block::relax` on `simd`, stage after stage
    /// of the strips ([`Strips`]), each stage's blocks in parallel (64 blocks a task):
    /// for every two contacts that share a body the colours' order, so the bits of relaxing
    /// colour after colour.
    ///
    /// # Safety
    /// `bodies` and `terms` are held by no one else and the packed colours are proper.
    pub unsafe fn relax_sweep(
        &mut self,
        simd: Simd,
        dimension: Dimension,
        (bodies, terms): (&Shared<Moving>, &Shared<[f64; 2]>),
    ) {
        let Self {
            blocks, strips, tasks, ..
        } = self;
        let (blocks, none) = (Shared::new(blocks), &Shared::new(&mut []));
        for t in 0..strips.stages() {
            tasks.clear();
            for r in strips.stage(t) {
                tasks.extend(r.clone().step_by(PARALLEL_MIN).map(|a| a..r.end.min(a + PARALLEL_MIN)));
            }
            tasks.par_iter().for_each(|task| {
                // SAFETY: the caller's; the tasks' blocks are disjoint and share no contact
                // nor body (a stage's colours share none, [`Strips::stage`]).
                unsafe { relax_blocks::<false>(simd, blocks.slice(task.clone()), dimension, (bodies, terms, none)) }
            });
        }
    }

    /// Jacobi's new impulses of every packed contact from the bodies as they are (each
    /// block's w the split one, [`Self::split`]), in parallel on `simd`, each block by
    /// `Block::relax`: each Δr to `delta` and the terms to `terms`, no body written.
    ///
    /// # Safety
    /// `terms` and `delta` are held by no one else, and no one writes `bodies`.
    pub unsafe fn solve_jacobi(
        &mut self,
        simd: Simd,
        dimension: Dimension,
        out: (&Shared<Moving>, &Shared<[f64; 2]>, &Shared<[f64; 3]>),
    ) {
        self.blocks.par_chunks_mut(PARALLEL_MIN).for_each(|blocks| {
            // SAFETY: the caller's; a block's contacts are its own.
            unsafe { relax_blocks::<true>(simd, blocks, dimension, out) }
        });
    }

    /// Gives each packed contact the block `w[k]` of its index k (Jacobi's split blocks).
    pub fn split(&mut self, w: &[[f64; 2]]) {
        for b in &mut self.blocks {
            for l in 0..WIDTH {
                let [wn, wt] = w[b.contact[l] as usize];
                (b.w[0][l], b.w[1][l]) = (wn, wt);
            }
        }
    }

    /// Writes each packed contact's r back to `contacts`.
    pub fn unpack(&self, contacts: &mut [Contact]) {
        for b in &self.blocks {
            for l in 0..b.len {
                contacts[b.contact[l] as usize].r = [b.r[0][l], b.r[1][l], b.r[2][l]];
            }
        }
    }
}

/// [`Block::relax`] of each of `blocks`, compiled for the instruction set `simd`.
///
/// # Safety
/// As [`Block::relax`]'s, for every block.
unsafe fn relax_blocks<const JACOBI: bool>(
    simd: Simd,
    blocks: &mut [Block],
    dimension: Dimension,
    out: (&Shared<Moving>, &Shared<[f64; 2]>, &Shared<[f64; 3]>),
) {
    #[inline(always)]
    unsafe fn each<const JACOBI: bool>(
        blocks: &mut [Block],
        dimension: Dimension,
        (bodies, terms, delta): (&Shared<Moving>, &Shared<[f64; 2]>, &Shared<[f64; 3]>),
    ) {
        // (Plain loops: a closure might not take the caller's instruction set.)
        match dimension {
            Dimension::Two => {
                for b in blocks {
                    // SAFETY: the caller's.
                    unsafe { b.relax::<false, JACOBI>(bodies, (terms, delta)) }
                }
            }
            Dimension::Three => {
                for b in blocks {
                    // SAFETY: the caller's.
                    unsafe { b.relax::<true, JACOBI>(bodies, (terms, delta)) }
                }
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn avx2<const JACOBI: bool>(
        blocks: &mut [Block],
        dimension: Dimension,
        out: (&Shared<Moving>, &Shared<[f64; 2]>, &Shared<[f64; 3]>),
    ) {
        // SAFETY: the caller's.
        unsafe { each::<JACOBI>(blocks, dimension, out) }
    }
    match simd.isa() {
        // SAFETY: the caller's.
        Isa::Baseline => unsafe { each::<JACOBI>(blocks, dimension, out) },
        // SAFETY: a `Simd` names only an instruction set this CPU has; the rest the caller's.
        // (AVX-512 runs the AVX2 copy: compiled for it, the blocks gained 5–8 % at 10⁴ discs
        // and nothing at 10⁶, BENCHMARKS.md §4.11.)
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 | Isa::Avx512 => unsafe { avx2::<JACOBI>(blocks, dimension, out) },
    }
}

#[cfg(test)]
mod tests;
