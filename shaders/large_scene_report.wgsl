// The report of a large scene's step on the device (after large_scene_step.wgsl, with its
// layout): per block of BLOCK contacts or bodies its tallies (`contact_tally` before the
// sweeps, `body_tally` after them), the early end of a solve without active contacts
// (`skip_solve`), and the report the host reads (`report`), which runs once, when the solve
// is done. Every sum is an integer count or a maximum, so that no order of invocations
// changes a bit. Twins: src/large_scene/scene.rs (narrow_phase's fold, rebuild_due),
// src/large_scene/solve.rs (the early return of ContactSolver::solve).

// Block b of the contacts: the largest penetration −g (from 0) and the active contacts.
// Twin: the fold of LargeScene::narrow_phase and StepReport::active.
@compute @workgroup_size(64)
fn contact_tally(@builtin(global_invocation_id) gid: vec3<u32>) {
    let b = gid.x;
    let first = b * BLOCK;
    if (first >= at.end) {
        return;
    }
    var deepest = real(0.0);
    var taking_part = 0u;
    for (var c = first; c < min(at.end, first + BLOCK); c++) {
        deepest = max(deepest, -geometry[GEOMETRY * c + GAP]);
        taking_part += pairs[c].z;
    }
    scene[report_start() + REPORT + TALLY * b] = deepest;
    incidence[COUNTS + b] = taking_part;
}

// The active contacts of all blocks; with none the solve is done before its first sweep
// (no sweep, residual 0, converged). Twin: the early return of ContactSolver::solve.
@compute @workgroup_size(1)
fn skip_solve() {
    var taking_part = 0u;
    for (var b = 0u; b < (at.end + BLOCK - 1u) / BLOCK; b++) {
        taking_part += incidence[COUNTS + b];
    }
    incidence[0] = taking_part;
    if (taking_part == 0u) {
        partial[STATE] = real(DONE);
        partial[RESIDUAL] = real(0.0);
        partial[CONVERGED] = real(1.0);
    }
}

fn is_finite(x: real) -> bool {
    return abs(x) <= REAL_MAX;
}

// Block b of the bodies: the largest displacement since the broad phase and speed, whether
// a state is not finite, the bodies no longer present, and the box of the centres (every
// body's, present or not). Twins: LargeScene::rebuild_due, bodies_box.
@compute @workgroup_size(64)
fn body_tally(@builtin(global_invocation_id) gid: vec3<u32>) {
    let b = gid.x;
    let first = b * BLOCK;
    if (first >= at.bodies || !state_is(DONE) || partial[UPDATED] == 1.0) {
        return;
    }
    var moved = real(0.0);
    var speed = real(0.0);
    var finite = true;
    var gone = 0u;
    var lo = vec3<real>(REAL_MAX, REAL_MAX, REAL_MAX);
    var hi = -lo;
    for (var k = first; k < min(at.bodies, first + BLOCK); k++) {
        let x = state_of(k, 0u);
        lo = min(lo, x);
        hi = max(hi, x);
        let y = state_of(k, 9u);
        let v = state_of(k, 3u);
        let d = nearest_image(vec3<real>(x.x - y.x, x.y - y.y, x.z - y.z));
        moved = max(moved, sqrt(dot3(d, d)));
        speed = max(speed, sqrt(dot3(v, v)));
        let w = state_of(k, 6u);
        finite = finite && is_finite(x.x) && is_finite(x.y) && is_finite(x.z) && is_finite(v.x) && is_finite(v.y)
            && is_finite(v.z) && is_finite(w.x) && is_finite(w.y) && is_finite(w.z);
        gone += select(1u, 0u, present(k));
    }
    let t = report_start() + REPORT + TALLY * b;
    scene[t + 1u] = moved;
    scene[t + 2u] = speed;
    scene[t + 3u] = select(real(1.0), real(0.0), finite);
    for (var a = 0u; a < 3u; a++) {
        scene[t + 4u + a] = lo[a];
        scene[t + 7u + a] = hi[a];
    }
    incidence[COUNTS + (at.end + BLOCK - 1u) / BLOCK + b] = gone;
}

// The report of the step from the blocks' tallies (at.end: the contacts): the largest
// penetration, displacement and speed, whether a state is not finite, the box of the
// centres, the bodies discharged. (Lavapipe stops an invocation after 65 535 loop iterations: this one's two
// loops take (contacts + bodies) / BLOCK, 1.6·10⁷ contacts and bodies together.)
@compute @workgroup_size(1)
fn report() {
    if (!state_is(DONE) || partial[UPDATED] == 1.0) {
        return;
    }
    partial[UPDATED] = real(1.0);
    let r = report_start();
    var deepest = real(0.0);
    for (var b = 0u; b < (at.end + BLOCK - 1u) / BLOCK; b++) {
        deepest = max(deepest, scene[r + REPORT + TALLY * b]);
    }
    var moved = real(0.0);
    var speed = real(0.0);
    var broken = real(0.0);
    var gone = 0u;
    var lo = vec3<real>(REAL_MAX, REAL_MAX, REAL_MAX);
    var hi = -lo;
    let body_blocks = (at.bodies + BLOCK - 1u) / BLOCK;
    for (var b = 0u; b < body_blocks; b++) {
        let t = r + REPORT + TALLY * b;
        for (var a = 0u; a < 3u; a++) {
            lo[a] = min(lo[a], scene[t + 4u + a]);
            hi[a] = max(hi[a], scene[t + 7u + a]);
        }
        moved = max(moved, scene[t + 1u]);
        speed = max(speed, scene[t + 2u]);
        broken = max(broken, scene[t + 3u]);
        gone += incidence[COUNTS + (at.end + BLOCK - 1u) / BLOCK + b];
    }
    // (+0 for a −0, as the twin: the sign of max(0, −0) is open.)
    scene[r] = deepest + real(at.zero);
    scene[r + 1u] = moved;
    scene[r + 2u] = speed;
    scene[r + 3u] = broken;
    for (var a = 0u; a < 3u; a++) {
        scene[r + 4u + a] = lo[a];
        scene[r + 7u + a] = hi[a];
    }
    incidence[1] = gone;
}
