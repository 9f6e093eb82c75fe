//! [`Packed`]'s blocks against the sweeps one contact at a time: the same bits.

use super::*;
use crate::contact::vector::ortho_tangent;
use crate::large_scene::broad_phase::Pair;
use crate::large_scene::solve::{local_solve, relax};
use crate::model::NewtonImpactFrictionNSL;

/// x ↦ a value in [−1, 1) (a 64-bit LCG, Knuth's constants).
fn uniform(x: &mut u64) -> f64 {
    *x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

/// One colour of `count` active contacts among `2 count` bodies, every third against a
/// wall, with random velocities, frames, blocks and impulses, some separating.
fn colour(d: Dimension, count: usize, seed: u64) -> (Vec<Moving>, Vec<Contact>) {
    let pairs: Vec<Pair> = (0..count)
        .map(|k| Pair {
            i: 2 * k as u32,
            j: (if k % 3 == 2 { 2 * count + 1 } else { 2 * k + 1 }) as u32,
        })
        .collect();
    scene(d, 2 * count, &pairs, seed)
}

/// `n` bodies and active contacts on `pairs` (j ≥ n: a wall) with random velocities, frames,
/// blocks and impulses, some separating.
fn scene(d: Dimension, n: usize, pairs: &[Pair], seed: u64) -> (Vec<Moving>, Vec<Contact>) {
    let mut x = seed;
    let mut u = || uniform(&mut x);
    let z = |v: f64| if d == Dimension::Two { 0.0 } else { v };
    let bodies: Vec<Moving> = (0..n)
        .map(|_| Moving {
            v: [u(), u(), z(u())],
            omega: if d == Dimension::Two {
                [0.0, 0.0, u()]
            } else {
                [u(), u(), u()]
            },
            inverse_mass: 1.5 + u(),
            spin_per_impulse: 4.0 + u(),
            radius: 0.3 + 0.1 * u(),
        })
        .collect();
    let contacts = pairs
        .iter()
        .map(|&pair| {
            let law = NewtonImpactFrictionNSL::new(0.5 + 0.5 * u(), 0.0, 0.5 + 0.4 * u(), d.rows()).unwrap();
            let mut c = Contact::carried(pair, [[0.0; 3]; 3], [0.0; 3], law);
            let (a, b) = (u() * 3.0, z(u()));
            let n = [a.cos() * (1.0 - b * b).sqrt(), a.sin() * (1.0 - b * b).sqrt(), b];
            c.frame = match d {
                Dimension::Two => [n, [-n[1], n[0], 0.0], [0.0; 3]],
                Dimension::Three => [n, ortho_tangent(n, 0), ortho_tangent(n, 1)],
            };
            c.w = [2.0 + u(), 6.0 + u()];
            c.target = [0.3 * u(), 0.0, 0.0];
            c.r = [0.5 + 0.5 * u(), 0.2 * u(), z(0.2 * u())];
            c.active = true;
            c
        })
        .collect();
    (bodies, contacts)
}

/// The bits of each body's v and ω.
fn state(b: &[Moving]) -> Vec<u64> {
    b.iter()
        .flat_map(|m| m.v.into_iter().chain(m.omega))
        .map(f64::to_bits)
        .collect()
}

/// The bits of each contact's light error terms.
fn bits(terms: &[[f64; 2]]) -> Vec<u64> {
    terms.as_flattened().iter().map(|x| x.to_bits()).collect()
}

/// The bits of each contact's r.
fn impulses(c: &[Contact]) -> Vec<u64> {
    c.iter().flat_map(|c| c.r).map(f64::to_bits).collect()
}

/// A packed colour's relaxation gives each contact and body the bits of relaxing them one
/// at a time, on every instruction set, a partial block and walls included.
#[test]
fn blocks_relax_as_one_contact_at_a_time() {
    for d in [Dimension::Two, Dimension::Three] {
        for count in [1, 4, 7, 13] {
            let (mut bodies, mut contacts) = colour(d, count, 7 + count as u64);
            let mut terms = vec![[0.0; 2]; count];
            let (start_bodies, start_contacts) = (bodies.clone(), contacts.clone());
            for (c, t) in contacts.iter_mut().zip(&mut terms) {
                let (low, high) = bodies.split_at_mut(c.pair.j.min(2 * count as u32) as usize);
                let j = high.first_mut().filter(|_| (c.pair.j as usize) < 2 * count);
                *t = relax(d, c, &mut low[c.pair.i as usize], j);
            }
            assert!(terms.iter().all(|t| t[0] > 0.0), "every contact's impulse changes");
            for simd in Simd::available() {
                let (mut b, mut cs) = (start_bodies.clone(), start_contacts.clone());
                let mut t = vec![[0.0; 2]; count];
                let colours = [0..count; 1];
                let mut packed = Packed::default();
                packed.pack(&cs, &colours, 2 * count, TILE);
                // SAFETY: one colour: no two contacts share a body.
                unsafe { packed.relax_sweep(simd, d, (&Shared::new(&mut b), &Shared::new(&mut t))) };
                packed.unpack(&mut cs);
                let what = format!("{d:?}, {count} contacts, {}", simd.name());
                assert_eq!(state(&b), state(&bodies), "{what}: bodies");
                assert_eq!(impulses(&cs), impulses(&contacts), "{what}: impulses");
                assert_eq!(bits(&t), bits(&terms), "{what}: terms");
            }
        }
    }
}

/// Jacobi's solves in the lanes give each contact the impulse, Δr and terms of
/// `local_solve` with its split block from the same bodies, which they leave as they are.
#[test]
fn blocks_solve_jacobi_as_one_contact_at_a_time() {
    for d in [Dimension::Two, Dimension::Three] {
        for count in [3, 9] {
            let (mut bodies, contacts) = colour(d, count, 40 + count as u64);
            let split: Vec<[f64; 2]> = (0..count)
                .map(|k| [3.0 + k as f64 * 0.25, 9.5 - k as f64 * 0.5])
                .collect();
            let expected: Vec<[f64; 3]> = (contacts.iter().zip(&split))
                .map(|(c, &w)| local_solve(d, c, &bodies[c.pair.i as usize], bodies.get(c.pair.j as usize), w))
                .collect();
            let start = bodies.clone();
            for simd in Simd::available() {
                let mut cs = contacts.clone();
                let (mut delta, mut terms) = (vec![[0.0; 3]; count], vec![[0.0; 2]; count]);
                let colours = [0..count; 1];
                let mut packed = Packed::default();
                packed.pack(&cs, &colours, 2 * count, TILE);
                packed.split(&split);
                let shared = (
                    &Shared::new(&mut bodies),
                    &Shared::new(&mut terms),
                    &Shared::new(&mut delta),
                );
                // SAFETY: the solves only read the bodies.
                unsafe { packed.solve_jacobi(simd, d, shared) };
                packed.unpack(&mut cs);
                let what = format!("{d:?}, {count} contacts, {}", simd.name());
                assert_eq!(bodies, start, "{what}: the bodies are only read");
                for k in 0..count {
                    let (r, old) = (expected[k], contacts[k].r);
                    let dr = [r[0] - old[0], r[1] - old[1], r[2] - old[2]];
                    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&cs[k].r), bits(&r), "{what}: contact {k}'s r");
                    assert_eq!(bits(&delta[k]), bits(&dr), "{what}: contact {k}'s Δr");
                    assert_eq!(terms[k], [square(dr), square(r)], "{what}: contact {k}'s terms");
                    assert!(dr.iter().any(|&x| x != 0.0), "{what}: contact {k} does not move");
                }
            }
        }
    }
}

/// A sweep by strips ([`Strips`]) gives the bits of relaxing the active contacts one at a
/// time in (colour, pair key) order, on a triangular lattice of bodies whose bottom row
/// touches a wall, coloured greedily, some contacts inactive, in strips narrower than the
/// scene and in one strip; and, each colour's contacts reversed, in one strip whatever the
/// tile, in their order.
#[test]
fn strips_sweep_as_colour_after_colour() {
    let (width, rows) = (7u32, 12u32);
    let n = (width * rows) as usize;
    let mut pairs = Vec::new();
    for i in 0..width * rows {
        let (x, y) = (i % width, i / width);
        let mut js = Vec::new();
        if x + 1 < width {
            js.push(i + 1);
        }
        if y + 1 < rows {
            js.extend([i + width].into_iter().chain((x + 1 < width).then_some(i + width + 1)));
        }
        if y == 0 {
            js.push(n as u32);
        }
        pairs.extend(js.into_iter().map(|j| Pair { i, j }));
    }
    let colour = crate::large_scene::colouring::greedy(&pairs, n);
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by_key(|&k| (colour[k], pairs[k]));
    let sorted: Vec<Pair> = order.iter().map(|&k| pairs[k]).collect();
    let colours: Vec<Range<usize>> = (0..=*colour.iter().max().unwrap())
        .map(|c| {
            let at = |c| order.partition_point(|&k| colour[k] < c);
            at(c)..at(c + 1)
        })
        .collect();
    assert!(colours.len() >= 4, "{} colours", colours.len());
    for (d, ordered) in [
        (Dimension::Two, true),
        (Dimension::Three, true),
        (Dimension::Two, false),
    ] {
        let mut pairs = sorted.clone();
        if !ordered {
            colours.iter().for_each(|r| pairs[r.clone()].reverse());
        }
        let (mut bodies, mut contacts) = scene(d, n, &pairs, 11);
        contacts.iter_mut().step_by(7).for_each(|c| c.active = false);
        let (start_bodies, start_contacts) = (bodies.clone(), contacts.clone());
        let mut terms = vec![[0.0; 2]; pairs.len()];
        for (c, t) in contacts.iter_mut().zip(&mut terms).filter(|(c, _)| c.active) {
            let (low, high) = bodies.split_at_mut(c.pair.j.min(n as u32) as usize);
            let j = high.first_mut().filter(|_| (c.pair.j as usize) < n);
            *t = relax(d, c, &mut low[c.pair.i as usize], j);
        }
        for tile in [1, 20, TILE] {
            for simd in Simd::available() {
                let (mut b, mut cs) = (start_bodies.clone(), start_contacts.clone());
                let mut t = vec![[0.0; 2]; pairs.len()];
                let mut packed = Packed::default();
                packed.pack(&cs, &colours, n, tile);
                let what = format!("{d:?}, ordered {ordered}, tile {tile}, {}", simd.name());
                let strips = packed.strips().count();
                assert_eq!(strips == 1, tile == TILE || !ordered, "{what}: {strips} strips");
                // SAFETY: greedy colours are proper.
                unsafe { packed.relax_sweep(simd, d, (&Shared::new(&mut b), &Shared::new(&mut t))) };
                packed.unpack(&mut cs);
                assert_eq!(state(&b), state(&bodies), "{what}: bodies");
                assert_eq!(impulses(&cs), impulses(&contacts), "{what}: impulses");
                assert_eq!(bits(&t), bits(&terms), "{what}: terms");
            }
        }
    }
}
