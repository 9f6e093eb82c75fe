//! The stages of one batched nonsmooth RATTLE step on a lane group (Breuling et al. 2024, see
//! [`crate::scheme::nonsmooth_rattle`]; operators from
//! [`crate::batch::LinearScene::reduce_rattle`]):
//! ```text
//!   rattle_start  : ẏ⁻ = G(q_n) v_n; with nonlinear rows G_n, W½⁻¹G_nᵀ and the chord
//!                   matrix A = G_n W½⁻¹ G_nᵀ (else H, W½⁻¹Hᵀ and D½)
//!   kick          : v̄ = v_n − A v_n − B q_n + c(t_n)                         (half kick)
//!   stage1_rows   : q̄ = q_n + h v̄; the rows: equalities, contacts with y(q̄) ≤ 0; P¹ = 0
//!   stage 1, pass i = 0, 1, … (chord Newton–Josephy):
//!     stage1_residual : q^i = q_n + h v^i, v^i = v̄ + W½⁻¹G_nᵀ P^i; stop where max |y(q^i)|
//!                       (equalities, P^i > 0), max(−y, 0) (other contacts) ≤ tolerance
//!     stage1_solve    : PGS on A P + y(q^i)/h − A P^i from P^i, then v^{i+1}
//!   stage1_update : q_{n+1} = q_n + h v½; the closed set: equalities, and rows of stage 1
//!                   with P¹ > 0 or y(q_{n+1}) ≤ tolerance
//!   end_kick      : v* = v½ − A_e v½ − B_e q_{n+1} + c_e(t_{n+1}) − M⁻¹G_{n+1}ᵀ P¹; stage 2's
//!                   vector G_{n+1} v* + e ẏ⁻ on the closed set
//!   stage 2       : PGS with G_{n+1} M⁻¹ G_{n+1}ᵀ; v_{n+1} = v* + M⁻¹G_{n+1}ᵀ P
//! ```
//! λ is the step's total percussion P. A scene with no stage-1 row settles at pass 0 and has no
//! stage-2 row: the step is Störmer–Verlet with no solve (the free-flight fast path). Twins
//! of the kernel functions of the same names.

use std::array::from_fn;

use num_traits::Float;

use super::{Group, L, LANES};
use crate::contact::lanes::Lanes;

impl<T: Float, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>
    Group<'_, T, NONLINEAR, EQUALITY, N, M>
{
    /// ẏ⁻ = G(q_n) v_n of every row (kept for stage 2), the deepest penetration at q_n, and
    /// with nonlinear rows the stage-1 operators at q_n: G_n, W½⁻¹G_nᵀ and the chord matrix
    /// G_n W½⁻¹ G_nᵀ. Kernel: `rattle_start`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn rattle_start(&mut self) {
        let zero = Lanes::zero();
        for r in 0..self.m() {
            let (y, ydot) = self.row_output(r);
            if !self.is_equality(r) {
                self.deepest = self.deepest.max(zero - y);
            }
            self.rate[r] = ydot;
        }
        if NONLINEAR {
            self.settled = [false; LANES];
            self.jacobian(false);
            self.iterate_operators(self.o.w_inv);
        }
    }

    /// The half kick v̄ = v_n − A v_n − B q_n + c₀ + c_h cos(ω t_n + φ) into v_free.
    /// Kernel: `half_kick`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn half_kick(&mut self, cosine: L<T>) {
        let o = self.o;
        self.kick(cosine, (o.a, o.b, o.c, o.c_harmonic));
    }

    /// The drift q̄ = q_n + h v̄ and stage 1's rows: every equality, and the contacts with
    /// y(q̄) ≤ 0; P⁰ = 0, v⁰ = v̄ and every lane iterating. Kernel: `stage1_rows`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn stage1_rows(&mut self) {
        let (zero, h) = (Lanes::zero(), Lanes::splat(self.step.h));
        for i in 0..self.n() {
            self.qi[i] = self.q[i] + h * self.vf[i];
            self.vi[i] = self.vf[i];
        }
        for r in 0..self.m() {
            let (y, _) = self.row_output_at(r, &self.qi, &self.v);
            let candidate = y.le(zero);
            self.active[r] = if self.is_equality(r) { [true; LANES] } else { candidate };
            self.lambda[r] = zero;
        }
        self.settled = [false; LANES];
    }

    /// Iterate i = `iterate` of stage 1: q^i = q_n + h v^i, y(q^i) on stage 1's rows, and whether every
    /// lane has stopped: its residual (|y| on equalities and contacts with P^i > 0, max(−y, 0)
    /// on the others) is within the position tolerance, or the passes ran out (flagged).
    /// Keeps y(q^i) in the MLCP vector for [`Group::stage1_solve`].
    /// Kernel: `stage1_residual`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn stage1_residual(&mut self, iterate: u32) -> bool {
        let (zero, h) = (Lanes::zero(), Lanes::splat(self.step.h));
        for i in 0..self.n() {
            self.qi[i] = self.q[i] + h * self.vi[i];
        }
        let mut residual = zero;
        for r in 0..self.m() {
            let (y, _) = self.row_output_at(r, &self.qi, &self.v);
            let holds = self.lambda[r].gt(zero);
            let held = if self.is_equality(r) { [true; LANES] } else { holds };
            let off = Lanes::select(held, y.abs(), (zero - y).max(zero));
            residual = residual.max(Lanes::select(self.active[r], off, zero));
            self.lcp_q[r] = y;
        }
        let within = residual.le(Lanes::splat(self.step.position_tolerance));
        self.settled = from_fn(|l| self.settled[l] || within[l]);
        if self.settled.iter().all(|&x| x) {
            return true;
        }
        if iterate >= self.step.newton_max_iterations {
            self.health.record_newton_failure(self.settled.map(|s| !s));
            return true;
        }
        false
    }

    /// Stage 1's MLCP of pass i in the lanes still iterating: vector y(q^i)/h − A P^i (A the
    /// chord matrix, D½ for linear rows), solved by PGS from P^i; then v^{i+1} = v̄ +
    /// W½⁻¹G_nᵀ P^{i+1}. Kernel: `stage1_solve`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn stage1_solve(&mut self) {
        let (m, o, ops) = (self.m(), self.o, self.ops);
        let h = Lanes::splat(self.step.h);
        // The chord matrix with nonlinear rows, else the scene's D½ (as `solve` reads it).
        let dd: &[L<T>] = if NONLINEAR { &self.dmat } else { &ops[o.delassus..] };
        for r in 0..m {
            let mut ap = Lanes::zero();
            for k in 0..m {
                ap = ap + dd[r * m + k] * self.lambda[k];
            }
            self.lcp_q[r] = Lanes::select(self.settled, self.lcp_q[r], self.lcp_q[r] / h - ap);
        }
        self.solve(o.delassus, true);
        self.impulse(o.w_inv_ht, true);
    }

    /// The end of stage 1: v½ = v^i, q_{n+1} = q_n + h v½, P¹ = P^i, and the rows stage 2
    /// takes: the equalities, and the rows of stage 1 with P¹ > 0 or y(q_{n+1}) within the
    /// position tolerance. Kernel: `stage1_update`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn stage1_update(&mut self) {
        let (zero, h) = (Lanes::zero(), Lanes::splat(self.step.h));
        for i in 0..self.n() {
            self.q[i] = self.q[i] + h * self.vi[i];
            self.v[i] = self.vi[i];
        }
        let tol = Lanes::splat(self.step.position_tolerance);
        for r in 0..self.m() {
            let (y, _) = self.row_output(r);
            let (pushed, touching) = (self.lambda[r].gt(zero), y.le(tol));
            let closed: [bool; LANES] = from_fn(|l| self.active[r][l] & (pushed[l] | touching[l]));
            self.active[r] = if self.is_equality(r) { [true; LANES] } else { closed };
            self.p1[r] = self.lambda[r];
        }
    }

    /// The end kick v* = v½ − A_e v½ − B_e q_{n+1} + c_e₀ + c_eh cos(ω t_{n+1} + φ) −
    /// M⁻¹G_{n+1}ᵀ P¹ (G_{n+1}, M⁻¹G_{n+1}ᵀ and G_{n+1} M⁻¹ G_{n+1}ᵀ rebuilt with nonlinear
    /// rows), and stage 2's MLCP vector G_{n+1} v* + e ẏ⁻ with P = 0 in every lane.
    /// Kernel: `end_kick`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn end_kick(&mut self, cosine: L<T>) {
        let (n, m, o, ops) = (self.n(), self.m(), self.o, self.ops);
        self.kick(cosine, (o.end_a, o.end_b, o.end_c, o.end_c_harmonic));
        // Every lane takes part from here on (G and stage 2).
        self.settled = [false; LANES];
        if NONLINEAR {
            self.jacobian(false);
            self.iterate_operators(o.end_w_inv);
        }
        // G_{n+1} and M⁻¹G_{n+1}ᵀ: rebuilt with nonlinear rows, else the scene's H, M⁻¹Hᵀ.
        let (g, wg): (&[L<T>], &[L<T>]) = if NONLINEAR {
            (&self.gmat, &self.wgmat)
        } else {
            (&ops[o.h..], &ops[o.end_w_inv_ht..])
        };
        for i in 0..n {
            let mut x = self.vf[i];
            for r in 0..m {
                x = x - wg[i * m + r] * self.p1[r];
            }
            self.vf[i] = x;
        }
        for r in 0..m {
            let mut gv = Lanes::zero();
            for j in 0..n {
                gv = gv + g[r * n + j] * self.vf[j];
            }
            self.lcp_q[r] = gv + ops[o.restitution + r] * self.rate[r];
            self.lambda[r] = Lanes::zero();
        }
    }

    /// Stage 2: PGS on the closed rows with G_{n+1} M⁻¹ G_{n+1}ᵀ, then v_{n+1} = v* +
    /// M⁻¹G_{n+1}ᵀ P. Kernel: `stage2_solve`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn stage2_solve(&mut self) {
        let o = self.o;
        self.solve(o.end_delassus, true);
        self.impulse(o.end_w_inv_ht, true);
        for i in 0..self.n() {
            self.v[i] = self.vi[i];
        }
    }
}
