//! Device time per stage of the step held on the device ([`super::GpuScene`]), from timestamp
//! queries where the adapter has them (`wgpu::Features::TIMESTAMP_QUERY`): each submit's
//! passes — the stages before the sweeps, the sweeps, the stages after them — write their
//! start and end ticks, which come back with the step's report.

use std::ops::Range;

use crate::batch::gpu::GpuContext;

/// The passes of a step, in order: before the sweeps, the sweeps, after them.
pub(super) const PASSES: usize = 3;

/// The queries of one submit's passes and the buffer they resolve into.
pub(super) struct StageTimer {
    queries: Option<wgpu::QuerySet>,
    ticks: wgpu::Buffer,
}

impl StageTimer {
    /// Two queries per pass on `ctx` where it has timestamps; otherwise the passes go
    /// untimed.
    pub(super) fn new(ctx: &GpuContext) -> Self {
        let queries = ctx.has_timestamps().then(|| {
            ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("large-scene stages"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * PASSES as u32,
            })
        });
        let ticks = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("large-scene ticks"),
            size: (16 * PASSES) as u64,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        Self { queries, ticks }
    }

    /// Whether the passes are timed.
    pub(super) fn timed(&self) -> bool {
        self.queries.is_some()
    }

    /// The start and end writes of pass `pass` (none when untimed).
    pub(super) fn writes(&self, pass: usize) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        self.queries.as_ref().map(|query_set| wgpu::ComputePassTimestampWrites {
            query_set,
            beginning_of_pass_write_index: Some(2 * pass as u32),
            end_of_pass_write_index: Some(2 * pass as u32 + 1),
        })
    }

    /// Resolves the ticks of the passes `passes` (those the submit recorded) to the start of
    /// the ticks buffer; the bytes to read back (none when untimed).
    pub(super) fn resolve(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        passes: Range<usize>,
    ) -> (&wgpu::Buffer, Range<u64>) {
        match &self.queries {
            Some(query_set) => {
                let queries = 2 * passes.start as u32..2 * passes.end as u32;
                encoder.resolve_query_set(query_set, queries, &self.ticks, 0);
                (&self.ticks, 0..(16 * passes.len()) as u64)
            }
            None => (&self.ticks, 0..0),
        }
    }

    /// The seconds of each pass in `passes` on `ctx` from their read-back ticks `bytes`
    /// ([`GpuContext::timestamp_seconds`]; zero for the passes not in `passes` and when
    /// untimed).
    pub(super) fn seconds(ctx: &GpuContext, bytes: &[u8], passes: Range<usize>) -> [f64; PASSES] {
        let mut seconds = [0.0; PASSES];
        for (pass, pair) in passes.zip(bytes.chunks_exact(16)) {
            seconds[pass] = ctx.timestamp_seconds(pair);
        }
        seconds
    }
}
