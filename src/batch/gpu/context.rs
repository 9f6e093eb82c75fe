//! The device: adapter selection and the limits and features asked of it. The only file
//! that creates wgpu instances, adapters and devices.
//!
//! The adapter is the highest-performance one among the Vulkan, Metal and DX12 backends
//! (never a GL fallback, which has no f64), unless `RICOCHET_ADAPTER` names one: a
//! case-insensitive substring of the adapter's name or of its backend (`vulkan`, `metal`,
//! `dx12`), e.g. `RICOCHET_ADAPTER=llvmpipe`.

use super::tuning::Tuning;
use crate::error::{Error, Result};

/// The environment variable that picks an adapter by name or backend.
pub const ADAPTER_VAR: &str = "RICOCHET_ADAPTER";

/// A device ready for compute, with what it can do (a clone shares the device).
#[derive(Clone)]
pub struct GpuContext {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    limits: wgpu::Limits,
    f64_supported: bool,
    timestamps: bool,
    tuning: Tuning,
}

/// One adapter as listed by [`list_adapters`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterSummary {
    /// The adapter's name, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub name: String,
    /// Its backend, e.g. `Vulkan`.
    pub backend: String,
    /// Its device type, e.g. `Cpu` or `DiscreteGpu`.
    pub device_type: String,
    /// Whether it runs f64 shaders.
    pub f64: bool,
}

impl std::fmt::Display for AdapterSummary {
    /// `name — backend (device type), f64`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let f64 = if self.f64 { ", f64" } else { "" };
        write!(f, "{} — {} ({}){f64}", self.name, self.backend, self.device_type)
    }
}

fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12;
    wgpu::Instance::new(desc.with_env())
}

fn summary(adapter: &wgpu::Adapter) -> AdapterSummary {
    let info = adapter.get_info();
    AdapterSummary {
        name: info.name.clone(),
        backend: format!("{:?}", info.backend),
        device_type: format!("{:?}", info.device_type),
        f64: adapter.features().contains(wgpu::Features::SHADER_F64),
    }
}

/// Every compute-capable adapter of the Vulkan, Metal and DX12 backends.
pub fn list_adapters() -> Vec<AdapterSummary> {
    pollster::block_on(instance().enumerate_adapters(wgpu::Backends::all()))
        .iter()
        .map(summary)
        .collect()
}

/// Ranks device types: discrete GPU first, CPU last.
fn rank(device_type: wgpu::DeviceType) -> u8 {
    match device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

/// An adapter's key in the tuning cache: `name (backend) | driver driver_info`.
fn key_of(info: &wgpu::AdapterInfo) -> String {
    format!(
        "{} ({:?}) | {} {}",
        info.name, info.backend, info.driver, info.driver_info
    )
    .trim()
    .to_string()
}

impl GpuContext {
    /// Opens the best adapter (or the one `RICOCHET_ADAPTER` names) with its own limits and,
    /// where it has it, `SHADER_F64`; the kernel's launch is the one `ricochet tune` cached
    /// for the adapter, else the default [`Tuning`], under `RICOCHET_GPU_TUNING`.
    pub fn new() -> Result<Self> {
        let wanted = std::env::var(ADAPTER_VAR).ok().map(|s| s.to_lowercase());
        let adapters = pollster::block_on(instance().enumerate_adapters(wgpu::Backends::all()));
        let matches = |a: &wgpu::Adapter| {
            let s = summary(a);
            wanted
                .as_ref()
                .is_none_or(|w| s.name.to_lowercase().contains(w) || s.backend.to_lowercase().contains(w))
        };
        let adapter = adapters
            .into_iter()
            .filter(matches)
            .min_by_key(|a| rank(a.get_info().device_type))
            .ok_or_else(|| Error::NoAdapter {
                reason: match &wanted {
                    Some(w) => format!("no Vulkan, Metal or DX12 adapter matches {ADAPTER_VAR}={w}"),
                    None => "no Vulkan, Metal or DX12 adapter (on Debian: apt-get install mesa-vulkan-drivers)".into(),
                },
            })?;
        let f64_supported = adapter.features().contains(wgpu::Features::SHADER_F64);
        // Kernel times come from timestamp queries where the adapter has them.
        let features = adapter.features() & (wgpu::Features::SHADER_F64 | wgpu::Features::TIMESTAMP_QUERY);
        let limits = adapter.limits();
        let tuning = Tuning::for_adapter(&key_of(&adapter.get_info()))?;
        tuning.check(&limits)?;
        let desc = wgpu::DeviceDescriptor {
            label: Some("ricochet"),
            required_features: features,
            required_limits: limits.clone(),
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc)).map_err(|e| Error::NoAdapter {
            reason: format!("the adapter refused a device: {e}"),
        })?;
        Ok(Self {
            device,
            queue,
            info: adapter.get_info(),
            limits,
            f64_supported,
            timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            tuning,
        })
    }

    /// The adapter's name and backend, e.g. `llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan)`.
    pub fn adapter_name(&self) -> String {
        format!("{} ({:?})", self.info.name, self.info.backend)
    }

    /// The most invocations per workgroup the device takes.
    pub fn max_workgroup_size(&self) -> u32 {
        Tuning::largest_workgroup(&self.limits)
    }

    /// What the tuning cache knows the adapter by: its name, backend and driver.
    pub fn key(&self) -> String {
        key_of(&self.info)
    }

    /// The adapter's driver and its version, e.g. `llvmpipe Mesa 22.3.6 (LLVM 15.0.6)`.
    pub fn driver(&self) -> String {
        format!("{} {}", self.info.driver, self.info.driver_info)
            .trim()
            .to_string()
    }

    /// Whether the adapter is a CPU implementation (such as lavapipe).
    pub fn is_cpu(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// The seconds between two timestamps resolved side by side (`[start, end]`, 16 bytes):
    /// (end − start) ticks × the queue's period.
    pub fn timestamp_seconds(&self, pair: &[u8]) -> f64 {
        let [start, end]: [u64; 2] = bytemuck::pod_read_unaligned(pair);
        end.saturating_sub(start) as f64 * f64::from(self.queue.get_timestamp_period()) * 1e-9
    }

    /// Whether the device times its passes (timestamp queries).
    pub fn has_timestamps(&self) -> bool {
        self.timestamps
    }

    /// Whether f64 kernels can run.
    pub fn supports_f64(&self) -> bool {
        self.f64_supported
    }

    /// The widest precision the kernels have here: f64 where the adapter has `SHADER_F64`,
    /// else f32.
    pub fn best_precision(&self) -> super::Precision {
        if self.f64_supported {
            super::Precision::F64
        } else {
            super::Precision::F32
        }
    }

    /// Refuses `precision` where the adapter cannot run it (f64 without `SHADER_F64`).
    pub fn check_precision(&self, precision: super::Precision) -> Result<()> {
        if precision == super::Precision::F64 && !self.f64_supported {
            return Err(Error::Unsupported {
                what: self.adapter_name(),
                reason: "has no SHADER_F64: use f32".into(),
            });
        }
        Ok(())
    }

    /// The largest storage binding, in bytes; batches are split into chunks that fit it.
    pub fn max_binding_bytes(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
    }

    /// The alignment of a dynamic uniform offset, in bytes.
    pub fn uniform_offset_alignment(&self) -> u32 {
        self.limits.min_uniform_buffer_offset_alignment
    }

    /// The most workgroups one dispatch may have along x.
    pub fn max_workgroups(&self) -> u32 {
        self.limits.max_compute_workgroups_per_dimension
    }

    /// How many storage buffers one shader stage may bind.
    pub fn storage_buffers_per_stage(&self) -> u32 {
        self.limits.max_storage_buffers_per_shader_stage
    }

    /// How the scene-parallel kernel is launched.
    pub fn tuning(&self) -> Tuning {
        self.tuning
    }

    /// Launches the scene-parallel kernel as `tuning` says (refused when the device takes
    /// smaller workgroups).
    pub fn set_tuning(&mut self, tuning: Tuning) -> Result<()> {
        tuning.check(&self.limits)?;
        self.tuning = tuning;
        Ok(())
    }

    /// Lowers the binding size batches are split for (smaller chunks: less device memory).
    pub fn limit_binding_bytes(&mut self, bytes: u64) {
        self.limits.max_storage_buffer_binding_size = self.limits.max_storage_buffer_binding_size.min(bytes);
    }
}
