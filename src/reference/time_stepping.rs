//! `TimeStepping`: the f64 reference driver. It owns the [`SceneState`] of one [`Nsds`],
//! advances it step by step with its [`Integrator`] (Moreau–Jean or nonsmooth RATTLE for
//! Lagrangian scenes, Euler–Moreau for first-order ones), stabilises the equality constraints and
//! records the output variables. What a caller reads and sets of the running scene is in
//! `readout`.

use nalgebra::DVector;

use super::euler_moreau_newton;
use super::impact_location;
use super::integrator::{Integrator, OneStepIntegrator, StepReport, StepSettings};
use super::projection;
use super::state::{SceneState, SchemeMemory};
use super::trajectory::{Sample, Trajectory};
use crate::error::{Error, Result};
use crate::model::relation::first_order_nonlinear::At;
use crate::model::{DsId, DynamicalSystem, InteractionId, NonSmoothLaw, Nsds, Relation};
use crate::numerics::friction::{FrictionOptions, FrictionSolver};
use crate::numerics::{SolverKind, SolverOptions};
use crate::scheme::{MoreauJeanOSI, NewtonOptions, Stabilization};
use crate::validate;

mod readout;

/// The time-stepping simulation of one scene.
pub struct TimeStepping {
    state: SceneState,
    integrator: Integrator,
    /// The LCP solver (default Lemke, as in Siconos).
    pub solver: SolverKind,
    /// Its options.
    pub solver_options: SolverOptions,
    /// The Newton loop's options (nonlinear scenes only).
    pub newton: NewtonOptions,
    /// What to do about the drift of holonomic equality constraints (default: nothing).
    pub stabilization: Stabilization,
    /// The friction-contact solver (`None`, the default: Siconos's kernel default, the dense
    /// NSGS in 2-D and NSGS in 3-D).
    pub friction_solver: Option<FrictionSolver>,
    /// Its options.
    pub friction_options: FrictionOptions,
    /// Go on past a step whose solver or Newton loop missed its tolerance, with its last
    /// iterate, flagged in [`TimeStepping::last_report`] (default: such a step is an error).
    /// A position projection that fails stays an error either way.
    pub lenient: bool,
    /// Locate each impact inside its step and apply it at its time (Moreau–Jean only;
    /// default off: every impact at the end of its step, as in Siconos). See
    /// [`TimeStepping::last_impacts`].
    pub locate_impacts: bool,
    last: StepReport,
}

impl TimeStepping {
    /// A simulation of `nsds` from time `t0` with step `h`.
    pub fn new(nsds: Nsds, integrator: Integrator, t0: f64, h: f64) -> Result<Self> {
        validate::scalar("time step h", h, h > 0.0, "must be > 0")?;
        validate::scalar("initial time t0", t0, true, "must be finite")?;
        let state = SceneState::new(nsds, t0, h);
        integrator.check(&state)?;
        Ok(Self {
            state,
            integrator,
            solver: SolverKind::default(),
            solver_options: SolverOptions::default(),
            newton: NewtonOptions::default(),
            stabilization: Stabilization::None,
            friction_solver: None,
            friction_options: FrictionOptions::default(),
            lenient: false,
            locate_impacts: false,
            last: StepReport::default(),
        })
    }

    /// Replaces the one-step integrator (checked against the scene), keeping the state and
    /// the settings: a scene's `simulation()` run with another scheme.
    pub fn set_integrator(&mut self, integrator: Integrator) -> Result<()> {
        integrator.check(&self.state)?;
        self.integrator = integrator;
        self.state.memory.integrator_changed();
        Ok(())
    }

    /// The settings the integrator solves its steps with.
    fn settings(&self) -> StepSettings {
        StepSettings {
            solver: self.solver,
            solver_options: self.solver_options,
            newton: self.newton,
            stabilization: self.stabilization,
            friction: self.friction_solver,
            friction_options: self.friction_options,
            lenient: self.lenient,
        }
    }

    /// Links a new interaction during the simulation (e.g. when a gap falls below an alert
    /// distance, as ColumnOfBeadsTS does).
    pub fn link(
        &mut self,
        name: &str,
        law: impl Into<NonSmoothLaw>,
        relation: impl Into<Relation>,
        systems: &[DsId],
    ) -> Result<InteractionId> {
        let id = self.state.nsds.link(name, law, relation, systems)?;
        let size = self.state.nsds.interactions()[id.0].size();
        self.state.lambda = self
            .state
            .lambda
            .clone()
            .resize_vertically(self.state.lambda.len() + size, 0.0);
        Ok(id)
    }

    /// Advances one step, then applies the [`Stabilization`] and measures the constraint
    /// residual. On error (a solver that did not converge, a singular matrix, a user closure
    /// returning NaN) the state is left at the start of the step.
    pub fn step(&mut self) -> Result<()> {
        self.stabilization.check()?;
        let s = &self.state;
        let saved = (
            s.q.clone(),
            s.v.clone(),
            s.p.clone(),
            s.lambda.clone(),
            s.k,
            // (Only the Newton memory is worth its copy: the others are rebuilt.)
            s.memory.newton().cloned(),
            s.impacts.clone(),
        );
        match self.advance() {
            Ok(report) => {
                self.last = report;
                Ok(())
            }
            Err(e) => {
                let s = &mut self.state;
                let newton;
                (s.q, s.v, s.p, s.lambda, s.k, newton, s.impacts) = saved;
                s.memory = newton.map_or(SchemeMemory::None, SchemeMemory::Newton);
                Err(e)
            }
        }
    }

    /// Whether this simulation's impacts can be located ([`TimeStepping::locate_impacts`]):
    /// under Moreau–Jean, without compliant relations or Baumgarte stabilisation; otherwise
    /// the refusal, naming what stands in the way.
    pub fn check_impact_location(&self) -> Result<()> {
        self.locating_osi().map(|_| ())
    }

    /// The Moreau–Jean integrator whose impacts are located, or the refusal
    /// ([`TimeStepping::check_impact_location`]).
    fn locating_osi(&self) -> Result<MoreauJeanOSI> {
        match self.integrator {
            Integrator::MoreauJean(osi) => impact_location::check(&self.state, &self.settings()).map(|()| osi),
            Integrator::EulerMoreau(_) => Err(Error::Unsupported {
                what: "impact location under Euler–Moreau".into(),
                reason: "a first-order system has no impacts to locate".into(),
            }),
            Integrator::NonsmoothRattle(_) => Err(Error::Unsupported {
                what: "impact location under nonsmooth RATTLE".into(),
                reason: "located impacts are Moreau–Jean's so far: run the scene with moreau-jean".into(),
            }),
        }
    }

    fn advance(&mut self) -> Result<StepReport> {
        let settings = self.settings();
        let mut report = if self.locate_impacts {
            let osi = self.locating_osi()?;
            impact_location::located_step(&mut self.state, &settings, osi)?
        } else {
            self.state.impacts.clear();
            self.integrator.step(&mut self.state, &settings)?
        };
        self.state.k += 1;
        report.constraint_residual = match self.stabilization {
            Stabilization::Projection {
                tolerance,
                max_iterations,
            } => {
                let (iterations, residual) = projection::project(&mut self.state, tolerance, max_iterations)?;
                report.projection_iterations = iterations;
                residual
            }
            _ => self.constraint_residual()?,
        };
        Ok(report)
    }

    /// max |g(q)| over the holonomic equality constraints now (0 when there are none).
    pub fn constraint_residual(&self) -> Result<f64> {
        Ok(projection::residuals(&self.state)?.0)
    }

    /// Steps until `t_final` (the number of steps is ⌈(t_final − t)/h⌉), appending the
    /// initial sample (if `trajectory` is empty), one sample after every step and the step's
    /// located impacts. What was
    /// recorded before an error stays in `trajectory`.
    pub fn run(&mut self, t_final: f64, trajectory: &mut Trajectory) -> Result<()> {
        let steps = self.steps_until(t_final)?;
        if trajectory.is_empty() {
            trajectory.samples.push(self.sample()?);
        }
        for _ in 0..steps {
            self.step()?;
            trajectory.samples.push(self.sample()?);
            trajectory.impacts.extend_from_slice(self.last_impacts());
        }
        Ok(())
    }

    /// The number of steps from now to `t_final`: ⌈(t_final − t)/h⌉ (a final time within
    /// 10⁻⁹ h of a grid time counts as that time).
    pub fn steps_until(&self, t_final: f64) -> Result<usize> {
        validate::scalar(
            "final time",
            t_final,
            t_final >= self.time(),
            "must be finite and ≥ the current time",
        )?;
        Ok(((t_final - self.time()) / self.state.h - 1e-9).ceil().max(0.0) as usize)
    }

    /// The output variables now.
    pub fn sample(&self) -> Result<Sample> {
        let (constraint_residual, velocity_residual) = projection::residuals(&self.state)?;
        let t = self.time();
        let (mut y, mut ydot) = (Vec::new(), Vec::new());
        let mut offset = 0;
        for inter in self.state.nsds.interactions() {
            let idx = self.state.indices(inter);
            let size = inter.size();
            let lambda = self.state.lambda.rows(offset, size);
            offset += size;
            let q = SceneState::gather(&idx, &self.state.q);
            if inter.relation.is_lagrangian() {
                let v = SceneState::gather(&idx, &self.state.v);
                let z = self.state.z_of(inter);
                let yi = match inter.relation.compliant_at(&q, &lambda.into_owned(), &z) {
                    Some(linearisation) => {
                        let linearisation = linearisation?;
                        linearisation.y0 + linearisation.d * lambda
                    }
                    None => inter.output(&q, &z, t)?,
                };
                y.extend(yi.iter());
                ydot.extend(inter.velocity(&q, &v, &z, t)?.iter());
            } else {
                let z = self.state.nsds.gather(&inter.systems, DynamicalSystem::z);
                let lambda = lambda.into_owned();
                let at = At {
                    t,
                    x: &q,
                    lambda: &lambda,
                    z: &z,
                };
                y.extend(euler_moreau_newton::output(inter, at, "")?.iter());
            }
        }
        Ok(Sample {
            t,
            q: self.state.q.clone(),
            v: self.state.v.clone(),
            p: self.state.p.clone(),
            y: DVector::from_vec(y),
            ydot: DVector::from_vec(ydot),
            lambda: self.state.lambda.clone(),
            energy: self.energy()?,
            constraint_residual,
            velocity_residual,
            z: DVector::from_vec(
                self.state
                    .nsds
                    .systems()
                    .flat_map(|(_, ds)| ds.z().iter().copied().collect::<Vec<_>>())
                    .collect(),
            ),
        })
    }

    /// Total mechanical energy of the Lagrangian systems (0 for first-order scenes).
    pub fn energy(&self) -> Result<f64> {
        self.state.nsds.energy(&self.state.q, &self.state.v)
    }
}
