//! A batch interleaved: identical scenes in component-major order, as the GPU kernel reads
//! them coalesced.

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
        let spread = |packed: &[f64], len: usize| {
            let mut out = vec![0.0; packed.len()];
            for s in 0..count {
                for k in 0..len {
                    out[k * count + s] = packed[s * len + k];
                }
            }
            out
        };
        let headers = (0..count)
            .map(|s| SceneHeader {
                state_offset: s as u32,
                operator_offset: s as u32,
                ..first
            })
            .collect();
        Some(Interleaved {
            headers,
            state: spread(&self.state, SceneHeader::state_len(n)),
            operators: spread(&self.operators, first.operators()),
            stride: count,
        })
    }

    /// An interleaved state array put back in this batch's packed order.
    pub fn deinterleave_state(&self, interleaved: &[f64]) -> Vec<f64> {
        let (count, len) = (self.len(), self.state.len() / self.len().max(1));
        let mut out = vec![0.0; self.state.len()];
        for s in 0..count {
            for k in 0..len {
                out[s * len + k] = interleaved[k * count + s];
            }
        }
        out
    }
}
