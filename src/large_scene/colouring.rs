//! Colouring of the candidate pairs, so that no two pairs of one colour share a body (walls
//! are static and constrain nothing): the pairs of a colour can then be solved at once, and
//! sweeping the colours in order is one sequential NSGS sweep in (colour, pair key) order.
//! Box2D v3 colours its constraint graph greedily the same way (erincatto/box2d,
//! `src/constraint_graph.c`); here the pairs are taken in an order of fixed pseudo-random
//! priorities, so that Jones–Plassmann's parallel rounds on a device (M. T. Jones and
//! P. E. Plassmann, "A parallel graph coloring heuristic", SIAM J. Sci. Comput. 14(3), 1993)
//! give the same colours in few rounds: a pair takes its colour in the round where its
//! priority is the lowest of the uncoloured pairs at both its bodies, from the colours of the
//! pairs of lower priority — the greedy colouring in priority order. (In key order the
//! rounds would follow chains of pairs along rows of bodies: thousands of them.)

use rayon::prelude::*;

use super::broad_phase::Pair;

/// The colours a body's mask can hold; a pair that finds none free goes to the overflow
/// colour, swept last and sequentially.
pub const COLOURS: usize = 64;

/// The colouring rule, as checkpoints record it (a checkpoint coloured by another rule would
/// resume with another sweep order).
pub const RULE: &str = "greedy in lowbias32 priority order";

/// The priority of the pair at `index` in key order (lower: coloured first): a bijection of
/// u32 that scatters neighbouring indices (C. Wellons' `lowbias32` hash), so that priorities
/// are distinct. Twin: the kernel's `priority` (`shaders/large_scene_colouring.wgsl`).
pub fn priority(index: u32) -> u32 {
    let mut x = index;
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// Each pair's colour, greedily in [`priority`] order: a pair gets the lowest colour used by
/// neither of its bodies, or [`COLOURS`] (the overflow) when all are. Greedy colouring of a
/// graph of maximum degree Δ uses at most 2Δ − 1 colours here (a pair's two bodies block at
/// most 2(Δ − 1)).
pub fn greedy(pairs: &[Pair], bodies: usize) -> Vec<u32> {
    // (priority, index) in one integer: priorities are distinct, so this is priority order.
    let mut order: Vec<u64> = (0..pairs.len() as u32)
        .into_par_iter()
        .map(|k| (u64::from(priority(k)) << 32) | u64::from(k))
        .collect();
    order.par_sort_unstable();
    let mut used = vec![0u64; bodies];
    let mut colours = vec![0u32; pairs.len()];
    for k in order.into_iter().map(|o| o as u32) {
        let (i, j) = (pairs[k as usize].i as usize, pairs[k as usize].j as usize);
        let taken = used[i] | if j < bodies { used[j] } else { 0 };
        let colour = (!taken).trailing_zeros() as usize;
        if colour < COLOURS {
            used[i] |= 1 << colour;
            if j < bodies {
                used[j] |= 1 << colour;
            }
        }
        colours[k as usize] = colour as u32;
    }
    colours
}
