//! The batched Moreau–Jean stepper on the CPU: the same stages, the same order of operations
//! and the same data layout as the WGSL kernel `shaders/moreau_jean_pgs.wgsl`, generic over
//! f32 and f64. It is the kernel's CPU twin (for cross-checks and machines without a GPU).
//!
//! Per scene and step (operators from [`crate::assemble::LinearScene`]):
//! ```text
//!   v_free = v_k + c − A v_k − B q_k
//!   y = H q_k + b,  ẏ = H v_k,  active ⇔ y + γ h ẏ ≤ 0
//!   PGS on the active rows of 0 ≤ λ ⟂ D λ + H v_free + e ẏ ≥ 0 until Siconos's error ≤ tol
//!   v_{k+1} = v_free + W⁻¹Hᵀ λ,   q_{k+1} = q_k + h (θ v_{k+1} + (1−θ) v_k)
//! ```

use num_traits::Float;

use crate::assemble::SceneBatch;
use crate::assemble::layout::{HAS_STIFFNESS, HealthCounters, NON_FINITE, NOT_CONVERGED, SceneHeader};

/// Tolerance and sweep limit of the batched PGS.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchOptions {
    /// Stop PGS when Siconos's error is ≤ this (1e-6 suits f32, 1e-12 f64).
    pub tolerance: f64,
    /// At most this many sweeps per step.
    pub max_iterations: u32,
}

impl BatchOptions {
    /// The default for a value type: tolerance 1e-6 (f32) or 1e-12 (f64), 200 sweeps.
    pub fn for_precision(double: bool) -> Self {
        Self {
            tolerance: if double { 1e-12 } else { 1e-6 },
            max_iterations: 200,
        }
    }
}

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
pub fn run<T: Float>(
    batch: &SceneBatch,
    operators: &[T],
    state: &mut BatchState<T>,
    steps: u32,
    options: &BatchOptions,
) {
    let cast = |x: f64| T::from(x).unwrap_or_else(T::nan);
    let coefficients = [
        cast(batch.h),
        cast(batch.theta),
        cast(batch.gamma),
        cast(options.tolerance),
    ];
    // Scratch, the kernel's private arrays: v_free, v_k (n each), LCP vector, flags, λ (m each).
    let (n_max, m_max) = batch.max_sizes();
    let mut scratch = vec![T::zero(); 2 * n_max + 3 * m_max];
    for (s, hd) in batch.headers.iter().enumerate() {
        let (n, m) = (hd.ndof as usize, hd.ncontacts as usize);
        let ops = &operators[hd.operator_offset as usize..][..SceneHeader::operator_len(n, m)];
        let qv = &mut state.state[hd.state_offset as usize..][..2 * n];
        let work = &mut scratch[..2 * n + 3 * m];
        let extremes = &mut state.extremes[2 * s..2 * s + 2];
        simulate(
            hd,
            ops,
            qv,
            work,
            &mut state.counters[s],
            extremes,
            coefficients,
            steps,
            options.max_iterations,
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn simulate<T: Float>(
    hd: &SceneHeader,
    ops: &[T],
    qv: &mut [T],
    work: &mut [T],
    counters: &mut HealthCounters,
    extremes: &mut [T],
    [h, theta, gamma, tol]: [T; 4],
    steps: u32,
    max_iterations: u32,
) {
    let (n, m) = (hd.ndof as usize, hd.ncontacts as usize);
    let (a, rest) = ops.split_at(n * n);
    let (b, rest) = rest.split_at(n * n);
    let (c, rest) = rest.split_at(n);
    let (g, rest) = rest.split_at(n * m);
    let (hm, rest) = rest.split_at(m * n);
    let (d, rest) = rest.split_at(m * m);
    let (offset, e) = rest.split_at(m);
    let (q, v) = qv.split_at_mut(n);
    let (vf, rest) = work.split_at_mut(n);
    let (vk, rest) = rest.split_at_mut(n);
    let (lcp_q, rest) = rest.split_at_mut(m);
    let (active, lambda) = rest.split_at_mut(m);
    let one = T::one();
    for _ in 0..steps {
        for i in 0..n {
            let mut x = v[i] + c[i];
            if hd.flags & HAS_STIFFNESS != 0 {
                for j in 0..n {
                    x = x - a[i * n + j] * v[j] - b[i * n + j] * q[j];
                }
            }
            vf[i] = x;
            vk[i] = v[i];
        }
        for r in 0..m {
            let (mut y, mut ydot, mut hv) = (offset[r], T::zero(), T::zero());
            for j in 0..n {
                y = y + hm[r * n + j] * q[j];
                ydot = ydot + hm[r * n + j] * v[j];
                hv = hv + hm[r * n + j] * vf[j];
            }
            extremes[1] = extremes[1].max(-y);
            active[r] = if y + gamma * h * ydot <= T::zero() {
                one
            } else {
                T::zero()
            };
            lcp_q[r] = hv + e[r] * ydot;
            lambda[r] = T::zero();
        }
        let mut residual = lcp_error(d, lcp_q, active, lambda);
        let mut sweeps = 0;
        while !within(residual, tol) && sweeps < max_iterations {
            for r in (0..m).filter(|&r| active[r] > T::zero()) {
                let mut w = lcp_q[r];
                for k in 0..m {
                    w = w + d[r * m + k] * lambda[k];
                }
                lambda[r] = (lambda[r] - w / d[r * m + r]).max(T::zero());
            }
            sweeps += 1;
            residual = lcp_error(d, lcp_q, active, lambda);
        }
        counters.max_iterations = counters.max_iterations.max(sweeps);
        extremes[0] = extremes[0].max(residual);
        if !within(residual, tol) {
            counters.flags |= NOT_CONVERGED;
        }
        for i in 0..n {
            let mut x = vf[i];
            for r in 0..m {
                x = x + g[i * m + r] * lambda[r];
            }
            q[i] = q[i] + h * (theta * x + (one - theta) * vk[i]);
            v[i] = x;
        }
        if lambda.iter().any(|&l| l > T::zero()) {
            counters.impacts += 1;
        }
        counters.steps += 1;
    }
    if !q.iter().chain(v.iter()).all(|x| x.is_finite()) {
        counters.flags |= NON_FINITE;
    }
}

/// `residual ≤ tol`, false for NaN (so a NaN residual counts as not converged).
fn within<T: Float>(residual: T, tol: T) -> bool {
    residual <= tol
}

/// Siconos's error ‖λ − max(0, λ − w)‖ / ‖q‖ over the active rows, w = q + D λ.
fn lcp_error<T: Float>(d: &[T], lcp_q: &[T], active: &[T], lambda: &[T]) -> T {
    let m = lcp_q.len();
    let (mut err, mut norm) = (T::zero(), T::zero());
    for r in (0..m).filter(|&r| active[r] > T::zero()) {
        let mut w = lcp_q[r];
        for k in 0..m {
            w = w + d[r * m + k] * lambda[k];
        }
        let x = lambda[r] - (lambda[r] - w).max(T::zero());
        err = err + x * x;
        norm = norm + lcp_q[r] * lcp_q[r];
    }
    let (err, norm) = (err.sqrt(), norm.sqrt());
    if norm > T::epsilon() { err / norm } else { err }
}
