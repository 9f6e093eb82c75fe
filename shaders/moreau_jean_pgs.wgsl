// Scene-parallel Moreau–Jean steps with a projected Gauss–Seidel MLCP solve.
// Twin: batch::cpu::moreau_jean_pgs (src/batch/cpu/moreau_jean_pgs.rs): the step is the same
// named stages, each with the same name and arguments there (a test checks the two lists),
// in the same order of operations. One invocation per scene (grid-stride loop),
// `params.steps` fused steps per dispatch, the scene's state and scratch in private memory;
// no atomics. The stages themselves are in moreau_jean_stages.wgsl and observe.wgsl, the
// located step in located.wgsl.

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
// The current scene: its index, n dof, m rows, its flags and the offsets of its operator
// blocks.
var<private> scene: u32;
var<private> n: u32;
var<private> m: u32;
var<private> flags: u32;
var<private> o: OperatorOffsets;
// Its state and scratch: q, v, v_free, v_k, v^i, q^i (n each); the MLCP vector, its constant
// part e ẏ + f y and λ (m each); activation; the last Newton input Gᵀλ.
var<private> q: array<real, MAX_DOF>;
var<private> v: array<real, MAX_DOF>;
var<private> vf: array<real, MAX_DOF>;
var<private> vk: array<real, MAX_DOF>;
var<private> vi: array<real, MAX_DOF>;
var<private> qi: array<real, MAX_DOF>;
var<private> pold: array<real, NL_DOF>;
var<private> lcp_q: array<real, MAX_CONTACTS>;
var<private> lcp_base: array<real, NL_CONTACTS>;
var<private> in_lcp: array<bool, MAX_CONTACTS>;
// The kind of each row (ROW_*).
var<private> kinds: array<u32, MAX_CONTACTS>;
var<private> lambda: array<real, MAX_CONTACTS>;
// Where wg_at and d_at read a linear scene's W⁻¹Hᵀ and Delassus matrix (RATTLE switches them
// between its two stages), and RATTLE's stage-1 percussion P¹ (RATTLE_CONTACTS is 1 in a
// Moreau–Jean kernel).
var<private> wg_base: u32;
var<private> d_base: u32;
// Whether the scene stores H, W⁻¹Hᵀ and D by compressed rows (SPARSE), and where its patterns
// start in row_kinds (row_span in moreau_jean_rows.wgsl).
var<private> sparse: bool;
var<private> h_pattern: u32;
var<private> d_pattern: u32;
var<private> p1: array<real, RATTLE_CONTACTS>;
// Its health: counters, worst MLCP residual, deepest penetration, worst cone violation; and
// cos(ω t_k + φ).
var<private> health: HealthCounters;
var<private> worst: real;
var<private> deepest: real;
var<private> cone: real;
var<private> phase_cos: real;
// Its observers' accumulators and, with impact events, each row's ẏ at the start of the step
// (observe.wgsl).
var<private> observed_slots: array<real, OBSERVED>;
var<private> rate: array<real, EVENT_ROWS>;

// Operator k of the current scene. In storage, packed batches have stride 1 and interleaved
// ones (value k of scene s at k·S + s) stride S.
fn op(k: u32) -> real {
    if (PRIVATE_OPS > 1u) {
        return private_ops[k];
    }
    return ops[op_base + k * params.stride];
}

// Whether row r is an equality (always in the MLCP, λ unprojected). Twin: Group::is_equality.
fn is_equality(r: u32) -> bool {
    return (flags & HAS_EQUALITY) != 0u && kinds[r] == ROW_EQUALITY;
}

// Reads scene s: sizes, offsets, operators (into private memory when they fit), q, v and
// health; and the harmonic forcing's cosine at the dispatch's first step. Twin: Group::load.
fn load_scene(s: u32) {
    scene = s;
    let hd = headers[s];
    // In a batch whose scenes all have the same sizes these are constants (FIXED_* > 0),
    // which lets the compiler unroll every loop.
    n = select(hd.ndof, FIXED_DOF, FIXED_DOF > 0u);
    m = select(hd.ncontacts, FIXED_CONTACTS, FIXED_CONTACTS > 0u);
    flags = hd.flags;
    // (A and B are stored with stiffness only; M, C, K, f₀, a for located sub-steps with
    // SPAN_DYNAMICS only.)
    o = operator_offsets(n, m, select(0u, n * n, (flags & HAS_STIFFNESS) != 0u), hd.h_entries, hd.delassus_entries,
        select(0u, n, (flags & SPAN_DYNAMICS) != 0u));
    scene_nonlinear = (hd.flags & HAS_NONLINEAR) != 0u;
    op_base = hd.operator_offset;
    wg_base = o.w_inv_ht;
    d_base = o.delassus;
    sparse = (flags & SPARSE) != 0u;
    h_pattern = hd.row_offset + m;
    d_pattern = h_pattern + m + 1u + hd.h_entries;
    if (PRIVATE_OPS > 1u) {
        // (Those a linear Moreau–Jean scene reads end at o.quadratic, a nonlinear one's at
        // o.end_a, RATTLE's at o.end.)
        for (var k = 0u; k < select(select(o.quadratic, o.end_a, NONLINEAR && scene_nonlinear), o.end, RATTLE); k++) {
            private_ops[k] = ops[op_base + k * params.stride];
        }
    }
    for (var i = 0u; i < n; i++) {
        q[i] = state[hd.state_offset + i * params.stride];
        v[i] = state[hd.state_offset + (n + i) * params.stride];
    }
    for (var r = 0u; r < m; r++) {
        kinds[r] = row_kinds[hd.row_offset + r];
    }
    health = counters[s];
    worst = extremes[EXTREMES * s];
    deepest = extremes[EXTREMES * s + 1u];
    cone = extremes[EXTREMES * s + 2u];
    for (var x = 0u; x < SLOTS * OBSERVERS; x++) {
        observed_slots[x] = observed[RECORD * s + x];
    }
    // A harmonic F_ext needs cos(ω t_k + φ) every step: the next step's one is carried over.
    if ((flags & HAS_FORCING) != 0u) {
        phase_cos = forcing_cosine(health.steps);
    }
    if (LOCATE) {
        load_located();
    }
}

// Writes scene s back: q, v (flagging a non-finite state), health. Twin: Group::store.
fn store_scene(s: u32) {
    let hd = headers[s];
    for (var i = 0u; i < n; i++) {
        if (!is_finite(q[i]) || !is_finite(v[i])) {
            health.flags = health.flags | NON_FINITE;
        }
        state[hd.state_offset + i * params.stride] = q[i];
        state[hd.state_offset + (n + i) * params.stride] = v[i];
    }
    counters[s] = health;
    extremes[EXTREMES * s] = worst;
    // (+0 for a −0, as the twin's 0 − y: the compiler may take 0 − y for −y.)
    extremes[EXTREMES * s + 1u] = deepest + real(params.zero);
    extremes[EXTREMES * s + 2u] = cone;
    for (var x = 0u; x < SLOTS * OBSERVERS; x++) {
        observed[RECORD * s + x] = observed_slots[x];
    }
    if (LOCATE) {
        store_located();
    }
}

// `params.steps` Moreau–Jean steps of scene s (time_step: solve_step's stages and the step's
// health, located_off.wgsl; or, in a LOCATE kernel, located steps: located.wgsl; or, in a
// RATTLE kernel, nonsmooth RATTLE steps: rattle_stages.wgsl), each followed by the observers.
// Twin: simulate.
fn simulate(s: u32) {
    load_scene(s);
    // A scene the loop limiter cut short in an earlier dispatch is not stepped again: the host
    // reruns the chunk with fewer steps per dispatch anyway.
    if ((health.flags & CUT_SHORT) != 0u) {
        return;
    }
    // The observers' first sample, at t₀ (not again in the dispatches that continue a run).
    if (health.steps == 0u) {
        observe(true);
    }
    for (var k = 0u; k < params.steps; k++) {
        if (RATTLE) {
            rattle_step();
            continue;
        }
        // (Moreau–Jean's step and its health; located with LOCATE: located.wgsl or
        // located_off.wgsl defines it.)
        time_step();
        observe(false);
    }
    // The outputs once more at the state reached, so that the deepest penetration counts the
    // final state too (each step counts its start); the rest of what it computes is dropped.
    outputs_and_activation();
    // Lavapipe's loop limiter (65 535 loop iterations per invocation, all loops together)
    // silently cuts a loop short, even a PGS loop in the last step: once it is spent, this loop
    // of params.probe = 2 iterations (a count the compiler cannot see) runs once, and the
    // host reruns the chunk with fewer steps per dispatch.
    var probe = 0u;
    loop {
        if (probe >= params.probe) {
            break;
        }
        probe = probe + 1u;
    }
    if (probe < params.probe) {
        health.flags = health.flags | CUT_SHORT;
    }
    store_scene(s);
}

@compute @workgroup_size(WORKGROUP)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let stride = groups.x * WORKGROUP;
    for (var s = gid.x; s < params.scenes; s += stride) {
        simulate(s);
    }
}
