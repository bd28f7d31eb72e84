//! GPU backends: brute force (tiles of triangles in workgroup memory,
//! `shaders/sdf.wgsl`) and BVH-accelerated, a packet of cells per
//! subgroup walking a tree of boxes and slabs (`shaders/sdf_packet.wgsl`,
//! [`super::slab_bvh`]), which needs subgroup operations. The mesh they
//! run on stays on the GPU between requests ([`super::resident`]).
//!
//! The field comes back through a staging ring whose first chunks (one a
//! slot: the counters and the values' first 16 MiB) are copied in the
//! run's last submission and mapped by its wait, so the read-back starts
//! without a round trip to the GPU ([`SdfGpu::read_field`]). The price is
//! the first chunks' copy inside the kernels' submission; the saving is a
//! submission and a wait at the start of every read-back (measured in
//! `docs/bench/design-measurements.md`).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use eframe::egui_wgpu::wgpu;
use rayon::prelude::*;

use super::SignMode;
use super::points_gpu::{PointsGpu, PointsRun};
use super::resident::{MeshBuffers, ResidentMesh};
use super::slab_gpu::SlabPass;
use super::winding_gpu::{Recorded, WindingGpu};
use super::winding_tree::OpenCells;
use super::{Backend, FAR, FieldOutputs, GridSpec, SdfError, SdfField, SdfParams};
use crate::gpu::{
    BufferCheck, FirstChunks, GpuContext, GpuRun, Kernels, Source, StagingRing, dispatch_dims,
    shader_source, storage_buffer_zeroed,
};
use crate::mesh::{Frame, PreparedMesh};
use crate::timing::Timings;

/// Uniform parameters: `struct Params` of shaders/sdf.wgsl (the layout
/// is checked by tests/it/shader_layouts.rs, like every mirrored type here).
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
/// The counters' bytes.
const COUNTER_BYTES: u64 = 16;
/// Cells per task of the parallel copies out of mapped memory.
const COPY_CHUNK: usize = 1 << 16;

/// The SDF stage's long-lived GPU objects: created once per context.
pub struct SdfGpu {
    gpu: GpuContext,
    /// The mesh's buffers, kept while the same mesh is used.
    resident: ResidentMesh,
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
    /// The slabs of its tree, computed once per resident mesh.
    slabs: SlabPass,
    /// The winding-number sign of both backends.
    winding: WindingGpu,
    /// The exact field at arbitrary points, made on first use.
    points: std::sync::OnceLock<PointsGpu>,
}

impl SdfGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        // sdf_packet.wgsl adds the slab tree's `nodes` to sdf.wgsl's
        // bindings: one layout for both.
        let kernels = Kernels::with_variants(
            gpu,
            "SdfGpu",
            shader_source("sdf.wgsl"),
            &[shader_source("sdf_packet.wgsl")],
        );
        let packet = gpu
            .device
            .features()
            .contains(wgpu::Features::SUBGROUP)
            .then(|| {
                let module = kernels.module_for(gpu, shader_source("sdf_packet.wgsl"));
                ["packet_cells", "finish_cells"].map(|e| kernels.pipeline_in(gpu, &module, e))
            });
        SdfGpu {
            gpu: gpu.clone(),
            kept: Mutex::new(None),
            brute: kernels.pipeline(gpu, "brute"),
            packet,
            no_normals: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("SdfGpu::no_normals"),
                size: 4,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }),
            resident: ResidentMesh::new(gpu),
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
    /// of `points` (world coordinates, world units), how many points the
    /// CPU had to sign exactly (`super::points_gpu`), and the GPU's phases.
    /// Computed in the mesh's frame, as the grids are.
    pub fn exact_at_points(
        &self,
        mesh: &PreparedMesh,
        points: &[glam::Vec3],
    ) -> Result<PointsRun, SdfError> {
        let frame = mesh.frame();
        let local: Vec<glam::Vec3> = points.par_iter().map(|&p| frame.to_local(p)).collect();
        self.exact_at_local_points(mesh, &local)
    }

    /// [`SdfGpu::exact_at_points`] of points already in `mesh`'s frame
    /// ([`crate::mesh::Frame::to_local_f64`]); the values in world units.
    /// The mesh's triangles and trees stay on the GPU for the next query on
    /// the same mesh.
    pub fn exact_at_local_points(
        &self,
        mesh: &PreparedMesh,
        points: &[glam::Vec3],
    ) -> Result<PointsRun, SdfError> {
        let depth = mesh.bvh.depth();
        if depth >= GPU_STACK {
            return Err(SdfError::BvhTooDeep {
                depth,
                max: GPU_STACK - 1,
            });
        }
        let kernel = self.points.get_or_init(|| PointsGpu::new(&self.gpu));
        let mut run = kernel.exact(&self.gpu, mesh.local(), points)?;
        let factor = mesh.frame().world_factor();
        run.values.par_iter_mut().for_each(|v| *v *= factor);
        Ok(run)
    }

    /// Drops the mesh and the run's buffers kept on the GPU (the winding
    /// sign's per-cell buffers too; its tree stays): the next run
    /// builds and uploads the mesh and creates its buffers again, as a
    /// first call does (the benchmark's cold runs).
    pub fn release_mesh(&self) {
        self.resident.release();
        *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.winding.release();
    }

    /// The buffers the kernels write for a run of `cells_bytes` of values
    /// and `closest_bytes` of closest triangles (4 for a values-only run),
    /// and the kept staging ring if it fits reads of `read_sizes`: the
    /// kept ones where they are large enough (a repeated call allocates
    /// and frees nothing), new ones otherwise (the kept ones freed first).
    /// A new ring is made by [`SdfGpu::run`] while the kernels run.
    fn run_buffers(
        &self,
        cells_bytes: u64,
        closest_bytes: u64,
        read_sizes: &[u64],
    ) -> Result<(FieldBuffers, Option<StagingRing>), SdfError> {
        let gpu = &self.gpu;
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner()).take();
        let (fields, small, staging) = match kept {
            Some(RunBuffers { fields: k, staging }) => (
                Some([k.values, k.closest])
                    .filter(|[v, c]| v.size() >= cells_bytes && c.size() >= closest_bytes),
                Some([k.uniform, k.counters]),
                Some(staging).filter(|s| s.fits(read_sizes)),
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
    /// touched ([`HostOut`]); then records the copies of the field's first
    /// chunks into the ring ([`StagingRing::record_first`], one a slot),
    /// submits them and waits, which maps them: the read-back
    /// ([`SdfGpu::read_field`]) starts on them without a round trip. A run
    /// without `host_out` (GPU timing) records all the field's copies
    /// through the ring instead: the GPU work of its read-back.
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
        let read_sizes = read_sizes(cells_bytes, closest);
        let upload_start = Instant::now();
        // The field's buffers (on a cold call: the driver's allocation of
        // device memory) made beside the mesh's tree and upload.
        let (mesh_buffers, run_buffers) = rayon::join(
            || self.resident.buffers(mesh, accelerated, &mut timings),
            || self.run_buffers(cells_bytes, closest_bytes, &read_sizes),
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
            self.kernels.bind(
                gpu,
                &[
                    ("params", &fields.uniform),
                    ("tri_pos", &mesh_buffers.tri_pos),
                    ("normals", normals),
                    ("values", values_buf),
                    ("closest", closest_buf),
                    ("nodes", &mesh_buffers.nodes),
                    ("counters", counter_buf),
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
            let finish_group = bind_group(&self.resident.normals(mesh, &mesh_buffers)?);
            run.compute_pass("finish", |pass| {
                pass.set_pipeline(finish_cells);
                pass.set_bind_group(0, &finish_group, &[]);
                let (x, y) = dispatch_dims((n as u32).div_ceil(WORKGROUP));
                pass.dispatch_workgroups(x, y, 1);
            });
        } else {
            let group = bind_group(&self.resident.normals(mesh, &mesh_buffers)?);
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
            || kept_ring.unwrap_or_else(|| StagingRing::new(gpu, "SdfGpu::staging", &read_sizes)),
            || host_out.then(|| HostOut::faulted(n, closest)),
        );
        // The field's first chunks copied with the kernels and mapped by
        // the run's wait (a timing run records all its copies).
        let sources = read_sources(&fields, cells_bytes, closest);
        let mut copied = 0;
        run.encoder_work("copy out", |encoder| {
            copied = if host_out {
                staging.record_first(encoder, &sources)
            } else {
                staging.record_copies(encoder, &sources);
                0
            };
        });
        let (_, submitted) = run.submit_last()?;
        let first = staging.map_first(&sources, copied);
        let (phases, wall_ms) = submitted.finish()?;
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
            first,
            out,
            closest,
            accelerated,
            mesh_buffers,
            winding,
        })
    }

    /// The field of a finished run, its values in the world of `frame`:
    /// read back through the staging ring ([`StagingRing::read`]: the
    /// first chunks copied with the run and mapped by its wait, then the GPU
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
            first,
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
        let staging = staging.read(
            &self.gpu,
            &sources,
            "the field",
            first,
            |source, at, bytes| {
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
            },
        )?;
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
    [&fields.counters, &fields.values, &fields.closest]
        .into_iter()
        .zip(read_sizes(cells_bytes, closest))
        .collect()
}

/// The bytes of [`read_sources`].
fn read_sizes(cells_bytes: u64, closest: bool) -> Vec<u64> {
    let mut sizes = vec![COUNTER_BYTES, cells_bytes];
    if closest {
        sizes.push(cells_bytes);
    }
    sizes
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
    /// The field's first chunks, copied into the ring with the run.
    first: FirstChunks,
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
