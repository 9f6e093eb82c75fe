//! The health counters of a lane group, updated without branches in the time loop: the
//! lane-wise form of [`HealthCounters`] (the kernel updates its scene's counters in
//! `record_health`, `solve_local`, `newton_jacobian` and `store_scene`).

use std::array::from_fn;

use crate::batch::layout::{HealthCounters, IN_CONTACT, NOT_CONVERGED};
use crate::contact::lanes::{LANES, Mask, any};

/// The onsets of the step just recorded: 1 in the lanes where an impact began.
pub(super) struct Onsets(pub(super) [u32; LANES]);

impl Onsets {
    /// Whether an impact began in some lane.
    #[inline(always)]
    pub(super) fn any(&self) -> bool {
        self.0.iter().fold(0, |a, &b| a | b) != 0
    }
}

/// [`HealthCounters`] of a group, lane-wise, in u32 arithmetic without branches so that the
/// lanes stay in vector registers (flags as 0 or 1).
pub(super) struct LaneHealth {
    counters: [HealthCounters; LANES],
    /// Steps completed before this run, per lane; and the steps taken in it (every lane's).
    steps: [u32; LANES],
    taken: u32,
    impacts: [u32; LANES],
    contact_steps: [u32; LANES],
    last_impact: [u32; LANES],
    max_iterations: [u32; LANES],
    /// 1 where a contact carried an impulse in the last step.
    in_contact: [u32; LANES],
    /// 1 where some solve or Newton loop did not converge.
    not_converged: [u32; LANES],
}

impl LaneHealth {
    #[inline(always)]
    pub(super) fn load(counters: [HealthCounters; LANES]) -> Self {
        Self {
            steps: counters.map(|c| c.steps),
            taken: 0,
            impacts: counters.map(|c| c.impacts),
            contact_steps: counters.map(|c| c.contact_steps),
            last_impact: counters.map(|c| c.last_impact),
            max_iterations: counters.map(|c| c.max_iterations),
            in_contact: counters.map(|c| u32::from(c.in_contact())),
            not_converged: counters.map(|c| u32::from(c.flags & NOT_CONVERGED != 0)),
            counters,
        }
    }

    /// Steps completed, per lane.
    #[inline(always)]
    pub(super) fn steps(&self) -> [u32; LANES] {
        self.steps.map(|s| s + self.taken)
    }

    /// Flags the lanes whose Newton loop ran out of iterations.
    #[inline(always)]
    pub(super) fn record_newton_failure(&mut self, failed: Mask<LANES>) {
        self.not_converged = from_fn(|l| self.not_converged[l] | u32::from(failed[l]));
    }

    /// The sweeps and convergence of one MLCP solve, in the lanes that solved it.
    #[inline(always)]
    pub(super) fn record_solve(&mut self, solved: Mask<LANES>, converged: Mask<LANES>, sweeps: [u32; LANES]) {
        for l in 0..LANES {
            if solved[l] {
                self.max_iterations[l] = self.max_iterations[l].max(sweeps[l]);
                self.not_converged[l] |= u32::from(!converged[l]);
            }
        }
    }

    /// The lane-wise [`HealthCounters::record_contact`] of the step just completed; returns
    /// its onsets.
    #[inline(always)]
    pub(super) fn record(&mut self, loaded: Mask<LANES>) -> Onsets {
        if !any(loaded) && self.in_contact.iter().fold(0, |a, &b| a | b) == 0 {
            self.taken += 1;
            return Onsets([0; LANES]);
        }
        self.taken += 1;
        // (Plain loops: `from_fn` here was left out of line, a baseline-SSE2 call every step
        // of a contact.)
        let mut onset = [0; LANES];
        for l in 0..LANES {
            let loaded = u32::from(loaded[l]);
            onset[l] = loaded & !self.in_contact[l] & 1;
            self.contact_steps[l] += loaded;
            self.impacts[l] += onset[l];
            // last_impact = the step just completed where an impact began, else as it was.
            let keep = onset[l].wrapping_sub(1);
            self.last_impact[l] = (self.last_impact[l] & keep) | ((self.steps[l] + self.taken) & !keep);
            self.in_contact[l] = loaded;
        }
        Onsets(onset)
    }

    /// After [`LaneHealth::record`] of a located step (which found `onsets`): in the lanes with
    /// located impacts (`times` distinct times), they are its impacts (the count before it,
    /// plus `times`) and it is the last impact's step; the lanes where an onset the scheme
    /// applied at the step's end was counted instead.
    #[inline(always)]
    pub(super) fn record_located(&mut self, onsets: &Onsets, times: [u32; LANES]) -> Mask<LANES> {
        let step = self.taken;
        let mut applied = [false; LANES];
        for l in 0..LANES {
            if times[l] > 0 {
                self.impacts[l] = self.impacts[l] - onsets.0[l] + times[l];
                self.last_impact[l] = self.steps[l] + step;
            } else {
                applied[l] = onsets.0[l] != 0;
            }
        }
        applied
    }

    #[inline(always)]
    pub(super) fn store(&self) -> [HealthCounters; LANES] {
        from_fn(|l| {
            let c = self.counters[l];
            let flags = (c.flags & !(IN_CONTACT | NOT_CONVERGED))
                | if self.in_contact[l] != 0 { IN_CONTACT } else { 0 }
                | if self.not_converged[l] != 0 { NOT_CONVERGED } else { 0 };
            HealthCounters {
                impacts: self.impacts[l],
                contact_steps: self.contact_steps[l],
                last_impact: self.last_impact[l],
                max_iterations: self.max_iterations[l],
                flags,
                steps: self.steps[l] + self.taken,
            }
        })
    }
}
