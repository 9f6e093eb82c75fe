//! The first crossing in each lane's trial, and its refinement to the impact time: a
//! safeguarded Newton iteration on the gap at the end of trial sub-steps of length τ from the
//! sub-step's start, kept on the closed side, all crossing lanes together.

use std::array::from_fn;

use num_traits::Float;

use super::super::{Group, LANES};
use super::{Found, Located, Walk};
use crate::contact::lanes::{Lanes, Mask, any};
use crate::reference::{MAX_TRIALS, first_root, rounding_floor};

impl<'a, T: Float, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>
    Group<'a, T, NONLINEAR, EQUALITY, N, M>
{
    /// What each lane's trial found where it may have closed (`closing`): the first root of
    /// the Hermite interpolant of the gap over its open rows, as a bracket to refine. Kernel:
    /// `crossings`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn crossings(&self, loc: &Located<T>, walk: &Walk<T>, closing: Mask<LANES>) -> [Found<T>; LANES] {
        let m = self.m();
        let zero = T::zero();
        let min_flight = walk.min_flight;
        // (A plain loop: `from_fn` here ran out of line, each lane's `Found` written and read
        // back through a stalled store, 7 % of a located run.)
        let mut found = [Found::Nothing; LANES];
        for (l, found) in found.iter_mut().enumerate() {
            if walk.finished[l] || !closing[l] {
                continue;
            }
            let (length, mut first) = (walk.length[l], None);
            for r in (0..m).filter(|&r| loc.open[r][l]) {
                let (y0, d0, y1, d1) = (loc.y0[r].0[l], loc.ydot0[r].0[l], loc.y1[r].0[l], loc.ydot1[r].0[l]);
                if let Some(root) = first_root(y0, d0 * length, y1, d1 * length)
                    && first.is_none_or(|(best, _, _)| root < best)
                {
                    first = Some((root, r, (d1 - d0) / length));
                }
            }
            let Some((guess, row, acceleration)) = first else {
                // A row an impact left at y ≤ 0, separating too slowly to rise above 0,
                // that ends the trial closed: its flight is below resolution.
                let sinking = (0..m).find(|&r| loc.open[r][l] && loc.y0[r].0[l] <= zero && loc.y1[r].0[l] <= zero);
                *found = sinking.map_or(Found::Nothing, Found::TooSoon);
                continue;
            };
            *found = if guess * length < min_flight && loc.recent[row][l] {
                Found::TooSoon(row)
            } else {
                Found::Refine {
                    row,
                    a: zero,
                    b: (loc.y1[row].0[l] <= zero).then_some(length),
                    tau: guess * length,
                    held: length,
                    settling_speed: min_flight * acceleration.abs(),
                    refining: true,
                }
            };
        }
        found
    }

    /// Refines the crossings together: trial sub-steps of length τ from the start, Newton on
    /// the gap y(τ) (from the open side half a tolerance and a rounding floor's time φ/|ẏ|
    /// past the root, so that the next trial lands closed), bisection where Newton leaves the
    /// bracket; until y(τ) ≤ 0 within TIME_TOLERANCE · h · |ẏ| + 2φ (φ: `rounding_floor`),
    /// or the bracket is down to rounding. Each crossing lane then
    /// holds its closed end (never seen closed: the whole trial stands), its λ committed. Kernel:
    /// `refine`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn refine(&mut self, loc: &mut Located<T>, walk: &Walk<T>, found: &mut [Found<T>; LANES]) {
        let (zero, half) = (T::zero(), T::from(0.5).unwrap_or_else(T::nan));
        let tol = walk.tol;
        let eps = T::epsilon();
        let s = Lanes(walk.s);
        for _ in 0..MAX_TRIALS {
            let refining: Mask<LANES> = from_fn(|l| matches!(found[l], Found::Refine { refining: true, .. }));
            if !any(refining) {
                break;
            }
            let tau: [T; LANES] = from_fn(|l| match found[l] {
                Found::Refine { tau, .. } => tau,
                _ => zero,
            });
            self.restore(refining, loc);
            self.trial(refining, (s, Lanes(tau)), loc);
            for (l, found) in found.iter_mut().enumerate().filter(|(l, _)| refining[*l]) {
                let Found::Refine {
                    row,
                    a,
                    b,
                    tau,
                    held,
                    refining,
                    ..
                } = found
                else {
                    continue;
                };
                let (y, ydot) = self.row_output(*row);
                let (y, ydot) = (y.0[l], ydot.0[l]);
                let floor = rounding_floor(y, self.output_terms(*row).0[l]);
                *held = *tau;
                if y <= zero {
                    *b = Some(*tau);
                    if -y <= tol * -ydot.min(zero) + (floor + floor) {
                        *refining = false;
                        continue;
                    }
                } else {
                    *a = *tau;
                }
                let hi = b.unwrap_or(walk.length[l]);
                // Converged to rounding, or open and opening never seen closed (a graze
                // of the interpolant).
                if hi - *a <= eps * hi || b.is_none() && ydot >= zero {
                    *refining = false;
                    continue;
                }
                let newton = if ydot < zero {
                    *tau - y / ydot + if y > zero { tol * half - floor / ydot } else { zero }
                } else {
                    T::nan()
                };
                *tau = if newton > *a && newton < hi {
                    newton
                } else {
                    half * (*a + hi)
                };
            }
        }
        // Each crossing lane at its closed end, taken again where the lane holds another trial.
        let mut again = [false; LANES];
        let mut tau = [zero; LANES];
        for l in 0..LANES {
            if let Found::Refine { b, held, .. } = found[l] {
                tau[l] = b.unwrap_or(walk.length[l]);
                again[l] = held != tau[l];
            }
        }
        if any(again) {
            self.restore(again, loc);
            self.trial(again, (s, Lanes(tau)), loc);
        }
        let refined: Mask<LANES> = from_fn(|l| matches!(found[l], Found::Refine { .. }));
        self.commit(refined, loc);
    }
}
