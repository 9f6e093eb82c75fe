//! Impacts located inside the step on a lane group: the reference's located Moreau–Jean step
//! (`reference/impact_location.rs`, whose module doc states the method) lane by lane, in
//! lockstep. Each sub-step — a trial over the rest of the step with the open rows left out,
//! a trial of length τ while a crossing is refined, the zero-length impact, the settling rest
//! of a step — is one pass of the group's Moreau–Jean stages over a [`SubSpan`] that gives
//! each lane its own start and length; the lanes that take no part in it are frozen (τ = 0,
//! every row out: the identity, and their q, v kept as they were).
//!
//! Sub-steps of length τ ≠ h need W(τ) = M + θτC + θ²τ²K: the lanes hold W = M only, so scenes
//! with stiffness or damping are refused before a run (`engine::CpuEngine`).

use std::array::from_fn;

use num_traits::Float;

use super::super::moreau_jean_rows::{EQUALITY as EQUALITY_ROW, TANGENT, row_kind};
use super::{Group, L, LANES};
use crate::contact::lanes::{Lanes, Mask, all, any};
use crate::reference::{MAX_IMPACTS_PER_CONTACT, MAX_LOCATED_IMPACTS, MIN_FLIGHT, TIME_TOLERANCE, first_root};

/// Trial steps spent on one crossing, at most (as the reference's).
const MAX_TRIALS: usize = 60;

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
    gap: Vec<bool>,
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

impl<'a, T: Float, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>
    Group<'a, T, NONLINEAR, EQUALITY, N, M>
{
    /// t_k of a lane that has taken `steps` steps.
    #[inline(always)]
    pub(super) fn step_start(&self, steps: u32) -> T {
        self.step.t0 + T::from(steps).unwrap_or_else(T::nan) * self.step.h
    }

    /// Reads each lane's last impact time from `times` (a located run's, one per scene).
    pub(in crate::batch::cpu) fn load_impact_times(&mut self, times: &[T]) {
        if let (Some(located), false) = (self.located.as_mut(), times.is_empty()) {
            located.last_time = Lanes(from_fn(|l| times[l.min(times.len() - 1)]));
        }
    }

    /// Writes each scene's last impact time to `times` (a located run's).
    pub(in crate::batch::cpu) fn store_impact_times(&self, times: &mut [T]) {
        if let Some(located) = &self.located {
            for (l, t) in times.iter_mut().enumerate() {
                *t = located.last_time.0[l];
            }
        }
    }

    /// Sets the span of the next sub-step: from `start`, of length `tau`, rows left out
    /// where `excluded`, tested closed within `tol` where `closed`, without restitution where
    /// `plastic`.
    #[inline(always)]
    fn set_span(
        &mut self,
        (start, tau, tol): (L<T>, L<T>, L<T>),
        excluded: impl Fn(usize) -> Mask<LANES>,
        closed: impl Fn(usize) -> Mask<LANES>,
        plastic: impl Fn(usize) -> Mask<LANES>,
    ) {
        let m = self.m();
        let span = self.span.as_mut().expect("a located group has a span");
        (span.start, span.tau, span.tol) = (start, tau, tol);
        for r in 0..m {
            span.excluded[r] = excluded(r);
            span.closed[r] = closed(r);
            span.plastic[r] = plastic(r);
        }
    }

    /// One Moreau–Jean sub-step over the span set, in the lanes `lanes`; the others are
    /// frozen (τ = 0, every row out) and keep their q, v. Keeps the λ of the lanes stepped.
    #[inline(always)]
    fn sub_step(&mut self, lanes: Mask<LANES>, located: &mut Located<T>) {
        let (n, m) = (self.n(), self.m());
        let frozen = lanes.map(|x| !x);
        let span = self.span.as_mut().expect("a located group has a span");
        span.tau = Lanes::select(lanes, span.tau, Lanes::zero());
        for r in 0..m {
            span.excluded[r] = from_fn(|l| span.excluded[r][l] | frozen[l]);
        }
        located.kept_q[..n].copy_from_slice(&self.q[..n]);
        located.kept_v[..n].copy_from_slice(&self.v[..n]);
        self.spanning = true;
        self.solve_step();
        self.spanning = false;
        for i in 0..n {
            self.q[i] = Lanes::select(lanes, self.q[i], located.kept_q[i]);
            self.v[i] = Lanes::select(lanes, self.v[i], located.kept_v[i]);
        }
        for r in 0..m {
            located.lambda_last[r] = Lanes::select(lanes, self.lambda[r], located.lambda_last[r]);
        }
    }

    /// Adds the last sub-step's λ of the lanes `lanes` to the step's percussion.
    #[inline(always)]
    fn commit(&self, lanes: Mask<LANES>, located: &mut Located<T>) {
        for r in 0..self.m() {
            let sum = located.lambda_sum[r] + located.lambda_last[r];
            located.lambda_sum[r] = Lanes::select(lanes, sum, located.lambda_sum[r]);
        }
    }

    /// Puts the lanes `lanes` back at the sub-step's start.
    #[inline(always)]
    fn restore(&mut self, lanes: Mask<LANES>, located: &Located<T>) {
        for i in 0..self.n() {
            self.q[i] = Lanes::select(lanes, located.q0[i], self.q[i]);
            self.v[i] = Lanes::select(lanes, located.v0[i], self.v[i]);
        }
    }

    /// The gaps of the open rows at the end of the sub-step just taken (of length `length`
    /// from the gaps `y0`, `ydot0`), and the lanes where one may have closed: its Hermite
    /// interpolant p(s) = y0 H₀₀ + τ ẏ0 H₁₀ + y1 H₀₁ + τ ẏ1 H₁₁ is ≥ min(y0, y1) −
    /// (4/27) τ (|ẏ0| + |ẏ1|) (H₀₀ + H₀₁ = 1, both ≥ 0, |H₁₀|, |H₁₁| ≤ 4/27): above
    /// 0.15 τ (|ẏ0| + |ẏ1|), it does not close. Most steps of a flight end here, all lanes at once.
    #[inline(always)]
    fn end_gaps(&self, loc: &mut Located<T>, length: L<T>) -> Mask<LANES> {
        let bound = Lanes::splat(T::from(0.15).unwrap_or_else(T::nan));
        let mut closing = [false; LANES];
        for r in (0..self.m()).filter(|&r| any(loc.open[r])) {
            (loc.y1[r], loc.ydot1[r]) = self.row_output(r);
            let (y0, d0, y1, d1) = (loc.y0[r], loc.ydot0[r], loc.y1[r], loc.ydot1[r]);
            let clear = (bound * length * (d0.abs() + d1.abs())).le(y0.min(y1));
            closing = from_fn(|l| closing[l] | (loc.open[r][l] & !clear[l]));
        }
        closing
    }

    /// The step's start (every lane at t_k): its gaps and open rows. Where the grid step
    /// leaves every open row out of its problem (y + γ h ẏ > 0) and none may close in it,
    /// that step is the located step's trial and stands — most steps, at the cost of a plain
    /// one; whether it was.
    #[inline(always)]
    fn grid_step_stands(&mut self, loc: &mut Located<T>) -> bool {
        let (n, m, zero) = (self.n(), self.m(), Lanes::zero());
        let gamma_h = Lanes::splat(self.step.gamma * self.step.h);
        let mut inside = false;
        for r in 0..m {
            let (y, ydot) = self.row_output(r);
            (loc.y0[r], loc.ydot0[r]) = (y, ydot);
            let (positive, rising, recent) = (y.gt(zero), ydot.gt(zero), loc.recent[r]);
            loc.open[r] = from_fn(|l| loc.gap[r] && (positive[l] || rising[l] && recent[l]));
            let active = (y + gamma_h * ydot).le(zero);
            inside |= any::<LANES>(from_fn(|l| loc.open[r][l] & active[l]));
        }
        if inside {
            return false;
        }
        loc.q0[..n].copy_from_slice(&self.q[..n]);
        loc.v0[..n].copy_from_slice(&self.v[..n]);
        self.solve_step();
        if any(self.end_gaps(loc, Lanes::splat(self.step.h))) {
            let all = [true; LANES];
            self.restore(all, loc);
            return false;
        }
        true
    }

    /// One step from t_k to t_{k+1} with its impacts located (the reference's
    /// `located_step`, lane by lane): the step's percussion left in λ, its impacts in
    /// [`Located::impacts`]; then its health is recorded.
    #[inline(always)]
    pub(in crate::batch::cpu) fn located_step(&mut self) {
        let mut located = self.located.take().expect("a located group");
        let loc = &mut *located;
        let (m, h) = (self.m(), self.step.h);
        let cast = |x: f64| T::from(x).unwrap_or_else(T::nan);
        let (zero, half) = (T::zero(), cast(0.5));
        let tol = cast(TIME_TOLERANCE) * h;
        let (min_flight, eps) = (cast(MIN_FLIGHT) * h, T::epsilon());
        let steps = self.health.steps();
        loc.impacts.clear();
        loc.times = [0; LANES];
        for r in 0..m {
            loc.lambda_sum[r] = Lanes::zero();
            loc.counts[r] = [0; LANES];
            loc.recent[r] = loc.recent_next[r];
            loc.recent_next[r] = [false; LANES];
        }
        if self.grid_step_stands(loc) {
            self.located = Some(located);
            self.record_located_health();
            return;
        }
        let mut total = [0usize; LANES];
        let mut s = [zero; LANES];
        let mut finished = [false; LANES];
        while !all(finished) {
            // The sub-step's start: its gaps, and the open ones.
            let n = self.n();
            loc.q0[..n].copy_from_slice(&self.q[..n]);
            loc.v0[..n].copy_from_slice(&self.v[..n]);
            for r in 0..m {
                (loc.y0[r], loc.ydot0[r]) = self.row_output(r);
                let (y, ydot, recent) = (loc.y0[r], loc.ydot0[r], loc.recent[r]);
                loc.open[r] = from_fn(|l| {
                    loc.gap[r]
                        && !finished[l]
                        && total[l] < MAX_LOCATED_IMPACTS
                        && (y.0[l] > zero || ydot.0[l] > zero && recent[l])
                });
            }
            let length: [T; LANES] = from_fn(|l| h - s[l]);
            // The trial over the rest of the step, the open rows left out.
            let open = &loc.open;
            self.set_span(
                (Lanes(s), Lanes(length), Lanes::zero()),
                |r| open[r],
                |_| [false; LANES],
                |_| [false; LANES],
            );
            let stepping = finished.map(|f| !f);
            self.sub_step(stepping, loc);
            let closing = self.end_gaps(loc, Lanes(length));
            if !any(closing) {
                // Every trial stands (a flight, or a contact at rest): the step is done.
                self.commit(stepping, loc);
                break;
            }
            // What each lane's trial found: the first crossing over its open rows.
            let found: [Found<T>; LANES] = from_fn(|l| {
                if finished[l] || !closing[l] {
                    return Found::Nothing;
                }
                let (length, mut first) = (length[l], None);
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
                    return sinking.map_or(Found::Nothing, Found::TooSoon);
                };
                if guess * length < min_flight && loc.recent[row][l] {
                    return Found::TooSoon(row);
                }
                Found::Refine {
                    row,
                    a: zero,
                    b: (loc.y1[row].0[l] <= zero).then_some(length),
                    tau: guess * length,
                    held: length,
                    settling_speed: min_flight * acceleration.abs(),
                    refining: true,
                }
            });
            let mut found = found;
            // Lanes whose trial stands are done.
            let stands: Mask<LANES> = from_fn(|l| !finished[l] && matches!(found[l], Found::Nothing));
            self.commit(stands, loc);
            finished = from_fn(|l| finished[l] | stands[l]);
            let too_soon: Mask<LANES> = from_fn(|l| matches!(found[l], Found::TooSoon(_)));
            self.restore(too_soon, loc);
            // The crossings refined together: safeguarded Newton on the gap at the end of
            // trial steps of length τ, from the start, kept on the closed side.
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
                let open = &loc.open;
                self.set_span(
                    (Lanes(s), Lanes(tau), Lanes::zero()),
                    |r| open[r],
                    |_| [false; LANES],
                    |_| [false; LANES],
                );
                self.sub_step(refining, loc);
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
                    *held = *tau;
                    if y <= zero {
                        *b = Some(*tau);
                        if -y <= tol * -ydot.min(zero) {
                            *refining = false;
                            continue;
                        }
                    } else {
                        *a = *tau;
                    }
                    let hi = b.unwrap_or(length[l]);
                    // Converged to rounding, or open and opening never seen closed (a graze
                    // of the interpolant).
                    if hi - *a <= eps * hi || b.is_none() && ydot >= zero {
                        *refining = false;
                        continue;
                    }
                    // Newton on the gap; from the open side half a tolerance past the root,
                    // so that the next trial lands closed.
                    let newton = if ydot < zero {
                        *tau - y / ydot + if y > zero { tol * half } else { zero }
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
            // Each crossing lane at its closed end (never seen closed: the whole trial
            // stands), taken again where the lane holds another trial.
            let mut again = [false; LANES];
            let mut tau = [zero; LANES];
            for l in 0..LANES {
                if let Found::Refine { b, held, .. } = found[l] {
                    tau[l] = b.unwrap_or(length[l]);
                    again[l] = held != tau[l];
                }
            }
            if any(again) {
                self.restore(again, loc);
                let open = &loc.open;
                self.set_span(
                    (Lanes(s), Lanes(tau), Lanes::zero()),
                    |r| open[r],
                    |_| [false; LANES],
                    |_| [false; LANES],
                );
                self.sub_step(again, loc);
            }
            let refined: Mask<LANES> = from_fn(|l| matches!(found[l], Found::Refine { .. }));
            self.commit(refined, loc);
            let unseen: Mask<LANES> = from_fn(|l| matches!(found[l], Found::Refine { b: None, .. }));
            finished = from_fn(|l| finished[l] | unseen[l]);
            // The impact time of each crossing lane, and whether its contact settles.
            let mut settle = [false; LANES];
            let mut impact = [false; LANES];
            let mut row_of = [0usize; LANES];
            for l in 0..LANES {
                let (row, tau, settling_speed) = match found[l] {
                    Found::TooSoon(row) => (row, zero, None),
                    Found::Refine {
                        row,
                        b: Some(b),
                        settling_speed,
                        ..
                    } => (row, b, Some(settling_speed)),
                    _ => continue,
                };
                s[l] = if tau < length[l] { s[l] + tau } else { h };
                row_of[l] = row;
                // (The gaps at t*, before the impact: the touch-down speed is read there.)
                let speed = -self.row_output(row).1.0[l];
                loc.counts[row][l] += 1;
                let settles = settling_speed.is_none_or(|settling| speed <= settling);
                if settles || loc.counts[row][l] as usize > MAX_IMPACTS_PER_CONTACT {
                    settle[l] = true;
                } else {
                    impact[l] = true;
                }
            }
            // A contact whose accumulation has converged (or is cut at the cap) settles
            // plastically over the rest of the step; the touch-down is no impact.
            if any(settle) {
                let settling: Mask<LANES> = from_fn(|l| settle[l] && s[l] < h);
                let rest: [T; LANES] = from_fn(|l| h - s[l]);
                let plastic = |r: usize| from_fn(|l| settle[l] && row_of[l] == r);
                self.set_span(
                    (Lanes(s), Lanes(rest), Lanes::zero()),
                    |_| [false; LANES],
                    plastic,
                    plastic,
                );
                self.sub_step(settling, loc);
                self.commit(settling, loc);
                finished = from_fn(|l| finished[l] | settle[l]);
            }
            // The impacts: a zero-length step at t*, rows closing within the tolerance
            // together.
            if any(impact) {
                let before: Vec<L<T>> = (0..m).map(|r| self.row_output(r).1).collect();
                let gap = &loc.gap;
                self.set_span(
                    (Lanes(s), Lanes::zero(), Lanes::splat(tol)),
                    |_| [false; LANES],
                    |r| [gap[r]; LANES],
                    |_| [false; LANES],
                );
                self.sub_step(impact, loc);
                self.commit(impact, loc);
                for l in (0..LANES).filter(|&l| impact[l]) {
                    total[l] += 1;
                    let mut any_row = false;
                    for (r, before) in before.iter().enumerate() {
                        let lambda = loc.lambda_last[r].0[l];
                        let carries = loc.gap[r] && lambda > zero;
                        loc.recent[r][l] = carries;
                        if carries {
                            any_row = true;
                            loc.recent_next[r][l] = true;
                            loc.impacts.push(Impact {
                                lane: l,
                                row: r,
                                s: s[l],
                                ydot_before: before.0[l],
                                ydot_after: self.row_output(r).1.0[l],
                                lambda,
                            });
                        }
                    }
                    if any_row {
                        loc.times[l] += 1;
                        loc.last_time.0[l] = self.step_start(steps[l]) + s[l];
                    }
                    finished[l] |= s[l] >= h;
                }
            }
        }
        for r in 0..m {
            self.lambda[r] = loc.lambda_sum[r];
        }
        self.located = Some(located);
        self.record_located_health();
    }

    /// The step's health, as `record_health`'s with its located impacts: every located
    /// impact counts (one per time), and the last one's time is the last impact time; an
    /// onset the scheme applied at the step's end is an impact at t_{k+1}.
    #[inline(always)]
    fn record_located_health(&mut self) {
        let before = self.health.impacts();
        self.record_health();
        let located = self.located.as_mut().expect("a located group");
        let onsets = self.health.record_located(before, located.times);
        let steps = self.health.steps();
        for l in (0..LANES).filter(|&l| onsets[l]) {
            located.last_time.0[l] = self.step.t0 + T::from(steps[l]).unwrap_or_else(T::nan) * self.step.h;
        }
    }
}
