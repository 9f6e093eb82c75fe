//! [`Stepper`]: what takes a large scene's steps — the host's stages around any
//! [`ContactSolver`], or an engine that holds the scene itself (the device's whole step,
//! `gpu::GpuScene`).

use super::scene::{LargeScene, StepReport};
use super::solve::ContactSolver;
use crate::Result;

/// Takes a large scene's steps and names itself.
pub trait Stepper: Send {
    /// The engine, as runs name it (e.g. `large-scene cpu`).
    fn engine(&self) -> String;

    /// Takes up to `steps` steps of `scene`, calling `each` with every step's report after
    /// the step; stops early after a step for which `each` returns false. The scene's
    /// state is current when it returns; after an error it is a state the scene had, the
    /// last step's (the host's stages) or where it went to a device (steps and time too).
    fn advance(&mut self, scene: &mut LargeScene, steps: u64, each: &mut dyn FnMut(StepReport) -> bool) -> Result<()>;

    /// Where an engine that holds the scene spent its time so far, stage by stage (`None`
    /// for the host's stages, which take no other time than the steps').
    fn stage_seconds(&self) -> Option<StageSeconds> {
        None
    }
}

/// The seconds an engine holding the scene on a device spent, by stage, since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct StageSeconds {
    /// Wall-clock seconds of the broad phases, on the device (their submits and reads) or
    /// on the host (the scene's trips from and back to the device included).
    pub broad_phase: f64,
    /// Device seconds (timestamp queries, where the adapter has them) of the stages before
    /// the sweeps: narrow phase, free velocity, q, warm start, the active count.
    pub before_sweeps: Option<f64>,
    /// Device seconds of the sweeps with their stopping tests.
    pub sweeps: Option<f64>,
    /// Device seconds of the stages after the sweeps: position update, discharge, report.
    pub after_sweeps: Option<f64>,
}

impl StageSeconds {
    /// The seconds spent since `earlier` (this engine's, read before).
    pub fn since(&self, earlier: &Self) -> Self {
        let less = |a: Option<f64>, b: Option<f64>| a.map(|a| a - b.unwrap_or(0.0));
        Self {
            broad_phase: self.broad_phase - earlier.broad_phase,
            before_sweeps: less(self.before_sweeps, earlier.before_sweeps),
            sweeps: less(self.sweeps, earlier.sweeps),
            after_sweeps: less(self.after_sweeps, earlier.after_sweeps),
        }
    }
}

/// The host's stages ([`LargeScene::step_on`]) with the stage `solve` on the solver.
impl<S: ContactSolver> Stepper for S {
    fn engine(&self) -> String {
        self.name()
    }

    fn advance(&mut self, scene: &mut LargeScene, steps: u64, each: &mut dyn FnMut(StepReport) -> bool) -> Result<()> {
        for _ in 0..steps {
            if !each(scene.step_on(self)?) {
                break;
            }
        }
        Ok(())
    }
}
