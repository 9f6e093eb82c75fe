// Row helpers of the scene-parallel Moreau–Jean kernel: the operators of the current Newton
// iterate, the MLCP's w, the sphere–sphere rows, the lever rows and the friction contacts'
// blocks (their local solves are in contact_local.wgsl). Twins:
// src/batch/cpu/moreau_jean_rows.rs (row_kind, is_normal, cone_violation, normal_row,
// equality_row, friction_block), src/batch/cpu/sphere_rows.rs (separation, add_normal and the
// other sphere–sphere rows), src/batch/cpu/lever.rs (the lever rows) and
// src/batch/cpu/moreau_jean_stages/newton.rs (input_of_lambda); `local_velocity`'s sum is
// written out where the twin needs it (lcp_error, solve_local).

// Entry k of W⁻¹Gᵀ (n×m) and of the Delassus matrix (m×m): the Newton iterate's own with
// nonlinear rows or a located sub-step's of W(τ) (span_operators), else the scene's constant
// ones at wg_base, d_base (Moreau–Jean's, or RATTLE's stage 1 or stage 2 ones).
fn wg_at(k: u32) -> real {
    if ((NONLINEAR && scene_nonlinear) || span_built()) {
        return wgmat[k];
    }
    return op(wg_base + k);
}

fn d_at(k: u32) -> real {
    if ((NONLINEAR && scene_nonlinear) || span_built()) {
        return dmat[k];
    }
    return op(d_base + k);
}

// Where a stored matrix keeps row r's entries: the position of its first and their count.
// Every one of `cols` columns in a dense scene; in a SPARSE scene the compressed row of the
// pattern at `pattern` in row_kinds (H's and W⁻¹Hᵀ's at h_pattern, the Delassus matrix's at
// d_pattern: see src/batch/sparsity.rs). In a kernel without SPARSE scenes (COMPRESSED false)
// the count is `cols`, a constant where the sizes are fixed, so that the loops over it unroll.
// Twin: Rows::span (of Group::h_rows, Group::d_rows).
fn row_span(pattern: u32, r: u32, cols: u32) -> vec2<u32> {
    if (COMPRESSED && sparse) {
        let start = row_kinds[pattern + r];
        return vec2<u32>(start, row_kinds[pattern + r + 1u] - start);
    }
    return vec2<u32>(r * cols, cols);
}

// The column of the entry at position p, the k-th of its row, in the matrix of row_span's
// `pattern`. Twin: Rows::col.
fn row_col(pattern: u32, p: u32, k: u32) -> u32 {
    if (COMPRESSED && sparse) {
        return row_kinds[pattern + m + 1u + p];
    }
    return k;
}

// D_rk, zero where not stored. Twin: Stored::at.
fn d_entry(r: u32, k: u32) -> real {
    if (!(COMPRESSED && sparse)) {
        return d_at(r * m + k);
    }
    let span = row_span(d_pattern, r, m);
    for (var i = 0u; i < span.y; i++) {
        if (row_col(d_pattern, span.x + i, i) == k) {
            return d_at(span.x + i);
        }
    }
    return real(0.0);
}

// w_r = q_r + Σ_k D_rk λ_k, row r of the MLCP at the current λ. Twin: Stored::row_dot (the
// `w` closure of lcp_error).
fn local_velocity(r: u32) -> real {
    var w = lcp_q[r];
    let span = row_span(d_pattern, r, m);
    for (var i = 0u; i < span.y; i++) {
        w = w + d_at(span.x + i) * lambda[row_col(d_pattern, span.x + i, i)];
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
            vec2<real>(d_entry(r, r), d_entry(r, r + 1u)),
            vec2<real>(d_entry(r + 1u, r), d_entry(r + 1u, r + 1u)),
        );
        let x = friction_2d(w, vec2<real>(local[0], local[1]), mu);
        return vec3<real>(x[0], x[1], real(0.0));
    }
    var w: array<vec3<real>, 3>;
    for (var a = 0u; a < 3u; a++) {
        w[a] = vec3<real>(d_entry(r + a, r), d_entry(r + a, r + 1u), d_entry(r + a, r + 2u));
    }
    return friction_3d(w, local, lam, mu);
}

