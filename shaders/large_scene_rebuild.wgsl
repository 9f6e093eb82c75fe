// The broad phase of a large scene held on the device, the step's part (after
// large_scene_step.wgsl, with its layout): `rebuild_bodies` writes each body's sphere for
// the broad phase's kernels (copied to their buffer) and keeps its centre as the one at the
// broad phase; `carry_out` puts each contact's world impulse (in the free halves of
// `impulse`) and its pair (in `incidence`) at its place in key order (`pairs[c].w`), before
// the pairs sorted by colour overwrite `pairs`; `carry_in` gives each new contact the world
// impulse of the same pair before, found by bisection in key order (zero for a new pair),
// with the identity frame. Twin: LargeScene::broad_phase (src/large_scene/scene.rs).

// Body k's sphere (x, y, z, R; R = −1 when it is no longer present) at velocity[4k..4k + 4],
// and its centre at this broad phase. Twins: GpuBroadPhase::pairs (its spheres),
// LargeScene::broad_phase (rebuilt_at).
@compute @workgroup_size(64)
fn rebuild_bodies(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = invocation(gid, groups);
    if (k >= at.bodies) {
        return;
    }
    let x = state_of(k, 0u);
    var r = body[3u * k + 2u];
    if (!present(k)) {
        r = real(-1.0);
    }
    velocity[4u * k] = x.x;
    velocity[4u * k + 1u] = x.y;
    velocity[4u * k + 2u] = x.z;
    velocity[4u * k + 3u] = r;
    set_state(k, 9u, x);
}

// Contact c of those held (at.end): its world impulse at impulse[6 s + 3 ..] and its pair at
// incidence[2 s ..], s its place in key order (it reads only the halves it does not write).
@compute @workgroup_size(64)
fn carry_out(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = invocation(gid, groups);
    if (c >= at.end) {
        return;
    }
    let p = pairs[c];
    let w = world_impulse(c);
    for (var k = 0u; k < 3u; k++) {
        impulse[6u * p.w + 3u + k] = w[k];
    }
    incidence[2u * p.w] = p.x;
    incidence[2u * p.w + 1u] = p.y;
}

// Whether pair a comes before pair b in key order (i, then j).
fn before(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
}

// New contact c (at.end of them, in sweep order): r = the world impulse its pair had among
// the at.previous contacts before, or zero, in the identity frame. Twin: the carried
// impulses of LargeScene::broad_phase.
@compute @workgroup_size(64)
fn carry_in(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = invocation(gid, groups);
    if (c >= at.end) {
        return;
    }
    let p = pairs[c].xy;
    var lo = 0u;
    var hi = at.previous;
    while (lo < hi) {
        let mid = lo + (hi - lo) / 2u;
        if (before(vec2<u32>(incidence[2u * mid], incidence[2u * mid + 1u]), p)) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    let zero = real(at.zero);
    var r = vec3<real>(zero, zero, zero);
    if (lo < at.previous && all(vec2<u32>(incidence[2u * lo], incidence[2u * lo + 1u]) == p)) {
        r = vec3<real>(impulse[6u * lo + 3u], impulse[6u * lo + 4u], impulse[6u * lo + 5u]);
    }
    let g = GEOMETRY * c;
    for (var k = 0u; k < 3u; k++) {
        impulse[6u * c + k] = r[k];
        for (var a = 0u; a < 3u; a++) {
            geometry[g + 3u * a + k] = select(zero, real(1.0), a == k);
        }
    }
}
