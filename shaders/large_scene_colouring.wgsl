// Jones–Plassmann colouring of a large scene's candidate pairs (M. T. Jones and P. E.
// Plassmann, SIAM J. Sci. Comput. 14(3), 1993), in rounds of three dispatches: `reset` (each
// body's lowest bid back to none), `bid` (each uncoloured pair bids its priority at its
// bodies, atomicMin), `pick` (a pair whose bid is the lowest at both its bodies takes the
// lowest colour free in both bodies' masks — no other pair of the round touches them — or
// the overflow COLOURS when none is; the others count themselves as left). The result is
// the greedy colouring in priority order. Integer atomics only: the same colours whatever
// the scheduling. Twin: src/large_scene/colouring.rs (priority, greedy).
//
// Then the pairs sorted by (colour, key) — a counting sort stable in key order, the pairs
// coming sorted by key: `colour_counts` (per block of SPAN pairs, the pairs of each colour,
// at hist[colour × blocks + block]), an exclusive prefix sum of those counts
// (prefix_sum.wgsl), `place` (each pair to its colour's start in its block plus the pairs of
// its colour before it there) and `colour_starts` (each colour's start in the sorted list,
// then their total). Twin: the sort of LargeScene::broad_phase (src/large_scene/scene.rs).

struct Sizes {
    pairs: u32,
    bodies: u32,
    blocks: u32,
    pad: u32,
}

const COLOURS: u32 = 64u;
// The colours with the overflow.
const KINDS: u32 = COLOURS + 1u;
const NONE: u32 = 0xffffffffu;
// Pairs per block of the sort.
const SPAN: u32 = 64u;

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
// The sort's counts per colour and block (KINDS × blocks, and one more for the total), then
// each colour's start (KINDS, and the total).
@group(0) @binding(6) var<storage, read_write> hist: array<u32>;
// The pairs sorted by (colour, key): i, j, 0 and the pair's place in key order.
@group(0) @binding(7) var<storage, read_write> sorted: array<vec4<u32>>;

// Every pair uncoloured.
@compute @workgroup_size(64)
fn uncolour(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = invocation(gid, groups);
    if (k < sizes.pairs) {
        colour[k] = NONE;
    }
}

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

// Block b of SPAN pairs: the pairs of each colour, at hist[colour × blocks + b] (cleared
// before).
@compute @workgroup_size(64)
fn colour_counts(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = invocation(gid, groups);
    if (b >= sizes.blocks) {
        return;
    }
    for (var k = b * SPAN; k < min(sizes.pairs, (b + 1u) * SPAN); k++) {
        let h = colour[k] * sizes.blocks + b;
        hist[h] = hist[h] + 1u;
    }
}

// Pair k to its place in the order by (colour, key), the counts summed before.
@compute @workgroup_size(64)
fn place(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = invocation(gid, groups);
    if (k >= sizes.pairs) {
        return;
    }
    let c = colour[k];
    let b = k / SPAN;
    var s = hist[c * sizes.blocks + b];
    for (var q = b * SPAN; q < k; q++) {
        s += select(0u, 1u, colour[q] == c);
    }
    sorted[s] = vec4<u32>(pairs[k], 0u, k);
}

// Colour c's start in the sorted list (c = KINDS: the total), after the counts.
@compute @workgroup_size(64)
fn colour_starts(@builtin(global_invocation_id) gid: vec3<u32>) {
    let c = gid.x;
    if (c <= KINDS) {
        hist[KINDS * sizes.blocks + 1u + c] = hist[c * sizes.blocks];
    }
}
