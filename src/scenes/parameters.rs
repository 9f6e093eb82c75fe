//! Where a scene's parameters come from when it is built by name (a scenario's `[scene]`
//! table): each parameter is asked for by name with its default, and the source answers with
//! a fixed value or a draw from the scene's random stream. Scenes ask in a fixed order, so a
//! drawn scene depends on the seed and its index only.

use nalgebra::DMatrix;

use crate::error::Result;
use crate::validate;

/// A template's physical requirement on one of its parameters (a positive radius, a ball not
/// starting inside the floor): `ok`, else an error naming the template and the parameter, with
/// its value and `reason`. Checked where the template reads its parameters, so that a drawn
/// value that breaks it names its scene.
pub fn require(template: &str, name: &str, value: f64, ok: bool, reason: &str) -> Result<()> {
    validate::scalar(&format!("{template}: `{name}`"), value, ok, reason)
}

/// A source of named parameters.
pub trait Parameters {
    /// A number (fixed or drawn); `default` when absent.
    fn scalar(&mut self, name: &str, default: f64) -> Result<f64>;

    /// A size (number of balls, nodes): a fixed whole number ≥ 1; `default` when absent.
    fn count(&mut self, name: &str, default: usize) -> Result<usize>;

    /// `len` numbers, each fixed or drawn; `default` everywhere when absent.
    fn vector(&mut self, name: &str, len: usize, default: f64) -> Result<Vec<f64>>;

    /// A matrix of fixed numbers; `default` (and its shape required) when given, else the
    /// parameter is required.
    fn matrix(&mut self, name: &str, default: Option<&DMatrix<f64>>) -> Result<DMatrix<f64>>;
}
