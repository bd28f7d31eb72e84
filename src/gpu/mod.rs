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
//!
//! # Shaders
//!
//! The WGSL lives in `shaders/`, embedded at compile time ([`FILES`]). A
//! shader names the shared files it needs at its top with
//! `//!include shared/name.wgsl` lines, resolved recursively when it is first
//! loaded ([`shader_source`]; each file once, includes first; a missing file
//! or a cycle is an [`IncludeError`]). `tests/it/shader_validation.rs` validates
//! every module with naga and on the device, and checks that no file under
//! `shaders/` is left out.
//!
//! Every compute pipeline's bind-group layout is read from its WGSL with
//! naga ([`reflect`]: binding, name, kind, access, size of each
//! `@group(0)` resource), never listed in Rust, and every bind group is
//! checked against it when made ([`Kernels`]); `tests/shader_bindings.rs`
//! reflects every module and checks that a misplaced buffer is reported.
//!
//! Buffers cross the boundary as `#[repr(C)]` Rust types (bytemuck) that a
//! WGSL struct mirrors, next to constants both sides name (state slots,
//! kinds, flags, workgroup sizes). `tests/it/shader_layouts.rs` parses each
//! module with naga and compares every mirrored struct's size and member
//! offsets, every vertex layout and every shared constant with the Rust
//! side, so a change on one side alone fails the tests. The Rust types are
//! listed for it in the `layouts` modules of each layer ([`layouts`],
//! `stages::layouts`, `view::layouts`).

mod buffers;
mod kernels;
#[doc(hidden)]
pub mod layouts;
mod radix_sort;
mod reflect;
mod ring;
mod shaders;
mod timing;

pub use buffers::{
    BufferCheck, KeptStorage, MapRequest, SendSlice, map_staging, map_staging_after,
    map_staging_range, map_staging_with, read_buffer, staging_buffer, storage_buffer_for,
    storage_buffer_init, storage_buffer_streamed, storage_buffer_written, storage_buffer_zeroed,
    stream_records, uniform_buffer, write_part,
};
pub use kernels::{BindingMismatch, Given, Kernels, check_binding, dispatch_dims, uniform_layouts};
pub use radix_sort::{RadixSort, RadixSortScratch};
pub use reflect::{
    Access, Binding, ReflectError, Reflected, ShaderBindings, reflect, shader_bindings,
};
pub use ring::{FirstChunks, RING_CHUNK, RING_SLOTS, Source, StagingRing};
pub use shaders::{
    FILES, IncludeError, Resolved, ShaderSource, embedded, resolve, shader_source, shaders,
};
pub use timing::{GpuPhase, GpuRun, KeptProfiler};

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
    /// `remedy` says what can help: a smaller grid for a per-run buffer,
    /// only a CPU backend for uploaded input (a mesh, its BVH).
    #[error(
        "{what} needs {needed} bytes, beyond this adapter's {limit} of {allowed} bytes ({adapter}); {remedy}"
    )]
    TooLarge {
        what: String,
        needed: u64,
        limit: &'static str,
        allowed: u64,
        adapter: String,
        remedy: &'static str,
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
/// traversal; 64-bit integers with atomic min/max, for the compute
/// interference backend's one-pass nearest-edge resolve; f64, for the
/// exact step of the GPU winding sign's refining pass.
pub const OPTIONAL_FEATURES: wgpu::Features = wgpu_profiler::GpuProfiler::ALL_WGPU_TIMER_FEATURES
    .union(wgpu::Features::DEPTH32FLOAT_STENCIL8)
    .union(wgpu::Features::FLOAT32_BLENDABLE)
    .union(wgpu::Features::SUBGROUP)
    .union(wgpu::Features::SHADER_INT64)
    .union(wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX)
    .union(wgpu::Features::SHADER_F64);

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
        Self::headless_without(wgpu::Features::empty())
    }

    /// [`GpuContext::headless`] with `missing` left out of the optional
    /// features even where the adapter offers them: tests run the fallback
    /// paths of a device without them (float32 winding leaves without
    /// `SHADER_F64`) on an adapter that has them.
    pub fn headless_without(missing: wgpu::Features) -> Result<Self, GpuError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            apply_limit_buckets: false,
        }))
        .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
        let features = adapter.features() & OPTIONAL_FEATURES.difference(missing);
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

    /// Checks that one storage binding of `bytes` for a run's results (a
    /// grid, its cells) fits this device, before anything is allocated.
    pub fn check_storage_size(&self, what: &str, bytes: u64) -> Result<(), GpuError> {
        self.check_size(
            what,
            bytes,
            "lower the resolution or use a CPU backend (--backend cpu)",
        )
    }

    /// Checks that uploaded input (a mesh, its BVH) fits one storage
    /// binding: when it does not, no resolution helps, only a CPU backend.
    pub fn check_upload_size(&self, what: &str, bytes: u64) -> Result<(), GpuError> {
        self.check_size(
            what,
            bytes,
            "the input itself is too large for this adapter: use the cpu backend (--backend cpu)",
        )
    }

    fn check_size(&self, what: &str, bytes: u64, remedy: &'static str) -> Result<(), GpuError> {
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
                    remedy,
                });
            }
        }
        Ok(())
    }

    /// Loads a shader module of `shaders/`, includes resolved (validated by
    /// naga in the tests).
    pub fn shader(&self, source: &ShaderSource) -> wgpu::ShaderModule {
        self.device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(source.name),
                source: wgpu::ShaderSource::Wgsl(source.code.into()),
            })
    }
}

/// The GPU context of the crate's own GPU tests: no silent skip, without
/// an adapter the test fails and says what to install.
#[cfg(test)]
pub(crate) fn test_gpu() -> GpuContext {
    GpuContext::headless().unwrap_or_else(|e| {
        panic!(
            "GPU tests need a Vulkan adapter; on a machine without a GPU run `apt install mesa-vulkan-drivers libvulkan1` (lavapipe). Error: {e}"
        )
    })
}
