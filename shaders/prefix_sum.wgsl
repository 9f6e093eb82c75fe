// An exclusive prefix sum of u32 values, in place: data[k] ← Σ_{i<k} data[i] for k ≤ n, so
// that data[n] (zero on entry) ends as the total. Three dispatches: `scan_blocks` (each
// workgroup scans its WIDTH values in shared memory, Hillis–Steele, and leaves its block's
// total), `scan_totals` (one invocation scans the block totals in order) and `add_totals`.
// Integers only: the same sums whatever the scheduling. Twin: exclusive_sum
// (src/batch/gpu/prefix_sum.rs).

struct Sizes {
    n: u32,
    blocks: u32,
    pad1: u32,
    pad2: u32,
}

const WIDTH: u32 = 256u;

@group(0) @binding(0) var<uniform> sizes: Sizes;
// The n counts and a zero, scanned in place.
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
// Per block: its total, then the sum of the blocks before it.
@group(0) @binding(2) var<storage, read_write> totals: array<u32>;

var<workgroup> scan: array<u32, 256>;

@compute @workgroup_size(256)
fn scan_blocks(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let b = wid.x;
    let k = b * WIDTH + lane;
    var x = 0u;
    if (k <= sizes.n) {
        x = data[k];
    }
    scan[lane] = x;
    workgroupBarrier();
    for (var offset = 1u; offset < WIDTH; offset = offset * 2u) {
        var y = 0u;
        if (lane >= offset) {
            y = scan[lane - offset];
        }
        workgroupBarrier();
        scan[lane] = scan[lane] + y;
        workgroupBarrier();
    }
    if (k <= sizes.n) {
        data[k] = scan[lane] - x;
    }
    if (lane == WIDTH - 1u && b < sizes.blocks) {
        totals[b] = scan[lane];
    }
}

@compute @workgroup_size(1)
fn scan_totals() {
    var sum = 0u;
    for (var b = 0u; b < sizes.blocks; b = b + 1u) {
        let t = totals[b];
        totals[b] = sum;
        sum = sum + t;
    }
}

@compute @workgroup_size(256)
fn add_totals(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let b = wid.x;
    let k = b * WIDTH + lane;
    if (k <= sizes.n) {
        data[k] = data[k] + totals[b];
    }
}
