//! The GPU engine: the only module that touches wgpu. [`GpuContext`] opens a device,
//! [`shaders`] composes the WGSL kernels, [`moreau_jean_pgs`] runs a [`SceneBatch`] on the device.
//!
//! [`SceneBatch`]: crate::batch::SceneBatch

pub(crate) mod buffers;
pub mod chain_jacobi;
pub mod context;
pub(crate) mod kernel;
pub mod moreau_jean_pgs;
pub mod prefix_sum;
pub mod shaders;
pub mod tuning;

pub use chain_jacobi::{ChainOutcome, run_chain};
pub use context::{ADAPTER_VAR, AdapterSummary, GpuContext, list_adapters};
pub use moreau_jean_pgs::{BatchKernel, run_batch};
pub use tuning::{TUNING_VAR, Tuning};

/// Values one task converts between f64 and the device's bytes.
const CONVERTED: usize = 4096;

/// Value type of the GPU kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// 32-bit floats (every adapter).
    F32,
    /// 64-bit floats (adapters with `SHADER_F64`, such as lavapipe).
    F64,
}

impl Precision {
    /// Bytes per value.
    pub fn size(self) -> usize {
        match self {
            Self::F32 => 4,
            Self::F64 => 8,
        }
    }

    /// The most negative finite value (the seed of running maxima).
    pub(crate) fn lowest(self) -> f64 {
        match self {
            Self::F32 => f64::from(f32::MIN),
            Self::F64 => f64::MIN,
        }
    }

    /// `values` in this precision, as bytes (converted on all cores).
    pub(crate) fn bytes(self, values: &[f64]) -> Vec<u8> {
        use rayon::prelude::*;
        match self {
            Self::F32 => {
                let mut out = vec![0u8; 4 * values.len()];
                out.par_chunks_mut(4 * CONVERTED)
                    .zip(values.par_chunks(CONVERTED))
                    .for_each(|(out, values)| {
                        for (b, &x) in out.chunks_exact_mut(4).zip(values) {
                            b.copy_from_slice(&(x as f32).to_ne_bytes());
                        }
                    });
                out
            }
            Self::F64 => bytemuck::cast_slice(values).to_vec(),
        }
    }

    /// Values of this precision read from bytes, widened to f64 (on all cores).
    pub(crate) fn values(self, bytes: &[u8]) -> Vec<f64> {
        use rayon::prelude::*;
        match self {
            Self::F32 => {
                let mut out = vec![0.0; bytes.len() / 4];
                out.par_chunks_mut(CONVERTED)
                    .zip(bytes.par_chunks(4 * CONVERTED))
                    .for_each(|(out, bytes)| {
                        for (x, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                            *x = f64::from(f32::from_ne_bytes([b[0], b[1], b[2], b[3]]));
                        }
                    });
                out
            }
            Self::F64 => bytemuck::pod_collect_to_vec::<u8, f64>(bytes),
        }
    }
}
