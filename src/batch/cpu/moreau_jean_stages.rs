//! The stages of one batched Moreau–Jean step on a lane group: each [`Group`] method is the
//! twin of the kernel function of the same name and arguments in
//! `shaders/moreau_jean_stages.wgsl`, with the same order of operations; where the kernel
//! branches per scene, the lanes select.
//!
//! Inlining: in an optimised build every stage is `#[inline(always)]`, down to the lanes, into
//! `moreau_jean_pgs::simulate`, once per instruction set (that is what makes the AVX2 copy use
//! AVX2) and per group kind and precision: twenty-five copies of the whole step (AVX-512 in
//! f64 only). LLVM took 13½
//! minutes over those copies in the dev profile (opt-level 1, line tables), so
//! with debug assertions on (the dev and test profiles) the stages are left to LLVM's own
//! choice — `#[cfg_attr(not(debug_assertions), inline(always))]` — and the crate builds in
//! 40 s. The results are the same bits either way (no fused or reordered float operation is
//! allowed in Rust), but a dev build's AVX2 copy calls the same out-of-line stages as its
//! baseline one: `cargo test --release --test integration simd::` checks the copies as
//! shipped.

use std::array::from_fn;

use num_traits::Float;

use super::health::{LaneHealth, Onsets};
use super::moreau_jean_rows::{EQUALITY as EQUALITY_ROW, cone_violation, is_normal, row_kind};
use crate::batch::layout::{
    EXTREMES, HealthCounters, NON_FINITE, RATTLE, SPAN_DYNAMICS, SPARSE, SceneHeader, SpanBlocks,
};
use crate::batch::observe::Recording;
use crate::batch::sparsity::Rows;
use crate::batch::{OperatorOffsets, StepParams};
use crate::contact::lanes::{LANES, Lanes, Mask, lanewise};

pub(super) use located::{Located, SubSpan};

mod forcing;
mod located;
mod newton;
mod observe;
mod outputs;
mod rattle;
mod solve;

type L<T> = Lanes<T, LANES>;

/// The scenes of one group (equal sizes and flags, at most [`LANES`]) in lockstep: the
/// kernel's private state, one lane per scene (padding lanes repeat the last scene).
/// NONLINEAR and EQUALITY are the group's flags, as compile-time constants so that a linear
/// group runs without the Newton loop's bookkeeping; N and M, where not 0, are its degrees of
/// freedom and rows, known at compile time so that a small scene's loops unroll (the same
/// operations in the same order as with N = M = 0, which reads them from the headers).
pub(super) struct Group<'a, T, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize> {
    n: usize,
    m: usize,
    flags: u32,
    scenes: usize,
    /// The group's operators in lanes, and where each block starts.
    ops: &'a [L<T>],
    o: OperatorOffsets,
    step: &'a StepParams<T>,
    /// The [`RowKind`](crate::batch::RowKind) code of each row (the group's scenes share them).
    rows: &'a [u32],
    /// A [`SPARSE`] group's row patterns of H (and W⁻¹Hᵀ) and of D; `None` when dense.
    patterns: Option<(Rows<'a>, Rows<'a>)>,
    /// Coulomb's μ of each row.
    mu: &'a [L<T>],
    q: Vec<L<T>>,
    v: Vec<L<T>>,
    vf: Vec<L<T>>,
    vk: Vec<L<T>>,
    vi: Vec<L<T>>,
    qi: Vec<L<T>>,
    lcp_q: Vec<L<T>>,
    lcp_base: Vec<L<T>>,
    lambda: Vec<L<T>>,
    active: Vec<Mask<LANES>>,
    /// With nonlinear rows: G, W⁻¹Gᵀ (m n), D (m²) and the last input Gᵀλ (n) of the Newton
    /// iterate, and the lanes whose Newton loop has stopped. (W⁻¹Hᵀ and D of a located
    /// sub-step's W(τ) with [`SPAN_DYNAMICS`], the rest of its operators in `span_ops`.)
    gmat: Vec<L<T>>,
    wgmat: Vec<L<T>>,
    dmat: Vec<L<T>>,
    pold: Vec<L<T>>,
    settled: Mask<LANES>,
    health: LaneHealth,
    worst: L<T>,
    deepest: L<T>,
    cone: L<T>,
    /// With impact events or RATTLE: each row's ẏ at the start of the step (before the
    /// impact); with impact events, scratch for their recording (ẏ after, one lane's events).
    rate: Vec<L<T>>,
    after: Vec<L<T>>,
    event_lane: Vec<T>,
    /// What is recorded, and the record: the observers' accumulators
    /// ([`SLOTS`](crate::batch::observe::SLOTS) each), the stroboscopic samples, the events.
    recording: &'a Recording,
    observed: Vec<L<T>>,
    /// RATTLE: the stage-1 percussion P¹ (empty for Moreau–Jean).
    p1: Vec<L<T>>,
    /// With impacts located inside the step: the span of the sub-step being taken (read by
    /// the stages in place of the grid step) and the located step's own state.
    span: Option<SubSpan<T>>,
    spanning: bool,
    located: Option<Box<Located<T>>>,
    /// A located sub-step's own A(τ), B(τ), c(τ), c_h(τ) and W(τ) where the scene's W depends
    /// on the step's length ([`SPAN_DYNAMICS`]: [`SpanBlocks`]); empty otherwise.
    span_ops: Vec<L<T>>,
}

/// A group's arrays in the batch: q, v of each scene, its counters, its extremes and its
/// observers' accumulators.
pub(super) type GroupArrays<'b, T> = (&'b [T], &'b [HealthCounters], &'b [T], &'b [T]);
/// The same, to write back.
pub(super) type GroupArraysMut<'b, T> = (&'b mut [T], &'b mut [HealthCounters], &'b mut [T], &'b mut [T]);

impl<'a, T: Float, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>
    Group<'a, T, NONLINEAR, EQUALITY, N, M>
{
    /// Gathers the group's state (`values`: q, v of each scene), health and observers'
    /// accumulators into lanes (the kernel's `load_scene`); `structure` is the scenes' row
    /// kinds and patterns ([`SceneBatch::structure_of`](crate::batch::SceneBatch::structure_of)).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn load(
        (headers, structure): (&[SceneHeader], &'a [u32]),
        ops: &'a [L<T>],
        step: &'a StepParams<T>,
        (recording, locate): (&'a Recording, bool),
        (values, counters, extremes, observed): GroupArrays<'_, T>,
    ) -> Self {
        let (n, m, scenes) = (headers[0].ndof as usize, headers[0].ncontacts as usize, headers.len());
        assert!(
            (N == 0 || N == n) && (M == 0 || M == m),
            "a group of {n} dofs and {m} rows stepped as one of {N} and {M}"
        );
        let lane = |l: usize| l.min(scenes - 1);
        let o = headers[0].offsets();
        let (rows, encoded) = structure.split_at(m);
        let record = recording.len(n, m);
        let load = |k: usize| Lanes(from_fn(|l| values[2 * n * lane(l) + k]));
        let zeros = |len: usize| vec![Lanes::zero(); len];
        let span_dynamics = locate && headers[0].flags & SPAN_DYNAMICS != 0;
        let newton = |len: usize| if NONLINEAR { zeros(len) } else { Vec::new() };
        let iterate = |len: usize| {
            if NONLINEAR || span_dynamics {
                zeros(len)
            } else {
                Vec::new()
            }
        };
        Self {
            n,
            m,
            flags: headers[0].flags,
            scenes,
            ops,
            o,
            step,
            rows,
            patterns: (headers[0].flags & SPARSE != 0).then(|| Rows::read(encoded, m, headers[0].h_entries as usize)),
            mu: &ops[o.mu..o.mu + m],
            q: (0..n).map(load).collect(),
            v: (0..n).map(|i| load(n + i)).collect(),
            vf: zeros(n),
            vk: zeros(n),
            vi: zeros(n),
            qi: zeros(n),
            lcp_q: zeros(m),
            lcp_base: zeros(m),
            lambda: zeros(m),
            rate: if recording.events.is_some() || headers[0].flags & RATTLE != 0 {
                zeros(m)
            } else {
                Vec::new()
            },
            after: if recording.events.is_some() {
                zeros(m)
            } else {
                Vec::new()
            },
            event_lane: Vec::with_capacity(record - recording.events_at(n)),
            active: vec![[false; LANES]; m],
            gmat: newton(m * n),
            wgmat: iterate(n * m),
            dmat: iterate(m * m),
            pold: newton(n),
            settled: [false; LANES],
            health: LaneHealth::load(from_fn(|l| counters[lane(l)])),
            worst: Lanes(from_fn(|l| extremes[EXTREMES * lane(l)])),
            deepest: Lanes(from_fn(|l| extremes[EXTREMES * lane(l) + 1])),
            cone: Lanes(from_fn(|l| extremes[EXTREMES * lane(l) + 2])),
            observed: (0..record)
                .map(|x| Lanes(from_fn(|l| observed[record * lane(l) + x])))
                .collect(),
            recording,
            p1: if headers[0].flags & RATTLE != 0 {
                zeros(m)
            } else {
                Vec::new()
            },
            span: locate.then(|| SubSpan::new(m)),
            spanning: false,
            located: locate.then(|| Box::new(Located::new(n, m, structure, recording.observers.len()))),
            span_ops: if span_dynamics {
                zeros(SpanBlocks::new(n).len)
            } else {
                Vec::new()
            },
        }
    }

    /// The degrees of freedom n of each scene (N where N is not 0).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn n(&self) -> usize {
        if N == 0 { self.n } else { N }
    }

    /// The rows m of each scene (M where M is not 0).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn m(&self) -> usize {
        if M == 0 { self.m } else { M }
    }

    /// Where H (and W⁻¹Hᵀ, transposed) keeps row r's entries: the pattern of a [`SPARSE`]
    /// group, else every column (N of them where N is not 0: a group of compile-time sizes
    /// is never compressed). Kernel: `row_span`, `row_col` of H's pattern.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn h_rows(&self) -> Rows<'a> {
        match self.patterns {
            Some((h, _)) if N == 0 => h,
            _ => Rows::Dense(self.n()),
        }
    }

    /// Where the scene's Delassus matrix keeps row r's entries: the pattern of a [`SPARSE`]
    /// group, else every column (M where M is not 0). Kernel: `row_span`, `row_col` of D's pattern.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn d_rows(&self) -> Rows<'a> {
        match self.patterns {
            Some((_, d)) if M == 0 => d,
            _ => Rows::Dense(self.m()),
        }
    }

    /// Scatters the lanes back, flagging a non-finite state (the kernel's `store_scene`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn store(&self, (values, counters, extremes, observed): GroupArraysMut<'_, T>) {
        let (n, health, slots) = (self.n(), self.health.store(), self.observed.len());
        for l in 0..self.scenes {
            let mut c = health[l];
            if !self.q.iter().chain(self.v.iter()).all(|x| x.0[l].is_finite()) {
                c.flags |= NON_FINITE;
            }
            for i in 0..n {
                values[2 * n * l + i] = self.q[i].0[l];
                values[2 * n * l + n + i] = self.v[i].0[l];
            }
            counters[l] = c;
            extremes[EXTREMES * l] = self.worst.0[l];
            extremes[EXTREMES * l + 1] = self.deepest.0[l];
            extremes[EXTREMES * l + 2] = self.cone.0[l];
            for (x, value) in self.observed.iter().enumerate() {
                observed[slots * l + x] = value.0[l];
            }
        }
    }

    /// Whether no step has been taken yet (the run starts at t₀: the observers' first sample).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn at_start(&self) -> bool {
        self.health.steps().iter().all(|&k| k == 0)
    }

    /// Whether row r is an equality (always in the MLCP, λ unprojected). Kernel: `is_equality`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn is_equality(&self, r: usize) -> bool {
        EQUALITY && row_kind(self.rows, r) == EQUALITY_ROW
    }

    /// The span of the located sub-step being taken, if one is (the grid step otherwise).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn sub_span(&self) -> Option<&SubSpan<T>> {
        self.span.as_ref().filter(|_| self.spanning)
    }

    /// Whether a located sub-step is being taken with its own operators of W(τ)
    /// ([`Group::span_operators`]).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn span_built(&self) -> bool {
        self.spanning && !self.span_ops.is_empty()
    }

    /// The length of the step being taken in each lane: h, or a located sub-step's τ.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn span_length(&self) -> L<T> {
        self.sub_span().map_or(Lanes::splat(self.step.h), |span| span.tau)
    }

    /// Moreau–Jean's step from the free velocity to the new position (`simulate`'s loop
    /// body, before its health and observers): [`STAGES`](super::moreau_jean_pgs::STAGES)
    /// from `harmonic_forcing` to `update_position`, the Newton loop with nonlinear rows. Kernel:
    /// `solve_step`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn solve_step(&mut self) {
        self.free_velocity(self.harmonic_forcing());
        self.outputs_and_activation();
        let mut newton = 0;
        loop {
            if NONLINEAR {
                if self.newton_jacobian(newton) {
                    break;
                }
                self.newton_operators();
            }
            self.solve_local();
            self.impulse_to_velocity();
            newton += 1;
            if !NONLINEAR {
                break;
            }
        }
        self.update_position();
    }

    /// Counts the step: an impact when some contact (not an equality row) carries an impulse
    /// and none did in the step before; and the worst cone violation ‖λ_T‖ − μ λ_N of its
    /// friction contacts. Kernel: `record_health`.
    /// Returns the onsets ([`LaneHealth::record`]).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn record_health(&mut self) -> Onsets {
        for r in 0..self.m() {
            let kind = row_kind(self.rows, r);
            if is_normal(kind) {
                self.cone = self.cone.max(cone_violation(self.mu, &self.lambda, r, kind as usize));
            }
        }
        let mut loaded = [false; LANES];
        for (r, x) in self.lambda.iter().enumerate() {
            if row_kind(self.rows, r) != EQUALITY_ROW {
                let carries = x.gt(Lanes::zero());
                loaded = lanewise(false, |l| loaded[l] | carries[l]);
            }
        }
        self.health.record(loaded)
    }
}
