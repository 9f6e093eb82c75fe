//! A scene gathered over its coordinates — M, K, C, F_ext, the rows H, Y, b and their laws —
//! and its reduction to the constant operators of its Moreau–Jean step
//! ([`LinearScene`], whose module gives the equations).

use nalgebra::{DMatrix, DVector};

use super::linear_scene::LinearScene;
use crate::error::{Error, Result};

/// A scene's systems and rows over its n coordinates (systems concatenated), as
/// [`Gathered::reduce`] takes them.
#[derive(Clone, Debug, PartialEq)]
pub struct Gathered {
    /// M (n × n, block diagonal over the systems).
    pub mass: DMatrix<f64>,
    /// K.
    pub stiffness: DMatrix<f64>,
    /// C.
    pub damping: DMatrix<f64>,
    /// The constant part f₀ of F_ext.
    pub fext: DVector<f64>,
    /// The amplitude a of a harmonic F_ext = f₀ + a cos(ω t + φ) (zero without one).
    pub amplitude: DVector<f64>,
    /// (ω, φ) of the harmonic part, if any.
    pub frequency: Option<(f64, f64)>,
    /// q₀.
    pub q0: DVector<f64>,
    /// v₀.
    pub v0: DVector<f64>,
    /// H (m × n) of y = H q + Y q² + b (zero on sphere–sphere rows).
    pub h: DMatrix<f64>,
    /// Y.
    pub quadratic: DMatrix<f64>,
    /// b.
    pub offset: DVector<f64>,
    /// Restitution per row (0 on equalities).
    pub restitution: DVector<f64>,
    /// Whether a row is an equality.
    pub equality: Vec<bool>,
    /// Per row, Coulomb friction as [`LinearScene::friction`].
    pub friction: Vec<[f64; 2]>,
    /// Sphere–sphere gaps per row, as [`LinearScene::distance`].
    pub distance: Vec<[f64; 6]>,
    /// The Jacobian G(q₀) of the rows (H for linear rows).
    pub g0: DMatrix<f64>,
}

impl Gathered {
    /// The operators of the step of size `h` with θ = `theta` and Baumgarte's `beta` (0: none)
    /// of the scene gathered here (the module's equations); `row_name` names
    /// a row in errors. Checks that PGS can divide by every row's diagonal of G W⁻¹ Gᵀ at q₀.
    pub fn reduce(self, h: f64, theta: f64, beta: f64, row_name: &dyn Fn(usize) -> String) -> Result<LinearScene> {
        let Gathered {
            mass,
            stiffness,
            damping,
            fext,
            amplitude,
            frequency,
            q0,
            v0,
            h: hmat,
            quadratic,
            offset,
            restitution,
            equality,
            friction,
            distance,
            g0,
        } = self;
        let m = hmat.nrows();
        let feedback = DVector::from_iterator(m, equality.iter().map(|&eq| if eq { beta / h } else { 0.0 }));
        let w = &mass + &damping * (h * theta) + &stiffness * (h * h * theta * theta);
        let w_inv = w.try_inverse().ok_or_else(|| Error::Singular {
            what: "iteration matrix W".into(),
        })?;
        let winv_ht = &w_inv * hmat.transpose();
        let delassus = &hmat * &winv_ht;
        let scene = LinearScene {
            a: &w_inv * (&damping * h + &stiffness * (h * h * theta)),
            b: &w_inv * &stiffness * h,
            c: &w_inv * &fext * h,
            c_harmonic: &w_inv * &amplitude * h,
            omega: frequency.map_or(0.0, |f| f.0),
            phase: frequency.map_or(0.0, |f| f.1),
            delassus,
            winv_ht,
            h: hmat,
            offset,
            restitution,
            equality,
            feedback,
            friction,
            quadratic,
            distance,
            w_inv,
            q0,
            v0,
        };
        // PGS divides by the diagonal of G W⁻¹ Gᵀ, here at q₀.
        let d0 = &g0 * &scene.w_inv * g0.transpose();
        if let Some(row) = (0..m).find(|&r| d0[(r, r)] <= f64::EPSILON * d0.amax()) {
            return Err(Error::Unsupported {
                what: row_name(row),
                reason: "its row of G W⁻¹ Gᵀ has no positive diagonal at q₀ (G row is zero?): PGS cannot solve it"
                    .into(),
            });
        }
        // A 2-D friction contact's block is solved by Cramer's rule and its slides divide by
        // W_NN ± μ W_NT: both must be safely nonzero (else: dependent rows, or Painlevé's
        // paradox, where Coulomb's law has no or several solutions).
        for r in (0..m).filter(|&r| scene.friction[r][0] == 2.0) {
            let d = &scene.delassus;
            let (a, b, c, dd, mu) = (
                d[(r, r)],
                d[(r, r + 1)],
                d[(r + 1, r)],
                d[(r + 1, r + 1)],
                scene.friction[r][1],
            );
            if a * dd - b * c <= 1e-12 * a * dd || a - mu * b.abs() <= 1e-12 * a {
                return Err(Error::Unsupported {
                    what: row_name(r),
                    reason: format!(
                        "its friction contact's block of D is singular or W_NN − μ|W_NT| ≤ 0 (μ = {mu}: Painlevé's paradox): Coulomb's law has no unique local solution"
                    ),
                });
            }
        }
        Ok(scene)
    }
}
