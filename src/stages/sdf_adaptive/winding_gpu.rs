//! The adaptive field's winding-number sign on the GPU
//! (`shaders/winding_points.wgsl`), for [`super::AdaptiveGpu`] in
//! [`SignMode::Winding`](super::SignMode::Winding).
//!
//! # Method
//!
//! After the distance queries, one invocation per octree node walks
//! [`FastWinding`]'s tree at the node's centre with the order-1 and -2
//! expansions of Barill et al. 2018 §3, in float32, with the same error
//! bound (the expansion's remainder plus float32 rounding) and the same WGSL
//! as the grid's pass (`shaders/shared/winding.wgsl`,
//! [`crate::stages::sdf_grid`]'s `winding_gpu`). Where `||w| − ½|` exceeds
//! the bound the kernel signs the node; the others are listed, and the CPU
//! decides each with [`FastWinding::is_inside`] (a stricter f64 expansion,
//! then the exact sum). The sign is therefore the exact winding number's,
//! node for node the CPU backend's. Unlike the grid's bricks, octree nodes
//! are not laid out in blocks that share a far field, so each walks the
//! tree on its own.
//!
//! The tree goes to the GPU relative to the mesh's bounding-box centre
//! (subtracted in f64), as the grid's does; the nodes' own rounding is the
//! `slack` the bound carries.

use std::sync::{Arc, Mutex};

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use wgpu::util::DeviceExt;

use super::AdaptiveError;
use crate::geom::{BETA, FastWinding};
use crate::gpu::{
    Access, BufferCheck, GpuContext, GpuRun, Kernels, dispatch_dims, read_buffer, shader_source,
    storage_buffer_init, storage_buffer_zeroed,
};
use crate::mesh::PreparedMesh;
use crate::timing::Timings;

/// Uniform parameters: `struct PointWindingParams` of
/// shaders/winding_points.wgsl (checked by tests/shader_layouts.rs).
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
/// `OctreeNode` in vec4s: its centre is the first three floats.
const NODE_STRIDE: u32 = (std::mem::size_of::<super::OctreeNode>() / 16) as u32;

/// The octree nodes a pass signs.
#[derive(Clone, Copy)]
pub struct NodeBuffers<'a> {
    /// `array<OctreeNode>`: the points are its nodes' centres.
    pub octree: &'a wgpu::Buffer,
    /// One value per node, signed in place.
    pub values: &'a wgpu::Buffer,
    /// Nodes: the first `count` of both.
    pub count: usize,
    /// Largest magnitude of a centre's coordinates.
    pub largest: f32,
}

/// The pass's pipeline and the resident tree of the last mesh.
pub struct PointWindingGpu {
    kernels: Kernels,
    pipeline: wgpu::ComputePipeline,
    resident: Mutex<Option<Arc<TreeBuffers>>>,
}

/// A mesh's tree on the GPU.
struct TreeBuffers {
    key: (u64, usize),
    nodes: wgpu::Buffer,
    corners: wgpu::Buffer,
    frame: Vec3,
}

impl PointWindingGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        use Access::{ReadOnly, ReadWrite};
        // Bindings as in shaders/winding_points.wgsl: nodes, corners,
        // points, values, undecided.
        let kernels = Kernels::new(
            gpu,
            "WindingPoints",
            shader_source("winding_points.wgsl"),
            &[ReadOnly, ReadOnly, ReadOnly, ReadWrite, ReadWrite],
        );
        PointWindingGpu {
            pipeline: kernels.pipeline(gpu, "winding_points"),
            kernels,
            resident: Mutex::new(None),
        }
    }

    fn tree(
        &self,
        gpu: &GpuContext,
        mesh: &PreparedMesh,
    ) -> Result<Arc<TreeBuffers>, AdaptiveError> {
        let key = (mesh.source_hash, mesh.triangle_count());
        let mut cache = self.resident.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = cache.as_ref().filter(|t| t.key == key) {
            return Ok(t.clone());
        }
        let frame = mesh.mesh.bounds().center();
        let packed = mesh
            .winding()
            .packed_for_stack(frame.as_dvec3(), WINDING_STACK)
            .map_err(|depth| AdaptiveError::BvhTooDeep {
                depth,
                max: WINDING_STACK - 1,
            })?;
        let tree = Arc::new(TreeBuffers {
            key,
            nodes: storage_buffer_init(gpu, "WindingPoints::nodes", &packed.nodes)?,
            corners: storage_buffer_init(gpu, "WindingPoints::corners", &packed.corners)?,
            frame,
        });
        *cache = Some(tree.clone());
        Ok(tree)
    }

    /// Signs `nodes.values` by the winding number at the nodes' centres on
    /// the GPU and returns the nodes its bound left undecided; the pass's
    /// time goes to `timings` as "winding".
    pub fn sign(
        &self,
        gpu: &GpuContext,
        mesh: &PreparedMesh,
        nodes: &NodeBuffers<'_>,
        timings: &mut Timings,
    ) -> Result<Vec<u32>, AdaptiveError> {
        let NodeBuffers {
            octree,
            values,
            count,
            largest,
        } = *nodes;
        let tree = self.tree(gpu, mesh)?;
        let list = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "WindingPoints::undecided",
                bytes: 4 * (count as u64 + 1),
            },
        )?;
        let uniform = PointWindingParams {
            frame: tree.frame.to_array(),
            count: count as u32,
            stride: NODE_STRIDE,
            capacity: count as u32,
            beta: BETA as f32,
            slack: 4.0 * f32::EPSILON * (largest + tree.frame.abs().max_element()),
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
                octree,
                values,
                &list,
            ],
        );
        let mut run = GpuRun::new(gpu, "WindingPoints::encoder")?;
        run.compute_pass("winding", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            let (x, y) = dispatch_dims((count as u32).div_ceil(WORKGROUP));
            pass.dispatch_workgroups(x, y, 1);
        });
        let (phases, wall_ms) = run.finish()?;
        for p in phases {
            timings.push(p.name, wall_ms, p.gpu_ms);
        }
        let head: Vec<u32> = read_buffer(gpu, &list, 1)?;
        let undecided = head[0] as usize;
        Ok(if undecided == 0 {
            Vec::new()
        } else {
            read_buffer::<u32>(gpu, &list, undecided + 1)?.split_off(1)
        })
    }
}

/// Signs `nodes` of `values` (points `centres`) by
/// [`FastWinding::is_inside`]: the GPU's undecided nodes.
pub fn sign_exactly(winding: &FastWinding, centres: &[Vec3], nodes: &[u32], values: &mut [f32]) {
    use rayon::prelude::*;
    let inside: Vec<bool> = nodes
        .par_iter()
        .map(|&i| winding.is_inside(centres[i as usize]))
        .collect();
    for (&i, inside) in nodes.iter().zip(inside) {
        let v = &mut values[i as usize];
        *v = if inside { -v.abs() } else { v.abs() };
    }
}
