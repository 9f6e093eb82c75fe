//! A batch interleaved: identical scenes in component-major order, as the GPU kernel reads
//! them coalesced.

use rayon::prelude::*;

use super::layout::SceneHeader;
use super::scene_batch::SceneBatch;

/// A batch of identical-size scenes in component-major order: value k of scene s at
/// `k · stride + s`, so that neighbouring invocations read neighbouring addresses (coalesced
/// loads on GPUs, vector loads on lavapipe).
#[derive(Clone, Debug, PartialEq)]
pub struct Interleaved {
    /// Headers whose offsets are the scene index (the rows the first scene's, shared by all).
    pub headers: Vec<SceneHeader>,
    /// q then v, interleaved.
    pub state: Vec<f64>,
    /// The operators, interleaved.
    pub operators: Vec<f64>,
    /// The number of scenes.
    pub stride: usize,
}

impl SceneBatch {
    /// The batch interleaved, when all its scenes have the same sizes, flags, rows and
    /// patterns.
    pub fn interleave(&self) -> Option<Interleaved> {
        let first = *self.headers.first()?;
        let same = |h: &SceneHeader| {
            (h.ndof, h.ncontacts, h.flags) == (first.ndof, first.ncontacts, first.flags)
                && self.structure_of(h) == self.structure_of(&first)
        };
        if !self.headers.iter().all(same) {
            return None;
        }
        let (n, count) = (first.ndof as usize, self.len());
        let headers = (0..count)
            .map(|s| SceneHeader {
                state_offset: s as u32,
                operator_offset: s as u32,
                ..first
            })
            .collect();
        Some(Interleaved {
            headers,
            state: spread(&self.state, SceneHeader::state_len(n), count),
            operators: spread(&self.operators, first.operators(), count),
            stride: count,
        })
    }

    /// An interleaved state array put back in this batch's packed order: `out[s · len + k] =
    /// interleaved[k · count + s]`, blocks of scenes on all cores.
    pub fn deinterleave_state(&self, interleaved: &[f64]) -> Vec<f64> {
        let (count, len) = (self.len(), self.state.len() / self.len().max(1));
        let mut out = vec![0.0; self.state.len()];
        if len > 0 {
            out.par_chunks_mut(BLOCK * len).enumerate().for_each(|(b, scenes)| {
                for (i, scene) in scenes.chunks_exact_mut(len).enumerate() {
                    let s = b * BLOCK + i;
                    for (k, x) in scene.iter_mut().enumerate() {
                        *x = interleaved[k * count + s];
                    }
                }
            });
        }
        out
    }
}

/// Components (or scenes) one task of a transpose takes: 8 values are a 64-byte cache line.
const BLOCK: usize = 8;

/// `packed` (`count` scenes of `len` values each) in component-major order: `out[k · count +
/// s] = packed[s · len + k]`. Blocks of [`BLOCK`] components on all cores: each reads a
/// scene's block as one short run and writes its components as sequential streams.
fn spread(packed: &[f64], len: usize, count: usize) -> Vec<f64> {
    let mut out = vec![0.0; packed.len()];
    if count > 0 {
        out.par_chunks_mut(BLOCK * count).enumerate().for_each(|(b, rows)| {
            let first = b * BLOCK;
            let width = rows.len() / count;
            for s in 0..count {
                let from = &packed[s * len + first..s * len + first + width];
                for (r, &x) in from.iter().enumerate() {
                    rows[r * count + s] = x;
                }
            }
        });
    }
    out
}
