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
//! Measured on the H200 (2026-12-02, `bench sdf --suite scaling`, builds
//! alternated in each of four calls, `docs/bench/sdf-cold-ab-h200.csv`),
//! the 1.1 M-triangle bunny's cold calls at 128³ pseudo-normal, step by
//! step: 35.7–37.7 ms before; 28.4–29.9 with the normals written during
//! the distance pass, the tree's measures walked in parallel and the
//! mesh's bounds kept (a millisecond of every call, warm ones too);
//! 27.4–27.6 with the corners expanded on the GPU; 23.9 with the
//! normals' buffer made during the distance pass too (the driver took
//! 6–7 ms for it in the first request of a mesh); 21.4–21.7 with the
//! tree written straight into its staging memory (`bvh` 3.0–3.5 → 2.1–
//! 2.3 ms). At 256³ 102–103 → 92.0–92.4 ms; winding sign 35.6 → 25.6–
//! 26.2 ms (128³), 111.8–113.5 → 100.5–100.6 ms (256³). All four met
//! `bench sdf`'s target in every round of those calls, the 128³ winding
//! one by 0.4–1.0 ms; that day's goal runs found them at the target, within
//! the host's noise, and session 19's (with the read-back's first chunks
//! copied ahead, [`super::gpu`]) met all four (the README's goals).
//!
//! Tried and dropped (2026-11-29, H200, A/B in one run,
//! `docs/bench/sdf-gpu-gather-ab-h200.csv`): uploading the records in
//! mesh order, which streams, and gathering them into the tree's order
//! on the GPU. A cold call of the 1.1 M-triangle bunny took as long
//! (36.3–40.1 against 36.7–41.3 ms at 128³ pseudo-normal), and the
//! 69 K bunny's 256³ read-back was slower in both of its processes
//! (6.9–11.8 against 2.4–3.2 ms), which was not explained.
//!
//! What bounds it (2026-11-29, H200, a throwaway probe and an A/B,
//! `docs/bench/sdf-kept-upload-ab-h200.csv`): wgpu's allocator puts
//! every upload's staging memory (`MAP_WRITE`) in device-local,
//! host-visible memory where the device has it (gpu-allocator's
//! `CpuToGpu`: the H200's BAR), which the host writes across PCIe at
//! about 15 GB/s. The 1.1 M-triangle bunny's 147 MB of records took
//! 9–10 ms to gather into staging memory kept mapped from the last
//! upload, 15–18 ms into fresh staging memory (each page faulting on
//! its first write), 4 ms into ordinary host memory; the GPU's copy
//! out of it took 0.5 ms. Both tried in the A/B and dropped, no faster
//! in `bench sdf`'s cold calls (32.6–34.9 against 33.1–35.1 ms at 128³
//! pseudo-normal): staging memory kept between uploads (the bench's
//! cold calls already reuse the allocator's memory blocks), and a
//! parallel walk measuring the tree's subtrees for the collapse
//! (6–13 ms alone as one backward pass, but beside the gather, which
//! takes longer). What is left is the bytes: about 10 ms for 147 MB.
//!
//! The BAR is not what bounds it (2026-12-01, H200, an A/B in one run,
//! `docs/bench/sdf-host-staging-ab-h200.csv`, and a throwaway probe
//! timing each step alone, one after the other, four cold calls per
//! build). Tried and dropped: staging the pieces in `MAP_READ |
//! COPY_SRC` buffers (`MAPPABLE_PRIMARY_BUFFERS`), which gpu-allocator
//! puts in the host's cached memory, kept mapped between uploads and
//! written through their read mapping. The gather took as long into
//! them as into the BAR — corners (53 MB) 2.9–3.9 against 3.0–4.5 ms,
//! normals (93 MB) 8.5–9.8 against 8.3–9.9 ms — and as long as
//! gathering both into a new `Vec` (8.5–11.8 ms; a one-thread copy of
//! those 147 MB into fresh memory took 80–97 ms: first touches are
//! dear on that host), while the GPU's copy out of host memory waited
//! 0.7–0.9 ms after the last piece instead of 0.1–0.2. The cold calls
//! were no faster (1.1 M bunny, 128³ pseudo-normal: 36.5–39.9 against
//! 34.6–37.0 ms) and the 69 K bunny's 256³ ones slower (32.7–54.9
//! against 28.0–31.7 ms). The collapse alone took 6.4–9.7 ms, beside
//! the gather. So the floor of this format is the host's gather of
//! 147 MB at about 12 GB/s, wherever it writes: a cold call meets
//! `bench sdf`'s target only with fewer bytes before the kernels. That
//! is what the order above does (2026-12-02) without deriving anything
//! on the GPU: 20 MB of indexed corners before the kernels, the
//! normals' 93 MB during the distance pass, which reads none.

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
    /// which needs them. Making the buffer is part of it: on the H200 the
    /// driver's allocation of the 1.1 M-triangle bunny's 93 MB took 6–7 ms
    /// when it found no free block (2026-12-02).
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
