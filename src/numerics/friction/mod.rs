//! The friction-contact problem (Siconos's FC2D/FC3D, local form) and its solvers.
//!
//! With d = 2 or 3 unknowns per contact (normal first, then the tangential ones), find the
//! reactions r and relative velocities u with
//! ```text
//!     u = W r + q,    û^α = u^α + (μ^α ‖u^α_T‖, 0, 0),    K*^α ∋ û^α ⟂ r^α ∈ K^α
//! ```
//! for every contact α, K^α = {‖r_T‖ ≤ μ^α r_N} the Coulomb cone and K*^α its dual: Signorini
//! in the normal direction, sticking (u_T = 0, ‖r_T‖ ≤ μ r_N) or sliding against the motion
//! (r_T = −μ r_N u_T/‖u_T‖). Siconos's error of a candidate r (`fc3d_compute_error.c`,
//! `fc2d_compute_error.c`) is the natural map
//! ```text
//!     err(r) = ( Σ_α ‖r^α − P_K^α(r^α − û^α)‖² )^{1/2} / max(‖q‖, ‖r‖, ‖u‖)
//! ```
//! (not divided when that maximum is ≤ DBL_EPSILON), zero exactly at a solution.
//!
//! The solvers, as Siconos implements them (`numerics/src/FrictionContact/`: `fc2d_nsgs.c`,
//! `fc3d_nsgs.c`, `fc3d_DeSaxceFixedpoint.c`, `fc2d_tolcp.c`): NSGS for FC2D in its dense
//! and its sparse variant ([`nsgs2d`]), NSGS for FC3D with the hybrid Alart–Curnier local
//! Newton ([`nsgs3d`], [`local`]), the De Saxcé fixed point — projected Jacobi, the
//! GPU-friendly one ([`fixed_point`]) — and for 2-D the exact LCP reformulation solved by
//! Lemke ([`lemke2d`]).

pub mod cone;
pub mod fixed_point;
pub mod lemke2d;
pub mod local;
pub mod mixed;
pub mod nsgs2d;
pub mod nsgs3d;

use nalgebra::{DMatrix, DVector};

use super::SolverReport;
use crate::error::{Error, Result};
use crate::validate;

/// A friction-contact problem `u = W r + q` with a Coulomb cone per contact.
#[derive(Clone, Debug, PartialEq)]
pub struct FrictionContactProblem {
    /// Unknowns per contact d: 2 (normal, tangent) or 3 (normal, two tangents).
    pub dimension: usize,
    /// W, (d n_c) × (d n_c): the Delassus operator of the contacts.
    pub w: DMatrix<f64>,
    /// q, d n_c.
    pub q: DVector<f64>,
    /// μ per contact, ≥ 0.
    pub mu: DVector<f64>,
}

/// Which friction-contact solver (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrictionSolver {
    /// NSGS: in 2-D Siconos's `fc2d_nsgs` (warm start, light error with a full final
    /// check), in 3-D `fc3d_nsgs` with the hybrid Alart–Curnier local solver.
    Nsgs,
    /// Siconos's `fc2d_nsgs_dense` (2-D only): from r = 0, exact 2 × 2 case analysis per
    /// contact, stopping on ‖W r + q − u‖/‖q‖ with u the locally computed velocities.
    NsgsDense,
    /// The De Saxcé fixed point: projected Jacobi r ← P_K(r − ρ û), all contacts at once.
    FixedPoint,
    /// 2-D only: the LCP of size 3 n_c of `fc2d_tolcp`, solved by lexicographic Lemke
    /// (exact up to round-off).
    Lemke,
}

impl FrictionSolver {
    /// The solver's name as printed in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Nsgs => "NSGS",
            Self::NsgsDense => "dense NSGS",
            Self::FixedPoint => "De Saxcé fixed point",
            Self::Lemke => "Lemke (FC2D as an LCP)",
        }
    }
}

/// Options of the friction-contact solvers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrictionOptions {
    /// Stop when Siconos's error (or, for the dense NSGS, its own stopping value) is ≤ this.
    /// Default 1e-12.
    pub tolerance: f64,
    /// Sweeps (NSGS), iterations (fixed point), pivots (Lemke). Default 1000.
    pub max_iterations: usize,
    /// The fixed point's step ρ > 0; `None`: [`fixed_point::default_rho`].
    pub rho: Option<f64>,
    /// Start NSGS and the fixed point from the r passed in instead of zero (the dense NSGS
    /// always starts from zero, as Siconos's).
    pub warm_start: bool,
}

impl Default for FrictionOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-12,
            max_iterations: 1000,
            rho: None,
            warm_start: false,
        }
    }
}

impl FrictionContactProblem {
    /// Builds a problem, checking d ∈ {2, 3}, the shapes, finiteness and μ ≥ 0.
    pub fn new(dimension: usize, w: DMatrix<f64>, q: DVector<f64>, mu: DVector<f64>) -> Result<Self> {
        let problem = Self { dimension, w, q, mu };
        problem.check()?;
        Ok(problem)
    }

    fn check(&self) -> Result<()> {
        let d = self.dimension;
        validate::scalar(
            "friction contact: dimension",
            d as f64,
            d == 2 || d == 3,
            "must be 2 or 3",
        )?;
        let n = self.mu.len() * d;
        validate::vector("friction contact: q", &self.q, n)?;
        validate::matrix("friction contact: W", &self.w, n, n)?;
        if let Some(alpha) = self.mu.iter().position(|mu| !(mu.is_finite() && *mu >= 0.0)) {
            validate::scalar(
                &format!("friction contact: μ of contact {alpha}"),
                self.mu[alpha],
                false,
                "must be finite and ≥ 0",
            )?;
        }
        Ok(())
    }

    /// The number of contacts n_c.
    pub fn contacts(&self) -> usize {
        self.mu.len()
    }

    /// u = W r + q.
    pub fn u(&self, r: &DVector<f64>) -> DVector<f64> {
        &self.w * r + &self.q
    }

    /// Siconos's error of `r` (see the module docs).
    pub fn error(&self, r: &DVector<f64>) -> f64 {
        let u = self.u(r);
        let d = self.dimension;
        let sum: f64 = (0..self.contacts())
            .map(|alpha| {
                let range = alpha * d..(alpha + 1) * d;
                cone::natural_map_error(&r.as_slice()[range.clone()], &u.as_slice()[range], self.mu[alpha])
            })
            .sum();
        let scale = self.q.norm().max(r.norm()).max(u.norm());
        if scale > f64::EPSILON {
            sum.sqrt() / scale
        } else {
            sum.sqrt()
        }
    }

    fn check_unknown(&self, r: &DVector<f64>) -> Result<()> {
        self.check()?;
        if r.len() == self.q.len() {
            Ok(())
        } else {
            Err(Error::Dimension {
                what: "friction contact: unknown r".into(),
                expected: self.q.len().to_string(),
                got: r.len().to_string(),
            })
        }
    }
}

/// u = W r + q kept up to date while NSGS changes one block of rows at a time: the block's
/// local q̃ = q_b + Σ_{c≠b} W_bc r_c = u_b − W_bb r_b, and a change Δ of r_b adds W_{·b} Δ (a
/// block of columns, contiguous in W's column-major storage): O(n) per row.
pub(crate) struct Velocities {
    u: DVector<f64>,
}

impl Velocities {
    /// u = W r + q.
    pub(crate) fn new(w: &DMatrix<f64>, q: &DVector<f64>, r: &DVector<f64>) -> Self {
        Self { u: w * r + q }
    }

    /// q̃ of the block of rows `start..start + len`, the other rows' r as in `r`.
    pub(crate) fn local_q(&self, w: &DMatrix<f64>, start: usize, len: usize, r: &DVector<f64>) -> DVector<f64> {
        self.u.rows(start, len) - w.view((start, start), (len, len)) * r.rows(start, len)
    }

    /// Records that r changed by `delta` on the rows from `start`.
    pub(crate) fn update(&mut self, w: &DMatrix<f64>, start: usize, delta: &[f64]) {
        for (k, &x) in delta.iter().enumerate() {
            if x != 0.0 {
                self.u.axpy(x, &w.column(start + k), 1.0);
            }
        }
    }
}

/// NSGS's stopping rule, Siconos's LIGHT_WITH_FULL_FINAL: after each sweep the light error
/// √(Σ‖Δr‖²) / ‖r‖ (not divided when ‖r‖ ≤ ε); when it is below τ (at first the tolerance)
/// the full error is computed, and if that is still above the tolerance τ ← light · tol / full.
pub(crate) struct LightWithFullFinal {
    tolerance: f64,
    tau: f64,
}

impl LightWithFullFinal {
    pub(crate) fn new(tolerance: f64) -> Self {
        Self {
            tolerance,
            tau: tolerance,
        }
    }

    /// Whether to stop after a sweep that changed `r` by Σ‖Δr‖² = `change`: the `full` error
    /// (evaluated only when the light error asks for it) meets the tolerance, or the sweep
    /// changed nothing (another will not do better).
    pub(crate) fn stop(&mut self, change: f64, r: &DVector<f64>, full: impl FnOnce() -> f64) -> bool {
        let norm = r.norm();
        let light = if norm > f64::EPSILON {
            change.sqrt() / norm
        } else {
            change.sqrt()
        };
        if light < self.tau {
            let full = full();
            if full <= self.tolerance || change == 0.0 {
                return true;
            }
            self.tau = light * self.tolerance / full;
        }
        false
    }
}

/// The report for `r` after `iterations`, judged by Siconos's error against `tolerance`.
fn report(problem: &FrictionContactProblem, r: &DVector<f64>, iterations: usize, tolerance: f64) -> SolverReport {
    let residual = problem.error(r);
    SolverReport {
        converged: residual <= tolerance && r.iter().all(|x| x.is_finite()),
        iterations,
        residual,
    }
}

/// Solves `problem` with `solver`, writing the reactions into `r` (read as the warm start
/// when `options.warm_start`). Non-convergence is data in the report, not an error; a solver
/// that does not apply (a 2-D one on a 3-D problem) is an error.
pub fn solve_friction(
    solver: FrictionSolver,
    problem: &FrictionContactProblem,
    r: &mut DVector<f64>,
    options: &FrictionOptions,
) -> Result<SolverReport> {
    problem.check_unknown(r)?;
    validate::scalar(
        "solver tolerance",
        options.tolerance,
        options.tolerance > 0.0,
        "must be > 0",
    )?;
    if let Some(rho) = options.rho {
        validate::scalar("fixed-point step ρ", rho, rho > 0.0, "must be > 0")?;
    }
    let two_d_only = matches!(solver, FrictionSolver::NsgsDense | FrictionSolver::Lemke);
    if two_d_only && problem.dimension != 2 {
        return Err(Error::Unsupported {
            what: format!(
                "{} on a {}-D friction-contact problem",
                solver.name(),
                problem.dimension
            ),
            reason: "it solves 2-D problems only".into(),
        });
    }
    if !options.warm_start || solver == FrictionSolver::NsgsDense {
        r.fill(0.0);
    }
    match (solver, problem.dimension) {
        (FrictionSolver::Nsgs, 2) => Ok(nsgs2d::solve(problem, r, options)),
        (FrictionSolver::Nsgs, _) => Ok(nsgs3d::solve(problem, r, options)),
        (FrictionSolver::NsgsDense, _) => Ok(nsgs2d::solve_dense(problem, r, options)),
        (FrictionSolver::FixedPoint, _) => Ok(fixed_point::solve(problem, r, options)),
        (FrictionSolver::Lemke, _) => lemke2d::solve(problem, r, options),
    }
}
