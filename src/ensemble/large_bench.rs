//! `ricochet bench` on a large-scene scenario: the first steps of its template scaled to a
//! size, timed on an engine and a thread count.

use super::large_scene::LargeScenario;
use crate::error::{Error, Result};
use crate::large_scene::{StageSeconds, Stepper};

/// One measurement of [`LargeScenario::bench`].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LargeBench {
    /// The scenario.
    pub scenario: String,
    /// `large-scene cpu` and its thread count.
    pub engine: String,
    /// Bodies in the scene.
    pub bodies: usize,
    /// Contacts active at the last step.
    pub contacts: usize,
    /// Steps timed.
    pub steps: u64,
    /// Their wall-clock seconds (the scene's build not included).
    pub seconds: f64,
    /// bodies × steps / seconds.
    pub body_steps_per_second: f64,
    /// Σ (active contacts × sweeps) / seconds.
    pub contact_iterations_per_second: f64,
    /// Mean sweeps per step.
    pub sweeps_per_step: f64,
    /// Where an engine that holds the scene on a device spent the time, by stage (absent
    /// for the host's stages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stages: Option<StageSeconds>,
}

impl LargeScenario {
    /// Times the first `steps` steps (at most the scenario's) of its template scaled to about
    /// `bodies` bodies ([`super::large_scene::LargeTemplate::scaled`]) on `threads` threads (all when `None`),
    /// solving on `solver`, named `engine` in the row.
    pub fn bench(
        &self,
        bodies: usize,
        steps: u64,
        threads: Option<usize>,
        (solver, engine): (&mut dyn Stepper, &str),
    ) -> Result<LargeBench> {
        let scaled = Self {
            large_scene: self.large_scene.scaled(bodies),
            ..self.clone()
        };
        let mut scene = scaled.build()?;
        let steps = steps.min(self.steps()).max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.unwrap_or(0))
            .build()
            .map_err(|e| Error::Unsupported {
                what: "bench: a thread pool".into(),
                reason: e.to_string(),
            })?;
        let before = solver.stage_seconds();
        let (iterations, sweeps, contacts, seconds) = pool.install(|| -> Result<_> {
            let started = std::time::Instant::now();
            let (mut iterations, mut sweeps, mut contacts) = (0.0, 0.0, 0);
            solver.advance(&mut scene, steps, &mut |report| {
                iterations += (report.active * report.sweeps) as f64;
                sweeps += report.sweeps as f64;
                contacts = report.active;
                true
            })?;
            Ok((iterations, sweeps, contacts, started.elapsed().as_secs_f64()))
        })?;
        let n = scene.bodies.len();
        Ok(LargeBench {
            scenario: self.name.clone(),
            engine: format!("{engine}, {} threads", pool.current_num_threads()),
            bodies: n,
            contacts,
            steps,
            seconds,
            body_steps_per_second: n as f64 * steps as f64 / seconds,
            contact_iterations_per_second: iterations / seconds,
            sweeps_per_step: sweeps / steps as f64,
            stages: solver
                .stage_seconds()
                .map(|after| after.since(&before.unwrap_or_default())),
        })
    }
}
