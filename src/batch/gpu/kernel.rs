//! A compute kernel with its own bind group layout: the layout, the entry points' pipelines
//! and the compile check, the same for every such kernel, and the workgroup grid of a
//! dispatch.

use super::GpuContext;
use super::buffers::layout_entry;
use crate::error::{Error, Result};

/// How a kernel's bindings are laid out: binding 0 a uniform (with a dynamic offset where
/// `dynamic_uniform`), then one storage buffer per entry of `read_only` (read-only where
/// true), bindings 1, 2, ….
pub(crate) struct Bindings<'a> {
    /// Whether the uniform takes a dynamic offset.
    pub dynamic_uniform: bool,
    /// Each storage buffer's read-only flag, in binding order.
    pub read_only: &'a [bool],
}

/// Compiles the WGSL `source` (labelled `label`) and its entry points `names` under one
/// layout of `bindings`, within a validation scope: a kernel that does not compile is
/// [`Error::Gpu`] naming `what` ("the `what` kernel does not compile: …").
pub(crate) fn compile<const K: usize>(
    ctx: &GpuContext,
    (label, what): (&str, &str),
    source: String,
    bindings: Bindings,
    names: [&str; K],
) -> Result<(wgpu::BindGroupLayout, [wgpu::ComputePipeline; K])> {
    use wgpu::BufferBindingType::{Storage, Uniform};
    let mut entries = vec![layout_entry(0, Uniform, bindings.dynamic_uniform)];
    entries.extend(
        (1..)
            .zip(bindings.read_only)
            .map(|(b, &r)| layout_entry(b, Storage { read_only: r }, false)),
    );
    let layout = ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    });
    let pipeline_layout = ctx.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = ctx.device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipelines = names.map(|name| {
        ctx.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(name),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some(name),
            compilation_options: Default::default(),
            cache: None,
        })
    });
    if let Some(error) = pollster::block_on(scope.pop()) {
        return Err(Error::Gpu(format!("the {what} kernel does not compile: {error}")));
    }
    Ok((layout, pipelines))
}

/// (x, y) workgroups of 64 covering `n` invocations within the 65 535 limit per dimension
/// (at least one).
pub(crate) fn groups(n: usize) -> (u32, u32) {
    let g = n.div_ceil(64).max(1);
    let x = g.min(65_535);
    (x as u32, g.div_ceil(x) as u32)
}
