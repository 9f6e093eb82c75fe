//! The rows of a lane group at its state: each row's output y and rate ẏ, the size of its
//! terms, and the step's activation and MLCP vector. Twins of the kernel functions of the
//! same names in `shaders/moreau_jean_stages.wgsl`.

use num_traits::Float;

use super::super::lever::add_lever;
use super::super::moreau_jean_rows::{TANGENT, row_kind};
use super::super::sphere_rows::add_sphere_gap;
use super::{Group, L};
use crate::contact::lanes::{LANES, Lanes, and_not, lanewise};

impl<T: Float, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>
    Group<'_, T, NONLINEAR, EQUALITY, N, M>
{
    /// Row r's output y = H q + Y q² + b (+ ‖x₁ − x₀‖ on sphere rows, + a cos q_k + b sin q_k
    /// on lever rows) and its rate ẏ = G(q) v at the current q, v. Kernel: `row_output`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn row_output(&self, r: usize) -> (L<T>, L<T>) {
        self.row_output_at(r, &self.q, &self.v)
    }

    /// Row r's output and rate at (`q`, `v`) ([`Group::row_output`]). Kernel: `row_output_at`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn row_output_at(&self, r: usize, q: &[L<T>], v: &[L<T>]) -> (L<T>, L<T>) {
        let (n, o, ops) = (self.n(), self.o, self.ops);
        let two = Lanes::splat(T::one() + T::one());
        let (mut y, mut ydot) = (ops[o.offset + r], Lanes::zero());
        if !NONLINEAR {
            let rows = self.h_rows();
            for p in rows.span(r) {
                let (hrj, j) = (ops[o.h + p], rows.col(r, p));
                y = y + hrj * q[j];
                ydot = ydot + hrj * v[j];
            }
            return (y, ydot);
        }
        for j in 0..n {
            let hrj = ops[o.h + r * n + j];
            let yrj = ops[o.quadratic + r * n + j];
            y = y + (hrj + yrj * q[j]) * q[j];
            ydot = ydot + (hrj + two * yrj * q[j]) * v[j];
        }
        add_sphere_gap(&ops[o.spheres + 6 * r..], q, v, &mut y, &mut ydot);
        add_lever(&ops[o.lever + 3 * r..], q, v, &mut y, &mut ydot);
        (y, ydot)
    }

    /// Σⱼ |G_rj q_j|: the size of row r's terms at q, whose rounding bounds y's
    /// ([`rounding_floor`](crate::reference::rounding_floor)), with G = H on a linear row;
    /// a nonlinear row's G(q) is built in `gmat` (scratch between Newton loops: each
    /// iterate builds its own). Kernel: `output_terms`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn output_terms(&mut self, r: usize) -> L<T> {
        let (n, o, ops) = (self.n(), self.o, self.ops);
        let mut terms = Lanes::zero();
        if !NONLINEAR {
            let rows = self.h_rows();
            for p in rows.span(r) {
                terms = terms + (ops[o.h + p] * self.q[rows.col(r, p)]).abs();
            }
            return terms;
        }
        self.jacobian_row(r, false, [false; LANES]);
        for j in 0..n {
            terms = terms + (self.gmat[r * n + j] * self.q[j]).abs();
        }
        terms
    }

    /// Outputs y and ẏ of every row ([`Group::row_output`]) at q_k, v_k, activation
    /// (equality rows, or y + γ h ẏ ≤ 0), the deepest penetration, the MLCP vector
    /// G v_free + (e ẏ + f y) and λ = 0. Kernel: `outputs_and_activation`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn outputs_and_activation(&mut self) {
        let (m, o, ops, rows) = (self.m(), self.o, self.ops, self.h_rows());
        let zero = Lanes::zero();
        let gamma_h = match self.sub_span() {
            Some(span) => Lanes::splat(self.step.gamma) * span.tau,
            None => Lanes::splat(self.step.gamma * self.step.h),
        };
        for r in 0..m {
            let (y, ydot) = self.row_output(r);
            // H v_free of a linear row (a nonlinear one's comes with its Newton iterate's G).
            let mut hv = zero;
            if !NONLINEAR {
                for p in rows.span(r) {
                    hv = hv + ops[o.h + p] * self.vf[rows.col(r, p)];
                }
            }
            let kind = row_kind(self.rows, r);
            if kind == TANGENT {
                // A friction contact's tangent row: active with the row before it (its normal
                // row or first tangent), no gap (`SceneBatch::push` checks the layout).
                self.active[r] = self.active[r - 1];
            } else if self.is_equality(r) {
                self.active[r] = [true; LANES];
            } else {
                self.deepest = self.deepest.max(zero - y);
                self.active[r] = (y + gamma_h * ydot).le(zero);
            }
            if !self.rate.is_empty() {
                self.rate[r] = ydot;
            }
            self.lcp_base[r] = ops[o.restitution + r] * ydot;
            if let Some(span) = self.span.as_ref().filter(|_| self.spanning) {
                // A located sub-step's rows: left out, closed within its tolerance, plastic.
                let (closed, scheme) = ((y + span.tol * ydot.min(zero)).le(zero), self.active[r]);
                let test = lanewise(false, |l| if span.closed[r][l] { closed[l] } else { scheme[l] });
                self.active[r] = and_not(test, span.excluded[r]);
                self.lcp_base[r] = Lanes::select(span.plastic[r], zero, self.lcp_base[r]);
            }
            if EQUALITY {
                self.lcp_base[r] = self.lcp_base[r] + ops[o.feedback + r] * y;
            }
            self.lcp_q[r] = hv + self.lcp_base[r];
            self.lambda[r] = zero;
        }
    }
}
