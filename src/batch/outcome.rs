//! What a batch run leaves on the host: the final state and the per-scene health, read back
//! from the device.

use crate::batch::layout::{EXTREMES, HealthCounters, NON_FINITE, NOT_CONVERGED};
use crate::error::{Error, Result};

/// What a batch run leaves, widened to f64 and in the batch's layout.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchOutcome {
    /// q then v of every scene (as `SceneBatch::state`).
    pub state: Vec<f64>,
    /// Per-scene counters.
    pub counters: Vec<HealthCounters>,
    /// Per scene the [`EXTREMES`]: worst LCP residual, deepest penetration, worst cone
    /// violation.
    pub extremes: Vec<f64>,
    /// Per scene its record ([`Recording`](crate::batch::observe::Recording)): the
    /// accumulators of the job's observers, its stroboscopic samples and its impact events.
    pub observed: Vec<f64>,
    /// With impacts located inside the step (the reference engine's `locate_impacts`), per
    /// scene the time of its last impact — located, or an onset the scheme applied at a
    /// step's end — (NaN without one); empty otherwise, where
    /// [`HealthCounters::last_impact`] gives it to the step.
    pub impact_times: Vec<f64>,
    /// Seconds the device spent in the kernel's dispatches, where the adapter measures it
    /// (timestamp queries); `None` on the CPU engines and adapters without timestamps.
    pub device_seconds: Option<f64>,
}

impl BatchOutcome {
    /// The first unhealthy scene as an error naming it: a NaN or infinite state, or a step
    /// whose LCP missed `tolerance` (with the worst residual and the most sweeps).
    pub fn ensure_healthy(&self, tolerance: f64) -> Result<()> {
        for (s, c) in self.counters.iter().enumerate() {
            if c.flags & NON_FINITE != 0 {
                return Err(Error::NonFinite {
                    what: format!("batched scene {s}: state after the run"),
                });
            }
            if c.flags & NOT_CONVERGED != 0 {
                return Err(Error::NotConverged {
                    solver: "batched PGS".into(),
                    context: format!(" in scene {s}"),
                    iterations: c.max_iterations as usize,
                    residual: self.extremes[EXTREMES * s],
                    tolerance,
                });
            }
        }
        Ok(())
    }
}
