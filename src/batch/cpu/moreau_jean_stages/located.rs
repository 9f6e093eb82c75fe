//! Impacts located inside the step on a lane group: the reference's located Moreau–Jean step
//! (`reference/impact_location.rs`, whose module doc states the method) lane by lane, in
//! lockstep. Each sub-step — a trial over the rest of the step with the open rows left out,
//! a trial of length τ while a crossing is refined, the zero-length impact, the settling rest
//! of a step — is one pass of the group's Moreau–Jean stages over a [`SubSpan`] that gives
//! each lane its own start and length; the lanes that take no part in it are frozen (τ = 0,
//! every row out: the identity, and their q, v kept as they were).
//!
//! Here: the located step's state and its walk through the step; in `sub_step` the spans,
//! passes and the grid-step fast path; in `crossing` the first crossing and its refinement;
//! in `impact` what happens at a touch-down (settling or an impact). The kernel
//! (`shaders/located.wgsl`) takes the same passes in the same order from one call site of the
//! stages, a loop over the kinds of pass and the decisions between them.
//!
//! Sub-steps of length τ ≠ h need W(τ) = M + θτC + θ²τ²K: where the scene's W depends on the
//! step's length (stiffness or damping), `operators` builds each sub-step's own per lane.

use std::array::from_fn;

use num_traits::Float;

use super::super::moreau_jean_rows::{EQUALITY as EQUALITY_ROW, TANGENT, row_kind};
use super::{Group, L, LANES};
use crate::contact::lanes::{Lanes, Mask, all, any};
use crate::reference::{MIN_FLIGHT, TIME_TOLERANCE};

mod crossing;
mod impact;
mod operators;
mod sub_step;

use sub_step::GridStep;

/// The span of a located sub-step, per lane: read by the stages in place of the grid step.
pub(in crate::batch::cpu) struct SubSpan<T> {
    /// Where it starts, as an offset s from t_k, and its length τ.
    pub(super) start: L<T>,
    pub(super) tau: L<T>,
    /// Per row, the lanes where it is left out of the problem.
    pub(super) excluded: Vec<Mask<LANES>>,
    /// Per row, the lanes where it takes part when y + tol · min(ẏ, 0) ≤ 0 (instead of the
    /// scheme's activation), and where it has no restitution.
    pub(super) closed: Vec<Mask<LANES>>,
    pub(super) tol: L<T>,
    pub(super) plastic: Vec<Mask<LANES>>,
}

impl<T: Float> SubSpan<T> {
    /// A span over `m` rows (set before each sub-step).
    pub(super) fn new(m: usize) -> Self {
        Self {
            start: Lanes::zero(),
            tau: Lanes::zero(),
            excluded: vec![[false; LANES]; m],
            closed: vec![[false; LANES]; m],
            tol: Lanes::zero(),
            plastic: vec![[false; LANES]; m],
        }
    }
}

/// One located impact of the step just taken: its lane, row, offset s from t_k, ẏ before and
/// after, and λ.
#[derive(Clone, Copy, Debug)]
pub(super) struct Impact<T> {
    pub(super) lane: usize,
    pub(super) row: usize,
    pub(super) s: T,
    pub(super) ydot_before: T,
    pub(super) ydot_after: T,
    pub(super) lambda: T,
}

/// A located step's state: what carries over between steps, what the step found, and scratch.
pub(in crate::batch::cpu) struct Located<T> {
    /// Whether row r is a gap (a unilateral row whose crossing is located: not an equality,
    /// not a friction contact's tangent row).
    pub(super) gap: Vec<bool>,
    /// The rows impacted in the last step and in this one, per lane: a row an impact left
    /// separating at y ≤ 0 is open (its next crossing is the return of that flight).
    recent: Vec<Mask<LANES>>,
    recent_next: Vec<Mask<LANES>>,
    /// The time of each lane's last impact (NaN before one).
    pub(super) last_time: L<T>,
    /// The step's located impacts, and per lane how many distinct times they had.
    pub(super) impacts: Vec<Impact<T>>,
    pub(super) times: [u32; LANES],
    /// Per row, the λ of the last sub-step each lane took, and the step's sum of them.
    lambda_last: Vec<L<T>>,
    lambda_sum: Vec<L<T>>,
    /// Per row and lane, the impacts located on it in this step.
    counts: Vec<[u32; LANES]>,
    /// The state a sub-step starts from, and q, v kept across a masked sub-step.
    q0: Vec<L<T>>,
    v0: Vec<L<T>>,
    kept_q: Vec<L<T>>,
    kept_v: Vec<L<T>>,
    /// Per row, y and ẏ at the sub-step's start and at the trial's end.
    y0: Vec<L<T>>,
    ydot0: Vec<L<T>>,
    y1: Vec<L<T>>,
    ydot1: Vec<L<T>>,
    open: Vec<Mask<LANES>>,
    /// Per row, ẏ just before an impact sub-step.
    ydot_before: Vec<L<T>>,
    /// Per observer, the rate of its signal at the last sample (NaN where it has none).
    pub(super) previous_rate: Vec<L<T>>,
}

impl<T: Float> Located<T> {
    /// The state of a group of `n` dofs and `m` rows of kinds `rows`, with `observers`.
    pub(super) fn new(n: usize, m: usize, rows: &[u32], observers: usize) -> Self {
        let zeros = |len: usize| vec![Lanes::zero(); len];
        let masks = || vec![[false; LANES]; m];
        Self {
            gap: (0..m)
                .map(|r| !matches!(row_kind(rows, r), TANGENT | EQUALITY_ROW))
                .collect(),
            recent: masks(),
            recent_next: masks(),
            last_time: Lanes::splat(T::nan()),
            impacts: Vec::new(),
            times: [0; LANES],
            lambda_last: zeros(m),
            lambda_sum: zeros(m),
            counts: vec![[0; LANES]; m],
            q0: zeros(n),
            v0: zeros(n),
            kept_q: zeros(n),
            kept_v: zeros(n),
            y0: zeros(m),
            ydot0: zeros(m),
            y1: zeros(m),
            ydot1: zeros(m),
            open: masks(),
            ydot_before: zeros(m),
            previous_rate: vec![Lanes::splat(T::nan()); observers],
        }
    }
}

/// What a lane's trial over the rest of its step found.
#[derive(Clone, Copy)]
enum Found<T> {
    /// Nothing to do: the lane's step is done, or its trial stands.
    Nothing,
    /// The row an impact left separating closes again within MIN_FLIGHT · h: it settles.
    TooSoon(usize),
    /// A crossing of `row` being refined: the bracket [a, b] (b = None: not seen closed),
    /// the trial length τ to try next, the length τ of the state the lane holds, and the
    /// touch-down speed at or below which the contact settles.
    Refine {
        row: usize,
        a: T,
        b: Option<T>,
        tau: T,
        held: T,
        settling_speed: T,
        refining: bool,
    },
}

/// Where each lane's walk through its step stands: the offset s from t_k its next sub-step
/// starts at, the length h − s of its rest, whether it is done, and its located impacts;
/// with the step's time tolerances, TIME_TOLERANCE · h and MIN_FLIGHT · h.
struct Walk<T> {
    s: [T; LANES],
    length: [T; LANES],
    finished: Mask<LANES>,
    total: [usize; LANES],
    tol: T,
    min_flight: T,
}

impl<'a, T: Float, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>
    Group<'a, T, NONLINEAR, EQUALITY, N, M>
{
    /// t_k of a lane that has taken `steps` steps. Kernel: `step_start`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn step_start(&self, steps: u32) -> T {
        self.step.t0 + T::from(steps).unwrap_or_else(T::nan) * self.step.h
    }

    /// Reads each lane's last impact time from `times` (a located run's, one per scene). Kernel:
    /// `load_located`.
    pub(in crate::batch::cpu) fn load_impact_times(&mut self, times: &[T]) {
        if let (Some(located), false) = (self.located.as_mut(), times.is_empty()) {
            located.last_time = Lanes(from_fn(|l| times[l.min(times.len() - 1)]));
        }
    }

    /// Writes each scene's last impact time to `times` (a located run's). Kernel: `store_located`.
    pub(in crate::batch::cpu) fn store_impact_times(&self, times: &mut [T]) {
        if let Some(located) = &self.located {
            for (l, t) in times.iter_mut().enumerate() {
                *t = located.last_time.0[l];
            }
        }
    }

    /// One step from t_k to t_{k+1} with its impacts located (the reference's
    /// `located_step`, lane by lane): the step's percussion left in λ, its impacts in
    /// [`Located::impacts`]; then its health is recorded. Kernel: `located_step`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn located_step(&mut self) {
        let mut located = self.located.take().expect("a located group");
        let loc = &mut *located;
        let m = self.m();
        loc.impacts.clear();
        loc.times = [0; LANES];
        for r in 0..m {
            loc.recent[r] = loc.recent_next[r];
            loc.recent_next[r] = [false; LANES];
        }
        match self.grid_step(loc) {
            GridStep::Stands => {}
            GridStep::MayClose(closing) => self.locate_impacts(loc, Some(closing)),
            GridStep::NotTaken => self.locate_impacts(loc, None),
        }
        self.located = Some(located);
        self.record_located_health();
    }

    /// The general located step, where the grid step does not stand: each lane walks from
    /// t_k, sub-step by sub-step — a trial over the rest of its step, the first crossing in
    /// it refined, the touch-down there settled or an impact — until every lane is at t_{k+1}.
    /// `grid`: where the grid step was taken and may have closed a gap ([`Group::grid_step`]),
    /// the lanes where it may have: that step is the walk's first trial, bit for bit, and is
    /// not taken again. The step's percussion, the sum of its sub-steps' λ, is left in λ.
    /// Kernel: `locate_impacts`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn locate_impacts(&mut self, loc: &mut Located<T>, mut grid: Option<Mask<LANES>>) {
        let (zero, m) = (T::zero(), self.m());
        for r in 0..m {
            loc.lambda_sum[r] = Lanes::zero();
            loc.counts[r] = [0; LANES];
        }
        let mut walk = Walk {
            s: [zero; LANES],
            length: [zero; LANES],
            finished: [false; LANES],
            total: [0; LANES],
            tol: T::from(TIME_TOLERANCE).unwrap_or_else(T::nan) * self.step.h,
            min_flight: T::from(MIN_FLIGHT).unwrap_or_else(T::nan) * self.step.h,
        };
        while !all(walk.finished) {
            let stepping = walk.finished.map(|f| !f);
            let closing = match grid.take() {
                Some(closing) => {
                    // The grid step: every lane over the whole step, from the start held.
                    walk.length = [self.step.h; LANES];
                    loc.lambda_last.copy_from_slice(&self.lambda);
                    closing
                }
                None => {
                    self.hold_start(loc, &walk);
                    walk.length = from_fn(|l| self.step.h - walk.s[l]);
                    self.trial(stepping, (Lanes(walk.s), Lanes(walk.length)), loc);
                    self.end_gaps(loc, Lanes(walk.length))
                }
            };
            if !any(closing) {
                // Every trial stands (a flight, or a contact at rest): the step is done.
                self.commit(stepping, loc);
                break;
            }
            let mut found = self.crossings(loc, &walk, closing);
            // Lanes whose trial stands are done.
            let stands: Mask<LANES> = from_fn(|l| !walk.finished[l] && matches!(found[l], Found::Nothing));
            self.commit(stands, loc);
            walk.finished = from_fn(|l| walk.finished[l] | stands[l]);
            let too_soon: Mask<LANES> = from_fn(|l| matches!(found[l], Found::TooSoon(_)));
            self.restore(too_soon, loc);
            self.refine(loc, &walk, &mut found);
            let unseen: Mask<LANES> = from_fn(|l| matches!(found[l], Found::Refine { b: None, .. }));
            walk.finished = from_fn(|l| walk.finished[l] | unseen[l]);
            let touch = self.touchdowns(loc, &mut walk, &found);
            if any(touch.settle) {
                self.settle(loc, &mut walk, &touch);
            }
            if any(touch.impact) {
                self.impacts(loc, &mut walk, &touch);
            }
        }
        for r in 0..m {
            self.lambda[r] = loc.lambda_sum[r];
        }
    }

    /// The step's health, as `record_health`'s with its located impacts: every located
    /// impact counts (one per time), and the last one's time is the last impact time; an
    /// onset the scheme applied at the step's end is an impact at t_{k+1}. Kernel:
    /// `record_located_health`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn record_located_health(&mut self) {
        let onsets = self.record_health();
        let located = self.located.as_mut().expect("a located group");
        if located.impacts.is_empty() && !onsets.any() {
            // (Most steps: no impact, located or applied at the step's end; a lane's located
            // impacts are counted in `times` as they are listed.)
            return;
        }
        let onsets = self.health.record_located(&onsets, located.times);
        let steps = self.health.steps();
        for l in (0..LANES).filter(|&l| onsets[l]) {
            located.last_time.0[l] = self.step.t0 + T::from(steps[l]).unwrap_or_else(T::nan) * self.step.h;
        }
    }
}
