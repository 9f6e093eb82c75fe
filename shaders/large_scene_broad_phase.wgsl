// The broad phase of a large scene by a counting sort on a hashed uniform grid (S. Green,
// "Particle Simulation using CUDA", NVIDIA 2010; the hash of M. Teschner et al., "Optimized
// Spatial Hashing for Collision Detection of Deformable Objects", VMV 2003): `cell_keys`
// (each body's bucket, the hash of its cell, counted with atomicAdd), an exclusive prefix
// sum of the counts (prefix_sum.wgsl), `scatter` (each body into its bucket's range),
// `count_partners` (each body's partners j > i within the margin in the 3^d cells around
// it, then the walls within the margin), a prefix sum of those counts, and `write_pairs`
// (each body writes its partners at its offset and sorts them by j). The cells are the
// host's grid of cells 2 R_max + δ wide; a bucket may hold bodies of several cells (they
// are filtered by their gap) and a body's list is sorted, so that the pairs are the CPU's,
// sorted by pair key, whatever the order atomics left in a bucket. Integer atomics only.
// Twin: candidate_pairs (src/large_scene/broad_phase.rs).

struct Sizes {
    bodies: u32,
    walls: u32,
    axes: u32,
    periodic: u32,
    cells_x: u32,
    cells_y: u32,
    cells_z: u32,
    mask: u32,
}

const NONE: u32 = 0xffffffffu;
// Where the walls start in `geometry`, and the values per wall.
const WALLS: u32 = 16u;
const WALL: u32 = 8u;

@group(0) @binding(0) var<uniform> sizes: Sizes;
// The grid's origin (3) and cell widths (3), the period L, the margin δ, the slack of the
// gap test (0 in f64), then per wall from WALLS: kind (0 plane, 1 segment), the plane's
// point or the segment's end a (3), its normal or end b (3), owns_a + 2 owns_b.
@group(0) @binding(1) var<storage, read> geometry: array<real>;
// Per body: x, y, z, R (R < 0: no longer present).
@group(0) @binding(2) var<storage, read> spheres: array<real>;
// Per bucket (and one more): its count, then the start of its range, then its end.
@group(0) @binding(3) var<storage, read_write> cells: array<atomic<u32>>;
// Per body: its bucket (NONE: not present).
@group(0) @binding(4) var<storage, read_write> keys: array<u32>;
// The bodies by bucket.
@group(0) @binding(5) var<storage, read_write> sorted: array<u32>;
// Per body (and one more): its partners, then the offset of its pairs.
@group(0) @binding(6) var<storage, read_write> degree: array<u32>;
// The pairs (i, j), sorted by key.
@group(0) @binding(7) var<storage, read_write> pairs: array<vec2<u32>>;

fn centre(b: u32) -> vec3<real> {
    return vec3<real>(spheres[4u * b], spheres[4u * b + 1u], spheres[4u * b + 2u]);
}

fn cell_counts() -> vec3<u32> {
    return vec3<u32>(sizes.cells_x, sizes.cells_y, sizes.cells_z);
}

// The cell of a centre: floor((x − origin) / width) within [0, cells − 1] on each axis.
fn coordinates(x: vec3<real>) -> vec3<u32> {
    let counts = cell_counts();
    var c = vec3<u32>(0u, 0u, 0u);
    for (var k = 0u; k < 3u; k = k + 1u) {
        let f = floor((x[k] - geometry[k]) / geometry[3u + k]);
        c[k] = u32(min(max(f, 0.0), real(counts[k] - 1u)));
    }
    return c;
}

fn bucket(c: vec3<u32>) -> u32 {
    return ((c.x * 73856093u) ^ (c.y * 19349663u) ^ (c.z * 83492791u)) & sizes.mask;
}

// ‖x_j − x_i‖ − R_i − R_j through the period. Twin: gap.
fn body_gap(i: u32, j: u32) -> real {
    var d = centre(j) - centre(i);
    if (sizes.periodic == 1u) {
        let l = geometry[6];
        d.x = d.x - l * round_away(d.x / l);
    }
    return sqrt(d.x * d.x + d.y * d.y + d.z * d.z) - spheres[4u * i + 3u] - spheres[4u * j + 3u];
}

// The gap of a body of radius r at x to wall w (REAL_MAX where a segment's nearest point
// is an end it does not own). Twin: Shape::contact.
fn wall_gap(w: u32, x: vec3<real>, r: real) -> real {
    let at = WALLS + WALL * w;
    let p = vec3<real>(geometry[at + 1u], geometry[at + 2u], geometry[at + 3u]);
    let q = vec3<real>(geometry[at + 4u], geometry[at + 5u], geometry[at + 6u]);
    if (geometry[at] == 0.0) {
        let d = x - p;
        return q.x * d.x + q.y * d.y + q.z * d.z - r;
    }
    let owns = u32(geometry[at + 7u]);
    let ab = vec3<real>(q.x - p.x, q.y - p.y, 0.0);
    let ax = vec3<real>(x.x - p.x, x.y - p.y, 0.0);
    let t = clamp((ax.x * ab.x + ax.y * ab.y + ax.z * ab.z) / (ab.x * ab.x + ab.y * ab.y + ab.z * ab.z), 0.0, 1.0);
    if ((t == 0.0 && (owns & 1u) == 0u) || (t == 1.0 && (owns & 2u) == 0u)) {
        return REAL_MAX;
    }
    let to_wall = vec3<real>(p.x + t * ab.x - x.x, p.y + t * ab.y - x.y, 0.0);
    return sqrt(to_wall.x * to_wall.x + to_wall.y * to_wall.y + to_wall.z * to_wall.z) - r;
}

// Body i's partners: bodies j > i within the margin in the buckets of the 3^d cells around
// its own (each bucket once), then walls; written from `base` when `write`. Returns how many.
fn partners(i: u32, write: bool, base: u32) -> u32 {
    let r = spheres[4u * i + 3u];
    if (r < 0.0) {
        return 0u;
    }
    let x = centre(i);
    let reach = geometry[7] + geometry[8];
    let c = vec3<i32>(coordinates(x));
    let counts = vec3<i32>(cell_counts());
    let depth = select(0, 1, sizes.axes == 3u);
    var seen: array<u32, 27>;
    var visited = 0u;
    var found = 0u;
    for (var dz = -depth; dz <= depth; dz = dz + 1) {
        for (var dy = -1; dy <= 1; dy = dy + 1) {
            for (var dx = -1; dx <= 1; dx = dx + 1) {
                var n = c + vec3<i32>(dx, dy, dz);
                if (sizes.periodic == 1u) {
                    n.x = (n.x + counts.x) % counts.x;
                }
                if (any(n < vec3<i32>(0, 0, 0)) || any(n >= counts)) {
                    continue;
                }
                let h = bucket(vec3<u32>(n));
                var repeated = false;
                for (var s = 0u; s < visited; s = s + 1u) {
                    repeated = repeated || seen[s] == h;
                }
                if (repeated) {
                    continue;
                }
                seen[visited] = h;
                visited = visited + 1u;
                var start = 0u;
                if (h > 0u) {
                    start = atomicLoad(&cells[h - 1u]);
                }
                let end = atomicLoad(&cells[h]);
                for (var s = start; s < end; s = s + 1u) {
                    let j = sorted[s];
                    if (j > i && body_gap(i, j) <= reach) {
                        if (write) {
                            pairs[base + found] = vec2<u32>(i, j);
                        }
                        found = found + 1u;
                    }
                }
            }
        }
    }
    for (var w = 0u; w < sizes.walls; w = w + 1u) {
        if (wall_gap(w, x, r) <= reach) {
            if (write) {
                pairs[base + found] = vec2<u32>(i, sizes.bodies + w);
            }
            found = found + 1u;
        }
    }
    return found;
}

@compute @workgroup_size(64)
fn cell_keys(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = invocation(gid, groups);
    if (b >= sizes.bodies) {
        return;
    }
    if (spheres[4u * b + 3u] < 0.0) {
        keys[b] = NONE;
        return;
    }
    let h = bucket(coordinates(centre(b)));
    keys[b] = h;
    atomicAdd(&cells[h], 1u);
}

@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = invocation(gid, groups);
    if (b >= sizes.bodies || keys[b] == NONE) {
        return;
    }
    sorted[atomicAdd(&cells[keys[b]], 1u)] = b;
}

@compute @workgroup_size(64)
fn count_partners(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = invocation(gid, groups);
    if (i < sizes.bodies) {
        degree[i] = partners(i, false, 0u);
    }
}

@compute @workgroup_size(64)
fn write_pairs(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = invocation(gid, groups);
    if (i >= sizes.bodies) {
        return;
    }
    let base = degree[i];
    let end = base + partners(i, true, base);
    // Insertion sort by j: a body has few partners.
    for (var k = base + 1u; k < end; k = k + 1u) {
        let p = pairs[k];
        var m = k;
        while (m > base && pairs[m - 1u].y > p.y) {
            pairs[m] = pairs[m - 1u];
            m = m - 1u;
        }
        pairs[m] = p;
    }
}
