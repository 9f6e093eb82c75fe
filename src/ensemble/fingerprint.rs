//! Fingerprints of scenarios and files: FNV-1a, 64 bits (Fowler, Noll & Vo; the parameters
//! of <http://www.isthe.com/chongo/tech/comp/fnv/>), as 16 hex digits. Not cryptographic: it
//! tells a changed or mixed-up file from the one written, not a forgery.

/// [`fnv1a_64`] as 16 hex digits.
pub fn fnv1a(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a_64(bytes))
}

/// h₀ = 14695981039346656037, h ← (h ⊕ byte) · 1099511628211 (mod 2⁶⁴) over `bytes` (also
/// the pinned hashes of `tests/integration/determinism.rs`).
pub fn fnv1a_64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    /// The reference values of the FNV test suite (`fnv1a64("")`, `fnv1a64("a")`, `"foobar"`).
    #[test]
    fn known_values() {
        assert_eq!(super::fnv1a(b""), "cbf29ce484222325");
        assert_eq!(super::fnv1a(b"a"), "af63dc4c8601ec8c");
        assert_eq!(super::fnv1a(b"foobar"), "85944171f73967e8");
    }
}
