//! The mode's GPU work each frame: the live particles evaluated at the
//! display time into the viewport's point list
//! (`shaders/particles_points.wgsl`, drawn indirectly: no CPU round trip),
//! and the impact windows ahead of the clock streamed through the stage's
//! [`FrameRing`] (evaluation and map rendering, asynchronous read-back,
//! decoding — see [`crate::stages::particles::gpu`]).

use std::sync::Arc;
use std::time::Instant;

use eframe::egui_wgpu::wgpu;

use super::lookahead::Schedule;
use crate::gpu::{Access, GpuContext, GpuRun, Kernels, dispatch_dims, shader_source};
use crate::stages::particles::gpu::{Frame, GpuScene, ParticlesGpu, WORKGROUP};
use crate::stages::particles::ring::{FrameResult, FrameRing};
use crate::stages::particles::stream::decode;
use crate::stages::particles::{Event, ParticleScene};
use crate::timing::Timings;

/// The points pass: its pipeline, per device.
pub struct PointsGpu {
    kernels: Kernels,
    pipeline: wgpu::ComputePipeline,
}

impl PointsGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let (ro, rw) = (Access::ReadOnly, Access::ReadWrite);
        let kernels = Kernels::new(
            gpu,
            "particles_points",
            shader_source("particles_points.wgsl"),
            &[ro, ro, rw, rw],
        );
        let pipeline = kernels.pipeline(gpu, "points_main");
        PointsGpu { kernels, pipeline }
    }
}

/// One scene on the GPU: its buffers, the points and the ring.
pub struct Live {
    pipes: Arc<ParticlesGpu>,
    points_gpu: Arc<PointsGpu>,
    scene: GpuScene,
    ring: FrameRing,
    uniform: wgpu::Buffer,
    /// `[x, y, z, speed]` per live particle (vertex + storage).
    pub points: wgpu::Buffer,
    /// `[4, live particles, 0, 0]`: the indirect draw's arguments.
    pub draw_args: wgpu::Buffer,
    bind: wgpu::BindGroup,
}

impl Live {
    pub fn new(
        gpu: &GpuContext,
        pipes: Arc<ParticlesGpu>,
        points_gpu: Arc<PointsGpu>,
        scene: &ParticleScene,
        map_res: u32,
    ) -> Result<Self, String> {
        let gs = GpuScene::new(gpu, scene, map_res).map_err(|e| e.to_string())?;
        let n = gs.frame.num_particles.max(1);
        let bytes = u64::from(n) * 16;
        let limit = gpu.device.limits().max_storage_buffer_binding_size;
        if bytes > limit {
            return Err(format!(
                "{n} particles need a {bytes}-byte point buffer, beyond this adapter's {limit}; use fewer particles"
            ));
        }
        let device = &gpu.device;
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("particles view::frame"),
            size: std::mem::size_of::<Frame>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let points = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("particles view::points"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::VERTEX,
            mapped_at_creation: false,
        });
        let draw_args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("particles view::draw_args"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind = points_gpu.kernels.bind_group(
            gpu,
            &[&uniform, &gs.emitters, &gs.colliders, &points, &draw_args],
        );
        // Room for an impact per 16 particles per window to start; the
        // ring grows after an overflow.
        let ring = FrameRing::new(&gs, n / 16, 1);
        Ok(Live {
            pipes,
            points_gpu,
            scene: gs,
            ring,
            uniform,
            points,
            draw_args,
            bind,
        })
    }

    /// Evaluates every particle at `t` into the point list; the pass's GPU
    /// time when the adapter has timestamps.
    pub fn evaluate_points(&self, gpu: &GpuContext, t: f64) -> Result<Option<f64>, String> {
        let frame = Frame {
            t_begin: t as f32,
            ..self.scene.frame
        };
        gpu.queue
            .write_buffer(&self.uniform, 0, bytemuck::bytes_of(&frame));
        gpu.queue
            .write_buffer(&self.draw_args, 0, bytemuck::cast_slice(&[4u32, 0, 0, 0]));
        let (x, y) = dispatch_dims(frame.num_particles.div_ceil(WORKGROUP));
        let mut run = GpuRun::new(gpu, "particles view::points").map_err(|e| e.to_string())?;
        run.compute_pass("live particles", |pass| {
            pass.set_pipeline(&self.points_gpu.pipeline);
            pass.set_bind_group(0, &self.bind, &[]);
            pass.dispatch_workgroups(x, y, 1);
        });
        let (phases, _) = run.finish().map_err(|e| e.to_string())?;
        Ok(phases.first().and_then(|p| p.gpu_ms))
    }

    /// Submits the windows the schedule hands out at display time `now`,
    /// collects those whose read-back landed, decodes them and hands their
    /// events to the schedule. Phases go to `timings`.
    pub fn stream(
        &mut self,
        gpu: &GpuContext,
        schedule: &mut Schedule,
        now: f64,
        look_ahead: f64,
        dt: f64,
        timings: &mut Timings,
    ) -> Result<(), String> {
        let started = Instant::now();
        let mut ready = Vec::new();
        for w in schedule.windows(now, look_ahead, dt) {
            self.submit(gpu, w, &mut ready)?;
        }
        timings.push(
            "impact windows: evaluation + map rendering (record, submit)",
            started.elapsed().as_secs_f64() * 1e3,
            None,
        );
        ready.extend(self.ring.poll(gpu).map_err(|e| e.to_string())?);
        let started = Instant::now();
        let mut readback_ms = None;
        while let Some(r) = ready.pop() {
            if r.overflowed() {
                // Room for all of them, and the window again (its events
                // come back later than planned: counted late if they are).
                self.ring.capacity = self.ring.capacity.max(r.impact_count.next_power_of_two());
                self.submit(gpu, r.window, &mut ready)?;
                continue;
            }
            readback_ms = Some(r.readback_ms);
            if let Some(g) = r.gpu_ms {
                // The window's own GPU timestamps, arrived with its read-back.
                timings.push("impact window: evaluation scan (GPU)", 0.0, Some(g.scan));
                timings.push("impact window: evaluation solve (GPU)", 0.0, Some(g.solve));
                timings.push(
                    "impact window: map rendering (GPU)",
                    0.0,
                    Some(g.map_rendering),
                );
                timings.push(
                    "impact window: read-back copy (GPU)",
                    0.0,
                    Some(g.readback_copy),
                );
            }
            let events: Vec<Event> = decode(&r).0;
            schedule.arrive(now, r.window.frame, events, r.latency_frames, r.readback_ms);
        }
        if let Some(ms) = readback_ms {
            timings.push("read-back (submission to arrival)", ms, None);
        }
        timings.push("decoding", started.elapsed().as_secs_f64() * 1e3, None);
        Ok(())
    }

    fn submit(
        &mut self,
        gpu: &GpuContext,
        w: crate::stages::particles::ring::Window,
        ready: &mut Vec<FrameResult>,
    ) -> Result<(), String> {
        self.ring
            .submit(gpu, &self.pipes, &self.scene, w, false, ready)
            .map_err(|e| e.to_string())
    }

    /// Submissions that had to wait for a free slot of the ring.
    pub fn stalls(&self) -> u64 {
        self.ring.stalls
    }
}
