// The large scene's step on the device between two broad phases, around the sweeps of
// large_scene_nsgs.wgsl (in front of this file, with its bindings and helpers; round_away.wgsl
// before both): the stages `narrow_phase` (per contact), `free_velocity` (per body),
// `contact_q` (per contact), `warm_start` (colour by colour, the overflow by one invocation),
// then after the sweeps `update_position` (per body, with `discharge`), which does nothing
// until the solve is done (so that it follows each submit of sweeps and runs once); the
// report's tallies follow in large_scene_report.wgsl. The contacts' kicks reach a body in
// contact order (one per colour): each stage does the twin's operations in its order (on
// lavapipe in f64 the 2-D scenes give its bits; in 3-D the sweeps part by an ulp now and
// then). Twins: src/large_scene/scene.rs (narrow_phase, free_velocity, update_position,
// discharge), src/large_scene/narrow_phase.rs (Geometry::contact), src/large_scene/walls.rs
// (Shape::contact), src/large_scene/bodies.rs (nearest_image), src/large_scene/solve.rs
// (warm_start).

// The scene: HEAD values (below), then per wall WALL values, then per body BODY_STATE
// values, then the report (REPORT values) and per block of BLOCK contacts or bodies its
// TALLY values.
@group(0) @binding(8) var<storage, read_write> scene: array<real>;

// The head: h, θ, γ h, gravity (3), the period L (0: none), the sink, whether there is a
// sink (1) or not (0), the grains' e_N, e_T, μ, warm start (1) or not (0), the axis of
// the sink (1 in 2-D, 2 in 3-D), the walls, +∞ (the gap of a segment out of reach).
const HEAD: u32 = 16u;
const H: u32 = 0u;
const THETA: u32 = 1u;
const GAMMA_H: u32 = 2u;
const GRAVITY: u32 = 3u;
const PERIOD: u32 = 6u;
const SINK: u32 = 7u;
const HAS_SINK: u32 = 8u;
const GRAINS: u32 = 9u;
const WARM: u32 = 12u;
const UP: u32 = 13u;
const WALL_COUNT: u32 = 14u;
const INFINITY: u32 = 15u;
// Per wall: kind (0 plane, 1 segment), the plane's point or the segment's end a (3), its
// normal or end b (3), owns_a + 2 owns_b, e_N, e_T, μ, 0.
const WALL: u32 = 12u;
// Per body: x (3), v_k (3), ω_k (3), the centre at the last broad phase (3), θ, present (1)
// or not (0), R²/I, 0.
const BODY_STATE: u32 = 16u;
// The report: the largest penetration, displacement since the broad phase and speed,
// whether a body's state is not finite (1), and the box of the centres, lo (3) and hi (3);
// then the same per block.
const REPORT: u32 = 10u;
const TALLY: u32 = 10u;
// The integer tallies at the head of `incidence` (not read by the step's kernels as
// Jacobi's): active contacts, bodies discharged, then per block of contacts its active
// ones, then per block of bodies its discharged ones.
const COUNTS: u32 = 2u;
// The control's unused value: whether the step's position update ran (1; the host writes 0).
const UPDATED: u32 = 7u;

fn walls_start() -> u32 {
    return HEAD;
}

fn bodies_start() -> u32 {
    return HEAD + WALL * u32(scene[WALL_COUNT]);
}

fn report_start() -> u32 {
    return bodies_start() + BODY_STATE * at.bodies;
}

fn state_of(k: u32, field: u32) -> vec3<real> {
    let s = bodies_start() + BODY_STATE * k + field;
    return vec3<real>(scene[s], scene[s + 1u], scene[s + 2u]);
}

fn set_state(k: u32, field: u32, x: vec3<real>) {
    let s = bodies_start() + BODY_STATE * k + field;
    scene[s] = x.x;
    scene[s + 1u] = x.y;
    scene[s + 2u] = x.z;
}

fn present(k: u32) -> bool {
    return scene[bodies_start() + BODY_STATE * k + 13u] == 1.0;
}

// d with its x reduced to the nearest image through the period. Twin: Bodies::nearest_image.
fn nearest_image(d: vec3<real>) -> vec3<real> {
    let l = scene[PERIOD];
    if (l > 0.0) {
        return vec3<real>(d.x - l * round_away(d.x / l), d.y, d.z);
    }
    return d;
}

// The velocity of body k's contact point at the start of the step (v_k, ω_k). Twin:
// Moving::point of Moving::of(b, &b.v, &b.omega, k).
fn start_point_velocity(k: u32, n: vec3<real>, sign: real) -> vec3<real> {
    let spin = cross3(state_of(k, 6u), n);
    let r = body[3u * k + 2u] * sign;
    let v = state_of(k, 3u);
    return vec3<real>(v.x + r * spin.x, v.y + r * spin.y, v.z + r * spin.z);
}

// Contact c's impulse in world axes, r_N n + r_T1 t₁ + r_T2 t₂. Twin: world_impulse.
fn world_impulse(c: u32) -> vec3<real> {
    let r = r_of(c);
    var w: vec3<real>;
    for (var k = 0u; k < 3u; k++) {
        w[k] = r[0] * axis(c, 0u)[k] + r[1] * axis(c, 1u)[k] + r[2] * axis(c, 2u)[k];
    }
    return w;
}

// Stage `narrow_phase`: contact c's gap, frame, block, law, target and activation at the
// start of the step, and its impulse: the last one (a world impulse in its last frame)
// projected on the new frame when it is active and warm starts are on, else zero. Twins:
// LargeScene::narrow_phase, Geometry::contact, Shape::contact.
@compute @workgroup_size(64)
fn narrow_phase(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = at.first + invocation(gid, groups);
    if (c >= at.end) {
        return;
    }
    let zero = real(at.zero);
    let carried = world_impulse(c);
    let i = pairs[c].x;
    let j = pairs[c].y;
    let xi = state_of(i, 0u);
    let ri = body[3u * i + 2u];
    var gap: real;
    var n: vec3<real>;
    var law: vec3<real>;
    var wn: real;
    var wt: real;
    if (j < at.bodies) {
        let xj = state_of(j, 0u);
        let d = nearest_image(vec3<real>(xj.x - xi.x, xj.y - xi.y, xj.z - xi.z));
        let distance = sqrt(dot3(d, d));
        n = vec3<real>(real(1.0), zero, zero);
        if (distance > 0.0) {
            n = d / distance;
        }
        gap = distance - ri - body[3u * j + 2u];
        law = vec3<real>(scene[GRAINS], scene[GRAINS + 1u], scene[GRAINS + 2u]);
        wn = body[3u * j];
        wt = wn + scene[bodies_start() + BODY_STATE * j + 14u];
    } else {
        let w = walls_start() + WALL * (j - at.bodies);
        let p = vec3<real>(scene[w + 1u], scene[w + 2u], scene[w + 3u]);
        let q = vec3<real>(scene[w + 4u], scene[w + 5u], scene[w + 6u]);
        law = vec3<real>(scene[w + 8u], scene[w + 9u], scene[w + 10u]);
        wn = zero;
        wt = zero;
        if (scene[w] == 0.0) {
            let d = vec3<real>(xi.x - p.x, xi.y - p.y, xi.z - p.z);
            gap = dot3(q, d) - ri;
            n = -q;
        } else {
            let owns = u32(scene[w + 7u]);
            let ab = vec3<real>(q.x - p.x, q.y - p.y, zero);
            let ax = vec3<real>(xi.x - p.x, xi.y - p.y, zero);
            // Rust's clamp: a −0 or a NaN passes (WGSL's clamp leaves the sign of a zero open).
            var t = dot3(ax, ab) / dot3(ab, ab);
            if (t < 0.0) {
                t = real(0.0);
            } else if (t > 1.0) {
                t = real(1.0);
            }
            if ((t == 0.0 && (owns & 1u) == 0u) || (t == 1.0 && (owns & 2u) == 0u)) {
                gap = scene[INFINITY];
                n = vec3<real>(real(1.0), zero, zero);
            } else {
                let to_wall = vec3<real>(p.x + t * ab.x - xi.x, p.y + t * ab.y - xi.y, zero);
                let distance = sqrt(dot3(to_wall, to_wall));
                if (distance > 0.0) {
                    n = to_wall / distance;
                } else {
                    n = unit(vec3<real>(ab.y, -ab.x, zero));
                }
                gap = distance - ri;
            }
        }
    }
    wn = wn + body[3u * i];
    wt = wt + (body[3u * i] + scene[bodies_start() + BODY_STATE * i + 14u]);
    var t1 = vec3<real>(-n.y, n.x, zero);
    var t2 = vec3<real>(zero, zero, zero);
    if (at.dimension == 3u) {
        t1 = ortho_tangent(n, false);
        t2 = ortho_tangent(n, true);
    }
    let g = GEOMETRY * c;
    for (var k = 0u; k < 3u; k++) {
        geometry[g + k] = n[k];
        geometry[g + 3u + k] = t1[k];
        geometry[g + 6u + k] = t2[k];
    }
    geometry[g + 9u] = wn;
    geometry[g + 10u] = wt;
    geometry[g + 11u] = law[2];
    geometry[g + GAP] = gap;
    // u = H_c v_k, as local_velocity reads it from the start of the step.
    let pi = start_point_velocity(i, n, real(1.0));
    var pj = vec3<real>(zero, zero, zero);
    if (j < at.bodies) {
        pj = start_point_velocity(j, n, real(-1.0));
    }
    let s = vec3<real>(pj.x - pi.x, pj.y - pi.y, pj.z - pi.z);
    let u = vec3<real>(dot3(n, s), dot3(t1, s), dot3(t2, s));
    let takes_part = gap + scene[GAMMA_H] * u[0] <= 0.0;
    pairs[c].z = select(0u, 1u, takes_part);
    var newton = vec3<real>(zero, zero, zero);
    if (law[0] > 0.0) {
        newton[0] = law[0] * u[0];
    }
    if (law[1] > 0.0) {
        newton[1] = law[1] * u[1];
        newton[2] = law[1] * u[2];
    }
    var r = vec3<real>(zero, zero, zero);
    if (scene[WARM] == 1.0 && takes_part) {
        r = vec3<real>(dot3(n, carried), dot3(t1, carried), dot3(t2, carried));
    }
    for (var k = 0u; k < 3u; k++) {
        geometry[g + 12u + k] = newton[k];
        impulse[6u * c + k] = r[k];
    }
}

// Stage `free_velocity` of body k: v_free = v_k + h g (zero for a body no longer present),
// ω_free = ω_k. Twin: LargeScene::free_velocity.
@compute @workgroup_size(64)
fn free_velocity(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = invocation(gid, groups);
    if (k >= at.bodies) {
        return;
    }
    let h = scene[H];
    let vk = state_of(k, 3u);
    let w = state_of(k, 6u);
    for (var a = 0u; a < 3u; a++) {
        var v = real(at.zero);
        if (present(k)) {
            v = vk[a] + h * scene[GRAVITY + a];
        }
        velocity[6u * k + a] = v;
        velocity[6u * k + 3u + a] = w[a];
    }
}

// Contact c's q = H v_free + ê, the scale of the solver's error. Twin: the contacts' loop
// of LargeScene::free_velocity.
@compute @workgroup_size(64)
fn contact_q(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = at.first + invocation(gid, groups);
    if (c >= at.end) {
        return;
    }
    let u = local_velocity(c);
    let g = GEOMETRY * c;
    for (var k = 0u; k < 3u; k++) {
        geometry[g + 15u + k] = u[k] + geometry[g + 12u + k];
    }
}

// Stage `warm_start` for the contacts of one colour: v += M⁻¹Hᵀr of each active one. Twin:
// warm_start.
@compute @workgroup_size(64)
fn warm_start_colour(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = at.first + invocation(gid, groups);
    if (c < at.end && pairs[c].z != 0u) {
        apply_impulse(c, r_of(c));
    }
}

// Stage `warm_start` for the overflow colour, one contact after another.
@compute @workgroup_size(1)
fn warm_start_overflow() {
    for (var c = at.first; c < at.end; c++) {
        if (pairs[c].z != 0u) {
            apply_impulse(c, r_of(c));
        }
    }
}

// Stage `update_position` of body k, then `discharge`: x_{k+1} = x_k + h (θ v_{k+1} +
// (1 − θ) v_k) (x wrapped into [0, L) along a period: exact for a body that moves less
// than L in a step), a disc's θ the same with ω; v_k ← v_{k+1}; a body present whose
// centre ends below the sink leaves the scene at rest. Twins: LargeScene::update_position,
// LargeScene::discharge.
@compute @workgroup_size(64)
fn update_position(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = invocation(gid, groups);
    if (k >= at.bodies || !state_is(DONE) || partial[UPDATED] == 1.0) {
        return;
    }
    let h = scene[H];
    let theta = scene[THETA];
    let x = state_of(k, 0u);
    let v0 = state_of(k, 3u);
    let w0 = state_of(k, 6u);
    var v1 = v_of(k);
    var w1 = omega_of(k);
    var next: vec3<real>;
    for (var a = 0u; a < 3u; a++) {
        next[a] = x[a] + h * (theta * v1[a] + (1.0 - theta) * v0[a]);
    }
    let l = scene[PERIOD];
    if (l > 0.0) {
        if (next.x >= l) {
            next.x = next.x - l;
        } else if (next.x < 0.0) {
            next.x = next.x + l;
        }
    }
    let s = bodies_start() + BODY_STATE * k;
    scene[s + 12u] = scene[s + 12u] + h * (theta * w1.z + (1.0 - theta) * w0.z);
    let up = u32(scene[UP]);
    if (scene[HAS_SINK] == 1.0 && present(k) && next[up] < scene[SINK]) {
        scene[s + 13u] = real(0.0);
        v1 = vec3<real>(real(0.0), real(0.0), real(0.0));
        w1 = v1;
    }
    set_state(k, 0u, next);
    set_state(k, 3u, v1);
    set_state(k, 6u, w1);
}
