//! The stage `colour` of the broad phase on the device ([`GpuColouring`]): Jones–Plassmann
//! rounds (`shaders/large_scene_colouring.wgsl`) that give the colours of the CPU twin,
//! [`crate::large_scene::colouring::greedy`] (the greedy colouring in priority order). The pairs go up,
//! rounds are submitted 8, 16, 32 … at a time until none is left uncoloured (a 4-byte read
//! after each submit), and the colours come back.

use crate::batch::gpu::buffers::{bind_group, read_back};
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

/// Jones–Plassmann colouring on one device, with its pipelines.
pub struct GpuColouring {
    ctx: GpuContext,
    layout: wgpu::BindGroupLayout,
    reset: wgpu::ComputePipeline,
    bid: wgpu::ComputePipeline,
    pick: wgpu::ComputePipeline,
}

impl GpuColouring {
    /// Compiles the kernel for `ctx` (shared).
    pub fn new(ctx: &GpuContext) -> Result<Self> {
        let bindings = Bindings {
            dynamic_uniform: false,
            read_only: &[true, false, false, false, false],
        };
        let source = shaders::LARGE_SCENE_COLOURING.to_owned();
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
        })
    }

    /// Each pair's colour (as [`crate::large_scene::colouring::greedy`] gives it) among `bodies` bodies.
    pub fn colour(&self, pairs: &[Pair], bodies: usize) -> Result<Vec<u32>> {
        let m = pairs.len();
        if m == 0 {
            return Ok(Vec::new());
        }
        let device = &self.ctx.device;
        let largest = (8 * m).max(8 * bodies) as u64;
        if largest > self.ctx.max_binding_bytes() {
            return Err(Error::Unsupported {
                what: format!("colouring {m} pairs of {bodies} bodies on the device"),
                reason: format!(
                    "{largest} bytes in one binding, past the adapter's {}",
                    self.ctx.max_binding_bytes()
                ),
            });
        }
        let buffer = |label: &str, bytes: usize, usage: wgpu::BufferUsages| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes.max(16) as u64,
                usage: usage | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        let storage = wgpu::BufferUsages::STORAGE;
        let sizes = buffer("sizes", size_of::<Sizes>(), wgpu::BufferUsages::UNIFORM);
        let pair_buffer = buffer("pairs", 8 * m, storage);
        let best = buffer("best", 4 * bodies, storage);
        let mask = buffer("mask", 8 * bodies, storage);
        let colour = buffer("colour", 4 * m, storage);
        let left = buffer("left", 4, storage);
        let queue = &self.ctx.queue;
        let size = Sizes {
            pairs: m as u32,
            bodies: bodies as u32,
            pad: [0; 2],
        };
        queue.write_buffer(&sizes, 0, bytemuck::bytes_of(&size));
        let flat: Vec<[u32; 2]> = pairs.iter().map(|p| [p.i, p.j]).collect();
        queue.write_buffer(&pair_buffer, 0, bytemuck::cast_slice(&flat));
        queue.write_buffer(&colour, 0, bytemuck::cast_slice(&vec![NONE; m]));
        let storage = [&pair_buffer, &best, &mask, &colour, &left];
        let group = bind_group(&self.ctx, "large_scene_colouring", &self.layout, &sizes, &storage);
        let (mut rounds, mut batch) = (0, 8);
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&mask, 0, None);
        loop {
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_bind_group(0, &group, &[]);
                for _ in 0..batch {
                    for (pipeline, n) in [(&self.reset, bodies), (&self.bid, m), (&self.pick, m)] {
                        let (x, y) = groups(n);
                        pass.set_pipeline(pipeline);
                        pass.dispatch_workgroups(x, y, 1);
                    }
                }
            }
            rounds += batch;
            let [remaining] = read_back(&self.ctx, encoder, [&left], || {});
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
            encoder = device.create_command_encoder(&Default::default());
        }
        let encoder = device.create_command_encoder(&Default::default());
        let [colours] = read_back(&self.ctx, encoder, [&colour], || {});
        let colours = colours?;
        Ok(colours[..4 * m]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }
}
