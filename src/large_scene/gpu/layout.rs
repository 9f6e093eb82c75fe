//! What the large-scene kernel's buffers hold and how big they are: each contact's geometry
//! as the kernel reads it, Jacobi's incidence lists, and the bytes per buffer.

use super::resident::{COUNTS, scene_values};
use super::{BLOCK, CONTROL, ERROR_TERMS, GEOMETRY, GpuBroadPhase, GpuColouring, Precision};
use crate::large_scene::narrow_phase::Contact;

/// The bytes of the storage buffers for `bodies` bodies, `contacts` contacts and a scene
/// of `scene` values: per body 1/m, R/I, R, v and ω; per contact its pair, geometry, r and
/// Δr, Jacobi's incidence (or the step's counts per block); the control and the blocks'
/// partial sums; the scene.
pub(super) fn buffer_lengths(bodies: usize, contacts: usize, scene: usize, precision: Precision) -> [usize; 8] {
    let size = precision.size();
    let counts = COUNTS + contacts.div_ceil(BLOCK) + bodies.div_ceil(BLOCK);
    [
        3 * bodies * size,
        6 * bodies * size,
        contacts * 16,
        GEOMETRY * contacts * size,
        6 * contacts * size,
        (CONTROL + ERROR_TERMS * contacts.div_ceil(BLOCK)) * size,
        (bodies + 1 + 2 * contacts).max(counts) * 4,
        scene * size,
    ]
}

/// The device memory a scene of `bodies` bodies and `contacts` candidate contacts takes in
/// `precision` on the whole-step engine ([`super::GpuScene`], walls aside): the storage
/// buffers, the broad phase's and the colouring's (before the quarter more each adds when
/// it grows them).
pub fn device_bytes(bodies: usize, contacts: usize, precision: Precision) -> usize {
    let scene = scene_values(0, bodies, contacts);
    buffer_lengths(bodies, contacts, scene, precision).iter().sum::<usize>()
        + GpuBroadPhase::bytes(bodies, contacts, precision)
        + GpuColouring::bytes(bodies, contacts)
}

/// Jacobi's incidence of `n` bodies: offsets (n + 1), then each body's active contacts in
/// increasing order; `counts` holds each body's active contacts ([`split_blocks`](crate::large_scene::jacobi::split_blocks)'s).
pub(super) fn incidence_of(n: usize, contacts: &[Contact], counts: &[u32]) -> Vec<u32> {
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u32);
    for &count in counts {
        offsets.push(offsets.last().copied().unwrap_or(0) + count);
    }
    let mut list = vec![0u32; offsets[n] as usize];
    let mut next = offsets[..n].to_vec();
    for (c, contact) in contacts.iter().enumerate().filter(|(_, c)| c.active) {
        for body in [contact.pair.i as usize, contact.pair.j as usize] {
            if body < n {
                list[next[body] as usize] = c as u32;
                next[body] += 1;
            }
        }
    }
    offsets.extend(list);
    offsets
}

/// A contact's values in the geometry buffer (`GEOMETRY`).
pub(super) fn geometry_of(c: &Contact) -> [f64; GEOMETRY] {
    let mut g = [0.0; GEOMETRY];
    for (a, axis) in c.frame.iter().enumerate() {
        g[3 * a..3 * a + 3].copy_from_slice(axis);
    }
    g[9..12].copy_from_slice(&[c.w[0], c.w[1], c.law.mu()]);
    g[12..15].copy_from_slice(&c.target);
    g[15..18].copy_from_slice(&c.q);
    g[18] = c.gap;
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole step takes per body 204 bytes in f64 (1/m, R/I, R, v, ω, an incidence
    /// offset and its 16 values of state), per contact 224 (pair 16, geometry 152, r and Δr
    /// 48, incidence 8), plus the control, one block sum per 256 contacts and the scene's
    /// head, report and tallies (f32: 104 and 124); the broad phase per body 44 (f32: 28)
    /// and 4 to 8 per bucket, 8 per pair; the colouring 12 per body and 28 per pair, with
    /// the sort's 65 counts per 64 pairs. 10⁶ spheres with 3·10⁶ contacts (coordination 6)
    /// fit in 1 GiB.
    #[test]
    fn a_million_packed_spheres_fit_in_a_gigabyte() {
        let (n, m): (usize, usize) = (1_000_000, 3_000_000);
        let blocks = (CONTROL + ERROR_TERMS * m.div_ceil(BLOCK)) * 8;
        let scene = (16 + 10 + 10 * m.div_ceil(BLOCK)) * 8;
        let buckets: usize = 1 << 21;
        let scans = 4 * ((buckets + 1).div_ceil(256) + (n + 1).div_ceil(256));
        let grid = 4 * (buckets + 1) + 8 * m + scans;
        let counts = 65 * m.div_ceil(64);
        let colouring = 12 * n + 28 * m + 16 + 4 * (counts + 67) + 4 * (counts + 1).div_ceil(256);
        let f64_bytes = device_bytes(n, m, Precision::F64);
        assert_eq!(
            f64_bytes,
            204 * n + 4 + 224 * m + blocks + scene + 44 * n + 4 + grid + colouring
        );
        assert!(f64_bytes < 1 << 30, "{f64_bytes}");
        let f32_bytes = device_bytes(n, m, Precision::F32);
        assert_eq!(
            f32_bytes,
            104 * n + 4 + 124 * m + blocks / 2 + scene / 2 + 28 * n + 4 + grid + colouring
        );
    }
}
