//! Observables: a signal of each scene (a coordinate, a velocity, a row's output, its rate or
//! its impulse, the energy) reduced over the run while the engines step it — its maximum,
//! minimum, final value, mean, integral, the time of its extremum or of its first crossing of
//! a threshold — without storing the trajectory.
//!
//! Every engine samples the signal at t₀ and at the end of every step (t_k = t₀ + k h, the
//! state after step k, λ the impulse of step k, 0 at t₀) and folds each sample into an
//! [`Accumulator`] of [`SLOTS`] values with [`accumulate`]: the reference engine in f64, the
//! CPU lanes lane by lane, the WGSL kernel with its twin `accumulate`
//! (`shaders/observe.wgsl`), in the same operations. Times are kept as step counts k (exact
//! in both precisions up to 2²⁴ steps) and become t₀ + k h on the host ([`Observer::value`]).

use num_traits::Float;

use crate::error::{Error, Result};

mod events;
mod located;

pub use events::{push_event, record_events};
pub use located::{crossing_count, fold_turning, turning_point};

/// What is observed of a scene, in the engines' numbering (rows as the scene's
/// interactions list them, each interaction's rows in order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// Coordinate q_i.
    Q(usize),
    /// Velocity v_i.
    V(usize),
    /// Output y_r of row r (the gap of a contact).
    Y(usize),
    /// Its rate ẏ_r = G(q) v.
    Ydot(usize),
    /// Its impulse λ_r over the last step (0 at t₀).
    Lambda(usize),
    /// The mechanical energy ½vᵀMv + ½qᵀKq − F_extᵀq (the reference engine only).
    Energy,
}

impl Signal {
    /// The kernel's code of the signal's kind (`shaders/observe.wgsl`'s `SIGNAL_*`) and index.
    pub fn code(self) -> (u32, u32) {
        let (kind, index) = match self {
            Self::Q(i) => (0, i),
            Self::V(i) => (1, i),
            Self::Y(r) => (2, r),
            Self::Ydot(r) => (3, r),
            Self::Lambda(r) => (4, r),
            Self::Energy => (5, 0),
        };
        (kind, u32::try_from(index).unwrap_or(u32::MAX))
    }
}

/// How the samples s(t₀), s(t₁), … s(t_N) are reduced to one number (in scenarios:
/// `max`, `min`, `final`, `mean`, `integral`, `time_of_max`, `time_of_min`, `first_above`,
/// `first_below`, `ever_above`, `ever_below`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reduce {
    /// max_k s(t_k).
    Max,
    /// min_k s(t_k).
    Min,
    /// s(t_N).
    Final,
    /// The trapezoidal integral over [t₀, t_N] divided by t_N − t₀ (s(t₀) when N = 0).
    Mean,
    /// Σ_k h (s(t_k) + s(t_{k+1}))/2.
    Integral,
    /// The first t_k where the maximum is reached.
    TimeOfMax,
    /// The first t_k where the minimum is reached.
    TimeOfMin,
    /// The first t_k with s(t_k) > threshold (NaN if none).
    FirstAbove,
    /// The first t_k with s(t_k) < threshold (NaN if none).
    FirstBelow,
    /// 1 if some s(t_k) > threshold, else 0: a flag (an event's probability over the scenes).
    EverAbove,
    /// 1 if some s(t_k) < threshold, else 0.
    EverBelow,
}

/// What the engines keep per observer: max, min, final value, integral, first above, first
/// below (the kernel's `ACCUMULATE_*`). Several [`Reduce`]s share one (a maximum and its time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accumulator {
    /// (max, its step).
    Max = 0,
    /// (min, its step).
    Min = 1,
    /// (last sample, its step).
    Final = 2,
    /// (trapezoidal integral, last step; last sample).
    Integral = 3,
    /// (1 once found, its step).
    FirstAbove = 4,
    /// (1 once found, its step).
    FirstBelow = 5,
}

/// Values kept per observer and scene: the value, the step count of it, the previous sample,
/// the threshold (set by the host, read by the engines).
pub const SLOTS: usize = 4;

/// Stroboscopic samples (a Poincaré section of a forced system): the state q, v after steps
/// `first`, `first + every`, … (`count` of them), kept per scene after its observers'
/// accumulators ([`Recording::len`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strobe {
    /// The step count of the first sample.
    pub first: u32,
    /// Steps between samples (≥ 1).
    pub every: u32,
    /// Samples.
    pub count: u32,
}

impl Strobe {
    /// The sample taken after `k` steps, if one is.
    #[inline(always)]
    pub fn sample_at(&self, k: u32) -> Option<usize> {
        let j = k.checked_sub(self.first)?;
        (j % self.every == 0 && j / self.every < self.count).then_some((j / self.every) as usize)
    }
}

/// What the engines record of every scene while stepping it: its observers' accumulators and
/// its stroboscopic samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recording {
    /// The observers.
    pub observers: Vec<Observer>,
    /// The stroboscopic samples, if any.
    pub strobe: Option<Strobe>,
    /// Impact events: at most this many per scene, if any ([`EVENT`]).
    pub events: Option<u32>,
}

/// Nothing recorded.
pub static NOTHING: Recording = Recording {
    observers: Vec::new(),
    strobe: None,
    events: None,
};

/// Values per impact event: the step count at its end, the row, ẏ at the start of the step
/// (before), ẏ at its end (after) and the row's impulse λ.
pub const EVENT: usize = 5;

impl Recording {
    /// The values kept per scene of `n` degrees of freedom and `m` rows: [`SLOTS`] per
    /// observer, 2n (q, v) per stroboscopic sample, then, with events, their count, the count
    /// of those dropped past the limit, m flags (row r carried an impulse in the last step)
    /// and [`EVENT`] values per event.
    pub fn len(&self, n: usize, m: usize) -> usize {
        self.events_at(n) + self.events.map_or(0, |max| 2 + m + EVENT * max as usize)
    }

    /// Where stroboscopic sample `j` (q then v, 2n values) of a record starts.
    pub fn sample_at(&self, n: usize, j: usize) -> usize {
        SLOTS * self.observers.len() + 2 * n * j
    }

    /// Where the events' part of a record starts.
    pub fn events_at(&self, n: usize) -> usize {
        self.sample_at(n, self.strobe.map_or(0, |s| s.count as usize))
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.observers.is_empty() && self.strobe.is_none() && self.events.is_none()
    }

    /// One scene's record before the run: each observer's [`Observer::initial`] slots, then
    /// zeros.
    pub fn initial<T: Float>(&self, n: usize, m: usize) -> Vec<T> {
        let mut record: Vec<T> = self.observers.iter().flat_map(Observer::initial::<T>).collect();
        record.resize(self.len(n, m), T::zero());
        record
    }
}

/// One observable: a signal, its reduction, and the threshold of `first_above`/`first_below`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observer {
    /// The signal.
    pub signal: Signal,
    /// Its reduction.
    pub reduce: Reduce,
    /// The threshold of [`Reduce::FirstAbove`], [`Reduce::FirstBelow`], [`Reduce::EverAbove`]
    /// and [`Reduce::EverBelow`] (ignored otherwise).
    pub threshold: f64,
}

impl Observer {
    /// What the engines keep for it.
    pub fn accumulator(&self) -> Accumulator {
        match self.reduce {
            Reduce::Max | Reduce::TimeOfMax => Accumulator::Max,
            Reduce::Min | Reduce::TimeOfMin => Accumulator::Min,
            Reduce::Final => Accumulator::Final,
            Reduce::Mean | Reduce::Integral => Accumulator::Integral,
            Reduce::FirstAbove | Reduce::EverAbove => Accumulator::FirstAbove,
            Reduce::FirstBelow | Reduce::EverBelow => Accumulator::FirstBelow,
        }
    }

    /// The kernel's record of it: signal kind, index, accumulator, 0.
    pub fn code(&self) -> [u32; 4] {
        let (kind, index) = self.signal.code();
        [kind, index, self.accumulator() as u32, 0]
    }

    /// The initial slots of one scene's accumulator (only the threshold matters: the first
    /// sample sets the rest).
    pub fn initial<T: Float>(&self) -> [T; SLOTS] {
        let threshold = T::from(self.threshold).unwrap_or_else(T::nan);
        [T::zero(), T::zero(), T::zero(), threshold]
    }

    /// The observed value from the accumulator `slots` (widened to f64) of a run of `steps`
    /// steps of size `h` from `t0`.
    pub fn value(&self, slots: &[f64], t0: f64, h: f64, steps: u32) -> f64 {
        let time = t0 + slots[1] * h;
        let found = slots[0] == 1.0;
        match self.reduce {
            Reduce::Max | Reduce::Min | Reduce::Final | Reduce::Integral => slots[0],
            Reduce::Mean if steps == 0 => slots[2],
            Reduce::Mean => slots[0] / (f64::from(steps) * h),
            Reduce::TimeOfMax | Reduce::TimeOfMin => time,
            Reduce::FirstAbove | Reduce::FirstBelow if found => time,
            Reduce::FirstAbove | Reduce::FirstBelow => f64::NAN,
            Reduce::EverAbove | Reduce::EverBelow => f64::from(u8::from(found)),
        }
    }
}

/// Folds the sample `s` at step count `k` into `slots` (`first`: the sample at t₀, which
/// starts the accumulator):
/// ```text
///   first:     value = s (max, min, final), 0 (integral), [s > c] or [s < c] (first above/below);
///              step = k; previous = s
///   max, min:  if s > value (s < value): value = s, step = k
///   final:     value = s, step = k
///   integral:  value = value + h · (0.5 · (previous + s)); previous = s
///   first above (below): if value = 0 and s > c (s < c): value = 1, step = k
/// ```
/// Kernel twin: `accumulate` in `shaders/observe.wgsl`.
#[inline(always)]
pub fn accumulate<T: Float>(kind: Accumulator, slots: &mut [T], s: T, k: T, h: T, first: bool) {
    if first {
        slots[0] = started(kind, slots[3], s);
        slots[1] = k;
    } else if let (true, value) = folded(kind, [slots[0], slots[2], slots[3]], s, h) {
        slots[0] = value;
        slots[1] = k;
    }
    slots[2] = s;
}

/// The value an accumulator of `kind` starts from at the first sample `s` (threshold c):
/// [`accumulate`]'s first line.
#[inline(always)]
pub fn started<T: Float>(kind: Accumulator, threshold: T, s: T) -> T {
    match kind {
        Accumulator::Max | Accumulator::Min | Accumulator::Final => s,
        Accumulator::Integral => T::zero(),
        Accumulator::FirstAbove => indicator(s > threshold),
        Accumulator::FirstBelow => indicator(s < threshold),
    }
}

/// Whether a later sample `s` replaces the value kept (its step then becomes the sample's),
/// and the value it keeps, from the kept `[value, previous sample, threshold]` and the step
/// `h`: [`accumulate`]'s other lines.
#[inline(always)]
pub fn folded<T: Float>(kind: Accumulator, [value, previous, threshold]: [T; 3], s: T, h: T) -> (bool, T) {
    let half = T::from(0.5).unwrap_or_else(T::nan);
    match kind {
        Accumulator::Max => (s > value, s),
        Accumulator::Min => (s < value, s),
        Accumulator::Final => (true, s),
        Accumulator::Integral => (true, value + h * (half * (previous + s))),
        Accumulator::FirstAbove => (value == T::zero() && s > threshold, T::one()),
        Accumulator::FirstBelow => (value == T::zero() && s < threshold, T::one()),
    }
}

/// Checks that every observer's signal exists in scene `scene` of `n` degrees of freedom and
/// `m` rows.
pub fn check(observers: &[Observer], scene: usize, n: usize, m: usize) -> Result<()> {
    for o in observers {
        let (what, index, len) = match o.signal {
            Signal::Q(i) => ("q", i, n),
            Signal::V(i) => ("v", i, n),
            Signal::Y(r) => ("y", r, m),
            Signal::Ydot(r) => ("ydot", r, m),
            Signal::Lambda(r) => ("lambda", r, m),
            Signal::Energy => continue,
        };
        if index >= len {
            return Err(Error::Scenario {
                what: format!("observed signal {what}{index}"),
                reason: format!(
                    "scene {scene} has {len} (`{what}0` … `{what}{}`)",
                    len.saturating_sub(1)
                ),
            });
        }
    }
    Ok(())
}

fn indicator<T: Float>(b: bool) -> T {
    if b { T::one() } else { T::zero() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reduce(reduce: Reduce, samples: &[f64], threshold: f64) -> f64 {
        let observer = Observer {
            signal: Signal::Q(0),
            reduce,
            threshold,
        };
        let mut slots = observer.initial::<f64>();
        for (k, &s) in samples.iter().enumerate() {
            accumulate(observer.accumulator(), &mut slots, s, k as f64, 0.5, k == 0);
        }
        observer.value(&slots, 1.0, 0.5, samples.len() as u32 - 1)
    }

    #[test]
    fn each_reduction_matches_its_definition() {
        // Samples at t = 1, 1.5, 2, 2.5, 3.
        let s = [1.0, 3.0, -2.0, 3.0, 0.5];
        assert_eq!(reduce(Reduce::Max, &s, 0.0), 3.0);
        assert_eq!(
            reduce(Reduce::TimeOfMax, &s, 0.0),
            1.5,
            "the first time the maximum is reached"
        );
        assert_eq!(reduce(Reduce::Min, &s, 0.0), -2.0);
        assert_eq!(reduce(Reduce::TimeOfMin, &s, 0.0), 2.0);
        assert_eq!(reduce(Reduce::Final, &s, 0.0), 0.5);
        // Trapezoids of width ½: ((1 + 3) + (3 − 2) + (−2 + 3) + (3 + 0.5)) / 4 = 2.375.
        assert_eq!(reduce(Reduce::Integral, &s, 0.0), 2.375);
        assert_eq!(reduce(Reduce::Mean, &s, 0.0), 2.375 / 2.0);
        assert_eq!(reduce(Reduce::FirstBelow, &s, 0.0), 2.0);
        assert_eq!(reduce(Reduce::FirstAbove, &s, 2.0), 1.5);
        assert_eq!(reduce(Reduce::FirstAbove, &s, 0.0), 1.0, "the sample at t₀ counts");
        assert!(reduce(Reduce::FirstAbove, &s, 5.0).is_nan(), "never above: NaN");
        assert_eq!(reduce(Reduce::EverAbove, &s, 2.0), 1.0);
        assert_eq!(reduce(Reduce::EverAbove, &s, 5.0), 0.0, "never above: 0");
        assert_eq!(reduce(Reduce::Mean, &[4.0], 0.0), 4.0, "no step: the one sample");
    }
}
