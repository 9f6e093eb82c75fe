//! [`SceneState`]: everything a large scene's next step reads that its scenario does not
//! give — the bodies' state, the candidate pairs in sweep order with their impulses (the warm
//! start), the colours and where the broad phase last ran — as bytes, so that a run stopped
//! after step k and restored from them takes step k + 1 exactly as the uninterrupted run
//! does, bit for bit; [`LargeScene::state`] takes it and [`LargeScene::restore`] puts it back.
//!
//! The bytes: `RICOCHET-LARGE-STATE 1\n`, then little-endian: the counts of bodies, pairs
//! and colours (u64), the steps (u64), the overflow flag (u8), the f64 arrays as IEEE bits —
//! x, v, ω, the reference centres, θ, the frames, the impulses — then `present` (u8 each),
//! the pairs (u32 i, j) and the colours (u64 start, end).

use std::ops::Range;

use super::broad_phase::Pair;
use super::narrow_phase::Contact;
use super::plane::in_plane;
use super::scene::LargeScene;
use super::solve::{Coloured, check_colours};
use crate::{Error, Result};

const MAGIC: &[u8] = b"RICOCHET-LARGE-STATE 1\n";

/// The state of a large scene after some steps, beyond its constants (radii, masses,
/// walls, laws), which its scenario rebuilds.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneState {
    /// Steps taken.
    pub steps: u64,
    /// Centres.
    pub x: Vec<[f64; 3]>,
    /// Velocities.
    pub v: Vec<[f64; 3]>,
    /// Angular velocities.
    pub omega: Vec<[f64; 3]>,
    /// Discs' rotations.
    pub angle: Vec<f64>,
    /// Whether each body is still in the scene.
    pub present: Vec<bool>,
    /// The centres at the last broad phase.
    pub rebuilt_at: Vec<[f64; 3]>,
    /// The candidate pairs in sweep order.
    pub pairs: Vec<Pair>,
    /// Each pair's frame at the last step.
    pub frames: Vec<[[f64; 3]; 3]>,
    /// Each pair's impulse in that frame.
    pub impulses: Vec<[f64; 3]>,
    /// The colours as ranges of the pairs.
    pub colours: Vec<Range<usize>>,
    /// Whether the last colour is the overflow.
    pub overflow: bool,
}

impl SceneState {
    /// The state as bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        let mut count = |n: usize| out.extend_from_slice(&(n as u64).to_le_bytes());
        count(self.x.len());
        count(self.pairs.len());
        count(self.colours.len());
        out.extend_from_slice(&self.steps.to_le_bytes());
        out.push(u8::from(self.overflow));
        let floats = self
            .x
            .iter()
            .chain(&self.v)
            .chain(&self.omega)
            .chain(&self.rebuilt_at)
            .flatten()
            .chain(&self.angle)
            .chain(self.frames.iter().flatten().flatten())
            .chain(self.impulses.iter().flatten());
        for f in floats {
            out.extend_from_slice(&f.to_le_bytes());
        }
        out.extend(self.present.iter().map(|&p| u8::from(p)));
        for p in &self.pairs {
            out.extend_from_slice(&p.i.to_le_bytes());
            out.extend_from_slice(&p.j.to_le_bytes());
        }
        for c in &self.colours {
            out.extend_from_slice(&(c.start as u64).to_le_bytes());
            out.extend_from_slice(&(c.end as u64).to_le_bytes());
        }
        out
    }

    /// The state the bytes hold; `what` names them in errors (a file). Refuses bytes that are
    /// not a state, are cut short or run on.
    pub fn from_bytes(bytes: &[u8], what: &str) -> Result<Self> {
        let fail = |reason: &str| Error::Parse {
            file: what.into(),
            reason: format!("not a large scene's state: {reason}"),
        };
        let mut r = Reader {
            bytes: bytes.strip_prefix(MAGIC).ok_or_else(|| fail("no header"))?,
        };
        let short = || fail("cut short");
        let [bodies, pairs, colours] = [(); 3].map(|()| r.u64().map(|n| n as usize));
        let (bodies, pairs, colours) = (
            bodies.ok_or_else(short)?,
            pairs.ok_or_else(short)?,
            colours.ok_or_else(short)?,
        );
        // (Counts past the bytes are refused before anything is allocated for them.)
        let need = bodies
            .saturating_mul(105)
            .saturating_add(pairs.saturating_mul(104))
            .saturating_add(colours.saturating_mul(16));
        if need > r.bytes.len() {
            return Err(short());
        }
        let steps = r.u64().ok_or_else(short)?;
        let overflow = r.take(1).ok_or_else(short)?[0] != 0;
        let mut triples = |n: usize| (0..n).map(|_| r.triple()).collect::<Option<Vec<_>>>();
        let (x, v, omega, rebuilt_at) = (triples(bodies), triples(bodies), triples(bodies), triples(bodies));
        let angle = (0..bodies).map(|_| r.f64()).collect::<Option<Vec<_>>>();
        let frames = (0..pairs)
            .map(|_| Some([r.triple()?, r.triple()?, r.triple()?]))
            .collect::<Option<Vec<_>>>();
        let impulses = (0..pairs).map(|_| r.triple()).collect::<Option<Vec<_>>>();
        let present = r.take(bodies).map(|b| b.iter().map(|&p| p != 0).collect());
        let pairs = (0..pairs)
            .map(|_| {
                Some(Pair {
                    i: r.u32()?,
                    j: r.u32()?,
                })
            })
            .collect::<Option<Vec<_>>>();
        let colours = (0..colours)
            .map(|_| Some(r.u64()? as usize..r.u64()? as usize))
            .collect::<Option<Vec<_>>>();
        let state = Self {
            steps,
            x: x.ok_or_else(short)?,
            v: v.ok_or_else(short)?,
            omega: omega.ok_or_else(short)?,
            angle: angle.ok_or_else(short)?,
            present: present.ok_or_else(short)?,
            rebuilt_at: rebuilt_at.ok_or_else(short)?,
            pairs: pairs.ok_or_else(short)?,
            frames: frames.ok_or_else(short)?,
            impulses: impulses.ok_or_else(short)?,
            colours: colours.ok_or_else(short)?,
            overflow,
        };
        if !r.bytes.is_empty() {
            return Err(fail(&format!("{} bytes past its end", r.bytes.len())));
        }
        Ok(state)
    }
}

/// Reads little-endian values off the front of bytes.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let (head, tail) = self.bytes.split_at_checked(n)?;
        self.bytes = tail;
        Some(head)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn f64(&mut self) -> Option<f64> {
        self.u64().map(f64::from_bits)
    }

    fn triple(&mut self) -> Option<[f64; 3]> {
        Some([self.f64()?, self.f64()?, self.f64()?])
    }
}

/// A scene's state: saved, restored, and its time after k steps.
impl LargeScene {
    /// What the next step reads beyond the scene's constants ([`SceneState`]).
    pub fn state(&self) -> SceneState {
        let b = &self.bodies;
        SceneState {
            steps: self.steps,
            x: b.x.clone(),
            v: b.v.clone(),
            omega: b.omega.clone(),
            angle: b.angle.clone(),
            present: b.present.clone(),
            rebuilt_at: self.rebuilt_at.clone(),
            pairs: self.contacts.iter().map(|c| c.pair).collect(),
            frames: self.contacts.iter().map(|c| c.frame).collect(),
            impulses: self.contacts.iter().map(|c| c.r).collect(),
            colours: self.colours.clone(),
            overflow: self.overflow,
        }
    }

    /// Puts the scene in `state` (one of this scene's, after some steps): its next step is
    /// the one the scene took after `state.steps` steps. Refuses a state of another scene
    /// (another body count, a pair past the bodies and walls, colours that do not cover
    /// the pairs in order or whose pairs share a body).
    pub fn restore(&mut self, state: SceneState) -> Result<()> {
        let n = self.bodies.len();
        let refuse = |reason: String| Error::Unsupported {
            what: "large scene: a saved state".into(),
            reason,
        };
        let s = &state;
        let per_body = [
            s.x.len(),
            s.v.len(),
            s.omega.len(),
            s.angle.len(),
            s.present.len(),
            s.rebuilt_at.len(),
        ];
        if per_body.iter().any(|&len| len != n) {
            return Err(refuse(format!(
                "it holds {per_body:?} values per body, the scene {n} bodies"
            )));
        }
        if s.frames.len() != s.pairs.len() || s.impulses.len() != s.pairs.len() {
            return Err(refuse("its pairs, frames and impulses differ in number".into()));
        }
        let walls = self.walls.len();
        if let Some(p) = state
            .pairs
            .iter()
            .find(|p| p.i as usize >= n || p.j as usize >= n + walls || p.i >= p.j)
        {
            return Err(refuse(format!(
                "pair ({}, {}) is not one of {n} bodies and {walls} walls",
                p.i, p.j
            )));
        }
        let ends = state.colours.iter().map(|c| c.end);
        let starts = std::iter::once(0).chain(ends.clone());
        let tiled = state
            .colours
            .iter()
            .zip(starts)
            .all(|(c, s)| c.start == s && c.end > c.start);
        if !tiled || state.colours.last().map_or(0, |c| c.end) != state.pairs.len() {
            return Err(refuse("its colours do not cover its pairs in order".into()));
        }
        let mut contacts: Vec<Contact> = (state.pairs.into_iter().zip(state.frames).zip(state.impulses))
            .map(|((pair, frame), r)| Contact::carried(pair, frame, r, self.grains))
            .collect();
        let coloured = Coloured {
            contacts: &mut contacts,
            colours: &state.colours,
            overflow: state.overflow,
        };
        check_colours(&coloured, n, &mut Vec::new()).map_err(|e| refuse(e.to_string()))?;
        let (mut v, mut omega) = (state.v, state.omega);
        in_plane(self.bodies.dimension, self.gravity, &self.walls, (&mut v, &mut omega))
            .map_err(|e| refuse(e.to_string()))?;
        let b = &mut self.bodies;
        (b.x, b.v, b.omega, b.angle, b.present) = (state.x, v, omega, state.angle, state.present);
        self.rebuilt_at = state.rebuilt_at;
        self.contacts = contacts;
        (self.colours, self.overflow) = (state.colours, state.overflow);
        self.steps = state.steps;
        self.time = Self::time_after(self.steps, self.h);
        Ok(())
    }

    /// t_k after k steps of h: k h, computed as the step computes it ((k − 1) h + h).
    pub fn time_after(k: u64, h: f64) -> f64 {
        match k {
            0 => 0.0,
            k => (k - 1) as f64 * h + h,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> SceneState {
        SceneState {
            steps: 7,
            x: vec![[1.0, -0.0, f64::MIN_POSITIVE], [3.5, 2.0, 1e300]],
            v: vec![[0.1, 0.2, 0.3], [-0.1, -0.2, -0.3]],
            omega: vec![[0.0, 0.0, 4.0], [0.0, 0.0, -4.0]],
            angle: vec![0.25, -0.75],
            present: vec![true, false],
            rebuilt_at: vec![[1.0, 0.0, 0.0], [3.0, 2.0, 1.0]],
            pairs: vec![Pair { i: 0, j: 1 }, Pair { i: 1, j: 2 }],
            frames: vec![[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]; 2],
            impulses: vec![[1e-3, -2e-4, 0.0], [5e-3, 0.0, -0.0]],
            colours: vec![0..1, 1..2],
            overflow: true,
        }
    }

    /// The bytes give back the state, every bit (−0 and subnormal-adjacent values included).
    #[test]
    fn bytes_round_trip() {
        let s = state();
        let back = SceneState::from_bytes(&s.to_bytes(), "s").unwrap();
        assert_eq!(back, s);
        assert_eq!(back.x[0][1].to_bits(), (-0.0f64).to_bits());
        assert_eq!(back.impulses[1][2].to_bits(), (-0.0f64).to_bits());
    }

    /// Bytes cut short, running on or of another format are refused, naming what they are.
    #[test]
    fn bad_bytes_are_refused() {
        let bytes = state().to_bytes();
        for bad in [&bytes[..bytes.len() - 1], &bytes[..40], &bytes[5..]] {
            let e = SceneState::from_bytes(bad, "state.bin").unwrap_err().to_string();
            assert!(
                e.contains("state.bin") && e.contains("not a large scene's state"),
                "{e}"
            );
        }
        let mut long = bytes.clone();
        long.push(0);
        let e = SceneState::from_bytes(&long, "state.bin").unwrap_err().to_string();
        assert!(e.contains("1 bytes past its end"), "{e}");
        // A count past the bytes allocates nothing.
        let mut huge = bytes;
        huge[MAGIC.len()..MAGIC.len() + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(SceneState::from_bytes(&huge, "state.bin").is_err());
    }
}
