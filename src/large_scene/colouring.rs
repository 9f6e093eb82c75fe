//! Greedy colouring of the candidate pairs, so that no two pairs of one colour share a
//! body (walls are static and constrain nothing): the pairs of a colour can then be solved
//! at once, and sweeping the colours in order is one sequential NSGS sweep in
//! (colour, pair key) order. Box2D v3 colours its constraint graph the same way
//! (erincatto/box2d, `src/constraint_graph.c`).

use super::broad_phase::Pair;

/// The colours a body's mask can hold; a pair that finds none free goes to the overflow
/// colour, swept last and sequentially.
pub const COLOURS: usize = 64;

/// Each pair's colour, from the lowest free one: pairs taken in key order, a pair gets the
/// lowest colour used by neither of its bodies, or [`COLOURS`] (the overflow) when all are.
/// Greedy colouring of a graph of maximum degree Δ uses at most 2Δ − 1 colours here (a
/// pair's two bodies block at most 2(Δ − 1)).
pub fn greedy(pairs: &[Pair], bodies: usize) -> Vec<u32> {
    let mut used = vec![0u64; bodies];
    pairs
        .iter()
        .map(|p| {
            let (i, j) = (p.i as usize, p.j as usize);
            let taken = used[i] | if j < bodies { used[j] } else { 0 };
            let colour = (!taken).trailing_zeros() as usize;
            if colour < COLOURS {
                used[i] |= 1 << colour;
                if j < bodies {
                    used[j] |= 1 << colour;
                }
            }
            colour as u32
        })
        .collect()
}
