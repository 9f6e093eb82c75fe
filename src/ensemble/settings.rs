//! The settings tables of a scenario besides its scenes: `[time]` (the step, θ, γ, the
//! integrator and the stabilisation), `[solver]` (the one-step problem's solver and the
//! engines' precision) and `[record]` (the trajectories kept).

use serde::{Deserialize, Serialize};

use crate::numerics::SolverKind;
use crate::scheme::{LagrangianIntegrator, Stabilization};

/// `[time]`: Moreau–Jean from t = 0.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeSettings {
    /// Step h (s).
    pub step: f64,
    /// Final time T (s); the run takes ⌈T/h⌉ steps.
    #[serde(rename = "final")]
    pub final_time: f64,
    /// θ. Default ½.
    #[serde(default = "half")]
    pub theta: f64,
    /// γ of the activation test y + γ h ẏ ≤ 0. Default ½.
    #[serde(default = "half")]
    pub gamma: f64,
    /// What keeps equality constraints on their manifold: `"none"` (default), `"projection"`
    /// (reference backend only) or `{ baumgarte = β }`.
    #[serde(default)]
    pub stabilization: StabilizationChoice,
    /// The integrator of Lagrangian scenes: `"moreau_jean"` (default; θ, γ) or `"rattle"`
    /// (nonsmooth RATTLE, second order; every backend).
    #[serde(default, skip_serializing_if = "is_moreau_jean")]
    pub integrator: LagrangianIntegrator,
    /// Locate each impact inside its step and apply it at its time, instead of at the end of
    /// the step (Moreau–Jean, reference backend). Default false; left out of the scenario's
    /// fingerprint when false, so that runs from before the key resume.
    #[serde(default, skip_serializing_if = "is_false")]
    pub locate_impacts: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_moreau_jean(integrator: &LagrangianIntegrator) -> bool {
    *integrator == LagrangianIntegrator::MoreauJean
}

/// The `stabilization` key of `[time]` (see [`Stabilization`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum StabilizationChoice {
    /// Velocity level only.
    #[default]
    None,
    /// Projection onto the constraints after each step (to 10⁻¹²).
    Projection,
    /// Baumgarte feedback with gain β.
    Baumgarte(f64),
}

impl From<StabilizationChoice> for Stabilization {
    fn from(choice: StabilizationChoice) -> Self {
        match choice {
            StabilizationChoice::None => Self::None,
            StabilizationChoice::Projection => Self::projection(),
            StabilizationChoice::Baumgarte(beta) => Self::Baumgarte { beta },
        }
    }
}

pub(super) fn half() -> f64 {
    0.5
}

/// Floating-point precision on the GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrecisionChoice {
    /// f64 where the adapter has it, else f32.
    #[default]
    Auto,
    /// f32.
    F32,
    /// f64 (an error where the adapter lacks it).
    F64,
}

/// `[solver]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SolverSettings {
    /// Which solver. Default PGS.
    pub kind: SolverKind,
    /// Siconos's error tolerance. Default: 1e-12 in f64, 1e-6 in f32.
    pub tolerance: Option<f64>,
    /// Sweeps (or pivots) per step. Default 200.
    pub max_iterations: u32,
    /// Relaxation ω of the reference stepper's PGS (SOR, default 1) and Jacobi (default:
    /// provably convergent). The batched engines run PGS with ω = 1.
    pub omega: Option<f64>,
    /// Precision of the GPU kernels.
    pub precision: PrecisionChoice,
}

impl Default for SolverSettings {
    fn default() -> Self {
        Self {
            kind: SolverKind::Pgs,
            tolerance: None,
            max_iterations: 200,
            omega: None,
            precision: PrecisionChoice::Auto,
        }
    }
}

/// `[record]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RecordSettings {
    /// Number K of scenes whose trajectories are kept (spread evenly over the ensemble).
    pub trajectories: usize,
    /// Keep every `stride`-th step of them.
    pub stride: u32,
}

impl Default for RecordSettings {
    fn default() -> Self {
        Self {
            trajectories: 4,
            stride: 10,
        }
    }
}

impl TimeSettings {
    /// Steps of `step` to `final_time`, θ = γ = ½, no stabilisation.
    pub fn new(step: f64, final_time: f64) -> Self {
        Self {
            step,
            final_time,
            theta: half(),
            gamma: half(),
            stabilization: StabilizationChoice::None,
            integrator: LagrangianIntegrator::MoreauJean,
            locate_impacts: false,
        }
    }
}
