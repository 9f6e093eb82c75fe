//! What a batch run leaves on the host: the final state and the per-scene health, read back
//! from the device.

use super::GpuContext;
use crate::assemble::layout::{HealthCounters, NON_FINITE, NOT_CONVERGED};
use crate::error::{Error, Result};

/// What a batch run leaves, widened to f64 and in the batch's layout.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchOutcome {
    /// q then v of every scene (as `SceneBatch::state`).
    pub state: Vec<f64>,
    /// Per-scene counters.
    pub counters: Vec<HealthCounters>,
    /// Per scene: worst LCP residual, deepest penetration.
    pub extremes: Vec<f64>,
}

impl BatchOutcome {
    /// The first unhealthy scene as an error naming it: a NaN or infinite state, or a step
    /// whose LCP missed `tolerance` (with the worst residual and the most sweeps).
    pub fn ensure_healthy(&self, tolerance: f64) -> Result<()> {
        for (s, c) in self.counters.iter().enumerate() {
            if c.flags & NON_FINITE != 0 {
                return Err(Error::NonFinite {
                    what: format!("batched scene {s}: state after the run"),
                });
            }
            if c.flags & NOT_CONVERGED != 0 {
                return Err(Error::NotConverged {
                    solver: "batched PGS".into(),
                    context: format!(" in scene {s}"),
                    iterations: c.max_iterations as usize,
                    residual: self.extremes[2 * s],
                    tolerance,
                });
            }
        }
        Ok(())
    }
}

/// Finishes `encoder` with copies of `buffers` into mappable staging buffers, submits it,
/// and returns each buffer's bytes (the only read-back of a run).
pub(super) fn read_back<const N: usize>(
    ctx: &GpuContext,
    mut encoder: wgpu::CommandEncoder,
    buffers: [&wgpu::Buffer; N],
) -> [Result<Vec<u8>>; N] {
    let staging = buffers.map(|src| {
        let dst = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: src.size(),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        encoder.copy_buffer_to_buffer(src, 0, &dst, 0, src.size());
        dst
    });
    ctx.queue.submit([encoder.finish()]);
    staging.map(|b| read(ctx, &b))
}

/// Maps a MAP_READ buffer and copies its bytes out.
fn read(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Result<Vec<u8>> {
    let (sender, receiver) = std::sync::mpsc::channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = sender.send(r);
    });
    ctx.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| Error::Gpu(format!("poll: {e}")))?;
    receiver
        .recv()
        .map_err(|e| Error::Gpu(format!("map: {e}")))?
        .map_err(|e| Error::Gpu(format!("map: {e}")))?;
    let bytes = buffer
        .get_mapped_range(..)
        .map_err(|e| Error::Gpu(format!("map: {e}")))?
        .to_vec();
    buffer.unmap();
    Ok(bytes)
}
