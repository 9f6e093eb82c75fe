//! One large scene — up to 10⁶ discs (2-D) or spheres (3-D) among static walls — stepped by
//! Moreau–Jean with its contacts solved in parallel, beside the scene-parallel [`crate::batch`]
//! and sharing its local solves ([`crate::contact::local`]).
//!
//! A step is a list of named stages over arrays ([`LargeScene::step`]):
//! ```text
//!   broad_phase      when a body may have come within reach of a pair not listed: the pairs
//!                    with gap ≤ δ from a grid sorted by cell key, sorted by pair key, coloured
//!                    greedily (no two pairs of a colour share a body) — on the host or a
//!                    device ([`ContactSolver::pairs`], [`ContactSolver::colour`])
//!   narrow_phase     each pair's gap g, frame (n, t), diagonal block (w_N, w_T), Newton target
//!                    ê = e u_k and activation g + γ h u_N,k ≤ 0; warm start r from the last step
//!   free_velocity    v_free = v_k + h g;  q = H v_free + ê
//!   warm_start       v = v_free + M⁻¹ Hᵀ r
//!   solve            coloured NSGS sweeps (velocity form; a colour's contacts relaxed four at
//!                    a time in lanes, `packed`) until Siconos's error ≤ tol, or
//!                    Jacobi sweeps with mass splitting (no colours needed; `jacobi`)
//!   update_position  x_{k+1} = x_k + h (θ v_{k+1} + (1 − θ) v_k)
//!   discharge        a body below the sink (if any) leaves the scene, at rest
//! ```
//! [`LargeScene::step_on`] runs the stages on the host around a [`ContactSolver`];
//! `gpu::GpuScene` runs them all on a device, the scene held there between broad phases
//! ([`Stepper`] takes steps either way).
//!
//! Every order comes from body ids (pairs by key, colours in key order, sums in contact order),
//! never from thread scheduling: any number of threads gives the same bits.

pub mod bodies;
pub mod broad_phase;
pub mod colouring;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod jacobi;
pub mod local;
pub mod narrow_phase;
pub mod packed;
mod plane;
pub mod reference;
pub mod residual;
mod scene;
pub mod solve;
pub mod state;
pub mod stepper;
pub mod walls;

pub use bodies::{Bodies, Dimension};
#[cfg(feature = "gpu")]
pub use gpu::{GpuScene, GpuSolver};
pub use jacobi::JacobiSolver;
pub use scene::{LargeScene, StepReport};
pub use solve::{ContactSolver, CpuSolver, SolverOptions};
pub use state::SceneState;
pub use stepper::{StageSeconds, Stepper};
pub use walls::{Shape, Wall};
