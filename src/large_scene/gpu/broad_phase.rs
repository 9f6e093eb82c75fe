//! The stage `broad_phase` on the device ([`GpuBroadPhase`]): the CPU twin's grid
//! ([`crate::large_scene::broad_phase::candidate_pairs`]) hashed into buckets and
//! counting-sorted there (`shaders/large_scene_broad_phase.wgsl`, offsets by
//! [`PrefixSum`]). The centres go up; one submit counts each body's partners, a 4-byte read
//! sizes the pair list (grown when it would not fit: no pair is dropped), a second submit
//! writes the pairs, and they come back — the twin's pairs in the twin's order. f32 widens
//! the margin by its rounding (a few ulps of the scene's size) so as to miss no pair within
//! it, and may list a few more.

use crate::batch::gpu::buffers::{bind_group, grown, read_back_ranges, storage_of, uniform_of};
use crate::batch::gpu::kernel::{Bindings, compile, groups};
use crate::batch::gpu::prefix_sum::{PrefixSum, Scan};
use crate::batch::gpu::{GpuContext, Precision, shaders};
use crate::error::Result;
use crate::large_scene::bodies::Bodies;
use crate::large_scene::broad_phase::{Grid, Pair, bodies_box, candidate_pairs};
use crate::large_scene::walls::{Shape, Wall};

/// The kernel's `Sizes`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Sizes {
    bodies: u32,
    walls: u32,
    axes: u32,
    periodic: u32,
    cells: [u32; 3],
    mask: u32,
}

/// Where the walls start in the geometry buffer (the kernel's `WALLS`), values per wall.
const WALLS: usize = 16;
const WALL: usize = 8;

/// The device's buffers, sized for `bodies` bodies, `walls` walls and `capacity` pairs.
struct Buffers {
    bodies: usize,
    walls: usize,
    capacity: usize,
    /// Buckets: a power of two ≥ 2 × bodies.
    buckets: usize,
    sizes: wgpu::Buffer,
    geometry: wgpu::Buffer,
    spheres: wgpu::Buffer,
    cells: wgpu::Buffer,
    keys: wgpu::Buffer,
    sorted: wgpu::Buffer,
    degree: wgpu::Buffer,
    pairs: wgpu::Buffer,
    group: wgpu::BindGroup,
    scan_cells: Scan,
    scan_degree: Scan,
}

/// The broad phase on one device, f32 or f64, with its buffers (kept, grown when a scene
/// outgrows them).
pub struct GpuBroadPhase {
    ctx: GpuContext,
    precision: Precision,
    layout: wgpu::BindGroupLayout,
    cell_keys: wgpu::ComputePipeline,
    scatter: wgpu::ComputePipeline,
    count_partners: wgpu::ComputePipeline,
    write_pairs: wgpu::ComputePipeline,
    prefix_sum: PrefixSum,
    buffers: Option<Buffers>,
}

impl GpuBroadPhase {
    /// Compiles the kernel for `ctx` (shared) in `precision` (f64 needs `SHADER_F64`).
    pub fn new(ctx: &GpuContext, precision: Precision) -> Result<Self> {
        ctx.check_precision(precision)?;
        let bindings = Bindings {
            dynamic_uniform: false,
            read_only: &[true, true, false, false, false, false, false],
        };
        let (layout, [cell_keys, scatter, count_partners, write_pairs]) = compile(
            ctx,
            ("large_scene_broad_phase", "broad-phase"),
            shaders::large_scene_broad_phase(precision),
            bindings,
            ["cell_keys", "scatter", "count_partners", "write_pairs"],
        )?;
        Ok(Self {
            ctx: ctx.clone(),
            precision,
            layout,
            cell_keys,
            scatter,
            count_partners,
            write_pairs,
            prefix_sum: PrefixSum::new(ctx)?,
            buffers: None,
        })
    }

    /// The device memory of the buffers for `bodies` bodies with `pairs` pairs in
    /// `precision` (the walls' few values aside; before the quarter more a buffer takes when
    /// it grows): per body its sphere, cell key, place in the sorted order and partner
    /// count, 2N to 4N buckets' counts, 8 bytes per pair, and the prefix sums' block totals.
    pub fn bytes(bodies: usize, pairs: usize, precision: Precision) -> usize {
        let buckets = (2 * bodies).next_power_of_two();
        4 * bodies * precision.size()
            + 4 * (buckets + 1)
            + 4 * bodies * 2
            + 4 * (bodies + 1)
            + 8 * pairs
            + PrefixSum::scratch_bytes(buckets)
            + PrefixSum::scratch_bytes(bodies)
    }

    /// The pairs within `margin` of one another or of a wall, sorted by pair key: in f64
    /// those of [`candidate_pairs`], bit for bit (a grid with more cells along an axis than
    /// the device's coordinates hold is left to it).
    pub fn pairs(&mut self, bodies: &Bodies, walls: &[Wall], margin: f64) -> Result<Vec<Pair>> {
        if bodies.is_empty() {
            return Ok(Vec::new());
        }
        if !self.prepare(bodies_box(bodies), bodies, walls, margin)? {
            return candidate_pairs(bodies, walls, margin);
        }
        let spheres: Vec<f64> = (0..bodies.len())
            .flat_map(|k| {
                let r = if bodies.present[k] { bodies.radius[k] } else { -1.0 };
                [bodies.x[k][0], bodies.x[k][1], bodies.x[k][2], r]
            })
            .collect();
        let b = self.buffers.as_ref().expect("prepared");
        self.ctx
            .queue
            .write_buffer(&b.spheres, 0, &self.precision.bytes(&spheres));
        let total = self.count(self.ctx.device.create_command_encoder(&Default::default()))?;
        if total == 0 {
            return Ok(Vec::new());
        }
        let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
        let ctx = self.ctx.clone();
        let pairs = self.write(&mut encoder, total)?;
        let [bytes] = read_back_ranges(&ctx, encoder, [(pairs, 0..8 * total as u64)], || {});
        Ok(bytemuck::pod_collect_to_vec::<u8, [u32; 2]>(&bytes?)
            .into_iter()
            .map(|[i, j]| Pair { i, j })
            .collect())
    }

    /// Writes the sizes, the grid over the box `[lo, hi]` of the centres of `bodies` (their
    /// count, dimension, radii and period; their centres are not read) and the walls,
    /// growing the buffers to fit; false (nothing written) when the grid has more cells
    /// along an axis than the device's coordinates hold. The spheres are the caller's to
    /// write, at [`Self::spheres`].
    pub(super) fn prepare(
        &mut self,
        [lo, hi]: [[f64; 3]; 2],
        bodies: &Bodies,
        walls: &[Wall],
        margin: f64,
    ) -> Result<bool> {
        let n = bodies.len();
        let slack = match self.precision {
            Precision::F64 => 0.0,
            Precision::F32 => {
                let extent = lo.iter().chain(&hi).fold(0.0f64, |a, c| a.max(c.abs()));
                16.0 * f64::from(f32::EPSILON) * (extent + 2.0 * bodies.max_radius() + margin)
            }
        };
        let grid = Grid::over([lo, hi], bodies, 2.0 * bodies.max_radius() + margin + 2.0 * slack)?;
        let most = match self.precision {
            Precision::F64 => 1 << 31,
            Precision::F32 => 1 << 24,
        };
        if grid.cells.iter().any(|&c| c >= most) {
            return Ok(false);
        }
        let fits = self
            .buffers
            .as_ref()
            .is_some_and(|b| b.bodies >= n && b.walls >= walls.len());
        if !fits {
            let capacity = self.buffers.as_ref().map_or(8 * n, |b| b.capacity);
            self.buffers = Some(self.allocate(grown(n, 0), walls.len(), capacity)?);
        }
        let b = self.buffers.as_ref().expect("allocated");
        let sizes = Sizes {
            bodies: n as u32,
            walls: walls.len() as u32,
            axes: bodies.dimension.rows() as u32,
            periodic: u32::from(grid.periodic),
            cells: grid.cells.map(|c| c as u32),
            mask: (b.buckets - 1) as u32,
        };
        let mut geometry = vec![0.0; WALLS + WALL * walls.len().max(1)];
        geometry[..3].copy_from_slice(&grid.origin);
        geometry[3..6].copy_from_slice(&grid.cell);
        geometry[6..9].copy_from_slice(&[bodies.period.unwrap_or(0.0), margin, slack]);
        for (w, wall) in walls.iter().enumerate() {
            let at = &mut geometry[WALLS + WALL * w..WALLS + WALL * (w + 1)];
            match wall.shape {
                Shape::Plane { point, normal } => {
                    at[1..4].copy_from_slice(&point);
                    at[4..7].copy_from_slice(&normal);
                }
                Shape::Segment { a, b, owns_a, owns_b } => {
                    at[0] = 1.0;
                    at[1..4].copy_from_slice(&a);
                    at[4..7].copy_from_slice(&b);
                    at[7] = f64::from(u8::from(owns_a) + 2 * u8::from(owns_b));
                }
            }
        }
        let queue = &self.ctx.queue;
        queue.write_buffer(&b.sizes, 0, bytemuck::bytes_of(&sizes));
        queue.write_buffer(&b.geometry, 0, &self.precision.bytes(&geometry));
        Ok(true)
    }

    /// The spheres' buffer: per body x, y, z and R (R < 0: no longer present).
    pub(super) fn spheres(&self) -> &wgpu::Buffer {
        &self.buffers.as_ref().expect("prepared").spheres
    }

    /// Buckets, sorts and counts each body's partners after what `encoder` holds (the
    /// spheres written); returns how many pairs there are.
    pub(super) fn count(&self, mut encoder: wgpu::CommandEncoder) -> Result<usize> {
        let b = self.buffers.as_ref().expect("prepared");
        encoder.clear_buffer(&b.cells, 0, None);
        encoder.clear_buffer(&b.degree, 0, None);
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            let (x, y) = groups(b.bodies);
            for (pipeline, scan) in [
                (&self.cell_keys, Some(&b.scan_cells)),
                (&self.scatter, None),
                (&self.count_partners, Some(&b.scan_degree)),
            ] {
                pass.set_bind_group(0, &b.group, &[]);
                pass.set_pipeline(pipeline);
                pass.dispatch_workgroups(x, y, 1);
                if let Some(scan) = scan {
                    self.prefix_sum.record(&mut pass, scan);
                }
            }
        }
        let last = 4 * b.bodies as u64;
        let [total] = read_back_ranges(&self.ctx, encoder, [(&b.degree, last..last + 4)], || {});
        Ok(u32::from_le_bytes(total?[..4].try_into().expect("4 bytes")) as usize)
    }

    /// Records the writing of the `total` pairs [`Self::count`] counted (growing their
    /// buffer first if they do not fit) and returns the buffer they will be in, (i, j) as
    /// two u32 each.
    pub(super) fn write(&mut self, encoder: &mut wgpu::CommandEncoder, total: usize) -> Result<&wgpu::Buffer> {
        if total > self.buffers.as_ref().expect("counted").capacity {
            let old = self.buffers.take().expect("counted");
            let capacity = total + total / 4;
            let pairs = storage_of(&self.ctx, "the broad phase's pairs", 8 * capacity)?;
            let group = self.bind(&old, &pairs);
            self.buffers = Some(Buffers {
                capacity,
                pairs,
                group,
                ..old
            });
        }
        let b = self.buffers.as_ref().expect("counted");
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_bind_group(0, &b.group, &[]);
        pass.set_pipeline(&self.write_pairs);
        let (x, y) = groups(b.bodies);
        pass.dispatch_workgroups(x, y, 1);
        Ok(&b.pairs)
    }

    /// Buffers for `bodies` bodies, `walls` walls and `capacity` pairs.
    fn allocate(&self, bodies: usize, walls: usize, capacity: usize) -> Result<Buffers> {
        let size = self.precision.size();
        let buckets = (2 * bodies).next_power_of_two();
        let sizes = uniform_of(&self.ctx, "broad_phase_sizes", size_of::<Sizes>() as u64);
        let geometry = storage_of(
            &self.ctx,
            "the broad phase's geometry",
            (WALLS + WALL * walls.max(1)) * size,
        )?;
        let spheres = storage_of(&self.ctx, "the broad phase's spheres", 4 * bodies * size)?;
        let cells = storage_of(&self.ctx, "the broad phase's cell counts", 4 * (buckets + 1))?;
        let keys = storage_of(&self.ctx, "the broad phase's cell keys", 4 * bodies)?;
        let sorted = storage_of(&self.ctx, "the broad phase's sorted bodies", 4 * bodies)?;
        let degree = storage_of(&self.ctx, "the broad phase's partner counts", 4 * (bodies + 1))?;
        let pairs = storage_of(&self.ctx, "the broad phase's pairs", 8 * capacity)?;
        let scan_cells = self.prefix_sum.bind(&cells, buckets)?;
        let scan_degree = self.prefix_sum.bind(&degree, bodies)?;
        let storage = [&geometry, &spheres, &cells, &keys, &sorted, &degree, &pairs];
        let group = bind_group(&self.ctx, "large_scene_broad_phase", &self.layout, &sizes, &storage);
        Ok(Buffers {
            bodies,
            walls,
            capacity,
            buckets,
            group,
            sizes,
            geometry,
            spheres,
            cells,
            keys,
            sorted,
            degree,
            pairs,
            scan_cells,
            scan_degree,
        })
    }

    /// The bind group of `b`'s buffers with `pairs` as the pair list.
    fn bind(&self, b: &Buffers, pairs: &wgpu::Buffer) -> wgpu::BindGroup {
        let storage = [&b.geometry, &b.spheres, &b.cells, &b.keys, &b.sorted, &b.degree, pairs];
        bind_group(&self.ctx, "large_scene_broad_phase", &self.layout, &b.sizes, &storage)
    }
}
