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

use std::sync::{Arc, Mutex};

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use wgpu::util::DeviceExt;

use super::SdfError;
use super::point_winding::{PointBuffers, PointWindingGpu, sign_exactly};
use super::winding_tree::key_of;
use crate::gpu::{
    BufferCheck, GpuContext, GpuPhase, GpuRun, KeptProfiler, Kernels, dispatch_dims, read_buffer,
    shader_source, storage_buffer_init, storage_buffer_zeroed,
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

/// The kernels, created with the stage's GPU state, the last mesh's
/// triangles and tree on the GPU, and a profiler kept across queries.
pub struct PointsGpu {
    kernels: Kernels,
    pipeline: wgpu::ComputePipeline,
    winding: PointWindingGpu,
    resident: Mutex<Option<Arc<MeshBuffers>>>,
    profiler: Mutex<Option<KeptProfiler>>,
}

/// A mesh's triangles (in BVH order) and BVH nodes on the GPU, kept while
/// the queries are on the same mesh: repeated small queries upload
/// nothing of the mesh.
struct MeshBuffers {
    key: (u64, usize),
    tri_pos: wgpu::Buffer,
    nodes: wgpu::Buffer,
}

/// The signed distances of a point query, how many points the CPU signed,
/// and the GPU's time per phase (empty without timestamp queries).
#[derive(Clone, Debug)]
pub struct PointsRun {
    pub values: Vec<f32>,
    pub cpu_signed: usize,
    pub phases: Vec<GpuPhase>,
}

impl PointsGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "SdfPoints", shader_source("sdf_points.wgsl"));
        PointsGpu {
            pipeline: kernels.pipeline(gpu, "exact_points"),
            kernels,
            winding: PointWindingGpu::new(gpu),
            resident: Mutex::new(None),
            profiler: Mutex::new(None),
        }
    }

    /// `mesh`'s triangles and nodes on the GPU, uploaded unless they are
    /// the last query's mesh.
    fn mesh_buffers(
        &self,
        gpu: &GpuContext,
        mesh: &PreparedMesh,
    ) -> Result<Arc<MeshBuffers>, SdfError> {
        let mut last = self.resident.lock().unwrap_or_else(|e| e.into_inner());
        let key = key_of(mesh);
        if let Some(kept) = last.as_ref().filter(|m| m.key == key) {
            return Ok(kept.clone());
        }
        *last = None;
        let (tri_pos, _) = mesh.gpu_triangles(&mesh.bvh.order);
        let buffers = Arc::new(MeshBuffers {
            key,
            tri_pos: storage_buffer_init(gpu, "SdfPoints::tri_pos", &tri_pos)?,
            nodes: storage_buffer_init(gpu, "SdfPoints::nodes", &mesh.bvh.nodes)?,
        });
        *last = Some(buffers.clone());
        Ok(buffers)
    }

    /// The signed distance from `mesh` at every point, negative inside by
    /// the exact winding number; how many points the CPU signed; the GPU's
    /// phases. The caller checks that the BVH fits the shader's stack.
    pub fn exact(
        &self,
        gpu: &GpuContext,
        mesh: &PreparedMesh,
        points: &[Vec3],
    ) -> Result<PointsRun, SdfError> {
        let untimed = |values| PointsRun {
            values,
            cpu_signed: 0,
            phases: Vec::new(),
        };
        if points.is_empty() {
            return Ok(untimed(Vec::new()));
        }
        if mesh.triangle_count() == 0 {
            // No surface: nothing is inside, everything infinitely far.
            return Ok(untimed(vec![f32::INFINITY; points.len()]));
        }
        let resident = self.mesh_buffers(gpu, mesh)?;
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
                ("tri_pos", &resident.tri_pos),
                ("nodes", &resident.nodes),
                ("points", &point_buf),
                ("values", &values),
            ],
        );
        let mut profiler = self.profiler.lock().unwrap_or_else(|e| e.into_inner());
        let kept = match &mut *profiler {
            Some(kept) => kept,
            slot @ None => slot.insert(KeptProfiler::new(gpu)?),
        };
        let mut run = GpuRun::with_kept(gpu, "SdfPoints::encoder", kept);
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
        let (phases, _) = run.finish()?;
        let (listed, _) = self.winding.finish(gpu, recorded)?;
        let mut values: Vec<f32> = read_buffer(gpu, &values, n)?;
        sign_exactly(mesh.winding(), points, &listed, &mut values);
        Ok(PointsRun {
            values,
            cpu_signed: listed.len(),
            phases,
        })
    }
}
