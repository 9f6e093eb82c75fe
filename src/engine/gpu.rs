//! The GPU engine: the scene-parallel WGSL kernel on one adapter, in f32 or f64.

use super::{BatchOutcome, Engine, Job, SCENES_IN_FLIGHT};
use crate::batch::gpu::{BatchKernel, GpuContext, Precision};
use crate::batch::layout::SceneHeader;
use crate::batch::sparsity::GPU_COMPRESSED_FROM;
use crate::error::Result;

/// The most bytes of scene buffers a run hands the device at once: 2 GiB.
pub const DEVICE_BUDGET: u64 = 2 << 30;

/// The kernel, compiled for one precision on one device.
pub struct GpuEngine {
    ctx: GpuContext,
    kernel: BatchKernel,
    precision: Precision,
}

impl GpuEngine {
    /// The kernel in `precision` on `ctx`'s device (`None`: f64 where the adapter has it).
    pub fn new(ctx: GpuContext, precision: Option<Precision>) -> Result<Self> {
        let precision = precision.unwrap_or(ctx.best_precision());
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

    fn driver(&self) -> Option<String> {
        Some(self.ctx.driver())
    }

    fn tuning(&self) -> Option<String> {
        Some(self.ctx.tuning().to_string())
    }

    fn double(&self) -> bool {
        self.precision == Precision::F64
    }

    /// See [`scenes_in_flight`].
    fn scenes_in_flight(&self, example: &Job<'_>) -> Result<usize> {
        let batch = example.batch(GPU_COMPRESSED_FROM, self.double())?;
        let record = batch
            .headers
            .first()
            .map_or(0, |h| batch.recording.len(h.ndof as usize, h.ncontacts as usize));
        let values = (batch.operators.len() + batch.state.len() + record) as u64;
        let bytes = values * self.precision.size() as u64 + std::mem::size_of::<SceneHeader>() as u64;
        Ok(scenes_in_flight(self.ctx.is_cpu(), self.ctx.max_binding_bytes(), bytes))
    }

    fn run(&self, job: &Job<'_>) -> Result<BatchOutcome> {
        let assembly = std::time::Instant::now();
        let batch = job.batch(GPU_COMPRESSED_FROM, self.double())?;
        log::debug!(
            "{} scenes assembled in {:.3} s",
            batch.len(),
            assembly.elapsed().as_secs_f64()
        );
        self.kernel.run(
            &self.ctx,
            &batch,
            (job.steps, job.progress),
            &job.batch_options(self.double()),
        )
    }
}

/// Scenes to run at once on an adapter whose storage bindings hold `binding_bytes`, for scenes
/// of `bytes` of buffers each. A discrete or integrated GPU needs many waves of invocations in
/// flight to hide memory latency (an H100 holds 132 SMs × 2 048 = 270 336 resident
/// invocations, one per scene): 2²⁰ scenes, or fewer when their buffers would exceed one
/// binding or [`DEVICE_BUDGET`]. A CPU adapter (lavapipe) runs as many scenes at once as it
/// has cores: [`SCENES_IN_FLIGHT`].
pub fn scenes_in_flight(cpu_adapter: bool, binding_bytes: u64, bytes: u64) -> usize {
    if cpu_adapter {
        return SCENES_IN_FLIGHT;
    }
    let fit = binding_bytes.min(DEVICE_BUDGET) / bytes.max(1);
    usize::try_from(fit).unwrap_or(usize::MAX).clamp(1, 1 << 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenes_in_flight_fill_the_device_within_its_bindings() {
        assert_eq!(scenes_in_flight(true, 1 << 40, 100), SCENES_IN_FLIGHT);
        assert_eq!(scenes_in_flight(false, 4 << 30, 200), 1 << 20);
        assert_eq!(scenes_in_flight(false, 1 << 20, 1024), 1024);
        assert_eq!(scenes_in_flight(false, 64 << 30, 4096), (2 << 30) / 4096);
        assert_eq!(scenes_in_flight(false, 1 << 10, 1 << 20), 1);
    }
}
