// What happens at a located crossing: a touch-down slow enough (or one past the cap of impacts
// per contact) settles plastically over the rest of the step; any other is an impact, a
// zero-length sub-step at t* with the rows closing within the tolerance together.
// Twin: batch::cpu::moreau_jean_stages::located::impact
// (src/batch/cpu/moreau_jean_stages/located/impact.rs).

// Moves the walk to the crossing's impact time t* (the step's end where the crossing is its
// end) and reads the touch-down speed −ẏ there: it settles at or below the settling speed
// (always when too soon), or past MAX_IMPACTS_PER_CONTACT on the row; else an impact. A
// crossing never seen closed has no touch-down: the walk's next trial (or its end).
// Twin: Group::touchdowns.
fn touchdown() -> u32 {
    var tau = real(0.0);
    if (found.kind == FOUND_REFINE && found.seen) {
        tau = found.b;
    } else if (found.kind != FOUND_TOO_SOON) {
        return THEN_TRIAL;
    }
    walk_s = select(step_params.h, walk_s + tau, tau < walk_length);
    let speed = -row_output(found.row).y;
    impact_counts[found.row] = impact_counts[found.row] + 1u;
    let settles = found.kind == FOUND_TOO_SOON || speed <= found.settling_speed;
    if (settles || impact_counts[found.row] > MAX_IMPACTS_PER_CONTACT) {
        return settle(found.row);
    }
    return impact();
}

// The span of the rest of the step, the touch-down row closed and plastic: the contact's
// accumulation has converged (or is cut at the cap); the touch-down is no impact (at the
// step's end, the step is done). Twin: Group::settle.
fn settle(row: u32) -> u32 {
    if (walk_s < step_params.h) {
        span_kind = SPAN_SETTLE;
        span_row = row;
        span_start = walk_s;
        span_tau = step_params.h - walk_s;
        span_tol = real(0.0);
        return PASS_SETTLE;
    }
    walk_finished = true;
    return THEN_TRIAL;
}

// The settling rest taken: its λ committed, the step done. Twin: the close of Group::settle.
fn settled() -> u32 {
    commit();
    walk_finished = true;
    return THEN_TRIAL;
}

// The impact: the span of a zero-length sub-step at t*, every gap row tested closed within
// TIME_TOLERANCE · h · |ẏ| (rows closing together impact together). Twin: Group::impacts.
fn impact() -> u32 {
    for (var r = 0u; r < m; r++) {
        ydot_before[r] = row_output(r).y;
    }
    span_kind = SPAN_IMPACT;
    span_start = walk_s;
    span_tau = real(0.0);
    span_tol = real(TIME_TOLERANCE) * step_params.h;
    return PASS_IMPACT;
}

// The impact sub-step taken: its λ committed; each row left with λ > 0 is a located impact,
// recent until the next step ends, and an event at its time. Twin: the close of
// Group::impacts.
fn impacted() -> u32 {
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
    return THEN_TRIAL;
}
