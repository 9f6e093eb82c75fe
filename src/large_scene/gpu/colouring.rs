//! The stage `colour` of the broad phase on the device ([`GpuColouring`]): Jones–Plassmann
//! rounds (`shaders/large_scene_colouring.wgsl`) that give the colours of the CPU twin,
//! [`crate::large_scene::colouring::greedy`] (the greedy colouring in priority order). The
//! pairs go up into buffers kept from one rebuild to the next (or are copied there on the
//! device), rounds are submitted 8, 16, 32 … at a time until none is left uncoloured (a
//! 4-byte read after each submit), and the colours come back — or, for a scene held on the
//! device, the pairs are sorted there by (colour, key) and only each colour's start comes
//! back.

use crate::batch::gpu::buffers::{bind_group, grown, read_back_ranges, storage_of, uniform_of};
use crate::batch::gpu::kernel::{Bindings, compile, groups};
use crate::batch::gpu::prefix_sum::{PrefixSum, Scan};
use crate::batch::gpu::{GpuContext, shaders};
use crate::error::{Error, Result};
use crate::large_scene::broad_phase::Pair;
use crate::large_scene::colouring::COLOURS;

/// The kernel's `Sizes`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Sizes {
    pairs: u32,
    bodies: u32,
    blocks: u32,
    pad: u32,
}

/// The colours with the overflow (the kernel's `KINDS`), and the pairs per block of the
/// sort (`SPAN`).
const KINDS: usize = COLOURS + 1;
const SPAN: usize = 64;

/// The device's buffers, sized for `pairs` pairs of `bodies` bodies.
struct Buffers {
    pairs: usize,
    bodies: usize,
    sizes: wgpu::Buffer,
    pair_list: wgpu::Buffer,
    mask: wgpu::Buffer,
    colour: wgpu::Buffer,
    left: wgpu::Buffer,
    hist: wgpu::Buffer,
    sorted: wgpu::Buffer,
    scan: Scan,
    group: wgpu::BindGroup,
}

impl Buffers {
    /// The sort's blocks: those of the pairs the buffers hold.
    fn blocks(&self) -> usize {
        self.pairs.div_ceil(SPAN)
    }
}

/// Jones–Plassmann colouring on one device, with its pipelines and buffers (kept, grown when
/// a scene outgrows them).
pub struct GpuColouring {
    ctx: GpuContext,
    layout: wgpu::BindGroupLayout,
    uncolour: wgpu::ComputePipeline,
    reset: wgpu::ComputePipeline,
    bid: wgpu::ComputePipeline,
    pick: wgpu::ComputePipeline,
    colour_counts: wgpu::ComputePipeline,
    place: wgpu::ComputePipeline,
    colour_starts: wgpu::ComputePipeline,
    prefix_sum: PrefixSum,
    buffers: Option<Buffers>,
}

impl GpuColouring {
    /// Compiles the kernel for `ctx` (shared).
    pub fn new(ctx: &GpuContext) -> Result<Self> {
        let bindings = Bindings {
            dynamic_uniform: false,
            read_only: &[true, false, false, false, false, false, false],
        };
        let source = shaders::large_scene_colouring();
        let (layout, [uncolour, reset, bid, pick, colour_counts, place, colour_starts]) = compile(
            ctx,
            ("large_scene_colouring", "colouring"),
            source,
            bindings,
            [
                "uncolour",
                "reset",
                "bid",
                "pick",
                "colour_counts",
                "place",
                "colour_starts",
            ],
        )?;
        Ok(Self {
            ctx: ctx.clone(),
            layout,
            uncolour,
            reset,
            bid,
            pick,
            colour_counts,
            place,
            colour_starts,
            prefix_sum: PrefixSum::new(ctx)?,
            buffers: None,
        })
    }

    /// The device memory of the buffers for `pairs` pairs of `bodies` bodies (before the
    /// quarter more they take when they grow): per pair its bodies, colour and sorted place
    /// (28 bytes), per body its bid and colour mask, the sort's counts per colour and block
    /// of 64 pairs with their prefix sum's block totals.
    pub fn bytes(bodies: usize, pairs: usize) -> usize {
        let counts = KINDS * pairs.div_ceil(SPAN);
        28 * pairs + 12 * bodies + 16 + 4 * (counts + KINDS + 2) + PrefixSum::scratch_bytes(counts)
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
            let counts = KINDS * m.div_ceil(SPAN);
            let hist = storage_of(ctx, &what("counts by colour"), 4 * (counts + KINDS + 2))?;
            let sorted = storage_of(ctx, &what("sorted list"), 16 * m)?;
            let scan = self.prefix_sum.bind(&hist, counts)?;
            let storage = [&pair_list, &best, &mask, &colour, &left, &hist, &sorted];
            let group = bind_group(ctx, "large_scene_colouring", &self.layout, &sizes, &storage);
            self.buffers = Some(Buffers {
                pairs: m,
                bodies,
                sizes,
                pair_list,
                mask,
                colour,
                left,
                hist,
                sorted,
                scan,
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
        let flat: Vec<[u32; 2]> = pairs.iter().map(|p| [p.i, p.j]).collect();
        let b = self.buffers.as_ref().expect("fitted");
        self.ctx
            .queue
            .write_buffer(&b.pair_list, 0, bytemuck::cast_slice(&flat));
        let encoder = self.ctx.device.create_command_encoder(&Default::default());
        self.rounds(encoder, m, bodies)?;
        let encoder = self.ctx.device.create_command_encoder(&Default::default());
        let [colours] = read_back_ranges(&self.ctx, encoder, [(&b.colour, 0..4 * m as u64)], || {});
        Ok(bytemuck::pod_collect_to_vec(&colours?))
    }

    /// The `m` pairs of `bodies` bodies that `source` holds from its start (sorted by key,
    /// two u32 each), coloured and sorted by (colour, key) on the device, each as i, j, 0
    /// and its place in key order: after the submits of the rounds, `then` records what
    /// reads the sorted list (given) in the encoder that sorts it, and the start of each
    /// colour comes back, the overflow's last, then the total.
    pub(super) fn sort(
        &mut self,
        source: &wgpu::Buffer,
        m: usize,
        bodies: usize,
        then: impl FnOnce(&mut wgpu::CommandEncoder, &wgpu::Buffer),
    ) -> Result<[usize; KINDS + 1]> {
        self.fit(m, bodies)?;
        let b = self.buffers.as_ref().expect("fitted");
        let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(source, 0, &b.pair_list, 0, 8 * m as u64);
        self.rounds(encoder, m, bodies)?;
        let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&b.hist, 0, None);
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &b.group, &[]);
            let (x, y) = groups(b.blocks());
            pass.set_pipeline(&self.colour_counts);
            pass.dispatch_workgroups(x, y, 1);
            self.prefix_sum.record(&mut pass, &b.scan);
            pass.set_bind_group(0, &b.group, &[]);
            let (x, y) = groups(m);
            pass.set_pipeline(&self.place);
            pass.dispatch_workgroups(x, y, 1);
            pass.set_pipeline(&self.colour_starts);
            pass.dispatch_workgroups((KINDS + 1).div_ceil(64) as u32, 1, 1);
        }
        then(&mut encoder, &b.sorted);
        let start = 4 * (KINDS * b.blocks() + 1) as u64;
        let [starts] = read_back_ranges(
            &self.ctx,
            encoder,
            [(&b.hist, start..start + 4 * (KINDS + 1) as u64)],
            || {},
        );
        let starts: Vec<u32> = bytemuck::pod_collect_to_vec(&starts?);
        Ok(std::array::from_fn(|c| starts[c] as usize))
    }

    /// Runs rounds after what `encoder` holds (the pairs written) until every one of the
    /// `m` pairs of `bodies` bodies has its colour.
    fn rounds(&self, mut encoder: wgpu::CommandEncoder, m: usize, bodies: usize) -> Result<()> {
        let (ctx, b) = (&self.ctx, self.buffers.as_ref().expect("fitted"));
        let size = Sizes {
            pairs: m as u32,
            bodies: bodies as u32,
            blocks: b.blocks() as u32,
            pad: 0,
        };
        ctx.queue.write_buffer(&b.sizes, 0, bytemuck::bytes_of(&size));
        encoder.clear_buffer(&b.mask, 0, None);
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &b.group, &[]);
            let (x, y) = groups(m);
            pass.set_pipeline(&self.uncolour);
            pass.dispatch_workgroups(x, y, 1);
        }
        let (mut rounds, mut batch) = (0, 8);
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
                return Ok(());
            }
            if rounds > m {
                return Err(Error::Gpu(format!(
                    "the colouring left {remaining} of {m} pairs after {rounds} rounds (each round colours one at least)"
                )));
            }
            batch *= 2;
            encoder = ctx.device.create_command_encoder(&Default::default());
        }
    }
}
