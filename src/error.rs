//! The one error type of the library.
//!
//! Bad input is rejected when a model object is built, naming the object and the field;
//! a solver that did not converge is an error carrying its iteration count and residual.

/// Everything that can go wrong in ricochet.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A vector or matrix has the wrong size.
    #[error("{what}: wrong dimension, expected {expected}, got {got}")]
    Dimension {
        /// The object and field at fault, e.g. `LagrangianLinearTIDS: stiffness K`.
        what: String,
        /// The expected size, e.g. `3x3`.
        expected: String,
        /// The size that was given.
        got: String,
    },
    /// A mass matrix is not symmetric positive definite.
    #[error("{what}: mass matrix is not symmetric positive definite")]
    MassNotSpd {
        /// The dynamical system at fault.
        what: String,
    },
    /// A restitution coefficient outside [0, 1].
    #[error("{what}: restitution coefficient e = {} is outside [0, 1]", number(*value))]
    Restitution {
        /// The non-smooth law at fault.
        what: String,
        /// The coefficient that was given.
        value: f64,
    },
    /// A NaN or an infinity in an input.
    #[error("{what}: contains a non-finite value (NaN or inf)")]
    NonFinite {
        /// The object and field at fault.
        what: String,
    },
    /// A scalar parameter outside its valid range (h ≤ 0, θ ∉ [0, 1], ...).
    #[error("{what} = {} is invalid: {reason}", number(*value))]
    Parameter {
        /// The parameter, e.g. `time step h`.
        what: String,
        /// The value that was given.
        value: f64,
        /// The rule it breaks, e.g. `must be > 0`.
        reason: String,
    },
    /// A model that the chosen integrator or solver cannot handle.
    #[error("{what}: {reason}")]
    Unsupported {
        /// The object at fault.
        what: String,
        /// Why it is not supported.
        reason: String,
    },
    /// A scenario (file or value) that cannot be run as written.
    #[error("scenario: {what}: {reason}")]
    Scenario {
        /// The field or section at fault, e.g. `parameter \`height\``.
        what: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// A command's argument that cannot be used as given (a column a table lacks, a picture
    /// format that is not known), named with what is wrong.
    #[error("{what}: {reason}")]
    Argument {
        /// The argument at fault, e.g. `--y impact`.
        what: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// A matrix that must be inverted is singular.
    #[error("{what}: matrix is singular")]
    Singular {
        /// The matrix, e.g. `iteration matrix W`.
        what: String,
    },
    /// An LCP solver stopped without meeting its tolerance.
    #[error(
        "{solver} did not converge{context}: {iterations} iterations, residual {residual:e} (tolerance {tolerance:e})"
    )]
    NotConverged {
        /// The solver's name.
        solver: String,
        /// Where it happened, e.g. ` at step 12 (t = 0.06)`; may be empty.
        context: String,
        /// Iterations (or pivots) performed.
        iterations: usize,
        /// Final residual in Siconos's measure.
        residual: f64,
        /// The tolerance asked for.
        tolerance: f64,
    },
    /// No usable GPU adapter (or the device request failed).
    #[error("no GPU: {reason}")]
    NoAdapter {
        /// What was looked for and what to do about it.
        reason: String,
    },
    /// A GPU operation failed (buffer mapping, device lost).
    #[error("GPU error: {0}")]
    Gpu(String),
    /// A data file could not be parsed.
    #[error("{file}: {reason}")]
    Parse {
        /// The file (or a description of the source).
        file: String,
        /// What was wrong.
        reason: String,
    },
    /// The run was cancelled ([`Progress::cancel`](crate::batch::Progress::cancel)) before it
    /// finished.
    #[error("interrupted: {what}")]
    Interrupted {
        /// What was kept.
        what: String,
    },
    /// An I/O error.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// `Result` with ricochet's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// The error as met in `place` (e.g. `scene 17`): `place: ` before the object it names,
    /// the kind kept (an unsupported scene stays [`Error::Unsupported`], so that `verify` and
    /// `auto` still tell it apart); kinds that name no object come back unchanged.
    pub fn in_place(self, place: &str) -> Self {
        let at = |what: String| format!("{place}: {what}");
        match self {
            Self::Dimension { what, expected, got } => Self::Dimension {
                what: at(what),
                expected,
                got,
            },
            Self::MassNotSpd { what } => Self::MassNotSpd { what: at(what) },
            Self::Restitution { what, value } => Self::Restitution { what: at(what), value },
            Self::NonFinite { what } => Self::NonFinite { what: at(what) },
            Self::Parameter { what, value, reason } => Self::Parameter {
                what: at(what),
                value,
                reason,
            },
            Self::Unsupported { what, reason } => Self::Unsupported { what: at(what), reason },
            Self::Scenario { what, reason } => Self::Scenario { what: at(what), reason },
            Self::Singular { what } => Self::Singular { what: at(what) },
            Self::Argument { what, reason } => Self::Argument { what: at(what), reason },
            other => other,
        }
    }
}

/// A number as a reader wants it in a message: the shortest exact decimal between 10⁻⁴ and
/// 10¹⁶, else in exponent form (`1e300`, not its 301 digits; `2.5e-12`).
pub fn number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e16).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers_are_short() {
        assert_eq!(super::number(1e300), "1e300");
        assert_eq!(super::number(-2.5e-12), "-2.5e-12");
        assert_eq!(super::number(0.5), "0.5");
        assert_eq!(super::number(f64::NAN), "NaN");
    }
}
