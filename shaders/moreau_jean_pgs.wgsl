// Scene-parallel Moreau–Jean steps with a projected Gauss–Seidel MLCP solve.
// reference: solver::cpu::batch::simulate (same stages, same order of operations).
// One invocation per scene (grid-stride loop), `params.steps` fused steps per dispatch with
// the state and the scratch in private arrays; no atomics.

// The scene's operators, copied into private memory before the time loop when they fit
// (PRIVATE_OPS > 1): read once per run instead of once per step.
var<private> private_ops: array<real, PRIVATE_OPS>;
var<private> op_base: u32;
// In a kernel compiled for nonlinear rows (NONLINEAR: quadratic terms, sphere–sphere gaps),
// the Jacobian G(q^i) = H + 2 Y diag(q^i) + normals, W⁻¹Gᵀ and G W⁻¹ Gᵀ of the current Newton
// iterate (QUAD_MN, QUAD_MM, and NL_DOF, NL_CONTACTS of the Newton scratch, are 1 otherwise).
var<private> gmat: array<real, QUAD_MN>;
var<private> wgmat: array<real, QUAD_MN>;
var<private> dmat: array<real, QUAD_MM>;
// Whether the current scene has nonlinear rows (a linear scene in a NONLINEAR kernel keeps
// its constant operators, as the CPU twin does).
var<private> scene_nonlinear: bool;

// Operator k of the current scene. In storage, packed batches have stride 1 and interleaved
// ones (value k of scene s at k·S + s) stride S.
fn op(k: u32) -> real {
    if (PRIVATE_OPS > 1u) {
        return private_ops[k];
    }
    return ops[op_base + k * params.stride];
}

// Entry k of G (m×n), of W⁻¹Gᵀ (n×m) and of the Delassus matrix (m×m): the step's own
// with nonlinear rows, else the constant ones at operator offsets oh, og, od.
fn g_at(oh: u32, k: u32) -> real {
    if (NONLINEAR && scene_nonlinear) {
        return gmat[k];
    }
    return op(oh + k);
}

fn wg_at(og: u32, k: u32) -> real {
    if (NONLINEAR && scene_nonlinear) {
        return wgmat[k];
    }
    return op(og + k);
}

fn d_at(od: u32, k: u32) -> real {
    if (NONLINEAR && scene_nonlinear) {
        return dmat[k];
    }
    return op(od + k);
}

// The separation x₁ − x₀ of a sphere–sphere row (its 6 operators from `base`: dim, i₀ (−1:
// the fixed centre c), i₁, c) at coordinates x; zero beyond dim.
fn separation(base: u32, x: ptr<function, array<real, MAX_DOF>>) -> vec3<real> {
    let dim = u32(op(base));
    let i0 = op(base + 1u);
    let i1 = u32(op(base + 2u));
    var d = vec3<real>(real(0.0), real(0.0), real(0.0));
    for (var k = 0u; k < dim; k++) {
        var x0 = op(base + 3u + k);
        if (i0 >= 0.0) {
            x0 = (*x)[u32(i0) + k];
        }
        d[k] = (*x)[i1 + k] - x0;
    }
    return d;
}

// The unit normal of a separation (zero when the centres coincide).
fn unit(d: vec3<real>) -> vec3<real> {
    let norm = sqrt(dot(d, d));
    if (norm > 0.0) {
        return d / norm;
    }
    return vec3<real>(real(0.0), real(0.0), real(0.0));
}

// Adds the normal of sphere–sphere row `base` to G row r at coordinates x.
fn add_normal(base: u32, r: u32, n: u32, x: ptr<function, array<real, MAX_DOF>>) {
    let dim = u32(op(base));
    let i0 = op(base + 1u);
    let i1 = u32(op(base + 2u));
    let normal = unit(separation(base, x));
    for (var k = 0u; k < dim; k++) {
        gmat[r * n + i1 + k] = gmat[r * n + i1 + k] + normal[k];
        if (i0 >= 0.0) {
            gmat[r * n + u32(i0) + k] = gmat[r * n + u32(i0) + k] - normal[k];
        }
    }
}

fn simulate(s: u32) {
    let hd = headers[s];
    // In a batch whose scenes all have the same sizes these are constants (FIXED_* > 0),
    // which lets the compiler unroll every loop below.
    let n = select(hd.ndof, FIXED_DOF, FIXED_DOF > 0u);
    let m = select(hd.ncontacts, FIXED_CONTACTS, FIXED_CONTACTS > 0u);
    // Operator blocks (indices within the scene): A, B (n×n), c (n), W⁻¹Hᵀ (n×m), H (m×n),
    // D (m×m), b, e, equality (1 or 0), feedback f (m), W⁻¹ h a (n), ω, φ, cos ωh, sin ωh,
    // Y (m×n), W⁻¹ (n×n),
    // sphere–sphere gaps (6 m); read through op().
    let oa = 0u;
    let ob = oa + n * n;
    let oc = ob + n * n;
    let og = oc + n;
    let oh = og + n * m;
    let od = oh + m * n;
    let ooff = od + m * m;
    let oe = ooff + m;
    let oeq = oe + m;
    let ofb = oeq + m;
    let oca = ofb + m;
    let oomega = oca + n;
    let oy = oomega + 4u;
    let ow = oy + m * n;
    let ods = ow + n * n;
    let h = coefficients[0];
    let theta = coefficients[1];
    let gamma = coefficients[2];
    let tol = coefficients[3];
    let newton_tol = coefficients[4];
    let newton_max = u32(coefficients[5]);
    let t0 = coefficients[6];
    let has_equality = (hd.flags & HAS_EQUALITY) != 0u;
    scene_nonlinear = (hd.flags & HAS_NONLINEAR) != 0u;
    let nonlinear = NONLINEAR && scene_nonlinear;
    op_base = hd.operator_offset;
    if (PRIVATE_OPS > 1u) {
        for (var k = 0u; k < select(oy, ods + 6u * m, NONLINEAR); k++) {
            private_ops[k] = ops[op_base + k * params.stride];
        }
    }
    var q: array<real, MAX_DOF>;
    var v: array<real, MAX_DOF>;
    var vf: array<real, MAX_DOF>;
    var vk: array<real, MAX_DOF>;
    var vi: array<real, MAX_DOF>;
    var qi: array<real, MAX_DOF>;
    var pold: array<real, NL_DOF>;
    var lcp_q: array<real, MAX_CONTACTS>;
    var lcp_base: array<real, NL_CONTACTS>;
    var in_lcp: array<bool, MAX_CONTACTS>;
    var lambda: array<real, MAX_CONTACTS>;
    for (var i = 0u; i < n; i++) {
        q[i] = state[hd.state_offset + i * params.stride];
        v[i] = state[hd.state_offset + (n + i) * params.stride];
    }
    var health = counters[s];
    var worst = extremes[2u * s];
    var deepest = extremes[2u * s + 1u];
    // A harmonic F_ext needs cos(ω t_k + φ) every step: evaluated here, at the dispatch's first
    // step, and then rotated by ωh (a rounding drift of ~steps·ε, re-anchored every dispatch).
    let forcing = (hd.flags & HAS_FORCING) != 0u;
    var phase_cos = real(0.0);
    var phase_sin = real(0.0);
    if (forcing) {
        let angle = op(oomega) * (t0 + real(health.steps) * h) + op(oomega + 1u);
        phase_cos = cosine(angle);
        phase_sin = cosine(angle - PI_OVER_2);
    }
    for (var step = 0u; step < params.steps; step++) {
        // Free velocity v_free = v_k + c − A v_k − B q_k, c = c₀ + W⁻¹ h a [(1 − θ) cos(ω t_k + φ)
        // + θ cos(ω t_{k+1} + φ)] for a harmonic F_ext.
        var mix = real(0.0);
        if (forcing) {
            // Rotate (cos, sin)(ω t_k + φ) by ωh: (C, S) ← (C cos ωh − S sin ωh, S cos ωh + C sin ωh).
            let next_cos = phase_cos * op(oomega + 2u) - phase_sin * op(oomega + 3u);
            phase_sin = phase_sin * op(oomega + 2u) + phase_cos * op(oomega + 3u);
            mix = (1.0 - theta) * phase_cos + theta * next_cos;
            phase_cos = next_cos;
        }
        for (var i = 0u; i < n; i++) {
            var c = op(oc + i);
            if (forcing) {
                c = c + op(oca + i) * mix;
            }
            var x = v[i] + c;
            if ((hd.flags & HAS_STIFFNESS) != 0u) {
                for (var j = 0u; j < n; j++) {
                    x = x - op(oa + i * n + j) * v[j] - op(ob + i * n + j) * q[j];
                }
            }
            vf[i] = x;
            vk[i] = v[i];
        }
        // Outputs y = H q + Y q² + b and ẏ = G(q_k) v_k, activation (equality rows, or
        // y + γ h ẏ ≤ 0), vector G v_free + (e ẏ + f y).
        for (var r = 0u; r < m; r++) {
            var y = op(ooff + r);
            var ydot = real(0.0);
            var hv = real(0.0);
            for (var j = 0u; j < n; j++) {
                let hrj = op(oh + r * n + j);
                if (nonlinear) {
                    let yrj = op(oy + r * n + j);
                    y = y + (hrj + yrj * q[j]) * q[j];
                    ydot = ydot + (hrj + 2.0 * yrj * q[j]) * v[j];
                } else {
                    y = y + hrj * q[j];
                    ydot = ydot + hrj * v[j];
                    hv = hv + hrj * vf[j];
                }
            }
            if (nonlinear && op(ods + 6u * r) > 0.0) {
                // y += ‖x₁ − x₀‖, ẏ += n·(v₁ − v₀).
                let base = ods + 6u * r;
                let sep = separation(base, &q);
                let normal = unit(sep);
                y = y + sqrt(dot(sep, sep));
                let i0 = op(base + 1u);
                let i1 = u32(op(base + 2u));
                for (var k = 0u; k < u32(op(base)); k++) {
                    var v0 = real(0.0);
                    if (i0 >= 0.0) {
                        v0 = v[u32(i0) + k];
                    }
                    ydot = ydot + normal[k] * (v[i1 + k] - v0);
                }
            }
            let equality = has_equality && op(oeq + r) > 0.5;
            if (!equality) {
                deepest = max(deepest, -y);
            }
            in_lcp[r] = equality || y + gamma * h * ydot <= 0.0;
            var base = op(oe + r) * ydot;
            if (has_equality) {
                base = base + op(ofb + r) * y;
            }
            if (nonlinear) {
                lcp_base[r] = base;
            }
            lcp_q[r] = hv + base;
            lambda[r] = real(0.0);
        }
        // Newton iterations (one pass without nonlinear rows): iterate i solves the MLCP with
        // G(q^i), q^i = q_k + h((1 − θ) v_k + θ v^{i−1}), v⁰ = v_k; it has converged when the
        // input of the last λ moves by at most the tolerance, ‖(G(q^{i−1}) − G(q^i))ᵀ λ‖ ≤ tol.
        if (nonlinear) {
            for (var i = 0u; i < n; i++) {
                vi[i] = vk[i];
            }
        }
        var newton = 0u;
        loop {
            if (nonlinear) {
                for (var i = 0u; i < n; i++) {
                    qi[i] = q[i] + h * ((1.0 - theta) * vk[i] + theta * vi[i]);
                }
                // G(q^i) row by row, and how far it moves the last input Gᵀλ.
                for (var j = 0u; j < n; j++) {
                    var p = real(0.0);
                    for (var r = 0u; r < m; r++) {
                        p = p + gmat[r * n + j] * lambda[r];
                    }
                    pold[j] = p;
                }
                for (var r = 0u; r < m; r++) {
                    for (var j = 0u; j < n; j++) {
                        gmat[r * n + j] = op(oh + r * n + j) + 2.0 * op(oy + r * n + j) * qi[j];
                    }
                    if (op(ods + 6u * r) > 0.0) {
                        add_normal(ods + 6u * r, r, n, &qi);
                    }
                }
                var change = real(0.0);
                for (var j = 0u; j < n; j++) {
                    var p = real(0.0);
                    for (var r = 0u; r < m; r++) {
                        p = p + gmat[r * n + j] * lambda[r];
                    }
                    change = change + (pold[j] - p) * (pold[j] - p);
                }
                if (newton > 0u && change <= newton_tol * newton_tol) {
                    break;
                }
                if (newton >= newton_max) {
                    health.flags = health.flags | NOT_CONVERGED;
                    break;
                }
                for (var i = 0u; i < n; i++) {
                    for (var r = 0u; r < m; r++) {
                        var x = real(0.0);
                        for (var j = 0u; j < n; j++) {
                            x = x + op(ow + i * n + j) * gmat[r * n + j];
                        }
                        wgmat[i * m + r] = x;
                    }
                }
                for (var r = 0u; r < m; r++) {
                    var hv = real(0.0);
                    for (var j = 0u; j < n; j++) {
                        hv = hv + gmat[r * n + j] * vf[j];
                    }
                    for (var k = 0u; k < m; k++) {
                        var x = real(0.0);
                        for (var j = 0u; j < n; j++) {
                            x = x + gmat[r * n + j] * wgmat[j * m + k];
                        }
                        dmat[r * m + k] = x;
                    }
                    lcp_q[r] = hv + lcp_base[r];
                    lambda[r] = real(0.0);
                }
            }
            // PGS sweeps over the active rows (equality rows unprojected) until Siconos's error
            // ‖λ − max(0, λ − w)‖ / ‖q‖ (w = q + D λ; w itself on equality rows) is within the
            // tolerance, compared as squares: ‖·‖² ≤ tol² ‖q‖² (or ≤ tol² when ‖q‖ ≤ ε).
            var err = real(0.0);
            var norm = real(0.0);
            var sweeps = 0u;
            loop {
                err = real(0.0);
                norm = real(0.0);
                for (var r = 0u; r < m; r++) {
                    if (in_lcp[r]) {
                        var w = lcp_q[r];
                        for (var k = 0u; k < m; k++) {
                            w = w + d_at(od, r * m + k) * lambda[k];
                        }
                        let x = select(lambda[r] - max(lambda[r] - w, real(0.0)), w, has_equality && op(oeq + r) > 0.5);
                        err = err + x * x;
                        norm = norm + lcp_q[r] * lcp_q[r];
                    }
                }
                if (err <= tol * tol * select(real(1.0), norm, norm > REAL_EPSILON * REAL_EPSILON)
                    || sweeps >= params.max_iterations) {
                    break;
                }
                for (var r = 0u; r < m; r++) {
                    if (in_lcp[r]) {
                        var w = lcp_q[r];
                        for (var k = 0u; k < m; k++) {
                            w = w + d_at(od, r * m + k) * lambda[k];
                        }
                        let free = lambda[r] - w / d_at(od, r * m + r);
                        lambda[r] = select(max(free, real(0.0)), free, has_equality && op(oeq + r) > 0.5);
                    }
                }
                sweeps = sweeps + 1u;
            }
            let scale = select(real(1.0), norm, norm > REAL_EPSILON * REAL_EPSILON);
            let converged = err <= tol * tol * scale;
            let residual = sqrt(err / scale);
            health.max_iterations = max(health.max_iterations, sweeps);
            worst = max(worst, residual);
            if (!converged) {
                health.flags = health.flags | NOT_CONVERGED;
            }
            // v^i = v_free + W⁻¹Gᵀ λ; without nonlinear rows it is v_{k+1}, committed at once.
            for (var i = 0u; i < n; i++) {
                var x = vf[i];
                for (var r = 0u; r < m; r++) {
                    x = x + wg_at(og, i * m + r) * lambda[r];
                }
                if (nonlinear) {
                    vi[i] = x;
                } else {
                    q[i] = q[i] + h * (theta * x + (1.0 - theta) * vk[i]);
                    v[i] = x;
                }
            }
            newton = newton + 1u;
            if (!nonlinear) {
                break;
            }
        }
        // v_{k+1} = v^i,  q_{k+1} = q_k + h (θ v_{k+1} + (1 − θ) v_k).
        if (nonlinear) {
            for (var i = 0u; i < n; i++) {
                q[i] = q[i] + h * (theta * vi[i] + (1.0 - theta) * vk[i]);
                v[i] = vi[i];
            }
        }
        // An impact: some contact (not an equality row) carries an impulse and none did in
        // the step before.
        var loaded = false;
        for (var r = 0u; r < m; r++) {
            loaded = loaded || (lambda[r] > 0.0 && !(has_equality && op(oeq + r) > 0.5));
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
    for (var i = 0u; i < n; i++) {
        if (!is_finite(q[i]) || !is_finite(v[i])) {
            health.flags = health.flags | NON_FINITE;
        }
        state[hd.state_offset + i * params.stride] = q[i];
        state[hd.state_offset + (n + i) * params.stride] = v[i];
    }
    counters[s] = health;
    extremes[2u * s] = worst;
    extremes[2u * s + 1u] = deepest;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let stride = groups.x * 64u;
    for (var s = gid.x; s < params.scenes; s += stride) {
        simulate(s);
    }
}
