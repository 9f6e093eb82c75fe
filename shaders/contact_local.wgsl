// The local solves of one Coulomb contact and the 3-vector helpers, shared by the
// scene-parallel kernel (moreau_jean_rows.wgsl) and the large-scene kernel
// (large_scene_nsgs.wgsl). `real` and SLIDE_ITERATIONS are defined in front of this file.
// Twins: src/contact/local.rs (project_on_cone, friction_error, friction_2d, friction_3d),
// src/contact/vector.rs (dot3 ↔ dot, cross3 ↔ cross, unit, ortho_tangent).

// a·b summed in the twin's order, ((a₀b₀ + a₁b₁) + a₂b₂): WGSL's `dot` fixes no order.
// Twin: dot.
fn dot3(a: vec3<real>, b: vec3<real>) -> real {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

// u × w, written out (the twin's order). Twin: cross.
fn cross3(u: vec3<real>, w: vec3<real>) -> vec3<real> {
    return vec3<real>(u.y * w.z - u.z * w.y, u.z * w.x - u.x * w.z, u.x * w.y - u.y * w.x);
}

// The unit normal of a separation (zero when the centres coincide). Twin: unit.
fn unit(d: vec3<real>) -> vec3<real> {
    let norm = sqrt(dot3(d, d));
    if (norm > 0.0) {
        return d / norm;
    }
    return vec3<real>(real(0.0), real(0.0), real(0.0));
}

// Tangent t₁ (or t₂ when `second`) of the frame of a unit normal n (Siconos's
// orthoBaseFromVector, s = 1 for n_z ≥ 0). Twin: ortho_tangent.
fn ortho_tangent(n: vec3<real>, second: bool) -> vec3<real> {
    let s = select(real(-1.0), real(1.0), n.z >= 0.0);
    let a = -1.0 / (s + n.z);
    let b = n.x * n.y * a;
    if (second) {
        return vec3<real>(b, s + n.y * n.y * a, -n.y);
    }
    return vec3<real>(1.0 + s * n.x * n.x * a, s * b, -(s * n.x));
}

// The projection of one contact's d components onto its Coulomb cone (Siconos's
// projectionOnCone). Twin: project_on_cone.
fn project_on_cone(d: u32, r: vec3<real>, mu: real) -> vec3<real> {
    var nt2 = real(0.0);
    for (var k = 1u; k < d; k++) {
        nt2 = nt2 + r[k] * r[k];
    }
    let nt = sqrt(nt2);
    if (mu * nt <= -r[0]) {
        return vec3<real>(real(0.0), real(0.0), real(0.0));
    }
    if (nt > mu * r[0]) {
        let normal = (mu * nt + r[0]) / (mu * mu + real(1.0));
        let scale = mu * normal / nt;
        return vec3<real>(normal, r[1] * scale, select(r[2], r[2] * scale, d == 3u));
    }
    return r;
}

// A friction contact's squared natural map ‖λ − P_K(λ − ŵ)‖², ŵ = w + (μ ‖w_T‖, 0, 0). Twin:
// friction_error.
fn friction_error(d: u32, lam: vec3<real>, w: vec3<real>, mu: real) -> real {
    var wt2 = real(0.0);
    for (var k = 1u; k < d; k++) {
        wt2 = wt2 + w[k] * w[k];
    }
    let t = project_on_cone(d, vec3<real>(lam[0] - (w[0] + mu * sqrt(wt2)), lam[1] - w[1], lam[2] - w[2]), mu);
    var e = real(0.0);
    for (var k = 0u; k < d; k++) {
        e = e + (lam[k] - t[k]) * (lam[k] - t[k]);
    }
    return e;
}

// A 2-D friction contact's reactions given the others' (block W by rows, w[i][j] = W_ij, and
// local velocity q̃): Siconos's dense NSGS's exact case analysis — separation, stick by
// Cramer's rule, slide forward, slide backward. Twin: friction_2d.
fn friction_2d(w: array<vec2<real>, 2>, q: vec2<real>, mu: real) -> vec2<real> {
    let a = w[0][0];
    let b = w[0][1];
    let c = w[1][0];
    let dd = w[1][1];
    let z0 = real(0.0) - q[0];
    let z1 = real(0.0) - q[1];
    if (-z0 >= real(0.0)) {
        return vec2<real>(real(0.0), real(0.0));
    }
    let det = a * dd - c * b;
    let s0 = (z0 * dd - b * z1) / det;
    let s1 = (a * z1 - c * z0) / det;
    if (s0 >= real(0.0) && abs(s1) <= mu * s0) {
        return vec2<real>(s0, s1);
    }
    let rp = z0 / (a + mu * b);
    let ut = -z1 + rp * (b + mu * dd);
    if (rp >= real(0.0) && ut <= real(0.0)) {
        return vec2<real>(rp, mu * rp);
    }
    let rm = z0 / (a - mu * b);
    return vec2<real>(rm, -(mu * rm));
}

// u = q̃ + W x, each row summed left to right. Twin: the `velocity` closure of friction_3d.
fn block_velocity(w: array<vec3<real>, 3>, q: vec3<real>, x: vec3<real>) -> vec3<real> {
    var u = q;
    for (var a = 0u; a < 3u; a++) {
        u[a] = q[a] + w[a][0] * x[0] + w[a][1] * x[1] + w[a][2] * x[2];
    }
    return u;
}

// λ_N of a sliding 3-D contact whose friction points along d (u_N = 0). Twin: the `normal`
// closure of friction_3d.
fn sliding_normal(w: array<vec3<real>, 3>, q: vec3<real>, d: vec2<real>, mu: real) -> real {
    return real(0.0) - q[0] / (w[0][0] + mu * (w[0][1] * d[0] + w[0][2] * d[1]));
}

// A 3-D friction contact's reactions given the others' (block W, local velocity q̃):
// separation; sticking (the normal row eliminated first); else the sliding solution
// (SLIDE_ITERATIONS steps on the direction from the sticking one) where its λ_N ≥ 0 and its
// local natural map is at most the current λ's and that of one projected step λ ← P_K(λ − ρ ŵ);
// else that projected step. Twin: friction_3d.
fn friction_3d(w: array<vec3<real>, 3>, q: vec3<real>, lam: vec3<real>, mu: real) -> vec3<real> {
    let zero = real(0.0);
    let s11 = w[1][1] - w[1][0] * w[0][1] / w[0][0];
    let s12 = w[1][2] - w[1][0] * w[0][2] / w[0][0];
    let s21 = w[2][1] - w[2][0] * w[0][1] / w[0][0];
    let s22 = w[2][2] - w[2][0] * w[0][2] / w[0][0];
    let r1 = w[1][0] * q[0] / w[0][0] - q[1];
    let r2 = w[2][0] * q[0] / w[0][0] - q[2];
    let det = s11 * s22 - s12 * s21;
    let t1 = (r1 * s22 - s12 * r2) / det;
    let t2 = (s11 * r2 - s21 * r1) / det;
    let s = vec3<real>((zero - q[0] - w[0][1] * t1 - w[0][2] * t2) / w[0][0], t1, t2);
    let st = sqrt(s[1] * s[1] + s[2] * s[2]);
    if (zero <= q[0]) {
        return vec3<real>(zero, zero, zero);
    }
    if (w[0][0] > zero && det > zero && zero <= s[0] && st <= mu * s[0]) {
        return s;
    }
    var d = vec2<real>(s[1] / st, s[2] / st);
    for (var k = 0u; k < SLIDE_ITERATIONS; k++) {
        let n = sliding_normal(w, q, d, mu);
        let u1 = q[1] + w[1][0] * n + mu * n * (w[1][1] * d[0] + w[1][2] * d[1]);
        let u2 = q[2] + w[2][0] * n + mu * n * (w[2][1] * d[0] + w[2][2] * d[1]);
        let ut = sqrt(u1 * u1 + u2 * u2);
        d = vec2<real>(zero - u1 / ut, zero - u2 / ut);
    }
    let n = sliding_normal(w, q, d, mu);
    let slide = vec3<real>(n, mu * n * d[0], mu * n * d[1]);
    let u = block_velocity(w, q, lam);
    let ut = sqrt(u[1] * u[1] + u[2] * u[2]);
    let rho = real(2.0) / (min(min(w[0][0], w[1][1]), w[2][2]) + max(max(w[0][0], w[1][1]), w[2][2]));
    let step = project_on_cone(3u, vec3<real>(lam[0] - rho * (u[0] + mu * ut), lam[1] - rho * u[1], lam[2] - rho * u[2]), mu);
    let slide_error = friction_error(3u, slide, block_velocity(w, q, slide), mu);
    let better = slide_error <= friction_error(3u, step, block_velocity(w, q, step), mu)
        && slide_error <= friction_error(3u, lam, block_velocity(w, q, lam), mu);
    if (zero <= slide[0] && better) {
        return slide;
    }
    return step;
}
