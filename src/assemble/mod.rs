//! Assembly: scenes flattened into structure-of-arrays buffers for the batched engines.
//!
//! A [`LinearScene`] is one scene reduced to the constant operators of its Moreau–Jean step
//! (computed once on the host in f64); a [`SceneBatch`] concatenates many of them with
//! per-scene offsets, so scenes of different sizes share one batch, and splits into chunks
//! that fit a device's buffer limits. The CPU batch stepper and the WGSL kernels read the
//! same layout ([`layout`]). A [`BeadChain`] is the other shape: one large scene whose
//! contacts are solved in parallel.

pub mod batch;
pub mod bead_chain;
pub mod layout;
pub mod scene;

pub use batch::SceneBatch;
pub use bead_chain::BeadChain;
pub use layout::SceneHeader;
pub use scene::LinearScene;
