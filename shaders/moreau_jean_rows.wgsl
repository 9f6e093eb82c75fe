// Row helpers of the scene-parallel Moreau–Jean kernel: the operators of the current Newton
// iterate, the MLCP's w, and the sphere–sphere rows. Twins: the same names in
// src/batch/cpu/moreau_jean_rows.rs (separation, dot3 ↔ dot, unit) and
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
// the fixed centre c), i₁, c) at coordinates x; zero beyond dim.
fn separation(base: u32, x: ptr<private, array<real, MAX_DOF>>) -> vec3<real> {
    let dim = u32(op(base));
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

// ẏ + n·(v₁ − v₀) of sphere–sphere row `base`, summed component by component.
fn add_normal_rate(base: u32, normal: vec3<real>, ydot: real) -> real {
    let i0 = op(base + 1u);
    let i1 = u32(op(base + 2u));
    var rate = ydot;
    for (var k = 0u; k < u32(op(base)); k++) {
        var v0 = real(0.0);
        if (i0 >= 0.0) {
            v0 = v[u32(i0) + k];
        }
        rate = rate + normal[k] * (v[i1 + k] - v0);
    }
    return rate;
}

// Adds the normal of sphere–sphere row `base` at q^i to G row r.
fn add_normal(base: u32, r: u32) {
    let dim = u32(op(base));
    let i0 = op(base + 1u);
    let i1 = u32(op(base + 2u));
    let normal = unit(separation(base, &qi));
    for (var k = 0u; k < dim; k++) {
        gmat[r * n + i1 + k] = gmat[r * n + i1 + k] + normal[k];
        if (i0 >= 0.0) {
            gmat[r * n + u32(i0) + k] = gmat[r * n + u32(i0) + k] - normal[k];
        }
    }
}
