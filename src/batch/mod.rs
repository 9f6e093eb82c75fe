//! The batched engine: many scenes (or one large one) flattened into structure-of-arrays
//! buffers and stepped by the same stages on the CPU lanes ([`cpu`]) and in the WGSL kernels
//! (`gpu`, with the `gpu` feature).
//!
//! A [`LinearScene`] is one scene reduced to the constant operators of its Moreau–Jean (or
//! nonsmooth RATTLE) step
//! (computed once on the host in f64); a [`SceneBatch`] concatenates many of them with
//! per-scene offsets, so scenes of different sizes share one batch, and splits into chunks
//! that fit a device's buffer limits; a scene whose matrices are mostly zeros keeps only their
//! nonzeros ([`sparsity`]). The CPU lanes and the WGSL kernels read the same layout
//! ([`layout`]) and leave the same [`BatchOutcome`]. A [`BeadChain`] is the other shape: one
//! large scene whose contacts are solved in parallel.

pub mod bead_chain;
pub mod cpu;
pub mod gathered;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod interleaved;
pub mod layout;
pub mod linear_scene;
mod nsds_scene;
pub mod observe;
mod options;
mod outcome;
pub mod progress;
pub mod scene_batch;
mod shared;
pub mod sparsity;

pub use bead_chain::{BeadChain, ChainOptions};
pub use gathered::Gathered;
pub use layout::{RowKind, SceneHeader};
pub use linear_scene::LinearScene;
pub use options::{BatchOptions, f32_location_refusal};
pub use outcome::BatchOutcome;
pub use progress::Progress;
pub use scene_batch::SceneBatch;
pub use shared::{ChainParams, OperatorOffsets, StepParams};
