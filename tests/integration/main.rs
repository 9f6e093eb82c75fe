//! The integration tests, one binary: each module was a test crate of its own. One crate
//! compiles the library's generic engines (the f32 lanes the GPU f32 kernels are checked
//! against, above all) once instead of once per file, and links once. Run one module's tests
//! with `cargo test --test integration friction::`.

mod common;

mod cancel;
#[cfg(feature = "cli")]
mod cli;
mod compressed_rows;
mod constraints;
mod determinism;
mod discrete_state;
#[cfg(feature = "gpu")]
mod ensemble;
#[cfg(all(feature = "gpu", feature = "cli"))]
mod ensemble_files;
#[cfg(feature = "gpu")]
mod ensemble_friction;
#[cfg(feature = "gpu")]
mod ensemble_inputs;
mod errors;
mod extreme_inputs;
mod first_order_nonlinear;
mod friction;
mod friction_physics;
#[cfg(feature = "gpu")]
mod gpu_chain;
#[cfg(feature = "gpu")]
mod gpu_vs_cpu;
mod impact_location;
mod large_scene;
#[cfg(feature = "gpu")]
mod large_scene_device;
mod large_scene_jacobi;
mod large_scene_reference;
#[cfg(feature = "cli")]
mod large_scene_runs;
mod lcp_solvers;
mod limits;
mod mlcp_solvers;
mod models;
#[cfg(feature = "gpu")]
mod observables;
mod physics;
mod rattle;
mod rattle_engines;
mod scene_parameters;
mod scenes;
mod sensitivity;
#[cfg(feature = "gpu")]
mod shaders;
mod siconos_reference;
mod simd;
mod stop;
mod sweeps;
