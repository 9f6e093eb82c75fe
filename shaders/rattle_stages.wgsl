// The stages of one scene-parallel nonsmooth RATTLE step (Breuling et al. 2024, cited in
// src/scheme/nonsmooth_rattle.rs), in the
// order moreau_jean_pgs.wgsl's rattle_step calls them. Each is the twin of the method of the
// same name and arguments of batch::cpu::moreau_jean_stages::Group
// (src/batch/cpu/moreau_jean_stages/rattle.rs), where the equations are. The operators at
// o.a … o.w_inv are the half kick's (W½ = M + (h/2) C), those at o.end_a … the end kick's
// (M); λ is the step's total percussion P.

// ẏ⁻ = G(q_n) v_n of every row (kept for stage 2), the deepest penetration at q_n, stage 1's
// operators (W½⁻¹Gᵀ, and with nonlinear rows G_n and the chord matrix G_n W½⁻¹ G_nᵀ).
// Twin: Group::rattle_start.
fn rattle_start() {
    for (var r = 0u; r < m; r++) {
        let out = row_output(r);
        if (!is_equality(r)) {
            deepest = max(deepest, real(0.0) - out.x);
        }
        rate[r] = out.y;
    }
    d_base = o.delassus;
    wg_base = o.w_inv_ht;
    if (NONLINEAR && scene_nonlinear) {
        jacobian(&q);
        iterate_operators(o.w_inv);
    }
}

// cos(ω t + φ) at t_{k+ahead} (0 without a harmonic F_ext, or from its end on).
// Twin: Group::step_cosine.
fn step_cosine(ahead: u32) -> real {
    if ((flags & HAS_FORCING) == 0u) {
        return real(0.0);
    }
    return forcing_cosine(health.steps + ahead);
}

// The half kick v̄ = v_n − A v_n − B q_n + c₀ + c_h cos(ω t_n + φ) into vf. Twin: Group::half_kick.
fn half_kick(cosine: real) {
    kick(cosine, o.a, o.b, o.c, o.c_harmonic);
}

// The drift q̄ = q_n + h v̄ and stage 1's rows: every equality, and the contacts with
// y(q̄) ≤ 0; P⁰ = 0, v⁰ = v̄. Twin: Group::stage1_rows.
fn stage1_rows() {
    for (var i = 0u; i < n; i++) {
        qi[i] = q[i] + step_params.h * vf[i];
        vi[i] = vf[i];
    }
    for (var r = 0u; r < m; r++) {
        let y = row_output_at(r, &qi).x;
        in_lcp[r] = y <= 0.0 || is_equality(r);
        lambda[r] = real(0.0);
    }
}

// Iterate i = `iterate` of stage 1: q^i = q_n + h v^i, y(q^i) on stage 1's rows (kept in lcp_q), and
// whether the scene stops: its residual (|y| on equalities and contacts with P^i > 0,
// max(−y, 0) on the others) is within the position tolerance, or the passes ran out
// (flagged). Twin: Group::stage1_residual.
fn stage1_residual(iterate: u32) -> bool {
    for (var i = 0u; i < n; i++) {
        qi[i] = q[i] + step_params.h * vi[i];
    }
    var residual = real(0.0);
    for (var r = 0u; r < m; r++) {
        let y = row_output_at(r, &qi).x;
        let held = lambda[r] > 0.0 || is_equality(r);
        let off = select(max(real(0.0) - y, real(0.0)), abs(y), held);
        residual = max(residual, select(real(0.0), off, in_lcp[r]));
        lcp_q[r] = y;
    }
    if (residual <= step_params.position_tolerance) {
        return true;
    }
    if (iterate >= step_params.newton_max_iterations) {
        health.flags = health.flags | NOT_CONVERGED;
        return true;
    }
    return false;
}

// Stage 1's MLCP of iterate i: vector y(q^i)/h − A P^i (A the chord matrix, D½ for linear
// rows), PGS from P^i, then v^{i+1} = v̄ + W½⁻¹G_nᵀ P^{i+1}. Twin: Group::stage1_solve.
fn stage1_solve() {
    for (var r = 0u; r < m; r++) {
        var ap = real(0.0);
        for (var k = 0u; k < m; k++) {
            ap = ap + d_at(r * m + k) * lambda[k];
        }
        lcp_q[r] = lcp_q[r] / step_params.h - ap;
    }
    solve_local();
    impulse_to_velocity();
}

// The end of stage 1: v½ = v^i, q_{n+1} = q_n + h v½, P¹ = P^i, and stage 2's rows: the
// equalities, and the rows of stage 1 with P¹ > 0 or y(q_{n+1}) within the position tolerance.
// Twin: Group::stage1_update.
fn stage1_update() {
    for (var i = 0u; i < n; i++) {
        q[i] = q[i] + step_params.h * vi[i];
        v[i] = vi[i];
    }
    for (var r = 0u; r < m; r++) {
        let y = row_output(r).x;
        in_lcp[r] = (in_lcp[r] && (lambda[r] > 0.0 || y <= step_params.position_tolerance)) || is_equality(r);
        p1[r] = lambda[r];
    }
}

// The end kick v* = v½ − A_e v½ − B_e q_{n+1} + c_e₀ + c_eh cos(ω t_{n+1} + φ) − M⁻¹G_{n+1}ᵀ P¹
// (G_{n+1}, M⁻¹Gᵀ and G M⁻¹ Gᵀ rebuilt with nonlinear rows) and stage 2's MLCP vector
// G_{n+1} v* + e ẏ⁻ with P = 0. Twin: Group::end_kick.
fn end_kick(cosine: real) {
    let nonlinear = NONLINEAR && scene_nonlinear;
    kick(cosine, o.end_a, o.end_b, o.end_c, o.end_c_harmonic);
    d_base = o.end_delassus;
    wg_base = o.end_w_inv_ht;
    if (nonlinear) {
        jacobian(&q);
        iterate_operators(o.end_w_inv);
    }
    for (var i = 0u; i < n; i++) {
        var x = vf[i];
        for (var r = 0u; r < m; r++) {
            x = x - wg_at(i * m + r) * p1[r];
        }
        vf[i] = x;
    }
    for (var r = 0u; r < m; r++) {
        var gv = real(0.0);
        for (var j = 0u; j < n; j++) {
            var g = op(o.h + r * n + j);
            if (nonlinear) {
                g = gmat[r * n + j];
            }
            gv = gv + g * vf[j];
        }
        lcp_q[r] = gv + op(o.restitution + r) * rate[r];
        lambda[r] = real(0.0);
    }
}

// Stage 2: PGS on the closed rows with G_{n+1} M⁻¹ G_{n+1}ᵀ, then v_{n+1} = v* + M⁻¹G_{n+1}ᵀ P.
// Twin: Group::stage2_solve.
fn stage2_solve() {
    solve_local();
    impulse_to_velocity();
    for (var i = 0u; i < n; i++) {
        v[i] = vi[i];
    }
}

// One nonsmooth RATTLE step of the current scene. Twin: moreau_jean_pgs::rattle_step.
fn rattle_step() {
    rattle_start();
    half_kick(step_cosine(0u));
    stage1_rows();
    var iterate = 0u;
    loop {
        if (stage1_residual(iterate)) {
            break;
        }
        stage1_solve();
        iterate = iterate + 1u;
    }
    stage1_update();
    end_kick(step_cosine(1u));
    stage2_solve();
    record_health();
    observe(false);
}
