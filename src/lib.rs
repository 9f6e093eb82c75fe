//! # ricochet
//!
//! Nonsmooth mechanics — things that bounce, impact and stick — in Siconos's formulation,
//! built for Monte Carlo ensembles.
//!
//! A scene is an [`model::Nsds`]: dynamical systems (`M(q) v̇ = F(t, q, v) + p` for
//! Lagrangian ones, `ẋ = A x + b + r` for first-order ones) linked by interactions, each a
//! relation (`y = h(q)`, `p = ∇hᵀ λ`) and a non-smooth law (Newton impact,
//! complementarity). Time stepping is Moreau–Jean's θ-method: each step solves a linear
//! complementarity problem
//! ```text
//!     0 ≤ λ ⟂ H W⁻¹ Hᵀ λ + H v_free + e H v_k ≥ 0
//! ```
//! for the impulses of the active contacts (see [`solver::moreau_jean`]).
//!
//! Layout, in the order data flows: [`model`] (what the user builds) → [`assemble`] (scenes
//! flattened into structure-of-arrays batches) → [`solver`] (the LCP, the integrators, the
//! f64 CPU reference and the batch's CPU twin in [`solver::cpu`], the WGSL kernels in
//! [`solver::gpu`]) → [`ensemble`] (Monte Carlo: scenarios, backends, per-scene summaries
//! and statistics, behind the `ricochet` command line); [`scenes`] holds the named systems
//! the examples, tests and benches share; [`io`] reads Siconos's data files.
//!
//! ```
//! use ricochet::scenes::bouncing_ball::BouncingBall;
//! use ricochet::solver::cpu::Trajectory;
//!
//! let mut sim = BouncingBall::default().simulation().unwrap();
//! let mut trajectory = Trajectory::default();
//! sim.run(1.0, &mut trajectory).unwrap();
//! // After the first bounce (near t = 0.45 s) the ball moves up again.
//! assert!(trajectory.samples.iter().any(|s| s.v[0] > 0.0));
//! ```
#![warn(missing_docs)]

pub mod assemble;
pub mod ensemble;
pub mod error;
pub mod io;
pub mod model;
pub mod scenes;
pub mod solver;

pub use error::{Error, Result};
