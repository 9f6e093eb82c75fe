//! The local solve of a lane group's step and what follows it: PGS sweeps on the MLCP with
//! Siconos's error as the stop, the velocity v = v_free + W⁻¹Gᵀλ and the position update.
//! Twins of the kernel functions of the same names in `shaders/moreau_jean_stages.wgsl`.

use std::array::from_fn;

use num_traits::Float;

use super::super::moreau_jean_rows::{
    EQUALITY as EQUALITY_ROW, Stored, TANGENT, equality_row, friction_block, is_normal, lcp_error, normal_row,
    residual, row_kind, within,
};
use super::{Group, L};
use crate::batch::sparsity::Rows;
use crate::contact::lanes::{LANES, Lanes, Mask, all, and, and_not};

impl<T: Float, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>
    Group<'_, T, NONLINEAR, EQUALITY, N, M>
{
    /// PGS sweeps over the active rows (equality rows unprojected), at least one where a row
    /// is active, until Siconos's error is within the tolerance, each lane stopping on its own; then the solve's health.
    /// Kernel: `solve_local`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn solve_local(&mut self) {
        self.solve(self.o.delassus, NONLINEAR);
    }

    /// PGS as [`Group::solve_local`] with the scene's Delassus matrix at `delassus` (or the
    /// iterate's with nonlinear rows); `masked`: only in the lanes not `settled`.
    /// Kernel: `solve_local` (one invocation is one lane: nothing to mask).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn solve(&mut self, delassus: usize, masked: bool) {
        let (m, tol) = (self.m(), self.step.tolerance);
        // D: the Newton iterate's own with nonlinear rows or a located sub-step's with W(τ),
        // else the scene's (the kernel's d_at).
        let dd = if NONLINEAR || self.span_built() {
            Stored::new(&self.dmat, Rows::Dense(m))
        } else {
            Stored::new(&self.ops[delassus..], self.d_rows())
        };
        let (lcp_q, active, rows, mu) = (&self.lcp_q[..m], &self.active[..m], self.rows, self.mu);
        let lambda = &mut self.lambda;
        let zero = Lanes::zero();
        // A lane with an active row sweeps at least once, as Siconos's solvers do: λ = 0 is
        // never taken on the error alone, which for a huge μ (De Saxcé's ŵ_N = w_N + μ‖w_T‖)
        // or a huge ‖q‖ (whose square overflows) says "within" of a contact never pushed.
        let idle: Mask<LANES> = active.iter().fold([true; LANES], |idle, &a| and_not(idle, a));
        // In free flight (no active row in any lane) λ = 0 solves the MLCP, its error is
        // (0, 0) and its residual √(0/1) = 0: none of them is computed.
        let flight = all(idle);
        let mut error = if flight {
            (zero, zero)
        } else {
            lcp_error(dd, lcp_q, active, (rows, mu), lambda)
        };
        let mut now = within(error, tol);
        let start = and(now, idle);
        let mut done = if masked {
            from_fn(|l| self.settled[l] || start[l])
        } else {
            start
        };
        let (mut sweeps, mut iteration) = ([0u32; LANES], 0);
        while !all(done) && iteration < self.step.max_iterations {
            for r in 0..m {
                let kind = row_kind(rows, r);
                if is_normal(kind) {
                    friction_block(dd, lcp_q, mu, lambda, r, kind as usize, and_not(active[r], done));
                    continue;
                }
                if kind == TANGENT {
                    continue;
                }
                let w = dd.row_dot(r, lcp_q[r], lambda);
                let diagonal = dd.at(r, r);
                let updated = if kind == EQUALITY_ROW {
                    equality_row(lambda[r], w, diagonal)
                } else {
                    normal_row(lambda[r], w, diagonal)
                };
                lambda[r] = Lanes::select(and_not(active[r], done), updated, lambda[r]);
            }
            for l in 0..LANES {
                sweeps[l] += u32::from(!done[l]);
            }
            iteration += 1;
            error = lcp_error(dd, lcp_q, active, (rows, mu), lambda);
            now = within(error, tol);
            done = from_fn(|l| done[l] || now[l]);
        }
        // As the kernel: converged when the error is within, swept or not (max_iterations = 0).
        let done: Mask<LANES> = from_fn(|l| done[l] || now[l]);
        let solved = if masked {
            self.settled.map(|s| !s)
        } else {
            [true; LANES]
        };
        let residual = if flight { zero } else { residual(error) };
        self.worst = if masked {
            Lanes::select(solved, self.worst.max(residual), self.worst)
        } else {
            self.worst.max(residual)
        };
        self.health.record_solve(solved, done, sweeps);
    }

    /// v^i = v_free + W⁻¹Gᵀ λ (kept in the lanes whose Newton loop has stopped).
    /// Kernel: `impulse_to_velocity`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn impulse_to_velocity(&mut self) {
        self.impulse(self.o.w_inv_ht, NONLINEAR);
    }

    /// v^i = v_free + W⁻¹Gᵀ λ with the scene's W⁻¹Hᵀ at `w_inv_ht` (or the iterate's with
    /// nonlinear rows); `masked`: kept in the lanes `settled`. Kernel: `impulse_to_velocity`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn impulse(&mut self, w_inv_ht: usize, masked: bool) {
        let (n, m, ops) = (self.n(), self.m(), self.ops);
        // W⁻¹Gᵀ: the Newton iterate's own with nonlinear rows or a located sub-step's with
        // W(τ), else the scene's (the kernel's wg_at).
        let wg: &[L<T>] = if NONLINEAR || self.span_built() {
            &self.wgmat
        } else {
            &ops[w_inv_ht..]
        };
        if let rows @ Rows::Compressed(..) = self.h_rows()
            && !NONLINEAR
        {
            // Stored transposed by P_H: each λ_r scattered onto its dofs, so that every v_j
            // adds its terms in the order of r, as the dense sum does (a compressed scene is
            // linear Moreau–Jean: never masked).
            self.vi[..n].copy_from_slice(&self.vf[..n]);
            for r in 0..m {
                for p in rows.span(r) {
                    let j = rows.col(r, p);
                    self.vi[j] = self.vi[j] + wg[p] * self.lambda[r];
                }
            }
            return;
        }
        for i in 0..n {
            let mut x = self.vf[i];
            for r in 0..m {
                x = x + wg[i * m + r] * self.lambda[r];
            }
            self.vi[i] = if masked {
                Lanes::select(self.settled, self.vi[i], x)
            } else {
                x
            };
        }
    }

    /// v_{k+1} = v^i,  q_{k+1} = q_k + h (θ v_{k+1} + (1 − θ) v_k). Kernel: `update_position`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn update_position(&mut self) {
        let (h, theta, one) = (
            self.span_length(),
            Lanes::splat(self.step.theta),
            Lanes::splat(T::one()),
        );
        for i in 0..self.n() {
            self.q[i] = self.q[i] + h * (theta * self.vi[i] + (one - theta) * self.vk[i]);
            self.v[i] = self.vi[i];
        }
    }
}
