// The sub-steps of a located step (located.wgsl): the span the stages read, one pass of the
// step's stages over it, its percussion kept, and the bound that tells the steps with no
// crossing from the rest. Twin: batch::cpu::moreau_jean_stages::located::sub_step
// (src/batch/cpu/moreau_jean_stages/located/sub_step.rs).

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
    return forcing_cosine_at(step_start() + s);
}

// The step's start: its gaps and open rows. Where the grid step leaves every open row out of
// its problem (y + γ h ẏ > 0), it is the first pass (it stands where none of them may close
// in it: most steps, at the cost of a plain one); else the walk. Twin: the opening of
// Group::grid_step.
fn grid_step() -> u32 {
    let gamma_h = step_params.gamma * step_params.h;
    var inside = false;
    for (var r = 0u; r < m; r++) {
        let out = row_output(r);
        y0[r] = out.x;
        ydot0[r] = out.y;
        open[r] = is_gap(r) && is_open(r, out);
        inside = inside || (open[r] && out.x + gamma_h * out.y <= 0.0);
    }
    if (inside) {
        return THEN_WALK;
    }
    hold_state();
    return PASS_GRID;
}

// After the grid step: whether an open row may have closed in it (else it stands and the
// step is done). If one may have, the grid step is the walk's first trial over the whole
// step, bit for bit (every open row out of its problem): the walk starts there, and what the
// trial found is read next (after_pass). Twin: the close of Group::grid_step and the grid's
// first trial in Group::locate_impacts.
fn grid_step_closes() -> bool {
    if (!end_gaps(step_params.h)) {
        return false;
    }
    walk_reset();
    walk_length = step_params.h;
    return true;
}

// One pass of the step's stages, over the span set (the grid step where !spanning: the
// caller, locate_impacts, sets it), with the span's own operators where the scene's W
// depends on the step's length; keeps its λ. Twin: Group::sub_step.
fn sub_step() {
    if (span_built()) {
        span_operators();
    }
    solve_step();
    for (var r = 0u; r < m; r++) {
        lambda_last[r] = lambda[r];
    }
}

// Sets the span of a trial sub-step from `start` over `tau`, the open rows left out.
// Twin: Group::trial.
fn trial_span(start: real, tau: real) {
    span_kind = SPAN_TRIAL;
    span_start = start;
    span_tau = tau;
    span_tol = real(0.0);
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
// (y above its rounding floor) or that an impact left separating (ẏ > 0), under the cap of
// located impacts.
// Twin: Group::hold_start.
fn hold_start() {
    hold_state();
    for (var r = 0u; r < m; r++) {
        let out = row_output(r);
        y0[r] = out.x;
        ydot0[r] = out.y;
        open[r] = is_gap(r) && !walk_finished && walk_total < MAX_LOCATED_IMPACTS && is_open(r, out);
    }
}

// Whether gap row r at (y, ẏ) = `out` is open: apart (y above its rounding floor, within
// which its sign is noise: a contact at rest, held by the scheme's test), or separating
// (ẏ > 0) after an impact in the last step or this one (its next crossing is the return of
// that flight). Twin: is_open.
fn is_open(r: u32, out: vec2<real>) -> bool {
    return out.x > rounding_floor(out.x, output_terms(r)) || (out.y > 0.0 && recent[r]);
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

// The operators of the span's sub-step of length τ from the scene's M, C, K, f₀, a:
// W(τ) = M + θτC + θ²τ²K, A(τ) = W(τ)⁻¹ (τC + θτ²K), B(τ) = W(τ)⁻¹ τK, c(τ) = W(τ)⁻¹ τf₀,
// c_h(τ) = W(τ)⁻¹ τa in span_ops (layout::SpanBlocks), W(τ)⁻¹Hᵀ in wgmat and D(τ) = H W(τ)⁻¹Hᵀ
// in dmat; W(τ) (symmetric positive definite) eliminated by Gauss–Jordan without pivoting,
// each pivot row divided by its pivot, from the right sides τ (C + θτK), τK, f₀, a, Hᵀ (c, c_h
// then times τ).
// Twin: Group::span_operators.
fn span_operators() {
    let nn = n * n;
    let ka = 0u;
    let kb = nn;
    let kc = 2u * nn;
    let kch = 2u * nn + n;
    let kw = 2u * nn + 2u * n;
    let theta_tau = step_params.theta * span_tau;
    for (var i = 0u; i < n; i++) {
        for (var j = 0u; j < n; j++) {
            // C + θτK: W(τ) = M + θτ (C + θτK), A(τ)'s right side τ (C + θτK).
            let stiffened = op(o.span_damping + i * n + j) + theta_tau * op(o.span_stiffness + i * n + j);
            span_ops[kw + i * n + j] = op(o.span_mass + i * n + j) + theta_tau * stiffened;
            span_ops[ka + i * n + j] = span_tau * stiffened;
            span_ops[kb + i * n + j] = span_tau * op(o.span_stiffness + i * n + j);
        }
        span_ops[kc + i] = op(o.span_force + i);
        span_ops[kch + i] = op(o.span_amplitude + i);
        for (var r = 0u; r < m; r++) {
            wgmat[i * m + r] = op(o.h + r * n + i);
        }
    }
    for (var k = 0u; k < n; k++) {
        // (Divided by the pivot, not multiplied by a reciprocal that the compiler may take
        // approximately.)
        let pivot = span_ops[kw + k * n + k];
        for (var j = k + 1u; j < n; j++) {
            span_ops[kw + k * n + j] = span_ops[kw + k * n + j] / pivot;
        }
        for (var j = 0u; j < n; j++) {
            span_ops[ka + k * n + j] = span_ops[ka + k * n + j] / pivot;
            span_ops[kb + k * n + j] = span_ops[kb + k * n + j] / pivot;
        }
        span_ops[kc + k] = span_ops[kc + k] / pivot;
        span_ops[kch + k] = span_ops[kch + k] / pivot;
        for (var r = 0u; r < m; r++) {
            wgmat[k * m + r] = wgmat[k * m + r] / pivot;
        }
        for (var i = 0u; i < n; i++) {
            if (i == k) {
                continue;
            }
            let f = span_ops[kw + i * n + k];
            for (var j = k + 1u; j < n; j++) {
                span_ops[kw + i * n + j] = span_ops[kw + i * n + j] - f * span_ops[kw + k * n + j];
            }
            for (var j = 0u; j < n; j++) {
                span_ops[ka + i * n + j] = span_ops[ka + i * n + j] - f * span_ops[ka + k * n + j];
                span_ops[kb + i * n + j] = span_ops[kb + i * n + j] - f * span_ops[kb + k * n + j];
            }
            span_ops[kc + i] = span_ops[kc + i] - f * span_ops[kc + k];
            span_ops[kch + i] = span_ops[kch + i] - f * span_ops[kch + k];
            for (var r = 0u; r < m; r++) {
                wgmat[i * m + r] = wgmat[i * m + r] - f * wgmat[k * m + r];
            }
        }
    }
    for (var r = 0u; r < m; r++) {
        for (var s = 0u; s < m; s++) {
            var d = real(0.0);
            for (var j = 0u; j < n; j++) {
                d = d + op(o.h + r * n + j) * wgmat[j * m + s];
            }
            dmat[r * m + s] = d;
        }
    }
    for (var i = 0u; i < n; i++) {
        span_ops[kc + i] = span_tau * span_ops[kc + i];
        span_ops[kch + i] = span_tau * span_ops[kch + i];
    }
}
