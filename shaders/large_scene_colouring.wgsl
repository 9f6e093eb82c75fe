// Jones–Plassmann colouring of a large scene's candidate pairs (M. T. Jones and P. E.
// Plassmann, SIAM J. Sci. Comput. 14(3), 1993), in rounds of three dispatches: `reset` (each
// body's lowest bid back to none), `bid` (each uncoloured pair bids its priority at its
// bodies, atomicMin), `pick` (a pair whose bid is the lowest at both its bodies takes the
// lowest colour free in both bodies' masks — no other pair of the round touches them — or
// the overflow COLOURS when none is; the others count themselves as left). The result is
// the greedy colouring in priority order. Integer atomics only: the same colours whatever
// the scheduling. Twin: src/large_scene/colouring.rs (priority, greedy).

struct Sizes {
    pairs: u32,
    bodies: u32,
    pad1: u32,
    pad2: u32,
}

const COLOURS: u32 = 64u;
const NONE: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> sizes: Sizes;
// Per pair: body i, body j (≥ bodies: a wall).
@group(0) @binding(1) var<storage, read> pairs: array<vec2<u32>>;
// Per body: the lowest priority bid this round.
@group(0) @binding(2) var<storage, read_write> best: array<atomic<u32>>;
// Per body: the colours its coloured pairs hold, bits 0–31 then 32–63.
@group(0) @binding(3) var<storage, read_write> mask: array<vec2<u32>>;
// Per pair: its colour, NONE while uncoloured.
@group(0) @binding(4) var<storage, read_write> colour: array<u32>;
// [0]: the pairs left uncoloured after the last round.
@group(0) @binding(5) var<storage, read_write> left: array<atomic<u32>>;

// lowbias32 (C. Wellons), a bijection of u32. Twin: priority.
fn priority(index: u32) -> u32 {
    var x = index;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    return x ^ (x >> 16u);
}

@compute @workgroup_size(64)
fn reset(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = invocation(gid, groups);
    if (b == 0u) {
        atomicStore(&left[0], 0u);
    }
    if (b < sizes.bodies) {
        atomicStore(&best[b], NONE);
    }
}

@compute @workgroup_size(64)
fn bid(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = invocation(gid, groups);
    if (k >= sizes.pairs || colour[k] != NONE) {
        return;
    }
    let p = pairs[k];
    atomicMin(&best[p.x], priority(k));
    if (p.y < sizes.bodies) {
        atomicMin(&best[p.y], priority(k));
    }
}

@compute @workgroup_size(64)
fn pick(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = invocation(gid, groups);
    if (k >= sizes.pairs || colour[k] != NONE) {
        return;
    }
    let p = pairs[k];
    let mine = priority(k);
    let wall = p.y >= sizes.bodies;
    if (atomicLoad(&best[p.x]) != mine || (!wall && atomicLoad(&best[p.y]) != mine)) {
        atomicAdd(&left[0], 1u);
        return;
    }
    var taken = mask[p.x];
    if (!wall) {
        taken = taken | mask[p.y];
    }
    var c = COLOURS;
    if (taken.x != NONE) {
        c = firstTrailingBit(~taken.x);
    } else if (taken.y != NONE) {
        c = 32u + firstTrailingBit(~taken.y);
    }
    colour[k] = c;
    if (c < COLOURS) {
        var bit = vec2<u32>(0u, 0u);
        if (c < 32u) {
            bit.x = 1u << c;
        } else {
            bit.y = 1u << (c - 32u);
        }
        mask[p.x] = mask[p.x] | bit;
        if (!wall) {
            mask[p.y] = mask[p.y] | bit;
        }
    }
}
