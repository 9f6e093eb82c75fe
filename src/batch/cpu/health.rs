//! The health counters of a lane group, updated without branches in the time loop: the
//! lane-wise form of [`HealthCounters`] (the kernel updates its scene's counters in
//! `record_health` and `solve_local`).

use std::array::from_fn;

use super::lanes::{LANES, Mask};
use crate::batch::layout::{HealthCounters, IN_CONTACT, NOT_CONVERGED};

/// [`HealthCounters`] of a group, lane-wise (updated without branches in the time loop).
pub(super) struct LaneHealth {
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
    #[inline(always)]
    pub(super) fn load(counters: [HealthCounters; LANES]) -> Self {
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

    /// Steps completed, per lane.
    #[inline(always)]
    pub(super) fn steps(&self) -> [u32; LANES] {
        self.steps
    }

    /// Flags the lanes whose Newton loop ran out of iterations.
    #[inline(always)]
    pub(super) fn record_newton_failure(&mut self, failed: Mask<LANES>) {
        self.not_converged = from_fn(|l| self.not_converged[l] || failed[l]);
    }

    /// The sweeps and convergence of one MLCP solve, in the lanes that solved it.
    #[inline(always)]
    pub(super) fn record_solve(&mut self, solved: Mask<LANES>, converged: Mask<LANES>, sweeps: [u32; LANES]) {
        for l in 0..LANES {
            if solved[l] {
                self.max_iterations[l] = self.max_iterations[l].max(sweeps[l]);
                self.not_converged[l] |= !converged[l];
            }
        }
    }

    /// The lane-wise [`HealthCounters::record_contact`] of the step just completed.
    #[inline(always)]
    pub(super) fn record(&mut self, loaded: Mask<LANES>) {
        for (l, &loaded) in loaded.iter().enumerate() {
            let onset = loaded & !self.in_contact[l];
            self.steps[l] += 1;
            self.contact_steps[l] += u32::from(loaded);
            self.impacts[l] += u32::from(onset);
            self.last_impact[l] = if onset { self.steps[l] } else { self.last_impact[l] };
            self.in_contact[l] = loaded;
        }
    }

    #[inline(always)]
    pub(super) fn store(&self) -> [HealthCounters; LANES] {
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
