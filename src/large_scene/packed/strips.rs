//! The order in which an NSGS sweep visits the packed colours' blocks: by strips of body
//! ids, colour k of strip s at stage s + k — sparse tiling of a multicoloured Gauss–Seidel
//! sweep (Strout, Carter, Ferrante & Kreaseck, "Sparse tiling for stationary iterative
//! methods", IJHPCA 18:95, 2004). Colour after colour, a large scene's sweep streams every
//! body through the cache once per colour; by strips, a strip's bodies are still in cache
//! when its next colour comes, a stage later.
//!
//! A contact's strip is its body i's, i div w; a block holds contacts of one strip. The order
//! is the colours' own for every two contacts that share a body, so the sweep gives the same
//! bits: with strips wider than any contact's reach j − i, a body b is touched only by
//! contacts of its strip and the one before, so two contacts that share it lie in the same
//! or adjacent strips; the earlier colour a < b then comes at stage s_a + a ≤ s_b + b, and
//! within a stage the colours go in order. Where a colour's contacts do not come in order of
//! i there is one strip: colour after colour.

use std::ops::Range;

use super::Contact;

/// Body ids per strip, at least (wider where a contact reaches farther): on the development
/// machine (1 MB of L2 per core, 32 MB of L3), the 10⁶-disc pyramid (reach 1414, 10
/// colours), one thread, release, `ricochet bench` with 3 steps of 20 sweeps, two alternated
/// rounds: one strip 11.4 s; 2048 ids 8.3–8.8 s, 4096 8.1–9.3 s, 8192 8.9–12.2 s, 16384
/// 10.2–12.6 s.
pub const TILE: usize = 4096;

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

    /// The blocks' ranges in sweep order: at stage t, colour k's strip t − k, for k in order
    /// (empty ranges left out).
    pub(super) fn order(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        let n = self.count;
        let colours = self.bounds.len() / (n + 1);
        (0..(n + colours).saturating_sub(1))
            .flat_map(move |t| {
                (0..colours).filter_map(move |k| {
                    let s = t.checked_sub(k).filter(|&s| s < n)?;
                    let at = k * (n + 1) + s;
                    Some(self.bounds[at]..self.bounds[at + 1])
                })
            })
            .filter(|r| !r.is_empty())
    }
}
