//! The operators of a located sub-step of length τ in a scene whose W depends on the step's
//! length (stiffness or damping, [`SPAN_DYNAMICS`](crate::batch::layout::SPAN_DYNAMICS)):
//! built per lane from M, C, K, f₀ and a, as `LinearScene::reduce` builds the grid step's.

use std::array::from_fn;

use num_traits::Float;

use super::super::{Group, L, LANES};
use crate::batch::layout::SpanBlocks;
use crate::contact::lanes::{Lanes, Mask, any};

impl<'a, T: Float, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>
    Group<'a, T, NONLINEAR, EQUALITY, N, M>
{
    /// The operators of the span's sub-step of length τ (per lane) from M, C, K, f₀, a:
    /// ```text
    ///   W(τ) = M + θτ C + θ²τ² K,   A(τ) = W(τ)⁻¹ (τ C + θτ² K),   B(τ) = W(τ)⁻¹ τ K,
    ///   c(τ) = W(τ)⁻¹ τ f₀,   c_h(τ) = W(τ)⁻¹ τ a,   W(τ)⁻¹Hᵀ,   D(τ) = H W(τ)⁻¹ Hᵀ
    /// ```
    /// W(τ) is symmetric positive definite (M is, C and K are positive semi-definite: checked
    /// when the scene is reduced), so Gauss–Jordan elimination without pivoting solves
    /// W(τ) X = [τ (C + θτK) | τK | f₀ | a | Hᵀ] for them (c(τ), c_h(τ) then times τ):
    /// pivot k divides row k by W_kk, then row i ≠ k loses W_ik times it. A(τ), B(τ), c(τ),
    /// c_h(τ) go to `span_ops` ([`SpanBlocks`]), W(τ)⁻¹Hᵀ and D(τ) to the Newton iterate's
    /// `wgmat`, `dmat`, which the sub-step's stages read in place of the scene's. A lane
    /// whose sub-step is the whole step (τ = h) takes the scene's own operators instead, so
    /// that it is the grid step bit for bit; a frozen lane (τ = 0) gets W = M and A = B = 0, c = c_h = 0. Kernel:
    /// `span_operators`, and `span_built` (false where τ = h).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn span_operators(&mut self) {
        let (n, m, o, ops) = (self.n(), self.m(), self.o, self.ops);
        let blocks = SpanBlocks::new(n);
        let tau = self.span.as_ref().expect("a located group has a span").tau;
        let theta_tau = Lanes::splat(self.step.theta) * tau;
        let x = &mut self.span_ops;
        let wg = &mut self.wgmat;
        for i in 0..n {
            for j in 0..n {
                // C + θτK: W(τ) = M + θτ (C + θτK), A(τ)'s right side τ (C + θτK).
                let stiffened = ops[o.span_damping + i * n + j] + theta_tau * ops[o.span_stiffness + i * n + j];
                x[blocks.w + i * n + j] = ops[o.span_mass + i * n + j] + theta_tau * stiffened;
                x[blocks.a + i * n + j] = tau * stiffened;
                x[blocks.b + i * n + j] = tau * ops[o.span_stiffness + i * n + j];
            }
            x[blocks.c + i] = ops[o.span_force + i];
            x[blocks.c_harmonic + i] = ops[o.span_amplitude + i];
            for r in 0..m {
                wg[i * m + r] = ops[o.h + r * n + i];
            }
        }
        for k in 0..n {
            let pivot = x[blocks.w + k * n + k];
            for j in k + 1..n {
                x[blocks.w + k * n + j] = x[blocks.w + k * n + j] / pivot;
            }
            for j in 0..n {
                x[blocks.a + k * n + j] = x[blocks.a + k * n + j] / pivot;
                x[blocks.b + k * n + j] = x[blocks.b + k * n + j] / pivot;
            }
            x[blocks.c + k] = x[blocks.c + k] / pivot;
            x[blocks.c_harmonic + k] = x[blocks.c_harmonic + k] / pivot;
            for r in 0..m {
                wg[k * m + r] = wg[k * m + r] / pivot;
            }
            for i in (0..n).filter(|&i| i != k) {
                let f = x[blocks.w + i * n + k];
                for j in k + 1..n {
                    x[blocks.w + i * n + j] = x[blocks.w + i * n + j] - f * x[blocks.w + k * n + j];
                }
                for j in 0..n {
                    x[blocks.a + i * n + j] = x[blocks.a + i * n + j] - f * x[blocks.a + k * n + j];
                    x[blocks.b + i * n + j] = x[blocks.b + i * n + j] - f * x[blocks.b + k * n + j];
                }
                x[blocks.c + i] = x[blocks.c + i] - f * x[blocks.c + k];
                x[blocks.c_harmonic + i] = x[blocks.c_harmonic + i] - f * x[blocks.c_harmonic + k];
                for r in 0..m {
                    wg[i * m + r] = wg[i * m + r] - f * wg[k * m + r];
                }
            }
        }
        for r in 0..m {
            for s in 0..m {
                let mut d = Lanes::zero();
                for j in 0..n {
                    d = d + ops[o.h + r * n + j] * wg[j * m + s];
                }
                self.dmat[r * m + s] = d;
            }
        }
        for i in 0..n {
            self.span_ops[blocks.c + i] = tau * self.span_ops[blocks.c + i];
            self.span_ops[blocks.c_harmonic + i] = tau * self.span_ops[blocks.c_harmonic + i];
        }
        // A sub-step over the whole step is the grid step, bit for bit: the scene's own
        // operators where τ = h (the kernel takes them there, as the reference its cached W).
        let h = self.step.h;
        let grid: Mask<LANES> = from_fn(|l| tau.0[l] == h);
        if !any(grid) {
            return;
        }
        let keep = |x: &mut L<T>, stored: L<T>| *x = Lanes::select(grid, stored, *x);
        for k in 0..n * n {
            keep(&mut self.span_ops[blocks.a + k], ops[o.a + k]);
            keep(&mut self.span_ops[blocks.b + k], ops[o.b + k]);
        }
        for i in 0..n {
            keep(&mut self.span_ops[blocks.c + i], ops[o.c + i]);
            keep(&mut self.span_ops[blocks.c_harmonic + i], ops[o.c_harmonic + i]);
        }
        for k in 0..n * m {
            keep(&mut self.wgmat[k], ops[o.w_inv_ht + k]);
        }
        for k in 0..m * m {
            keep(&mut self.dmat[k], ops[o.delassus + k]);
        }
    }
}
