//! Observers' times and extremes inside a step when impacts are located: a threshold's
//! crossing and a signal's turning point on the cubic Hermite interpolant of the step.

use num_traits::Float;

use super::{Accumulator, Observer, Signal};
use crate::reference::{first_root, interior_maximum};

/// The step count, fractional, at which a `first_above`/`first_below` observer's signal
/// crosses its threshold c in the step ending at count `k`, when impacts are located: an
/// impulse at its located impact (`impact`, a fractional count), a signal with a rate (q with
/// v, y with ẏ) on the cubic Hermite interpolant of (s, ṡ) over the step of length `h`, any
/// other on the chord; k itself where the accumulator does not turn now (or nothing better is
/// known). The signal is (s, ṡ, the previous sample's ṡ); the previous s is the accumulator's
/// own (`slots[2]`). The reference engine's and the CPU lanes' rule.
pub fn crossing_count<T: Float>(
    observer: &Observer,
    slots: &[T],
    (s, rate, previous_rate): (T, Option<T>, T),
    (k, h): (T, T),
    impact: Option<T>,
) -> T {
    let (value, previous, c) = (slots[0], slots[2], slots[3]);
    let (zero, one) = (T::zero(), T::one());
    // +1 above, −1 below: g = sign (c − signal) is > 0 before the crossing, ≤ 0 after.
    let sign = match observer.accumulator() {
        Accumulator::FirstAbove => one,
        Accumulator::FirstBelow => -one,
        _ => return k,
    };
    if value != zero || sign * (s - c) <= zero {
        return k;
    }
    if let Signal::Lambda(_) = observer.signal {
        return impact.unwrap_or(k);
    }
    let fraction = match rate {
        Some(rate) if previous_rate.is_finite() && rate.is_finite() => {
            // (The interpolant runs over the step as [0, 1]: its slopes are h ṡ.)
            first_root(
                sign * (c - previous),
                -sign * previous_rate * h,
                sign * (c - s),
                -sign * rate * h,
            )
        }
        _ => Some((c - previous) / (s - previous)),
    };
    fraction.filter(|&f| f >= zero && f <= one).map_or(k, |f| k - one + f)
}

/// Where a `max`, `min`, `time_of_max` or `time_of_min` observer's signal turns inside the
/// step ending at count `k` (of length `h`), when impacts are located and no contact acted
/// in the step (the caller's test): on the cubic Hermite interpolant of a signal with a rate
/// (q with v, y with ẏ) — exact for Moreau–Jean's free flight under constant forces — where
/// ṡ goes from > 0 to < 0 (a max) or from < 0 to > 0 (a min), its value and fractional step
/// count; `None` for other observers and signals, or where the signal does not turn. The
/// signal is (s, ṡ, the previous sample's ṡ); `previous` is the previous sample. The
/// reference engine's and the CPU lanes' rule, folded in by [`fold_turning`].
pub fn turning_point<T: Float>(
    observer: &Observer,
    previous: T,
    (s, rate, previous_rate): (T, Option<T>, T),
    (k, h): (T, T),
) -> Option<(T, T)> {
    let one = T::one();
    let sign = match observer.accumulator() {
        Accumulator::Max => one,
        Accumulator::Min => -one,
        _ => return None,
    };
    // (The interpolant runs over the step as [0, 1]: its slopes are h ṡ; a min is the max
    // of −s.)
    let (fraction, value) = interior_maximum(sign * previous, sign * previous_rate * h, sign * s, sign * rate? * h)?;
    Some((sign * value, k - one + fraction))
}

/// Folds a turning point inside the step ([`turning_point`]: value and fractional count)
/// into a max or min accumulator after the step's sample: the extreme when beyond it.
pub fn fold_turning<T: Float>(kind: Accumulator, slots: &mut [T], (value, at): (T, T)) {
    let beyond = match kind {
        Accumulator::Max => value > slots[0],
        Accumulator::Min => value < slots[0],
        _ => false,
    };
    if beyond {
        slots[0] = value;
        slots[1] = at;
    }
}
