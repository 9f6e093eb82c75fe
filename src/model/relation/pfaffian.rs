//! Non-holonomic (Pfaffian) constraints `a(q) v = 0`: a velocity constraint that is not the
//! derivative of any position constraint (a knife edge, a rolling disk).
//!
//! The reaction is f_c = a(q)ᵀ λ and does no work on admissible velocities. The relation has
//! no position-level output (y is reported as 0); its velocity is ẏ = a(q) v.

use std::sync::Arc;

use nalgebra::{DMatrix, DVector};

/// a(q), as a closure.
pub type ConstraintMatrixFn = Arc<dyn Fn(&DVector<f64>) -> DMatrix<f64> + Send + Sync>;

/// `a(q) v = 0`, with a(q) given as a closure (rows: equations; columns: the coordinates of
/// the interaction's systems). Use it with [`EqualityConditionNSL`](crate::model::EqualityConditionNSL).
#[derive(Clone)]
pub struct PfaffianR {
    pub(crate) a: ConstraintMatrixFn,
}

impl PfaffianR {
    /// From a(q); its shape is checked when the interaction is linked.
    pub fn new(a: impl Fn(&DVector<f64>) -> DMatrix<f64> + Send + Sync + 'static) -> Self {
        Self { a: Arc::new(a) }
    }
}
