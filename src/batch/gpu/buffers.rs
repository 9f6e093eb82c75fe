//! Device buffers: creation, bind groups, and the one read-back of a run.

use wgpu::util::DeviceExt;

use super::GpuContext;
use crate::error::{Error, Result};

/// A storage buffer holding `contents` (16 zero bytes when empty: a binding may not be empty,
/// nor shorter than one element, e.g. a `vec4<u32>`).
pub(super) fn storage(ctx: &GpuContext, label: &str, contents: &[u8]) -> wgpu::Buffer {
    let contents = if contents.is_empty() { &[0u8; 16][..] } else { contents };
    ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    })
}

/// The length a buffer grows to when `needed` items no longer fit: a quarter more (and one),
/// never less than the `had` it holds, so that a scene growing by steps reallocates rarely.
pub(crate) fn grown(needed: usize, had: usize) -> usize {
    (needed + needed / 4 + 1).max(had)
}

/// An empty storage buffer of `bytes` (at least 16) that copies go to and from, for
/// `what` (named in the error when it would pass the adapter's largest binding).
pub(crate) fn storage_of(ctx: &GpuContext, what: &str, bytes: usize) -> Result<wgpu::Buffer> {
    if bytes as u64 > ctx.max_binding_bytes() {
        return Err(Error::Unsupported {
            what: format!("{what} on the device ({bytes} bytes in one binding)"),
            reason: format!("past the adapter's largest binding, {} bytes", ctx.max_binding_bytes()),
        });
    }
    Ok(ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(what),
        size: bytes.max(16) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    }))
}

/// An empty uniform buffer of `bytes` that the queue writes.
pub(crate) fn uniform_of(ctx: &GpuContext, label: &str, bytes: u64) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// A compute stage's binding `binding` of buffer type `ty` (a dynamic offset where
/// `dynamic`).
pub(crate) fn layout_entry(binding: u32, ty: wgpu::BufferBindingType, dynamic: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: dynamic,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A uniform buffer holding `contents`.
pub(super) fn uniform(ctx: &GpuContext, label: &str, contents: &[u8]) -> wgpu::Buffer {
    ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::UNIFORM,
    })
}

/// The bind group of the kernels' convention: the uniform at binding 0, then `storage` at
/// bindings 1, 2, … in order.
pub(crate) fn bind_group(
    ctx: &GpuContext,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    uniform: &wgpu::Buffer,
    storage: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    let mut entries = vec![wgpu::BindGroupEntry {
        binding: 0,
        resource: uniform.as_entire_binding(),
    }];
    entries.extend(storage.iter().zip(1..).map(|(b, i)| wgpu::BindGroupEntry {
        binding: i,
        resource: b.as_entire_binding(),
    }));
    ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}

/// Finishes `encoder` with copies of `buffers` into mappable staging buffers, submits it,
/// calls `meanwhile` (the device is busy with what was queued) and returns each buffer's
/// bytes (the only read-back of a run).
pub(crate) fn read_back<const N: usize>(
    ctx: &GpuContext,
    encoder: wgpu::CommandEncoder,
    buffers: [&wgpu::Buffer; N],
    meanwhile: impl FnOnce(),
) -> [Result<Vec<u8>>; N] {
    read_back_ranges(ctx, encoder, buffers.map(|b| (b, 0..b.size())), meanwhile)
}

/// [`read_back`] of a byte range of each buffer (offsets and lengths multiples of 4).
pub(crate) fn read_back_ranges<const N: usize>(
    ctx: &GpuContext,
    mut encoder: wgpu::CommandEncoder,
    ranges: [(&wgpu::Buffer, std::ops::Range<u64>); N],
    meanwhile: impl FnOnce(),
) -> [Result<Vec<u8>>; N] {
    let staging = ranges.map(|(src, range)| {
        let bytes = range.end - range.start;
        let dst = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: bytes.max(4),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        encoder.copy_buffer_to_buffer(src, range.start, &dst, 0, bytes);
        (dst, bytes as usize)
    });
    ctx.queue.submit([encoder.finish()]);
    meanwhile();
    staging.map(|(b, bytes)| {
        read(ctx, &b).map(|mut v| {
            v.truncate(bytes);
            v
        })
    })
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
