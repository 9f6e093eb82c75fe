//! An exclusive prefix sum of u32 counts on the device ([`PrefixSum`],
//! `shaders/prefix_sum.wgsl`): the offsets of a counting sort, or of each item's share of an
//! output list, without leaving the device.

use super::GpuContext;
use super::buffers::bind_group;
use super::kernel::{Bindings, compile};
use crate::error::{Error, Result};

/// Values per workgroup (the kernel's `WIDTH`).
const WIDTH: usize = 256;

/// The most blocks the kernel's one-invocation loop over block totals runs (lavapipe stops a
/// loop after 65 535 iterations).
const MAX_BLOCKS: usize = 65_535;

/// The kernel's `Sizes`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Sizes {
    n: u32,
    blocks: u32,
    pad: [u32; 2],
}

/// `data[k] ← Σ_{i<k} data[i]` for k ≤ n (`data[n]`, zero on entry, ends as the total): what
/// the kernel computes. Twin: the kernel's entry points (`shaders/prefix_sum.wgsl`).
pub fn exclusive_sum(data: &mut [u32]) {
    let mut sum = 0u32;
    for x in data {
        (*x, sum) = (sum, sum.wrapping_add(*x));
    }
}

/// The prefix-sum kernel on one device.
pub struct PrefixSum {
    ctx: GpuContext,
    layout: wgpu::BindGroupLayout,
    scan_blocks: wgpu::ComputePipeline,
    scan_totals: wgpu::ComputePipeline,
    add_totals: wgpu::ComputePipeline,
}

/// One buffer bound for [`PrefixSum::record`]: its first n + 1 values are scanned.
pub struct Scan {
    group: wgpu::BindGroup,
    blocks: usize,
}

impl PrefixSum {
    /// Compiles the kernel for `ctx` (shared).
    pub fn new(ctx: &GpuContext) -> Result<Self> {
        let bindings = Bindings {
            dynamic_uniform: false,
            read_only: &[false, false],
        };
        let source = include_str!("../../../shaders/prefix_sum.wgsl").to_owned();
        let (layout, [scan_blocks, scan_totals, add_totals]) = compile(
            ctx,
            ("prefix_sum", "prefix-sum"),
            source,
            bindings,
            ["scan_blocks", "scan_totals", "add_totals"],
        )?;
        Ok(Self {
            ctx: ctx.clone(),
            layout,
            scan_blocks,
            scan_totals,
            add_totals,
        })
    }

    /// The device memory [`Self::bind`] adds for a sum of `n` counts: one total per block.
    pub fn scratch_bytes(n: usize) -> usize {
        (4 * (n + 1).div_ceil(WIDTH)).max(16)
    }

    /// Binds the first n + 1 u32 of `data` (n counts and a zero) for an exclusive sum.
    pub fn bind(&self, data: &wgpu::Buffer, n: usize) -> Result<Scan> {
        let blocks = (n + 1).div_ceil(WIDTH);
        if blocks > MAX_BLOCKS || 4 * (n as u64 + 1) > data.size() {
            return Err(Error::Unsupported {
                what: format!("a prefix sum of {n} counts on the device"),
                reason: format!(
                    "at most {} counts, in a buffer of n + 1 values ({} bytes given)",
                    MAX_BLOCKS * WIDTH - 1,
                    data.size()
                ),
            });
        }
        let device = &self.ctx.device;
        let sizes = wgpu::util::DeviceExt::create_buffer_init(
            device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("prefix_sum"),
                contents: bytemuck::bytes_of(&Sizes {
                    n: n as u32,
                    blocks: blocks as u32,
                    pad: [0; 2],
                }),
                usage: wgpu::BufferUsages::UNIFORM,
            },
        );
        let totals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("prefix_sum_totals"),
            size: Self::scratch_bytes(n) as u64,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let group = bind_group(&self.ctx, "prefix_sum", &self.layout, &sizes, &[data, &totals]);
        Ok(Scan { group, blocks })
    }

    /// Records the sum of `scan`'s buffer: three dispatches.
    pub fn record(&self, pass: &mut wgpu::ComputePass, scan: &Scan) {
        pass.set_bind_group(0, &scan.group, &[]);
        let blocks = scan.blocks as u32;
        for (pipeline, groups) in [
            (&self.scan_blocks, blocks),
            (&self.scan_totals, 1),
            (&self.add_totals, blocks),
        ] {
            pass.set_pipeline(pipeline);
            pass.dispatch_workgroups(groups, 1, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use wgpu::util::DeviceExt;

    use super::*;
    use crate::batch::gpu::buffers::read_back;

    /// The kernel's sums are the twin's, across one block, its edges and many blocks (and
    /// counts whose total passes 2¹⁶). Skips without an adapter unless RICOCHET_REQUIRE_GPU=1.
    #[test]
    fn kernel_sums_are_the_twin() {
        let ctx = match GpuContext::new() {
            Ok(ctx) => ctx,
            Err(e) => {
                assert!(std::env::var("RICOCHET_REQUIRE_GPU").as_deref() != Ok("1"), "{e}");
                eprintln!("SKIPPED: {e}");
                return;
            }
        };
        let kernel = PrefixSum::new(&ctx).unwrap();
        for n in [0, 1, 255, 256, 257, 1000, 100_003] {
            let mut counts: Vec<u32> = (0..n as u32).map(|k| k.wrapping_mul(2_654_435_761) >> 29).collect();
            counts.push(0);
            let buffer = ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("counts"),
                contents: bytemuck::cast_slice(&counts),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            });
            let scan = kernel.bind(&buffer, n).unwrap();
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                kernel.record(&mut pass, &scan);
            }
            let [bytes] = read_back(&ctx, encoder, [&buffer], || {});
            let sums: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes.unwrap());
            exclusive_sum(&mut counts);
            assert_eq!(sums, counts, "n = {n}");
        }
        let small = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let e = kernel.bind(&small, 4).err().unwrap().to_string();
        assert!(e.contains("a prefix sum of 4 counts"), "{e}");
    }
}
