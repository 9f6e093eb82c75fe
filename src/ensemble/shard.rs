//! A slice of an ensemble's scenes, run apart and merged afterwards.

use std::ops::Range;

use crate::error::{Error, Result};

/// Shard i of n: scenes ⌊N i / n⌋ .. ⌊N (i+1) / n⌋.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// i (from 0).
    pub index: usize,
    /// n.
    pub count: usize,
}

impl Shard {
    /// The scenes of this shard out of `scenes`.
    pub fn range(&self, scenes: usize) -> Range<usize> {
        // In 128 bits: N i fits there for any N and i (in usize it overflowed for large N).
        let at = |i: usize| (scenes as u128 * i as u128 / self.count as u128) as usize;
        at(self.index)..at(self.index + 1)
    }
}

impl std::str::FromStr for Shard {
    type Err = Error;
    /// `i/n` with i < n.
    fn from_str(s: &str) -> Result<Self> {
        let parsed = s
            .split_once('/')
            .and_then(|(i, n)| Some((i.trim().parse().ok()?, n.trim().parse().ok()?)));
        match parsed {
            Some((index, count)) if index < count => Ok(Self { index, count }),
            _ => Err(Error::Scenario {
                what: format!("shard `{s}`"),
                reason: "expected i/n with 0 ≤ i < n, e.g. 0/4".into(),
            }),
        }
    }
}
