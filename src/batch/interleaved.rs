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
            state: transpose(&self.state, count, SceneHeader::state_len(n)),
            operators: transpose(&self.operators, count, first.operators()),
            stride: count,
        })
    }

    /// An interleaved state array put back in this batch's packed order: `out[s · len + k] =
    /// interleaved[k · count + s]`.
    pub fn deinterleave_state(&self, interleaved: &[f64]) -> Vec<f64> {
        let (count, len) = (self.len(), self.state.len() / self.len().max(1));
        transpose(interleaved, len, count)
    }
}

/// Output rows one task of a transpose takes: 8 values are a 64-byte cache line.
const BLOCK: usize = 8;

/// `values` (at least `rows` × `columns`, row-major) transposed: `out[c · rows + r] =
/// values[r · columns + c]`. Blocks of [`BLOCK`] output rows on all cores: each reads a run
/// of [`BLOCK`] values per input row and writes its rows as sequential streams.
fn transpose(values: &[f64], rows: usize, columns: usize) -> Vec<f64> {
    let mut out = vec![0.0; rows * columns];
    if rows > 0 && columns > 0 {
        out.par_chunks_mut(BLOCK * rows).enumerate().for_each(|(b, block)| {
            let first = b * BLOCK;
            let width = block.len() / rows;
            for r in 0..rows {
                let from = &values[r * columns + first..r * columns + first + width];
                for (i, &x) in from.iter().enumerate() {
                    block[i * rows + r] = x;
                }
            }
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::transpose;

    #[test]
    fn transposes_any_shape_and_back() {
        for (rows, columns) in [(1, 1), (3, 17), (17, 3), (9, 8), (64, 5), (0, 4)] {
            let values: Vec<f64> = (0..rows * columns).map(|i| i as f64).collect();
            let out = transpose(&values, rows, columns);
            for r in 0..rows {
                for c in 0..columns {
                    assert_eq!(out[c * rows + r], values[r * columns + c], "{rows}×{columns}");
                }
            }
            assert_eq!(transpose(&out, columns, rows), values);
        }
    }
}
