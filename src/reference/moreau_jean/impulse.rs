//! The step's percussion: the LCP, MLCP or friction-contact problem of the active rows,
//! `0 ≤ λ ⟂ H W⁻¹ Hᵀ λ + H v_free + e ẏ_k + ∂h/∂t ≥ 0` (Siconos's `LCP`, `MLCP`,
//! `FrictionContact` one-step problems, `kernel/src/simulation/`), assembled and solved.

use nalgebra::{DMatrix, DVector, Dyn, LU};

use super::{ActiveRow, compliant, singular};
use crate::error::Result;
use crate::model::Interaction;
use crate::numerics::friction::mixed::Block;
use crate::reference::integrator::StepSettings;
use crate::reference::state::SceneState;

/// What one MLCP solve gives the step.
pub(super) struct Impulse {
    /// p = Hᵀ λ.
    pub(super) p: DVector<f64>,
    /// λ over the active rows.
    pub(super) lambda: DVector<f64>,
    /// λ scattered over all interactions.
    pub(super) lambda_all: DVector<f64>,
}

/// Assembles and solves `0 ≤ λ ⟂ H W⁻¹ Hᵀ λ + H v_free + e ẏ_k + ∂h/∂t ≥ 0` over the
/// active rows (`= 0` with λ free on equality rows: an MLCP), H = `hmat` from
/// [`active_jacobian`](super::active_jacobian) at q, and returns the [`Impulse`] and the solver's report.
#[allow(clippy::too_many_arguments)]
pub(super) fn impulse(
    ts: &SceneState,
    settings: &StepSettings,
    rows: &[ActiveRow],
    w: &LU<f64, Dyn, Dyn>,
    hmat: &DMatrix<f64>,
    q: &DVector<f64>,
    v_free: &DVector<f64>,
    (t, theta): (f64, f64),
    context: &str,
) -> Result<(Impulse, Option<crate::numerics::SolverReport>)> {
    let interactions = ts.nsds.interactions();
    let inter = |row: &ActiveRow| -> &Interaction { &interactions[row.index] };
    let m = hmat.nrows();
    let mut lambda_all = DVector::zeros(ts.lambda.len());
    if m == 0 {
        let nothing = Impulse {
            p: DVector::zeros(q.len()),
            lambda: DVector::zeros(0),
            lambda_all,
        };
        return Ok((nothing, None));
    }
    let mut rhs = DVector::zeros(m);
    let mut equality = Vec::with_capacity(m);
    let mut r0 = 0;
    for row in rows {
        let idx = ts.indices(inter(row));
        let size = inter(row).size();
        let z = ts.z_of(inter(row));
        let hdot = inter(row).relation.hdot(&SceneState::gather(&idx, q), &z, t, size)?;
        let free = hmat.rows(r0, size) * v_free;
        rhs.rows_mut(r0, size)
            .copy_from(&(free * row.scale + &row.constant + hdot));
        equality.extend(std::iter::repeat_n(row.equality, size));
        r0 += size;
    }
    let mut delassus = hmat * w.solve(&hmat.transpose()).ok_or_else(singular)?;
    compliant_blocks(ts, rows, q, &mut delassus, theta)?;
    let (lambda, report) = match friction_problem(ts, rows) {
        FrictionProblem::None => settings.solve(delassus, rhs, equality, context)?,
        FrictionProblem::Contacts(dimension, mu) => settings.solve_friction(dimension, delassus, rhs, mu, context)?,
        FrictionProblem::Mixed(blocks) => settings.solve_mixed(delassus, rhs, blocks, context)?,
    };
    let p = hmat.transpose() * &lambda;
    let mut r0 = 0;
    for row in rows {
        let size = inter(row).size();
        lambda_all.rows_mut(row.offset, size).copy_from(&lambda.rows(r0, size));
        r0 += size;
    }
    Ok((Impulse { p, lambda, lambda_all }, Some(report)))
}

/// The kind of one step's problem once friction contacts are active.
enum FrictionProblem {
    /// No active friction contact: an LCP or MLCP.
    None,
    /// Only friction contacts, all of size d: Siconos's friction-contact problem (d, μ per
    /// contact).
    Contacts(usize, DVector<f64>),
    /// Friction contacts beside frictionless rows, equalities or contacts of the other size:
    /// a mixed problem solved by block NSGS.
    Mixed(Vec<Block>),
}

/// What the active interactions make of this step's problem.
fn friction_problem(ts: &SceneState, rows: &[ActiveRow]) -> FrictionProblem {
    let interactions = ts.nsds.interactions();
    let laws: Vec<_> = rows.iter().map(|row| &interactions[row.index].law).collect();
    let frictions: Vec<_> = laws.iter().filter_map(|law| law.friction()).collect();
    let Some(first) = frictions.first() else {
        return FrictionProblem::None;
    };
    if frictions.len() == laws.len() && frictions.iter().all(|law| law.size() == first.size()) {
        let mu = DVector::from_iterator(frictions.len(), frictions.iter().map(|law| law.mu()));
        return FrictionProblem::Contacts(first.size(), mu);
    }
    let blocks = laws
        .iter()
        .flat_map(|law| match (law.friction(), law.is_equality()) {
            (Some(friction), _) => vec![Block::Friction {
                dimension: friction.size(),
                mu: friction.mu(),
            }],
            (None, true) => vec![Block::Equality(law.size())],
            (None, false) => vec![Block::Complementarity; law.size()],
        })
        .collect();
    FrictionProblem::Mixed(blocks)
}

/// Siconos's `LagrangianCompliantLinearTIR` Delassus block: the diagonal block of a compliant
/// interaction becomes θ (D + G W⁻¹ Gᵀ) + D/h; off-diagonal blocks stay G₁ W⁻¹ G₂ᵀ.
fn compliant_blocks(
    ts: &SceneState,
    rows: &[ActiveRow],
    q: &DVector<f64>,
    delassus: &mut DMatrix<f64>,
    theta: f64,
) -> Result<()> {
    let mut r0 = 0;
    for row in rows {
        let inter = &ts.nsds.interactions()[row.index];
        let size = inter.size();
        if let Some(linearisation) = compliant(ts, inter, &SceneState::gather(&ts.indices(inter), q), row.offset) {
            let d = linearisation?.d;
            let mut block = delassus.view_mut((r0, r0), (size, size));
            let updated = (&block + &d) * theta + &d / ts.h;
            block.copy_from(&updated);
        }
        r0 += size;
    }
    Ok(())
}
