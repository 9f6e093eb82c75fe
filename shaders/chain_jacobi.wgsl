// Contact-parallel Moreau–Jean step of a bead chain with relaxed, double-buffered Jacobi.
// Twin: batch::cpu::chain_jacobi::run (same stages, same order of operations).
// One invocation per contact i (between beads i−1 and i; contact 0 is the floor) or per bead.
// A step is one `prepare`, `sweeps` × `sweep` (ping-pong λ buffers) and one `update` dispatch.

// ChainParams (h, θ, γ, ω, 1/m, R, g, e, beads) is generated from the host's declaration.
@group(0) @binding(0) var<uniform> params: ChainParams;
@group(0) @binding(1) var<storage, read_write> z: array<real>;
@group(0) @binding(2) var<storage, read_write> v: array<real>;
@group(0) @binding(3) var<storage, read_write> lcp_q: array<real>;
@group(0) @binding(4) var<storage, read_write> lambda_in: array<real>;
@group(0) @binding(5) var<storage, read_write> lambda_out: array<real>;
// Per contact: 1 when in the LCP this step; then the worst residual seen, as a real.
@group(0) @binding(6) var<storage, read_write> in_lcp: array<u32>;
@group(0) @binding(7) var<storage, read_write> residual: array<real>;

fn diagonal(i: u32) -> real {
    return select(2.0 * params.inv_mass, params.inv_mass, i == 0u);
}

// w_i = q_i + D_ii λ_i − (λ_{i−1} + λ_{i+1}) / m.
fn w(i: u32) -> real {
    var neighbours = real(0.0);
    if (i > 0u) {
        neighbours = neighbours + lambda_in[i - 1u];
    }
    if (i + 1u < params.beads) {
        neighbours = neighbours + lambda_in[i + 1u];
    }
    return lcp_q[i] + diagonal(i) * lambda_in[i] - params.inv_mass * neighbours;
}

@compute @workgroup_size(64)
fn prepare(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.beads) {
        return;
    }
    let h = params.h;
    let r = params.radius;
    var y: real;
    var ydot: real;
    var hv: real;
    if (i == 0u) {
        y = z[0] - r;
        ydot = v[0];
        hv = v[0] - h * params.gravity;
    } else {
        let d = v[i] - v[i - 1u];
        y = z[i] - z[i - 1u] - r - r;
        ydot = d;
        hv = d;
    }
    in_lcp[i] = select(0u, 1u, y + params.gamma * h * ydot <= 0.0);
    lcp_q[i] = hv + params.restitution * ydot;
    lambda_in[i] = real(0.0);
}

@compute @workgroup_size(64)
fn sweep(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.beads) {
        return;
    }
    var next = real(0.0);
    if (in_lcp[i] == 1u) {
        next = max(lambda_in[i] - params.omega * w(i) / diagonal(i), real(0.0));
    }
    lambda_out[i] = next;
}

@compute @workgroup_size(64)
fn update(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    if (j >= params.beads) {
        return;
    }
    if (in_lcp[j] == 1u) {
        let lam = lambda_in[j];
        residual[j] = max(residual[j], abs(lam - max(lam - w(j), real(0.0))));
    }
    var above = real(0.0);
    if (j + 1u < params.beads) {
        above = lambda_in[j + 1u];
    }
    let h = params.h;
    let theta = params.theta;
    let v_new = v[j] - h * params.gravity + (lambda_in[j] - above) * params.inv_mass;
    z[j] = z[j] + h * (theta * v_new + (1.0 - theta) * v[j]);
    v[j] = v_new;
}
