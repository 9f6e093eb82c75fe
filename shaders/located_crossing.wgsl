// The first crossing in a located step's trial, and its refinement to the impact time: a
// safeguarded Newton iteration on the gap at the end of trial sub-steps of length τ from the
// sub-step's start, kept on the closed side. Twin: batch::cpu::moreau_jean_stages::located::crossing
// (src/batch/cpu/moreau_jean_stages/located/crossing.rs).

// Σⱼ |G_rj q_j|, the size of row r's terms at q, whose rounding bounds y: G = H on a linear
// row; a nonlinear row's G(q) is built in gmat's row r (scratch between Newton loops).
// Twin: Group::output_terms.
fn output_terms(r: u32) -> real {
    var terms = real(0.0);
    if (!(NONLINEAR && scene_nonlinear)) {
        let span = row_span(h_pattern, r, n);
        for (var i = 0u; i < span.y; i++) {
            terms = terms + abs(op(o.h + span.x + i) * q[row_col(h_pattern, span.x + i, i)]);
        }
        return terms;
    }
    jacobian_row(r, &q);
    for (var j = 0u; j < n; j++) {
        terms = terms + abs(gmat[r * n + j] * q[j]);
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
    var result = Found(FOUND_NOTHING, 0u, real(0.0), real(0.0), false, real(0.0), real(0.0), real(0.0), false);
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
                result.kind = FOUND_TOO_SOON;
                result.row = r;
                break;
            }
        }
        return result;
    }
    result.row = row;
    if (guess * length < min_flight && recent[row]) {
        result.kind = FOUND_TOO_SOON;
        return result;
    }
    result.kind = FOUND_REFINE;
    result.seen = y1[row] <= 0.0;
    result.b = length;
    result.tau = guess * length;
    result.held = length;
    result.settling_speed = min_flight * abs(acceleration);
    result.refining = true;
    return result;
}

// The refinement's next pass: a trial of length τ from the sub-step's start while it refines,
// at most MAX_TRIALS of them; then its end. Twin: the loop head of Group::refine.
fn refine_trial() -> u32 {
    if (refine_trials < MAX_TRIALS && found.refining) {
        restore();
        trial_span(walk_s, found.tau);
        return PASS_REFINING;
    }
    return refine_end();
}

// One step of the crossing's refinement, from the trial of length τ just taken: Newton on
// the gap y(τ) (from the open side half a tolerance and a rounding floor's time φ/|ẏ| past
// the root), bisection where Newton leaves the bracket; it stops refining where y(τ) ≤ 0
// within TIME_TOLERANCE · h · |ẏ| + 2φ, or the bracket is down to rounding. Twin: the loop
// body of Group::refine.
fn refine() -> u32 {
    let tol = real(TIME_TOLERANCE) * step_params.h;
    let out = row_output(found.row);
    let y = out.x;
    let ydot = out.y;
    let floor = rounding_floor(y, output_terms(found.row));
    found.held = found.tau;
    var converged = false;
    if (y <= 0.0) {
        found.b = found.tau;
        found.seen = true;
        converged = -y <= tol * -min(ydot, real(0.0)) + (floor + floor);
    } else {
        found.a = found.tau;
    }
    let hi = select(walk_length, found.b, found.seen);
    // Converged, or to rounding, or open and opening never seen closed (a graze).
    if (converged || hi - found.a <= REAL_EPSILON * hi || (!found.seen && ydot >= 0.0)) {
        found.refining = false;
    } else {
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
    refine_trials = refine_trials + 1u;
    return THEN_REFINE;
}

// The refinement's end: the scene at the crossing's closed end (never seen closed: the whole
// trial stands), taken again where it holds another trial. Twin: the close of Group::refine.
fn refine_end() -> u32 {
    let closed = select(walk_length, found.b, found.seen);
    if (found.held != closed) {
        restore();
        trial_span(walk_s, closed);
        return PASS_CLOSED;
    }
    return refined();
}

// The crossing refined: its λ committed, the walk done where it was never seen closed; then
// its touch-down. (Called after the closed end's pass and, where no such pass is needed,
// from refine_end: the one decision with two call sites, a few assignments.) Twin: the close
// of Group::refine, and Group::locate_impacts after it.
fn refined() -> u32 {
    commit();
    walk_finished = !found.seen;
    return THEN_TOUCHDOWN;
}
