// The stages of one scene-parallel Moreau–Jean step, in the order moreau_jean_pgs.wgsl calls
// them. Each is the twin of the method of the same name and arguments of
// batch::cpu::moreau_jean_stages::Group (src/batch/cpu/moreau_jean_stages.rs).

// cos(ω t_k + φ) at t_k = t₀ + k h, 0 from the force's end on. Twin: the grid's time in
// Group::step_cosine.
fn forcing_cosine(k: u32) -> real {
    return forcing_cosine_at(step_params.t0 + real(k) * step_params.h);
}

// cos(ω t + φ), 0 from the force's end on. Twin: the cosine that ends Group::step_cosine.
fn forcing_cosine_at(t: real) -> real {
    return select(real(0.0), sine_cosine(op(o.frequency) * t + op(o.frequency + 1u)).y, t < op(o.frequency + 2u));
}

// The harmonic part of F_ext in this step, (1 − θ) cos(ω t_k + φ) + θ cos(ω t_{k+1} + φ), each
// cosine 0 from the force's end on (the step's first is the last step's second, carried in
// phase_cos). Twin: Group::harmonic_forcing.
fn harmonic_forcing() -> real {
    if ((flags & HAS_FORCING) == 0u) {
        return real(0.0);
    }
    if (LOCATE && spanning) {
        // A located sub-step's ends (located.wgsl); the last step's cosine is left as it was.
        let start = span_cosine(span_start);
        return (1.0 - step_params.theta) * start + step_params.theta * span_cosine(span_start + span_tau);
    }
    let next_cos = forcing_cosine(health.steps + 1u);
    let mix = (1.0 - step_params.theta) * phase_cos + step_params.theta * next_cos;
    phase_cos = next_cos;
    return mix;
}


// v_free = v_k + c − A v_k − B q_k, c = c₀ + W⁻¹ h a · mix; keeps v_k. Over a located
// sub-step of length τ: with W(τ)'s own operators where the scene's W depends on the step's
// length (span_operators, in span_ops), else (W = M) with c · τ/h. Twin: Group::free_velocity.
fn free_velocity(mix: real) {
    let nn = n * n;
    let built = span_built();
    kick(mix, select(o.a, 0u, built), select(o.b, nn, built), select(o.c, 2u * nn, built),
        select(o.c_harmonic, 2u * nn + n, built));
}

// Operator k of the kick: of a located sub-step's own (span_ops) where it built them, else
// the scene's. Twin: the `ops` of Group::kick_with.
fn kick_op(k: u32) -> real {
    if (span_built()) {
        return span_ops[k];
    }
    return op(k);
}

// vf = v + c − A v − B q with c = c₀ + c_h · mix, the blocks A, B, c₀, c_h at the offsets
// given; keeps v in vk. Twin: Group::kick, Group::kick_with.
fn kick(mix: real, a: u32, b: u32, c0: u32, ch: u32) {
    // (c₀ and c_h are h M⁻¹ F: a located sub-step's are τ/h of them, unless it built its own.)
    let share = span_tau / step_params.h;
    for (var i = 0u; i < n; i++) {
        var c = kick_op(c0 + i);
        if ((flags & HAS_FORCING) != 0u) {
            c = c + kick_op(ch + i) * mix;
        }
        if (LOCATE && spanning && !span_built()) {
            c = c * share;
        }
        var x = v[i] + c;
        if ((flags & HAS_STIFFNESS) != 0u) {
            for (var j = 0u; j < n; j++) {
                x = x - kick_op(a + i * n + j) * v[j] - kick_op(b + i * n + j) * q[j];
            }
        }
        vf[i] = x;
        vk[i] = v[i];
    }
}

// Row r's output y = H q + Y q² + b (+ ‖x₁ − x₀‖ on sphere rows, + a cos q_k + b sin q_k on
// lever rows) and its rate ẏ = G(q) v at the current q, v. Twin: Group::row_output.
fn row_output(r: u32) -> vec2<real> {
    return row_output_at(r, &q);
}

// Row r's output and rate at (x, v). Twin: Group::row_output_at.
fn row_output_at(r: u32, x: ptr<private, array<real, MAX_DOF>>) -> vec2<real> {
    let nonlinear = NONLINEAR && scene_nonlinear;
    var y = op(o.offset + r);
    var ydot = real(0.0);
    if (!nonlinear) {
        let span = row_span(h_pattern, r, n);
        for (var i = 0u; i < span.y; i++) {
            let hrj = op(o.h + span.x + i);
            let j = row_col(h_pattern, span.x + i, i);
            y = y + hrj * (*x)[j];
            ydot = ydot + hrj * v[j];
        }
        return vec2<real>(y, ydot);
    }
    for (var j = 0u; j < n; j++) {
        let hrj = op(o.h + r * n + j);
        let yrj = op(o.quadratic + r * n + j);
        y = y + (hrj + yrj * (*x)[j]) * (*x)[j];
        ydot = ydot + (hrj + 2.0 * yrj * (*x)[j]) * v[j];
    }
    if (op(o.spheres + 6u * r) != 0.0) {
        // y += ‖x₁ − x₀‖ (not on a disc pair's tangent row), ẏ += u·(v₁ − v₀), u = n or t.
        let sep = separation(o.spheres + 6u * r, x);
        if (op(o.spheres + 6u * r) > 0.0) {
            y = y + sqrt(dot3(sep, sep));
        }
        let base = o.spheres + 6u * r;
        ydot = add_normal_rate(base, pair_direction(base, sep), pair_lever(base, sep), ydot);
    }
    if (has_lever(r)) {
        // y += a cos q_k + b sin q_k, ẏ += (b cos q_k − a sin q_k) v_k, term by term as
        // the twin (src/batch/cpu/lever.rs) adds them.
        let k = lever_angle(r);
        let ab = lever_coefficients(r);
        let sc = sine_cosine((*x)[k]);
        y = y + ab.x * sc.y;
        y = y + ab.y * sc.x;
        ydot = ydot + (ab.y * sc.y - ab.x * sc.x) * v[k];
    }
    return vec2<real>(y, ydot);
}

// Outputs y and ẏ of every row (row_output) at q_k, v_k, activation (equality rows, or
// y + γ h ẏ ≤ 0), the deepest penetration, the MLCP vector G v_free + (e ẏ + f y) and λ = 0.
// Twin: Group::outputs_and_activation.
fn outputs_and_activation() {
    let nonlinear = NONLINEAR && scene_nonlinear;
    for (var r = 0u; r < m; r++) {
        let out = row_output(r);
        let y = out.x;
        let ydot = out.y;
        // H v_free of a linear row (a nonlinear one's comes with its Newton iterate's G).
        var hv = real(0.0);
        if (!nonlinear) {
            let span = row_span(h_pattern, r, n);
            for (var i = 0u; i < span.y; i++) {
                hv = hv + op(o.h + span.x + i) * vf[row_col(h_pattern, span.x + i, i)];
            }
        }
        // A friction contact's tangent rows are active with the row before them (its normal
        // row or first tangent), and are no gap.
        if (row_kind(r) == ROW_TANGENT) {
            in_lcp[r] = in_lcp[r - 1u];
        } else if (is_equality(r)) {
            in_lcp[r] = true;
        } else {
            deepest = max(deepest, real(0.0) - y);
            if (LOCATE && spanning) {
                in_lcp[r] = y + step_params.gamma * span_tau * ydot <= 0.0;
            } else {
                in_lcp[r] = y + step_params.gamma * step_params.h * ydot <= 0.0;
            }
        }
        if (EVENTS > 0u) {
            rate[r] = ydot;
        }
        var base = op(o.restitution + r) * ydot;
        if (LOCATE && spanning) {
            // A located sub-step's rows: left out, tested closed within its tolerance, plastic.
            let part = span_rows(r);
            if (part.y) {
                in_lcp[r] = y + span_tol * min(ydot, real(0.0)) <= 0.0;
            }
            in_lcp[r] = in_lcp[r] && !part.x;
            if (part.z) {
                base = real(0.0);
            }
        }
        if ((flags & HAS_EQUALITY) != 0u) {
            base = base + op(o.feedback + r) * y;
        }
        if (nonlinear) {
            lcp_base[r] = base;
        }
        lcp_q[r] = hv + base;
        lambda[r] = real(0.0);
    }
}

// Newton iterate i (nonlinear rows): q^i = q_k + h((1 − θ) v_k + θ v^{i−1}) (v⁰ = v_k), G(q^i) row by
// row, and whether the loop stops: the input of the last λ moved by at most the tolerance,
// ‖(G(q^{i−1}) − G(q^i))ᵀ λ‖ ≤ tol (i > 0), or the iterations ran out (flagged).
// Twin: Group::newton_jacobian.
fn newton_jacobian(newton: u32) -> bool {
    if (newton == 0u) {
        for (var i = 0u; i < n; i++) {
            vi[i] = vk[i];
        }
    }
    let h = select(step_params.h, span_tau, LOCATE && spanning);
    for (var i = 0u; i < n; i++) {
        qi[i] = q[i] + h * ((1.0 - step_params.theta) * vk[i] + step_params.theta * vi[i]);
    }
    for (var j = 0u; j < n; j++) {
        pold[j] = input_of_lambda(j);
    }
    jacobian(&qi);
    var change = real(0.0);
    for (var j = 0u; j < n; j++) {
        let p = input_of_lambda(j);
        change = change + (pold[j] - p) * (pold[j] - p);
    }
    if (newton > 0u && change <= step_params.newton_tolerance * step_params.newton_tolerance) {
        return true;
    }
    if (newton >= step_params.newton_max_iterations) {
        health.flags = health.flags | NOT_CONVERGED;
        return true;
    }
    return false;
}

// G(x) = H + 2 Y diag(x) + the sphere rows' normals + the lever rows' slopes, row by row.
// Twin: Group::jacobian.
fn jacobian(x: ptr<private, array<real, MAX_DOF>>) {
    for (var r = 0u; r < m; r++) {
        jacobian_row(r, x);
    }
}

// Row r of G(x) into gmat. Twin: Group::jacobian_row.
fn jacobian_row(r: u32, x: ptr<private, array<real, MAX_DOF>>) {
    for (var j = 0u; j < n; j++) {
        gmat[r * n + j] = op(o.h + r * n + j) + 2.0 * op(o.quadratic + r * n + j) * (*x)[j];
    }
    if (op(o.spheres + 6u * r) != 0.0) {
        add_normal(o.spheres + 6u * r, r, x);
    }
    if (has_lever(r)) {
        // G_rk += b cos x_k − a sin x_k.
        let k = lever_angle(r);
        let ab = lever_coefficients(r);
        let sc = sine_cosine((*x)[k]);
        gmat[r * n + k] = gmat[r * n + k] + ab.y * sc.y;
        gmat[r * n + k] = gmat[r * n + k] - ab.x * sc.x;
    }
}

// The operators of Newton iterate i: W⁻¹Gᵀ, D = G W⁻¹Gᵀ, the MLCP vector G v_free + (e ẏ + f y)
// and λ = 0. Twin: Group::newton_operators.
fn newton_operators() {
    iterate_operators(o.w_inv);
    for (var r = 0u; r < m; r++) {
        var hv = real(0.0);
        for (var j = 0u; j < n; j++) {
            hv = hv + gmat[r * n + j] * vf[j];
        }
        lcp_q[r] = hv + lcp_base[r];
        lambda[r] = real(0.0);
    }
}

// W⁻¹Gᵀ and D = G W⁻¹Gᵀ of the current G, with the W⁻¹ at `w_inv`. Twin: Group::iterate_operators.
fn iterate_operators(w_inv: u32) {
    for (var i = 0u; i < n; i++) {
        for (var r = 0u; r < m; r++) {
            var x = real(0.0);
            for (var j = 0u; j < n; j++) {
                x = x + op(w_inv + i * n + j) * gmat[r * n + j];
            }
            wgmat[i * m + r] = x;
        }
    }
    for (var r = 0u; r < m; r++) {
        for (var k = 0u; k < m; k++) {
            var x = real(0.0);
            for (var j = 0u; j < n; j++) {
                x = x + gmat[r * n + j] * wgmat[j * m + k];
            }
            dmat[r * m + k] = x;
        }
    }
}

// PGS sweeps over the active rows (equality rows unprojected), at least one where a row is
// active, until Siconos's error ‖λ − max(0, λ − w)‖ / ‖q‖ (w = q + D λ; w itself on equality rows) is within the tolerance,
// compared as squares: ‖·‖² ≤ tol² ‖q‖² (or ≤ tol² when ‖q‖ ≤ ε); then the solve's health
// (sweeps, worst residual, convergence). Twin: Group::solve_local.
fn solve_local() {
    var err = real(0.0);
    var norm = real(0.0);
    var sweeps = 0u;
    var idle = true;
    loop {
        err = real(0.0);
        norm = real(0.0);
        for (var r = 0u; r < m; r++) {
            if (in_lcp[r]) {
                idle = false;
                let kind = row_kind(r);
                if (is_normal(kind)) {
                    let rows = kind;
                    var lam = vec3<real>(real(0.0), real(0.0), real(0.0));
                    var w = vec3<real>(real(0.0), real(0.0), real(0.0));
                    for (var a = 0u; a < rows; a++) {
                        lam[a] = lambda[r + a];
                        w[a] = local_velocity(r + a);
                    }
                    err = err + friction_error(rows, lam, w, op(o.mu + r));
                } else if (kind != ROW_TANGENT) {
                    let w = local_velocity(r);
                    let x = select(lambda[r] - max(lambda[r] - w, real(0.0)), w, is_equality(r));
                    err = err + x * x;
                }
                norm = norm + lcp_q[r] * lcp_q[r];
            }
        }
        let tol = step_params.tolerance;
        // At least one sweep where a row is active, as Siconos's solvers: λ = 0 is never taken
        // on the error alone (a huge μ or ‖q‖ makes it read "within" of an unpushed contact).
        if ((err <= tol * tol * select(real(1.0), norm, norm > REAL_EPSILON * REAL_EPSILON)
            && (idle || sweeps > 0u))
            || sweeps >= step_params.max_iterations) {
            break;
        }
        for (var r = 0u; r < m; r++) {
            let kind = row_kind(r);
            if (is_normal(kind)) {
                if (in_lcp[r]) {
                    let rows = kind;
                    var lam = vec3<real>(real(0.0), real(0.0), real(0.0));
                    for (var a = 0u; a < rows; a++) {
                        lam[a] = lambda[r + a];
                    }
                    var local = vec3<real>(real(0.0), real(0.0), real(0.0));
                    for (var a = 0u; a < rows; a++) {
                        local[a] = local_velocity(r + a);
                        for (var b = 0u; b < rows; b++) {
                            local[a] = local[a] - d_entry(r + a, r + b) * lam[b];
                        }
                    }
                    lam = friction_block(rows, r, local, lam, op(o.mu + r));
                    for (var a = 0u; a < rows; a++) {
                        lambda[r + a] = lam[a];
                    }
                }
                continue;
            }
            if (kind == ROW_TANGENT) {
                continue;
            }
            if (in_lcp[r]) {
                let w = local_velocity(r);
                let diagonal = d_entry(r, r);
                lambda[r] = select(normal_row(lambda[r], w, diagonal), equality_row(lambda[r], w, diagonal), is_equality(r));
            }
        }
        sweeps = sweeps + 1u;
    }
    let tol = step_params.tolerance;
    let scale = select(real(1.0), norm, norm > REAL_EPSILON * REAL_EPSILON);
    health.max_iterations = max(health.max_iterations, sweeps);
    worst = max(worst, sqrt(err / scale));
    if (!(err <= tol * tol * scale)) {
        health.flags = health.flags | NOT_CONVERGED;
    }
}

// v^i = v_free + W⁻¹Gᵀ λ. Twin: Group::impulse_to_velocity.
fn impulse_to_velocity() {
    if (COMPRESSED && sparse) {
        // Stored transposed by P_H: each λ_r scattered onto its dofs, so that every v_j adds
        // its terms in the order of r, as the dense sum does (a SPARSE scene is linear).
        for (var i = 0u; i < n; i++) {
            vi[i] = vf[i];
        }
        for (var r = 0u; r < m; r++) {
            let span = row_span(h_pattern, r, n);
            for (var i = 0u; i < span.y; i++) {
                let j = row_col(h_pattern, span.x + i, i);
                vi[j] = vi[j] + wg_at(span.x + i) * lambda[r];
            }
        }
        return;
    }
    for (var i = 0u; i < n; i++) {
        var x = vf[i];
        for (var r = 0u; r < m; r++) {
            x = x + wg_at(i * m + r) * lambda[r];
        }
        vi[i] = x;
    }
}

// Moreau–Jean's step from the free velocity to the new position (over a located sub-step's
// span where one is taken), with the Newton loop of nonlinear rows: iterate i solves the
// MLCP with G(q^i), v⁰ = v_k. Twin: Group::solve_step.
fn solve_step() {
    let nonlinear = NONLINEAR && scene_nonlinear;
    free_velocity(harmonic_forcing());
    outputs_and_activation();
    var newton = 0u;
    loop {
        if (nonlinear) {
            if (newton_jacobian(newton)) {
                break;
            }
            newton_operators();
        }
        solve_local();
        impulse_to_velocity();
        newton = newton + 1u;
        if (!nonlinear) {
            break;
        }
    }
    update_position();
}

// v_{k+1} = v^i,  q_{k+1} = q_k + h (θ v_{k+1} + (1 − θ) v_k) (τ for h over a located
// sub-step). Twin: Group::update_position.
fn update_position() {
    let h = select(step_params.h, span_tau, LOCATE && spanning);
    for (var i = 0u; i < n; i++) {
        q[i] = q[i] + h * (step_params.theta * vi[i] + (1.0 - step_params.theta) * vk[i]);
        v[i] = vi[i];
    }
}

// Counts the step: an impact when some contact (not an equality row) carries an impulse and
// none did in the step before; and the worst cone violation ‖λ_T‖ − μ λ_N of its friction
// contacts. Twin: Group::record_health.
fn record_health() {
    for (var r = 0u; r < m; r++) {
        let kind = row_kind(r);
        if (is_normal(kind)) {
            cone = max(cone, cone_violation(r, kind));
        }
    }
    var loaded = false;
    for (var r = 0u; r < m; r++) {
        loaded = loaded || (lambda[r] > 0.0 && !is_equality(r));
    }
    health.steps = health.steps + 1u;
    if (loaded) {
        health.contact_steps = health.contact_steps + 1u;
        if ((health.flags & IN_CONTACT) == 0u) {
            health.impacts = health.impacts + 1u;
            health.last_impact = health.steps;
        }
        health.flags = health.flags | IN_CONTACT;
    } else {
        health.flags = health.flags & ~IN_CONTACT;
    }
}
