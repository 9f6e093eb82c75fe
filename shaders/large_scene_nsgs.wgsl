// The large scene's stage `solve` on the device: graph-coloured NSGS in velocity form, one
// invocation per contact of a colour (no two share a body, so each applies its own impulse),
// the overflow colour by one invocation in order, or Jacobi with mass splitting (every
// contact at once with its split block in `geometry`, then every body gathers its contacts'
// increments in contact order), and the partial sums of the light and full errors block by
// block in a fixed order, and the stopping test on those sums (`light_test`, `error_test`),
// so that a submit holds many sweeps and the ones past the stop do nothing. `real`,
// SLIDE_ITERATIONS, BLOCK, `Dispatch`, invocation.wgsl and
// contact_local.wgsl are defined in front of this file (src/large_scene/gpu/mod.rs). Twins:
// src/large_scene/solve.rs (local_solve, sweep, iterate), src/large_scene/local.rs
// (local_impulse), src/large_scene/packed.rs (a colour in lanes), src/large_scene/residual.rs
// (error_terms, blocked_sum, light_error, relative_error), src/large_scene/narrow_phase.rs
// (relative_velocity, kick).

// This dispatch's range of contacts, the bodies, the dimension (2 or 3) and the terms per
// contact of `block_sums`: one slot per colour, then the light and the full error's.
@group(0) @binding(0) var<uniform> at: Dispatch;
// Per body: 1/m, R/I, R.
@group(0) @binding(1) var<storage, read> body: array<real>;
// Per body: v (3), then ω (3).
@group(0) @binding(2) var<storage, read_write> velocity: array<real>;
// Per contact: body i, body j (≥ bodies: a wall), active (0 or 1), 0.
@group(0) @binding(3) var<storage, read_write> pairs: array<vec4<u32>>;
// Per contact, GEOMETRY values: frame n, t₁, t₂ (9), w_N, w_T, μ, target ê (3), q (3), the
// gap g (at GAP).
@group(0) @binding(4) var<storage, read_write> geometry: array<real>;
// Per contact: r (3), then Δr of the last sweep (3).
@group(0) @binding(5) var<storage, read_write> impulse: array<real>;
// The solve's CONTROL values (below), then per block of BLOCK contacts, ERROR_TERMS partial
// sums.
@group(0) @binding(6) var<storage, read_write> partial: array<real>;
// Jacobi's incidence: per body k, its active contacts in increasing order are
// incidence[bodies + 1 + incidence[k] .. bodies + 1 + incidence[k + 1]]; or the step's
// integer counts (large_scene_step.wgsl).
@group(0) @binding(7) var<storage, read_write> incidence: array<u32>;

const GEOMETRY: u32 = 19u;
const GAP: u32 = 18u;
const ERROR_TERMS: u32 = 5u;

// The control at the head of `partial`, written by the host before the first sweep: the
// state, the sweeps done, the tolerance, the sweep cap, f64's ε; then the result, the
// residual and whether it converged (1) or not (0).
const CONTROL: u32 = 8u;
const STATE: u32 = 0u;
const SWEEPS: u32 = 1u;
const TOLERANCE: u32 = 2u;
const CAP: u32 = 3u;
const EPSILON: u32 = 4u;
const RESIDUAL: u32 = 5u;
const CONVERGED: u32 = 6u;
// The states: sweeping; the light error passed (or the cap came), the full error is due;
// stopped (every later kernel returns at once).
const RUNNING: f32 = 0.0;
const CHECK: f32 = 1.0;
const DONE: f32 = 2.0;

fn state_is(s: f32) -> bool {
    return partial[STATE] == real(s);
}

fn v_of(k: u32) -> vec3<real> {
    return vec3<real>(velocity[6u * k], velocity[6u * k + 1u], velocity[6u * k + 2u]);
}

fn omega_of(k: u32) -> vec3<real> {
    return vec3<real>(velocity[6u * k + 3u], velocity[6u * k + 4u], velocity[6u * k + 5u]);
}

fn axis(c: u32, a: u32) -> vec3<real> {
    let g = GEOMETRY * c + 3u * a;
    return vec3<real>(geometry[g], geometry[g + 1u], geometry[g + 2u]);
}

fn r_of(c: u32) -> vec3<real> {
    return vec3<real>(impulse[6u * c], impulse[6u * c + 1u], impulse[6u * c + 2u]);
}

// The velocity of body k's contact point on the normal n, v + R_k sign (ω × n). Twin:
// Moving::point.
fn point_velocity(k: u32, n: vec3<real>, sign: real) -> vec3<real> {
    let spin = cross3(omega_of(k), n);
    let r = body[3u * k + 2u] * sign;
    let v = v_of(k);
    return vec3<real>(v.x + r * spin.x, v.y + r * spin.y, v.z + r * spin.z);
}

// u = H_c v: (u_N, u_T₁, u_T₂) of the contact points' relative velocity. Twin: relative_velocity.
fn local_velocity(c: u32) -> vec3<real> {
    let p = pairs[c];
    let n = axis(c, 0u);
    let pi = point_velocity(p.x, n, real(1.0));
    // (A wall's zero velocity from the uniform: a literal lets the compiler fold 0 − x.)
    let zero = real(at.zero);
    var pj = vec3<real>(zero, zero, zero);
    if (p.y < at.bodies) {
        pj = point_velocity(p.y, n, real(-1.0));
    }
    let s = vec3<real>(pj.x - pi.x, pj.y - pi.y, pj.z - pi.z);
    return vec3<real>(dot3(n, s), dot3(axis(c, 1u), s), dot3(axis(c, 2u), s));
}

// Body k takes ±P/m and spins by −(R/I) n × P. Twin: Moving::kick.
fn kick(k: u32, sign: real, p: vec3<real>, torque: vec3<real>) {
    let w = body[3u * k] * sign;
    let s = body[3u * k + 1u];
    for (var a = 0u; a < 3u; a++) {
        velocity[6u * k + a] = velocity[6u * k + a] + w * p[a];
        velocity[6u * k + 3u + a] = velocity[6u * k + 3u + a] - s * torque[a];
    }
}

// v += M⁻¹ H_cᵀ Δr. Twin: kick.
fn apply_impulse(c: u32, dr: vec3<real>) {
    let n = axis(c, 0u);
    let t1 = axis(c, 1u);
    let t2 = axis(c, 2u);
    var p: vec3<real>;
    for (var k = 0u; k < 3u; k++) {
        p[k] = dr[0] * n[k] + dr[1] * t1[k] + dr[2] * t2[k];
    }
    let torque = cross3(n, p);
    let q = pairs[c];
    kick(q.x, real(-1.0), p, torque);
    if (q.y < at.bodies) {
        kick(q.y, real(1.0), p, torque);
    }
}

// Contact c's new impulse given the others'. Twin: local_solve.
fn local_solve(c: u32) -> vec3<real> {
    let u = local_velocity(c);
    let g = GEOMETRY * c;
    let wn = geometry[g + 9u];
    let wt = geometry[g + 10u];
    let mu = geometry[g + 11u];
    let r = r_of(c);
    let q = vec3<real>(
        u[0] + geometry[g + 12u] - wn * r[0],
        u[1] + geometry[g + 13u] - wt * r[1],
        u[2] + geometry[g + 14u] - wt * r[2],
    );
    // The block's off-diagonal zeros from the uniform, not literals: a literal lets the
    // compiler fold 0·x to +0 where the twin computes −0, and the signs then part.
    let zero = real(at.zero);
    if (at.dimension == 2u) {
        let w = array<vec2<real>, 2>(vec2<real>(wn, zero), vec2<real>(zero, wt));
        let x = friction_2d(w, vec2<real>(q[0], q[1]), mu);
        return vec3<real>(x[0], x[1], zero);
    }
    let w = array<vec3<real>, 3>(vec3<real>(wn, zero, zero), vec3<real>(zero, wt, zero), vec3<real>(zero, zero, wt));
    return friction_3d(w, q, r, mu);
}

// One active contact's update of a sweep: r ← its local solve, Δr kept, v += M⁻¹H_cᵀΔr.
// Twin: the body of the loops of sweep.
fn solve_contact(c: u32) {
    if (pairs[c].z == 0u) {
        return;
    }
    let r = local_solve(c);
    let old = r_of(c);
    let dr = vec3<real>(r[0] - old[0], r[1] - old[1], r[2] - old[2]);
    for (var a = 0u; a < 3u; a++) {
        impulse[6u * c + a] = r[a];
        impulse[6u * c + 3u + a] = dr[a];
    }
    apply_impulse(c, dr);
}

// The contacts of one colour, in parallel. Twin: sweep.
@compute @workgroup_size(64)
fn solve_colour(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = at.first + invocation(gid, groups);
    if (c < at.end && !state_is(DONE)) {
        solve_contact(c);
    }
}

// The overflow colour, one contact after another. Twin: the overflow loop of sweep.
@compute @workgroup_size(1)
fn solve_overflow() {
    if (state_is(DONE)) {
        return;
    }
    for (var c = at.first; c < at.end; c++) {
        solve_contact(c);
    }
}

// Every active contact's new impulse from the same velocities (its block: the split
// one), r and Δr kept, nothing applied. Twin: the parallel loop of jacobi::sweep.
@compute @workgroup_size(64)
fn jacobi_solve(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = at.first + invocation(gid, groups);
    if (c >= at.end || pairs[c].z == 0u || state_is(DONE)) {
        return;
    }
    let r = local_solve(c);
    let old = r_of(c);
    for (var a = 0u; a < 3u; a++) {
        impulse[6u * c + a] = r[a];
        impulse[6u * c + 3u + a] = r[a] - old[a];
    }
}

// Body k takes the increments M⁻¹H_cᵀΔr of its active contacts in contact order (at.end: the
// bodies). Twin: the loop of apply_impulse in jacobi::sweep, as seen by one body.
@compute @workgroup_size(64)
fn jacobi_apply(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = invocation(gid, groups);
    if (k >= at.end || state_is(DONE)) {
        return;
    }
    let list = at.end + 1u;
    for (var e = incidence[k]; e < incidence[k + 1u]; e++) {
        let c = incidence[list + e];
        let n = axis(c, 0u);
        let t1 = axis(c, 1u);
        let t2 = axis(c, 2u);
        let dr = vec3<real>(impulse[6u * c + 3u], impulse[6u * c + 4u], impulse[6u * c + 5u]);
        var p: vec3<real>;
        for (var a = 0u; a < 3u; a++) {
            p[a] = dr[0] * n[a] + dr[1] * t1[a] + dr[2] * t2[a];
        }
        var sign = real(1.0);
        if (pairs[c].x == k) {
            sign = real(-1.0);
        }
        kick(k, sign, p, cross3(n, p));
    }
}

fn square(x: vec3<real>) -> real {
    return x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
}

// Body k's ‖v‖² + ‖R ω‖². Twin: the `size` closure of error_terms.
fn body_size(k: u32) -> real {
    let w = omega_of(k);
    let radius = body[3u * k + 2u];
    let spin = vec3<real>(radius * w.x, radius * w.y, radius * w.z);
    return square(v_of(k)) + square(spin);
}

// An active contact's terms of Siconos's error: ‖r − P_K(r − û)‖², ‖q‖², ‖r‖², ‖u‖² and its
// bodies' ‖v‖² + ‖R ω‖². Twin: error_terms.
fn error_terms(c: u32) -> array<real, 5> {
    let p = pairs[c];
    let g = GEOMETRY * c;
    let h = local_velocity(c);
    let u = vec3<real>(h[0] + geometry[g + 12u], h[1] + geometry[g + 13u], h[2] + geometry[g + 14u]);
    let q = vec3<real>(geometry[g + 15u], geometry[g + 16u], geometry[g + 17u]);
    let r = r_of(c);
    var velocities = body_size(p.x);
    if (p.y < at.bodies) {
        velocities = velocities + body_size(p.y);
    } else {
        velocities = velocities + real(0.0);
    }
    return array<real, 5>(friction_error(at.dimension, r, u, geometry[g + 11u]), square(q), square(r), square(u), velocities);
}

// Block b's sums over its active contacts, in order from 0, of the light error's terms
// (‖Δr‖², ‖r‖²; at.terms = 2) while sweeping, or of the full error's (error_terms) when it is
// due. Twin: the blocks of blocked_sum, with the terms of sweep and error_terms.
@compute @workgroup_size(64)
fn block_sums(@builtin(global_invocation_id) gid: vec3<u32>) {
    let b = gid.x;
    let first = b * BLOCK;
    let light = at.terms == 2u;
    let due = (light && !state_is(DONE)) || (!light && state_is(CHECK));
    if (first >= at.end || !due) {
        return;
    }
    var sum = array<real, 5>(real(0.0), real(0.0), real(0.0), real(0.0), real(0.0));
    for (var c = first; c < min(at.end, first + BLOCK); c++) {
        var t = array<real, 5>(real(0.0), real(0.0), real(0.0), real(0.0), real(0.0));
        if (pairs[c].z != 0u) {
            if (light) {
                let dr = vec3<real>(impulse[6u * c + 3u], impulse[6u * c + 4u], impulse[6u * c + 5u]);
                t[0] = square(dr);
                t[1] = square(r_of(c));
            } else {
                t = error_terms(c);
            }
        }
        for (var k = 0u; k < at.terms; k++) {
            sum[k] = sum[k] + t[k];
        }
    }
    for (var k = 0u; k < at.terms; k++) {
        partial[CONTROL + ERROR_TERMS * b + k] = sum[k];
    }
}

// The blocks' sums of the light error's two terms or the full error's ERROR_TERMS, each
// added in order from 0, in one loop over the blocks (lavapipe stops an invocation after
// 65 535 loop iterations in all: 1.6·10⁷ contacts). Twin: sum_in_order.
fn blocks_sum(terms: u32) -> array<real, 5> {
    var sum = array<real, 5>(real(0.0), real(0.0), real(0.0), real(0.0), real(0.0));
    for (var b = 0u; b < (at.end + BLOCK - 1u) / BLOCK; b++) {
        let o = CONTROL + ERROR_TERMS * b;
        sum[0] = sum[0] + partial[o];
        sum[1] = sum[1] + partial[o + 1u];
        if (terms == ERROR_TERMS) {
            sum[2] = sum[2] + partial[o + 2u];
            sum[3] = sum[3] + partial[o + 3u];
            sum[4] = sum[4] + partial[o + 4u];
        }
    }
    return sum;
}

// After a sweep: one more sweep done; Siconos's light error √(Σ‖Δr‖²)/‖r‖ (√Σ‖Δr‖² when
// r ≈ 0) within the tolerance, or the cap reached, makes the full error due. Twin: the
// loop of iterate, light_error.
@compute @workgroup_size(1)
fn light_test() {
    if (state_is(DONE)) {
        return;
    }
    let light = blocks_sum(2u);
    let change = light[0];
    let norm = light[1];
    let sweeps = partial[SWEEPS] + real(1.0);
    partial[SWEEPS] = sweeps;
    var error = sqrt(change);
    if (norm > partial[EPSILON]) {
        error = sqrt(change / norm);
    }
    if (error <= partial[TOLERANCE] || sweeps == partial[CAP]) {
        partial[STATE] = real(CHECK);
    }
}

// When the full error is due: Siconos's relative error √Σ‖r − P_K(r − û)‖² / max(‖q‖, ‖r‖,
// ‖u‖) (not divided when that is ≈ 0) and whether it is within rounding of the velocities;
// converged, or at the cap, the solve stops with its residual, else sweeps on. Twin: the loop
// of iterate, relative_error.
@compute @workgroup_size(1)
fn error_test() {
    if (!state_is(CHECK)) {
        return;
    }
    let eps = partial[EPSILON];
    let sums = blocks_sum(ERROR_TERMS);
    let natural = sqrt(sums[0]);
    let q = sums[1];
    let r = sums[2];
    let u = sums[3];
    let rounding = natural <= real(64.0) * eps * sqrt(sums[4]);
    let scale = sqrt(max(max(q, r), u));
    var residual = natural;
    if (scale > eps) {
        residual = natural / scale;
    }
    let converged = residual <= partial[TOLERANCE] || rounding;
    if (converged || partial[SWEEPS] == partial[CAP]) {
        partial[STATE] = real(DONE);
        partial[RESIDUAL] = residual;
        partial[CONVERGED] = select(real(0.0), real(1.0), converged);
    } else {
        partial[STATE] = real(RUNNING);
    }
}
