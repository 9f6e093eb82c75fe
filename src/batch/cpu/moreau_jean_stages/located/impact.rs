//! What happens at each located crossing: a touch-down slow enough (or one past the cap of
//! impacts per contact) settles plastically over the rest of the step; any other is an
//! impact, a zero-length sub-step at t* with the rows closing within the tolerance together.

use std::array::from_fn;

use num_traits::Float;

use super::super::{Group, LANES};
use super::{Found, Impact, Located, Walk};
use crate::contact::lanes::{Lanes, Mask};
use crate::reference::MAX_IMPACTS_PER_CONTACT;

/// The crossing lanes at their touch-down: those that settle, those that impact, and the
/// row each touches down on.
pub(super) struct Touchdowns {
    pub(super) settle: Mask<LANES>,
    pub(super) impact: Mask<LANES>,
    row_of: [usize; LANES],
}

impl<'a, T: Float, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>
    Group<'a, T, NONLINEAR, EQUALITY, N, M>
{
    /// Moves each crossing lane's walk to its impact time t* (the step's end where the
    /// crossing is its end) and reads its touch-down speed −ẏ there, before the impact: it
    /// settles at or below the settling speed, or past MAX_IMPACTS_PER_CONTACT on the row. Kernel:
    /// `touchdown`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn touchdowns(&self, loc: &mut Located<T>, walk: &mut Walk<T>, found: &[Found<T>; LANES]) -> Touchdowns {
        let (zero, h) = (T::zero(), self.step.h);
        let mut touch = Touchdowns {
            settle: [false; LANES],
            impact: [false; LANES],
            row_of: [0; LANES],
        };
        for (l, found) in found.iter().enumerate() {
            let (row, tau, settling_speed) = match *found {
                Found::TooSoon(row) => (row, zero, None),
                Found::Refine {
                    row,
                    b: Some(b),
                    settling_speed,
                    ..
                } => (row, b, Some(settling_speed)),
                _ => continue,
            };
            walk.s[l] = if tau < walk.length[l] { walk.s[l] + tau } else { h };
            touch.row_of[l] = row;
            let speed = -self.row_output(row).1.0[l];
            loc.counts[row][l] += 1;
            let settles = settling_speed.is_none_or(|settling| speed <= settling);
            if settles || loc.counts[row][l] as usize > MAX_IMPACTS_PER_CONTACT {
                touch.settle[l] = true;
            } else {
                touch.impact[l] = true;
            }
        }
        touch
    }

    /// The settling lanes' rest of the step, their touch-down row closed and plastic: the
    /// contact's accumulation has converged (or is cut at the cap); the touch-down is no impact.
    /// Kernel: `settle`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn settle(&mut self, loc: &mut Located<T>, walk: &mut Walk<T>, touch: &Touchdowns) {
        let h = self.step.h;
        let settling: Mask<LANES> = from_fn(|l| touch.settle[l] && walk.s[l] < h);
        let rest: [T; LANES] = from_fn(|l| h - walk.s[l]);
        let plastic = |r: usize| from_fn(|l| touch.settle[l] && touch.row_of[l] == r);
        self.set_span(
            (Lanes(walk.s), Lanes(rest), Lanes::zero()),
            |_| [false; LANES],
            plastic,
            plastic,
        );
        self.sub_step(settling, loc);
        self.commit(settling, loc);
        walk.finished = from_fn(|l| walk.finished[l] | touch.settle[l]);
    }

    /// The impacts: a zero-length sub-step at t* in the impacting lanes, every gap row tested
    /// closed within TIME_TOLERANCE · h · |ẏ| (so that rows closing together impact together);
    /// each row left with λ > 0 is a located impact, recent until the next step ends. Kernel:
    /// `impact`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn impacts(&mut self, loc: &mut Located<T>, walk: &mut Walk<T>, touch: &Touchdowns) {
        let (m, h, zero, tol) = (self.m(), self.step.h, T::zero(), walk.tol);
        let steps = self.health.steps();
        for r in 0..m {
            loc.ydot_before[r] = self.row_output(r).1;
        }
        let gap = &loc.gap;
        self.set_span(
            (Lanes(walk.s), Lanes::zero(), Lanes::splat(tol)),
            |_| [false; LANES],
            |r| [gap[r]; LANES],
            |_| [false; LANES],
        );
        self.sub_step(touch.impact, loc);
        self.commit(touch.impact, loc);
        for l in (0..LANES).filter(|&l| touch.impact[l]) {
            walk.total[l] += 1;
            let mut any_row = false;
            for r in 0..m {
                let lambda = loc.lambda_last[r].0[l];
                let carries = loc.gap[r] && lambda > zero;
                loc.recent[r][l] = carries;
                if carries {
                    any_row = true;
                    loc.recent_next[r][l] = true;
                    loc.impacts.push(Impact {
                        lane: l,
                        row: r,
                        s: walk.s[l],
                        ydot_before: loc.ydot_before[r].0[l],
                        ydot_after: self.row_output(r).1.0[l],
                        lambda,
                    });
                }
            }
            if any_row {
                loc.times[l] += 1;
                loc.last_time.0[l] = self.step_start(steps[l]) + walk.s[l];
            }
            walk.finished[l] |= walk.s[l] >= h;
        }
    }
}
