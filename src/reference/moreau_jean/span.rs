//! The span of one Moreau–Jean solve: a grid step, a sub-step of a located step, the
//! zero-length step of an impact, or the settling rest of a step.

use crate::reference::state::SceneState;

/// What one Moreau–Jean solve spans: a grid step [t_k, t_{k+1}], a sub-step of a located
/// step, or the zero-length step of an impact (`reference/impact_location.rs`).
pub(in crate::reference) struct Span<'a> {
    /// Its start and end times.
    pub(super) t: f64,
    pub(super) t_next: f64,
    /// Its length (t_next − t, or h exactly on the grid).
    pub(super) h: f64,
    /// Interactions left out of its problem (a located step's trial leaves the open ones out).
    pub(super) excluded: &'a [usize],
    /// Instead of the scheme's activation test, a unilateral row takes part when it is closed
    /// or closes within the time `tol`: y + tol · min(ẏ, 0) ≤ 0 (every row of an impact; the
    /// `plastic` rows of a settling span).
    pub(super) closed: Option<f64>,
    /// Interactions whose restitution is taken as 0 (a contact settling at the end of an
    /// accumulation of impacts).
    pub(super) plastic: &'a [usize],
}

impl<'a> Span<'a> {
    /// The grid step from t_k.
    pub(super) fn grid(ts: &SceneState) -> Self {
        Self {
            t: ts.time(),
            t_next: ts.time_at(ts.k + 1),
            h: ts.h,
            excluded: &[],
            closed: None,
            plastic: &[],
        }
    }

    /// A sub-step from t of length h, without the `excluded` interactions.
    pub(in crate::reference) fn sub(t: f64, h: f64, excluded: &'a [usize]) -> Self {
        Self {
            t,
            t_next: t + h,
            h,
            excluded,
            closed: None,
            plastic: &[],
        }
    }

    /// A sub-step from t of length h whose problem holds the `plastic` interactions where
    /// they are closed (ỹ ≤ 0 at the activation's q̂), whatever their ẏ, without restitution,
    /// and the others by the scheme's test: the rest of a step where an accumulation of
    /// impacts has converged and its contact settles.
    pub(in crate::reference) fn settling(t: f64, h: f64, plastic: &'a [usize]) -> Self {
        Self {
            closed: Some(0.0),
            plastic,
            ..Self::sub(t, h, &[])
        }
    }

    /// The impact at t, rows closing within `tol` included.
    pub(in crate::reference) fn impact(t: f64, tol: f64) -> Self {
        Self {
            t,
            t_next: t,
            h: 0.0,
            excluded: &[],
            closed: Some(tol),
            plastic: &[],
        }
    }
}
