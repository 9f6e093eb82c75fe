//! A scenario's checks before anything runs: its time, solver, sizes, outputs and stopping
//! rule, and what nonsmooth RATTLE refuses — each error naming its key.

use super::super::settings::half;
use super::{Scenario, StabilizationChoice};
use crate::error::{Error, Result};
use crate::scheme::LagrangianIntegrator;
use crate::scheme::moreau_jean::MoreauJeanOSI;
use crate::validate;

impl Scenario {
    /// Checks the numbers and builds scene 0 (which checks the template's parameters).
    pub fn validate(&self) -> Result<()> {
        let t = &self.time;
        validate::scalar("time.step (h)", t.step, t.step > 0.0, "must be > 0")?;
        validate::scalar("time.final", t.final_time, t.final_time > 0.0, "must be > 0")?;
        // As `steps` counts: a final time within 10⁻⁹ h of a step is that step.
        if t.final_time / t.step < 1.0 - 1e-9 {
            return Err(Error::Scenario {
                what: "time".into(),
                reason: format!(
                    "the step h = {} is longer than the run (final = {}): the run would end at t = {}",
                    t.step, t.final_time, t.step
                ),
            });
        }
        MoreauJeanOSI::new(t.theta, t.gamma)?;
        self.stabilization().check()?;
        if t.integrator == LagrangianIntegrator::Rattle {
            self.check_rattle()?;
        }
        if t.locate_impacts && t.integrator != LagrangianIntegrator::MoreauJean {
            return Err(Error::Scenario {
                what: "time.locate_impacts".into(),
                reason: "impacts are located under Moreau–Jean only so far: drop `integrator = \"rattle\"` or the key"
                    .into(),
            });
        }
        if let Some(tol) = self.solver.tolerance {
            validate::scalar("solver.tolerance", tol, tol > 0.0, "must be > 0")?;
        }
        if let Some(omega) = self.solver.omega {
            validate::scalar(
                "solver.omega (relaxation)",
                omega,
                omega > 0.0 && omega < 2.0,
                "must be in (0, 2)",
            )?;
        }
        if self.scenes == 0 {
            return Err(Error::Scenario {
                what: "scenes".into(),
                reason: "must be ≥ 1".into(),
            });
        }
        crate::ensemble::formats::Format::check(&self.output.formats)?;
        if let Some(stop) = &self.stop {
            stop.validate(self.scenes)?;
        }
        if self.record.stride == 0 {
            return Err(Error::Scenario {
                what: "record.stride".into(),
                reason: "must be ≥ 1".into(),
            });
        }
        let steps = self.steps();
        if steps > u64::from(u32::MAX) {
            return Err(Error::Scenario {
                what: "time".into(),
                reason: format!("{steps} steps is more than 2³²; shorten the run or lengthen the step"),
            });
        }
        self.recording().map(|_| ())
    }

    /// Refuses what nonsmooth RATTLE has no use for instead of ignoring it: a θ or γ other
    /// than the default ½ (the scheme has neither), a stabilisation (its position projection
    /// holds the constraints), and a scene
    /// with first-order systems (RATTLE integrates Lagrangian systems; without it they run
    /// Euler–Moreau).
    fn check_rattle(&self) -> Result<()> {
        let t = &self.time;
        let refuse = |key: &str, reason: &str| {
            Err(Error::Scenario {
                what: format!("time.{key}"),
                reason: format!(
                    "{reason} with `integrator = \"rattle\"`: remove it, or use the Moreau–Jean integrator"
                ),
            })
        };
        if t.theta != half() {
            return refuse("theta", "nonsmooth RATTLE has no θ");
        }
        if t.gamma != half() {
            return refuse("gamma", "nonsmooth RATTLE has no γ");
        }
        if t.stabilization != StabilizationChoice::None {
            return refuse(
                "stabilization",
                "nonsmooth RATTLE needs no stabilisation (it projects positions onto the constraints)",
            );
        }
        let scene = self.sample(0)?.scene;
        if scene.nsds()?.systems().any(|(_, ds)| !ds.is_lagrangian()) {
            return refuse(
                "integrator",
                "this scene has first-order systems, which nonsmooth RATTLE does not integrate (they run Euler–Moreau)",
            );
        }
        Ok(())
    }
}
