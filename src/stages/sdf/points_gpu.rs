//! The exact signed distance at arbitrary points on the GPU — the
//! reference `collidoscope check` compares a point set with
//! (`shaders/sdf_points.wgsl`).
//!
//! One invocation per point finds the nearest triangle over the mesh's AABB
//! BVH (the traversal the adaptive stage uses, `shared/bvh_nearest.wgsl`);
//! in the same submission [`super::point_winding`] signs the points by the
//! winding number (first pass, then the refining steps on the GPU), and the
//! CPU decides the few points the GPU's exact step leaves open with
//! [`crate::geom::FastWinding::is_inside`] — the exact winding number's
//! sign, as the CPU path gives every point.

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use wgpu::util::DeviceExt;

use super::SdfError;
use super::point_winding::{PointBuffers, PointWindingGpu, sign_exactly};
use crate::gpu::{
    BufferCheck, GpuContext, GpuRun, Kernels, dispatch_dims, read_buffer, shader_source,
    storage_buffer_init, storage_buffer_zeroed,
};
use crate::mesh::PreparedMesh;

/// Uniform parameters: `struct PointsParams` of shaders/sdf_points.wgsl
/// (checked by tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PointsParams {
    pub count: u32,
    pub _pad: u32,
    pub _pad2: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<PointsParams>() == 16);

/// Invocations per workgroup (the shader's `POINTS_WORKGROUP`).
pub const POINTS_WORKGROUP: u32 = 64;

/// The kernels, created with the stage's GPU state.
pub struct PointsGpu {
    kernels: Kernels,
    pipeline: wgpu::ComputePipeline,
    winding: PointWindingGpu,
}

impl PointsGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "SdfPoints", shader_source("sdf_points.wgsl"));
        PointsGpu {
            pipeline: kernels.pipeline(gpu, "exact_points"),
            kernels,
            winding: PointWindingGpu::new(gpu),
        }
    }

    /// The signed distance from `mesh` at every point, negative inside by
    /// the exact winding number; and how many points the CPU signed. The
    /// caller checks that the BVH fits the shader's stack.
    pub fn exact(
        &self,
        gpu: &GpuContext,
        mesh: &PreparedMesh,
        points: &[Vec3],
    ) -> Result<(Vec<f32>, usize), SdfError> {
        if points.is_empty() {
            return Ok((Vec::new(), 0));
        }
        if mesh.triangle_count() == 0 {
            // No surface: nothing is inside, everything infinitely far.
            return Ok((vec![f32::INFINITY; points.len()], 0));
        }
        let (tri_pos, _) = mesh.gpu_triangles(&mesh.bvh.order);
        let n = points.len();
        let params = PointsParams {
            count: n as u32,
            _pad: 0,
            _pad2: [0; 2],
        };
        let uniform = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("SdfPoints::params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let padded: Vec<[f32; 4]> = points.iter().map(|p| p.extend(0.0).to_array()).collect();
        let tri_buf = storage_buffer_init(gpu, "SdfPoints::tri_pos", &tri_pos)?;
        let nodes = storage_buffer_init(gpu, "SdfPoints::nodes", &mesh.bvh.nodes)?;
        let point_buf = storage_buffer_init(gpu, "SdfPoints::points", &padded)?;
        let values = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "SdfPoints::values",
                bytes: 4 * n as u64,
            },
        )?;
        let bind_group = self.kernels.bind(
            gpu,
            &[
                ("params", &uniform),
                ("tri_pos", &tri_buf),
                ("nodes", &nodes),
                ("points", &point_buf),
                ("values", &values),
            ],
        );
        let mut run = GpuRun::new(gpu, "SdfPoints::encoder")?;
        run.compute_pass("exact points", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            let (x, y) = dispatch_dims((n as u32).div_ceil(POINTS_WORKGROUP));
            pass.dispatch_workgroups(x, y, 1);
        });
        let largest = points
            .iter()
            .fold(0.0f32, |m, p| m.max(p.abs().max_element()));
        let recorded = self.winding.record(
            gpu,
            mesh,
            &PointBuffers {
                points: &point_buf,
                stride: 1,
                values: &values,
                count: n,
                largest,
            },
            &mut run,
        )?;
        run.finish()?;
        let (listed, _) = self.winding.finish(gpu, recorded)?;
        let mut values: Vec<f32> = read_buffer(gpu, &values, n)?;
        sign_exactly(mesh.winding(), points, &listed, &mut values);
        Ok((values, listed.len()))
    }
}
