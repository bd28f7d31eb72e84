//! The exact signed distance at arbitrary points on the GPU — the
//! reference `collidoscope check` compares a point set with
//! (`shaders/sdf_points.wgsl`).
//!
//! One invocation per point: the nearest triangle over the mesh's AABB
//! BVH (the traversal the adaptive stage uses, `shared/bvh_nearest.wgsl`),
//! and the winding-number sign of [`super::winding_gpu`] evaluated over
//! the whole tree for the point alone (points share no bricks). Where the
//! float32 bound does not decide `|w| > ½` the point is listed, and the
//! CPU signs it with [`crate::geom::FastWinding::is_inside`] — the exact
//! winding number's sign, as the CPU path gives every point.

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use rayon::prelude::*;
use wgpu::util::DeviceExt;

use super::SdfError;
use super::winding_gpu::WindingGpu;
use crate::geom::BETA;
use crate::gpu::{
    Access, BufferCheck, GpuContext, GpuRun, Kernels, dispatch_dims, read_buffer, shader_source,
    storage_buffer_init, storage_buffer_zeroed,
};
use crate::mesh::PreparedMesh;

/// Uniform parameters: `struct PointsParams` of shaders/sdf_points.wgsl
/// (checked by tests/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PointsParams {
    pub frame: [f32; 3],
    pub slack: f32,
    pub count: u32,
    pub beta: f32,
    pub _pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<PointsParams>() == 32);

/// Invocations per workgroup (the shader's `POINTS_WORKGROUP`).
pub const POINTS_WORKGROUP: u32 = 64;

/// The kernel, created with the stage's GPU state.
pub struct PointsGpu {
    kernels: Kernels,
    pipeline: wgpu::ComputePipeline,
}

impl PointsGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        use Access::{ReadOnly, ReadWrite};
        // tri_pos, nodes, winding_nodes, winding_tris, points, values, undecided
        let kernels = Kernels::new(
            gpu,
            "SdfPoints",
            shader_source("sdf_points.wgsl"),
            &[
                ReadOnly, ReadOnly, ReadOnly, ReadOnly, ReadOnly, ReadWrite, ReadWrite,
            ],
        );
        PointsGpu {
            pipeline: kernels.pipeline(gpu, "exact_points"),
            kernels,
        }
    }

    /// The signed distance from `mesh` at every point, negative inside by
    /// the exact winding number; and how many points the CPU signed. The
    /// caller checks that the BVH fits the shader's stack.
    pub fn exact(
        &self,
        gpu: &GpuContext,
        winding: &WindingGpu,
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
        let tree = winding.tree(gpu, mesh)?;
        let (tri_pos, _) = mesh.gpu_triangles(&mesh.bvh.order);
        let n = points.len();
        let largest = points
            .iter()
            .fold(0.0f32, |m, p| m.max(p.abs().max_element()));
        let params = PointsParams {
            frame: tree.frame.to_array(),
            slack: 4.0 * f32::EPSILON * largest.max(tree.frame.abs().max_element()),
            count: n as u32,
            beta: BETA as f32,
            _pad: [0; 2],
        };
        let uniform = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("SdfPoints::params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let padded: Vec<[f32; 4]> = points.iter().map(|p| p.extend(0.0).to_array()).collect();
        let zeroed = |label, bytes| storage_buffer_zeroed(gpu, BufferCheck { label, bytes });
        let tri_buf = storage_buffer_init(gpu, "SdfPoints::tri_pos", &tri_pos)?;
        let nodes = storage_buffer_init(gpu, "SdfPoints::nodes", &mesh.bvh.nodes)?;
        let point_buf = storage_buffer_init(gpu, "SdfPoints::points", &padded)?;
        let values = zeroed("SdfPoints::values", 4 * n as u64)?;
        let undecided = zeroed("SdfPoints::undecided", 4 * (n as u64 + 1))?;
        let bind_group = self.kernels.bind_group(
            gpu,
            &[
                &uniform,
                &tri_buf,
                &nodes,
                &tree.nodes,
                &tree.corners,
                &point_buf,
                &values,
                &undecided,
            ],
        );
        let mut run = GpuRun::new(gpu, "SdfPoints::encoder")?;
        run.compute_pass("exact points", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            let (x, y) = dispatch_dims((n as u32).div_ceil(POINTS_WORKGROUP));
            pass.dispatch_workgroups(x, y, 1);
        });
        run.finish()?;
        let mut values: Vec<f32> = read_buffer(gpu, &values, n)?;
        let count = read_buffer::<u32>(gpu, &undecided, 1)?[0] as usize;
        let listed = read_buffer::<u32>(gpu, &undecided, count + 1)?;
        let winding = mesh.winding();
        let inside: Vec<(usize, bool)> = listed[1..]
            .par_iter()
            .map(|&i| (i as usize, winding.is_inside(points[i as usize])))
            .collect();
        for (i, inside) in inside {
            let v = &mut values[i];
            *v = if inside { -v.abs() } else { v.abs() };
        }
        Ok((values, count))
    }
}
