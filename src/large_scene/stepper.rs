//! [`Stepper`]: what takes a large scene's steps — the host's stages around any
//! [`ContactSolver`], or an engine that holds the scene itself between broad phases (the
//! device's whole step, `gpu::GpuScene`).

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
