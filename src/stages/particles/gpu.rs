//! The GPU path: the evaluation finds the window's impacts in two passes —
//! `shaders/particles_scan.wgsl` reads each particle's kept state and lists
//! only the particles the window can change (a flight of theirs ends or
//! starts in it), `particles_eval.wgsl` solves those from time alone and
//! appends their impacts, keeping the flight each ends the window in
//! ([`ParticleState`]); `particles_map.wgsl`
//! draws them as points into the impact-map atlas with a render pipeline
//! (count: additive blend, earliest sub-frame time: min, max speed: max);
//! everything is copied to staging buffers and mapped asynchronously.
//!
//! # Frames in flight (§3.5.1)
//!
//! A [`FrameRing`](super::ring::FrameRing) holds [`RING`] slots, each with its own impact buffer,
//! atlas and staging buffers. [`FrameRing::submit`](super::ring::FrameRing::submit) records one window
//! into a free slot and returns at once; [`FrameRing::poll`](super::ring::FrameRing::poll) hands back the
//! windows whose read-back has landed, without waiting. The caller never
//! blocks on a frame unless every slot is still in flight (then
//! [`FrameRing::submit`](super::ring::FrameRing::submit) waits for the oldest, which is counted as a
//! stall). The latency — frames submitted between a window's submission
//! and its arrival — is what the look-ahead offset must cover: a viewer
//! at time T submits the window at T + look-ahead, so events arrive before
//! they happen when look-ahead ≥ latency · dt.

use eframe::egui_wgpu::wgpu;

use super::collider::{Collider, Constraint};
use super::scene::{Order, ParticleScene};
use crate::gpu::{
    BufferCheck, GpuContext, GpuError, Kernels, shader_source, storage_buffer_init,
    storage_buffer_zeroed,
};

pub const WORKGROUP: u32 = 64;
/// Windows in flight.
pub const RING: usize = 3;
pub(crate) const MAP_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Float;

/// `struct Frame` of shaders/shared/particles.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Frame {
    pub t_begin: f32,
    pub dt: f32,
    pub _pad: f32,
    pub restitution: f32,
    pub num_particles: u32,
    pub num_emitters: u32,
    pub num_colliders: u32,
    pub bounces: u32,
    pub capacity: u32,
    pub flight_capacity: u32,
    pub record_flights: u32,
    pub map_res: u32,
}

/// `struct Emitter` of shaders/shared/particles.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuEmitter {
    pub position: [f32; 3],
    pub position_jitter: f32,
    pub velocity: [f32; 3],
    pub velocity_jitter: f32,
    pub acc: [f32; 3],
    pub lifetime: f32,
    pub first: u32,
    pub count: u32,
    pub seed: u32,
    pub _pad: u32,
}

/// `struct Collider` of shaders/shared/particles.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuCollider {
    pub q: [[f32; 4]; 4],
    pub con: [[f32; 4]; 3],
    pub half: [f32; 4],
    pub kinds: [u32; 4],
    pub map_origin: [f32; 4],
    pub map_axes: [[f32; 4]; 3],
}

/// `struct Impact` of shaders/shared/particles.wgsl (times relative to
/// the window start).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuImpact {
    pub p: [f32; 3],
    pub t: f32,
    pub n: [f32; 3],
    pub speed: f32,
    pub p0: [f32; 3],
    pub t0: f32,
    pub v0: [f32; 3],
    pub collider: u32,
    pub particle: u32,
    pub generation: u32,
    pub flight: u32,
    pub _pad: u32,
}

/// `struct FlightRecord` of shaders/shared/particles.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuFlight {
    pub p0: [f32; 3],
    pub t0: f32,
    pub v0: [f32; 3],
    pub hit: i32,
    pub particle: u32,
    pub generation: u32,
    pub flight: u32,
    pub _pad: u32,
}

impl GpuCollider {
    pub fn new(c: &Collider) -> Self {
        let mut con = [[0.0; 4]; 3];
        let mut half = [0.0; 4];
        let mut kinds = [0u32; 4];
        for (i, k) in c.constraints.iter().enumerate() {
            (con[i], half[i], kinds[i]) = match *k {
                Constraint::Slab { dir, centre, half } => (
                    dir.as_vec3().extend(centre as f32).to_array(),
                    half as f32,
                    1,
                ),
                Constraint::Ball { centre, radius } => {
                    (centre.as_vec3().extend(radius as f32).to_array(), 0.0, 2)
                }
            };
        }
        kinds[3] = c.map.kind as u32;
        let m = &c.map;
        GpuCollider {
            q: c.q.as_mat4().to_cols_array_2d(),
            con,
            half,
            kinds,
            map_origin: m.origin.as_vec3().extend(0.0).to_array(),
            map_axes: [0, 1, 2].map(|i| {
                m.axes[i]
                    .as_vec3()
                    .extend(1.0 / m.scale[i] as f32)
                    .to_array()
            }),
        }
    }
}

/// The stage's pipelines, created once per device.
pub struct ParticlesGpu {
    pub(super) scan_kernels: Kernels,
    pub(super) scan: wgpu::ComputePipeline,
    pub(super) kernels: Kernels,
    pub(super) solve: wgpu::ComputePipeline,
    pub(super) map_layout: wgpu::BindGroupLayout,
    pub(super) map_pipeline: wgpu::RenderPipeline,
}

fn map_target(op: wgpu::BlendOperation) -> Option<wgpu::ColorTargetState> {
    let component = wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::One,
        dst_factor: wgpu::BlendFactor::One,
        operation: op,
    };
    Some(wgpu::ColorTargetState {
        format: MAP_FORMAT,
        blend: Some(wgpu::BlendState {
            color: component,
            alpha: component,
        }),
        write_mask: wgpu::ColorWrites::RED,
    })
}

impl ParticlesGpu {
    pub fn new(gpu: &GpuContext) -> Result<Self, GpuError> {
        if !gpu
            .device
            .features()
            .contains(wgpu::Features::FLOAT32_BLENDABLE)
        {
            return Err(GpuError::Device("impact maps need blending into R32Float (FLOAT32_BLENDABLE), which this adapter lacks".into()));
        }
        let scan_kernels =
            Kernels::new(gpu, "particles_scan", shader_source("particles_scan.wgsl"));
        let scan = scan_kernels.pipeline(gpu, "scan_main");
        let kernels = Kernels::new(gpu, "particles", shader_source("particles_eval.wgsl"));
        let solve = kernels.pipeline(gpu, "solve_main");
        let device = &gpu.device;
        let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::VERTEX,
            ty,
            count: None,
        };
        let storage = wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        let uniform = wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        let map_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("particles::map_layout"),
            entries: &[
                entry(0, uniform),
                entry(1, storage),
                entry(2, storage),
                entry(3, storage),
            ],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("particles::map_pipeline_layout"),
            bind_group_layouts: &[Some(&map_layout)],
            immediate_size: 0,
        });
        let module = gpu.shader(shader_source("particles_map.wgsl"));
        let map_pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("particles::map_pipeline"),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("map_vertex"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::PointList,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("map_fragment"),
                compilation_options: Default::default(),
                targets: &[
                    map_target(wgpu::BlendOperation::Add),
                    map_target(wgpu::BlendOperation::Min),
                    map_target(wgpu::BlendOperation::Max),
                ],
            }),
            multiview_mask: None,
            cache: None,
        });
        Ok(ParticlesGpu {
            scan_kernels,
            scan,
            kernels,
            solve,
            map_layout,
            map_pipeline,
        })
    }
}

/// Bytes a particle takes in the largest of its buffers
/// ([`ParticleState::kept`]).
pub const LARGEST_BYTES_PER_PARTICLE: u64 = 32;

/// The most particles a scene can hold on a device of `limits`: each
/// particle buffer must fit one storage binding and one buffer
/// ([`LARGEST_BYTES_PER_PARTICLE`] bytes a particle in the largest), and
/// a scene holds at most [`super::scene::MAX_PARTICLES`].
pub fn max_particles(limits: &wgpu::Limits) -> u64 {
    let buffer = limits
        .max_buffer_size
        .min(limits.max_storage_buffer_binding_size);
    (buffer / LARGEST_BYTES_PER_PARTICLE).min(super::scene::MAX_PARTICLES)
}

/// What the evaluation keeps per particle between windows, written and
/// read only by the GPU (the CPU never touches particle state): the flight
/// each particle's last evaluated window ended in and that flight's hit
/// (layout in shaders/shared/particles.wgsl), and the scan's list of the
/// particles to solve. Zeroed: no particle has a kept flight yet. It
/// belongs to one scene and its bounces and restitution.
pub struct ParticleState {
    /// 16 bytes a particle, all the scan reads.
    pub check: wgpu::Buffer,
    /// 32 bytes a particle, read and written by the solve only.
    pub kept: wgpu::Buffer,
    /// The scan's list of particle indices, 4 bytes a particle.
    pub work: wgpu::Buffer,
}

impl ParticleState {
    fn new(gpu: &GpuContext, particles: u32) -> Result<Self, GpuError> {
        let n = u64::from(particles.max(1));
        let buffer = |label, bytes| storage_buffer_zeroed(gpu, BufferCheck { label, bytes });
        Ok(ParticleState {
            check: buffer("particles::state_check", n * 16)?,
            kept: buffer("particles::state_kept", n * LARGEST_BYTES_PER_PARTICLE)?,
            work: buffer("particles::work", n * 4)?,
        })
    }
}

/// A scene on the GPU: emitters, colliders and the particles' state.
pub struct GpuScene {
    pub emitters: wgpu::Buffer,
    pub colliders: wgpu::Buffer,
    pub state: ParticleState,
    pub frame: Frame,
}

impl GpuScene {
    pub fn new(gpu: &GpuContext, scene: &ParticleScene, map_res: u32) -> Result<Self, GpuError> {
        let mut first = 0;
        let emitters: Vec<GpuEmitter> = scene
            .emitters
            .iter()
            .map(|e| {
                let g = GpuEmitter {
                    position: e.position.as_vec3().to_array(),
                    position_jitter: e.position_jitter as f32,
                    velocity: e.velocity.as_vec3().to_array(),
                    velocity_jitter: e.velocity_jitter as f32,
                    acc: match e.order {
                        Order::First => [0.0; 3],
                        Order::Second => scene.gravity.as_vec3().to_array(),
                    },
                    lifetime: e.lifetime as f32,
                    first,
                    count: e.count,
                    seed: e.seed,
                    _pad: 0,
                };
                first += e.count;
                g
            })
            .collect();
        let colliders: Vec<GpuCollider> = scene
            .colliders
            .iter()
            .map(|c| GpuCollider::new(&Collider::new(c)))
            .collect();
        let atlas_height = u64::from(map_res) * colliders.len().max(1) as u64;
        let limit = gpu.device.limits().max_texture_dimension_2d;
        if atlas_height > u64::from(limit) {
            return Err(GpuError::Device(format!(
                "{} impact maps of {map_res}² need an atlas {atlas_height} texels high, beyond this adapter's {limit}; use a smaller map resolution",
                colliders.len()
            )));
        }
        let n = scene.particle_count();
        Ok(GpuScene {
            emitters: storage_buffer_init(gpu, "particles::emitters", &emitters)?,
            colliders: storage_buffer_init(gpu, "particles::colliders", &colliders)?,
            state: ParticleState::new(gpu, n as u32)?,
            frame: Frame {
                restitution: scene.restitution as f32,
                num_particles: n as u32,
                num_emitters: emitters.len() as u32,
                num_colliders: colliders.len() as u32,
                bounces: scene.bounces,
                map_res,
                ..Default::default()
            },
        })
    }
}
