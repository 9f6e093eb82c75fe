//! The Newton loop's stages of a lane group (nonlinear rows: quadratic terms, sphere–sphere
//! gaps, lever rows): the iterate's Jacobian G(q^i) and its operators W⁻¹Gᵀ, D = G W⁻¹Gᵀ.
//! Twins of the kernel functions of the same names in `shaders/moreau_jean_stages.wgsl`.

use std::array::from_fn;

use num_traits::Float;

use super::super::lever::add_lever_slope;
use super::super::sphere_rows::add_normal;
use super::{Group, L, LANES};
use crate::contact::lanes::{Lanes, Mask};

impl<T: Float, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>
    Group<'_, T, NONLINEAR, EQUALITY, N, M>
{
    /// Newton iterate i (nonlinear rows): q^i = q_k + h((1 − θ) v_k + θ v^{i−1}) (v⁰ = v_k; h
    /// a located sub-step's τ),
    /// G(q^i) row by row in the lanes still iterating, and whether every lane has stopped:
    /// the input of its last λ moved by at most the tolerance, ‖(G(q^{i−1}) − G(q^i))ᵀ λ‖ ≤
    /// tol (i > 0), or the iterations ran out (flagged). Kernel: `newton_jacobian`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn newton_jacobian(&mut self, newton: u32) -> bool {
        let n = self.n();
        if newton == 0 {
            self.vi.copy_from_slice(&self.vk);
            self.settled = [false; LANES];
        }
        let (h, theta) = (self.span_length(), Lanes::splat(self.step.theta));
        let one = Lanes::splat(T::one());
        for i in 0..n {
            self.qi[i] = self.q[i] + h * ((one - theta) * self.vk[i] + theta * self.vi[i]);
        }
        for j in 0..n {
            self.pold[j] = self.input_of_lambda(j);
        }
        self.jacobian(true);
        let mut change = Lanes::zero();
        for j in 0..n {
            let p = self.input_of_lambda(j);
            change = change + (self.pold[j] - p) * (self.pold[j] - p);
        }
        if newton > 0 {
            let limit = self.step.newton_tolerance * self.step.newton_tolerance;
            self.settled = from_fn(|l| self.settled[l] || change.0[l] <= limit);
        }
        if self.settled.iter().all(|&x| x) {
            return true;
        }
        if newton >= self.step.newton_max_iterations {
            self.health.record_newton_failure(self.settled.map(|s| !s));
            return true;
        }
        false
    }

    /// G(q) = H + 2 Y diag(q) + the sphere rows' normals + the lever rows' slopes, row by
    /// row, at q^i (`at_iterate`) or at q, in the lanes not `settled`. Kernel: `jacobian`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn jacobian(&mut self, at_iterate: bool) {
        for r in 0..self.m() {
            self.jacobian_row(r, at_iterate, self.settled);
        }
    }

    /// Row r of G ([`Group::jacobian`]) into `gmat`, at q^i (`at_iterate`) or at q, in the
    /// lanes not `settled` (the others keep theirs). Kernel: `jacobian_row`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn jacobian_row(&mut self, r: usize, at_iterate: bool, settled: Mask<LANES>) {
        let (n, o, ops) = (self.n(), self.o, self.ops);
        let two = Lanes::splat(T::one() + T::one());
        let q = if at_iterate { &self.qi } else { &self.q };
        for j in 0..n {
            let gnew = ops[o.h + r * n + j] + two * ops[o.quadratic + r * n + j] * q[j];
            self.gmat[r * n + j] = Lanes::select(settled, self.gmat[r * n + j], gnew);
        }
        add_normal(
            &ops[o.spheres + 6 * r..],
            q,
            &mut self.gmat[r * n..(r + 1) * n],
            settled,
        );
        add_lever_slope(&ops[o.lever + 3 * r..], q, &mut self.gmat[r * n..(r + 1) * n], settled);
    }

    /// (Gᵀλ)_j through the iterate's G.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn input_of_lambda(&self, j: usize) -> L<T> {
        let mut p = Lanes::zero();
        for r in 0..self.m() {
            p = p + self.gmat[r * self.n() + j] * self.lambda[r];
        }
        p
    }

    /// The operators of Newton iterate i: W⁻¹Gᵀ, D = G W⁻¹Gᵀ, and in the lanes still
    /// iterating the MLCP vector G v_free + (e ẏ + f y) and λ = 0. Kernel: `newton_operators`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn newton_operators(&mut self) {
        let (n, m) = (self.n(), self.m());
        self.iterate_operators(self.o.w_inv);
        for r in 0..m {
            let mut hv = Lanes::zero();
            for j in 0..n {
                hv = hv + self.gmat[r * n + j] * self.vf[j];
            }
            self.lcp_q[r] = Lanes::select(self.settled, self.lcp_q[r], hv + self.lcp_base[r]);
            self.lambda[r] = Lanes::select(self.settled, self.lambda[r], Lanes::zero());
        }
    }

    /// W⁻¹Gᵀ and D = G W⁻¹Gᵀ of the current G, with the W⁻¹ at `w_inv` (every lane).
    /// Kernel: `iterate_operators`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn iterate_operators(&mut self, w_inv: usize) {
        let (n, m, ops) = (self.n(), self.m(), self.ops);
        for i in 0..n {
            for r in 0..m {
                let mut x = Lanes::zero();
                for j in 0..n {
                    x = x + ops[w_inv + i * n + j] * self.gmat[r * n + j];
                }
                self.wgmat[i * m + r] = x;
            }
        }
        for r in 0..m {
            for k in 0..m {
                let mut x = Lanes::zero();
                for j in 0..n {
                    x = x + self.gmat[r * n + j] * self.wgmat[j * m + k];
                }
                self.dmat[r * m + k] = x;
            }
        }
    }
}
