//! The winding-number sign at a list of points on the GPU
//! (`shaders/shared/winding_points.wgsl`; the module
//! `shaders/winding_points_f64.wgsl` on devices with f64,
//! `shaders/winding_points.wgsl` elsewhere): the adaptive field's octree
//! node centres and `collidoscope check`'s point sets
//! ([`super::points_gpu`]).
//!
//! # Method
//!
//! The same two passes as the grid's ([`super::winding_gpu`]), in one
//! submission. First one invocation per point walks [`FastWinding`]'s tree
//! with the order-1 and -2 expansions of Barill et al. 2018 §3 (β = 5), in
//! float32, with the error bound of [`crate::geom::FastWinding`]'s module
//! docs plus the float32 rounding (`shaders/shared/winding.wgsl`); where
//! `||w| − ½|` exceeds the bound it signs the point, else lists it. Points
//! share no bricks, so each walks the whole tree. Then the grid's refining
//! steps (`shaders/shared/winding_refine.wgsl`) decide the listed points,
//! one workgroup per point: walks with β = 12 and 32, then the exact sum of
//! every triangle's solid angle — in f64 at the point as stored where the
//! device has f64, so that only the corners' float32 storage enters the
//! bound. Only the points still open after the exact sum (within its
//! rounding of the `|w| = ½` sheet or of the surface) are read back, and the
//! CPU decides each with [`FastWinding::is_inside`] ([`sign_exactly`]): the
//! sign is the exact winding number's, point for point the CPU's.
//!
//! The tree goes to the GPU relative to the mesh's bounding-box centre
//! (subtracted in f64); a point's own rounding when moved into that frame
//! is the `slack` the bound carries.

use std::sync::{Arc, Mutex};

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use rayon::prelude::*;
use wgpu::util::DeviceExt;

use super::winding_gpu::{FRONTIER_ROOTS, OpenCells, REFINE_GROUPS, frontier};
use crate::geom::{BETA, FastWinding};
use crate::gpu::{
    Access, BufferCheck, GpuContext, GpuError, GpuRun, Kernels, dispatch_dims, map_staging,
    read_buffer, shader_source, storage_buffer_init, storage_buffer_zeroed,
};
use crate::mesh::PreparedMesh;

/// Uniform parameters: `struct PointWindingParams` of
/// shaders/shared/winding_points.wgsl (checked by tests/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PointWindingParams {
    pub frame: [f32; 3],
    pub count: u32,
    pub stride: u32,
    pub capacity: u32,
    pub beta: f32,
    pub slack: f32,
}
const _: () = assert!(std::mem::size_of::<PointWindingParams>() == 32);

/// Deepest tree the shader's stack holds (`WINDING_STACK` of
/// shaders/shared/winding.wgsl): one node more per level.
pub const WINDING_STACK: usize = 64;
pub const WORKGROUP: u32 = 64;
/// Points left to the CPU read back with the run; more take a second read.
const READ_WITH_RUN: usize = 1 << 12;

/// Why the points could not be signed on the GPU.
#[derive(Debug, thiserror::Error)]
pub enum PointWindingError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error("the winding tree is {depth} levels deep, beyond the GPU traversal stack of {max}")]
    TooDeep { depth: usize, max: usize },
}

impl From<PointWindingError> for super::SdfError {
    fn from(e: PointWindingError) -> Self {
        match e {
            PointWindingError::Gpu(e) => Self::Gpu(e),
            PointWindingError::TooDeep { depth, max } => Self::BvhTooDeep { depth, max },
        }
    }
}

/// The points a pass signs.
#[derive(Clone, Copy)]
pub struct PointBuffers<'a> {
    /// The points, one every `stride` vec4s, xyz first.
    pub points: &'a wgpu::Buffer,
    pub stride: u32,
    /// One value per point, signed in place.
    pub values: &'a wgpu::Buffer,
    /// Points: the first `count` of both.
    pub count: usize,
    /// Largest magnitude of a point's coordinates.
    pub largest: f32,
}

/// The pass's pipelines and the resident tree of the last mesh.
pub struct PointWindingGpu {
    kernels: Kernels,
    first: wgpu::ComputePipeline,
    refine: wgpu::ComputePipeline,
    resident: Mutex<Option<Arc<TreeBuffers>>>,
}

/// A mesh's tree on the GPU.
struct TreeBuffers {
    key: (u64, usize),
    nodes: wgpu::Buffer,
    corners: wgpu::Buffer,
    frontier: wgpu::Buffer,
    frame: Vec3,
}

/// A recorded pass: what [`PointWindingGpu::finish`] reads back.
pub struct Recorded {
    leftover: wgpu::Buffer,
    /// [first pass's open count | leftover count | leftover points...]
    staging: wgpu::Buffer,
}

impl PointWindingGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        use Access::{ReadOnly, ReadWrite};
        let f64 = gpu.device.features().contains(wgpu::Features::SHADER_F64);
        // Bindings as in shaders/shared/winding_points.wgsl: nodes, corners,
        // points, values, undecided, frontier, leftover.
        let kernels = Kernels::new(
            gpu,
            "WindingPoints",
            shader_source(if f64 {
                "winding_points_f64.wgsl"
            } else {
                "winding_points.wgsl"
            }),
            &[
                ReadOnly, ReadOnly, ReadOnly, ReadWrite, ReadWrite, ReadOnly, ReadWrite,
            ],
        );
        PointWindingGpu {
            first: kernels.pipeline(gpu, "winding_points"),
            refine: kernels.pipeline(gpu, "winding_points_refine"),
            kernels,
            resident: Mutex::new(None),
        }
    }

    fn tree(
        &self,
        gpu: &GpuContext,
        mesh: &PreparedMesh,
    ) -> Result<Arc<TreeBuffers>, PointWindingError> {
        let key = (mesh.source_hash, mesh.triangle_count());
        let mut cache = self.resident.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = cache.as_ref().filter(|t| t.key == key) {
            return Ok(t.clone());
        }
        let frame = mesh.mesh.bounds().center();
        let packed = mesh
            .winding()
            .packed_for_stack(frame.as_dvec3(), WINDING_STACK)
            .map_err(|depth| PointWindingError::TooDeep {
                depth,
                max: WINDING_STACK - 1,
            })?;
        let roots = frontier(&packed.nodes, FRONTIER_ROOTS);
        let tree = Arc::new(TreeBuffers {
            key,
            nodes: storage_buffer_init(gpu, "WindingPoints::nodes", &packed.nodes)?,
            corners: storage_buffer_init(gpu, "WindingPoints::corners", &packed.corners)?,
            frontier: storage_buffer_init(gpu, "WindingPoints::frontier", &roots)?,
            frame,
        });
        *cache = Some(tree.clone());
        Ok(tree)
    }

    /// Records both passes over `points` into `run` (phases "winding" and
    /// "winding refine"), with the copy of the counts and the first points
    /// left to the CPU to read back.
    pub fn record(
        &self,
        gpu: &GpuContext,
        mesh: &PreparedMesh,
        points: &PointBuffers<'_>,
        run: &mut GpuRun<'_>,
    ) -> Result<Recorded, PointWindingError> {
        let n = points.count;
        let list_bytes = 4 * (n as u64 + 1);
        let zeroed = |label| {
            storage_buffer_zeroed(
                gpu,
                BufferCheck {
                    label,
                    bytes: list_bytes,
                },
            )
        };
        let list = zeroed("WindingPoints::undecided")?;
        let leftover = zeroed("WindingPoints::leftover")?;
        let tree = self.tree(gpu, mesh)?;
        let uniform = PointWindingParams {
            frame: tree.frame.to_array(),
            count: n as u32,
            stride: points.stride,
            capacity: n as u32,
            beta: BETA as f32,
            slack: 4.0 * f32::EPSILON * points.largest.max(tree.frame.abs().max_element()),
        };
        let uniform_buf = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("WindingPoints::params"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let bind_group = self.kernels.bind_group(
            gpu,
            &[
                &uniform_buf,
                &tree.nodes,
                &tree.corners,
                points.points,
                points.values,
                &list,
                &tree.frontier,
                &leftover,
            ],
        );
        let read_bytes = list_bytes.min(4 * (READ_WITH_RUN as u64 + 1));
        let staging =
            crate::gpu::staging_buffer(&gpu.device, "WindingPoints::staging", 4 + read_bytes);
        run.compute_pass("winding", |pass| {
            pass.set_pipeline(&self.first);
            pass.set_bind_group(0, &bind_group, &[]);
            let (x, y) = dispatch_dims((n as u32).div_ceil(WORKGROUP));
            pass.dispatch_workgroups(x, y, 1);
        });
        // The open points' count is known on the GPU only: enough
        // workgroups for a large share, each looping over the list.
        run.compute_pass("winding refine", |pass| {
            pass.set_pipeline(&self.refine);
            pass.set_bind_group(0, &bind_group, &[]);
            let (x, y) = dispatch_dims((n as u32).div_ceil(64).min(REFINE_GROUPS));
            pass.dispatch_workgroups(x, y, 1);
        });
        run.encoder_work("copy out", |encoder| {
            encoder.copy_buffer_to_buffer(&list, 0, &staging, 0, 4);
            encoder.copy_buffer_to_buffer(&leftover, 0, &staging, 4, read_bytes);
        });
        Ok(Recorded { leftover, staging })
    }

    /// After the run: the points the GPU left open (for [`sign_exactly`])
    /// and how many points the refining pass and the CPU decide.
    pub fn finish(
        &self,
        gpu: &GpuContext,
        recorded: Recorded,
    ) -> Result<(Vec<u32>, OpenCells), GpuError> {
        let head: Vec<u32> = map_staging(gpu, &recorded.staging, "the undecided points")?;
        let (open, count) = (head[0] as usize, head[1] as usize);
        let points = if count + 2 <= head.len() {
            head[2..count + 2].to_vec()
        } else {
            read_buffer::<u32>(gpu, &recorded.leftover, count + 1)?.split_off(1)
        };
        let counts = OpenCells {
            // The first pass here is the tree walk, not the crossing count.
            counted: 0,
            walked: 0,
            refined: open - count,
            cpu: count,
        };
        Ok((points, counts))
    }
}

/// Signs `listed` of `values` (points `points`) by
/// [`FastWinding::is_inside`]: the points the GPU left open.
pub fn sign_exactly(winding: &FastWinding, points: &[Vec3], listed: &[u32], values: &mut [f32]) {
    let inside: Vec<bool> = listed
        .par_iter()
        .map(|&i| winding.is_inside(points[i as usize]))
        .collect();
    for (&i, inside) in listed.iter().zip(inside) {
        let v = &mut values[i as usize];
        *v = if inside { -v.abs() } else { v.abs() };
    }
}
