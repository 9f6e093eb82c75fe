//! The observe stage of a lane group: each observer's signal sampled at the current state and
//! folded into its accumulator, and the state kept at the stroboscopic steps
//! ([`crate::batch::observe`]). Twin of the kernel's `observe` (`shaders/observe.wgsl`).

use std::array::from_fn;

use num_traits::Float;

use super::super::moreau_jean_rows::{EQUALITY as EQUALITY_ROW, TANGENT, row_kind};
use super::{Group, L, LANES};
use crate::batch::observe::{
    Accumulator, SLOTS, Signal, crossing_count, fold_turning, folded, push_event, record_events, started, turning_point,
};
use crate::contact::lanes::{Lanes, Mask, any, lanewise};

impl<T: Float, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>
    Group<'_, T, NONLINEAR, EQUALITY, N, M>
{
    /// Samples every observer's signal at the current q, v (λ: the last step's impulse) and
    /// folds it into its accumulator at the step count reached (`first`: the sample at t₀,
    /// which starts the accumulators); at a stroboscopic step, keeps q and v. Kernel: `observe`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn observe(&mut self, first: bool) {
        if self.recording.is_empty() {
            return;
        }
        // Every lane of a group has taken the same number of steps.
        let steps = self.health.steps()[0];
        let k: L<T> = Lanes::splat(T::from(steps).unwrap_or_else(T::nan));
        let observers = &self.recording.observers;
        let h = self.step.h;
        // With located impacts, the lanes whose step was a free flight (no located impact, no
        // gap row's impulse): a max or min may turn inside it.
        let turns_somewhere = observers
            .iter()
            .any(|o| matches!(o.accumulator(), Accumulator::Max | Accumulator::Min));
        let located = self.located.as_ref().filter(|_| !first && turns_somewhere);
        let free: Option<[bool; LANES]> = located.map(|located| {
            from_fn(|l| {
                let impact = located.impacts.iter().any(|i| i.lane == l);
                let contact = (located.gap.iter().zip(&self.lambda)).any(|(&gap, x)| gap && x.0[l] != T::zero());
                !impact && !contact
            })
        });
        for (i, observer) in observers.iter().enumerate() {
            // (By reference: a signal the state holds is not copied.)
            let output;
            let (s, rate): (&L<T>, Option<&L<T>>) = match observer.signal {
                Signal::Q(j) => (&self.q[j], Some(&self.v[j])),
                Signal::V(j) => (&self.v[j], None),
                Signal::Y(r) => {
                    output = self.row_output(r);
                    (&output.0, Some(&output.1))
                }
                Signal::Ydot(r) => {
                    output = self.row_output(r);
                    (&output.1, None)
                }
                Signal::Lambda(r) => (&self.lambda[r], None),
                // Refused before a batched run (`Job::check_batched`).
                Signal::Energy => {
                    output = (Lanes::splat(T::nan()), Lanes::zero());
                    (&output.0, None)
                }
            };
            let slots = &mut self.observed[SLOTS * i..SLOTS * (i + 1)];
            let kind = observer.accumulator();
            // With located impacts, a first crossing inside the step at its time, and a max or
            // min where the signal turns inside a step of free flight.
            let crossing = matches!(kind, Accumulator::FirstAbove | Accumulator::FirstBelow);
            let turning = matches!(kind, Accumulator::Max | Accumulator::Min);
            let mut turns = None;
            let crossed;
            let at = match &mut self.located {
                Some(located) if crossing || turning => {
                    let previous_rate = located.previous_rate[i];
                    let at = if first || !crossing {
                        &k
                    } else {
                        crossed = Lanes(from_fn(|l| {
                            let lane: [T; SLOTS] = from_fn(|x| slots[x].0[l]);
                            let impact = match observer.signal {
                                Signal::Lambda(r) => located
                                    .impacts
                                    .iter()
                                    .find(|i| i.lane == l && i.row == r)
                                    .map(|i| k.0[l] - (h - i.s) / h),
                                _ => None,
                            };
                            let signal = (s.0[l], rate.map(|r| r.0[l]), previous_rate.0[l]);
                            crossing_count(observer, &lane, signal, (k.0[l], h), impact)
                        }));
                        &crossed
                    };
                    if let (true, Some(free)) = (turning, free) {
                        turns = Some(from_fn::<_, LANES, _>(|l| {
                            let signal = (s.0[l], rate.map(|r| r.0[l]), previous_rate.0[l]);
                            free[l]
                                .then(|| turning_point(observer, slots[2].0[l], signal, (k.0[l], h)))
                                .flatten()
                        }));
                    }
                    located.previous_rate[i] = rate.copied().unwrap_or(Lanes::splat(T::nan()));
                    at
                }
                _ => &k,
            };
            accumulate_lanes(kind, slots, s, at, h, first);
            // (By reference: moving the lanes' turns out of the Option copied them, every
            // observer and step, located or not.)
            for (l, turn) in turns.iter().flatten().enumerate() {
                if let &Some(turn) = turn {
                    let mut lane: [T; SLOTS] = from_fn(|x| slots[x].0[l]);
                    fold_turning(kind, &mut lane, turn);
                    for (slot, value) in slots.iter_mut().zip(lane) {
                        slot.0[l] = value;
                    }
                }
            }
        }
        if let Some(j) = self.recording.strobe.and_then(|strobe| strobe.sample_at(steps)) {
            let n = self.n();
            let at = self.recording.sample_at(n, j);
            self.observed[at..at + n].copy_from_slice(&self.q);
            self.observed[at + n..at + 2 * n].copy_from_slice(&self.v);
        }
        if let (Some(max), false) = (self.recording.events, first) {
            self.record_events(max as usize, k);
        }
    }

    /// The impact events of the step just taken ([`record_events`], lane by lane).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn record_events(&mut self, max: usize, k: L<T>) {
        let (m, at) = (self.m(), self.recording.events_at(self.n()));
        let rows = self.rows;
        let gap = |r: usize| !matches!(row_kind(rows, r), TANGENT | EQUALITY_ROW);
        // Most steps change no row's contact state (a row carries an impulse where it did not,
        // or the reverse): nothing to record or update in those lanes, tested in all at once.
        let mut changed: Mask<LANES> = [false; LANES];
        for r in 0..m {
            if gap(r) {
                let (lambda, carried) = (&self.lambda[r], &self.observed[at + 2 + r]);
                changed = lanewise(false, |l| {
                    changed[l] | ((lambda.0[l] > T::zero()) ^ (carried.0[l] != T::zero()))
                });
            }
        }
        // (A located impact is an event whether or not its row carried an impulse before.)
        let located = self.located.as_ref().map_or(&[][..], |located| &located.impacts[..]);
        // (Tested before any lane is set by index: a mask written lane by lane and then read
        // whole stalled the load, 13 % of an observed ball run.)
        if !any(changed) && located.is_empty() {
            return;
        }
        let mut changes = changed;
        for i in located {
            changes[i.lane] = true;
        }
        for r in 0..m {
            self.after[r] = self.row_output(r).1;
        }
        let (lambda, rate, after) = (&self.lambda, &self.rate, &self.after);
        let (events, lane) = (&mut self.observed[at..], &mut self.event_lane);
        for l in (0..LANES).filter(|&l| changes[l]) {
            lane.clear();
            lane.extend(events.iter().map(|x| x.0[l]));
            // Every located impact is an event, at its time (a fractional step count); its
            // row is then loaded, so that the onsets below do not count it again.
            let h = self.step.h;
            for i in located.iter().filter(|i| i.lane == l) {
                let count = k.0[l] - (h - i.s) / h;
                let row = T::from(i.row).unwrap_or_else(T::nan);
                push_event(lane, m, max, [count, row, i.ydot_before, i.ydot_after, i.lambda]);
                lane[2 + i.row] = T::one();
            }
            record_events(
                lane,
                m,
                max,
                k.0[l],
                gap,
                |r| lambda[r].0[l],
                |r| rate[r].0[l],
                |r| after[r].0[l],
            );
            for (x, &value) in events.iter_mut().zip(lane.iter()) {
                x.0[l] = value;
            }
        }
    }
}

/// [`accumulate`](crate::batch::observe::accumulate) on every lane, `k` each lane's step
/// count (its crossing's, where impacts are located) and `h` the step: the scalar rule's
/// pieces ([`started`], [`folded`]) lane by lane, each slot written whole by a select, so that
/// each kind's loop compiles to compares, blends and plain stores. The kind is matched once,
/// outside the lanes, so that each arm's loop is one kind's rule. Kernel: `accumulate`.
#[cfg_attr(not(debug_assertions), inline(always))]
fn accumulate_lanes<T: Float>(kind: Accumulator, slots: &mut [L<T>], s: &L<T>, k: &L<T>, h: T, first: bool) {
    /// The lanes folded by one `kind`, a constant where this is inlined.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn fold<T: Float>(kind: Accumulator, slots: &mut [L<T>; SLOTS], s: &L<T>, k: &L<T>, h: T, first: bool) {
        // Read into locals and written back whole: a slot written lane by lane only where
        // taken became a branch and a scalar store per lane.
        let [value, step, previous, threshold] = *slots;
        let (take, kept): (Mask<LANES>, L<T>) = if first {
            let kept = lanewise(T::zero(), |l| started(kind, threshold.0[l], s.0[l]));
            ([true; LANES], Lanes(kept))
        } else {
            let lane = |l: usize| folded(kind, [value.0[l], previous.0[l], threshold.0[l]], s.0[l], h);
            (
                lanewise(false, |l| lane(l).0),
                Lanes(lanewise(T::zero(), |l| lane(l).1)),
            )
        };
        slots[0] = Lanes::select(take, kept, value);
        slots[1] = Lanes::select(take, *k, step);
        slots[2] = *s;
    }
    let slots: &mut [L<T>; SLOTS] = slots.try_into().expect("an observer has SLOTS slots");
    match kind {
        Accumulator::Max => fold(Accumulator::Max, slots, s, k, h, first),
        Accumulator::Min => fold(Accumulator::Min, slots, s, k, h, first),
        Accumulator::Final => fold(Accumulator::Final, slots, s, k, h, first),
        Accumulator::Integral => fold(Accumulator::Integral, slots, s, k, h, first),
        Accumulator::FirstAbove => fold(Accumulator::FirstAbove, slots, s, k, h, first),
        Accumulator::FirstBelow => fold(Accumulator::FirstBelow, slots, s, k, h, first),
    }
}
