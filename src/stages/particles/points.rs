//! The live particles at one time T (Knott 2003 §3.2, §3.3.2): every
//! particle's position and speed at T into a point list drawn indirectly,
//! so nothing goes through the CPU (`shaders/particles_points.wgsl`).
//!
//! # From the kept flights
//!
//! Solving each particle's chain of flights from its birth at every frame
//! costs up to `bounces` + 1 earliest-hit solves per particle per frame,
//! although the impact windows ([`super::gpu::ParticleState`]) already keep
//! each particle's flight at the end of the last window with its hit. The
//! first pass reads that state: a kept flight of the life at T that
//! started at or before T and hits after T *is* the particle's flight at T
//! (the chain is a function of time alone, and every earlier flight ended
//! at or before its start), so p(T) is one closed form; one that hit at or
//! before T as the last allowed bounce means the particle is eliminated.
//! Only the other particles are solved from birth: no state yet, a new life
//! since the state was kept, a jump back in time, and — because the viewer
//! submits the windows ahead of the drawn time by the look-ahead (§3.5.1),
//! so the state is that of T + look-ahead + dt — a flight that starts
//! between T and there. The test is on the state alone, so which window
//! last wrote it (a re-run, a reset schedule) never matters for
//! correctness, only for how many particles fall back.
//!
//! # Why a compacted second pass
//!
//! With the hail scene's 1.6 s lives at 60 Hz about 1 % of the particles
//! start a life and 0.3 % start a flight per frame, so with the viewer's
//! look-ahead of 2 frames some 4 % fall back. In one pass with a branch, a
//! 32-lane warp holding any of them (1 − 0.96³² ≈ 73 % of warps) would run
//! the whole chain, so it would save little. Instead the first pass lists
//! them (one global atomic per workgroup, `shaders/shared/work_list.wgsl`)
//! and counts the second pass's indirect dispatch, which solves only the
//! listed particles in full warps — the same split as the windows' scan and
//! solve. Both passes append to the one point list: the same points as
//! solving every particle from birth (`tests/it/particles_gpu.rs`,
//! `live_points_from_the_kept_state_match_solving_from_birth`: over 60
//! frames, a jump back and a restart all but a few points are the same
//! bits, the rest within 1e-4 — the kept flight comes from the windows'
//! shader, the same f32 code compiled apart, where a multiply-add may fuse
//! differently).

use eframe::egui_wgpu::wgpu;

use super::gpu::{Frame, GpuScene, WORKGROUP};
use crate::gpu::{
    GpuContext, GpuError, GpuRun, Kernels, dispatch_dims, read_buffer, shader_source,
};

/// The points passes' pipelines, per device.
pub struct PointsGpu {
    kept_kernels: Kernels,
    kept: wgpu::ComputePipeline,
    birth_kernels: Kernels,
    birth: wgpu::ComputePipeline,
}

impl PointsGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let source = shader_source("particles_points.wgsl");
        let kept_kernels = Kernels::new(gpu, "particles_points", source);
        let kept = kept_kernels.pipeline(gpu, "kept_main");
        // The second pass is dispatched with `birth_args`, so its layout
        // binds only what `birth_main` uses.
        let birth_kernels =
            Kernels::for_entries(gpu, "particles_points_birth", source, &["birth_main"]);
        let birth = birth_kernels.pipeline(gpu, "birth_main");
        PointsGpu {
            kept_kernels,
            kept,
            birth_kernels,
            birth,
        }
    }
}

/// GPU time of one evaluation's passes (`None` without timestamps) and
/// its wall-clock time, submission to completion.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PointsTiming {
    pub kept_ms: Option<f64>,
    pub birth_ms: Option<f64>,
    pub wall_ms: f64,
}

impl PointsTiming {
    /// Both passes' GPU time.
    pub fn gpu_ms(&self) -> Option<f64> {
        self.kept_ms.zip(self.birth_ms).map(|(a, b)| a + b)
    }
}

/// One scene's point list and the passes' buffers.
pub struct LivePoints {
    frame: Frame,
    uniform: wgpu::Buffer,
    /// `[x, y, z, speed]` per live particle (vertex + storage).
    pub points: wgpu::Buffer,
    /// `[4, live particles, 0, 0]`: the indirect draw's arguments.
    pub draw_args: wgpu::Buffer,
    /// `[particles solved from birth]`.
    listed: wgpu::Buffer,
    birth_args: wgpu::Buffer,
    kept_bind: wgpu::BindGroup,
    birth_bind: wgpu::BindGroup,
}

impl LivePoints {
    pub fn new(gpu: &GpuContext, pipes: &PointsGpu, scene: &GpuScene) -> Result<Self, GpuError> {
        let n = scene.frame.num_particles.max(1);
        let bytes = u64::from(n) * 16;
        let limit = gpu.device.limits().max_storage_buffer_binding_size;
        if bytes > limit {
            return Err(GpuError::Device(format!(
                "{n} particles need a {bytes}-byte point buffer, beyond this adapter's {limit}; use fewer particles"
            )));
        }
        let buffer = |label, size, usage| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        use wgpu::BufferUsages as U;
        let uniform = buffer(
            "particles points::frame",
            std::mem::size_of::<Frame>() as u64,
            U::UNIFORM | U::COPY_DST,
        );
        let points = buffer(
            "particles points::points",
            bytes,
            U::STORAGE | U::VERTEX | U::COPY_SRC,
        );
        let draw_args = buffer(
            "particles points::draw_args",
            16,
            U::STORAGE | U::INDIRECT | U::COPY_DST | U::COPY_SRC,
        );
        let work = buffer("particles points::work", u64::from(n) * 4, U::STORAGE);
        let listed = buffer(
            "particles points::listed",
            4,
            U::STORAGE | U::COPY_DST | U::COPY_SRC,
        );
        let birth_args = buffer(
            "particles points::birth_args",
            12,
            U::STORAGE | U::INDIRECT | U::COPY_DST,
        );
        let state = &scene.state;
        let common = [
            ("frame", &uniform),
            ("emitters", &scene.emitters),
            ("colliders", &scene.colliders),
            ("check", &state.check),
            ("kept", &state.kept),
            ("points", &points),
            ("draw", &draw_args),
            ("work", &work),
            ("listed", &listed),
        ];
        let kept_bind = pipes
            .kept_kernels
            .bind(gpu, &[&common[..], &[("birth_args", &birth_args)]].concat());
        // The names `birth_main` does not use are left out of its group.
        let birth_bind = pipes.birth_kernels.bind(gpu, &common);
        Ok(LivePoints {
            frame: scene.frame,
            uniform,
            points,
            draw_args,
            listed,
            birth_args,
            kept_bind,
            birth_bind,
        })
    }

    /// Evaluates every particle at `t` into the point list, from the
    /// scene's kept state where it holds the flight at `t`; waits for the
    /// GPU.
    pub fn evaluate(
        &self,
        gpu: &GpuContext,
        pipes: &PointsGpu,
        t: f64,
    ) -> Result<PointsTiming, GpuError> {
        let frame = Frame {
            t_begin: t as f32,
            ..self.frame
        };
        let q = &gpu.queue;
        q.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&frame));
        q.write_buffer(&self.draw_args, 0, bytemuck::cast_slice(&[4u32, 0, 0, 0]));
        q.write_buffer(&self.listed, 0, bytemuck::bytes_of(&0u32));
        q.write_buffer(&self.birth_args, 0, bytemuck::cast_slice(&[0u32, 1, 1]));
        let (x, y) = dispatch_dims(frame.num_particles.div_ceil(WORKGROUP));
        let mut run = GpuRun::new(gpu, "particles points")?;
        run.compute_pass("live particles: kept flights", |pass| {
            pass.set_pipeline(&pipes.kept);
            pass.set_bind_group(0, &self.kept_bind, &[]);
            pass.dispatch_workgroups(x, y, 1);
        });
        run.compute_pass("live particles: from birth", |pass| {
            pass.set_pipeline(&pipes.birth);
            pass.set_bind_group(0, &self.birth_bind, &[]);
            pass.dispatch_workgroups_indirect(&self.birth_args, 0);
        });
        let (phases, wall_ms) = run.finish()?;
        let gpu_ms = |i: usize| phases.get(i).and_then(|p| p.gpu_ms);
        Ok(PointsTiming {
            kept_ms: gpu_ms(0),
            birth_ms: gpu_ms(1),
            wall_ms,
        })
    }

    /// The last evaluation's points (in no particular order) and the
    /// number of particles it solved from birth. Blocking: for tests and
    /// benches.
    pub fn read(&self, gpu: &GpuContext) -> Result<(Vec<[f32; 4]>, u32), GpuError> {
        let drawn = read_buffer::<u32>(gpu, &self.draw_args, 4)?[1];
        let points = read_buffer(gpu, &self.points, drawn as usize)?;
        Ok((points, self.solved_from_birth(gpu)?))
    }

    /// The particles the last evaluation solved from birth. Blocking.
    pub fn solved_from_birth(&self, gpu: &GpuContext) -> Result<u32, GpuError> {
        Ok(read_buffer::<u32>(gpu, &self.listed, 1)?[0])
    }
}
