//! The mode's GPU work each frame: the live particles evaluated at the
//! display time into the viewport's point list (the stage's
//! [`LivePoints`]: from the state the impact windows keep, drawn
//! indirectly, no CPU round trip),
//! and the impact windows ahead of the clock streamed through the stage's
//! [`FrameRing`] (evaluation and map rendering, asynchronous read-back,
//! decoding — see [`crate::stages::particles::gpu`]).

use std::sync::Arc;
use std::time::Instant;

use super::lookahead::Schedule;
use crate::gpu::GpuContext;
use crate::stages::particles::gpu::{GpuScene, ParticlesGpu};
use crate::stages::particles::points::{LivePoints, PointsGpu};
use crate::stages::particles::ring::{FrameResult, FrameRing};
use crate::stages::particles::stream::decode;
use crate::stages::particles::{Event, ParticleScene};
use crate::timing::Timings;

/// One scene on the GPU: its buffers, the points and the ring.
pub struct Live {
    pipes: Arc<ParticlesGpu>,
    points_gpu: Arc<PointsGpu>,
    scene: GpuScene,
    ring: FrameRing,
    /// The live particles' point list and its indirect draw.
    pub points: LivePoints,
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
        let points = LivePoints::new(gpu, &points_gpu, &gs).map_err(|e| e.to_string())?;
        // Room for an impact per 16 particles per window to start; the
        // ring grows after an overflow.
        let ring = FrameRing::new(&gs, n / 16, 1);
        Ok(Live {
            pipes,
            points_gpu,
            scene: gs,
            ring,
            points,
        })
    }

    /// Evaluates every particle at `t` into the point list; the passes'
    /// GPU time when the adapter has timestamps.
    pub fn evaluate_points(&self, gpu: &GpuContext, t: f64) -> Result<Option<f64>, String> {
        let timing = self
            .points
            .evaluate(gpu, &self.points_gpu, t)
            .map_err(|e| e.to_string())?;
        Ok(timing.gpu_ms())
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
