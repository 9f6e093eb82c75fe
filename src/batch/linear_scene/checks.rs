//! What the engines require of a scene and its step before they index it: h > 0 and
//! θ ∈ [0, 1], Baumgarte's feedback as the only stabilisation, and the row layout of its
//! Coulomb contacts.

use super::LinearScene;
use crate::batch::layout::RowKind;
use crate::error::{Error, Result};
use crate::scheme::Stabilization;

impl LinearScene {
    /// Checks the step's h > 0 and θ ∈ [0, 1] (what every reduction checks first).
    pub fn check_step(h: f64, theta: f64) -> Result<()> {
        crate::validate::scalar("time step h", h, h > 0.0, "must be > 0")?;
        crate::validate::scalar("θ", theta, (0.0..=1.0).contains(&theta), "must be in [0, 1]")
    }

    /// Baumgarte's β of `stabilization` (0 without one); the batched engines have no
    /// projection.
    pub fn feedback_gain(stabilization: Stabilization) -> Result<f64> {
        let beta = match stabilization {
            Stabilization::None => 0.0,
            Stabilization::Baumgarte { beta } => beta,
            Stabilization::Projection { .. } => {
                return Err(Error::Unsupported {
                    what: "projection onto the constraints".into(),
                    reason: "the batched engines stabilise equalities with Baumgarte's feedback only".into(),
                });
            }
        };
        stabilization.check()?;
        Ok(beta)
    }

    /// Checks the row layout the engines index by: each Coulomb contact's normal row (kind
    /// [`RowKind::Normal2d`] or [`RowKind::Normal3d`], a finite μ ≥ 0) is followed by its d − 1
    /// [`RowKind::Tangent`] rows with the same μ, none of its rows quadratic (lever rows and the
    /// disc pair's gap and tangent are taken); no tangent row stands alone and no other row has
    /// a μ.
    pub fn check_rows(&self) -> Result<()> {
        let m = self.ncontacts();
        let wrong = |r: usize, reason: &str| Error::Unsupported {
            what: format!("row layout at row {r}"),
            reason: reason.into(),
        };
        if self.rows.len() != m || self.mu.len() != m {
            return Err(wrong(0, "one kind and one μ per row are needed"));
        }
        let nonlinear = |r: usize| self.quadratic.row(r).iter().any(|&x| x != 0.0);
        let mut r = 0;
        while r < m {
            let (kind, mu) = (self.rows[r], self.mu[r]);
            let d = kind.block_rows();
            if !kind.is_normal() {
                if kind == RowKind::Tangent || mu != 0.0 {
                    return Err(wrong(
                        r,
                        "a tangent row or a μ only follows a Coulomb contact's normal row",
                    ));
                }
                r += 1;
                continue;
            }
            if r + d > m || !(mu.is_finite() && mu >= 0.0) {
                return Err(wrong(
                    r,
                    "a contact's normal row has a finite μ ≥ 0 and its tangent rows after it",
                ));
            }
            for k in 0..d {
                let tangent = (k == 0 || self.rows[r + k] == RowKind::Tangent) && self.mu[r + k] == mu;
                if !tangent || nonlinear(r + k) {
                    return Err(wrong(
                        r + k,
                        "a Coulomb contact's rows are not quadratic, its d − 1 tangent rows with its μ",
                    ));
                }
            }
            r += d;
        }
        Ok(())
    }
}
