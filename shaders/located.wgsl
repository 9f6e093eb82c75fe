// Impacts located inside the step (`[time] locate_impacts`), one scene per invocation: the
// reference's located Moreau–Jean step (src/reference/impact_location.rs, whose module doc
// states the method). Twin: the CPU lanes' located step (batch::cpu::moreau_jean_stages::located,
// src/batch/cpu/moreau_jean_stages/located.rs and its files), each lane of which takes the
// operations taken here. Each sub-step — a trial over the rest of the step with the open rows
// left out, a trial of length τ while a crossing is refined, the zero-length impact, the
// settling rest of a step — is one pass of the step's stages over a span: its start s from
// t_k and length τ, read by kick, harmonic_forcing, outputs_and_activation and
// update_position. Every pass, the grid step's too, is taken at one call site
// (locate_impacts) and followed by what reads its end (after_pass), so that a located kernel
// holds the stages once; the lanes' calls take the same passes in the same order. A located
// scene is linear (refused before a run otherwise: engine::lanes_location_refusal); where its
// W depends on the step's length (SPAN_DYNAMICS) each sub-step builds its own operators of
// W(τ) (span_operators, with SPAN_OPERATORS; SPAN_OPS long). The host defines LOCATE, the
// sizes LOC_DOF, LOC_CONTACTS, LOC_OBSERVERS (1 without LOCATE), LOCATED (the values kept per
// scene between dispatches in `located_record`: the last impact time, each row's recent flag,
// each observer's last rate) and the constants of reference::impact_location. Here: the located
// state and the walk through the step; in located_sub_step.wgsl the spans and passes, in
// located_crossing.wgsl the crossing and its refinement, in located_impact.wgsl the
// touch-down, in located_observe.wgsl the observers' part. A kernel compiled without LOCATE
// holds located_off.wgsl instead.

// The span's kinds: a trial (the open rows left out), a settling rest (span_row tested closed
// and plastic), an impact (every gap row tested closed within span_tol).
const SPAN_TRIAL: u32 = 0u;
const SPAN_SETTLE: u32 = 1u;
const SPAN_IMPACT: u32 = 2u;
var<private> spanning: bool;
var<private> span_kind: u32;
var<private> span_row: u32;
var<private> span_start: real;
var<private> span_tau: real;
var<private> span_tol: real;
// A sub-step's own A(τ), B(τ), c(τ), c_h(τ) and W(τ) (layout::SpanBlocks), with SPAN_OPERATORS.
var<private> span_ops: array<real, SPAN_OPS>;

// Whether the sub-step being taken reads its own operators of W(τ): not over the whole step
// (τ = h), which is the grid step, bit for bit. Twin: Group::span_built and the lanes where
// τ = h in Group::span_operators.
fn span_built() -> bool {
    return SPAN_OPERATORS && spanning && (flags & SPAN_DYNAMICS) != 0u && span_tau != step_params.h;
}

// What carries over between steps: the rows impacted in the last step and in this one (a row
// an impact left separating at y ≤ 0 is open: its next crossing is the return of that
// flight), the time of the last impact (NaN before one), each observer's rate at the last
// sample (NaN where it has none).
var<private> recent: array<bool, LOC_CONTACTS>;
var<private> recent_next: array<bool, LOC_CONTACTS>;
var<private> last_time: real;
var<private> previous_rate: array<real, LOC_OBSERVERS>;
// What the step found: its distinct impact times, and per row the offset s of its first
// located impact (−1: none).
var<private> located_times: u32;
var<private> first_impact: array<real, LOC_CONTACTS>;
// Per row, the λ of the last sub-step and the step's sum of them; the impacts located on it.
var<private> lambda_last: array<real, LOC_CONTACTS>;
var<private> lambda_sum: array<real, LOC_CONTACTS>;
var<private> impact_counts: array<u32, LOC_CONTACTS>;
// The state a sub-step starts from; per row y and ẏ there and at the trial's end, whether it is
// open, and ẏ just before an impact sub-step.
var<private> q0: array<real, LOC_DOF>;
var<private> v0: array<real, LOC_DOF>;
var<private> y0: array<real, LOC_CONTACTS>;
var<private> ydot0: array<real, LOC_CONTACTS>;
var<private> y1: array<real, LOC_CONTACTS>;
var<private> ydot1: array<real, LOC_CONTACTS>;
var<private> open: array<bool, LOC_CONTACTS>;
var<private> ydot_before: array<real, LOC_CONTACTS>;
// The walk through the step: the offset s its next sub-step starts at, the length h − s of its
// rest, whether it is done, its located impacts. Twin: Walk.
var<private> walk_s: real;
var<private> walk_length: real;
var<private> walk_finished: bool;
var<private> walk_total: u32;

// What the located step does next. A pass of the step's stages, by what reads its end
// (after_pass): none (the step is done), the grid step, a trial over the rest of the step, a
// refining trial, the crossing's closed end taken again, a settling rest, an impact. Or a
// decision before the next pass, each taken at one place (locate_impacts): the walk's start,
// the refinement's next trial, the touch-down, the walk's next trial (or its end). A
// decision leads to a pass or to a decision after it in this order, which is the order
// locate_impacts resolves them in.
const PASS_NONE: u32 = 0u;
const PASS_GRID: u32 = 1u;
const PASS_TRIAL: u32 = 2u;
const PASS_REFINING: u32 = 3u;
const PASS_CLOSED: u32 = 4u;
const PASS_SETTLE: u32 = 5u;
const PASS_IMPACT: u32 = 6u;
const THEN_WALK: u32 = 7u;
const THEN_REFINE: u32 = 8u;
const THEN_TOUCHDOWN: u32 = 9u;
const THEN_TRIAL: u32 = 10u;

// What a trial over the rest of the step found (FOUND_NOTHING: the step is done or its trial
// stands; FOUND_TOO_SOON: the row an impact left separating closes again within MIN_FLIGHT · h
// and settles; FOUND_REFINE: a crossing of `row` being refined, its bracket [a, b] (`seen`:
// b known closed), the trial length τ to try next, the length of the state held, the
// touch-down speed at or below which it settles). Twin: Found.
const FOUND_NOTHING: u32 = 0u;
const FOUND_TOO_SOON: u32 = 1u;
const FOUND_REFINE: u32 = 2u;
struct Found {
    kind: u32,
    row: u32,
    a: real,
    b: real,
    seen: bool,
    tau: real,
    held: real,
    settling_speed: real,
    refining: bool,
}
// What the last trial over the rest of the step found (trial_found), as refined since.
var<private> found: Found;
// The refining trials taken.
var<private> refine_trials: u32;

// Whether row r is a gap, whose crossing is located (not an equality, not a tangent row).
// Twin: the `gap` of Located::new.
fn is_gap(r: u32) -> bool {
    return row_kind(r) != ROW_TANGENT && row_kind(r) != ROW_EQUALITY;
}

// t_k of the step being taken. Twin: Group::step_start.
fn step_start() -> real {
    return step_params.t0 + real(health.steps) * step_params.h;
}

// Reads the scene's located record (at the start of a dispatch). Twin: Group::load_impact_times.
fn load_located() {
    let at = LOCATED * scene;
    last_time = located_record[at];
    for (var r = 0u; r < m; r++) {
        recent_next[r] = located_record[at + 1u + r] != 0.0;
    }
    for (var i = 0u; i < OBSERVERS; i++) {
        previous_rate[i] = located_record[at + 1u + MAX_CONTACTS + i];
    }
}

// Writes it back. Twin: Group::store_impact_times.
fn store_located() {
    let at = LOCATED * scene;
    located_record[at] = last_time;
    for (var r = 0u; r < m; r++) {
        located_record[at + 1u + r] = select(real(0.0), real(1.0), recent_next[r]);
    }
    for (var i = 0u; i < OBSERVERS; i++) {
        located_record[at + 1u + MAX_CONTACTS + i] = previous_rate[i];
    }
}

// The time loop's step with LOCATE (located_off.wgsl's without): the located step, whose
// passes are the one call site of solve_step. Twin: the time loop of `simulate`.
fn time_step() {
    located_step();
}

// One step from t_k to t_{k+1} with its impacts located: the step's percussion left in λ;
// then its health. Twin: Group::located_step.
fn located_step() {
    located_times = 0u;
    for (var r = 0u; r < m; r++) {
        recent[r] = recent_next[r];
        recent_next[r] = false;
        first_impact[r] = real(-1.0);
    }
    locate_impacts();
    record_located_health();
}

// The located step as a sequence of passes of the step's stages: the grid step where it may
// stand; else a walk from t_k, sub-step by sub-step — a trial over the rest of the step, the
// first crossing in it refined, the touch-down there settled or an impact — until t_{k+1}.
// Every pass is taken here, the stages' one call site in a located kernel, and so is every
// decision between passes but the few assignments of refined: a shader compiler inlines
// each call, and lavapipe runs the code of every branch, masked, in every step (with a call
// site per kind of pass and decision, a located run of balls took it 1.8× as long).
// after_pass reads a pass's end. Twin:
// Group::locate_impacts with the grid step of Group::located_step, whose calls take the same
// passes in the same order.
fn locate_impacts() {
    var kind = grid_step();
    loop {
        if (kind == THEN_WALK) {
            kind = walk_start();
        }
        if (kind == THEN_REFINE) {
            kind = refine_trial();
        }
        if (kind == THEN_TOUCHDOWN) {
            kind = touchdown();
        }
        if (kind == THEN_TRIAL) {
            kind = next_trial();
        }
        if (kind == PASS_NONE) {
            break;
        }
        spanning = kind != PASS_GRID;
        sub_step();
        spanning = false;
        kind = after_pass(kind);
    }
}

// What follows a pass of kind `kind`: what the step does next.
// Twin: the order of the calls in Group::locate_impacts, grid_step, refine, settle
// and impacts.
fn after_pass(kind: u32) -> u32 {
    if (kind == PASS_GRID && !grid_step_closes()) {
        return PASS_NONE;
    }
    if (kind == PASS_TRIAL || kind == PASS_GRID) {
        return trial_found();
    }
    if (kind == PASS_REFINING) {
        return refine();
    }
    if (kind == PASS_CLOSED) {
        return refined();
    }
    if (kind == PASS_SETTLE) {
        return settled();
    }
    return impacted();
}

// The walk's start at t_k: no percussion, no impact yet; its first trial. Twin: the opening
// of Group::locate_impacts.
fn walk_start() -> u32 {
    walk_reset();
    return THEN_TRIAL;
}

// The walk at t_k: no percussion, no impact yet. Twin: the zeroing and the walk's start at the
// opening of Group::locate_impacts.
fn walk_reset() {
    for (var r = 0u; r < m; r++) {
        lambda_sum[r] = real(0.0);
        impact_counts[r] = 0u;
    }
    walk_s = real(0.0);
    walk_finished = false;
    walk_total = 0u;
}

// The walk's next pass, a trial over the rest of the step from the start held; or, the walk
// done, its end. Twin: the loop head of Group::locate_impacts.
fn next_trial() -> u32 {
    if (walk_finished) {
        return walk_end();
    }
    hold_start();
    walk_length = step_params.h - walk_s;
    trial_span(walk_s, walk_length);
    return PASS_TRIAL;
}

// The walk done: the step's percussion in λ, and the next step's first cosine as the grid
// step would have carried it; no further pass. Twin: the close of Group::locate_impacts.
fn walk_end() -> u32 {
    for (var r = 0u; r < m; r++) {
        lambda[r] = lambda_sum[r];
    }
    if ((flags & HAS_FORCING) != 0u) {
        phase_cos = forcing_cosine(health.steps + 1u);
    }
    return PASS_NONE;
}

// What the trial over the rest of the step found: nothing (it stands: the step is done), a
// flight that ends too soon (the scene back at the start, settling), or a crossing to refine.
// Twin: the loop body of Group::locate_impacts.
fn trial_found() -> u32 {
    if (!end_gaps(walk_length)) {
        // The trial stands (a flight, or a contact at rest): the step is done.
        commit();
        walk_finished = true;
        return THEN_TRIAL;
    }
    found = crossings();
    if (found.kind == FOUND_NOTHING) {
        commit();
        walk_finished = true;
        return THEN_TRIAL;
    }
    if (found.kind == FOUND_TOO_SOON) {
        restore();
        return THEN_TOUCHDOWN;
    }
    refine_trials = 0u;
    return THEN_REFINE;
}

// The step's health, as record_health's with its located impacts: every located impact
// counts (one per time), and the last one's time is the last impact time; an onset the scheme
// applied at the step's end is an impact at t_{k+1}. Twin: Group::record_located_health.
fn record_located_health() {
    let before = health.impacts;
    record_health();
    if (located_times > 0u) {
        health.impacts = before + located_times;
        health.last_impact = health.steps;
    } else if (health.impacts > before) {
        last_time = step_params.t0 + real(health.steps) * step_params.h;
    }
}
