//! GPU backends: brute force (2D tiles of pairs, z = query) and per-triangle
//! BVH traversal. Shader: `shaders/tritri.wgsl`.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use wgpu::util::DeviceExt;

use super::{Pose, Predicate, TriModel, TritriError, TritriParams, b_from_a};
use crate::geom::BvhNode;
use crate::gpu::{
    BufferCheck, GpuContext, GpuRun, Kernels, dispatch_dims, map_staging, shader_source,
    storage_buffer_init,
};
use crate::timing::Timings;

/// Uniform parameters: `struct Params` of shaders/tritri.wgsl (the layout
/// is checked by tests/it/shader_layouts.rs, like every mirrored type here).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Params {
    pub num_a: u32,
    pub num_b: u32,
    pub num_queries: u32,
    pub mode: u32,
    pub capacity: u32,
    pub _pad0: u32,
    pub _pad1: u32,
    pub _pad2: u32,
}
const _: () = assert!(std::mem::size_of::<Params>() == 32);

/// Rows of `B_from_A`: `struct QueryPose` of shaders/tritri.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct QueryPose {
    pub rows: [[f32; 4]; 3],
}
const _: () = assert!(std::mem::size_of::<QueryPose>() == 48);

pub const MODE_ALL_PAIRS: u32 = 1;
pub const MODE_TUTORIAL: u32 = 2;
/// Deepest BVH the shader's traversal stack holds.
pub const GPU_STACK: usize = 64;
pub const WORKGROUP: u32 = 64;
/// B triangles per brute-force workgroup (`B_PER_GROUP` in the shader).
pub const B_PER_GROUP: u32 = 256;
/// Most queries in one brute-force dispatch (the z dimension).
const MAX_BRUTE_QUERIES: usize = 65_535;
/// Resident models kept at once.
const RESIDENT: usize = 4;
/// Smallest all-pairs output; it grows to twice the last query's count.
const MIN_CAPACITY: u32 = 1024;

/// The stage's long-lived GPU objects: created once per context.
pub struct TritriGpu {
    gpu: GpuContext,
    resident: Mutex<Vec<Arc<ModelBuffers>>>,
    kernels: Kernels,
    brute: wgpu::ComputePipeline,
    pruned: wgpu::ComputePipeline,
    segments: wgpu::ComputePipeline,
    /// Colliding pairs found by the last all-pairs query: the next query's
    /// output is sized from it, so the read-back stays small (an overflow
    /// reruns the query with room for every pair).
    last_pair_count: AtomicU32,
}

/// A model on the GPU: corners in BVH order, its BVH, and that order.
struct ModelBuffers {
    key: (u64, usize),
    triangles: wgpu::Buffer,
    nodes: wgpu::Buffer,
    order: Vec<u32>,
}

/// What a run gives back, B's frame, BVH slots mapped to mesh indices.
pub(crate) struct GpuOutcome {
    pub hits: Vec<bool>,
    pub pairs: Vec<[u32; 2]>,
    pub segments: Vec<[Vec3; 2]>,
    pub timings: Timings,
}

impl TritriGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "TritriGpu", shader_source("tritri.wgsl"));
        TritriGpu {
            gpu: gpu.clone(),
            resident: Mutex::new(Vec::new()),
            brute: kernels.pipeline(gpu, "brute"),
            pruned: kernels.pipeline(gpu, "pruned"),
            segments: kernels.pipeline(gpu, "segments_of_pairs"),
            last_pair_count: AtomicU32::new(0),
            kernels,
        }
    }

    pub fn context(&self) -> &GpuContext {
        &self.gpu
    }

    /// The model's buffers, uploaded on first use and kept while it is one
    /// of the last few models used.
    fn model_buffers(&self, model: &TriModel) -> Result<Arc<ModelBuffers>, TritriError> {
        let key = (model.content_hash, model.triangle_count());
        let mut cache = self.resident.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pos) = cache.iter().position(|b| b.key == key) {
            let b = cache.remove(pos);
            cache.push(b.clone());
            return Ok(b);
        }
        if model.bvh.depth() >= GPU_STACK {
            return Err(TritriError::BvhTooDeep {
                name: model.mesh.name.clone(),
                depth: model.bvh.depth(),
                max: GPU_STACK,
            });
        }
        let corners: Vec<[f32; 4]> = model
            .bvh
            .order
            .iter()
            .flat_map(|&t| {
                let flag = if model.degenerate[t as usize] {
                    1.0
                } else {
                    0.0
                };
                let [p, q, r] = model.triangles[t as usize];
                [p.extend(flag), q.extend(0.0), r.extend(0.0)].map(|v| v.to_array())
            })
            .collect();
        let buffers = Arc::new(ModelBuffers {
            key,
            triangles: storage_buffer_init(&self.gpu, "TritriGpu::triangles", &corners)?,
            nodes: storage_buffer_init(&self.gpu, "TritriGpu::nodes", &model.bvh.nodes)?,
            order: model.bvh.order.clone(),
        });
        if cache.len() >= RESIDENT {
            cache.remove(0);
        }
        cache.push(buffers.clone());
        Ok(buffers)
    }

    /// Runs one dispatch for all `poses` (yes/no per pose pair), or one
    /// all-pairs query (`params.all_pairs`, a single pose pair).
    pub(crate) fn run(
        &self,
        a: &TriModel,
        b: &TriModel,
        poses: &[(Pose, Pose)],
        params: &TritriParams,
        pruned: bool,
    ) -> Result<GpuOutcome, TritriError> {
        puffin::profile_function!();
        let mut timings = Timings::default();
        if poses.is_empty() {
            return Ok(GpuOutcome {
                hits: Vec::new(),
                pairs: Vec::new(),
                segments: Vec::new(),
                timings,
            });
        }
        if params.all_pairs && poses.len() != 1 {
            return Err(TritriError::TooLarge(
                "all-pairs output is for one pose pair at a time".into(),
            ));
        }
        if !pruned && poses.len() > MAX_BRUTE_QUERIES {
            return Err(TritriError::TooLarge(format!(
                "{} pose pairs exceed the brute-force dispatch's {MAX_BRUTE_QUERIES}; use the gpu backend or split the batch",
                poses.len()
            )));
        }
        let (na, nb) = (a.triangle_count(), b.triangle_count());
        let invocations = na as u64 * poses.len() as u64;
        if invocations > u64::from(u32::MAX) / 2 {
            return Err(TritriError::TooLarge(format!(
                "{} pose pairs × {na} triangles is too many invocations for one dispatch; split the batch",
                poses.len()
            )));
        }
        let upload_start = Instant::now();
        let ma = self.model_buffers(a)?;
        let mb = self.model_buffers(b)?;
        let query_poses: Vec<QueryPose> = poses
            .iter()
            .map(|&(pa, pb)| {
                let m = b_from_a(pa, pb);
                let (x, t) = (m.matrix3, m.translation);
                QueryPose {
                    rows: [0, 1, 2].map(|r| {
                        let row = x.row(r);
                        [row.x as f32, row.y as f32, row.z as f32, t[r] as f32]
                    }),
                }
            })
            .collect();
        let mut capacity = if params.all_pairs {
            (2 * self.last_pair_count.load(Ordering::Relaxed))
                .next_power_of_two()
                .max(MIN_CAPACITY)
        } else {
            1
        };
        let mode = if params.all_pairs { MODE_ALL_PAIRS } else { 0 }
            | match params.predicate {
                Predicate::Exact => 0,
                Predicate::Tutorial => MODE_TUTORIAL,
            };
        let gpu = &self.gpu;
        let poses_buf = storage_buffer_init(gpu, "TritriGpu::poses", &query_poses)?;
        timings.push("upload", upload_start.elapsed().as_secs_f64() * 1e3, None);
        loop {
            let hits_len = poses.len() + 1;
            let hits_bytes = (hits_len * 4) as u64;
            let pairs_bytes = u64::from(capacity) * 8;
            let segments_bytes = u64::from(capacity) * 32;
            for (what, bytes) in [
                ("TritriGpu::pairs", pairs_bytes),
                ("TritriGpu::segments", segments_bytes),
            ] {
                gpu.check_storage_size(what, bytes)?;
            }
            let uniform = Params {
                num_a: na as u32,
                num_b: nb as u32,
                num_queries: poses.len() as u32,
                mode,
                capacity,
                _pad0: 0,
                _pad1: 0,
                _pad2: 0,
            };
            let uniform_buf = gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("TritriGpu::params"),
                    contents: bytemuck::bytes_of(&uniform),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            let hits_buf = storage_buffer_init(gpu, "TritriGpu::hits", &vec![0u32; hits_len])?;
            let zeroed = |label: &str, bytes: u64| {
                crate::gpu::storage_buffer_zeroed(gpu, BufferCheck { label, bytes })
            };
            let pairs_buf = zeroed("TritriGpu::pairs", pairs_bytes)?;
            let segments_buf = zeroed("TritriGpu::segments", segments_bytes)?;
            let out_bytes = if params.all_pairs {
                pairs_bytes + segments_bytes
            } else {
                0
            };
            let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("TritriGpu::staging"),
                size: hits_bytes + out_bytes,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let bind_group = self.kernels.bind(
                gpu,
                &[
                    ("params", &uniform_buf),
                    ("tri_a", &ma.triangles),
                    ("tri_b", &mb.triangles),
                    ("nodes_b", &mb.nodes),
                    ("poses", &poses_buf),
                    ("hits", &hits_buf),
                    ("pairs", &pairs_buf),
                    ("segments", &segments_buf),
                ],
            );
            let mut run = GpuRun::new(gpu, "TritriGpu::encoder")?;
            let phase = if pruned { "bvh pairs" } else { "brute pairs" };
            run.compute_pass(phase, |pass| {
                pass.set_bind_group(0, &bind_group, &[]);
                if pruned {
                    pass.set_pipeline(&self.pruned);
                    let (x, y) = dispatch_dims((invocations as u32).div_ceil(WORKGROUP));
                    pass.dispatch_workgroups(x, y, 1);
                } else {
                    pass.set_pipeline(&self.brute);
                    pass.dispatch_workgroups(
                        (na as u32).div_ceil(WORKGROUP),
                        (nb as u32).div_ceil(B_PER_GROUP),
                        poses.len() as u32,
                    );
                }
                if params.all_pairs {
                    // Same pass: the pairs are complete when it starts
                    // (storage writes are ordered between dispatches).
                    pass.set_pipeline(&self.segments);
                    let (x, y) = dispatch_dims(capacity.div_ceil(WORKGROUP));
                    pass.dispatch_workgroups(x, y, 1);
                }
            });
            run.encoder_work("copy out", |encoder| {
                encoder.copy_buffer_to_buffer(&hits_buf, 0, &staging, 0, hits_bytes);
                if params.all_pairs {
                    encoder.copy_buffer_to_buffer(&pairs_buf, 0, &staging, hits_bytes, pairs_bytes);
                    encoder.copy_buffer_to_buffer(
                        &segments_buf,
                        0,
                        &staging,
                        hits_bytes + pairs_bytes,
                        segments_bytes,
                    );
                }
            });
            let (phases, wall_ms) = run.finish()?;
            for (i, p) in phases.iter().enumerate() {
                timings.push(p.name.clone(), if i == 0 { wall_ms } else { 0.0 }, p.gpu_ms);
            }
            if phases.is_empty() {
                timings.push("kernels", wall_ms, None);
            }
            let readback_start = Instant::now();
            let words: Vec<u32> = map_staging(gpu, &staging, "collision results")?;
            let hits: Vec<bool> = words[..poses.len()].iter().map(|&h| h != 0).collect();
            let count = words[poses.len()];
            if params.all_pairs {
                self.last_pair_count.store(count, Ordering::Relaxed);
            }
            if params.all_pairs && count > capacity {
                // Room for every pair, then once more.
                capacity = count;
                continue;
            }
            let mut pairs = Vec::new();
            let mut segments = Vec::new();
            if params.all_pairs {
                let base = hits_len;
                let seg_base = base + 2 * capacity as usize;
                for k in 0..count as usize {
                    let (sa, sb) = (words[base + 2 * k], words[base + 2 * k + 1]);
                    let (ia, ib) = (
                        ma.order.get(sa as usize).copied(),
                        mb.order.get(sb as usize).copied(),
                    );
                    let (Some(ia), Some(ib)) = (ia, ib) else {
                        return Err(crate::gpu::GpuError::Readback {
                            what: "colliding pairs".into(),
                            reason: format!("triangle slot ({sa}, {sb}) out of range"),
                        }
                        .into());
                    };
                    pairs.push([ia, ib]);
                    let f = |w: usize| f32::from_bits(words[seg_base + 8 * k + w]);
                    segments.push([Vec3::new(f(0), f(1), f(2)), Vec3::new(f(4), f(5), f(6))]);
                }
            }
            timings.push(
                "readback",
                readback_start.elapsed().as_secs_f64() * 1e3,
                None,
            );
            return Ok(GpuOutcome {
                hits,
                pairs,
                segments,
                timings,
            });
        }
    }
}

const _: () = assert!(std::mem::size_of::<BvhNode>() == 32);
