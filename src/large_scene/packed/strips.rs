//! The order in which an NSGS sweep visits the packed colours' blocks: by strips of body
//! ids, colour k of strip s at stage s + 2k — sparse tiling of a multicoloured Gauss–Seidel
//! sweep (Strout, Carter, Ferrante & Kreaseck, "Sparse tiling for stationary iterative
//! methods", IJHPCA 18:95, 2004). Colour after colour, a large scene's sweep streams every
//! body through the cache once per colour; by strips, a strip's bodies are still in cache
//! when its next colour comes, a stage later.
//!
//! A contact's strip is its body i's, i div w; a block holds contacts of one strip. With
//! strips wider than any contact's reach j − i, a body b is touched only by contacts of its
//! strip and the one before, so two contacts that share a body lie in the same or adjacent
//! strips, and colour k of strip s goes to stage s + 2k: for two contacts that share a body,
//! of colours a < b, stage s_b + 2b > s_a + 2a, so the sweep meets them in the colours'
//! order and gives the same bits; and a stage's colours lie two or more strips apart, so
//! they share no body and are relaxed at once (one parallel loop a stage). Where a colour's
//! contacts do not come in order of i there is one strip: colour after colour.

use std::ops::Range;

use super::Contact;

/// Body ids per strip, at least (wider where a contact reaches farther): on the development
/// machine (1 MB of L2 per core, 32 MB of L3), the 10⁶-disc pyramid (reach 1414, 10
/// colours), `ricochet bench` with 3 steps of 20 sweeps, rounds alternated on a noisy
/// machine, one thread: 2048 ids 8.2–8.5 s, 4096 8.3–9.4 s, one strip 12.0–12.9 s; two
/// threads: 2048 5.8–9.1 s, 4096 5.3–8.1 s, one strip 7.3–8.5 s.
pub const TILE: usize = 4096;

/// Scenes of fewer bodies sweep in one strip: their bodies (72 bytes each) stay in the L3
/// cache, and strips only add stages, each a parallel loop: on the development machine the
/// 10⁵-disc pyramid (10 steps, two threads) ran 2.9–3.3 s in strips of 4096 against
/// 2.7–3.1 s in one.
pub const STRIPS_FROM: usize = 250_000;

/// The tile for a scene of `bodies` bodies: [`TILE`], or one strip below [`STRIPS_FROM`].
pub fn tile(bodies: usize) -> usize {
    if bodies < STRIPS_FROM { usize::MAX } else { TILE }
}

/// The strips of a packing: each colour's active contacts split by the strip of their body
/// i, each strip's packed into blocks of its own.
#[derive(Clone, Debug, Default)]
pub struct Strips {
    /// Body ids per strip.
    width: usize,
    /// Strips (1: colour after colour).
    count: usize,
    /// Colour k's strip s is blocks `bounds[k (count + 1) + s]..bounds[k (count + 1) + s + 1]`.
    pub(super) bounds: Vec<usize>,
}

impl Strips {
    /// Plans strips of at least `tile` body ids, wider than the farthest reach j − i of an
    /// active contact of `colours` between two of the `bodies` bodies; one strip unless each
    /// colour's active contacts come in order of body i. The bounds are left to the packing.
    pub(super) fn plan(&mut self, contacts: &[Contact], colours: &[Range<usize>], bodies: usize, tile: usize) {
        let (mut reach, mut top, mut ordered) = (0usize, 0usize, true);
        for range in colours {
            let mut last = 0;
            for c in contacts[range.clone()].iter().filter(|c| c.active) {
                let (i, j) = (c.pair.i as usize, c.pair.j as usize);
                ordered &= i >= last;
                (last, top) = (i, top.max(i));
                if j < bodies {
                    reach = reach.max(j.saturating_sub(i));
                }
            }
        }
        self.width = tile.max(reach + 1);
        self.count = if ordered { top / self.width + 1 } else { 1 };
        self.bounds.clear();
    }

    /// The strip of a contact whose body i is `i`.
    pub(super) fn of(&self, i: u32) -> usize {
        (i as usize / self.width).min(self.count - 1)
    }

    /// The strips planned.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The stages between a strip's colours: 2 (one strip: 1, colour k at stage k).
    fn skew(&self) -> usize {
        if self.count == 1 { 1 } else { 2 }
    }

    /// The stages of a sweep (none without colours).
    pub(super) fn stages(&self) -> usize {
        let colours = self.bounds.len() / (self.count + 1);
        if colours == 0 {
            0
        } else {
            self.count + self.skew() * (colours - 1)
        }
    }

    /// Stage t's blocks: colour k's strip t − 2k (t − k in one strip) for each colour k (empty
    /// ranges left out). No two of them share a body, so they may be relaxed at once.
    pub(super) fn stage(&self, t: usize) -> impl Iterator<Item = Range<usize>> + '_ {
        let (n, skew) = (self.count, self.skew());
        let colours = self.bounds.len() / (n + 1);
        (0..colours)
            .filter_map(move |k| {
                let s = t.checked_sub(skew * k).filter(|&s| s < n)?;
                let at = k * (n + 1) + s;
                Some(self.bounds[at]..self.bounds[at + 1])
            })
            .filter(|r| !r.is_empty())
    }
}
