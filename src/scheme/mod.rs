//! The time-stepping schemes as every engine sees them: the parameters and formulas of the
//! one-step integrators (Moreau–Jean and nonsmooth RATTLE for Lagrangian systems, Euler–Moreau for first-order
//! ones), the activation rule and the stabilisation of equality constraints. The reference
//! stepper, the CPU lanes and the WGSL kernels all follow these.

pub mod euler_moreau;
pub mod moreau_jean;
pub mod nonsmooth_rattle;
mod stabilization;

pub use euler_moreau::EulerMoreauOSI;
pub use moreau_jean::{Activation, MoreauJeanOSI, NewtonOptions};
pub use nonsmooth_rattle::NonsmoothRattleOSI;

/// Which one-step integrator steps the Lagrangian scenes of a run (a scenario's
/// `[time] integrator`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LagrangianIntegrator {
    /// Moreau–Jean (Siconos's; first order), on every engine.
    #[default]
    MoreauJean,
    /// Nonsmooth RATTLE (second order between impacts), on every engine.
    Rattle,
}
pub use stabilization::Stabilization;
