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
//! for the impulses of the active contacts (see [`scheme::moreau_jean`]).
//!
//! Layout, in the order data flows (a module imports only from those before it):
//! [`error`] and [`validate`] → [`model`] (what the user builds) → [`scheme`] (the
//! integrators' parameters, activation, stabilisation) → [`numerics`] (LCP, MLCP and their
//! solvers) → [`io`] (Siconos's data files) → [`reference`](mod@reference) (the f64 time stepper) →
//! [`contact`] (the local Coulomb solves both engines share) → [`batch`] (scenes flattened
//! into structure-of-arrays buffers, stepped by the CPU lanes and the WGSL kernels) and, beside
//! it, [`large_scene`] (one scene of many discs or spheres, its contacts solved in
//! parallel) → [`engine`] (one `Engine` interface over the reference, CPU and GPU engines) → [`scenes`] (the named systems the examples, tests and benches share) →
//! [`ensemble`] (Monte Carlo: scenarios, backends, summaries, statistics, behind the
//! `ricochet` command line).
//!
//! ```
//! use ricochet::scenes::bouncing_ball::BouncingBall;
//! use ricochet::reference::Trajectory;
//!
//! let mut sim = BouncingBall::default().simulation().unwrap();
//! let mut trajectory = Trajectory::default();
//! sim.run(1.0, &mut trajectory).unwrap();
//! // After the first bounce (near t = 0.45 s) the ball moves up again.
//! assert!(trajectory.samples.iter().any(|s| s.v[0] > 0.0));
//! ```
#![warn(missing_docs)]

pub mod batch;
pub mod contact;
pub mod engine;
pub mod ensemble;
pub mod error;
pub mod io;
pub mod large_scene;
pub mod model;
pub mod numerics;
pub mod reference;
pub mod scenes;
pub mod scheme;
pub mod validate;

pub use error::{Error, Result};

/// The README's Rust snippets, compiled (and run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
