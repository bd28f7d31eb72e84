//! The winding-number sign on the GPU, for the `gpu` and `gpu-brute`
//! backends (`shaders/sdf_winding.wgsl`, `shaders/shared/winding.wgsl`).
//!
//! # Method
//!
//! After the distance kernels, one workgroup per 4³ brick of cells walks
//! [`FastWinding`]'s tree with the order-1 and -2 expansions of Barill et
//! al. 2018 §3 and the error bound of [`crate::geom::FastWinding`]'s
//! module docs, in float32, with the float32 rounding added to the bound.
//! The brick's cells share its far field: the nodes far from the brick's
//! bounding ball are expanded once about its centre as a value and a
//! gradient (a first-order local expansion, as in the fast multipole
//! method, with its Taylor remainder in the bound), so that a cell pays one
//! dot product for them and walks only the nodes near its brick itself
//! (the shader's header says how). Where `||w| − ½|` exceeds the bound, the
//! kernel signs the cell; the rest (cells near the `|w| = ½` sheet over a
//! hole, or on the surface itself)
//! are appended to a list, and the CPU decides each with
//! [`FastWinding::is_inside`] — a stricter expansion in f64, then the
//! exact sum. The sign is therefore the exact winding number's sign, the
//! CPU backends' sign, cell for cell.
//!
//! The tree and corners go to the GPU in a frame centred on the mesh's
//! bounding box (subtracted in f64), so a mesh far from the origin keeps
//! its float32 detail; the world cell centre's own rounding is the
//! `slack` the bound carries.

use std::sync::{Arc, Mutex};

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use rayon::prelude::*;
use wgpu::util::DeviceExt;

use super::{GridSpec, SdfError};
use crate::geom::{BETA, FastWinding};
use crate::gpu::{
    Access, BufferCheck, GpuContext, GpuRun, Kernels, dispatch_dims, map_staging, read_buffer,
    shader_source, storage_buffer_init, storage_buffer_zeroed,
};
use crate::mesh::PreparedMesh;

/// Uniform parameters: `struct WindingParams` of shaders/sdf_winding.wgsl
/// (checked by tests/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct WindingParams {
    pub origin: [f32; 3],
    pub cell_size: f32,
    pub dims: [u32; 3],
    pub capacity: u32,
    pub bricks: [u32; 3],
    pub beta: f32,
    pub frame: [f32; 3],
    pub slack: f32,
}
const _: () = assert!(std::mem::size_of::<WindingParams>() == 64);

/// Deepest tree the shader's stack holds (`WINDING_STACK`): one node more
/// per level.
pub const WINDING_STACK: usize = 64;
/// Undecided cells read back with the run; more take a second read.
const READ_WITH_RUN: usize = 1 << 14;

/// The pass's pipeline and the resident tree of the last mesh.
pub struct WindingGpu {
    kernels: Kernels,
    pipeline: wgpu::ComputePipeline,
    resident: Mutex<Option<Arc<TreeBuffers>>>,
}

/// A mesh's tree on the GPU.
pub(super) struct TreeBuffers {
    key: (u64, usize),
    pub(super) nodes: wgpu::Buffer,
    pub(super) corners: wgpu::Buffer,
    /// The world position the tree's coordinates are relative to.
    pub(super) frame: Vec3,
}

/// A recorded pass: what [`WindingGpu::finish`] reads back.
pub struct Recorded {
    list: wgpu::Buffer,
    staging: wgpu::Buffer,
}

impl WindingGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        use Access::{ReadOnly, ReadWrite};
        // Bindings as in shaders/sdf_winding.wgsl: nodes, corners, values,
        // undecided.
        let kernels = Kernels::new(
            gpu,
            "SdfWinding",
            shader_source("sdf_winding.wgsl"),
            &[ReadOnly, ReadOnly, ReadWrite, ReadWrite],
        );
        WindingGpu {
            pipeline: kernels.pipeline(gpu, "winding_sign"),
            kernels,
            resident: Mutex::new(None),
        }
    }

    /// The mesh's tree on the GPU, uploaded once per mesh (also for
    /// [`super::points_gpu`]).
    pub(super) fn tree(
        &self,
        gpu: &GpuContext,
        mesh: &PreparedMesh,
    ) -> Result<Arc<TreeBuffers>, SdfError> {
        let key = (mesh.source_hash, mesh.triangle_count());
        let mut cache = self.resident.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = cache.as_ref().filter(|t| t.key == key) {
            return Ok(t.clone());
        }
        let frame = mesh.mesh.bounds().center();
        let mut packed = mesh.winding().packed(frame.as_dvec3());
        if packed.depth >= WINDING_STACK {
            return Err(SdfError::BvhTooDeep {
                depth: packed.depth,
                max: WINDING_STACK - 1,
            });
        }
        if packed.nodes.is_empty() {
            // No triangles: one empty leaf, w = 0 everywhere.
            packed.nodes.push(crate::geom::WindingNode {
                b: crate::geom::LEAF_BIT,
                ..bytemuck::Zeroable::zeroed()
            });
        }
        let tree = Arc::new(TreeBuffers {
            key,
            nodes: storage_buffer_init(gpu, "SdfWinding::nodes", &packed.nodes)?,
            corners: storage_buffer_init(gpu, "SdfWinding::corners", &packed.corners)?,
            frame,
        });
        *cache = Some(tree.clone());
        Ok(tree)
    }

    /// Records the pass over `values` (the distance kernels' output) into
    /// `run`, with the copy of the first undecided cells to read back.
    pub fn record(
        &self,
        gpu: &GpuContext,
        mesh: &PreparedMesh,
        grid: &GridSpec,
        values: &wgpu::Buffer,
        run: &mut GpuRun<'_>,
    ) -> Result<Recorded, SdfError> {
        let n = grid.num_cells();
        let list_bytes = 4 * (n as u64 + 1);
        let list = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "SdfWinding::undecided",
                bytes: list_bytes,
            },
        )?;
        let tree = self.tree(gpu, mesh)?;
        let bricks = grid.bricks();
        let far = grid.bounds();
        let largest = far.min.abs().max(far.max.abs()).max_element();
        let uniform = WindingParams {
            origin: grid.origin.to_array(),
            cell_size: grid.cell_size,
            dims: grid.dims.to_array(),
            capacity: n as u32,
            bricks: bricks.to_array(),
            beta: BETA as f32,
            frame: tree.frame.to_array(),
            slack: 4.0 * f32::EPSILON * largest,
        };
        let uniform_buf = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("SdfWinding::params"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let bind_group = self.kernels.bind_group(
            gpu,
            &[&uniform_buf, &tree.nodes, &tree.corners, values, &list],
        );
        let read_bytes = list_bytes.min(4 * (READ_WITH_RUN as u64 + 1));
        let staging = crate::gpu::staging_buffer(&gpu.device, "SdfWinding::staging", read_bytes);
        let groups = bricks.x * bricks.y * bricks.z;
        run.compute_pass("winding", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            let (x, y) = dispatch_dims(groups);
            pass.dispatch_workgroups(x, y, 1);
        });
        run.encoder_work("copy out", |encoder| {
            encoder.copy_buffer_to_buffer(&list, 0, &staging, 0, read_bytes);
        });
        Ok(Recorded { list, staging })
    }

    /// After the run: the cells the GPU left undecided, each signed on the
    /// CPU by the exact winding number's side. Returns how many there were.
    pub fn finish(
        &self,
        gpu: &GpuContext,
        recorded: Recorded,
        mesh: &PreparedMesh,
        grid: &GridSpec,
        values: &mut [f32],
    ) -> Result<usize, SdfError> {
        let head: Vec<u32> = map_staging(gpu, &recorded.staging, "the undecided cells")?;
        let count = head[0] as usize;
        let cells = if count < head.len() {
            head[1..=count].to_vec()
        } else {
            read_buffer::<u32>(gpu, &recorded.list, count + 1)?.split_off(1)
        };
        sign_exactly(mesh.winding(), grid, &cells, values);
        Ok(count)
    }
}

/// Signs `cells` of `values` by [`FastWinding::is_inside`].
fn sign_exactly(winding: &FastWinding, grid: &GridSpec, cells: &[u32], values: &mut [f32]) {
    let inside: Vec<bool> = cells
        .par_iter()
        .map(|&c| winding.is_inside(grid.center_of(c as usize)))
        .collect();
    for (&c, inside) in cells.iter().zip(inside) {
        let v = &mut values[c as usize];
        *v = if inside { -v.abs() } else { v.abs() };
    }
}
