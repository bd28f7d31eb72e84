//! The compute rasteriser: `shaders/radial_compute.wgsl`, the render
//! pipeline's set-up and distances (both include
//! `shaders/shared/radial_setup.wgsl`) with the CPU reference's coverage
//! rule (`super::cpu`) written out in integer arithmetic, so it fills
//! the same cells without the graphics pipeline (see the shader's header).
//!
//! Per update: `clear` (+inf), then `raster` (one invocation per (field,
//! triangle) pair: small footprints filled in place, large ones queued in
//! workgroup memory and filled by the whole workgroup): two dispatches.

use eframe::egui_wgpu::wgpu;

use crate::gpu::{GpuContext, Kernels, dispatch_dims, shader_source};

/// Invocations per workgroup of `clear`.
pub const CLEAR_GROUP: u32 = 256;
/// Invocations per workgroup of `raster` (one per pair).
pub const RASTER_GROUP: u32 = 64;
/// Box cells above which a footprint is shared by its workgroup.
pub const SMALL_CELLS: u32 = 16;
/// Dispatches [`ComputeBuffers::record_raster`] records.
pub(crate) const RASTER_DISPATCHES: u32 = 1;

/// The compute rasteriser's pipelines (once per device).
pub struct ComputeRaster {
    kernels: Kernels,
    clear: wgpu::ComputePipeline,
    raster: wgpu::ComputePipeline,
}

impl ComputeRaster {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "RadialCompute", shader_source("radial_compute.wgsl"));
        ComputeRaster {
            clear: kernels.pipeline(gpu, "clear"),
            raster: kernels.pipeline(gpu, "raster"),
            kernels,
        }
    }
}

/// One scene's bind group for the compute rasteriser.
pub(crate) struct ComputeBuffers {
    bind_group: wgpu::BindGroup,
}

impl ComputeBuffers {
    /// `scene` holds the uniform, frames, positions, triangles, pairs and
    /// values buffers, in binding order.
    pub fn new(gpu: &GpuContext, raster: &ComputeRaster, scene: [&wgpu::Buffer; 6]) -> Self {
        ComputeBuffers {
            bind_group: raster.kernels.bind_group(gpu, &scene),
        }
    }

    /// Records the clear to +inf (§5.3) of `cells` values.
    pub fn record_clear(
        &self,
        raster: &ComputeRaster,
        encoder: &mut wgpu::CommandEncoder,
        cells: u32,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("radial compute clear"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&raster.clear);
        pass.set_bind_group(0, &self.bind_group, &[]);
        let (x, y) = dispatch_dims(cells.div_ceil(CLEAR_GROUP).max(1));
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Records the rasterisation of `pairs` (field, triangle) pairs.
    pub(crate) fn record_raster(
        &self,
        raster: &ComputeRaster,
        encoder: &mut wgpu::CommandEncoder,
        pairs: u32,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("radial compute raster"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_pipeline(&raster.raster);
        let (x, y) = dispatch_dims(pairs.div_ceil(RASTER_GROUP));
        pass.dispatch_workgroups(x, y, 1);
    }
}
