// Scene-parallel Moreau–Jean steps with a projected Gauss–Seidel LCP solve.
// reference: solver::cpu::batch::simulate (same stages, same order of operations).
// One invocation per scene (grid-stride loop), `params.steps` steps per dispatch, no atomics.

struct Layout {
    n: u32, m: u32,
    a: u32, b: u32, c: u32, g: u32, hm: u32, d: u32, offset: u32, e: u32,
    q: u32, v: u32,
    vf: u32, vk: u32, lcp_q: u32, flag: u32, lambda: u32,
}

fn layout_of(hd: SceneHeader) -> Layout {
    let n = hd.ndof;
    let m = hd.ncontacts;
    let a = hd.operator_offset;
    let g = a + 2u * n * n + n;
    let d = g + 2u * n * m;
    let w = hd.work_offset;
    return Layout(n, m, a, a + n * n, a + 2u * n * n, g, g + n * m, d, d + m * m, d + m * m + m,
                  hd.state_offset, hd.state_offset + n,
                  w, w + n, w + 2u * n, w + 2u * n + m, w + 2u * n + 2u * m);
}

// Siconos's error ‖λ − max(0, λ − w)‖ / ‖q‖ over the active rows, w = q + D λ.
fn lcp_error(l: Layout) -> real {
    var err = real(0.0);
    var norm = real(0.0);
    for (var r = 0u; r < l.m; r++) {
        if (work[l.flag + r] > 0.0) {
            var w = work[l.lcp_q + r];
            for (var k = 0u; k < l.m; k++) {
                w = w + ops[l.d + r * l.m + k] * work[l.lambda + k];
            }
            let lam = work[l.lambda + r];
            let x = lam - max(lam - w, real(0.0));
            err = err + x * x;
            norm = norm + work[l.lcp_q + r] * work[l.lcp_q + r];
        }
    }
    err = sqrt(err);
    norm = sqrt(norm);
    if (norm > REAL_EPSILON) {
        return err / norm;
    }
    return err;
}

fn simulate(s: u32) {
    let hd = headers[s];
    let l = layout_of(hd);
    let h = coefficients[0];
    let theta = coefficients[1];
    let gamma = coefficients[2];
    let tol = coefficients[3];
    var health = counters[s];
    var worst = extremes[2u * s];
    var deepest = extremes[2u * s + 1u];
    for (var step = 0u; step < params.steps; step++) {
        // Free velocity v_free = v_k + c − A v_k − B q_k.
        for (var i = 0u; i < l.n; i++) {
            var x = state[l.v + i] + ops[l.c + i];
            if ((hd.flags & HAS_STIFFNESS) != 0u) {
                for (var j = 0u; j < l.n; j++) {
                    x = x - ops[l.a + i * l.n + j] * state[l.v + j] - ops[l.b + i * l.n + j] * state[l.q + j];
                }
            }
            work[l.vf + i] = x;
            work[l.vk + i] = state[l.v + i];
        }
        // Outputs, activation y + γ h ẏ ≤ 0, LCP vector H v_free + e ẏ.
        for (var r = 0u; r < l.m; r++) {
            var y = ops[l.offset + r];
            var ydot = real(0.0);
            var hv = real(0.0);
            for (var j = 0u; j < l.n; j++) {
                let hrj = ops[l.hm + r * l.n + j];
                y = y + hrj * state[l.q + j];
                ydot = ydot + hrj * state[l.v + j];
                hv = hv + hrj * work[l.vf + j];
            }
            deepest = max(deepest, -y);
            work[l.flag + r] = select(real(0.0), real(1.0), y + gamma * h * ydot <= 0.0);
            work[l.lcp_q + r] = hv + ops[l.e + r] * ydot;
            work[l.lambda + r] = real(0.0);
        }
        // Projected Gauss–Seidel sweeps over the active rows.
        var residual = lcp_error(l);
        var sweeps = 0u;
        while (residual > tol && sweeps < params.max_iterations) {
            for (var r = 0u; r < l.m; r++) {
                if (work[l.flag + r] > 0.0) {
                    var w = work[l.lcp_q + r];
                    for (var k = 0u; k < l.m; k++) {
                        w = w + ops[l.d + r * l.m + k] * work[l.lambda + k];
                    }
                    work[l.lambda + r] = max(work[l.lambda + r] - w / ops[l.d + r * l.m + r], real(0.0));
                }
            }
            sweeps = sweeps + 1u;
            residual = lcp_error(l);
        }
        health.max_iterations = max(health.max_iterations, sweeps);
        worst = max(worst, residual);
        if (residual > tol) {
            health.flags = health.flags | NOT_CONVERGED;
        }
        // v_{k+1} = v_free + W⁻¹Hᵀ λ,  q_{k+1} = q_k + h (θ v_{k+1} + (1 − θ) v_k).
        for (var i = 0u; i < l.n; i++) {
            var x = work[l.vf + i];
            for (var r = 0u; r < l.m; r++) {
                x = x + ops[l.g + i * l.m + r] * work[l.lambda + r];
            }
            state[l.q + i] = state[l.q + i] + h * (theta * x + (1.0 - theta) * work[l.vk + i]);
            state[l.v + i] = x;
        }
        var impact = false;
        for (var r = 0u; r < l.m; r++) {
            impact = impact || work[l.lambda + r] > 0.0;
        }
        if (impact) {
            health.impacts = health.impacts + 1u;
        }
        health.steps = health.steps + 1u;
    }
    for (var i = 0u; i < 2u * l.n; i++) {
        if (!is_finite(state[l.q + i])) {
            health.flags = health.flags | NON_FINITE;
        }
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
