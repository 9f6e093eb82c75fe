//! The forces of a lane group's step: the harmonic F_ext's weight and the kick
//! v_free = v + c − A v − B q (Moreau–Jean's free velocity, RATTLE's half and end kicks).
//! Twins of the kernel functions of the same names in `shaders/moreau_jean_stages.wgsl`.

use std::array::from_fn;

use num_traits::Float;

use super::super::lever::sine_cosine;
use super::{Group, L};
use crate::batch::layout::{HAS_FORCING, HAS_STIFFNESS, SpanBlocks};
use crate::contact::lanes::Lanes;

impl<T: Float, const NONLINEAR: bool, const EQUALITY: bool, const N: usize, const M: usize>
    Group<'_, T, NONLINEAR, EQUALITY, N, M>
{
    /// (1 − θ) cos(ω t_k + φ) + θ cos(ω t_{k+1} + φ), the weight of the harmonic F_ext in this
    /// step ([`Group::step_cosine`]; zero without one). Kernel: `harmonic_forcing` (which
    /// carries the second cosine to the next step: the same bits).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn harmonic_forcing(&self) -> L<T> {
        if self.flags & HAS_FORCING == 0 {
            return Lanes::zero();
        }
        let theta = Lanes::splat(self.step.theta);
        (Lanes::splat(T::one()) - theta) * self.step_cosine(0) + theta * self.step_cosine(1)
    }

    /// cos(ω t + φ) at t = t_{k+ahead} of each lane's step k (of a located sub-step: its
    /// start, or its end when `ahead` = 1), 0 from the force's end on or without a harmonic
    /// F_ext (the kernel's cosine, `sine_cosine`). Kernel: `step_cosine`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn step_cosine(&self, ahead: u32) -> L<T> {
        if self.flags & HAS_FORCING == 0 {
            return Lanes::zero();
        }
        let (step, frequency) = (self.step, self.o.frequency);
        let (omega, phase, end) = (self.ops[frequency], self.ops[frequency + 1], self.ops[frequency + 2]);
        let steps = self.health.steps();
        let span = self.sub_span();
        Lanes(from_fn(|l| {
            let t = match span {
                None => step.t0 + T::from(steps[l] + ahead).unwrap_or_else(T::nan) * step.h,
                // A sub-step ending at t_k or t_{k+1} takes the grid's own time there, so that
                // a trial over the whole step is the grid step, bit for bit.
                Some(span) => {
                    let s = if ahead == 0 {
                        span.start.0[l]
                    } else {
                        span.start.0[l] + span.tau.0[l]
                    };
                    if s == T::zero() {
                        self.step_start(steps[l])
                    } else if s == step.h {
                        self.step_start(steps[l] + 1)
                    } else {
                        self.step_start(steps[l]) + s
                    }
                }
            };
            if t < end.0[l] {
                sine_cosine(omega.0[l] * t + phase.0[l]).1
            } else {
                T::zero()
            }
        }))
    }

    /// v_free = v_k + c − A v_k − B q_k, c = c₀ + W⁻¹ h a · mix; keeps v_k. Over a located
    /// sub-step of length τ: with W(τ)'s own operators where the scene's W depends on the
    /// step's length ([`Group::span_operators`]), else (W = M) with c · τ/h.
    /// Kernel: `free_velocity`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu) fn free_velocity(&mut self, mix: L<T>) {
        if self.span_built() {
            let (ops, blocks) = (std::mem::take(&mut self.span_ops), SpanBlocks::new(self.n()));
            self.kick_with(&ops, mix, (blocks.a, blocks.b, blocks.c, blocks.c_harmonic), false);
            self.span_ops = ops;
        } else {
            self.kick(mix, (self.o.a, self.o.b, self.o.c, self.o.c_harmonic));
        }
    }

    /// v_free = v + c − A v − B q with c = c₀ + c_h · mix, the scene's blocks (A, B, c₀, c_h)
    /// at the offsets `blocks`; keeps v in v_k. Kernel: `kick`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(in crate::batch::cpu::moreau_jean_stages) fn kick(&mut self, mix: L<T>, blocks: (usize, usize, usize, usize)) {
        self.kick_with(self.ops, mix, blocks, true);
    }

    /// The kick with the blocks of `ops`; `scaled`: c₀ and c_h are the grid step's, taken
    /// τ/h over a located sub-step. Kernel: `kick`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn kick_with(&mut self, ops: &[L<T>], mix: L<T>, (a, b, c0, ch): (usize, usize, usize, usize), scaled: bool) {
        let n = self.n();
        let forcing = self.flags & HAS_FORCING != 0;
        // (c₀ and c_h are h M⁻¹ F: a sub-step's are τ/h of them.)
        let share = self
            .sub_span()
            .filter(|_| scaled)
            .map(|span| span.tau / Lanes::splat(self.step.h));
        for i in 0..n {
            let c = ops[c0 + i];
            let c = if forcing { c + ops[ch + i] * mix } else { c };
            let mut x = self.v[i] + share.map_or(c, |share| c * share);
            if self.flags & HAS_STIFFNESS != 0 {
                for j in 0..n {
                    x = x - ops[a + i * n + j] * self.v[j] - ops[b + i * n + j] * self.q[j];
                }
            }
            self.vf[i] = x;
            self.vk[i] = self.v[i];
        }
    }
}
