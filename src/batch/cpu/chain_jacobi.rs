//! The contact-parallel Moreau–Jean step of a [`BeadChain`] with relaxed Jacobi sweeps: the
//! CPU twin of `shaders/chain_jacobi.wgsl` (same stages, same order, f32 or f64).
//!
//! Per step (θ-method, W = m I, contact i between beads i−1 and i, see [`BeadChain`]):
//! ```text
//!   active_i ⇔ y_i + γ h ẏ_i ≤ 0,   q_i = H v_free + e ẏ_i,   λ⁰ = 0
//!   K sweeps, all contacts from the previous iterate (double-buffered):
//!       λ_i ← max(0, λ_i − ω w_i / D_ii),  w = q + D λ          (inactive: λ_i = 0)
//!   v_j ← v_j − h g + (λ_j − λ_{j+1}) / m,   z_j ← z_j + h (θ v_j⁺ + (1−θ) v_j)
//! ```
//! Relaxed Jacobi converges for ω < 2/ρ̄ with ρ̄ = 1 + 1/√2 + ½ the Gershgorin bound of the
//! scaled Delassus matrix, so ω < 0.9; the default is 0.6. With a fixed number of sweeps the
//! LCP of a long resting chain is not solved exactly: the step reports its worst
//! natural-map residual max_i |λ_i − max(0, λ_i − w_i)|.
//!
//! [`BeadChain`]: crate::batch::BeadChain

use num_traits::Float;

use crate::batch::{BeadChain, ChainOptions};

/// The chain's state in value type `T` and the worst residual seen.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainState<T> {
    /// Heights.
    pub z: Vec<T>,
    /// Velocities.
    pub v: Vec<T>,
    /// Worst natural-map residual of any step.
    pub residual: T,
}

impl<T: Float> ChainState<T> {
    /// The chain's initial state in `T`.
    pub fn new(chain: &BeadChain) -> Self {
        let cast = |x: &f64| T::from(*x).unwrap_or_else(T::nan);
        Self {
            z: chain.z.iter().map(cast).collect(),
            v: chain.v.iter().map(cast).collect(),
            residual: T::zero(),
        }
    }
}

/// Advances the chain `steps` steps.
pub fn run<T: Float>(chain: &BeadChain, state: &mut ChainState<T>, steps: u32, options: &ChainOptions) {
    let p = chain.params(options).map(|x| T::from(x).unwrap_or_else(T::nan));
    let (h, theta, gamma, omega) = (p.h, p.theta, p.gamma, p.omega);
    let (inv_m, r, g, e) = (p.inv_mass, p.radius, p.gravity, p.restitution);
    let n = chain.len();
    let (mut q, mut active) = (vec![T::zero(); n], vec![false; n]);
    let (mut lambda, mut next) = (vec![T::zero(); n], vec![T::zero(); n]);
    let diagonal = |i: usize| if i == 0 { inv_m } else { inv_m + inv_m };
    // w_i = q_i + D_i,i−1 λ_{i−1} + D_ii λ_i + D_i,i+1 λ_{i+1}
    let w = |i: usize, q: &[T], l: &[T]| {
        let below = if i > 0 { l[i - 1] } else { T::zero() };
        let above = if i + 1 < n { l[i + 1] } else { T::zero() };
        q[i] + diagonal(i) * l[i] - inv_m * (below + above)
    };
    for _ in 0..steps {
        for i in 0..n {
            let (y, ydot, hv) = if i == 0 {
                (state.z[0] - r, state.v[0], state.v[0] - h * g)
            } else {
                let d = state.v[i] - state.v[i - 1];
                (state.z[i] - state.z[i - 1] - r - r, d, d)
            };
            active[i] = y + gamma * h * ydot <= T::zero();
            q[i] = hv + e * ydot;
            lambda[i] = T::zero();
        }
        for _ in 0..options.sweeps {
            for i in 0..n {
                next[i] = if active[i] {
                    (lambda[i] - omega * w(i, &q, &lambda) / diagonal(i)).max(T::zero())
                } else {
                    T::zero()
                };
            }
            std::mem::swap(&mut lambda, &mut next);
        }
        for i in 0..n {
            if active[i] {
                let x = lambda[i] - (lambda[i] - w(i, &q, &lambda)).max(T::zero());
                state.residual = state.residual.max(x.abs());
            }
        }
        for j in 0..n {
            let above = if j + 1 < n { lambda[j + 1] } else { T::zero() };
            let v_new = state.v[j] - h * g + (lambda[j] - above) * inv_m;
            state.z[j] = state.z[j] + h * (theta * v_new + (T::one() - theta) * state.v[j]);
            state.v[j] = v_new;
        }
    }
}
