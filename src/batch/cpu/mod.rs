//! The CPU twins of the WGSL kernels: the same stages in the same order over the same
//! layout, generic over f32 and f64. They are the CPU backend of ensembles and the yardstick
//! of the kernels.

pub mod chain_jacobi;
mod health;
pub use crate::contact::lanes;
pub(crate) mod lever;
pub mod moreau_jean_pgs;
mod moreau_jean_rows;
mod moreau_jean_stages;
pub mod simd;
mod sphere_rows;
