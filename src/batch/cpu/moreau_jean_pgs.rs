//! The batched Moreau–Jean stepper on the CPU: the same stages, the same order of operations
//! and the same data layout as the WGSL kernel `shaders/moreau_jean_pgs.wgsl`, generic over
//! f32 and f64. It is the kernel's CPU twin (for cross-checks) and the CPU backend of
//! ensembles: scenes of equal sizes are stepped [`LANES`] at a time in SIMD lanes, and the
//! lane groups run in parallel on all cores (rayon). Each lane computes exactly what one
//! scene alone would, so results do not depend on the grouping or the thread count.
//!
//! Per scene and step (operators from [`crate::batch::LinearScene`]):
//! ```text
//!   v_free = v_k + c − A v_k − B q_k,  c = c₀ + W⁻¹h a [(1−θ) cos(ω t_k + φ) + θ cos(ω t_{k+1} + φ)]
//!            (cos evaluated here; the kernel rotates it by ωh from one cosine per dispatch, so
//!            the two differ by that rotation's rounding drift, ~steps·ε)
//!   y = H q_k + Y q_k² + b,  ẏ = G(q_k) v_k,  active ⇔ equality row or y + γ h ẏ ≤ 0
//!   Newton iterate i = 1, 2, … (one pass without nonlinear rows), v⁰ = v_k:
//!     q^i = q_k + h((1−θ) v_k + θ v^{i−1}),  G = H + 2 Y diag(q^i) + sphere–sphere normals
//!     stop when ‖(G(q^{i−1}) − G(q^i))ᵀ λ^{i−1}‖ ≤ newton tolerance
//!     PGS on the active rows of w = G W⁻¹Gᵀ λ + G v_free + e ẏ + f y (0 ≤ λ ⟂ w ≥ 0 on
//!     contacts, w = 0 with λ unprojected on equalities) until Siconos's error ≤ tol
//!     v^i = v_free + W⁻¹Gᵀ λ
//!   v_{k+1} = v^i,   q_{k+1} = q_k + h (θ v_{k+1} + (1−θ) v_k)
//! ```

use std::array::from_fn;
use std::ops::Range;

use num_traits::Float;
use rayon::prelude::*;

use super::lanes::{Lanes, Mask, and_not};
use crate::batch::layout::{
    HAS_EQUALITY, HAS_FORCING, HAS_NONLINEAR, HAS_STIFFNESS, HealthCounters, IN_CONTACT, NON_FINITE, NOT_CONVERGED,
    SceneHeader,
};
use crate::batch::{BatchOptions, SceneBatch};

/// Scenes stepped together in the lanes of one group.
pub const LANES: usize = 8;

/// The evolving arrays of a batch in value type `T`, and its health.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchState<T> {
    /// q then v of every scene.
    pub state: Vec<T>,
    /// Per-scene counters.
    pub counters: Vec<HealthCounters>,
    /// Per scene: worst LCP residual, then deepest penetration max(−y).
    pub extremes: Vec<T>,
}

impl<T: Float> BatchState<T> {
    /// The initial state of `batch`, converted to `T`.
    pub fn new(batch: &SceneBatch) -> Self {
        let cast = |x: f64| T::from(x).unwrap_or_else(T::nan);
        Self {
            state: batch.state.iter().map(|&x| cast(x)).collect(),
            counters: vec![HealthCounters::default(); batch.len()],
            extremes: vec![T::min_value(); 2 * batch.len()],
        }
    }
}

/// Advances every scene of `batch` by `steps` steps (scenes are independent: this is the
/// loop the GPU runs one invocation per scene). `operators` is `batch.operators` in `T`.
pub fn run<T: Float + Send + Sync>(
    batch: &SceneBatch,
    operators: &[T],
    state: &mut BatchState<T>,
    steps: u32,
    options: &BatchOptions,
) {
    let cast = |x: f64| T::from(x).unwrap_or_else(T::nan);
    let step = Step {
        h: cast(batch.h),
        theta: cast(batch.theta),
        gamma: cast(batch.gamma),
        t0: batch.t0,
        tolerance: cast(options.tolerance),
        newton_tolerance: cast(options.newton_tolerance),
        steps,
        max_iterations: options.max_iterations,
        newton_max_iterations: options.newton_max_iterations,
    };
    // Split the arrays into the disjoint parts of each group, then step the groups in parallel.
    let mut parts = Vec::new();
    let (mut values, mut counters, mut extremes) = (
        state.state.as_mut_slice(),
        state.counters.as_mut_slice(),
        state.extremes.as_mut_slice(),
    );
    for group in groups(&batch.headers) {
        let end = batch
            .headers
            .get(group.end)
            .map_or(batch.state.len(), |h| h.state_offset as usize);
        let start = batch.headers[group.start].state_offset as usize;
        let (v, rest) = std::mem::take(&mut values).split_at_mut(end - start);
        let (c, rest_c) = std::mem::take(&mut counters).split_at_mut(group.len());
        let (e, rest_e) = std::mem::take(&mut extremes).split_at_mut(2 * group.len());
        (values, counters, extremes) = (rest, rest_c, rest_e);
        parts.push((group, v, c, e));
    }
    parts
        .into_par_iter()
        .for_each_init(Vec::new, |scratch, (group, values, counters, extremes)| {
            let headers = &batch.headers[group];
            let (n, m) = (headers[0].ndof as usize, headers[0].ncontacts as usize);
            let len = SceneHeader::operator_len(n, m);
            // The group's operators, gathered once into lanes (padding lanes repeat the last scene).
            scratch.clear();
            scratch.extend((0..len).map(|k| {
                Lanes::<T, LANES>(from_fn(|l| {
                    operators[headers[l.min(headers.len() - 1)].operator_offset as usize + k]
                }))
            }));
            // Specialised (like the kernel's NONLINEAR constant) so that linear groups run
            // without the Newton loop's bookkeeping.
            let args = (headers, &scratch[..], values, counters, extremes, &step);
            match (
                headers[0].flags & HAS_NONLINEAR != 0,
                headers[0].flags & HAS_EQUALITY != 0,
            ) {
                (false, false) => simulate::<T, false, false>(args),
                (false, true) => simulate::<T, false, true>(args),
                (true, false) => simulate::<T, true, false>(args),
                (true, true) => simulate::<T, true, true>(args),
            }
        });
}

/// Consecutive runs of at most [`LANES`] scenes with the same sizes and flags.
fn groups(headers: &[SceneHeader]) -> Vec<Range<usize>> {
    let kind = |h: &SceneHeader| (h.ndof, h.ncontacts, h.flags);
    let mut groups: Vec<Range<usize>> = Vec::new();
    for (s, h) in headers.iter().enumerate() {
        match groups.last_mut() {
            Some(g) if g.len() < LANES && kind(&headers[g.start]) == kind(h) => g.end = s + 1,
            _ => groups.push(s..s + 1),
        }
    }
    groups
}

/// The constants of a run.
struct Step<T> {
    h: T,
    theta: T,
    gamma: T,
    t0: f64,
    tolerance: T,
    newton_tolerance: T,
    steps: u32,
    max_iterations: u32,
    newton_max_iterations: u32,
}

/// Steps the scenes of one group (equal sizes and flags, `headers.len() ≤ LANES`) in
/// lockstep. `values` is their packed q, v; `ops` their operators in lanes.
#[allow(clippy::type_complexity)]
fn simulate<T: Float, const NONLINEAR: bool, const EQUALITY: bool>(
    (headers, ops, values, counters, extremes, step): (
        &[SceneHeader],
        &[Lanes<T, LANES>],
        &mut [T],
        &mut [HealthCounters],
        &mut [T],
        &Step<T>,
    ),
) {
    let (n, m) = (headers[0].ndof as usize, headers[0].ncontacts as usize);
    let stiffness = headers[0].flags & HAS_STIFFNESS != 0;
    let forcing = headers[0].flags & HAS_FORCING != 0;
    let scenes = headers.len();
    let lane = |l: usize| l.min(scenes - 1);
    let (a, rest) = ops.split_at(n * n);
    let (b, rest) = rest.split_at(n * n);
    let (c, rest) = rest.split_at(n);
    let (g, rest) = rest.split_at(n * m);
    let (hm, rest) = rest.split_at(m * n);
    let (d, rest) = rest.split_at(m * m);
    let (offset, rest) = rest.split_at(m);
    let (e, rest) = rest.split_at(m);
    let (equality, rest) = rest.split_at(m);
    let (feedback, rest) = rest.split_at(m);
    let (c_harmonic, rest) = rest.split_at(n);
    let (frequency, rest) = rest.split_at(4);
    let (ym, rest) = rest.split_at(m * n);
    let (w_inv, spheres) = rest.split_at(n * n);
    let half = Lanes::splat(T::from(0.5).unwrap_or_else(T::one));
    let equality: Vec<Mask<LANES>> = equality.iter().map(|x| x.gt(half)).collect();
    // State and scratch in lanes: the kernel's private arrays. q, v, v_free, v_k, v^i, q^i: n
    // each; MLCP vector, its constant part, λ: m each; with nonlinear rows G, W⁻¹Gᵀ (m n), D
    // (m²) and the last input Gᵀλ (n) of the Newton iterate (fixed-size, so the hot loop never
    // allocates).
    let load = |k: usize| Lanes(from_fn(|l| values[2 * n * lane(l) + k]));
    let mut q: Vec<Lanes<T, LANES>> = (0..n).map(load).collect();
    let mut v: Vec<Lanes<T, LANES>> = (0..n).map(|i| load(n + i)).collect();
    let (mut vf, mut vk) = (vec![Lanes::zero(); n], vec![Lanes::zero(); n]);
    let (mut vi, mut qi) = (vec![Lanes::zero(); n], vec![Lanes::zero(); n]);
    let (mut lcp_q, mut lcp_base, mut lambda) =
        (vec![Lanes::zero(); m], vec![Lanes::zero(); m], vec![Lanes::zero(); m]);
    let quad = |len: usize| {
        if NONLINEAR {
            vec![Lanes::zero(); len]
        } else {
            Vec::new()
        }
    };
    let (mut gmat, mut wgmat, mut dmat, mut pold) = (quad(m * n), quad(n * m), quad(m * m), quad(n));
    let mut active: Vec<Mask<LANES>> = vec![[false; LANES]; m];
    let mut health = LaneHealth::load(from_fn(|l| counters[lane(l)]));
    let mut worst = Lanes(from_fn(|l| extremes[2 * lane(l)]));
    let mut deepest = Lanes(from_fn(|l| extremes[2 * lane(l) + 1]));
    let (zero, one, two) = (Lanes::zero(), Lanes::splat(T::one()), Lanes::splat(T::one() + T::one()));
    let (h, theta, gamma_h) = (
        Lanes::splat(step.h),
        Lanes::splat(step.theta),
        Lanes::splat(step.gamma * step.h),
    );
    let tol = step.tolerance;
    let t0 = T::from(step.t0).unwrap_or_else(T::nan);
    for _ in 0..step.steps {
        // v_free = v_k + c − A v_k − B q_k, c = c₀ + W⁻¹ h a [(1 − θ) cos(ω t_k + φ) + θ cos(ω t_{k+1} + φ)].
        let mut mix = zero;
        if forcing {
            let (omega, phase) = (frequency[0], frequency[1]);
            let time = |k: u32| t0 + T::from(k).unwrap_or_else(T::nan) * step.h;
            mix = Lanes(from_fn(|l| {
                let k = health.steps[l];
                let cos = |t: T| (omega.0[l] * t + phase.0[l]).cos();
                (T::one() - step.theta) * cos(time(k)) + step.theta * cos(time(k + 1))
            }));
        }
        for i in 0..n {
            let mut x = v[i] + if forcing { c[i] + c_harmonic[i] * mix } else { c[i] };
            if stiffness {
                for j in 0..n {
                    x = x - a[i * n + j] * v[j] - b[i * n + j] * q[j];
                }
            }
            vf[i] = x;
            vk[i] = v[i];
        }
        // y = H q + Y q² + b, ẏ = G(q_k) v; active ⇔ equality or y + γ h ẏ ≤ 0; vector
        // G v_free + (e ẏ + f y).
        for r in 0..m {
            let (mut y, mut ydot, mut hv) = (offset[r], zero, zero);
            for j in 0..n {
                let hrj = hm[r * n + j];
                if NONLINEAR {
                    let yrj = ym[r * n + j];
                    y = y + (hrj + yrj * q[j]) * q[j];
                    ydot = ydot + (hrj + two * yrj * q[j]) * v[j];
                } else {
                    y = y + hrj * q[j];
                    ydot = ydot + hrj * v[j];
                    hv = hv + hrj * vf[j];
                }
            }
            if NONLINEAR {
                // y += ‖x₁ − x₀‖, ẏ += n·(v₁ − v₀).
                let sphere = &spheres[6 * r..6 * r + 6];
                for l in 0..LANES {
                    let (d, dim) = separation(sphere, &q, l);
                    if dim > 0 {
                        let normal = unit(d);
                        let (i0, i1) = (sphere[1].0[l], sphere[2].0[l].to_usize().unwrap_or(0));
                        y.0[l] = y.0[l] + dot(d, d).sqrt();
                        for (k, nk) in normal.iter().enumerate().take(dim) {
                            let v0 = if i0 >= T::zero() {
                                v[i0.to_usize().unwrap_or(0) + k].0[l]
                            } else {
                                T::zero()
                            };
                            ydot.0[l] = ydot.0[l] + *nk * (v[i1 + k].0[l] - v0);
                        }
                    }
                }
            }
            let closing = (y + gamma_h * ydot).le(zero);
            lcp_base[r] = e[r] * ydot;
            if EQUALITY {
                deepest = Lanes::select(equality[r], deepest, deepest.max(zero - y));
                active[r] = from_fn(|l| closing[l] | equality[r][l]);
                lcp_base[r] = lcp_base[r] + feedback[r] * y;
            } else {
                deepest = deepest.max(zero - y);
                active[r] = closing;
            }
            lcp_q[r] = hv + lcp_base[r];
            lambda[r] = zero;
        }
        // Newton iterations (one pass without nonlinear rows), as in the kernel; a lane that
        // has converged keeps its v^i and λ while the others iterate.
        if NONLINEAR {
            vi.copy_from_slice(&vk);
        }
        let mut settled = [false; LANES];
        let mut newton = 0;
        loop {
            if NONLINEAR {
                for i in 0..n {
                    qi[i] = q[i] + h * ((one - theta) * vk[i] + theta * vi[i]);
                }
                // G(q^i) row by row, and how far it moves the last input Gᵀλ.
                for j in 0..n {
                    let mut p = zero;
                    for r in 0..m {
                        p = p + gmat[r * n + j] * lambda[r];
                    }
                    pold[j] = p;
                }
                for r in 0..m {
                    for j in 0..n {
                        let gnew = hm[r * n + j] + two * ym[r * n + j] * qi[j];
                        gmat[r * n + j] = Lanes::select(settled, gmat[r * n + j], gnew);
                    }
                    let sphere = &spheres[6 * r..6 * r + 6];
                    for l in (0..LANES).filter(|&l| !settled[l]) {
                        let (d, dim) = separation(sphere, &qi, l);
                        let (i0, i1) = (sphere[1].0[l], sphere[2].0[l].to_usize().unwrap_or(0));
                        for (k, nk) in unit(d).iter().enumerate().take(dim) {
                            gmat[r * n + i1 + k].0[l] = gmat[r * n + i1 + k].0[l] + *nk;
                            if i0 >= T::zero() {
                                let i0 = i0.to_usize().unwrap_or(0);
                                gmat[r * n + i0 + k].0[l] = gmat[r * n + i0 + k].0[l] - *nk;
                            }
                        }
                    }
                }
                let mut change = zero;
                for j in 0..n {
                    let mut p = zero;
                    for r in 0..m {
                        p = p + gmat[r * n + j] * lambda[r];
                    }
                    change = change + (pold[j] - p) * (pold[j] - p);
                }
                if newton > 0 {
                    let limit = step.newton_tolerance * step.newton_tolerance;
                    settled = from_fn(|l| settled[l] || change.0[l] <= limit);
                }
                if settled.iter().all(|&x| x) {
                    break;
                }
                if newton >= step.newton_max_iterations {
                    health.not_converged = from_fn(|l| health.not_converged[l] || !settled[l]);
                    break;
                }
                for i in 0..n {
                    for r in 0..m {
                        let mut x = zero;
                        for j in 0..n {
                            x = x + w_inv[i * n + j] * gmat[r * n + j];
                        }
                        wgmat[i * m + r] = x;
                    }
                }
                for r in 0..m {
                    let mut hv = zero;
                    for j in 0..n {
                        hv = hv + gmat[r * n + j] * vf[j];
                    }
                    for k in 0..m {
                        let mut x = zero;
                        for j in 0..n {
                            x = x + gmat[r * n + j] * wgmat[j * m + k];
                        }
                        dmat[r * m + k] = x;
                    }
                    lcp_q[r] = Lanes::select(settled, lcp_q[r], hv + lcp_base[r]);
                    lambda[r] = Lanes::select(settled, lambda[r], zero);
                }
            }
            let (dd, wg) = if NONLINEAR { (&dmat[..], &wgmat[..]) } else { (d, g) };
            // PGS sweeps; a lane stops sweeping once its own error is within the tolerance.
            let mut error = lcp_error::<T, EQUALITY>(dd, &lcp_q, &active, &equality, &lambda);
            let within_now = within(error, tol);
            let mut done = if NONLINEAR {
                from_fn(|l| settled[l] || within_now[l])
            } else {
                within_now
            };
            let mut sweeps = [0u32; LANES];
            let mut iteration = 0;
            while !done.iter().all(|&x| x) && iteration < step.max_iterations {
                for r in 0..m {
                    let mut w = lcp_q[r];
                    for k in 0..m {
                        w = w + dd[r * m + k] * lambda[k];
                    }
                    let free = lambda[r] - w / dd[r * m + r];
                    let updated = if EQUALITY {
                        Lanes::select(equality[r], free, free.max(zero))
                    } else {
                        free.max(zero)
                    };
                    lambda[r] = Lanes::select(and_not(active[r], done), updated, lambda[r]);
                }
                for l in 0..LANES {
                    sweeps[l] += u32::from(!done[l]);
                }
                iteration += 1;
                error = lcp_error::<T, EQUALITY>(dd, &lcp_q, &active, &equality, &lambda);
                let now = within(error, tol);
                done = from_fn(|l| done[l] || now[l]);
            }
            let solved = if NONLINEAR {
                from_fn(|l| !settled[l])
            } else {
                [true; LANES]
            };
            worst = if NONLINEAR {
                Lanes::select(solved, worst.max(residual(error)), worst)
            } else {
                worst.max(residual(error))
            };
            health.record_solve(solved, done, sweeps);
            // v^i = v_free + W⁻¹Gᵀ λ.
            for i in 0..n {
                let mut x = vf[i];
                for r in 0..m {
                    x = x + wg[i * m + r] * lambda[r];
                }
                vi[i] = if NONLINEAR { Lanes::select(settled, vi[i], x) } else { x };
            }
            newton += 1;
            if !NONLINEAR {
                break;
            }
        }
        // v_{k+1} = v^i,  q_{k+1} = q_k + h (θ v_{k+1} + (1 − θ) v_k).
        for i in 0..n {
            q[i] = q[i] + h * (theta * vi[i] + (one - theta) * vk[i]);
            v[i] = vi[i];
        }
        // Impacts are counted on contact rows only.
        let mut loaded = [false; LANES];
        for (r, x) in lambda.iter().enumerate() {
            let contact = |l: usize| !EQUALITY || !equality[r][l];
            loaded = from_fn(|l| loaded[l] | (x.0[l] > T::zero() && contact(l)));
        }
        health.record(loaded);
    }
    let health = health.store();
    for l in 0..scenes {
        let mut c = health[l];
        if !q.iter().chain(v.iter()).all(|x| x.0[l].is_finite()) {
            c.flags |= NON_FINITE;
        }
        for i in 0..n {
            values[2 * n * l + i] = q[i].0[l];
            values[2 * n * l + n + i] = v[i].0[l];
        }
        counters[l] = c;
        extremes[2 * l] = worst.0[l];
        extremes[2 * l + 1] = deepest.0[l];
    }
}

/// The separation x₁ − x₀ of a sphere–sphere row (its 6 operators: dim, i₀ (−1: the fixed
/// centre c), i₁, c) in lane `l` of coordinates x, and its dimension (0: not such a row).
fn separation<T: Float>(sphere: &[Lanes<T, LANES>], x: &[Lanes<T, LANES>], l: usize) -> ([T; 3], usize) {
    let dim = sphere[0].0[l].to_usize().unwrap_or(0);
    let (i0, i1) = (sphere[1].0[l], sphere[2].0[l].to_usize().unwrap_or(0));
    let mut d = [T::zero(); 3];
    for (k, dk) in d.iter_mut().enumerate().take(dim) {
        let x0 = if i0 >= T::zero() {
            x[i0.to_usize().unwrap_or(0) + k].0[l]
        } else {
            sphere[3 + k].0[l]
        };
        *dk = x[i1 + k].0[l] - x0;
    }
    (d, dim)
}

fn dot<T: Float>(a: [T; 3], b: [T; 3]) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// d / ‖d‖ (zero when d is).
fn unit<T: Float>(d: [T; 3]) -> [T; 3] {
    let norm = dot(d, d).sqrt();
    if norm > T::zero() {
        d.map(|x| x / norm)
    } else {
        [T::zero(); 3]
    }
}

/// [`HealthCounters`] of a group, lane-wise (updated without branches in the time loop).
struct LaneHealth {
    counters: [HealthCounters; LANES],
    steps: [u32; LANES],
    impacts: [u32; LANES],
    contact_steps: [u32; LANES],
    last_impact: [u32; LANES],
    max_iterations: [u32; LANES],
    in_contact: Mask<LANES>,
    not_converged: Mask<LANES>,
}

impl LaneHealth {
    fn load(counters: [HealthCounters; LANES]) -> Self {
        Self {
            steps: counters.map(|c| c.steps),
            impacts: counters.map(|c| c.impacts),
            contact_steps: counters.map(|c| c.contact_steps),
            last_impact: counters.map(|c| c.last_impact),
            max_iterations: counters.map(|c| c.max_iterations),
            in_contact: counters.map(|c| c.in_contact()),
            not_converged: counters.map(|c| c.flags & NOT_CONVERGED != 0),
            counters,
        }
    }

    /// The sweeps and convergence of one MLCP solve, in the lanes that solved it.
    fn record_solve(&mut self, solved: Mask<LANES>, converged: Mask<LANES>, sweeps: [u32; LANES]) {
        for l in 0..LANES {
            if solved[l] {
                self.max_iterations[l] = self.max_iterations[l].max(sweeps[l]);
                self.not_converged[l] |= !converged[l];
            }
        }
    }

    /// The lane-wise [`HealthCounters::record_contact`] of the step just completed.
    fn record(&mut self, loaded: Mask<LANES>) {
        for (l, &loaded) in loaded.iter().enumerate() {
            let onset = loaded & !self.in_contact[l];
            self.steps[l] += 1;
            self.contact_steps[l] += u32::from(loaded);
            self.impacts[l] += u32::from(onset);
            self.last_impact[l] = if onset { self.steps[l] } else { self.last_impact[l] };
            self.in_contact[l] = loaded;
        }
    }

    fn store(&self) -> [HealthCounters; LANES] {
        from_fn(|l| {
            let c = self.counters[l];
            let flags = (c.flags & !(IN_CONTACT | NOT_CONVERGED))
                | if self.in_contact[l] { IN_CONTACT } else { 0 }
                | if self.not_converged[l] { NOT_CONVERGED } else { 0 };
            HealthCounters {
                impacts: self.impacts[l],
                contact_steps: self.contact_steps[l],
                last_impact: self.last_impact[l],
                max_iterations: self.max_iterations[l],
                flags,
                steps: self.steps[l],
            }
        })
    }
}

/// Siconos's error ‖λ − max(0, λ − w)‖ / ‖q‖ over the active rows (w = q + D λ; w itself on
/// the `equality` rows when EQUALITY), as the squares (‖·‖², ‖q‖²): the sweeps compare squares,
/// without roots.
fn lcp_error<T: Float, const EQUALITY: bool>(
    d: &[Lanes<T, LANES>],
    lcp_q: &[Lanes<T, LANES>],
    active: &[Mask<LANES>],
    equality: &[Mask<LANES>],
    lambda: &[Lanes<T, LANES>],
) -> (Lanes<T, LANES>, Lanes<T, LANES>) {
    let m = lcp_q.len();
    let zero = Lanes::zero();
    let (mut err, mut norm) = (zero, zero);
    for r in 0..m {
        let mut w = lcp_q[r];
        for k in 0..m {
            w = w + d[r * m + k] * lambda[k];
        }
        let projected = lambda[r] - (lambda[r] - w).max(zero);
        let x = if EQUALITY {
            Lanes::select(equality[r], w, projected)
        } else {
            projected
        };
        err = Lanes::select(active[r], err + x * x, err);
        norm = Lanes::select(active[r], norm + lcp_q[r] * lcp_q[r], norm);
    }
    (err, norm)
}

/// Whether the error is within `tol`: ‖·‖² ≤ tol² ‖q‖² (relative) when ‖q‖ > ε, else
/// ‖·‖² ≤ tol²; false for NaN.
fn within<T: Float>((err, norm): (Lanes<T, LANES>, Lanes<T, LANES>), tol: T) -> Mask<LANES> {
    let eps = T::epsilon() * T::epsilon();
    from_fn(|l| {
        let scale = if norm.0[l] > eps { norm.0[l] } else { T::one() };
        err.0[l] <= tol * tol * scale
    })
}

/// Siconos's error from its squares.
fn residual<T: Float>((err, norm): (Lanes<T, LANES>, Lanes<T, LANES>)) -> Lanes<T, LANES> {
    let eps = T::epsilon() * T::epsilon();
    Lanes(from_fn(|l| {
        let scale = if norm.0[l] > eps { norm.0[l] } else { T::one() };
        (err.0[l] / scale).sqrt()
    }))
}
