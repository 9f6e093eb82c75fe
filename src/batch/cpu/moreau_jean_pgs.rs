//! The batched Moreau–Jean stepper on the CPU (and nonsmooth RATTLE's, [`RATTLE_STAGES`]): the
//! same named stages ([`STAGES`]), the same
//! order of operations and the same data layout as the WGSL kernel
//! `shaders/moreau_jean_pgs.wgsl`, generic over f32 and f64. It is the kernel's CPU twin (for cross-checks) and the CPU backend of
//! ensembles: scenes of equal sizes are stepped [`LANES`] at a time in SIMD lanes, and the
//! lane groups run in parallel on all cores (rayon). Each lane computes exactly what one
//! scene alone would, so results do not depend on the grouping or the thread count.
//!
//! Per scene and step (operators from [`crate::batch::LinearScene`]; the stages are in
//! `moreau_jean_stages.rs`):
//! ```text
//!   v_free = v_k + c − A v_k − B q_k,  c = c₀ + W⁻¹h a [(1−θ) cos(ω t_k + φ) + θ cos(ω t_{k+1} + φ)]
//!            (each cosine 0 from the force's end on; the kernel's own cosine polynomial)
//!   y = H q_k + Y q_k² + b (+ sphere gaps, + levers a cos q_j + b sin q_j),  ẏ = G(q_k) v_k,
//!   active ⇔ equality row or y + γ h ẏ ≤ 0
//!   Newton iterate i = 1, 2, … (one pass without nonlinear rows), v⁰ = v_k:
//!     q^i = q_k + h((1−θ) v_k + θ v^{i−1}),  G = H + 2 Y diag(q^i) + sphere–sphere normals
//!                                              + lever slopes
//!     stop when ‖(G(q^{i−1}) − G(q^i))ᵀ λ^{i−1}‖ ≤ newton tolerance
//!     PGS on the active rows of w = G W⁻¹Gᵀ λ + G v_free + e ẏ + f y (0 ≤ λ ⟂ w ≥ 0 on
//!     contacts, w = 0 with λ unprojected on equalities) until Siconos's error ≤ tol
//!     v^i = v_free + W⁻¹Gᵀ λ
//!   v_{k+1} = v^i,   q_{k+1} = q_k + h (θ v_{k+1} + (1−θ) v_k)
//! ```

use std::array::from_fn;
use std::ops::Range;

use num_traits::Float;
use rayon::prelude::*;

use super::moreau_jean_stages::Group;
use super::simd::{Isa, Simd};
use crate::batch::layout::{EXTREMES, HAS_EQUALITY, HAS_NONLINEAR, HealthCounters, RATTLE, SceneHeader};
use crate::batch::observe::Recording;
use crate::batch::progress::{Progress, TICK};
use crate::batch::{BatchOptions, SceneBatch, StepParams};
use crate::contact::lanes::{LANES, Lanes};

/// A float the lanes step in: f64 (the CPU engine's) or f32 (the GPU f32 kernels' twin).
pub trait LaneFloat: Float + Send + Sync {
    /// Whether groups in this float locate impacts inside the step: f64 only (the CPU engine
    /// locates in f64; no f32 engine locates), so that the f32 lanes are compiled without
    /// the located step.
    const LOCATES: bool;
    /// Whether groups in this float have a copy compiled for AVX-512: f64 only (the CPU
    /// engine's float; the f32 lanes are the GPU kernels' twin, run to check them), so that
    /// the build compiles five copies of the whole step fewer. f32 groups take the AVX2 copy
    /// there.
    const AVX512: bool;
}

impl LaneFloat for f64 {
    const LOCATES: bool = true;
    const AVX512: bool = true;
}

impl LaneFloat for f32 {
    const LOCATES: bool = false;
    const AVX512: bool = false;
}

/// The stages of a step in the order they run, with their arguments: the kernel's stage
/// functions (`shaders/moreau_jean_stages.wgsl`) and the twin's methods
/// (`moreau_jean_stages.rs`) carry these names and arguments (a test checks both).
pub const STAGES: [(&str, &[&str]); 10] = [
    ("harmonic_forcing", &[]),
    ("free_velocity", &["mix"]),
    ("outputs_and_activation", &[]),
    ("newton_jacobian", &["newton"]),
    ("newton_operators", &[]),
    ("solve_local", &[]),
    ("impulse_to_velocity", &[]),
    ("update_position", &[]),
    ("record_health", &[]),
    ("observe", &["first"]),
];

/// The stages of a nonsmooth RATTLE step in the order they run, with their arguments (the
/// twin's methods, `moreau_jean_stages/rattle.rs`; `stage1_residual` and `stage1_solve`
/// repeat until the first says stage 1 has converged).
pub const RATTLE_STAGES: [(&str, &[&str]); 10] = [
    ("rattle_start", &[]),
    ("half_kick", &["cosine"]),
    ("stage1_rows", &[]),
    ("stage1_residual", &["iterate"]),
    ("stage1_solve", &[]),
    ("stage1_update", &[]),
    ("end_kick", &["cosine"]),
    ("stage2_solve", &[]),
    ("record_health", &[]),
    ("observe", &["first"]),
];

/// The evolving arrays of a batch in value type `T`, and its health.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchState<T> {
    /// q then v of every scene.
    pub state: Vec<T>,
    /// Per-scene counters.
    pub counters: Vec<HealthCounters>,
    /// Per scene the [`EXTREMES`]: worst LCP residual, deepest penetration max(−y), worst cone
    /// violation.
    pub extremes: Vec<T>,
    /// Per scene its record ([`Recording`]): the accumulators of the batch's observers, its
    /// stroboscopic samples and its impact events.
    pub observed: Vec<T>,
    /// With impacts located inside the step ([`BatchOptions::locate_impacts`]), per scene the
    /// time of its last impact (NaN before one; a run that locates them sizes it); empty
    /// otherwise.
    pub impact_times: Vec<T>,
}

impl<T: Float> BatchState<T> {
    /// The initial state of `batch`, converted to `T`.
    pub fn new(batch: &SceneBatch) -> Self {
        let cast = |x: f64| T::from(x).unwrap_or_else(T::nan);
        Self {
            state: batch.state.iter().map(|&x| cast(x)).collect(),
            counters: vec![HealthCounters::default(); batch.len()],
            extremes: vec![T::min_value(); EXTREMES * batch.len()],
            observed: batch
                .headers
                .iter()
                .flat_map(|h| batch.recording.initial::<T>(h.ndof as usize, h.ncontacts as usize))
                .collect(),
            impact_times: Vec::new(),
        }
    }
}

/// Advances every scene of `batch` by `steps` steps (scenes are independent: this is the
/// loop the GPU runs one invocation per scene). `operators` is `batch.operators` in `T`.
/// The lanes run on the widest instruction set of this CPU ([`Simd::detect`]).
pub fn run<T: LaneFloat>(
    batch: &SceneBatch,
    operators: &[T],
    state: &mut BatchState<T>,
    steps: u32,
    options: &BatchOptions,
) {
    run_on(
        Simd::detect(),
        batch,
        operators,
        state,
        (steps, &Progress::new()),
        options,
    );
}

/// [`run`] on the instruction set `simd` (the same bits on every one), adding the
/// scene-steps done to `progress` as the groups go.
pub fn run_on<T: LaneFloat>(
    simd: Simd,
    batch: &SceneBatch,
    operators: &[T],
    state: &mut BatchState<T>,
    (steps, progress): (u32, &Progress),
    options: &BatchOptions,
) {
    let step = StepParams {
        h: batch.h,
        theta: batch.theta,
        gamma: batch.gamma,
        tolerance: options.tolerance,
        newton_tolerance: options.newton_tolerance,
        position_tolerance: options.position_tolerance,
        t0: batch.t0,
        max_iterations: options.max_iterations,
        newton_max_iterations: options.newton_max_iterations,
    }
    .map(|x| T::from(x).unwrap_or_else(T::nan));
    let locate = options.locate_impacts;
    if locate && state.impact_times.len() != batch.len() {
        state.impact_times = vec![T::nan(); batch.len()];
    }
    // Split the arrays into the disjoint parts of each group, then step the groups in parallel.
    let mut parts = Vec::new();
    let (mut values, mut counters, mut extremes, mut observed, mut times) = (
        state.state.as_mut_slice(),
        state.counters.as_mut_slice(),
        state.extremes.as_mut_slice(),
        state.observed.as_mut_slice(),
        state.impact_times.as_mut_slice(),
    );

    let record = batch
        .headers
        .first()
        .map_or(0, |h| batch.recording.len(h.ndof as usize, h.ncontacts as usize));
    for group in groups(batch) {
        let end = batch
            .headers
            .get(group.end)
            .map_or(batch.state.len(), |h| h.state_offset as usize);
        let start = batch.headers[group.start].state_offset as usize;
        let (v, rest) = std::mem::take(&mut values).split_at_mut(end - start);
        let (c, rest_c) = std::mem::take(&mut counters).split_at_mut(group.len());
        let (e, rest_e) = std::mem::take(&mut extremes).split_at_mut(EXTREMES * group.len());
        let (o, rest_o) = std::mem::take(&mut observed).split_at_mut(record * group.len());
        let (t, rest_t) = std::mem::take(&mut times).split_at_mut(if locate { group.len() } else { 0 });
        (values, counters, extremes, observed, times) = (rest, rest_c, rest_e, rest_o, rest_t);
        parts.push((group, (v, c, e, o, t)));
    }
    parts
        .into_par_iter()
        .for_each_init(Vec::new, |scratch, (group, arrays)| {
            let headers = &batch.headers[group];
            let len = headers[0].operators();
            // The group's operators, gathered once into lanes (padding lanes repeat the last scene).
            scratch.clear();
            scratch.extend((0..len).map(|k| {
                Lanes::<T, LANES>(from_fn(|l| {
                    operators[headers[l.min(headers.len() - 1)].operator_offset as usize + k]
                }))
            }));
            // Specialised (like the kernel's NONLINEAR constant) so that linear groups run
            // without the Newton loop's bookkeeping, and scenes of one dof and one row (a
            // dropped ball: the main job) with their sizes known at compile time.
            let args = (
                (headers, batch.structure_of(&headers[0])),
                &scratch[..],
                arrays,
                (&step, (&batch.recording, locate)),
                (steps, progress),
            );
            let one = headers[0].ndof == 1 && headers[0].ncontacts == 1;
            match (
                headers[0].flags & HAS_NONLINEAR != 0,
                headers[0].flags & HAS_EQUALITY != 0,
            ) {
                (false, false) if one => ball::simulate_on(simd, args),
                (false, false) => linear::simulate_on(simd, args),
                (false, true) => linear_equality::simulate_on(simd, args),
                (true, false) => nonlinear::simulate_on(simd, args),
                (true, true) => nonlinear_equality::simulate_on(simd, args),
            }
        });
}

/// Consecutive runs of at most [`LANES`] scenes with the same sizes, flags, row kinds and
/// patterns (the stages branch on a row's kind once per group).
fn groups(batch: &SceneBatch) -> Vec<Range<usize>> {
    let headers = &batch.headers;
    let kind = |h: &SceneHeader| (h.ndof, h.ncontacts, h.flags, batch.structure_of(h));
    let mut groups: Vec<Range<usize>> = Vec::new();
    for (s, h) in headers.iter().enumerate() {
        match groups.last_mut() {
            Some(g) if g.len() < LANES && kind(&headers[g.start]) == kind(h) => g.end = s + 1,
            _ => groups.push(s..s + 1),
        }
    }
    groups
}

/// What [`simulate`] steps: the group's headers and row kinds (and patterns), its operators
/// in lanes, its q, v, counters, extremes, observers' accumulators and impact times, the step
/// parameters, observers and whether impacts are located, the number of steps and the run's
/// progress.
type GroupRun<'a, T> = (
    (&'a [SceneHeader], &'a [u32]),
    &'a [Lanes<T, LANES>],
    (
        &'a mut [T],
        &'a mut [HealthCounters],
        &'a mut [T],
        &'a mut [T],
        &'a mut [T],
    ),
    (&'a StepParams<T>, (&'a Recording, bool)),
    (u32, &'a Progress),
);

/// [`simulate`] of one group kind (its NONLINEAR and EQUALITY flags, N and M) compiled for
/// the instruction set `simd`: once per instruction set (AVX-512 in f64 only,
/// [`LaneFloat::AVX512`]), with every stage inlined
/// (`#[inline(always)]` down to the lanes) in an optimised build, so the vector width is the
/// CPU's (in a dev build the stages are out of line: `moreau_jean_stages`). Each kind has a
/// module of its own: rustc puts every copy of a generic function in its module's codegen
/// unit, so the kinds' copies of the whole step are built by LLVM in parallel rather than
/// one after another in one unit.
macro_rules! group_kind {
    ($kind:ident, $nonlinear:literal, $equality:literal, $n:literal, $m:literal) => {
        mod $kind {
            use super::*;

            pub(super) fn simulate_on<T: LaneFloat>(simd: Simd, run: GroupRun<'_, T>) {
                #[cfg(target_arch = "x86_64")]
                #[target_feature(enable = "avx2")]
                fn avx2<T: LaneFloat>(run: GroupRun<'_, T>) {
                    simulate::<T, $nonlinear, $equality, $n, $m>(run)
                }
                #[cfg(target_arch = "x86_64")]
                #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq")]
                fn avx512<T: LaneFloat>(run: GroupRun<'_, T>) {
                    simulate::<T, $nonlinear, $equality, $n, $m>(run)
                }
                match simd.isa() {
                    Isa::Baseline => simulate::<T, $nonlinear, $equality, $n, $m>(run),
                    // SAFETY: a `Simd` names only an instruction set this CPU has (and one
                    // with AVX-512 has AVX2).
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx2 => unsafe { avx2::<T>(run) },
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx512 if T::AVX512 => unsafe { avx512::<T>(run) },
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx512 => unsafe { avx2::<T>(run) },
                }
            }
        }
    };
}

// A dropped ball (one dof, one row: the main job) with its sizes known at compile time; then
// linear and nonlinear groups, with and without equality rows.
group_kind!(ball, false, false, 1, 1);
group_kind!(linear, false, false, 0, 0);
group_kind!(linear_equality, false, true, 0, 0);
group_kind!(nonlinear, true, false, 0, 0);
group_kind!(nonlinear_equality, true, true, 0, 0);

/// Steps the scenes of one group (equal sizes and flags, `headers.len() ≤ LANES`) in
/// lockstep, stage by stage as the kernel's `simulate`. `values` is their packed q, v; `ops`
/// their operators in lanes.
#[cfg_attr(not(debug_assertions), inline(always))]
fn simulate<T: LaneFloat, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>(
    ((headers, rows), ops, (values, counters, extremes, observed, times), (step, recording), (steps, progress)): GroupRun<
        '_,
        T,
    >,
) {
    let mut group = Group::<T, NONLINEAR, EQUALITY, N, M>::load(
        (headers, rows),
        ops,
        step,
        recording,
        (&*values, &*counters, &*extremes, &*observed),
    );
    group.load_impact_times(times);
    if group.at_start() {
        group.observe(true);
    }
    let rattle = headers[0].flags & RATTLE != 0;
    // Located impacts are refused with RATTLE (`engine::location_refusal`) and run in f64
    // only: the located step is compiled into the f64 groups only.
    let locate = recording.1;
    debug_assert!(
        !(locate && (rattle || !T::LOCATES)),
        "impact location is refused with RATTLE and f32"
    );
    // The steps in blocks of TICK, each reported when done.
    let mut done = 0;
    while done < steps && !progress.cancelled() {
        let block = TICK.min(steps - done);
        if rattle {
            for _ in 0..block {
                rattle_step(&mut group);
            }
            done += block;
            progress.add(u64::from(block) * headers.len() as u64);
            continue;
        }
        for _ in 0..block {
            if T::LOCATES && locate {
                group.located_step();
            } else {
                group.solve_step();
                group.record_health();
            }
            group.observe(false);
        }
        done += block;
        progress.add(u64::from(block) * headers.len() as u64);
    }
    // The outputs once more at the state reached, so that the deepest penetration counts the
    // final state too (each step counts its start); the rest of what it computes is dropped.
    group.outputs_and_activation();
    group.store((values, counters, extremes, observed));
    group.store_impact_times(times);
}

/// One nonsmooth RATTLE step of a group, stage by stage as the kernel's `rattle_step`
/// ([`RATTLE_STAGES`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn rattle_step<T: Float, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>(
    group: &mut Group<'_, T, NONLINEAR, EQUALITY, N, M>,
) {
    group.rattle_start();
    group.half_kick(group.step_cosine(0));
    group.stage1_rows();
    let mut iterate = 0;
    while !group.stage1_residual(iterate) {
        group.stage1_solve();
        iterate += 1;
    }
    group.stage1_update();
    group.end_kick(group.step_cosine(1));
    group.stage2_solve();
    group.record_health();
    group.observe(false);
}
