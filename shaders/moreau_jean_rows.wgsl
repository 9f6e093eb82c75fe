// Row helpers of the scene-parallel Moreau–Jean kernel: the operators of the current Newton
// iterate, the MLCP's w, the sphere–sphere rows, the lever rows and the friction contacts'
// blocks. Twins: src/batch/cpu/moreau_jean_rows.rs (row_kind, is_normal, cone_violation,
// normal_row, equality_row, friction_block), src/contact/local.rs (project_on_cone,
// friction_error, friction_2d, friction_3d, shared with the large-scene engine),
// src/contact/vector.rs (dot3 ↔ dot, cross3 ↔ cross, unit, ortho_tangent),
// src/batch/cpu/sphere_rows.rs (separation, add_normal and the other sphere–sphere rows), src/batch/cpu/lever.rs (the lever rows) and
// src/batch/cpu/moreau_jean_stages/newton.rs (input_of_lambda); `local_velocity`'s sum is
// written out where the twin needs it (lcp_error, solve_local).

// Entry k of W⁻¹Gᵀ (n×m) and of the Delassus matrix (m×m): the Newton iterate's own with
// nonlinear rows, else the scene's constant ones at wg_base, d_base (Moreau–Jean's, or
// RATTLE's stage 1 or stage 2 ones).
fn wg_at(k: u32) -> real {
    if (NONLINEAR && scene_nonlinear) {
        return wgmat[k];
    }
    return op(wg_base + k);
}

fn d_at(k: u32) -> real {
    if (NONLINEAR && scene_nonlinear) {
        return dmat[k];
    }
    return op(d_base + k);
}

// w_r = q_r + Σ_k D_rk λ_k, row r of the MLCP at the current λ. Twin: the `w` closure of
// lcp_error.
fn local_velocity(r: u32) -> real {
    var w = lcp_q[r];
    for (var k = 0u; k < m; k++) {
        w = w + d_at(r * m + k) * lambda[k];
    }
    return w;
}

// (Gᵀλ)_j, the input of the current λ through the iterate's G. Twin: Group::input_of_lambda.
fn input_of_lambda(j: u32) -> real {
    var p = real(0.0);
    for (var r = 0u; r < m; r++) {
        p = p + gmat[r * n + j] * lambda[r];
    }
    return p;
}

// A sphere row's operators from `base`: kind, i₀ (−1: the fixed centre c), i₁, c — kind d > 0
// a gap in d dimensions, −2 a disc pair's tangent, −3 / −4 a sphere pair's tangent t₁ / t₂
// (c₀ = R₀, c₁ = R₁). Twins: src/batch/cpu/sphere_rows.rs.

// The dimension of the row's separation. Twin: pair_dim.
fn pair_dim(kind: real) -> u32 {
    if (kind > 0.5) {
        return u32(kind);
    }
    return select(3u, 2u, kind > -2.5);
}

// The separation x₁ − x₀ of sphere row `base` at coordinates x; zero beyond its dimension.
// Twin: separation.
fn separation(base: u32, x: ptr<private, array<real, MAX_DOF>>) -> vec3<real> {
    let dim = pair_dim(op(base));
    let i0 = op(base + 1u);
    let i1 = u32(op(base + 2u));
    var d = vec3<real>(real(0.0), real(0.0), real(0.0));
    for (var k = 0u; k < dim; k++) {
        var x0 = op(base + 3u + k);
        if (i0 >= 0.0) {
            x0 = (*x)[u32(i0) + k];
        }
        d[k] = (*x)[i1 + k] - x0;
    }
    return d;
}

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

// The direction u of sphere row `base` of separation d: n = d/‖d‖ on a gap, t = (−n_y, n_x)
// on a disc tangent, t₁ or t₂ on a sphere tangent (zero when the centres coincide). Twin:
// direction.
fn pair_direction(base: u32, d: vec3<real>) -> vec3<real> {
    let n = unit(d);
    let kind = op(base);
    if (kind > 0.0) {
        return n;
    }
    if (kind > -2.5) {
        return vec3<real>(-n.y, n.x, real(0.0));
    }
    if (dot3(n, n) == 0.0) {
        return n;
    }
    return ortho_tangent(n, kind < -3.5);
}

// m = n × u of a sphere tangent (zero elsewhere). Twin: direction.
fn pair_lever(base: u32, d: vec3<real>) -> vec3<real> {
    if (op(base) > -2.5) {
        return vec3<real>(real(0.0), real(0.0), real(0.0));
    }
    return cross3(unit(d), pair_direction(base, d));
}

// ẏ + u·(v₁ − v₀) of sphere row `base` (u its direction), summed component by component, and
// on a sphere tangent − R₀ m·ω₀ − R₁ m·ω₁ term by term. Twin: add_sphere_gap.
fn add_normal_rate(base: u32, normal: vec3<real>, lever: vec3<real>, ydot: real) -> real {
    let i0 = op(base + 1u);
    let i1 = u32(op(base + 2u));
    var rate = ydot;
    for (var k = 0u; k < pair_dim(op(base)); k++) {
        var v0 = real(0.0);
        if (i0 >= 0.0) {
            v0 = v[u32(i0) + k];
        }
        rate = rate + normal[k] * (v[i1 + k] - v0);
    }
    if (op(base) < -2.5) {
        let r0 = op(base + 3u);
        let r1 = op(base + 4u);
        for (var k = 0u; k < 3u; k++) {
            rate = rate - r0 * lever[k] * v[u32(i0) + 3u + k];
            rate = rate - r1 * lever[k] * v[i1 + 3u + k];
        }
    }
    return rate;
}

// Adds the Jacobian of sphere row `base` at x to G row r: ±u on the centres, and on a sphere
// tangent −R₀ m, −R₁ m on the angular rates. Twin: add_normal.
fn add_normal(base: u32, r: u32, x: ptr<private, array<real, MAX_DOF>>) {
    let dim = pair_dim(op(base));
    let i0 = op(base + 1u);
    let i1 = u32(op(base + 2u));
    let d = separation(base, x);
    let normal = pair_direction(base, d);
    for (var k = 0u; k < dim; k++) {
        gmat[r * n + i1 + k] = gmat[r * n + i1 + k] + normal[k];
        if (i0 >= 0.0) {
            gmat[r * n + u32(i0) + k] = gmat[r * n + u32(i0) + k] - normal[k];
        }
    }
    if (op(base) < -2.5) {
        let lever = pair_lever(base, d);
        let r0 = op(base + 3u);
        let r1 = op(base + 4u);
        for (var k = 0u; k < 3u; k++) {
            gmat[r * n + u32(i0) + 3u + k] = gmat[r * n + u32(i0) + 3u + k] - r0 * lever[k];
            gmat[r * n + i1 + 3u + k] = gmat[r * n + i1 + 3u + k] - r1 * lever[k];
        }
    }
}

// Whether row r has lever terms a cos q_k + b sin q_k (a planar body's point; operators k, a,
// b), and its k. Twin: lever_at (src/batch/cpu/lever.rs).
fn has_lever(r: u32) -> bool {
    return op(o.lever + 3u * r + 1u) != 0.0 || op(o.lever + 3u * r + 2u) != 0.0;
}

// The coordinate k of row r's lever terms.
fn lever_angle(r: u32) -> u32 {
    return u32(op(o.lever + 3u * r));
}

// (a, b) of row r's lever terms.
fn lever_coefficients(r: u32) -> vec2<real> {
    return vec2<real>(op(o.lever + 3u * r + 1u), op(o.lever + 3u * r + 2u));
}

// ‖λ_T‖ − μ λ_N of the friction contact of d rows from row r (|λ_T| in 2-D): ≤ 0 inside its
// cone. Twin: cone_violation.
fn cone_violation(r: u32, d: u32) -> real {
    var tangent = abs(lambda[r + 1u]);
    if (d == 3u) {
        tangent = sqrt(lambda[r + 1u] * lambda[r + 1u] + lambda[r + 2u] * lambda[r + 2u]);
    }
    return tangent - op(o.mu + r) * lambda[r];
}

// Row r's kind (ROW_*). Twin: row_kind.
fn row_kind(r: u32) -> u32 {
    return kinds[r];
}

// Whether a row of kind `kind` is a Coulomb contact's normal row (its code is then the
// contact's rows d). Twin: is_normal.
fn is_normal(kind: u32) -> bool {
    return kind == ROW_NORMAL_2D || kind == ROW_NORMAL_3D;
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

// A unilateral (normal) row's PGS update λ ← max(0, λ − w/D_rr). Twin: normal_row.
fn normal_row(lam: real, w: real, diagonal: real) -> real {
    return max(equality_row(lam, w, diagonal), real(0.0));
}

// An equality row's Gauss–Seidel update λ ← λ − w/D_rr (unprojected). Twin: equality_row.
fn equality_row(lam: real, w: real, diagonal: real) -> real {
    return lam - w / diagonal;
}

// One friction contact's reactions given the others' (its block of D, the rows r..r+d, and its
// local q̃): friction_2d or friction_3d. Twin: friction_block.
fn friction_block(d: u32, r: u32, local: vec3<real>, lam: vec3<real>, mu: real) -> vec3<real> {
    if (d == 2u) {
        let w = array<vec2<real>, 2>(
            vec2<real>(d_at(r * m + r), d_at(r * m + r + 1u)),
            vec2<real>(d_at((r + 1u) * m + r), d_at((r + 1u) * m + r + 1u)),
        );
        let x = friction_2d(w, vec2<real>(local[0], local[1]), mu);
        return vec3<real>(x[0], x[1], real(0.0));
    }
    var w: array<vec3<real>, 3>;
    for (var a = 0u; a < 3u; a++) {
        w[a] = vec3<real>(d_at((r + a) * m + r), d_at((r + a) * m + r + 1u), d_at((r + a) * m + r + 2u));
    }
    return friction_3d(w, local, lam, mu);
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
