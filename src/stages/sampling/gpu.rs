//! GPU sampler. Shader: `shaders/sampling.wgsl`.

use std::time::Instant;

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::cpu::edge_sample_count;
use super::{GpuSample, SampleSet, SamplingError, SamplingMesh, SamplingParams, region_samples};
use crate::gpu::{
    BufferCheck, GpuContext, GpuRun, Kernels, dispatch_dims, read_buffer, shader_source,
    storage_buffer_init, storage_buffer_zeroed,
};
use crate::timing::Timings;

/// Uniform parameters: `struct Params` of shaders/sampling.wgsl (the layout
/// is checked by tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Params {
    pub num_vertices: u32,
    pub num_edges: u32,
    pub num_faces: u32,
    pub capacity: u32,
    pub cos_tol: f32,
    pub step: f32,
    pub g_face: u32,
    pub g_vnormal: u32,
    pub g_enormal: u32,
    pub t_vfaces: u32,
    pub t_evert: u32,
    pub t_eoff: u32,
    pub t_efaces: u32,
    pub t_fedges: u32,
    pub edges_on: u32,
    /// 1: every vertex is a sample, flat or not.
    pub flat_vertices: u32,
}
const _: () = assert!(std::mem::size_of::<Params>() == 64);

pub const WORKGROUP: u32 = 64;
/// Propagation rounds recorded between two reads of the "changed" flag.
const ROUNDS_PER_CHECK: usize = 8;

/// The sampling stage's long-lived GPU objects.
pub struct SamplingGpu {
    gpu: GpuContext,
    kernels: Kernels,
    vertices: wgpu::ComputePipeline,
    edges: wgpu::ComputePipeline,
    labels_init: wgpu::ComputePipeline,
    labels_propagate: wgpu::ComputePipeline,
}

impl SamplingGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "SamplingGpu", shader_source("sampling.wgsl"));
        SamplingGpu {
            gpu: gpu.clone(),
            vertices: kernels.pipeline(gpu, "vertices"),
            edges: kernels.pipeline(gpu, "edges"),
            labels_init: kernels.pipeline(gpu, "labels_init"),
            labels_propagate: kernels.pipeline(gpu, "labels_propagate"),
            kernels,
        }
    }

    pub fn compute(
        &self,
        mesh: &SamplingMesh,
        cell_size: f32,
        params: &SamplingParams,
    ) -> Result<SampleSet, SamplingError> {
        puffin::profile_function!();
        let gpu = &self.gpu;
        let mut timings = Timings::default();
        let upload_start = Instant::now();
        let m = &mesh.mesh;
        let topo = &mesh.topology;
        let nv = m.positions.len();
        let ne = topo.num_edges();
        let nf = m.triangles.len();
        if ne >= 1 << 29 {
            return Err(SamplingError::TooLarge(ne));
        }
        let step = params.step(cell_size);

        let mut geometry: Vec<[f32; 4]> = Vec::with_capacity(nv * 2 + nf + ne);
        let v4 = |v: glam::Vec3| v.extend(0.0).to_array();
        geometry.extend(m.positions.iter().map(|&p| v4(p)));
        let g_face = geometry.len();
        geometry.extend(mesh.normals.face.iter().map(|&n| v4(n)));
        let g_vnormal = geometry.len();
        geometry.extend(mesh.normals.vertex.iter().map(|&n| v4(n)));
        let g_enormal = geometry.len();
        geometry.extend(mesh.normals.edge.iter().map(|&n| v4(n)));

        let mut topology: Vec<u32> = Vec::new();
        let mut acc = 0u32;
        topology.push(0);
        for v in 0..nv {
            acc += topo.vertex_faces(v).len() as u32;
            topology.push(acc);
        }
        let t_vfaces = topology.len();
        for v in 0..nv {
            topology.extend_from_slice(topo.vertex_faces(v));
        }
        let t_evert = topology.len();
        for e in 0..ne {
            topology.extend_from_slice(&topo.edge_vertices(e));
        }
        let t_eoff = topology.len();
        let mut acc = 0u32;
        topology.push(0);
        for e in 0..ne {
            acc += topo.edge_faces(e).len() as u32;
            topology.push(acc);
        }
        let t_efaces = topology.len();
        for e in 0..ne {
            topology.extend_from_slice(topo.edge_faces(e));
        }
        let t_fedges = topology.len();
        for f in 0..nf {
            topology.extend_from_slice(&topo.face_edges(f));
        }

        // An upper bound on the samples: every vertex, and every edge as if
        // it were sharp.
        let capacity: usize = nv
            + if params.edges {
                (0..ne)
                    .map(|e| {
                        let [a, b] = topo.edge_vertices(e).map(|v| m.positions[v as usize]);
                        edge_sample_count(a.distance(b), step) as usize
                    })
                    .sum::<usize>()
            } else {
                0
            };
        let uniform = Params {
            num_vertices: nv as u32,
            num_edges: ne as u32,
            num_faces: nf as u32,
            capacity: capacity as u32,
            cos_tol: params.cos_tolerance(),
            step,
            g_face: g_face as u32,
            g_vnormal: g_vnormal as u32,
            g_enormal: g_enormal as u32,
            t_vfaces: t_vfaces as u32,
            t_evert: t_evert as u32,
            t_eoff: t_eoff as u32,
            t_efaces: t_efaces as u32,
            t_fedges: t_fedges as u32,
            edges_on: u32::from(params.edges),
            flat_vertices: u32::from(params.flat_vertices),
        };
        let uniform_buf = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("SamplingGpu::params"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let geometry_buf = storage_buffer_init(gpu, "SamplingGpu::geometry", &geometry)?;
        let topology_buf = storage_buffer_init(gpu, "SamplingGpu::topology", &topology)?;
        let samples_buf = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "SamplingGpu::samples",
                bytes: (capacity * std::mem::size_of::<GpuSample>()) as u64,
            },
        )?;
        let counter_buf = storage_buffer_init(gpu, "SamplingGpu::counter", &[0u32; 4])?;
        let labels_buf = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "SamplingGpu::labels",
                bytes: (nf * 4) as u64,
            },
        )?;
        let bind_group = self.kernels.bind(
            gpu,
            &[
                ("params", &uniform_buf),
                ("geometry", &geometry_buf),
                ("topology", &topology_buf),
                ("samples", &samples_buf),
                ("counter", &counter_buf),
                ("labels", &labels_buf),
            ],
        );
        timings.push("upload", upload_start.elapsed().as_secs_f64() * 1e3, None);

        let dispatch = |pass: &mut wgpu::ComputePass<'_>, p: &wgpu::ComputePipeline, n: usize| {
            pass.set_pipeline(p);
            pass.set_bind_group(0, &bind_group, &[]);
            let (x, y) = dispatch_dims((n as u32).div_ceil(WORKGROUP));
            pass.dispatch_workgroups(x, y, 1);
        };
        let mut run = GpuRun::new(gpu, "SamplingGpu::encoder")?;
        run.compute_pass("vertices", |pass| dispatch(pass, &self.vertices, nv));
        run.compute_pass("edges", |pass| dispatch(pass, &self.edges, ne));
        if params.faces {
            run.compute_pass("labels init", |pass| dispatch(pass, &self.labels_init, nf));
        }
        let (phases, wall_ms) = run.finish()?;
        for p in &phases {
            timings.push(p.name.clone(), 0.0, p.gpu_ms);
        }
        timings.push("vertices+edges (wall)", wall_ms, None);

        let mut labels_ms = 0.0;
        let mut rounds = 0;
        if params.faces && nf > 0 {
            let start = Instant::now();
            loop {
                gpu.queue
                    .write_buffer(&counter_buf, 4, bytemuck::bytes_of(&0u32));
                let mut run = GpuRun::new(gpu, "SamplingGpu::labels")?;
                for _ in 0..ROUNDS_PER_CHECK {
                    run.compute_pass("labels", |pass| dispatch(pass, &self.labels_propagate, nf));
                }
                run.finish()?;
                rounds += ROUNDS_PER_CHECK;
                let flags: Vec<u32> = read_buffer(gpu, &counter_buf, 2)?;
                if flags.get(1).copied().unwrap_or(0) == 0 || rounds > nf + ROUNDS_PER_CHECK {
                    break;
                }
            }
            labels_ms = start.elapsed().as_secs_f64() * 1e3;
        }
        timings.push(format!("region labels ({rounds} rounds)"), labels_ms, None);

        let readback = Instant::now();
        let counts: Vec<u32> = read_buffer(gpu, &counter_buf, 1)?;
        let written = counts.first().copied().unwrap_or(0) as usize;
        if written > capacity {
            return Err(crate::gpu::GpuError::Readback {
                what: "sampling points".into(),
                reason: format!("{written} samples written into room for {capacity}"),
            }
            .into());
        }
        let raw: Vec<GpuSample> = read_buffer(gpu, &samples_buf, written)?;
        let mut samples = Vec::with_capacity(raw.len());
        for s in &raw {
            samples.push(
                s.to_sample()
                    .ok_or_else(|| crate::gpu::GpuError::Readback {
                        what: "sampling points".into(),
                        reason: format!("bad feature kind {}", s.kind_sub & 7),
                    })?,
            );
        }
        let mut regions = 0;
        if params.faces {
            let labels: Vec<u32> = read_buffer(gpu, &labels_buf, nf)?;
            if labels.iter().any(|&l| l as usize >= nf) {
                return Err(crate::gpu::GpuError::Readback {
                    what: "region labels".into(),
                    reason: "a label beyond the face count".into(),
                }
                .into());
            }
            let (faces, r) = region_samples(mesh, &labels, cell_size, params);
            samples.extend(faces);
            regions = r;
        }
        timings.push(
            "readback + region sums",
            readback.elapsed().as_secs_f64() * 1e3,
            None,
        );
        let mut set = SampleSet {
            samples,
            regions,
            step,
            timings,
        };
        set.sort_canonical();
        Ok(set)
    }
}
