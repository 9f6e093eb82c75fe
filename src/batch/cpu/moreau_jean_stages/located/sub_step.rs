//! The sub-steps of a located step: a span set per lane, one pass of the group's Moreau–Jean
//! stages over it in the lanes that take part (the others frozen), its percussion kept or
//! undone, and the bound that tells the steps with no crossing from the rest.

use std::array::from_fn;

use num_traits::Float;

use super::super::{Group, L, LANES};
use super::{Located, Walk};
use crate::contact::lanes::{Lanes, Mask, any, lanewise};
use crate::reference::{MAX_LOCATED_IMPACTS, rounding_floor};

impl<'a, T: Float, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>
    Group<'a, T, NONLINEAR, EQUALITY, N, M>
{
    /// Sets the span of the next sub-step: from `start`, of length `tau`, rows left out
    /// where `excluded`, tested closed within `tol` where `closed`, without restitution where
    /// `plastic`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn set_span(
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
    /// Kernel: `sub_step`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn sub_step(&mut self, lanes: Mask<LANES>, located: &mut Located<T>) {
        let (n, m) = (self.n(), self.m());
        let frozen = lanes.map(|x| !x);
        let span = self.span.as_mut().expect("a located group has a span");
        span.tau = Lanes::select(lanes, span.tau, Lanes::zero());
        for r in 0..m {
            span.excluded[r] = from_fn(|l| span.excluded[r][l] | frozen[l]);
        }
        for i in 0..n {
            (located.kept_q[i], located.kept_v[i]) = (self.q[i], self.v[i]);
        }
        if !self.span_ops.is_empty() {
            self.span_operators();
        }
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

    /// A trial sub-step in the lanes `lanes`, from `start` over `tau`, the open rows left out.
    /// Kernel: `trial_span` (the span; the kernel's one pass site takes it).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn trial(&mut self, lanes: Mask<LANES>, (start, tau): (L<T>, L<T>), loc: &mut Located<T>) {
        let open = &loc.open;
        self.set_span(
            (start, tau, Lanes::zero()),
            |r| open[r],
            |_| [false; LANES],
            |_| [false; LANES],
        );
        self.sub_step(lanes, loc);
    }

    /// Adds the last sub-step's λ of the lanes `lanes` to the step's percussion. Kernel: `commit`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn commit(&self, lanes: Mask<LANES>, located: &mut Located<T>) {
        for r in 0..self.m() {
            let sum = located.lambda_sum[r] + located.lambda_last[r];
            located.lambda_sum[r] = Lanes::select(lanes, sum, located.lambda_sum[r]);
        }
    }

    /// Puts the lanes `lanes` back at the sub-step's start. Kernel: `restore`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn restore(&mut self, lanes: Mask<LANES>, located: &Located<T>) {
        for i in 0..self.n() {
            self.q[i] = Lanes::select(lanes, located.q0[i], self.q[i]);
            self.v[i] = Lanes::select(lanes, located.v0[i], self.v[i]);
        }
    }

    /// Holds the sub-step's start: q, v, the gaps, and the open rows of the lanes still
    /// walking — a gap row that is open (y above its rounding floor) or that an impact left
    /// separating (ẏ > 0), in a lane under its cap of located impacts. Kernel: `hold_start`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn hold_start(&mut self, loc: &mut Located<T>, walk: &Walk<T>) {
        let n = self.n();
        for i in 0..n {
            (loc.q0[i], loc.v0[i]) = (self.q[i], self.v[i]);
        }
        for r in 0..self.m() {
            (loc.y0[r], loc.ydot0[r]) = self.row_output(r);
            let terms = if loc.gap[r] {
                self.output_terms(r)
            } else {
                Lanes::zero()
            };
            let (y, ydot, recent, gap) = (loc.y0[r], loc.ydot0[r], loc.recent[r], loc.gap[r]);
            loc.open[r] = lanewise(false, |l| {
                gap && !walk.finished[l]
                    && walk.total[l] < MAX_LOCATED_IMPACTS
                    && is_open(y.0[l], ydot.0[l], terms.0[l], recent[l])
            });
        }
    }

    /// The gaps of the open rows at the end of the sub-step just taken (of length `length`
    /// from the gaps `y0`, `ydot0`), and the lanes where one may have closed: its Hermite
    /// interpolant p(s) = y0 H₀₀ + τ ẏ0 H₁₀ + y1 H₀₁ + τ ẏ1 H₁₁ is ≥ min(y0, y1) −
    /// (4/27) τ (|ẏ0| + |ẏ1|) (H₀₀ + H₀₁ = 1, both ≥ 0, |H₁₀|, |H₁₁| ≤ 4/27): above
    /// 0.15 τ (|ẏ0| + |ẏ1|), it does not close. Most steps of a flight end here, all lanes at
    /// once. Kernel: `end_gaps`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn end_gaps(&self, loc: &mut Located<T>, length: L<T>) -> Mask<LANES> {
        let bound = T::from(0.15).unwrap_or_else(T::nan);
        let mut closing = [false; LANES];
        for r in (0..self.m()).filter(|&r| any(loc.open[r])) {
            (loc.y1[r], loc.ydot1[r]) = self.row_output(r);
            let (y0, d0, y1, d1) = (loc.y0[r], loc.ydot0[r], loc.y1[r], loc.ydot1[r]);
            for (l, closing) in closing.iter_mut().enumerate() {
                let clear = bound * length.0[l] * (d0.0[l].abs() + d1.0[l].abs()) <= y0.0[l].min(y1.0[l]);
                *closing |= loc.open[r][l] & !clear;
            }
        }
        closing
    }

    /// The step's start (every lane at t_k): its gaps and open rows held. Where the grid step
    /// leaves every open row out of its problem (y + γ h ẏ > 0), it is the located step's
    /// first trial, bit for bit, and is taken: where no gap may close in it, it stands —
    /// most steps, at the cost of a plain one. Returns what was taken ([`GridStep`]).
    /// Kernel: `grid_step`, `grid_step_closes`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn grid_step(&mut self, loc: &mut Located<T>) -> GridStep {
        let (n, m, zero) = (self.n(), self.m(), T::zero());
        let gamma_h = self.step.gamma * self.step.h;
        // (Plain loops over the lanes: this runs every step, beside a step that is short for
        // a small scene.)
        let mut inside = false;
        for r in 0..m {
            let (y, ydot) = self.row_output(r);
            (loc.y0[r], loc.ydot0[r]) = (y, ydot);
            let (gap, recent) = (loc.gap[r], loc.recent[r]);
            let terms = if gap { self.output_terms(r) } else { Lanes::zero() };
            let open = &mut loc.open[r];
            for l in 0..LANES {
                let (y, ydot) = (y.0[l], ydot.0[l]);
                open[l] = gap & is_open(y, ydot, terms.0[l], recent[l]);
                inside |= open[l] & (y + gamma_h * ydot <= zero);
            }
        }
        if inside {
            return GridStep::NotTaken;
        }
        for i in 0..n {
            (loc.q0[i], loc.v0[i]) = (self.q[i], self.v[i]);
        }
        self.solve_step();
        let closing = self.end_gaps(loc, Lanes::splat(self.step.h));
        if any(closing) {
            GridStep::MayClose(closing)
        } else {
            GridStep::Stands
        }
    }
}

/// What [`Group::grid_step`] did.
pub(super) enum GridStep {
    /// Taken, and no gap closes in it: the step is done.
    Stands,
    /// Taken, and a gap may have closed in it in these lanes ([`Group::end_gaps`]): it is
    /// the walk's first trial.
    MayClose(Mask<LANES>),
    /// Not taken: an open row is inside the grid step's problem; the walk starts afresh.
    NotTaken,
}

/// Whether a gap row at (y, ẏ), of terms of size `terms`, is open: apart (y above its
/// rounding floor φ, within which its sign is noise: a contact at rest, held by the scheme's
/// test), or separating (ẏ > 0) after an impact in the last step or this one (`recent`: its
/// next crossing is the return of that flight). Kernel: `is_open`.
#[cfg_attr(not(debug_assertions), inline(always))]
fn is_open<T: Float>(y: T, ydot: T, terms: T, recent: bool) -> bool {
    // (Without early exits: the grid step's test runs every step, over every lane.)
    (y > rounding_floor(y, terms)) | (ydot > T::zero()) & recent
}
