// Row helpers of the scene-parallel Moreau–Jean kernel: the operators of the current Newton
// iterate, the MLCP's w, the sphere–sphere rows, the lever rows and the friction contacts'
// blocks. Twins: the same names in src/batch/cpu/moreau_jean_rows.rs (separation, dot3 ↔ dot,
// unit, friction_kind, project_on_cone, friction_error; friction_block ↔
// solve_friction_block), src/batch/cpu/lever.rs (the lever rows) and
// src/batch/cpu/moreau_jean_stages.rs (input_of_lambda, add_normal); `local_velocity`'s sum
// is written out where the twin needs it (lcp_error, solve_local).

// Entry k of W⁻¹Gᵀ (n×m) and of the Delassus matrix (m×m): the Newton iterate's own with
// nonlinear rows, else the scene's constant ones.
fn wg_at(k: u32) -> real {
    if (NONLINEAR && scene_nonlinear) {
        return wgmat[k];
    }
    return op(o.w_inv_ht + k);
}

fn d_at(k: u32) -> real {
    if (NONLINEAR && scene_nonlinear) {
        return dmat[k];
    }
    return op(o.delassus + k);
}

// w_r = q_r + Σ_k D_rk λ_k, row r of the MLCP at the current λ.
fn local_velocity(r: u32) -> real {
    var w = lcp_q[r];
    for (var k = 0u; k < m; k++) {
        w = w + d_at(r * m + k) * lambda[k];
    }
    return w;
}

// (Gᵀλ)_j, the input of the current λ through the iterate's G.
fn input_of_lambda(j: u32) -> real {
    var p = real(0.0);
    for (var r = 0u; r < m; r++) {
        p = p + gmat[r * n + j] * lambda[r];
    }
    return p;
}

// The separation x₁ − x₀ of a sphere–sphere row (its 6 operators from `base`: dim, i₀ (−1:
// the fixed centre c), i₁, c; dim −2 on a disc pair's tangent row) at coordinates x; zero
// beyond |dim|.
fn separation(base: u32, x: ptr<private, array<real, MAX_DOF>>) -> vec3<real> {
    let dim = u32(abs(op(base)));
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
fn dot3(a: vec3<real>, b: vec3<real>) -> real {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

// The unit normal of a separation (zero when the centres coincide).
fn unit(d: vec3<real>) -> vec3<real> {
    let norm = sqrt(dot3(d, d));
    if (norm > 0.0) {
        return d / norm;
    }
    return vec3<real>(real(0.0), real(0.0), real(0.0));
}

// The direction of sphere–sphere row `base` of separation d: n = d/‖d‖, or on a disc pair's
// tangent row t = (−n_y, n_x). Twin: direction.
fn pair_direction(base: u32, d: vec3<real>) -> vec3<real> {
    let n = unit(d);
    if (op(base) < 0.0) {
        return vec3<real>(-n.y, n.x, real(0.0));
    }
    return n;
}

// ẏ + u·(v₁ − v₀) of sphere–sphere row `base` (u its direction), summed component by component.
fn add_normal_rate(base: u32, normal: vec3<real>, ydot: real) -> real {
    let i0 = op(base + 1u);
    let i1 = u32(op(base + 2u));
    var rate = ydot;
    for (var k = 0u; k < u32(abs(op(base))); k++) {
        var v0 = real(0.0);
        if (i0 >= 0.0) {
            v0 = v[u32(i0) + k];
        }
        rate = rate + normal[k] * (v[i1 + k] - v0);
    }
    return rate;
}

// Adds the direction of sphere–sphere row `base` (its normal, or a disc pair's tangent) at q^i
// to G row r.
fn add_normal(base: u32, r: u32) {
    let dim = u32(abs(op(base)));
    let i0 = op(base + 1u);
    let i1 = u32(op(base + 2u));
    let normal = pair_direction(base, separation(base, &qi));
    for (var k = 0u; k < dim; k++) {
        gmat[r * n + i1 + k] = gmat[r * n + i1 + k] + normal[k];
        if (i0 >= 0.0) {
            gmat[r * n + u32(i0) + k] = gmat[r * n + u32(i0) + k] - normal[k];
        }
    }
}

// Whether row r has lever terms a cos q_k + b sin q_k (a planar body's point; operators k, a,
// b), and its k. Twin: lever_at (src/batch/cpu/lever.rs).
fn has_lever(r: u32) -> bool {
    return op(o.lever + 3u * r + 1u) != 0.0 || op(o.lever + 3u * r + 2u) != 0.0;
}

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
    return tangent - op(o.friction + 2u * r + 1u) * lambda[r];
}

// Row r's friction kind: d = 2 or 3 on a contact's normal row, −k on its k-th tangent row, 0
// elsewhere. Twin: friction_kind.
fn friction_kind(r: u32) -> real {
    if ((flags & HAS_FRICTION) == 0u) {
        return real(0.0);
    }
    return op(o.friction + 2u * r);
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

// One friction contact's reactions given the others' (its block of D, the rows r..r+d, and its
// local q̃): in 2-D the dense NSGS's exact case analysis (separation, stick by Cramer's rule,
// slide forward, slide backward), in 3-D one projected step λ ← P_K(λ − diag(W)⁻¹ ŵ). Twin:
// solve_friction_block.
fn friction_block(d: u32, r: u32, local: vec3<real>, lam: vec3<real>, mu: real) -> vec3<real> {
    if (d == 2u) {
        let a = d_at(r * m + r);
        let b = d_at(r * m + r + 1u);
        let c = d_at((r + 1u) * m + r);
        let dd = d_at((r + 1u) * m + r + 1u);
        let z0 = real(0.0) - local[0];
        let z1 = real(0.0) - local[1];
        if (-z0 >= real(0.0)) {
            return vec3<real>(real(0.0), real(0.0), real(0.0));
        }
        let det = a * dd - c * b;
        let s0 = (z0 * dd - b * z1) / det;
        let s1 = (a * z1 - c * z0) / det;
        if (s0 >= real(0.0) && abs(s1) <= mu * s0) {
            return vec3<real>(s0, s1, real(0.0));
        }
        let rp = z0 / (a + mu * b);
        let ut = -z1 + rp * (b + mu * dd);
        if (rp >= real(0.0) && ut <= real(0.0)) {
            return vec3<real>(rp, mu * rp, real(0.0));
        }
        let rm = z0 / (a - mu * b);
        return vec3<real>(rm, -(mu * rm), real(0.0));
    }
    var u = vec3<real>(real(0.0), real(0.0), real(0.0));
    for (var i = 0u; i < 3u; i++) {
        u[i] = local[i];
        for (var j = 0u; j < 3u; j++) {
            u[i] = u[i] + d_at((r + i) * m + r + j) * lam[j];
        }
    }
    let ut = sqrt(u[1] * u[1] + u[2] * u[2]);
    let x = vec3<real>(
        lam[0] - (u[0] + mu * ut) / d_at(r * m + r),
        lam[1] - u[1] / d_at((r + 1u) * m + r + 1u),
        lam[2] - u[2] / d_at((r + 2u) * m + r + 2u),
    );
    return project_on_cone(3u, x, mu);
}
