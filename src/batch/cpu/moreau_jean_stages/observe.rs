//! The observe stage of a lane group: each observer's signal sampled at the current state and
//! folded into its accumulator ([`crate::batch::observe`]). Twin of the kernel's `observe`
//! (`shaders/observe.wgsl`).

use std::array::from_fn;

use num_traits::Float;

use super::super::lanes::Lanes;
use super::{Group, L, LANES};
use crate::batch::observe::{SLOTS, Signal, accumulate};

impl<T: Float, const NONLINEAR: bool, const EQUALITY: bool> Group<'_, T, NONLINEAR, EQUALITY> {
    /// Samples every observer's signal at the current q, v (λ: the last step's impulse) and
    /// folds it into its accumulator at the step count reached (`first`: the sample at t₀,
    /// which starts the accumulators). Kernel: `observe`.
    #[inline(always)]
    pub(in crate::batch::cpu) fn observe(&mut self, first: bool) {
        if self.observers.is_empty() {
            return;
        }
        let steps = self.health.steps();
        let k: L<T> = Lanes(from_fn(|l| T::from(steps[l]).unwrap_or_else(T::nan)));
        for (i, observer) in self.observers.iter().enumerate() {
            let s = match observer.signal {
                Signal::Q(j) => self.q[j],
                Signal::V(j) => self.v[j],
                Signal::Y(r) => self.row_output(r).0,
                Signal::Ydot(r) => self.row_output(r).1,
                Signal::Lambda(r) => self.lambda[r],
                // Refused before a batched run (`Job::check_batched`).
                Signal::Energy => Lanes::splat(T::nan()),
            };
            let slots = &mut self.observed[SLOTS * i..SLOTS * (i + 1)];
            for l in 0..LANES {
                let mut lane: [T; SLOTS] = from_fn(|x| slots[x].0[l]);
                accumulate(observer.accumulator(), &mut lane, s.0[l], k.0[l], self.step.h, first);
                for (slot, value) in slots.iter_mut().zip(lane) {
                    slot.0[l] = value;
                }
            }
        }
    }
}
