//! A scene gathered over its coordinates — M, K, C, F_ext, the rows H, Y, b and their laws —
//! as [`LinearScene::reduce`](crate::batch::LinearScene::reduce) takes it to the constant
//! operators of its Moreau–Jean step.

use nalgebra::{DMatrix, DVector};

use super::layout::RowKind;

/// A scene's systems and rows over its n coordinates (systems concatenated).
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
    /// (ω, φ, end) of the harmonic part, if any (it acts for t < end).
    pub frequency: Option<(f64, f64, f64)>,
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
    /// The kind of each row, as [`LinearScene::rows`](crate::batch::LinearScene::rows).
    pub rows: Vec<RowKind>,
    /// Coulomb's μ per row, as [`LinearScene::mu`](crate::batch::LinearScene::mu).
    pub mu: Vec<f64>,
    /// Sphere–sphere gaps per row, as [`LinearScene::distance`](crate::batch::LinearScene::distance).
    pub distance: Vec<[f64; 6]>,
    /// Lever terms per row, as [`LinearScene::lever`](crate::batch::LinearScene::lever).
    pub lever: Vec<[f64; 3]>,
    /// The Jacobian G(q₀) of the rows (H for linear rows).
    pub g0: DMatrix<f64>,
}
