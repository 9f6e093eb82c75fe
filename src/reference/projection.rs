//! Keeping holonomic equality constraints g(q) = 0 on the manifold.
//!
//! Moreau–Jean enforces an equality at velocity level, G(q) v_{k+1} = 0, so g(q) drifts by
//! O(h²) per step. [`Stabilization`](crate::scheme::Stabilization) picks what the time stepping does about it, and
//! [`StepReport::constraint_residual`](super::StepReport::constraint_residual) reports
//! max |g(q_{k+1})| after every step whatever the choice.

use nalgebra::{DMatrix, DVector};

use super::state::SceneState;
use crate::error::{Error, Result};
use crate::model::Interaction;

/// Whether an interaction is an active equality constraint (holonomic or not).
fn is_equality(inter: &Interaction) -> bool {
    inter.law.is_equality() && inter.relation.is_active() && inter.relation.is_lagrangian()
}

/// Whether an interaction is a holonomic equality constraint: an active equality on a
/// relation with a position-level output.
pub(crate) fn is_holonomic(inter: &Interaction) -> bool {
    is_equality(inter) && !inter.relation.is_velocity_level()
}

/// (g, G, ∂g/∂t) stacked over the interactions that pass `select`, G over all coordinates,
/// at (q, t_k).
fn stack(
    ts: &SceneState,
    q: &DVector<f64>,
    select: impl Fn(&Interaction) -> bool,
) -> Result<(DVector<f64>, DMatrix<f64>, DVector<f64>)> {
    ts.stacked_rows(ts.nsds.interactions().iter().filter(|i| select(i)), q, ts.time())
}

/// At the current state, over the active equality constraints (0 when none): max |g(q)|
/// (velocity-level rows have no position output, g = 0, so this is over the holonomic ones),
/// and max |G v + ∂g/∂t| (what Moreau–Jean enforces, holonomic and non-holonomic alike).
pub(crate) fn residuals(ts: &SceneState) -> Result<(f64, f64)> {
    let (g, jac, hdot) = stack(ts, &ts.q, is_equality)?;
    if jac.nrows() == 0 {
        return Ok((0.0, 0.0));
    }
    Ok((g.amax(), (jac * &ts.v + hdot).amax()))
}

/// M⁻¹Gᵀ (G M⁻¹ Gᵀ)⁻¹ r: the M-orthogonal correction that removes the residual r of G x = r.
fn correction(mass: &DMatrix<f64>, jac: &DMatrix<f64>, r: &DVector<f64>) -> Result<DVector<f64>> {
    let singular = |what: &str| Error::Singular { what: what.into() };
    let mass_lu = mass.clone().lu();
    let m_inv_gt = mass_lu
        .solve(&jac.transpose())
        .ok_or_else(|| singular("mass matrix (projection)"))?;
    let gram = jac * &m_inv_gt;
    let multiplier = gram
        .lu()
        .solve(r)
        .ok_or_else(|| singular("G M⁻¹ Gᵀ of the equality constraints (dependent constraints)"))?;
    Ok(m_inv_gt * multiplier)
}

/// The projection of [`Stabilization::Projection`](crate::scheme::Stabilization::Projection) on the state of `ts`. Returns the Newton
/// iterations taken and the residual max |g(q)| they leave.
pub(crate) fn project(ts: &mut SceneState, tolerance: f64, max_iterations: usize) -> Result<(usize, f64)> {
    let mut iterations = 0;
    let residual = loop {
        let (g, jac, _) = stack(ts, &ts.q, is_holonomic)?;
        if g.amax() <= tolerance {
            break g.amax();
        }
        if iterations == max_iterations {
            return Err(Error::NotConverged {
                solver: "position projection".into(),
                context: format!(" at step {} (t = {})", ts.k, ts.time()),
                iterations,
                residual: g.amax(),
                tolerance,
            });
        }
        let dq = correction(&ts.mass()?, &jac, &g)?;
        ts.q -= dq;
        iterations += 1;
    };
    let (_, jac, hdot) = stack(ts, &ts.q, is_equality)?;
    if jac.nrows() > 0 {
        let dv = correction(&ts.mass()?, &jac, &(&jac * &ts.v + hdot))?;
        ts.v -= dv;
    }
    Ok((iterations, residual))
}
