//! `TimeStepping`: the f64 reference driver. It owns the state of one [`Nsds`], advances it
//! step by step with Moreau–Jean (Lagrangian scenes) or Euler–Moreau (first-order scenes),
//! and records the output variables.
//!
//! All vectors are global: the coordinates of every system concatenated in insertion order,
//! so the Delassus matrix `H W⁻¹ Hᵀ` couples interactions that share a system by itself.

use nalgebra::{DMatrix, DVector};

use super::projection::{self, Stabilization};
use super::trajectory::{Sample, Trajectory};
use crate::error::{Error, Result};
use crate::model::{CoordinateVectorOutputs, DsId, Interaction, InteractionId, NonSmoothLaw, Nsds, Relation, check};
use crate::solver::euler_moreau::EulerMoreauOSI;
use crate::solver::moreau_jean::{MoreauJeanOSI, NewtonOptions};
use crate::solver::{MixedLinearComplementarityProblem, SolverKind, SolverOptions, SolverReport, solve_mlcp};

/// The one-step integrator of a simulation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Integrator {
    /// Moreau–Jean, for Lagrangian systems.
    MoreauJean(MoreauJeanOSI),
    /// Euler–Moreau, for first-order systems.
    EulerMoreau(EulerMoreauOSI),
}

/// What the last step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Newton iterations (1 for linear scenes).
    pub newton_iterations: usize,
    /// The LCP report of the last Newton iteration (`None` when no interaction was active).
    pub lcp: Option<SolverReport>,
    /// Number of active interactions.
    pub active: usize,
    /// max |g(q_{k+1})| over the holonomic equality constraints after the step (0 if none).
    pub constraint_residual: f64,
    /// Newton iterations of the position projection (0 unless [`Stabilization::Projection`]).
    pub projection_iterations: usize,
}

/// The time-stepping simulation of one scene.
pub struct TimeStepping {
    pub(super) nsds: Nsds,
    pub(super) integrator: Integrator,
    pub(super) h: f64,
    t0: f64,
    pub(super) k: usize,
    pub(super) q: DVector<f64>,
    pub(super) v: DVector<f64>,
    pub(super) p: DVector<f64>,
    pub(super) lambda: DVector<f64>,
    offsets: Vec<usize>,
    /// The LCP solver (default Lemke, as in Siconos).
    pub solver: SolverKind,
    /// Its options.
    pub solver_options: SolverOptions,
    /// The Newton loop's options (nonlinear scenes only).
    pub newton: NewtonOptions,
    /// What to do about the drift of holonomic equality constraints (default: nothing).
    pub stabilization: Stabilization,
    pub(super) cached_w: Option<nalgebra::LU<f64, nalgebra::Dyn, nalgebra::Dyn>>,
    pub(super) last: StepReport,
}

impl TimeStepping {
    /// A simulation of `nsds` from time `t0` with step `h`.
    pub fn new(nsds: Nsds, integrator: Integrator, t0: f64, h: f64) -> Result<Self> {
        check::scalar("time step h", h, h > 0.0, "must be > 0")?;
        check::scalar("initial time t0", t0, true, "must be finite")?;
        match integrator {
            Integrator::MoreauJean(osi) => drop(MoreauJeanOSI::new(osi.theta, osi.gamma)?),
            Integrator::EulerMoreau(osi) => drop(EulerMoreauOSI::new(osi.theta)?),
        }
        let lagrangian = matches!(integrator, Integrator::MoreauJean(_));
        if let Some((name, _)) = nsds.systems().find(|(_, ds)| ds.is_lagrangian() != lagrangian) {
            return Err(Error::Unsupported {
                what: format!("dynamical system `{name}`"),
                reason: "Moreau–Jean integrates Lagrangian systems, Euler–Moreau first-order ones".into(),
            });
        }
        let mut offsets = Vec::new();
        let (mut q, mut v) = (Vec::new(), Vec::new());
        for (_, ds) in nsds.systems() {
            offsets.push(q.len());
            let (q0, v0) = ds.initial_state();
            q.extend(q0.iter());
            v.extend(v0.iter());
        }
        let n = q.len();
        let m = nsds.interactions().iter().map(Interaction::size).sum();
        Ok(Self {
            nsds,
            integrator,
            h,
            t0,
            k: 0,
            q: DVector::from_vec(q),
            v: DVector::from_vec(v),
            p: DVector::zeros(n),
            lambda: DVector::zeros(m),
            offsets,
            solver: SolverKind::default(),
            solver_options: SolverOptions::default(),
            newton: NewtonOptions::default(),
            stabilization: Stabilization::None,
            cached_w: None,
            last: StepReport::default(),
        })
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
        let id = self.nsds.link(name, law, relation, systems)?;
        let size = self.nsds.interactions()[id.0].size();
        self.lambda = self.lambda.clone().resize_vertically(self.lambda.len() + size, 0.0);
        Ok(id)
    }

    /// Current time t_k = t0 + k h.
    pub fn time(&self) -> f64 {
        self.time_at(self.k)
    }

    pub(super) fn time_at(&self, k: usize) -> f64 {
        self.t0 + k as f64 * self.h
    }

    /// Steps taken.
    pub fn steps(&self) -> usize {
        self.k
    }

    /// The scene.
    pub fn nsds(&self) -> &Nsds {
        &self.nsds
    }

    /// Coordinates of system `id` (q or x).
    pub fn q(&self, id: DsId) -> DVector<f64> {
        let n = self.nsds.system(id).dimension();
        self.q.rows(self.offsets[id.0], n).into_owned()
    }

    /// Velocity of Lagrangian system `id`.
    pub fn v(&self, id: DsId) -> DVector<f64> {
        if self.v.is_empty() {
            return DVector::zeros(0);
        }
        self.v
            .rows(self.offsets[id.0], self.nsds.system(id).dimension())
            .into_owned()
    }

    /// Replaces the state by `qv` = (q, v) of all systems, concatenated (to continue a run
    /// from a state saved elsewhere).
    pub fn set_state(&mut self, qv: &[f64]) -> Result<()> {
        let n = self.q.len();
        if qv.len() != 2 * n {
            return Err(Error::Dimension {
                what: "TimeStepping::set_state: (q, v)".into(),
                expected: (2 * n).to_string(),
                got: qv.len().to_string(),
            });
        }
        self.q.copy_from_slice(&qv[..n]);
        self.v.copy_from_slice(&qv[n..]);
        Ok(())
    }

    /// The impulses λ of the last step, interaction by interaction.
    pub fn lambda(&self) -> &DVector<f64> {
        &self.lambda
    }

    /// The coordinates, velocities (of the interaction's systems, concatenated) and last
    /// impulse λ of interaction `id`.
    pub fn interaction_state(&self, id: InteractionId) -> (DVector<f64>, DVector<f64>, DVector<f64>) {
        let interactions = self.nsds.interactions();
        let offset: usize = interactions[..id.0].iter().map(Interaction::size).sum();
        let inter = &interactions[id.0];
        let idx = self.indices(inter);
        let lambda = self.lambda.rows(offset, inter.size()).into_owned();
        (Self::gather(&idx, &self.q), Self::gather(&idx, &self.v), lambda)
    }

    /// Exudyn's output variables of the coordinate-vector constraint `id`: displacement,
    /// velocity, constraint equation and force.
    pub fn coordinate_vector_outputs(&self, id: InteractionId) -> Result<CoordinateVectorOutputs> {
        let Relation::CoordinateVector(constraint) = &self.nsds.interactions()[id.0].relation else {
            return Err(self.not_coordinate_vector(id));
        };
        let (q, v, lambda) = self.interaction_state(id);
        Ok(constraint.outputs(&q, &v, &lambda, self.time(), self.h))
    }

    /// Switches the coordinate-vector constraint `id` on or off (off: λ = 0).
    pub fn set_active(&mut self, id: InteractionId, active: bool) -> Result<()> {
        let error = self.not_coordinate_vector(id);
        match &mut self.nsds.interaction_mut(id).relation {
            Relation::CoordinateVector(constraint) => {
                constraint.set_active(active);
                Ok(())
            }
            _ => Err(error),
        }
    }

    fn not_coordinate_vector(&self, id: InteractionId) -> Error {
        Error::Unsupported {
            what: format!("interaction `{}`", self.nsds.interactions()[id.0].name),
            reason: "is not a coordinate-vector constraint".into(),
        }
    }

    /// What the last step did.
    pub fn last_report(&self) -> StepReport {
        self.last
    }

    /// Global indices of an interaction's coordinates (its systems concatenated).
    pub(super) fn indices(&self, inter: &Interaction) -> Vec<usize> {
        inter
            .systems
            .iter()
            .flat_map(|id| {
                let start = self.offsets[id.0];
                start..start + self.nsds.system(*id).dimension()
            })
            .collect()
    }

    /// The entries `idx` of a global vector (an interaction's local coordinates).
    pub(super) fn gather(idx: &[usize], x: &DVector<f64>) -> DVector<f64> {
        DVector::from_iterator(idx.len(), idx.iter().map(|&i| x[i]))
    }

    /// Advances one step, then applies the [`Stabilization`] and measures the constraint
    /// residual. On error (a solver that did not converge, a singular matrix, a user closure
    /// returning NaN) the state is left at the start of the step.
    pub fn step(&mut self) -> Result<()> {
        self.stabilization.check()?;
        let saved = (
            self.q.clone(),
            self.v.clone(),
            self.p.clone(),
            self.lambda.clone(),
            self.last,
            self.k,
        );
        let result = self.advance();
        if result.is_err() {
            (self.q, self.v, self.p, self.lambda, self.last, self.k) = saved;
        }
        result
    }

    fn advance(&mut self) -> Result<()> {
        match self.integrator {
            Integrator::MoreauJean(osi) => super::moreau_jean_step::step(self, osi)?,
            Integrator::EulerMoreau(osi) => super::euler_moreau_step::step(self, osi)?,
        }
        self.k += 1;
        self.last.constraint_residual = match self.stabilization {
            Stabilization::Projection {
                tolerance,
                max_iterations,
            } => {
                let (iterations, residual) = projection::project(self, tolerance, max_iterations)?;
                self.last.projection_iterations = iterations;
                residual
            }
            _ => self.constraint_residual()?,
        };
        Ok(())
    }

    /// max |g(q)| over the holonomic equality constraints now (0 when there are none).
    pub fn constraint_residual(&self) -> Result<f64> {
        Ok(projection::residuals(self)?.0)
    }

    /// Solves one step's problem `w = matrix λ + vector` with `equality` marking the free rows
    /// (an LCP when there are none), and turns non-convergence into an error naming the step.
    pub(super) fn solve_one_step(
        &self,
        matrix: DMatrix<f64>,
        vector: DVector<f64>,
        equality: Vec<bool>,
        context: &str,
    ) -> Result<(DVector<f64>, SolverReport)> {
        let problem = MixedLinearComplementarityProblem::new(matrix, vector, equality)?;
        let mut lambda = DVector::zeros(problem.size());
        let report = solve_mlcp(self.solver, &problem, &mut lambda, &self.solver_options)?.ensure_converged(
            self.solver,
            self.solver_options.tolerance,
            context,
        )?;
        Ok((lambda, report))
    }

    /// The block-diagonal mass matrix of the Lagrangian systems at the current q.
    pub(super) fn mass(&self) -> Result<DMatrix<f64>> {
        self.block_diagonal(|i, o, d| {
            let ds = self.nsds.system(DsId(i));
            let lagrangian = ds.as_lagrangian().ok_or_else(|| Error::Unsupported {
                what: "projection onto the constraints".into(),
                reason: "needs Lagrangian systems".into(),
            })?;
            lagrangian.mass(&self.q.rows(o, d).into_owned())
        })
    }

    /// Steps until `t_final` (the number of steps is ⌈(t_final − t)/h⌉), appending the
    /// initial sample (if `trajectory` is empty) and one sample after every step. What was
    /// recorded before an error stays in `trajectory`.
    pub fn run(&mut self, t_final: f64, trajectory: &mut Trajectory) -> Result<()> {
        let steps = self.steps_until(t_final)?;
        if trajectory.is_empty() {
            trajectory.samples.push(self.sample()?);
        }
        for _ in 0..steps {
            self.step()?;
            trajectory.samples.push(self.sample()?);
        }
        Ok(())
    }

    /// The number of steps from now to `t_final`: ⌈(t_final − t)/h⌉ (a final time within
    /// 10⁻⁹ h of a grid time counts as that time).
    pub fn steps_until(&self, t_final: f64) -> Result<usize> {
        check::scalar(
            "final time",
            t_final,
            t_final >= self.time(),
            "must be finite and ≥ the current time",
        )?;
        Ok(((t_final - self.time()) / self.h - 1e-9).ceil().max(0.0) as usize)
    }

    /// The output variables now.
    pub fn sample(&self) -> Result<Sample> {
        let (constraint_residual, velocity_residual) = projection::residuals(self)?;
        let t = self.time();
        let (mut y, mut ydot) = (Vec::new(), Vec::new());
        let mut offset = 0;
        for inter in self.nsds.interactions() {
            let idx = self.indices(inter);
            let size = inter.size();
            let lambda = self.lambda.rows(offset, size);
            offset += size;
            let q = Self::gather(&idx, &self.q);
            if inter.relation.is_lagrangian() {
                let v = Self::gather(&idx, &self.v);
                let mut yi = inter.output(&q, t)?;
                if let Some(d) = inter.relation.compliance() {
                    yi += d * lambda;
                }
                y.extend(yi.iter());
                ydot.extend(inter.velocity(&q, &v, t)?.iter());
            } else {
                let op = inter.relation.first_order_operators(t)?;
                y.extend((&op.c * &q + &op.d * lambda + &op.e).iter());
            }
        }
        Ok(Sample {
            t,
            q: self.q.clone(),
            v: self.v.clone(),
            p: self.p.clone(),
            y: DVector::from_vec(y),
            ydot: DVector::from_vec(ydot),
            lambda: self.lambda.clone(),
            energy: self.energy()?,
            constraint_residual,
            velocity_residual,
        })
    }

    /// Total mechanical energy of the Lagrangian systems (0 for first-order scenes).
    pub fn energy(&self) -> Result<f64> {
        self.nsds.energy(&self.q, &self.v)
    }

    /// Block-diagonal assembly over the systems of `f(system index, offset, dimension)`.
    pub(super) fn block_diagonal(
        &self,
        mut f: impl FnMut(usize, usize, usize) -> Result<DMatrix<f64>>,
    ) -> Result<DMatrix<f64>> {
        let n = self.q.len();
        let mut out = DMatrix::zeros(n, n);
        for (i, (_, ds)) in self.nsds.systems().enumerate() {
            let (o, d) = (self.offsets[i], ds.dimension());
            out.view_mut((o, o), (d, d)).copy_from(&f(i, o, d)?);
        }
        Ok(out)
    }

    /// The system offsets, for the integrators.
    pub(super) fn offsets(&self) -> &[usize] {
        &self.offsets
    }
}
