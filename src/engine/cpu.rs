//! The batched CPU engine: the kernel's twin (`batch::cpu::moreau_jean_pgs`) in f64 on all
//! cores, in SIMD lanes of the widest instruction set of this CPU (or the one
//! `RICOCHET_SIMD` names).

use super::{BatchOutcome, Engine, Job};
use crate::batch::cpu::moreau_jean_pgs::{self, BatchState};
use crate::batch::cpu::simd::Simd;
use crate::error::Result;

/// The CPU lanes in f64.
#[derive(Clone, Copy, Debug)]
pub struct CpuEngine {
    simd: Simd,
}

impl CpuEngine {
    /// On [`Simd::detect`]'s instruction set: the one `RICOCHET_SIMD` names, else the
    /// widest of this CPU.
    pub fn new() -> Self {
        Self::on(Simd::detect())
    }

    /// As [`CpuEngine::new`], with an error where `RICOCHET_SIMD` names an instruction set
    /// this CPU does not have ([`Simd::requested`]).
    pub fn requested() -> Result<Self> {
        Ok(Self::on(Simd::requested()?))
    }

    /// On the instruction set `simd` (the same bits on every one).
    pub fn on(simd: Simd) -> Self {
        Self { simd }
    }
}

impl Default for CpuEngine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine for CpuEngine {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn describe(&self) -> String {
        format!("cpu {} threads {} f64", rayon::current_num_threads(), self.simd.name())
    }

    fn double(&self) -> bool {
        true
    }

    fn run(&self, job: &Job<'_>) -> Result<BatchOutcome> {
        let batch = job.batch(1, true)?;
        let mut state = BatchState::<f64>::new(&batch);
        let options = job.batch_options(true);
        moreau_jean_pgs::run_on(
            self.simd,
            &batch,
            &batch.operators,
            &mut state,
            (job.steps, job.progress),
            &options,
        );
        Ok(BatchOutcome {
            state: state.state,
            counters: state.counters,
            extremes: state.extremes,
            observed: state.observed,
            impact_times: state.impact_times,
            device_seconds: None,
        })
    }
}
