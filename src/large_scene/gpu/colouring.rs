//! The stage `colour` of the broad phase on the device ([`GpuColouring`]): Jones–Plassmann
//! rounds (`shaders/large_scene_colouring.wgsl`) that give the colours of the CPU twin,
//! [`crate::large_scene::colouring::greedy`] (the greedy colouring in priority order). The
//! pairs go up into buffers kept from one rebuild to the next, rounds are submitted 8, 16,
//! 32 … at a time until none is left uncoloured (a 4-byte read after each submit), and the
//! colours come back.

use crate::batch::gpu::buffers::{bind_group, grown, read_back_ranges, storage_of, uniform_of};
use crate::batch::gpu::kernel::{Bindings, compile, groups};
use crate::batch::gpu::{GpuContext, shaders};
use crate::error::{Error, Result};
use crate::large_scene::broad_phase::Pair;

/// The kernel's `Sizes`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Sizes {
    pairs: u32,
    bodies: u32,
    pad: [u32; 2],
}

/// The kernel's `NONE`: an uncoloured pair.
const NONE: u32 = u32::MAX;

/// The device's buffers, sized for `pairs` pairs of `bodies` bodies.
struct Buffers {
    pairs: usize,
    bodies: usize,
    sizes: wgpu::Buffer,
    pair_list: wgpu::Buffer,
    mask: wgpu::Buffer,
    colour: wgpu::Buffer,
    left: wgpu::Buffer,
    group: wgpu::BindGroup,
}

/// Jones–Plassmann colouring on one device, with its pipelines and buffers (kept, grown when
/// a scene outgrows them).
pub struct GpuColouring {
    ctx: GpuContext,
    layout: wgpu::BindGroupLayout,
    reset: wgpu::ComputePipeline,
    bid: wgpu::ComputePipeline,
    pick: wgpu::ComputePipeline,
    buffers: Option<Buffers>,
}

impl GpuColouring {
    /// Compiles the kernel for `ctx` (shared).
    pub fn new(ctx: &GpuContext) -> Result<Self> {
        let bindings = Bindings {
            dynamic_uniform: false,
            read_only: &[true, false, false, false, false],
        };
        let source = shaders::large_scene_colouring();
        let (layout, [reset, bid, pick]) = compile(
            ctx,
            ("large_scene_colouring", "colouring"),
            source,
            bindings,
            ["reset", "bid", "pick"],
        )?;
        Ok(Self {
            ctx: ctx.clone(),
            layout,
            reset,
            bid,
            pick,
            buffers: None,
        })
    }

    /// The device memory of the buffers for `pairs` pairs of `bodies` bodies (before the
    /// quarter more they take when they grow): per pair its bodies and colour, per body its
    /// bid and colour mask.
    pub fn bytes(bodies: usize, pairs: usize) -> usize {
        12 * pairs + 12 * bodies + 16
    }

    /// Grows the buffers (by a quarter more than asked) when `m` pairs of `bodies` bodies do
    /// not fit.
    fn fit(&mut self, m: usize, bodies: usize) -> Result<()> {
        if !self
            .buffers
            .as_ref()
            .is_some_and(|b| b.pairs >= m && b.bodies >= bodies)
        {
            let old = self.buffers.as_ref();
            let (m, bodies) = (
                grown(m, old.map_or(0, |b| b.pairs)),
                grown(bodies, old.map_or(0, |b| b.bodies)),
            );
            let what = |part: &str| format!("the colouring's {part} ({m} pairs of {bodies} bodies)");
            let ctx = &self.ctx;
            let sizes = uniform_of(ctx, "colouring_sizes", size_of::<Sizes>() as u64);
            let pair_list = storage_of(ctx, &what("pairs"), 8 * m)?;
            let best = storage_of(ctx, &what("bids"), 4 * bodies)?;
            let mask = storage_of(ctx, &what("colour masks"), 8 * bodies)?;
            let colour = storage_of(ctx, &what("colours"), 4 * m)?;
            let left = storage_of(ctx, &what("count"), 4)?;
            let storage = [&pair_list, &best, &mask, &colour, &left];
            let group = bind_group(ctx, "large_scene_colouring", &self.layout, &sizes, &storage);
            self.buffers = Some(Buffers {
                pairs: m,
                bodies,
                sizes,
                pair_list,
                mask,
                colour,
                left,
                group,
            });
        }
        Ok(())
    }

    /// Each pair's colour (as [`crate::large_scene::colouring::greedy`] gives it) among `bodies` bodies.
    pub fn colour(&mut self, pairs: &[Pair], bodies: usize) -> Result<Vec<u32>> {
        let m = pairs.len();
        if m == 0 {
            return Ok(Vec::new());
        }
        self.fit(m, bodies)?;
        let (ctx, b) = (&self.ctx, self.buffers.as_ref().expect("fitted"));
        let size = Sizes {
            pairs: m as u32,
            bodies: bodies as u32,
            pad: [0; 2],
        };
        ctx.queue.write_buffer(&b.sizes, 0, bytemuck::bytes_of(&size));
        let flat: Vec<[u32; 2]> = pairs.iter().map(|p| [p.i, p.j]).collect();
        ctx.queue.write_buffer(&b.pair_list, 0, bytemuck::cast_slice(&flat));
        ctx.queue
            .write_buffer(&b.colour, 0, bytemuck::cast_slice(&vec![NONE; m]));
        let (mut rounds, mut batch) = (0, 8);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&b.mask, 0, None);
        loop {
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_bind_group(0, &b.group, &[]);
                for _ in 0..batch {
                    for (pipeline, n) in [(&self.reset, bodies), (&self.bid, m), (&self.pick, m)] {
                        let (x, y) = groups(n);
                        pass.set_pipeline(pipeline);
                        pass.dispatch_workgroups(x, y, 1);
                    }
                }
            }
            rounds += batch;
            let [remaining] = read_back_ranges(ctx, encoder, [(&b.left, 0..4)], || {});
            let remaining = u32::from_le_bytes(remaining?[..4].try_into().expect("4 bytes"));
            if remaining == 0 {
                break;
            }
            if rounds > m {
                return Err(Error::Gpu(format!(
                    "the colouring left {remaining} of {m} pairs after {rounds} rounds (each round colours one at least)"
                )));
            }
            batch *= 2;
            encoder = ctx.device.create_command_encoder(&Default::default());
        }
        let encoder = ctx.device.create_command_encoder(&Default::default());
        let [colours] = read_back_ranges(ctx, encoder, [(&b.colour, 0..4 * m as u64)], || {});
        Ok(bytemuck::pod_collect_to_vec(&colours?))
    }
}
