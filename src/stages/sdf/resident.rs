//! The uniform SDF's mesh on the GPU ([`ResidentMesh`]), uploaded once and
//! kept while the same mesh (by content) is used: a parameter change re-runs
//! only the kernels.
//!
//! On a miss: phase `bvh`, the GPU tree collapsed from the mesh's BVH
//! without its slabs ([`Shape`], in parallel; the first
//! run's GPU work computes them, [`super::slab_gpu::SlabPass`]); phase `upload`, the
//! indexed mesh (positions, and each triangle's vertex indices in the
//! backend's order) written straight into the uploads' staging memory
//! and expanded into the corners on the GPU ([`CornerPass`]), and the
//! tree copied there. The triangles need only the BVH's order, not the
//! tree, so their upload runs beside the tree's collapse
//! (`rayon::join`): the `upload` phase is what it adds after the
//! collapse. The feature normals, the largest part (84 bytes a
//! triangle), are made and written later, while the GPU runs the
//! distance pass ([`ResidentMesh::normals`]).
//!
//! Why in this order: a cold call's host work before the kernels is
//! bounded by the bytes it writes into the uploads' staging memory, not by
//! where that memory lies. wgpu's allocator puts staging memory
//! (`MAP_WRITE`) in device-local, host-visible memory where the device has
//! it (gpu-allocator's `CpuToGpu`: the BAR), written across PCIe; host
//! memory, staging kept mapped between uploads, or a gather into a plain
//! `Vec` were each tried and were no faster, and fresh memory costs a page
//! fault on each first write. So the upload sends as few bytes as it can
//! before the kernels: the indexed corners (a closed mesh has half as many
//! vertices as triangles) and the tree, while the feature normals, which
//! the distance pass does not read, are made and written during it.
//! Gathering the records into the tree's order on the GPU instead was
//! tried too and gained nothing. The measurements of each step and of what
//! was dropped are in `docs/bench/design-measurements.md`.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use eframe::egui_wgpu::wgpu;

use super::SdfError;
use super::corners_gpu::CornerPass;
use super::slab_bvh::{Shape, SlabNode};
use crate::gpu::{
    GpuContext, storage_buffer_for, storage_buffer_init, storage_buffer_written, stream_records,
};
use crate::mesh::PreparedMesh;
use crate::timing::Timings;

/// The normals' label, and their bytes a triangle.
const NORMALS: &str = "SdfGpu::normals";
const NORMAL_BYTES: usize = 21 * 4;
/// The tree's label.
const NODES: &str = "SdfGpu::nodes";

/// The resident mesh of an [`super::gpu::SdfGpu`]: at most one, replaced
/// when another is asked for.
pub(super) struct ResidentMesh {
    gpu: GpuContext,
    cache: Mutex<Option<Arc<MeshBuffers>>>,
    /// The corners, expanded from the indexed mesh once per resident mesh.
    corners: CornerPass,
}

impl ResidentMesh {
    pub(super) fn new(gpu: &GpuContext) -> Self {
        ResidentMesh {
            gpu: gpu.clone(),
            cache: Mutex::new(None),
            corners: CornerPass::new(gpu),
        }
    }

    /// Drops the resident mesh: the next request uploads it again.
    pub(super) fn release(&self) {
        *self.cache.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// The buffers of `mesh` for the BVH backend (`accelerated`) or brute
    /// force, uploaded on a miss (see the module docs; phases `bvh` and,
    /// by the caller, `upload` in `timings`).
    pub(super) fn buffers(
        &self,
        mesh: &PreparedMesh,
        accelerated: bool,
        timings: &mut Timings,
    ) -> Result<Arc<MeshBuffers>, SdfError> {
        let key = (mesh.source_hash, mesh.triangle_count(), accelerated);
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = cache.as_ref().filter(|b| b.key == key) {
            return Ok(b.clone());
        }
        let start = Instant::now();
        // The BVH backend works on triangles in BVH order (leaves are
        // contiguous); results are mapped back to mesh order.
        let triangles = mesh.triangle_count();
        let slot = |i: usize| slot_triangle(mesh, accelerated, i);
        let gpu = &self.gpu;
        let ((tree, bvh_ms), tri_pos) = rayon::join(
            || {
                let tree = self.tree(mesh, accelerated);
                (tree, start.elapsed().as_secs_f64() * 1e3)
            },
            || self.corners.corners(gpu, "SdfGpu::tri_pos", mesh, slot),
        );
        timings.push("bvh", bvh_ms, None);
        let ((nodes, depth, node_count), tri_pos) = (tree?, tri_pos?);
        // Made when first needed ([`ResidentMesh::normals`]); refused now if too
        // large, before anything runs.
        gpu.check_upload_size(NORMALS, (triangles * NORMAL_BYTES) as u64)?;
        let buffers = Arc::new(MeshBuffers {
            key,
            tri_pos,
            normals: Mutex::new(None),
            nodes,
            depth,
            node_count,
            slabbed: AtomicBool::new(!accelerated),
            triangles,
        });
        *cache = Some(buffers.clone());
        Ok(buffers)
    }

    /// The GPU tree of `mesh` (uploaded, its depth, its nodes): for the
    /// BVH backend the BVH collapsed ([`slab_bvh::Shape`]) straight into
    /// the upload's staging memory; for brute force a one-node tree its
    /// kernel binds and never reads.
    fn tree(
        &self,
        mesh: &PreparedMesh,
        accelerated: bool,
    ) -> Result<(wgpu::Buffer, usize, usize), SdfError> {
        if !accelerated {
            let node = <SlabNode as bytemuck::Zeroable>::zeroed();
            let nodes = storage_buffer_init(&self.gpu, NODES, &[node])?;
            return Ok((nodes, 1, 1));
        }
        let shape = Shape::of(&mesh.bvh);
        let count = shape.node_count();
        let bytes = (count * std::mem::size_of::<SlabNode>()) as u64;
        let (nodes, depth) = storage_buffer_written(&self.gpu, NODES, bytes, |out| {
            shape.write(&mesh.bvh, out.into_chunks().0)
        })?;
        Ok((nodes, depth, count))
    }

    /// The feature normals of `buffers` (those of `mesh`), made and
    /// written unless a run has: after the submission of the BVH backend's
    /// distance pass, which reads only the corners, so that the host makes
    /// and writes them while the GPU computes; before the brute-force pass,
    /// which needs them. Making the buffer is part of it: a driver's
    /// allocation of a large buffer takes milliseconds when it finds no free
    /// block.
    pub(super) fn normals(
        &self,
        mesh: &PreparedMesh,
        buffers: &MeshBuffers,
    ) -> Result<wgpu::Buffer, SdfError> {
        let mut normals = buffers.normals.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = normals.as_ref() {
            return Ok(b.clone());
        }
        let (gpu, accelerated) = (&self.gpu, buffers.key.2);
        let buffer = storage_buffer_for::<[f32; 21]>(gpu, NORMALS, buffers.triangles)?;
        stream_records(gpu, NORMALS, &buffer, buffers.triangles, |i| {
            mesh.gpu_normals(slot_triangle(mesh, accelerated, i))
        })?;
        *normals = Some(buffer.clone());
        Ok(buffer)
    }
}

/// The mesh on the GPU: corners and feature normals in the backend's
/// triangle order, and the tree's nodes.
pub(super) struct MeshBuffers {
    key: (u64, usize, bool),
    pub(super) tri_pos: wgpu::Buffer,
    /// Made and written when a run first needs them
    /// ([`ResidentMesh::normals`]).
    normals: Mutex<Option<wgpu::Buffer>>,
    pub(super) nodes: wgpu::Buffer,
    /// Depth of the tree in `nodes`, and its nodes.
    pub(super) depth: usize,
    pub(super) node_count: usize,
    /// Whether a submitted run has computed the slabs of `nodes` (uploaded
    /// without: every node's band unbounded, exact but slower until then).
    pub(super) slabbed: AtomicBool,
    /// The mesh's triangles, in the backend's order: the BVH's slots
    /// ([`slot_triangle`]) or the mesh's.
    pub(super) triangles: usize,
}

/// The mesh triangle in place `i` of the backend's order: the BVH's slot
/// `i` for the BVH backend, triangle `i` for brute force.
fn slot_triangle(mesh: &PreparedMesh, accelerated: bool, i: usize) -> usize {
    if accelerated {
        mesh.bvh.order[i] as usize
    } else {
        i
    }
}
