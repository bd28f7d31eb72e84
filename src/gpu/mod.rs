//! The wgpu context every GPU stage runs on, plus buffer helpers and timers.
//!
//! A [`GpuContext`] is created once — headless for tests and the CLI
//! ([`GpuContext::headless`]) or from eframe's render state in the viewer
//! ([`GpuContext::from_device`]) — and passed by reference to every stage. A
//! stage never creates a device.
//!
//! On machines without a GPU the context runs on Mesa's software Vulkan driver
//! (lavapipe, Debian package `mesa-vulkan-drivers`): results are exact, timings
//! are meaningless.

mod buffers;
mod kernels;
mod radix_sort;
mod timing;

pub use buffers::{
    BufferCheck, map_staging, read_buffer, staging_buffer, storage_buffer_init,
    storage_buffer_zeroed,
};
pub use kernels::{Access, Binding, Kernels, dispatch_dims, uniform_layouts};
pub use radix_sort::{RadixSort, RadixSortScratch};
pub use timing::{GpuPhase, GpuRun};

use eframe::egui_wgpu::wgpu;

/// Errors from the GPU subsystem. Each message is one readable line.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    #[error(
        "no GPU adapter found ({0}); on a machine without a GPU install Mesa's software Vulkan driver: apt install mesa-vulkan-drivers libvulkan1"
    )]
    NoAdapter(String),
    #[error("the GPU device could not be created: {0}")]
    Device(String),
    #[error(
        "{what} needs {needed} bytes, beyond this adapter's {limit} of {allowed} bytes ({adapter}); lower the resolution or use a CPU backend"
    )]
    TooLarge {
        what: String,
        needed: u64,
        limit: &'static str,
        allowed: u64,
        adapter: String,
    },
    #[error("reading back {what} from the GPU failed: {reason}")]
    Readback { what: String, reason: String },
    #[error("the GPU reported an error in {what}: {reason}")]
    Validation { what: String, reason: String },
}

/// The features every device is created with where the adapter offers
/// them (the headless context and the viewer's): timestamp queries for the
/// profiler; Depth32FloatStencil8, so the interference stage compares face
/// depths with edge depths read back exactly (no 24-bit quantisation);
/// Float32Blendable, for its weighted counting pass (additive blending into
/// Rgba32Float); subgroup operations, for the uniform SDF's packet
/// traversal.
pub const OPTIONAL_FEATURES: wgpu::Features = wgpu_profiler::GpuProfiler::ALL_WGPU_TIMER_FEATURES
    .union(wgpu::Features::DEPTH32FLOAT_STENCIL8)
    .union(wgpu::Features::FLOAT32_BLENDABLE)
    .union(wgpu::Features::SUBGROUP);

/// Device, queue and what we know about the adapter.
#[derive(Clone)]
pub struct GpuContext {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub adapter_info: wgpu::AdapterInfo,
    /// True when the device was created with timestamp queries, so stages can
    /// report GPU time; otherwise they report wall-clock time only.
    pub has_timestamps: bool,
}

impl GpuContext {
    /// A context for tests and the CLI: the first adapter wgpu finds (honours
    /// `WGPU_BACKEND`, `WGPU_ADAPTER_NAME`), with timestamp queries if offered.
    pub fn headless() -> Result<Self, GpuError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            apply_limit_buckets: false,
        }))
        .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
        let features = adapter.features() & OPTIONAL_FEATURES;
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("GpuContext::device"),
            required_features: features,
            required_limits: limits,
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| GpuError::Device(e.to_string()))?;
        Ok(Self::from_device(device, queue, adapter.get_info()))
    }

    /// Wraps a device created elsewhere (eframe's render state in the viewer).
    pub fn from_device(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter_info: wgpu::AdapterInfo,
    ) -> Self {
        let has_timestamps = device.features().contains(
            wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS,
        );
        GpuContext {
            device,
            queue,
            adapter_info,
            has_timestamps,
        }
    }

    /// "NVIDIA H100 (Vulkan, driver 580.x)"-style description for reports.
    pub fn describe(&self) -> String {
        let i = &self.adapter_info;
        let driver = if i.driver_info.is_empty() {
            i.driver.clone()
        } else {
            format!("{} {}", i.driver, i.driver_info)
        };
        format!("{} ({:?}, {})", i.name, i.backend, driver.trim())
    }

    /// Checks that one storage binding of `bytes` fits this device, before
    /// anything is allocated.
    pub fn check_storage_size(&self, what: &str, bytes: u64) -> Result<(), GpuError> {
        let limits = self.device.limits();
        let checks = [
            (
                "max_storage_buffer_binding_size",
                limits.max_storage_buffer_binding_size,
            ),
            ("max_buffer_size", limits.max_buffer_size),
        ];
        for (limit, allowed) in checks {
            if bytes > allowed {
                return Err(GpuError::TooLarge {
                    what: what.to_string(),
                    needed: bytes,
                    limit,
                    allowed,
                    adapter: self.adapter_info.name.clone(),
                });
            }
        }
        Ok(())
    }

    /// Loads a shader from `shaders/` (validated by naga in the tests).
    pub fn shader(&self, source: &ShaderSource) -> wgpu::ShaderModule {
        self.device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(source.name),
                source: wgpu::ShaderSource::Wgsl(source.code.into()),
            })
    }
}

/// A WGSL file of `shaders/`, embedded at compile time.
pub struct ShaderSource {
    pub name: &'static str,
    pub code: &'static str,
}

/// Every shader of the project; `tests/shader_validation.rs` validates each.
pub const SHADERS: &[ShaderSource] = &[
    ShaderSource {
        name: "sdf_grid.wgsl",
        code: concat!(
            include_str!("../../shaders/shared/closest_point.wgsl"),
            include_str!("../../shaders/shared/bvh_bounds.wgsl"),
            include_str!("../../shaders/sdf_grid.wgsl")
        ),
    },
    // The same module plus the subgroup kernel: created only on devices
    // with subgroup operations.
    ShaderSource {
        name: "sdf_packet.wgsl",
        code: concat!(
            include_str!("../../shaders/shared/closest_point.wgsl"),
            include_str!("../../shaders/shared/bvh_bounds.wgsl"),
            include_str!("../../shaders/sdf_grid.wgsl"),
            include_str!("../../shaders/sdf_packet.wgsl")
        ),
    },
    ShaderSource {
        name: "tri_tri.wgsl",
        code: include_str!("../../shaders/tri_tri.wgsl"),
    },
    ShaderSource {
        name: "sampling.wgsl",
        code: include_str!("../../shaders/sampling.wgsl"),
    },
    ShaderSource {
        name: "colliders.wgsl",
        code: include_str!("../../shaders/colliders.wgsl"),
    },
    ShaderSource {
        name: "sdf_adaptive.wgsl",
        code: concat!(
            include_str!("../../shaders/shared/closest_point.wgsl"),
            include_str!("../../shaders/shared/bvh_bounds.wgsl"),
            include_str!("../../shaders/shared/bvh_nearest.wgsl"),
            include_str!("../../shaders/shared/rss.wgsl"),
            include_str!("../../shaders/shared/sorted_codes.wgsl"),
            include_str!("../../shaders/sdf_adaptive.wgsl")
        ),
    },
    ShaderSource {
        name: "rss_bvh.wgsl",
        code: concat!(
            include_str!("../../shaders/shared/rss.wgsl"),
            include_str!("../../shaders/shared/sorted_codes.wgsl"),
            include_str!("../../shaders/rss_bvh.wgsl")
        ),
    },
    ShaderSource {
        name: "radix_sort.wgsl",
        code: include_str!("../../shaders/radix_sort.wgsl"),
    },
    ShaderSource {
        name: "interference.wgsl",
        code: include_str!("../../shaders/interference.wgsl"),
    },
    ShaderSource {
        name: "interference_cull.wgsl",
        code: include_str!("../../shaders/interference_cull.wgsl"),
    },
    ShaderSource {
        name: "interference_identify.wgsl",
        code: include_str!("../../shaders/interference_identify.wgsl"),
    },
    ShaderSource {
        name: "view.wgsl",
        code: include_str!("../../shaders/view.wgsl"),
    },
];

/// Finds a shader by file name.
pub fn shader_source(name: &str) -> &'static ShaderSource {
    SHADERS
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("shader {name} is not listed in gpu::SHADERS"))
}
