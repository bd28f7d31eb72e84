//! The compute rasteriser: `shaders/radial_compute.wgsl`, the render
//! pipeline's set-up and distances (both include
//! `shaders/shared/radial_setup.wgsl`) with the CPU reference's coverage
//! rule ([`super::cpu`]) written out in integer arithmetic, so it fills
//! the same cells without the graphics pipeline (see the shader's header).
//!
//! Per update: `clear` (+inf, and the indirect dispatch reset), `raster`
//! (one invocation per (field, triangle) pair: small footprints filled
//! in place, large ones queued), `raster_large` (a workgroup per queued
//! footprint, dispatched indirectly with the count `raster` left).

use eframe::egui_wgpu::wgpu;

use crate::gpu::{Access, GpuContext, GpuError, Kernels, dispatch_dims, shader_source};

/// Invocations per workgroup of `clear`.
pub const CLEAR_GROUP: u32 = 256;
/// Invocations per workgroup of `raster` (one per pair).
pub const RASTER_GROUP: u32 = 64;
/// Invocations sharing one large footprint in `raster_large`.
pub const LARGE_GROUP: u32 = 64;
/// Box cells above which a footprint is queued for `raster_large`.
pub const SMALL_CELLS: u32 = 16;
/// Workgroups one dispatch may have along x: the queue's capacity.
pub const MAX_LARGE: u32 = 65_535;

/// The compute rasteriser's pipelines (once per device).
pub struct ComputeRaster {
    kernels: Kernels,
    clear: wgpu::ComputePipeline,
    raster: wgpu::ComputePipeline,
    raster_large: wgpu::ComputePipeline,
}

impl ComputeRaster {
    pub fn new(gpu: &GpuContext) -> Self {
        use Access::{ReadOnly, ReadWrite};
        let kernels = Kernels::new(
            gpu,
            "RadialCompute",
            shader_source("radial_compute.wgsl"),
            &[
                ReadOnly,  // frames
                ReadOnly,  // positions
                ReadOnly,  // triangles
                ReadOnly,  // pairs
                ReadWrite, // values
                ReadWrite, // large
                ReadWrite, // large_dispatch
            ],
        );
        ComputeRaster {
            clear: kernels.pipeline(gpu, "clear"),
            raster: kernels.pipeline(gpu, "raster"),
            raster_large: kernels.pipeline(gpu, "raster_large"),
            kernels,
        }
    }
}

/// One scene's queue of large footprints and its bind groups.
pub struct ComputeBuffers {
    _large: wgpu::Buffer,
    dispatch: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// For `raster_large`: the same buffers but a stand-in for the
    /// dispatch, which that dispatch reads as its indirect arguments (a
    /// buffer may not be both in one dispatch).
    large_bind_group: wgpu::BindGroup,
}

impl ComputeBuffers {
    /// `scene` holds the uniform, frames, positions, triangles, pairs and
    /// values buffers, in binding order.
    pub fn new(
        gpu: &GpuContext,
        raster: &ComputeRaster,
        scene: [&wgpu::Buffer; 6],
        pairs: u32,
    ) -> Result<Self, GpuError> {
        let queue = pairs.clamp(1, MAX_LARGE) as u64 * 4;
        let large = crate::gpu::storage_buffer_zeroed(
            gpu,
            crate::gpu::BufferCheck {
                label: "radial large footprints",
                bytes: queue,
            },
        )?;
        let args = |label| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 12,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT,
                mapped_at_creation: false,
            })
        };
        let (dispatch, stand_in) = (
            args("radial large dispatch"),
            args("radial large dispatch (unused)"),
        );
        let [uniform, frames, positions, triangles, pair_buffer, values] = scene;
        let group = |last: &wgpu::Buffer| {
            raster.kernels.bind_group(
                gpu,
                &[
                    uniform,
                    frames,
                    positions,
                    triangles,
                    pair_buffer,
                    values,
                    &large,
                    last,
                ],
            )
        };
        Ok(ComputeBuffers {
            bind_group: group(&dispatch),
            large_bind_group: group(&stand_in),
            _large: large,
            dispatch,
        })
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

    /// Records the rasterisation of `pairs` (field, triangle) pairs: the
    /// large footprints in a pass of their own, after the queue is full.
    pub fn record_raster(
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
        drop(pass);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("radial compute raster large"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &self.large_bind_group, &[]);
        pass.set_pipeline(&raster.raster_large);
        pass.dispatch_workgroups_indirect(&self.dispatch, 0);
    }
}
