//! The GPU engine: the scene-parallel WGSL kernel on one adapter, in f32 or f64.

use super::{BatchOutcome, Engine, Job};
use crate::batch::gpu::{BatchKernel, GpuContext, Precision};
use crate::error::Result;

/// The kernel, compiled for one precision on one device.
pub struct GpuEngine {
    ctx: GpuContext,
    kernel: BatchKernel,
    precision: Precision,
}

impl GpuEngine {
    /// The kernel in `precision` on `ctx`'s device (`None`: f64 where the adapter has it).
    pub fn new(ctx: GpuContext, precision: Option<Precision>) -> Result<Self> {
        let precision = precision.unwrap_or(if ctx.supports_f64() {
            Precision::F64
        } else {
            Precision::F32
        });
        let kernel = BatchKernel::new(&ctx, precision)?;
        Ok(Self { ctx, kernel, precision })
    }
}

impl Engine for GpuEngine {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn describe(&self) -> String {
        format!("gpu {} {:?}", self.ctx.adapter_name(), self.precision)
    }

    fn double(&self) -> bool {
        self.precision == Precision::F64
    }

    fn run(&self, job: &Job<'_>) -> Result<BatchOutcome> {
        let batch = job.batch()?;
        self.kernel
            .run(&self.ctx, &batch, job.steps, &job.batch_options(self.double()))
    }
}
