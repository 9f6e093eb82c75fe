//! The options of a batched run, the same for the CPU lanes and the GPU kernels.

use crate::scheme::NewtonOptions;

/// Tolerance and sweep limit of the batched PGS.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchOptions {
    /// Stop PGS when Siconos's error is ≤ this (1e-6 suits f32, 1e-12 f64).
    pub tolerance: f64,
    /// At most this many sweeps per step.
    pub max_iterations: u32,
    /// Scenes with nonlinear rows: the Newton loop stops when ‖(G(q^{i−1}) − G(q^i))ᵀ λ‖ ≤
    /// this (the reference's default, 1e-6)…
    pub newton_tolerance: f64,
    /// …or after this many MLCP solves (50), flagging the scene as not converged.
    pub newton_max_iterations: u32,
}

impl BatchOptions {
    /// The default for a value type: tolerance 1e-6 (f32) or 1e-12 (f64), 200 sweeps; the
    /// Newton loop as the reference's ([`NewtonOptions`]).
    pub fn for_precision(double: bool) -> Self {
        let newton = NewtonOptions::default();
        Self {
            tolerance: if double { 1e-12 } else { 1e-6 },
            max_iterations: 200,
            newton_tolerance: newton.tolerance,
            newton_max_iterations: newton.max_iterations as u32,
        }
    }
}
