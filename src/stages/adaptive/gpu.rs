//! The GPU backend: Morton codes, radix sort, octree, the RSS multi-BVH
//! build (or the mesh's resident AABB BVH) and the queries, recorded into
//! one run with no read-back until the end, then in winding mode the
//! winding-number sign of every node in a second run (the grid's point
//! passes, `sdf::point_winding`). Shaders:
//! `shaders/adaptive.wgsl`, `shaders/adaptive_rss_bvh.wgsl` and
//! `shaders/shared/winding_points.wgsl`.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::rss_bvh_gpu::{DISPATCH_SLOTS, RssBuffers, RssBuildGpu, StageBuffers, node_slots};
use super::{
    AdaptiveBvh, AdaptiveError, AdaptiveField, AdaptiveMemory, AdaptiveParams, DepthStats, NONE,
    Octree, OctreeNode, QueryCounts, RssBvh, RssNode, SignMode, mesh_cube, node_capacity,
};
use crate::geom::{BvhNode, MORTON_BITS_PER_AXIS, MORTON_CELLS};
use crate::gpu::{
    BufferCheck, GpuContext, GpuRun, Kernels, RadixSort, dispatch_dims, read_buffer, shader_source,
    storage_buffer_init, storage_buffer_zeroed,
};
use crate::mesh::PreparedMesh;
use crate::stages::sdf::OpenCells;
use crate::stages::sdf::point_winding::{PointBuffers, PointWindingGpu, sign_exactly};
use crate::timing::Timings;

/// Uniform parameters: `struct Params` of shaders/adaptive.wgsl (the
/// layout is checked by tests/it/shader_layouts.rs, like every mirrored type
/// and constant here).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Params {
    pub origin: [f32; 3],
    pub size: f32,
    pub scale: f32,
    pub num_tris: u32,
    pub start_depth: u32,
    pub max_depth: u32,
    pub alpha: u32,
    pub capacity: u32,
    pub parent_bound: u32,
    pub use_rss: u32,
    pub wide_below: u32,
    pub _pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<Params>() == 64);

/// Indices into the shaders' shared `state` buffer (the constants of
/// shaders/adaptive.wgsl and shaders/adaptive_rss_bvh.wgsl).
pub const STATE_NODE_COUNT: usize = 0;
pub const STATE_OVERFLOW: usize = 4;
pub const STATE_RSS_NODE_COUNT: usize = 32;
pub const STATE_GROUP_COUNT: usize = 33;
pub const STATE_STATS: usize = 48;
const STATE_LEN: usize = STATE_STATS + 6 * (MORTON_BITS_PER_AXIS as usize + 1);

/// Deepest BVH the shared traversal stack holds (shaders/shared/bvh_nearest.wgsl).
pub const GPU_STACK: usize = 64;
pub const WORKGROUP: u32 = 64;
/// Dispatch slots of each depth's narrow and wide queries
/// (shaders/adaptive.wgsl).
pub const QUERY_ARGS: u32 = 13;
pub const WIDE_ARGS: u32 = 24;
/// `OctreeNode` in vec4s: its centre is the first three floats (the
/// winding pass reads the centres in place).
const NODE_STRIDE: u32 = (std::mem::size_of::<OctreeNode>() / 16) as u32;

/// A finished run: its timings and state, and the buffers holding the
/// field until it is read back.
struct Ran {
    timings: Timings,
    /// GPU time of each depth's queries.
    query_ms: Vec<Option<f64>>,
    state_out: Vec<u32>,
    /// Winding mode: the nodes the GPU left to the CPU, and how many
    /// nodes the refining pass and the CPU decide.
    undecided: Vec<u32>,
    open: Option<OpenCells>,
    buffers: RunBuffers,
}

/// What a run's buffers are sized for.
#[derive(Clone, Copy, PartialEq, Eq)]
struct RunKey {
    triangles: usize,
    /// Octree nodes.
    capacity: u64,
    /// Triangles of the RSS BVHs (0 with the AABB BVH).
    rss_triangles: usize,
    group_level: u32,
}

/// The buffers of one run, kept for the next run of the same sizes: a
/// benchmark's or a deforming mesh's runs then allocate nothing.
struct RunBuffers {
    key: RunKey,
    keys: wgpu::Buffer,
    vals: wgpu::Buffer,
    octree: wgpu::Buffer,
    values: wgpu::Buffer,
    closest: wgpu::Buffer,
    state: wgpu::Buffer,
    /// Dispatch sizes the shaders write and later dispatches read as their
    /// indirect arguments. A buffer cannot be storage and indirect in one
    /// dispatch, so those bind `no_args` in its place (they never touch
    /// it): no copies, no pass breaks.
    dispatch: wgpu::Buffer,
    no_args: wgpu::Buffer,
    rss: RssBuffers,
}

impl RunBuffers {
    fn new(gpu: &GpuContext, key: RunKey) -> Result<Self, AdaptiveError> {
        let zeroed =
            |label: &str, bytes: u64| storage_buffer_zeroed(gpu, BufferCheck { label, bytes });
        let n = key.triangles as u64;
        let [dispatch, no_args] = ["AdaptiveGpu::dispatch", "AdaptiveGpu::no_args"].map(|label| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 12 * DISPATCH_SLOTS,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT,
                mapped_at_creation: false,
            })
        });
        Ok(RunBuffers {
            key,
            keys: zeroed("AdaptiveGpu::keys", n * 4)?,
            vals: zeroed("AdaptiveGpu::vals", n * 4)?,
            octree: zeroed(
                "AdaptiveGpu::octree",
                key.capacity * size_of::<OctreeNode>() as u64,
            )?,
            values: zeroed("AdaptiveGpu::values", key.capacity * 4)?,
            closest: zeroed("AdaptiveGpu::closest", key.capacity * 4)?,
            state: zeroed("AdaptiveGpu::state", STATE_LEN as u64 * 4)?,
            dispatch,
            no_args,
            rss: RssBuildGpu::buffers(gpu, key.rss_triangles as u64, key.group_level)?,
        })
    }
}

/// The GPU phase of one depth's queries; they add up to the "queries" phase.
fn query_phase(depth: u32) -> String {
    format!("queries, depth {depth}")
}

/// The adaptive stage's long-lived GPU objects: created once per context.
pub struct AdaptiveGpu {
    gpu: GpuContext,
    sort: RadixSort,
    rss_build: RssBuildGpu,
    resident: Mutex<Option<Arc<MeshBuffers>>>,
    /// The last run's buffers (see [`RunBuffers`]).
    spare: Mutex<Option<RunBuffers>>,
    kernels: Kernels,
    morton: wgpu::ComputePipeline,
    init_roots: wgpu::ComputePipeline,
    split: wgpu::ComputePipeline,
    next_level: wgpu::ComputePipeline,
    query: wgpu::ComputePipeline,
    query_wide: wgpu::ComputePipeline,
    next_query: wgpu::ComputePipeline,
    /// The winding-number sign ([`SignMode::Winding`]).
    winding: PointWindingGpu,
}

/// The mesh on the GPU, in AABB-BVH order ("slots"), uploaded once per mesh.
struct MeshBuffers {
    key: (u64, usize),
    tri_pos: wgpu::Buffer,
    normals: wgpu::Buffer,
    nodes: wgpu::Buffer,
    slot_of: wgpu::Buffer,
}

impl AdaptiveGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "AdaptiveGpu", shader_source("adaptive.wgsl"));
        AdaptiveGpu {
            gpu: gpu.clone(),
            sort: RadixSort::new(gpu),
            rss_build: RssBuildGpu::new(gpu),
            resident: Mutex::new(None),
            spare: Mutex::new(None),
            morton: kernels.pipeline(gpu, "morton"),
            init_roots: kernels.pipeline(gpu, "init_roots"),
            split: kernels.pipeline(gpu, "split"),
            next_level: kernels.pipeline(gpu, "next_level"),
            query: kernels.pipeline(gpu, "query"),
            query_wide: kernels.pipeline(gpu, "query_wide"),
            next_query: kernels.pipeline(gpu, "next_query"),
            winding: PointWindingGpu::new(gpu),
            kernels,
        }
    }

    pub fn context(&self) -> &GpuContext {
        &self.gpu
    }

    fn mesh_buffers(&self, mesh: &PreparedMesh) -> Result<Arc<MeshBuffers>, AdaptiveError> {
        let key = (mesh.source_hash, mesh.triangle_count());
        let mut cache = self.resident.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = cache.as_ref().filter(|b| b.key == key) {
            return Ok(b.clone());
        }
        let order = &mesh.bvh.order;
        let (tri_pos, normals) = mesh.gpu_triangles(order);
        let mut slot_of = vec![0u32; order.len()];
        for (slot, &t) in order.iter().enumerate() {
            slot_of[t as usize] = slot as u32;
        }
        let buffers = Arc::new(MeshBuffers {
            key,
            tri_pos: storage_buffer_init(&self.gpu, "AdaptiveGpu::tri_pos", &tri_pos)?,
            normals: storage_buffer_init(&self.gpu, "AdaptiveGpu::normals", &normals)?,
            nodes: storage_buffer_init(&self.gpu, "AdaptiveGpu::nodes", &mesh.bvh.nodes)?,
            slot_of: storage_buffer_init(&self.gpu, "AdaptiveGpu::slot_of", &slot_of)?,
        });
        *cache = Some(buffers.clone());
        Ok(buffers)
    }

    /// Builds the octree and the BVHs and queries every node centre on the
    /// GPU.
    pub fn compute(
        &self,
        mesh: &PreparedMesh,
        params: &AdaptiveParams,
    ) -> Result<AdaptiveField, AdaptiveError> {
        let ran = self.run(mesh, params, true)?;
        self.read_field(mesh, params, ran, false).map(|(f, _)| f)
    }

    /// The whole pipeline as [`AdaptiveGpu::compute`] runs it, reading
    /// back only its timings (and the overflow flag; in winding mode the
    /// nodes left to the CPU, which it decides, and how many nodes the
    /// refining pass and the CPU decided): for benchmarks, whose
    /// repeated runs then keep the GPU busy — with a read-back of the field
    /// between runs the GPU idles most of the time and the driver lowers its
    /// clock to a fraction within seconds.
    pub fn time(
        &self,
        mesh: &PreparedMesh,
        params: &AdaptiveParams,
    ) -> Result<(Timings, Option<OpenCells>), AdaptiveError> {
        let mut ran = self.run(mesh, params, true)?;
        if !ran.undecided.is_empty() {
            // The CPU's share of the winding sign, timed as in a field.
            let count = ran.state_out[STATE_NODE_COUNT] as usize;
            let nodes: Vec<OctreeNode> = read_buffer(&self.gpu, &ran.buffers.octree, count)?;
            let mut values = vec![0.0; count];
            decide_undecided(mesh, &nodes, &ran.undecided, &mut values, &mut ran.timings);
        }
        self.keep(ran.buffers);
        Ok((ran.timings, ran.open))
    }

    /// [`AdaptiveGpu::compute`], also reading back the RSS multi-BVH the GPU
    /// built (`None` with the AABB BVH), with triangles as prepared-mesh
    /// indices: for [`RssBvh::assert_bounds_tight`] and the viewer.
    pub fn compute_with_bvh(
        &self,
        mesh: &PreparedMesh,
        params: &AdaptiveParams,
    ) -> Result<(AdaptiveField, Option<RssBvh>), AdaptiveError> {
        // Fresh buffers: the BVH read back must not hold an earlier run's
        // nodes where this run's tree has gaps.
        let ran = self.run(mesh, params, false)?;
        self.read_field(mesh, params, ran, true)
    }

    /// Keeps a finished run's buffers for the next run of the same sizes.
    fn keep(&self, buffers: RunBuffers) {
        *self.spare.lock().unwrap_or_else(|e| e.into_inner()) = Some(buffers);
    }

    /// Records and runs the whole pipeline, on the kept buffers when `reuse`
    /// and their sizes fit; reads back only the state.
    fn run(
        &self,
        mesh: &PreparedMesh,
        params: &AdaptiveParams,
        reuse: bool,
    ) -> Result<Ran, AdaptiveError> {
        puffin::profile_function!();
        params.validate()?;
        let gpu = &self.gpu;
        let use_rss = params.bvh != AdaptiveBvh::Aabb;
        if !use_rss && mesh.bvh.depth() >= GPU_STACK {
            return Err(AdaptiveError::BvhTooDeep {
                depth: mesh.bvh.depth(),
                max: GPU_STACK,
            });
        }
        let mut timings = Timings::default();
        let upload_start = Instant::now();
        let n_tris = mesh.triangle_count();
        let capacity = node_capacity(params, n_tris);
        let node_bytes = capacity * std::mem::size_of::<OctreeNode>() as u64;
        for (what, bytes) in [
            ("AdaptiveGpu::octree", node_bytes),
            ("AdaptiveGpu::values", capacity * 4),
        ] {
            gpu.check_storage_size(what, bytes)?;
        }
        let capacity_u32 =
            u32::try_from(capacity).map_err(|_| AdaptiveError::Overflow { capacity })?;
        let mesh_buffers = self.mesh_buffers(mesh)?;
        let cube = mesh_cube(mesh, params);
        let uniform = Params {
            origin: cube.origin.to_array(),
            size: cube.size,
            scale: MORTON_CELLS as f32 / cube.size,
            num_tris: n_tris as u32,
            start_depth: params.start_depth,
            max_depth: params.max_depth,
            alpha: params.alpha,
            capacity: capacity_u32,
            parent_bound: params.parent_bound as u32,
            use_rss: use_rss as u32,
            wide_below: params.wide_below,
            _pad: [0; 3],
        };
        let uniform_buf = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("AdaptiveGpu::params"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let key = RunKey {
            triangles: n_tris,
            capacity,
            rss_triangles: if use_rss { n_tris } else { 0 },
            group_level: params.effective_group_level(),
        };
        let reused = self.spare.lock().unwrap_or_else(|e| e.into_inner()).take();
        let buffers = match reused.filter(|b| b.key == key && reuse) {
            Some(b) => b,
            None => RunBuffers::new(gpu, key)?,
        };
        gpu.queue
            .write_buffer(&buffers.state, 0, bytemuck::cast_slice(&[0u32; STATE_LEN]));
        let RunBuffers {
            keys,
            vals,
            octree: octree_buf,
            values: values_buf,
            closest: closest_buf,
            state,
            dispatch,
            no_args,
            rss,
            ..
        } = &buffers;
        // `bind_group` for the kernels that write dispatch sizes, `sized`
        // for those dispatched from them.
        let [bind_group, sized] = [dispatch, no_args].map(|args| {
            self.kernels.bind(
                gpu,
                &[
                    ("params", &uniform_buf),
                    ("tri_pos", &mesh_buffers.tri_pos),
                    ("normals", &mesh_buffers.normals),
                    ("nodes", &mesh_buffers.nodes),
                    ("slot_of", &mesh_buffers.slot_of),
                    ("keys", keys),
                    ("vals", vals),
                    ("octree", octree_buf),
                    ("values", values_buf),
                    ("closest", closest_buf),
                    ("state", state),
                    ("dispatch", args),
                    ("rss", &rss.nodes),
                    ("rss_order", &rss.order),
                    ("group_x", &rss.group_x),
                ],
            )
        });
        timings.push("upload", upload_start.elapsed().as_secs_f64() * 1e3, None);

        let mut run = GpuRun::new(gpu, "AdaptiveGpu::encoder")?;
        run.compute_pass("sort", |pass| {
            pass.set_pipeline(&self.morton);
            pass.set_bind_group(0, &bind_group, &[]);
            let (x, y) = dispatch_dims((n_tris as u32).div_ceil(WORKGROUP));
            pass.dispatch_workgroups(x, y, 1);
        });
        let sort_scratch = self.sort.encode(
            gpu,
            &mut run,
            keys,
            vals,
            n_tris as u32,
            3 * MORTON_BITS_PER_AXIS,
        )?;
        let roots = 8u32.pow(params.start_depth);
        run.compute_pass("octree", |pass| {
            pass.set_bind_group(0, &bind_group, &[]);
            pass.set_pipeline(&self.init_roots);
            let (x, y) = dispatch_dims(roots.div_ceil(WORKGROUP));
            pass.dispatch_workgroups(x, y, 1);
            for depth in params.start_depth..params.max_depth {
                pass.set_bind_group(0, &sized, &[]);
                pass.set_pipeline(&self.split);
                pass.dispatch_workgroups_indirect(dispatch, 12 * depth as u64);
                pass.set_bind_group(0, &bind_group, &[]);
                pass.set_pipeline(&self.next_level);
                pass.dispatch_workgroups(1, 1, 1);
            }
        });
        let build_bind_group = use_rss.then(|| {
            let stage = StageBuffers {
                tri_pos: &mesh_buffers.tri_pos,
                keys,
                vals,
                slot_of: &mesh_buffers.slot_of,
                state,
                dispatch,
                no_args,
            };
            self.rss_build
                .encode(gpu, &mut run, rss, &stage, n_tris as u32, params)
        });
        // One pass per depth, so table 1 gets each depth's query time.
        for depth in params.start_depth..=params.max_depth {
            run.compute_pass(&query_phase(depth), |pass| {
                pass.set_bind_group(0, &sized, &[]);
                // One of the two is empty (write_dispatch in the shader).
                pass.set_pipeline(&self.query);
                pass.dispatch_workgroups_indirect(dispatch, 12 * (QUERY_ARGS + depth) as u64);
                pass.set_pipeline(&self.query_wide);
                pass.dispatch_workgroups_indirect(dispatch, 12 * (WIDE_ARGS + depth) as u64);
                pass.set_pipeline(&self.next_query);
                pass.dispatch_workgroups(1, 1, 1);
            });
        }
        let (phases, wall_ms) = run.finish()?;
        drop((sort_scratch, build_bind_group));
        let mut query_ms = vec![None; MORTON_BITS_PER_AXIS as usize + 1];
        let mut queries_total: Option<f64> = None;
        for (i, p) in phases.iter().enumerate() {
            if let Some(depth) = (0..query_ms.len()).find(|&d| p.name == query_phase(d as u32)) {
                query_ms[depth] = p.gpu_ms;
                queries_total = Some(queries_total.unwrap_or(0.0) + p.gpu_ms.unwrap_or(0.0));
                continue;
            }
            timings.push(p.name.clone(), if i == 0 { wall_ms } else { 0.0 }, p.gpu_ms);
        }
        timings.push(
            "queries",
            0.0,
            queries_total.filter(|_| query_ms.iter().any(Option::is_some)),
        );

        let state_out: Vec<u32> = read_buffer(gpu, state, STATE_LEN)?;
        if state_out[STATE_OVERFLOW] != 0 {
            return Err(AdaptiveError::Overflow { capacity });
        }
        let (undecided, open) = match params.sign_mode {
            SignMode::Winding => {
                let far = cube.origin + glam::Vec3::splat(cube.size);
                let nodes = PointBuffers {
                    points: octree_buf,
                    stride: NODE_STRIDE,
                    values: values_buf,
                    count: state_out[STATE_NODE_COUNT] as usize,
                    largest: cube.origin.abs().max(far.abs()).max_element(),
                };
                let mut run = GpuRun::new(gpu, "AdaptiveGpu::winding")?;
                let mut recorded = self.winding.record(gpu, mesh, &nodes, &mut run)?;
                run.submit_part();
                recorded.request_read();
                let (phases, wall_ms) = run.finish()?;
                for (i, p) in phases.into_iter().enumerate() {
                    timings.push(p.name, if i == 0 { wall_ms } else { 0.0 }, p.gpu_ms);
                }
                let (undecided, open) = self.winding.finish(gpu, recorded)?;
                (undecided, Some(open))
            }
            SignMode::PseudoNormal => (Vec::new(), None),
        };
        Ok(Ran {
            timings,
            query_ms,
            state_out,
            undecided,
            open,
            buffers,
        })
    }

    /// The field of a finished run (and the BVHs it built).
    fn read_field(
        &self,
        mesh: &PreparedMesh,
        params: &AdaptiveParams,
        ran: Ran,
        with_bvh: bool,
    ) -> Result<(AdaptiveField, Option<RssBvh>), AdaptiveError> {
        let gpu = &self.gpu;
        let use_rss = params.bvh != AdaptiveBvh::Aabb;
        let n_tris = mesh.triangle_count();
        let Ran {
            mut timings,
            query_ms,
            state_out,
            undecided,
            open,
            ..
        } = ran;
        let readback_start = Instant::now();
        let count = state_out[STATE_NODE_COUNT] as usize;
        let b = &ran.buffers;
        let nodes: Vec<OctreeNode> = read_buffer(gpu, &b.octree, count)?;
        let mut values: Vec<f32> = read_buffer(gpu, &b.values, count)?;
        let closest_slots: Vec<u32> = read_buffer(gpu, &b.closest, count)?;
        let sorted_codes: Vec<u32> = read_buffer(gpu, &b.keys, n_tris)?;
        let sorted_triangles: Vec<u32> = read_buffer(gpu, &b.vals, n_tris)?;
        let order = &mesh.bvh.order;
        let closest = closest_slots
            .iter()
            .map(|&c| (order[(c >> 3) as usize] << 3) | (c & 7))
            .collect();
        let rss_nodes = state_out[STATE_RSS_NODE_COUNT] as usize;
        let bvh = if use_rss && with_bvh {
            let slots: Vec<u32> = read_buffer(gpu, &b.rss.order, n_tris)?;
            Some(RssBvh {
                nodes: read_buffer(
                    gpu,
                    &b.rss.nodes,
                    node_slots(n_tris as u64, params.effective_group_level()) as usize,
                )?,
                order: slots.iter().map(|&s| order[s as usize]).collect(),
                groups: state_out[STATE_GROUP_COUNT],
            })
        } else {
            None
        };
        timings.push(
            "readback",
            readback_start.elapsed().as_secs_f64() * 1e3,
            None,
        );
        decide_undecided(mesh, &nodes, &undecided, &mut values, &mut timings);
        debug_assert!(
            nodes
                .iter()
                .all(|n| n.parent == NONE || (n.parent as usize) < count)
        );
        let octree = Octree {
            cube: mesh_cube(mesh, params),
            start_depth: params.start_depth,
            max_depth: params.max_depth,
            alpha: params.alpha,
            nodes,
            sorted_codes,
            sorted_triangles,
        };
        let wide = |i: usize| state_out[i] as u64 | (state_out[i + 1] as u64) << 32;
        let totals: Vec<QueryCounts> = (0..=MORTON_BITS_PER_AXIS as usize)
            .map(|d| QueryCounts {
                bvhs: wide(STATE_STATS + 6 * d),
                bvs: wide(STATE_STATS + 6 * d + 2),
                triangles: wide(STATE_STATS + 6 * d + 4),
            })
            .collect();
        let per_depth: Vec<u64> = octree.nodes_per_depth().iter().map(|&c| c as u64).collect();
        let mut stats = DepthStats::from_totals(&per_depth, &totals);
        for s in &mut stats {
            s.query_gpu_ms = query_ms[s.depth as usize];
        }
        let memory = if use_rss {
            AdaptiveMemory::of(count, rss_nodes, size_of::<RssNode>(), n_tris)
        } else {
            AdaptiveMemory::of(count, mesh.bvh.nodes.len(), size_of::<BvhNode>(), n_tris)
        };
        let field = AdaptiveField {
            params: *params,
            values,
            closest,
            distance_evaluations: totals.iter().map(|c| c.triangles).sum(),
            stats,
            memory,
            octree,
            timings,
            open,
        };
        self.keep(ran.buffers);
        Ok((field, bvh))
    }
}

/// Signs the nodes the GPU winding pass left undecided on the CPU (phase
/// [`crate::stages::sdf::FALLBACK_PHASE`], as the grid's).
fn decide_undecided(
    mesh: &PreparedMesh,
    nodes: &[OctreeNode],
    undecided: &[u32],
    values: &mut [f32],
    timings: &mut Timings,
) {
    if undecided.is_empty() {
        return;
    }
    let start = Instant::now();
    let centres: Vec<glam::Vec3> = nodes
        .iter()
        .map(|n| glam::Vec3::from_array(n.center))
        .collect();
    sign_exactly(mesh.winding(), &centres, undecided, values);
    let ms = start.elapsed().as_secs_f64() * 1e3;
    timings.push(crate::stages::sdf::FALLBACK_PHASE, ms, None);
}
