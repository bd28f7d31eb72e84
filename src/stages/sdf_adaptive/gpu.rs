//! The GPU backend: Morton codes, radix sort, octree and queries recorded
//! into one run, with the node count read back before the nodes. Shader:
//! `shaders/sdf_adaptive.wgsl`.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use wgpu::util::DeviceExt;

use super::{
    AdaptiveError, AdaptiveField, AdaptiveParams, NONE, Octree, OctreeNode, mesh_cube,
    node_capacity,
};
use crate::geom::{MORTON_BITS_PER_AXIS, MORTON_CELLS};
use crate::gpu::{
    BufferCheck, GpuContext, GpuRun, RadixSort, read_buffer, shader_source, storage_buffer_init,
    storage_buffer_zeroed,
};
use crate::stages::sdf_grid::PreparedMesh;
use crate::timing::Timings;

/// Uniform parameters. Keep in sync with `struct Params` in
/// shaders/sdf_adaptive.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    origin: [f32; 3],
    size: f32,
    scale: f32,
    num_tris: u32,
    start_depth: u32,
    max_depth: u32,
    alpha: u32,
    capacity: u32,
    parent_bound: u32,
    _pad: u32,
}
const _: () = assert!(std::mem::size_of::<Params>() == 48);

/// Indices into the shader's `state` buffer; keep in sync with
/// shaders/sdf_adaptive.wgsl.
const STATE_NODE_COUNT: usize = 0;
const STATE_EVALS: usize = 1;
const STATE_OVERFLOW: usize = 4;
const STATE_RANGES: usize = 8;
const STATE_LEN: usize = STATE_RANGES + 2 * (MORTON_BITS_PER_AXIS as usize + 1);

/// Deepest BVH the shared traversal stack holds (shaders/shared/bvh_nearest.wgsl).
const GPU_STACK: usize = 64;
const WORKGROUP: u32 = 64;

/// The adaptive stage's long-lived GPU objects: created once per context.
pub struct AdaptiveGpu {
    gpu: GpuContext,
    sort: RadixSort,
    resident: Mutex<Option<Arc<MeshBuffers>>>,
    layout: wgpu::BindGroupLayout,
    morton: wgpu::ComputePipeline,
    init_roots: wgpu::ComputePipeline,
    split: wgpu::ComputePipeline,
    next_level: wgpu::ComputePipeline,
    query: wgpu::ComputePipeline,
    next_query: wgpu::ComputePipeline,
}

/// The mesh on the GPU, in BVH order, uploaded once per mesh.
struct MeshBuffers {
    key: (u64, usize),
    tri_pos: wgpu::Buffer,
    normals: wgpu::Buffer,
    nodes: wgpu::Buffer,
    slot_of: wgpu::Buffer,
}

impl AdaptiveGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let device = &gpu.device;
        let module = gpu.shader(shader_source("sdf_adaptive.wgsl"));
        let entry = |binding: u32, ty: wgpu::BufferBindingType| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let read = wgpu::BufferBindingType::Storage { read_only: true };
        let write = wgpu::BufferBindingType::Storage { read_only: false };
        let mut entries = vec![entry(0, wgpu::BufferBindingType::Uniform)];
        entries.extend((1..=4).map(|b| entry(b, read)));
        entries.extend((5..=11).map(|b| entry(b, write)));
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("AdaptiveGpu::layout"),
            entries: &entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("AdaptiveGpu::pipeline_layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = |entry: &str, label: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        AdaptiveGpu {
            gpu: gpu.clone(),
            sort: RadixSort::new(gpu),
            resident: Mutex::new(None),
            morton: pipeline("morton", "AdaptiveGpu::morton"),
            init_roots: pipeline("init_roots", "AdaptiveGpu::init_roots"),
            split: pipeline("split", "AdaptiveGpu::split"),
            next_level: pipeline("next_level", "AdaptiveGpu::next_level"),
            query: pipeline("query", "AdaptiveGpu::query"),
            next_query: pipeline("next_query", "AdaptiveGpu::next_query"),
            layout,
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
        let tri_pos: Vec<[f32; 4]> = order
            .iter()
            .flat_map(|&t| mesh.corners[t as usize].map(|v| v.extend(0.0).to_array()))
            .collect();
        let normals: Vec<f32> = order
            .iter()
            .flat_map(|&t| {
                mesh.feature_normals[t as usize]
                    .iter()
                    .flat_map(|v: &Vec3| v.to_array())
            })
            .collect();
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

    /// Builds the octree and queries every node centre on the GPU.
    pub fn compute(
        &self,
        mesh: &PreparedMesh,
        params: &AdaptiveParams,
    ) -> Result<AdaptiveField, AdaptiveError> {
        puffin::profile_function!();
        params.validate()?;
        let gpu = &self.gpu;
        if mesh.bvh.depth() >= GPU_STACK {
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
            _pad: 0,
        };
        let uniform_buf = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("AdaptiveGpu::params"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let zeroed =
            |label: &str, bytes: u64| storage_buffer_zeroed(gpu, BufferCheck { label, bytes });
        let keys = zeroed("AdaptiveGpu::keys", n_tris as u64 * 4)?;
        let vals = zeroed("AdaptiveGpu::vals", n_tris as u64 * 4)?;
        let octree_buf = zeroed("AdaptiveGpu::octree", node_bytes)?;
        let values_buf = zeroed("AdaptiveGpu::values", capacity * 4)?;
        let closest_buf = zeroed("AdaptiveGpu::closest", capacity * 4)?;
        let state = storage_buffer_init(gpu, "AdaptiveGpu::state", &[0u32; STATE_LEN])?;
        let dispatch = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("AdaptiveGpu::dispatch"),
            size: 12 * (MORTON_BITS_PER_AXIS as u64 + 1),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let indirect = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("AdaptiveGpu::indirect"),
            size: dispatch.size(),
            usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let buffers = [
            &uniform_buf,
            &mesh_buffers.tri_pos,
            &mesh_buffers.normals,
            &mesh_buffers.nodes,
            &mesh_buffers.slot_of,
            &keys,
            &vals,
            &octree_buf,
            &values_buf,
            &closest_buf,
            &state,
            &dispatch,
        ];
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("AdaptiveGpu::bind_group"),
            layout: &self.layout,
            entries: &entries,
        });
        timings.push("upload", upload_start.elapsed().as_secs_f64() * 1e3, None);

        let mut run = GpuRun::new(gpu, "AdaptiveGpu::encoder")?;
        run.compute_pass("morton", |pass| {
            pass.set_pipeline(&self.morton);
            pass.set_bind_group(0, &bind_group, &[]);
            let (x, y) = dispatch_dims((n_tris as u32).div_ceil(WORKGROUP));
            pass.dispatch_workgroups(x, y, 1);
        });
        let sort_scratch = self.sort.encode(
            gpu,
            &mut run,
            &keys,
            &vals,
            n_tris as u32,
            3 * MORTON_BITS_PER_AXIS,
        )?;
        let roots = 8u32.pow(params.start_depth);
        // The shader writes each level's dispatch size into `dispatch`
        // (storage); a buffer cannot be storage and indirect in one dispatch,
        // so it is copied into `indirect` after every write.
        let args_bytes = dispatch.size();
        let compute = |e: &mut wgpu::CommandEncoder,
                       label: &str,
                       record: &dyn Fn(&mut wgpu::ComputePass<'_>)| {
            let mut pass = e.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(label),
                timestamp_writes: None,
            });
            pass.set_bind_group(0, &bind_group, &[]);
            record(&mut pass);
        };
        run.encoder_work("octree", |e| {
            compute(e, "AdaptiveGpu::init_roots", &|pass| {
                pass.set_pipeline(&self.init_roots);
                let (x, y) = dispatch_dims(roots.div_ceil(WORKGROUP));
                pass.dispatch_workgroups(x, y, 1);
            });
            e.copy_buffer_to_buffer(&dispatch, 0, &indirect, 0, args_bytes);
            for depth in params.start_depth..params.max_depth {
                compute(e, "AdaptiveGpu::split", &|pass| {
                    pass.set_pipeline(&self.split);
                    pass.dispatch_workgroups_indirect(&indirect, 12 * depth as u64);
                    pass.set_pipeline(&self.next_level);
                    pass.dispatch_workgroups(1, 1, 1);
                });
                e.copy_buffer_to_buffer(&dispatch, 0, &indirect, 0, args_bytes);
            }
        });
        run.compute_pass("queries", |pass| {
            pass.set_bind_group(0, &bind_group, &[]);
            for depth in params.start_depth..=params.max_depth {
                pass.set_pipeline(&self.query);
                pass.dispatch_workgroups_indirect(&indirect, 12 * depth as u64);
                pass.set_pipeline(&self.next_query);
                pass.dispatch_workgroups(1, 1, 1);
            }
        });
        let (phases, wall_ms) = run.finish()?;
        drop(sort_scratch);
        for (i, p) in phases.iter().enumerate() {
            timings.push(p.name.clone(), if i == 0 { wall_ms } else { 0.0 }, p.gpu_ms);
        }

        let readback_start = Instant::now();
        let state_out: Vec<u32> = read_buffer(gpu, &state, STATE_LEN)?;
        if state_out[STATE_OVERFLOW] != 0 {
            return Err(AdaptiveError::Overflow { capacity });
        }
        let count = state_out[STATE_NODE_COUNT] as usize;
        let nodes: Vec<OctreeNode> = read_buffer(gpu, &octree_buf, count)?;
        let values: Vec<f32> = read_buffer(gpu, &values_buf, count)?;
        let closest_slots: Vec<u32> = read_buffer(gpu, &closest_buf, count)?;
        let sorted_codes: Vec<u32> = read_buffer(gpu, &keys, n_tris)?;
        let sorted_triangles: Vec<u32> = read_buffer(gpu, &vals, n_tris)?;
        let order = &mesh.bvh.order;
        let closest = closest_slots
            .iter()
            .map(|&c| (order[(c >> 3) as usize] << 3) | (c & 7))
            .collect();
        timings.push(
            "readback",
            readback_start.elapsed().as_secs_f64() * 1e3,
            None,
        );
        debug_assert!(
            nodes
                .iter()
                .all(|n| n.parent == NONE || (n.parent as usize) < count)
        );
        Ok(AdaptiveField {
            octree: Octree {
                cube,
                start_depth: params.start_depth,
                max_depth: params.max_depth,
                alpha: params.alpha,
                nodes,
                sorted_codes,
                sorted_triangles,
            },
            params: *params,
            values,
            closest,
            distance_evaluations: state_out[STATE_EVALS] as u64,
            timings,
        })
    }
}

/// Splits `groups` workgroups over x and y (each ≤ 65535); the shader
/// rebuilds the flat index as `wid.y * num_workgroups.x + wid.x`.
fn dispatch_dims(groups: u32) -> (u32, u32) {
    let x = groups.clamp(1, 65_535);
    (x, groups.div_ceil(x).max(1))
}
