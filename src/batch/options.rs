//! The options of a batched run, the same for the CPU lanes and the GPU kernels.

use crate::error::Error;
use crate::scheme::{NewtonOptions, NonsmoothRattleOSI};

/// Tolerances and iteration limits of the batched PGS, Newton loop and RATTLE stage 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchOptions {
    /// Stop PGS when Siconos's error is ≤ this (1e-6 suits f32, 1e-12 f64).
    pub tolerance: f64,
    /// At most this many sweeps per step.
    pub max_iterations: u32,
    /// Scenes with nonlinear rows: the Newton loop stops when ‖(G(q^{i−1}) − G(q^i))ᵀ λ‖ ≤
    /// this (the reference's default, 1e-6)…
    pub newton_tolerance: f64,
    /// …or after this many MLCP solves (50), flagging the scene as not converged (RATTLE's
    /// stage 1 too).
    pub newton_max_iterations: u32,
    /// Nonsmooth RATTLE's stage 1 stops when every equality's |y| and every contact's
    /// complementarity residual is ≤ this: the reference's 1e-13 in f64, 1e-5 in f32 (a few
    /// hundred times f32's round-off of a unit-size y).
    pub position_tolerance: f64,
    /// Locate each impact inside its step (Moreau–Jean without stiffness or damping on the
    /// CPU lanes; `batch::cpu::moreau_jean_stages::located`).
    pub locate_impacts: bool,
    /// The index of the batch's first scene in its ensemble, by which errors name a scene.
    pub first_scene: usize,
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
            position_tolerance: if double {
                NonsmoothRattleOSI::default().position_tolerance
            } else {
                1e-5
            },
            locate_impacts: false,
            first_scene: 0,
        }
    }
}

/// Why impacts are not located in f32, by the CPU lanes or the GPU kernel: their times are
/// refined to 1e-12 h.
pub fn f32_location_refusal() -> Error {
    Error::Unsupported {
        what: "locating impacts inside the step (`locate_impacts`) in f32".into(),
        reason: "impact times are refined to 1e-12 h, below f32's resolution: run in f64 \
                 (`[solver] precision = \"f64\"`) or on the CPU backend"
            .into(),
    }
}
