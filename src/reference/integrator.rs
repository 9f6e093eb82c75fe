//! The one-step integrator interface of the reference stepper (Siconos's
//! `OneStepIntegrator`) and the [`Integrator`] a simulation holds: each scheme advances a
//! [`SceneState`] by one step under the [`StepSettings`] of its simulation and says what the
//! step did.

use nalgebra::{DMatrix, DVector};

use super::state::SceneState;
use crate::error::{Error, Result};
use crate::model::Nsds;
use crate::numerics::friction::mixed::{Block, MixedFrictionProblem};
use crate::numerics::friction::{FrictionContactProblem, FrictionOptions, FrictionSolver, solve_friction};
use crate::numerics::relay::{relay_as_mlcp, relay_solution};
use crate::numerics::{MixedLinearComplementarityProblem, SolverKind, SolverOptions, SolverReport, solve_mlcp};
use crate::scheme::{EulerMoreauOSI, MoreauJeanOSI, NewtonOptions, NonsmoothRattleOSI, Stabilization};

/// What the last step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Newton iterations (1 for linear scenes).
    pub newton_iterations: usize,
    /// The Newton loop's residual at its last iteration, in the loop's own measure (0 for a
    /// single pass): Moreau–Jean's ‖M(v − v_k) − h(1−θ)F_k − hθF − Gᵀλ‖₂, Euler–Moreau's
    /// largest of ‖R‖₂, ‖y − h‖₂ and ‖r − g‖₂.
    pub newton_residual: f64,
    /// The LCP report of the last Newton iteration (`None` when no interaction was active).
    pub lcp: Option<SolverReport>,
    /// Number of active interactions.
    pub active: usize,
    /// max |g(q_{k+1})| over the holonomic equality constraints after the step (0 if none).
    pub constraint_residual: f64,
    /// Newton iterations of the position projection (0 unless [`Stabilization::Projection`]).
    pub projection_iterations: usize,
    /// The step went on past a solver or Newton loop that missed its tolerance, with its
    /// last iterate ([`StepSettings::lenient`]).
    pub missed_tolerance: bool,
}

/// How a simulation solves its steps: the one-step problem's solver, the Newton loop and the
/// stabilisation of equality constraints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepSettings {
    /// The LCP/MLCP solver.
    pub solver: SolverKind,
    /// Its options.
    pub solver_options: SolverOptions,
    /// The Newton loop's options (nonlinear scenes only).
    pub newton: NewtonOptions,
    /// What to do about the drift of holonomic equality constraints.
    pub stabilization: Stabilization,
    /// The friction-contact solver; `None`: Siconos's kernel default for the dimension (the
    /// dense NSGS in 2-D, NSGS in 3-D).
    pub friction: Option<FrictionSolver>,
    /// Its options.
    pub friction_options: FrictionOptions,
    /// Go on past a solver or Newton loop that misses its tolerance with its last iterate,
    /// flagged in the [`StepReport`] (as Siconos goes on, with a warning); otherwise such a
    /// step is an [`Error::NotConverged`].
    pub lenient: bool,
}

impl StepSettings {
    /// `report` where it converged or the settings are lenient, else the error naming the
    /// solver and the step.
    fn accept(&self, report: SolverReport, solver: &str, tolerance: f64, context: &str) -> Result<SolverReport> {
        if report.converged || self.lenient {
            return Ok(report);
        }
        Err(Error::NotConverged {
            solver: solver.into(),
            context: context.into(),
            iterations: report.iterations,
            residual: report.residual,
            tolerance,
        })
    }

    /// Solves one step's problem `w = matrix λ + vector` with `equality` marking the free rows
    /// (an LCP when there are none), and turns non-convergence into an error naming the step
    /// (`context`).
    pub(crate) fn solve(
        &self,
        matrix: DMatrix<f64>,
        vector: DVector<f64>,
        equality: Vec<bool>,
        context: &str,
    ) -> Result<(DVector<f64>, SolverReport)> {
        let problem = MixedLinearComplementarityProblem::new(matrix, vector, equality)?;
        let mut lambda = DVector::zeros(problem.size());
        let report = solve_mlcp(self.solver, &problem, &mut lambda, &self.solver_options)?;
        let report = self.accept(report, self.solver.name(), self.solver_options.tolerance, context)?;
        Ok((lambda, report))
    }

    /// Solves the step's problem `w = matrix λ + vector` of the scene `nsds` under each row's
    /// law: complementarity, equality (w = 0) or relay (−w ∈ N_\[lb, ub\](λ), as complementarity
    /// rows of a larger MLCP).
    pub(crate) fn solve_rows(
        &self,
        nsds: &Nsds,
        matrix: DMatrix<f64>,
        vector: DVector<f64>,
        context: &str,
    ) -> Result<(DVector<f64>, SolverReport)> {
        let equality = nsds.equality_rows();
        let relays = nsds.relay_rows();
        if relays.iter().any(Option::is_some) {
            let (matrix, vector, free) = relay_as_mlcp(&matrix, &vector, &equality, &relays);
            let (z, report) = self.solve(matrix, vector, free, context)?;
            Ok((relay_solution(&z, &relays), report))
        } else {
            self.solve(matrix, vector, equality, context)
        }
    }

    /// Solves one step's friction-contact problem u = W r + q with a Coulomb cone of
    /// coefficient `mu[α]` per contact of `dimension` rows, and turns non-convergence into an
    /// error naming the step (`context`).
    pub(crate) fn solve_friction(
        &self,
        dimension: usize,
        w: DMatrix<f64>,
        q: DVector<f64>,
        mu: DVector<f64>,
        context: &str,
    ) -> Result<(DVector<f64>, SolverReport)> {
        let problem = FrictionContactProblem::new(dimension, w, q, mu)?;
        let solver = self.friction.unwrap_or(if dimension == 2 {
            FrictionSolver::NsgsDense
        } else {
            FrictionSolver::Nsgs
        });
        let mut r = DVector::zeros(problem.q.len());
        let report = solve_friction(solver, &problem, &mut r, &self.friction_options)?;
        let report = self.accept(report, solver.name(), self.friction_options.tolerance, context)?;
        Ok((r, report))
    }

    /// Solves one step's mixed problem (friction contacts beside frictionless rows and
    /// equalities, `blocks` in row order) by block NSGS with the friction options, from λ = 0;
    /// non-convergence is an error naming the step (`context`).
    pub(crate) fn solve_mixed(
        &self,
        w: DMatrix<f64>,
        q: DVector<f64>,
        blocks: Vec<Block>,
        context: &str,
    ) -> Result<(DVector<f64>, SolverReport)> {
        let problem = MixedFrictionProblem::new(w, q, blocks)?;
        let mut lambda = DVector::zeros(problem.q.len());
        let report = problem.solve(&mut lambda, &self.friction_options)?;
        let solver = "block NSGS (friction with frictionless rows or equalities)";
        let report = self.accept(report, solver, self.friction_options.tolerance, context)?;
        Ok((lambda, report))
    }
}

/// A one-step integrator: (q_k, v_k) → (q_{k+1}, v_{k+1}), with the input p and the impulses
/// λ of the step.
pub trait OneStepIntegrator {
    /// Checks the scheme's parameters and that it can integrate every system of `state`.
    fn check(&self, state: &SceneState) -> Result<()>;

    /// Advances `state` by one step (k is advanced by the caller). On error the caller
    /// restores the state.
    fn step(&self, state: &mut SceneState, settings: &StepSettings) -> Result<StepReport>;
}

/// The one-step integrator of a simulation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Integrator {
    /// Moreau–Jean, for Lagrangian systems.
    MoreauJean(MoreauJeanOSI),
    /// Euler–Moreau, for first-order systems.
    EulerMoreau(EulerMoreauOSI),
    /// Nonsmooth RATTLE, for Lagrangian systems (second order between impacts).
    NonsmoothRattle(NonsmoothRattleOSI),
}

impl std::str::FromStr for Integrator {
    type Err = String;

    /// A Lagrangian integrator by name with its default parameters: `moreau-jean` (or
    /// `moreau_jean`) or `rattle` (nonsmooth RATTLE).
    fn from_str(name: &str) -> std::result::Result<Self, String> {
        match name {
            "moreau-jean" | "moreau_jean" => Ok(Self::MoreauJean(MoreauJeanOSI::default())),
            "rattle" => Ok(Self::NonsmoothRattle(NonsmoothRattleOSI::default())),
            _ => Err(format!("unknown integrator `{name}`: moreau-jean or rattle")),
        }
    }
}

impl OneStepIntegrator for Integrator {
    fn check(&self, state: &SceneState) -> Result<()> {
        match self {
            Self::MoreauJean(osi) => osi.check(state),
            Self::EulerMoreau(osi) => osi.check(state),
            Self::NonsmoothRattle(osi) => osi.check(state),
        }
    }

    fn step(&self, state: &mut SceneState, settings: &StepSettings) -> Result<StepReport> {
        match self {
            Self::MoreauJean(osi) => osi.step(state, settings),
            Self::EulerMoreau(osi) => osi.step(state, settings),
            Self::NonsmoothRattle(osi) => osi.step(state, settings),
        }
    }
}
