//! Impact events recorded while the engines step: each contact row's onset of an impulse,
//! with its step count, ẏ before and after and λ, up to a limit per scene.

use num_traits::Float;

use super::{EVENT, indicator};

/// Records in `events` (a record's events part: count, dropped, row flags, events) the rows
/// whose impulse `lambda(r)` > 0 in the step ending at step count `k` while it was 0 in the
/// step before (an impact's onset), on the contact rows `gap(r)` of `m`, with ẏ before
/// `before(r)` and after `after(r)`; beyond `max` events, counts them as dropped. Kernel twin:
/// `record_events` in `shaders/observe.wgsl`.
#[allow(clippy::too_many_arguments)]
pub fn record_events<T: Float>(
    events: &mut [T],
    m: usize,
    max: usize,
    k: T,
    gap: impl Fn(usize) -> bool,
    lambda: impl Fn(usize) -> T,
    before: impl Fn(usize) -> T,
    after: impl Fn(usize) -> T,
) {
    for r in (0..m).filter(|&r| gap(r)) {
        let loaded = lambda(r) > T::zero();
        if loaded && events[2 + r] == T::zero() {
            let row = T::from(r).unwrap_or_else(T::nan);
            push_event(events, m, max, [k, row, before(r), after(r), lambda(r)]);
        }
        events[2 + r] = indicator(loaded);
    }
}

/// Appends `event` (step count, row, ẏ before, ẏ after, λ) to a record's events part of `m`
/// rows, or counts it as dropped past `max` events.
pub fn push_event<T: Float>(events: &mut [T], m: usize, max: usize, event: [T; EVENT]) {
    let count = events[0].to_usize().unwrap_or(usize::MAX);
    if count < max {
        let at = 2 + m + EVENT * count;
        events[at..at + EVENT].copy_from_slice(&event);
        events[0] = events[0] + T::one();
    } else {
        events[1] = events[1] + T::one();
    }
}
