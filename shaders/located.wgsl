// Impacts located inside the step (`[time] locate_impacts`), one scene per invocation: the
// reference's located Moreau–Jean step (src/reference/impact_location.rs, whose module doc
// states the method). Twin: the CPU lanes' located step (batch::cpu::moreau_jean_stages::located,
// src/batch/cpu/moreau_jean_stages/located.rs and its files), each lane of which takes the
// operations taken here. Each sub-step — a trial over the rest of the step with the open rows
// left out, a trial of length τ while a crossing is refined, the zero-length impact, the
// settling rest of a step — is one pass of the step's stages over a span: its start s from
// t_k and length τ, read by kick, harmonic_forcing, outputs_and_activation and
// update_position. A located scene is linear, without stiffness or damping (refused before a
// run: engine::lanes_location_refusal). The host defines LOCATE, the sizes LOC_DOF,
// LOC_CONTACTS, LOC_OBSERVERS (1 without LOCATE), LOCATED (the values kept per scene between
// dispatches in `located_record`: the last impact time, each row's recent flag, each
// observer's last rate) and the constants of reference::impact_location. A kernel compiled
// without LOCATE holds located_off.wgsl instead.

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

// Whether row r is a gap, whose crossing is located (not an equality, not a tangent row).
// Twin: the `gap` of Located::new.
fn is_gap(r: u32) -> bool {
    return row_kind(r) != ROW_TANGENT && row_kind(r) != ROW_EQUALITY;
}

// Row r's part in the span being taken: (left out, tested closed within span_tol, plastic).
// Twin: SubSpan.
fn span_rows(r: u32) -> vec3<bool> {
    if (span_kind == SPAN_TRIAL) {
        return vec3<bool>(open[r], false, false);
    }
    if (span_kind == SPAN_SETTLE) {
        return vec3<bool>(false, r == span_row, r == span_row);
    }
    return vec3<bool>(false, is_gap(r), false);
}

// cos(ω t + φ) at the offset s from t_k of a located sub-step's end: at t = t_k (s = 0) and
// t_{k+1} (s = h) as forcing_cosine gives them, else at t_k + s. Twin: Group::step_cosine.
fn span_cosine(s: real) -> real {
    if (s == 0.0) {
        return forcing_cosine(health.steps);
    }
    if (s == step_params.h) {
        return forcing_cosine(health.steps + 1u);
    }
    let t = step_start() + s;
    return select(real(0.0), sine_cosine(op(o.frequency) * t + op(o.frequency + 1u)).y, t < op(o.frequency + 2u));
}

// Moreau–Jean's step of a linear scene from the free velocity to the new position.
// Twin: Group::solve_step.
fn solve_step() {
    free_velocity(harmonic_forcing());
    outputs_and_activation();
    solve_local();
    impulse_to_velocity();
    update_position();
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

// One step from t_k to t_{k+1} with its impacts located: the step's percussion left in λ;
// then its health. Twin: Group::located_step.
fn located_step() {
    located_times = 0u;
    for (var r = 0u; r < m; r++) {
        recent[r] = recent_next[r];
        recent_next[r] = false;
        first_impact[r] = real(-1.0);
    }
    if (!grid_step_stands()) {
        for (var r = 0u; r < m; r++) {
            lambda_sum[r] = real(0.0);
            impact_counts[r] = 0u;
        }
        locate_impacts();
        for (var r = 0u; r < m; r++) {
            lambda[r] = lambda_sum[r];
        }
        // The next step's first cosine, as the grid step would have carried it.
        if ((flags & HAS_FORCING) != 0u) {
            phase_cos = forcing_cosine(health.steps + 1u);
        }
    }
    record_located_health();
}

// The step's start: its gaps and open rows. Where the grid step leaves every open row out of
// its problem (y + γ h ẏ > 0) and none may close in it, that step stands — most steps, at the
// cost of a plain one; whether it did. Twin: Group::grid_step_stands.
fn grid_step_stands() -> bool {
    let gamma_h = step_params.gamma * step_params.h;
    var inside = false;
    for (var r = 0u; r < m; r++) {
        let out = row_output(r);
        y0[r] = out.x;
        ydot0[r] = out.y;
        open[r] = is_gap(r) && (out.x > 0.0 || (out.y > 0.0 && recent[r]));
        inside = inside || (open[r] && out.x + gamma_h * out.y <= 0.0);
    }
    if (inside) {
        return false;
    }
    hold_state();
    solve_step();
    if (end_gaps(step_params.h)) {
        restore();
        return false;
    }
    return true;
}

// The general located step: a walk from t_k, sub-step by sub-step — a trial over the rest of
// the step, the first crossing in it refined, the touch-down there settled or an impact —
// until t_{k+1}. Twin: Group::locate_impacts.
fn locate_impacts() {
    walk_s = real(0.0);
    walk_finished = false;
    walk_total = 0u;
    loop {
        if (walk_finished) {
            break;
        }
        hold_start();
        walk_length = step_params.h - walk_s;
        trial(walk_s, walk_length);
        if (!end_gaps(walk_length)) {
            // The trial stands (a flight, or a contact at rest): the step is done.
            commit();
            break;
        }
        var found = crossings();
        if (found.kind == FOUND_NOTHING) {
            commit();
            walk_finished = true;
        } else if (found.kind == FOUND_TOO_SOON) {
            restore();
        } else {
            found = refine(found);
            walk_finished = !found.seen;
        }
        touchdown(found);
    }
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

// One Moreau–Jean sub-step over the span set; keeps its λ. Twin: Group::sub_step.
fn sub_step() {
    spanning = true;
    solve_step();
    spanning = false;
    for (var r = 0u; r < m; r++) {
        lambda_last[r] = lambda[r];
    }
}

// A trial sub-step from `start` over `tau`, the open rows left out. Twin: Group::trial.
fn trial(start: real, tau: real) {
    span_kind = SPAN_TRIAL;
    span_start = start;
    span_tau = tau;
    span_tol = real(0.0);
    sub_step();
}

// Adds the last sub-step's λ to the step's percussion. Twin: Group::commit.
fn commit() {
    for (var r = 0u; r < m; r++) {
        lambda_sum[r] = lambda_sum[r] + lambda_last[r];
    }
}

// Keeps q, v as the sub-step's start. Twin: the copy that opens Group::hold_start.
fn hold_state() {
    for (var i = 0u; i < n; i++) {
        q0[i] = q[i];
        v0[i] = v[i];
    }
}

// Puts the scene back at the sub-step's start. Twin: Group::restore.
fn restore() {
    for (var i = 0u; i < n; i++) {
        q[i] = q0[i];
        v[i] = v0[i];
    }
}

// Holds the sub-step's start: q, v, the gaps, and the open rows — a gap row that is open
// (y > 0) or that an impact left separating (ẏ > 0), under the cap of located impacts.
// Twin: Group::hold_start.
fn hold_start() {
    hold_state();
    for (var r = 0u; r < m; r++) {
        let out = row_output(r);
        y0[r] = out.x;
        ydot0[r] = out.y;
        open[r] = is_gap(r) && !walk_finished && walk_total < MAX_LOCATED_IMPACTS
            && (out.x > 0.0 || (out.y > 0.0 && recent[r]));
    }
}

// The gaps of the open rows at the end of the sub-step just taken (of length `length`), and
// whether one may have closed: its Hermite interpolant stays above 0 where
// 0.15 τ (|ẏ0| + |ẏ1|) ≤ min(y0, y1). Twin: Group::end_gaps.
fn end_gaps(length: real) -> bool {
    var closing = false;
    for (var r = 0u; r < m; r++) {
        if (open[r]) {
            let out = row_output(r);
            y1[r] = out.x;
            ydot1[r] = out.y;
            let clear = real(0.15) * length * (abs(ydot0[r]) + abs(out.y)) <= min(y0[r], out.x);
            closing = closing || !clear;
        }
    }
    return closing;
}

// Σⱼ |H_rj q_j|, the size of row r's terms, whose rounding bounds y. Twin: Group::output_terms.
fn output_terms(r: u32) -> real {
    var terms = real(0.0);
    let span = row_span(h_pattern, r, n);
    for (var i = 0u; i < span.y; i++) {
        terms = terms + abs(op(o.h + span.x + i) * q[row_col(h_pattern, span.x + i, i)]);
    }
    return terms;
}

// The rounding floor of a gap y whose terms are `terms`: 4 ε (|y| + terms). Twin: rounding_floor.
fn rounding_floor(y: real, terms: real) -> real {
    return real(FLOOR_ULPS) * REAL_EPSILON * (abs(y) + terms);
}

// What the trial found where it may have closed: the first root of the Hermite interpolant of
// the gap over the open rows, as a bracket to refine. Twin: Group::crossings.
fn crossings() -> Found {
    var found = Found(FOUND_NOTHING, 0u, real(0.0), real(0.0), false, real(0.0), real(0.0), real(0.0), false);
    let length = walk_length;
    let min_flight = real(MIN_FLIGHT) * step_params.h;
    var any = false;
    var guess = real(0.0);
    var row = 0u;
    var acceleration = real(0.0);
    for (var r = 0u; r < m; r++) {
        if (!open[r]) {
            continue;
        }
        let root = first_root(y0[r], ydot0[r] * length, y1[r], ydot1[r] * length);
        if (root.found && (!any || root.s < guess)) {
            any = true;
            guess = root.s;
            row = r;
            acceleration = (ydot1[r] - ydot0[r]) / length;
        }
    }
    if (!any) {
        // A row an impact left at y ≤ 0, separating too slowly to rise above 0, that ends the
        // trial closed: its flight is below resolution.
        for (var r = 0u; r < m; r++) {
            if (open[r] && y0[r] <= 0.0 && y1[r] <= 0.0) {
                found.kind = FOUND_TOO_SOON;
                found.row = r;
                break;
            }
        }
        return found;
    }
    found.row = row;
    if (guess * length < min_flight && recent[row]) {
        found.kind = FOUND_TOO_SOON;
        return found;
    }
    found.kind = FOUND_REFINE;
    found.seen = y1[row] <= 0.0;
    found.b = length;
    found.tau = guess * length;
    found.held = length;
    found.settling_speed = min_flight * abs(acceleration);
    found.refining = true;
    return found;
}

// Refines the crossing: trial sub-steps of length τ from the start, Newton on the gap y(τ)
// (from the open side half a tolerance and a rounding floor's time φ/|ẏ| past the root),
// bisection where Newton leaves the bracket; until y(τ) ≤ 0 within TIME_TOLERANCE · h · |ẏ|
// + 2φ, or the bracket is down to rounding. Then the scene at the closed end (never seen
// closed: the whole trial stands), its λ committed. Twin: Group::refine.
fn refine(start: Found) -> Found {
    var found = start;
    let tol = real(TIME_TOLERANCE) * step_params.h;
    for (var trials = 0u; trials < MAX_TRIALS; trials++) {
        if (!found.refining) {
            break;
        }
        restore();
        trial(walk_s, found.tau);
        let out = row_output(found.row);
        let y = out.x;
        let ydot = out.y;
        let floor = rounding_floor(y, output_terms(found.row));
        found.held = found.tau;
        if (y <= 0.0) {
            found.b = found.tau;
            found.seen = true;
            if (-y <= tol * -min(ydot, real(0.0)) + (floor + floor)) {
                found.refining = false;
                continue;
            }
        } else {
            found.a = found.tau;
        }
        let hi = select(walk_length, found.b, found.seen);
        // Converged to rounding, or open and opening never seen closed (a graze).
        if (hi - found.a <= REAL_EPSILON * hi || (!found.seen && ydot >= 0.0)) {
            found.refining = false;
            continue;
        }
        var next = real(0.5) * (found.a + hi);
        if (ydot < 0.0) {
            var past = real(0.0);
            if (y > 0.0) {
                past = tol * real(0.5) - floor / ydot;
            }
            let newton = found.tau - y / ydot + past;
            if (newton > found.a && newton < hi) {
                next = newton;
            }
        }
        found.tau = next;
    }
    let closed = select(walk_length, found.b, found.seen);
    if (found.held != closed) {
        restore();
        trial(walk_s, closed);
    }
    commit();
    return found;
}

// Moves the walk to the crossing's impact time t* (the step's end where the crossing is its
// end) and reads the touch-down speed −ẏ there: it settles at or below the settling speed
// (always when too soon), or past MAX_IMPACTS_PER_CONTACT on the row; else an impact.
// Twin: Group::touchdowns.
fn touchdown(found: Found) {
    var tau = real(0.0);
    if (found.kind == FOUND_REFINE && found.seen) {
        tau = found.b;
    } else if (found.kind != FOUND_TOO_SOON) {
        return;
    }
    walk_s = select(step_params.h, walk_s + tau, tau < walk_length);
    let speed = -row_output(found.row).y;
    impact_counts[found.row] = impact_counts[found.row] + 1u;
    let settles = found.kind == FOUND_TOO_SOON || speed <= found.settling_speed;
    if (settles || impact_counts[found.row] > MAX_IMPACTS_PER_CONTACT) {
        settle(found.row);
    } else {
        impact();
    }
}

// The rest of the step, the touch-down row closed and plastic: the contact's accumulation has
// converged (or is cut at the cap); the touch-down is no impact. Twin: Group::settle.
fn settle(row: u32) {
    if (walk_s < step_params.h) {
        span_kind = SPAN_SETTLE;
        span_row = row;
        span_start = walk_s;
        span_tau = step_params.h - walk_s;
        span_tol = real(0.0);
        sub_step();
        commit();
    }
    walk_finished = true;
}

// The impact: a zero-length sub-step at t*, every gap row tested closed within
// TIME_TOLERANCE · h · |ẏ| (rows closing together impact together); each row left with λ > 0
// is a located impact, recent until the next step ends, and an event at its time.
// Twin: Group::impacts.
fn impact() {
    for (var r = 0u; r < m; r++) {
        ydot_before[r] = row_output(r).y;
    }
    span_kind = SPAN_IMPACT;
    span_start = walk_s;
    span_tau = real(0.0);
    span_tol = real(TIME_TOLERANCE) * step_params.h;
    sub_step();
    commit();
    walk_total = walk_total + 1u;
    var any_row = false;
    for (var r = 0u; r < m; r++) {
        let carries = is_gap(r) && lambda_last[r] > 0.0;
        recent[r] = carries;
        if (carries) {
            any_row = true;
            recent_next[r] = true;
            if (first_impact[r] < 0.0) {
                first_impact[r] = walk_s;
            }
            if (EVENTS > 0u) {
                // At its time, a fractional step count; its row is then loaded, so that the
                // step's onsets (record_events) do not count it again.
                let count = real(health.steps + 1u) - (step_params.h - walk_s) / step_params.h;
                push_event(count, r, ydot_before[r], row_output(r).y, lambda_last[r]);
                observed[RECORD * scene + EVENTS_AT + 2u + r] = real(1.0);
            }
        }
    }
    if (any_row) {
        located_times = located_times + 1u;
        last_time = step_start() + walk_s;
    }
    walk_finished = walk_finished || walk_s >= step_params.h;
}

// The fractional step count at which a first_above/first_below observer i's signal s crosses
// its threshold c in the step ending at count k, with located impacts: an impulse at its row's
// first located impact, a signal with a rate (`rate`: ṡ and 1, else 0 0) on the cubic Hermite
// interpolant of (s, ṡ) over the step, any other on the chord; k where the accumulator does
// not turn now. Twin: crossing_count.
fn crossing_count(code: vec4<u32>, i: u32, s: real, rate: vec2<real>, k: real) -> real {
    let at = SLOTS * i;
    let value = observed_slots[at];
    let previous = observed_slots[at + 2u];
    let c = observed_slots[at + 3u];
    // +1 above, −1 below: g = sign (c − signal) is > 0 before the crossing, ≤ 0 after.
    let sign = select(real(-1.0), real(1.0), code.z == ACCUMULATE_FIRST_ABOVE);
    if (value != 0.0 || sign * (s - c) <= 0.0) {
        return k;
    }
    let h = step_params.h;
    if (code.x == SIGNAL_LAMBDA) {
        let impact = first_impact[code.y];
        return select(k, k - (h - impact) / h, impact >= 0.0);
    }
    var fraction = Root(true, real(0.0));
    if (rate.y != 0.0 && is_finite(previous_rate[i]) && is_finite(rate.x)) {
        // (The interpolant runs over the step as [0, 1]: its slopes are h ṡ.)
        fraction = first_root(sign * (c - previous), -sign * previous_rate[i] * h, sign * (c - s), -sign * rate.x * h);
    } else {
        fraction.s = (c - previous) / (s - previous);
    }
    if (fraction.found && fraction.s >= 0.0 && fraction.s <= 1.0) {
        return k - 1.0 + fraction.s;
    }
    return k;
}

// Where a max or min observer i's signal s (of rate ṡ) turns inside the step ending at count
// k, on its cubic Hermite interpolant: (value, fractional count, 1), or 0 0 0 where it does
// not turn. Twin: turning_point.
fn turning_point(kind: u32, i: u32, s: real, rate: real, k: real) -> vec3<real> {
    let sign = select(real(-1.0), real(1.0), kind == ACCUMULATE_MAX);
    let h = step_params.h;
    // (Over the step as [0, 1]: its slopes are h ṡ; a min is the max of −s.)
    let top = interior_maximum(sign * observed_slots[SLOTS * i + 2u], sign * previous_rate[i] * h, sign * s, sign * rate * h);
    if (top.z == 0.0) {
        return top;
    }
    return vec3<real>(sign * top.y, k - 1.0 + top.x, real(1.0));
}

// Folds a turning point inside the step (value, fractional count) into max or min accumulator
// i after the step's sample: the extreme when beyond it. Twin: fold_turning.
fn fold_turning(kind: u32, i: u32, turn: vec2<real>) {
    let at = SLOTS * i;
    let beyond = (kind == ACCUMULATE_MAX && turn.x > observed_slots[at])
        || (kind == ACCUMULATE_MIN && turn.x < observed_slots[at]);
    if (beyond) {
        observed_slots[at] = turn.x;
        observed_slots[at + 1u] = turn.y;
    }
}
