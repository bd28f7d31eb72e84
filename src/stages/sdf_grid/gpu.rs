//! GPU backends: brute force (tiles of triangles in workgroup memory,
//! `shaders/sdf_grid.wgsl`) and BVH-accelerated, a packet of cells per
//! subgroup walking a tree of boxes and slabs (`shaders/sdf_packet.wgsl`,
//! [`super::slab_bvh`]), which needs subgroup operations.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use eframe::egui_wgpu::wgpu;
use rayon::prelude::*;

use super::SignMode;
use super::corners_gpu::CornerPass;
use super::points_gpu::PointsGpu;
use super::slab_bvh::{Shape, SlabNode};
use super::slab_gpu::SlabPass;
use super::winding_gpu::{Recorded, WindingGpu};
use super::winding_tree::OpenCells;
use super::{Backend, FAR, FieldOutputs, GridSpec, SdfError, SdfField, SdfParams};
use crate::gpu::{
    Access, BufferCheck, GpuContext, GpuRun, Kernels, Source, StagingRing, dispatch_dims,
    shader_source, storage_buffer_for, storage_buffer_init, storage_buffer_written,
    storage_buffer_zeroed, stream_records,
};
use crate::mesh::{Frame, PreparedMesh};
use crate::timing::Timings;

/// Uniform parameters: `struct Params` of shaders/sdf_grid.wgsl (the layout
/// is checked by tests/shader_layouts.rs, like every mirrored type here).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Params {
    pub origin: [f32; 3],
    pub cell_size: f32,
    pub dims: [u32; 3],
    pub num_tris: u32,
    pub bricks: [u32; 3],
    pub band: f32,
    pub num_cells: u32,
    /// 1 when the run reads the closest triangles back; 0: a values-only
    /// run, whose `closest` binding is a 4-byte buffer nothing touches.
    pub write_closest: u32,
    pub _pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<Params>() == 64);

/// The timing phase of the CPU's exact decisions for the cells the GPU
/// winding sign leaves undecided.
pub const FALLBACK_PHASE: &str = "sign fallback";

/// Deepest BVH the shader's traversal stack holds.
pub const GPU_STACK: usize = 64;
/// Invocations per workgroup in every entry point.
pub const WORKGROUP: u32 = 64;
/// The normals' label, and their bytes a triangle.
const NORMALS: &str = "SdfGpu::normals";
/// The tree's label.
const NODES: &str = "SdfGpu::nodes";
const NORMAL_BYTES: usize = 21 * 4;
/// The counters' bytes.
const COUNTER_BYTES: u64 = 16;
/// Cells per task of the parallel copies out of mapped memory.
const COPY_CHUNK: usize = 1 << 16;

/// The SDF stage's long-lived GPU objects: created once per context.
pub struct SdfGpu {
    gpu: GpuContext,
    resident: Mutex<Option<Arc<MeshBuffers>>>,
    /// The last run's buffers, reused by the next run they are large
    /// enough for ([`RunBuffers`]).
    kept: Mutex<Option<RunBuffers>>,
    kernels: Kernels,
    brute: wgpu::ComputePipeline,
    /// The BVH backend's two passes; `None` without subgroup operations.
    packet: Option<[wgpu::ComputePipeline; 2]>,
    /// Bound for the normals in the BVH backend's distance pass, which
    /// reads none (4 bytes).
    no_normals: wgpu::Buffer,
    /// The corners, expanded from the indexed mesh once per resident mesh.
    corners: CornerPass,
    /// The slabs of its tree, computed once per resident mesh.
    slabs: SlabPass,
    /// The winding-number sign of both backends.
    winding: WindingGpu,
    /// The exact field at arbitrary points, made on first use.
    points: std::sync::OnceLock<PointsGpu>,
}

impl SdfGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        use Access::{ReadOnly, ReadWrite};
        // Bindings as in shaders/sdf_grid.wgsl: tri_pos, normals, values,
        // closest, nodes, counters.
        let kernels = Kernels::new(
            gpu,
            "SdfGpu",
            shader_source("sdf_grid.wgsl"),
            &[
                ReadOnly, ReadOnly, ReadWrite, ReadWrite, ReadOnly, ReadWrite,
            ],
        );
        let packet = gpu
            .device
            .features()
            .contains(wgpu::Features::SUBGROUP)
            .then(|| {
                let module = gpu.shader(shader_source("sdf_packet.wgsl"));
                ["packet_cells", "finish_cells"].map(|e| kernels.pipeline_in(gpu, &module, e))
            });
        SdfGpu {
            gpu: gpu.clone(),
            resident: Mutex::new(None),
            kept: Mutex::new(None),
            brute: kernels.pipeline(gpu, "brute"),
            packet,
            no_normals: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("SdfGpu::no_normals"),
                size: 4,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }),
            corners: CornerPass::new(gpu),
            slabs: SlabPass::new(gpu),
            winding: WindingGpu::new(gpu),
            points: std::sync::OnceLock::new(),
            kernels,
        }
    }

    pub fn context(&self) -> &GpuContext {
        &self.gpu
    }

    /// The exact signed distance (winding-number sign) from `mesh` at each
    /// of `points`, and how many points the CPU had to sign exactly
    /// ([`super::points_gpu`]).
    pub fn exact_at_points(
        &self,
        mesh: &PreparedMesh,
        points: &[glam::Vec3],
    ) -> Result<(Vec<f32>, usize), SdfError> {
        let depth = mesh.bvh.depth();
        if depth >= GPU_STACK {
            return Err(SdfError::BvhTooDeep {
                depth,
                max: GPU_STACK - 1,
            });
        }
        let kernel = self.points.get_or_init(|| PointsGpu::new(&self.gpu));
        kernel.exact(&self.gpu, mesh, points)
    }

    /// Drops the mesh and the run's buffers kept on the GPU (the winding
    /// sign's per-cell buffers too; its tree stays): the next run
    /// builds and uploads the mesh and creates its buffers again, as a
    /// first call does (the benchmark's cold runs).
    pub fn release_mesh(&self) {
        *self.resident.lock().unwrap_or_else(|e| e.into_inner()) = None;
        *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.winding.release();
    }

    /// The buffers the kernels write for a run of `cells_bytes` of values
    /// and `closest_bytes` of closest triangles (4 for a values-only run),
    /// and the kept staging ring if it fits reads of `staging_bytes`: the
    /// kept ones where they are large enough (a repeated call allocates
    /// and frees nothing), new ones otherwise (the kept ones freed first).
    /// A new ring is made by [`SdfGpu::run`] while the kernels run.
    fn run_buffers(
        &self,
        cells_bytes: u64,
        closest_bytes: u64,
        staging_bytes: u64,
    ) -> Result<(FieldBuffers, Option<StagingRing>), SdfError> {
        let gpu = &self.gpu;
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner()).take();
        let (fields, small, staging) = match kept {
            Some(RunBuffers { fields: k, staging }) => (
                Some([k.values, k.closest])
                    .filter(|[v, c]| v.size() >= cells_bytes && c.size() >= closest_bytes),
                Some([k.uniform, k.counters]),
                Some(staging).filter(|s| s.fits(staging_bytes)),
            ),
            None => (None, None, None),
        };
        let [values, closest] = match fields {
            Some(f) => f,
            None => {
                let field = |label, bytes| storage_buffer_zeroed(gpu, BufferCheck { label, bytes });
                [
                    field("SdfGpu::values", cells_bytes)?,
                    field("SdfGpu::closest", closest_bytes)?,
                ]
            }
        };
        let [uniform, counters] = match small {
            Some(b) => b,
            None => [
                gpu.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("SdfGpu::params"),
                    size: std::mem::size_of::<Params>() as u64,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                storage_buffer_zeroed(
                    gpu,
                    BufferCheck {
                        label: "SdfGpu::counters",
                        bytes: COUNTER_BYTES,
                    },
                )?,
            ],
        };
        let fields = FieldBuffers {
            values,
            closest,
            uniform,
            counters,
        };
        Ok((fields, staging))
    }

    /// Keeps a finished run's buffers for the next run.
    fn keep(&self, buffers: RunBuffers) {
        *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = Some(buffers);
    }

    /// Whether the winding sign's exact GPU step runs in f64.
    pub fn winding_exact_in_f64(&self) -> bool {
        self.winding.exact_in_f64()
    }

    /// This stage with the winding sign's open cells always taking the
    /// refining walks, never straight to the exact sum however few they
    /// are (tests of the walks on small meshes).
    pub fn with_walks_always(mut self) -> Self {
        self.winding.set_direct_budget(0);
        self
    }

    /// The mesh's buffers on the GPU, uploaded once and kept while the same
    /// mesh (by content) is used: a parameter change re-runs only the
    /// kernels.
    /// On a miss: phase `bvh`, the GPU tree collapsed from the mesh's BVH
    /// without its slabs ([`slab_bvh::collapse`], in parallel; the first
    /// run's GPU work computes them, [`SlabPass`]); phase `upload`, the
    /// indexed mesh (positions, and each triangle's vertex indices in the
    /// backend's order) written straight into the uploads' staging memory
    /// and expanded into the corners on the GPU ([`CornerPass`]), and the
    /// tree copied there. The triangles need only the BVH's order, not the
    /// tree, so their upload runs beside the tree's collapse
    /// (`rayon::join`): the `upload` phase is what it adds after the
    /// collapse. The feature normals, the largest part (84 bytes a
    /// triangle), are made and written later, while the GPU runs the
    /// distance pass ([`SdfGpu::normals`]).
    ///
    /// Measured on the H200 (2026-12-02, `bench sdf --suite scaling`, builds
    /// alternated in each of four calls, `docs/bench/sdf-cold-ab-h200.csv`),
    /// the 1.1 M-triangle bunny's cold calls at 128³ pseudo-normal, step by
    /// step: 35.7–37.7 ms before; 28.4–29.9 with the normals written during
    /// the distance pass, the tree's measures walked in parallel and the
    /// mesh's bounds kept (a millisecond of every call, warm ones too);
    /// 27.4–27.6 with the corners expanded on the GPU; 23.9 with the
    /// normals' buffer made during the distance pass too (the driver took
    /// 6–7 ms for it in the first request of a mesh); 21.4–21.7 with the
    /// tree written straight into its staging memory (`bvh` 3.0–3.5 → 2.1–
    /// 2.3 ms). At 256³ 102–103 → 92.0–92.4 ms; winding sign 35.6 → 25.6–
    /// 26.2 ms (128³), 111.8–113.5 → 100.5–100.6 ms (256³). All four meet
    /// `bench sdf`'s target now, the 128³ winding one by 0.4–1.0 ms.
    ///
    /// Tried and dropped (2026-11-29, H200, A/B in one run,
    /// `docs/bench/sdf-gpu-gather-ab-h200.csv`): uploading the records in
    /// mesh order, which streams, and gathering them into the tree's order
    /// on the GPU. A cold call of the 1.1 M-triangle bunny took as long
    /// (36.3–40.1 against 36.7–41.3 ms at 128³ pseudo-normal), and the
    /// 69 K bunny's 256³ read-back was slower in both of its processes
    /// (6.9–11.8 against 2.4–3.2 ms), which was not explained.
    ///
    /// What bounds it (2026-11-29, H200, a throwaway probe and an A/B,
    /// `docs/bench/sdf-kept-upload-ab-h200.csv`): wgpu's allocator puts
    /// every upload's staging memory (`MAP_WRITE`) in device-local,
    /// host-visible memory where the device has it (gpu-allocator's
    /// `CpuToGpu`: the H200's BAR), which the host writes across PCIe at
    /// about 15 GB/s. The 1.1 M-triangle bunny's 147 MB of records took
    /// 9–10 ms to gather into staging memory kept mapped from the last
    /// upload, 15–18 ms into fresh staging memory (each page faulting on
    /// its first write), 4 ms into ordinary host memory; the GPU's copy
    /// out of it took 0.5 ms. Both tried in the A/B and dropped, no faster
    /// in `bench sdf`'s cold calls (32.6–34.9 against 33.1–35.1 ms at 128³
    /// pseudo-normal): staging memory kept between uploads (the bench's
    /// cold calls already reuse the allocator's memory blocks), and a
    /// parallel walk measuring the tree's subtrees for [`slab_bvh::collapse`]
    /// (6–13 ms alone as one backward pass, but beside the gather, which
    /// takes longer). What is left is the bytes: about 10 ms for 147 MB.
    ///
    /// The BAR is not what bounds it (2026-12-01, H200, an A/B in one run,
    /// `docs/bench/sdf-host-staging-ab-h200.csv`, and a throwaway probe
    /// timing each step alone, one after the other, four cold calls per
    /// build). Tried and dropped: staging the pieces in `MAP_READ |
    /// COPY_SRC` buffers (`MAPPABLE_PRIMARY_BUFFERS`), which gpu-allocator
    /// puts in the host's cached memory, kept mapped between uploads and
    /// written through their read mapping. The gather took as long into
    /// them as into the BAR — corners (53 MB) 2.9–3.9 against 3.0–4.5 ms,
    /// normals (93 MB) 8.5–9.8 against 8.3–9.9 ms — and as long as
    /// gathering both into a new `Vec` (8.5–11.8 ms; a one-thread copy of
    /// those 147 MB into fresh memory took 80–97 ms: first touches are
    /// dear on that host), while the GPU's copy out of host memory waited
    /// 0.7–0.9 ms after the last piece instead of 0.1–0.2. The cold calls
    /// were no faster (1.1 M bunny, 128³ pseudo-normal: 36.5–39.9 against
    /// 34.6–37.0 ms) and the 69 K bunny's 256³ ones slower (32.7–54.9
    /// against 28.0–31.7 ms). The collapse alone took 6.4–9.7 ms, beside
    /// the gather. So the floor of this format is the host's gather of
    /// 147 MB at about 12 GB/s, wherever it writes: a cold call meets
    /// `bench sdf`'s target only with fewer bytes before the kernels. That
    /// is what the order above does (2026-12-02) without deriving anything
    /// on the GPU: 20 MB of indexed corners before the kernels, the
    /// normals' 93 MB during the distance pass, which reads none.
    fn mesh_buffers(
        &self,
        mesh: &PreparedMesh,
        accelerated: bool,
        timings: &mut Timings,
    ) -> Result<Arc<MeshBuffers>, SdfError> {
        let key = (mesh.source_hash, mesh.triangle_count(), accelerated);
        let mut cache = self.resident.lock().unwrap_or_else(|e| e.into_inner());
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
        // Made when first needed ([`SdfGpu::normals`]); refused now if too
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
    fn normals(
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

    /// Runs the brute-force (`accelerated == false`) or BVH backend on
    /// `grid` (`params`' resolution and padding unused), both in the mesh's
    /// frame ([`PreparedMesh::local`]). The values come back in the world
    /// (scaled by `frame` as they are copied out), the grid stays in the
    /// frame; the closest triangles are read back only if `closest`.
    pub(super) fn compute_on(
        &self,
        mesh: &PreparedMesh,
        grid: GridSpec,
        params: &SdfParams,
        accelerated: bool,
        closest: bool,
        frame: &Frame,
    ) -> Result<SdfField, SdfError> {
        let ran = self.run(mesh, grid, params, accelerated, closest, true)?;
        self.read_field(mesh, params, ran, frame)
    }

    /// [`super::compute_with`]'s GPU work for `outputs` (the copy of the
    /// field to host-visible memory included), reading nothing back but the cells
    /// the winding sign leaves to the CPU, which it decides (phase
    /// [`FALLBACK_PHASE`]), and how many cells the GPU's refining pass and
    /// the CPU decided (winding mode): for
    /// benchmarks, whose repeated runs then keep the GPU busy and at its
    /// clock (see `cli/bench_timing.rs`).
    pub fn time(
        &self,
        mesh: &PreparedMesh,
        params: &SdfParams,
        accelerated: bool,
        outputs: FieldOutputs,
    ) -> Result<(Timings, Option<OpenCells>), SdfError> {
        let mesh = mesh.local();
        let grid = GridSpec::around(mesh.bounds(), params.resolution, params.padding);
        let closest = outputs.closest_for(params);
        let Ran {
            mut timings,
            grid,
            buffers,
            winding,
            ..
        } = self.run(mesh, grid, params, accelerated, closest, false)?;
        self.keep(buffers);
        if let Some(recorded) = winding {
            let start = Instant::now();
            let undecided = self
                .winding
                .finish(&self.gpu, recorded, mesh, &grid, None)?;
            let ms = start.elapsed().as_secs_f64() * 1e3;
            timings.push(FALLBACK_PHASE, ms, None);
            return Ok((timings, Some(undecided)));
        }
        Ok((timings, None))
    }

    /// Uploads what the kernels need (the mesh unless resident, the
    /// parameters), records the kernels and submits them; while the GPU
    /// works, creates the staging ring (unless a kept one fits,
    /// [`StagingRing`]: host-visible memory is pinned, slow to create) and,
    /// if `host_out`, the host memory the field is copied into, every page
    /// touched ([`HostOut`]); then waits. A run without `host_out` (GPU
    /// timing) also records the field's copies through the ring: the GPU
    /// work of its read-back ([`SdfGpu::read_field`]).
    fn run(
        &self,
        mesh: &PreparedMesh,
        grid: GridSpec,
        params: &SdfParams,
        accelerated: bool,
        closest: bool,
        host_out: bool,
    ) -> Result<Ran, SdfError> {
        puffin::profile_function!();
        let gpu = &self.gpu;
        let n = grid.num_cells();
        let mut timings = Timings::default();
        let packet = match (&self.packet, accelerated) {
            (Some(packet), true) => Some(packet),
            (None, true) => {
                return Err(SdfError::NoSubgroups(self.gpu.adapter_info.name.clone()));
            }
            (_, false) => None,
        };
        let cells_bytes = (n * 4) as u64;
        // A values-only run makes no field-sized buffer of closest
        // triangles: the BVH backend keeps each cell's nearest triangle in
        // `values` between its passes (`Params::write_closest`).
        let closest_bytes = if closest { cells_bytes } else { 4 };
        // Check every per-run buffer before allocating any.
        for (what, bytes) in [
            ("SdfGpu::values", cells_bytes),
            ("SdfGpu::closest", closest_bytes),
        ] {
            gpu.check_storage_size(what, bytes)?;
        }
        // Everything read back, through one ring:
        // [counters | values | closest if asked for].
        let staging_bytes = cells_bytes + COUNTER_BYTES + if closest { cells_bytes } else { 0 };
        let upload_start = Instant::now();
        // The field's buffers (on a cold call: the driver's allocation of
        // device memory) made beside the mesh's tree and upload.
        let (mesh_buffers, run_buffers) = rayon::join(
            || self.mesh_buffers(mesh, accelerated, &mut timings),
            || self.run_buffers(cells_bytes, closest_bytes, staging_bytes),
        );
        let (mesh_buffers, (fields, kept_ring)) = (mesh_buffers?, run_buffers?);
        if mesh_buffers.depth >= GPU_STACK {
            return Err(SdfError::BvhTooDeep {
                depth: mesh_buffers.depth,
                max: GPU_STACK,
            });
        }
        let bricks = grid.bricks();
        let num_bricks = (bricks.x * bricks.y * bricks.z) as usize;
        let uniform = Params {
            origin: grid.origin.to_array(),
            cell_size: grid.cell_size,
            dims: grid.dims.to_array(),
            num_tris: mesh_buffers.triangles as u32,
            bricks: bricks.to_array(),
            band: params.band.map_or(-1.0, |b| b * grid.cell_size),
            num_cells: n as u32,
            write_closest: u32::from(closest),
            _pad: [0; 2],
        };
        // Written before the run's commands (with its submission).
        gpu.queue
            .write_buffer(&fields.uniform, 0, bytemuck::bytes_of(&uniform));
        gpu.queue
            .write_buffer(&fields.counters, 0, &[0; COUNTER_BYTES as usize]);
        let FieldBuffers {
            values: values_buf,
            closest: closest_buf,
            counters: counter_buf,
            ..
        } = &fields;
        let bind_group = |normals: &wgpu::Buffer| {
            self.kernels.bind_group(
                gpu,
                &[
                    &fields.uniform,
                    &mesh_buffers.tri_pos,
                    normals,
                    values_buf,
                    closest_buf,
                    &mesh_buffers.nodes,
                    counter_buf,
                ],
            )
        };
        // The upload without the tree's build (its own phase).
        let bvh_ms = timings.total_wall_ms();
        let upload_ms = upload_start.elapsed().as_secs_f64() * 1e3 - bvh_ms;
        timings.push("upload", upload_ms, None);

        let mut run = GpuRun::new(gpu, "SdfGpu::encoder")?;
        let slabbing = !mesh_buffers.slabbed.load(Ordering::Acquire);
        if slabbing {
            self.slabs.record(
                gpu,
                &mut run,
                &mesh_buffers.tri_pos,
                &mesh_buffers.nodes,
                mesh_buffers.node_count,
            );
        }
        if let Some([packet_cells, finish_cells]) = packet {
            // The distance pass reads no normals: bound to a stand-in.
            let cells_group = bind_group(&self.no_normals);
            run.compute_pass("cells", |pass| {
                pass.set_pipeline(packet_cells);
                pass.set_bind_group(0, &cells_group, &[]);
                let (x, y) = dispatch_dims(num_bricks as u32);
                pass.dispatch_workgroups(x, y, 1);
            });
            // The GPU starts on the uploads and the distance pass; meanwhile,
            // on a cold call, the host writes the normals, which only the
            // finishing pass reads.
            run.submit_part();
            let finish_group = bind_group(&self.normals(mesh, &mesh_buffers)?);
            run.compute_pass("finish", |pass| {
                pass.set_pipeline(finish_cells);
                pass.set_bind_group(0, &finish_group, &[]);
                let (x, y) = dispatch_dims((n as u32).div_ceil(WORKGROUP));
                pass.dispatch_workgroups(x, y, 1);
            });
        } else {
            let group = bind_group(&self.normals(mesh, &mesh_buffers)?);
            run.compute_pass("cells", |pass| {
                pass.set_pipeline(&self.brute);
                pass.set_bind_group(0, &group, &[]);
                let (x, y) = dispatch_dims((n as u32).div_ceil(WORKGROUP));
                pass.dispatch_workgroups(x, y, 1);
            });
        }
        // The GPU goes on with the distance kernels; meanwhile the winding
        // sign's host work (on a cold call: packing the mesh's and its
        // cap's trees, allocating the per-cell buffers), then its passes,
        // then the ring and the host's output memory.
        run.submit_part();
        if slabbing {
            mesh_buffers.slabbed.store(true, Ordering::Release);
        }
        let winding = match params.sign_mode {
            SignMode::Winding => {
                let mut recorded = self
                    .winding
                    .record(gpu, mesh, &grid, values_buf, &mut run)?;
                run.submit_part();
                recorded.request_read();
                Some(recorded)
            }
            SignMode::PseudoNormal => None,
        };
        let (staging, out) = rayon::join(
            || kept_ring.unwrap_or_else(|| StagingRing::new(gpu, "SdfGpu::staging", staging_bytes)),
            || host_out.then(|| HostOut::faulted(n, closest)),
        );
        if !host_out {
            let sources = read_sources(&fields, cells_bytes, closest);
            run.encoder_work("copy out", |encoder| {
                staging.record_copies(encoder, &sources)
            });
        }
        let (phases, wall_ms) = run.finish()?;
        // Each GPU phase with its own GPU time; the submit-to-done wall time
        // of the whole run is booked on the first.
        for (i, p) in phases.iter().enumerate() {
            timings.push(p.name.clone(), if i == 0 { wall_ms } else { 0.0 }, p.gpu_ms);
        }
        if phases.is_empty() {
            timings.push("kernels", wall_ms, None);
        }

        Ok(Ran {
            timings,
            grid,
            buffers: RunBuffers { fields, staging },
            out,
            closest,
            accelerated,
            mesh_buffers,
            winding,
        })
    }

    /// The field of a finished run, its values in the world of `frame`:
    /// read back through the staging ring ([`StagingRing::read`]: the GPU
    /// copies the next chunk while the host copies this one), each chunk
    /// copied straight out of mapped memory, in parallel, into the run's
    /// [`HostOut`], already faulted in (the values scaled on the way, the
    /// closest triangles mapped back to mesh order on the way: phase
    /// `convert`).
    fn read_field(
        &self,
        mesh: &PreparedMesh,
        params: &SdfParams,
        ran: Ran,
        frame: &Frame,
    ) -> Result<SdfField, SdfError> {
        let Ran {
            mut timings,
            grid,
            buffers,
            out,
            closest: read_closest,
            accelerated,
            mesh_buffers,
            winding,
        } = ran;
        let readback_start = Instant::now();
        let order = &mesh.bvh.order;
        let HostOut {
            mut values,
            mut closest,
        } = out.expect("a run for read-back has its host memory");
        let RunBuffers { fields, staging } = buffers;
        let sources = read_sources(&fields, (grid.num_cells() * 4) as u64, read_closest);
        let to_world = frame.world_factor();
        let mut counters = [0u32; 4];
        let mut convert_ms = 0.0;
        let staging = staging.read(&self.gpu, &sources, "the field", |source, at, bytes| {
            let cells = at as usize / 4..(at as usize + bytes.len()) / 4;
            match source {
                COUNTERS => counters = bytemuck::pod_read_unaligned(bytes),
                VALUES => copy_chunks(&mut values[cells], bytes, |v: f32| v * to_world),
                _ => {
                    let start = Instant::now();
                    copy_chunks(&mut closest[cells], bytes, |c: u32| match c {
                        FAR => FAR,
                        // The BVH backend's triangles are in BVH order.
                        c if accelerated => (order[(c >> 3) as usize] << 3) | (c & 7),
                        c => c,
                    });
                    convert_ms += start.elapsed().as_secs_f64() * 1e3;
                }
            }
        })?;
        self.keep(RunBuffers { fields, staging });
        let readback_ms = readback_start.elapsed().as_secs_f64() * 1e3 - convert_ms;
        timings.push("readback", readback_ms, None);
        if read_closest {
            timings.push("convert", convert_ms, None);
        }
        let evaluations = if accelerated {
            u64::from(counters[0])
        } else {
            (grid.num_cells() * mesh_buffers.triangles) as u64
        };
        if let Some(recorded) = winding {
            let start = Instant::now();
            self.winding
                .finish(&self.gpu, recorded, mesh, &grid, Some(&mut values))?;
            timings.push(FALLBACK_PHASE, start.elapsed().as_secs_f64() * 1e3, None);
        }
        Ok(SdfField {
            grid,
            params: *params,
            backend: if accelerated {
                Backend::Gpu
            } else {
                Backend::GpuBrute
            },
            values,
            closest,
            distance_evaluations: evaluations,
            timings,
        })
    }
}

/// The sources of a run's read-back, in this order (indices [`COUNTERS`],
/// [`VALUES`], then the closest triangles if `closest`).
fn read_sources(fields: &FieldBuffers, cells_bytes: u64, closest: bool) -> Vec<Source<'_>> {
    let mut sources = vec![
        (&fields.counters, COUNTER_BYTES),
        (&fields.values, cells_bytes),
    ];
    if closest {
        sources.push((&fields.closest, cells_bytes));
    }
    sources
}

/// The read-back sources' indices ([`read_sources`]).
const COUNTERS: usize = 0;
const VALUES: usize = 1;

/// Copies `src` (the mapped bytes of `dst.len()` `T`s) into `dst`,
/// `convert`ing each, in parallel chunks.
fn copy_chunks<T: bytemuck::Pod + Send + Sync>(
    dst: &mut [T],
    src: &[u8],
    convert: impl Fn(T) -> T + Sync,
) {
    let src = bytemuck::cast_slice::<u8, T>(src);
    assert_eq!(dst.len(), src.len(), "cells copied out");
    dst.par_chunks_mut(COPY_CHUNK)
        .zip(src.par_chunks(COPY_CHUNK))
        .for_each(|(d, s)| {
            for (d, &s) in d.iter_mut().zip(s) {
                *d = convert(s);
            }
        });
}

/// Host memory a run's field is copied into, allocated and every page
/// written (in parallel) while the GPU computes the field, so the copy
/// out of mapped memory after it neither allocates nor page-faults (55 MB
/// of fresh pages at 256³ cost about as long as the copy itself).
struct HostOut {
    values: Vec<f32>,
    /// Empty unless the closest triangles are read back.
    closest: Vec<u32>,
}

impl HostOut {
    fn faulted(cells: usize, closest: bool) -> Self {
        let (values, closest) = rayon::join(
            || touched(0.0, cells),
            || touched(0, if closest { cells } else { 0 }),
        );
        HostOut { values, closest }
    }
}

/// `n` copies of `zero`, written through a parallel collect into fresh
/// capacity (not a calloc'd zero vector, whose pages are mapped at first
/// use).
fn touched<T: Copy + Send + Sync>(zero: T, n: usize) -> Vec<T> {
    let mut v = Vec::new();
    rayon::iter::repeat_n(zero, n)
        .with_min_len(COPY_CHUNK)
        .collect_into_vec(&mut v);
    v
}

/// A finished run: its timings and the field in host-visible memory.
struct Ran {
    timings: Timings,
    grid: GridSpec,
    /// The run's buffers, the field in `fields`.
    buffers: RunBuffers,
    /// Where the field is copied to (runs that read it back).
    out: Option<HostOut>,
    /// Whether the closest triangles are read back.
    closest: bool,
    accelerated: bool,
    mesh_buffers: Arc<MeshBuffers>,
    /// The winding sign's pass, in winding mode.
    winding: Option<Recorded>,
}

/// A run's buffers, kept between runs ([`SdfGpu::run_buffers`]): what
/// the kernels write, and the ring the field is read back through.
struct RunBuffers {
    fields: FieldBuffers,
    staging: StagingRing,
}

/// The fields (`values`, `closest`: at least the run's cells, of which the
/// kernels write and the copies read exactly the run's, so a larger kept
/// buffer's tail is never seen; `closest` 4 bytes when the run before
/// read none back), the parameters and counters (written before each
/// run).
struct FieldBuffers {
    values: wgpu::Buffer,
    closest: wgpu::Buffer,
    uniform: wgpu::Buffer,
    counters: wgpu::Buffer,
}

/// The mesh on the GPU: corners and feature normals in the backend's
/// triangle order, and the tree's nodes.
struct MeshBuffers {
    key: (u64, usize, bool),
    tri_pos: wgpu::Buffer,
    /// Made and written when a run first needs them ([`SdfGpu::normals`]).
    normals: Mutex<Option<wgpu::Buffer>>,
    nodes: wgpu::Buffer,
    /// Depth of the tree in `nodes`, and its nodes.
    depth: usize,
    node_count: usize,
    /// Whether a submitted run has computed the slabs of `nodes` (uploaded
    /// without: every node's band unbounded, exact but slower until then).
    slabbed: AtomicBool,
    /// The mesh's triangles, in the backend's order: the BVH's slots
    /// ([`slot_triangle`]) or the mesh's.
    triangles: usize,
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
