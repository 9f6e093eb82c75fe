//! Where a scene's parameters come from when it is built by name (a scenario's `[scene]`
//! table): each parameter is asked for by name with its default, and the source answers with
//! a fixed value or a draw from the scene's random stream. Scenes ask in a fixed order, so a
//! drawn scene depends on the seed and its index only.

use nalgebra::DMatrix;

use crate::error::{Error, Result};
use crate::validate;

/// A template's physical requirement on one of its parameters (a positive radius, a ball not
/// starting inside the floor): `ok`, else an error naming the template and the parameter, with
/// its value and `reason`. Checked where the template reads its parameters, so that a drawn
/// value that breaks it names its scene.
pub fn require(template: &str, name: &str, value: f64, ok: bool, reason: &str) -> Result<()> {
    named(template, name, |what| validate::scalar(what, value, ok, reason))
}

/// `check` of the parameter `name` of `template`, the two named in its error (formatted only
/// then: templates check every drawn scene's parameters).
fn named(template: &str, name: &str, check: impl Fn(&str) -> Result<()>) -> Result<()> {
    check("").or_else(|_| check(&format!("{template}: `{name}`")))
}

/// A template's parameter that the scene divides by or inverts (a mass, a length, a radius,
/// a modulus): a positive normal number ([`validate::positive`]), else an error naming the
/// template and the parameter.
pub fn require_positive(template: &str, name: &str, value: f64) -> Result<()> {
    named(template, name, |what| validate::positive(what, value))
}

/// A template's parameter that may vanish but not change sign (a friction coefficient, a
/// damping, a spring's stiffness): ≥ 0 ([`validate::non_negative`]), else an error naming the
/// template and the parameter.
pub fn require_non_negative(template: &str, name: &str, value: f64) -> Result<()> {
    named(template, name, |what| validate::non_negative(what, value))
}

/// Refuses a scene of `n` degrees of freedom and `m` rows set by the size parameter `name` =
/// `count` of `template` when one scene alone would need more than half of this machine's
/// memory: its step's dense operators, 8 (3n² + 3nm + m²) bytes (the batch layout's; the
/// reference's matrices are as large), estimated before anything is built.
pub fn require_memory(template: &str, (name, count): (&str, usize), n: usize, m: usize) -> Result<()> {
    let Some(memory) = validate::machine_memory() else {
        return Ok(());
    };
    let (n, m) = (n as f64, m as f64);
    let bytes = 8.0 * (3.0 * n * n + 3.0 * n * m + m * m);
    if bytes > memory as f64 / 2.0 {
        return Err(Error::Scenario {
            what: format!("{template}: `{name}` = {count}"),
            reason: format!(
                "one scene of {n} degrees of freedom and {m} rows needs about {} for its dense operators; this machine has {}",
                validate::bytes(bytes),
                validate::bytes(memory as f64)
            ),
        });
    }
    Ok(())
}

/// A source of named parameters. Each is declared where a template asks for it — its name,
/// its SI unit (`""` for a pure number) and its default — and that one declaration is what
/// `ricochet templates`, the units of a run's columns and the plots' axes read
/// ([`Template::parameters`](super::template::Template::parameters)).
pub trait Parameters {
    /// A number (fixed or drawn) in `unit`; `default` when absent.
    fn scalar(&mut self, name: &str, unit: &'static str, default: f64) -> Result<f64>;

    /// A size (number of balls, nodes): a fixed whole number ≥ 1; `default` when absent.
    fn count(&mut self, name: &str, default: usize) -> Result<usize>;

    /// `len` numbers in `unit`, each fixed or drawn; `default` everywhere when absent. (The
    /// only vectors, `linear`'s, are in the user's units: `""` there says so, not "a pure
    /// number" as for a scalar.)
    fn vector(&mut self, name: &str, unit: &'static str, len: usize, default: f64) -> Result<Vec<f64>>;

    /// A matrix of fixed numbers; `default` (and its shape required) when given, else the
    /// parameter is required.
    fn matrix(&mut self, name: &str, default: Option<&DMatrix<f64>>) -> Result<DMatrix<f64>>;
}
