//! Complementarity problems and their solvers, in f64: the LCP and the MLCP (equality rows
//! beside complementarity rows) with Siconos's residuals, Lemke (lexicographic; for MLCPs on
//! the problem reduced by the equality rows), PGS, Jacobi, enumeration and the direct solve of
//! pure equalities. Readable before fast: these are the yardsticks of the batched engines.

pub mod enumerative;
pub mod friction;
pub mod jacobi;
pub mod lcp;
pub mod lemke;
pub mod mlcp;
pub mod pgs;
pub mod reduction;
pub mod relay;
mod rows;

use nalgebra::DVector;

use crate::error::{Error, Result};
pub use lcp::LinearComplementarityProblem;
pub use mlcp::MixedLinearComplementarityProblem;
pub(crate) use rows::{Rows, report};

/// Which LCP solver to use (in scenario files: `"lemke"`, `"pgs"`, `"jacobi"`,
/// `"enumerative"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverKind {
    /// Lexicographic Lemke pivoting: exact, the reference (Siconos's default).
    #[default]
    Lemke,
    /// Projected Gauss–Seidel (SOR with ω ≠ 1).
    Pgs,
    /// Projected Jacobi with relaxation.
    Jacobi,
    /// Enumeration of the 2ⁿ complementary bases (n ≤ 16).
    Enumerative,
}

impl SolverKind {
    /// The solver's name as printed in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Lemke => "Lemke",
            Self::Pgs => "PGS",
            Self::Jacobi => "Jacobi",
            Self::Enumerative => "enumeration",
        }
    }
}

/// Options shared by every LCP solver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverOptions {
    /// Stop when Siconos's error (see [`lcp`]) is ≤ this. Default 1e-12.
    pub tolerance: f64,
    /// Sweeps for PGS/Jacobi, pivots for Lemke. Default 1000.
    pub max_iterations: usize,
    /// Relaxation ω ∈ (0, 2). `None`: 1 for PGS; for Jacobi 1/ρ̄ with ρ̄ the Gershgorin bound
    /// of D^{-1/2} M D^{-1/2}, which makes projected Jacobi converge on every SPD M.
    pub omega: Option<f64>,
    /// Start iterative solvers from the z passed in instead of zero.
    pub warm_start: bool,
}

impl Default for SolverOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-12,
            max_iterations: 1000,
            omega: None,
            warm_start: false,
        }
    }
}

/// What a solver did: the data a caller needs to judge its answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverReport {
    /// Whether the residual met the tolerance.
    pub converged: bool,
    /// Sweeps or pivots performed.
    pub iterations: usize,
    /// Siconos's error of the returned z.
    pub residual: f64,
}

/// Solves `lcp` with `kind`, writing the answer into `z` (read as the warm start when
/// `options.warm_start`). Returns the report; non-convergence is data, not an error.
pub fn solve_lcp(
    kind: SolverKind,
    lcp: &LinearComplementarityProblem,
    z: &mut DVector<f64>,
    options: &SolverOptions,
) -> Result<SolverReport> {
    lcp.check_unknown(z)?;
    check_options(options)?;
    if kind == SolverKind::Enumerative && lcp.size() > enumerative::MAX_SIZE {
        return Err(Error::Unsupported {
            what: format!("enumeration of an LCP of size {}", lcp.size()),
            reason: format!("2ⁿ bases: enumeration takes n ≤ {}", enumerative::MAX_SIZE),
        });
    }
    if !options.warm_start {
        z.fill(0.0);
    }
    Ok(match kind {
        SolverKind::Lemke => lemke::solve(lcp, z, options),
        SolverKind::Pgs => pgs::solve(lcp, z, options),
        SolverKind::Jacobi => jacobi::solve(lcp, z, options),
        SolverKind::Enumerative => enumerative::solve(lcp, z, options),
    })
}

/// Solves `mlcp` with `kind`, writing the answer into `z` (read as the warm start when
/// `options.warm_start`). A problem without complementarity rows is solved directly (one LU
/// solve) whatever the kind; otherwise Lemke works on the reduced LCP (see
/// [`reduction`]), PGS and Jacobi sweep every row and leave the equality rows unprojected, and
/// enumeration tries the bases of the complementarity rows. Non-convergence is data, not an
/// error; a singular equality block is an error for the direct solve and Lemke.
pub fn solve_mlcp(
    kind: SolverKind,
    mlcp: &MixedLinearComplementarityProblem,
    z: &mut DVector<f64>,
    options: &SolverOptions,
) -> Result<SolverReport> {
    mlcp.check_unknown(z)?;
    check_options(options)?;
    if kind == SolverKind::Enumerative && mlcp.complementarities() > enumerative::MAX_SIZE {
        return Err(Error::Unsupported {
            what: format!(
                "enumeration of an MLCP with {} complementarity rows",
                mlcp.complementarities()
            ),
            reason: format!("2ᶜ bases: enumeration takes c ≤ {}", enumerative::MAX_SIZE),
        });
    }
    if !options.warm_start {
        z.fill(0.0);
    }
    if mlcp.complementarities() == 0 {
        return reduction::direct(mlcp, z, options);
    }
    match kind {
        SolverKind::Lemke if mlcp.equalities() == 0 => {
            let lcp = LinearComplementarityProblem::new(mlcp.m.clone(), mlcp.q.clone())?;
            Ok(lemke::solve(&lcp, z, options))
        }
        SolverKind::Lemke => reduction::reduced_lemke(mlcp, z, options),
        SolverKind::Pgs => Ok(pgs::solve(mlcp, z, options)),
        SolverKind::Jacobi => Ok(jacobi::solve(mlcp, z, options)),
        SolverKind::Enumerative => Ok(enumerative::solve(mlcp, z, options)),
    }
}

fn check_options(options: &SolverOptions) -> Result<()> {
    use crate::validate::scalar;
    scalar(
        "solver tolerance",
        options.tolerance,
        options.tolerance > 0.0,
        "must be > 0",
    )?;
    if let Some(omega) = options.omega {
        scalar("relaxation ω", omega, omega > 0.0 && omega < 2.0, "must be in (0, 2)")?;
    }
    Ok(())
}
