//! GPU timing: timestamp-query scopes through wgpu-profiler, with wall-clock
//! time beside them.
//!
//! A [`GpuRun`] records one or more command-encoder phases, each inside a
//! profiler scope, submits them, waits, and returns per-phase GPU time when
//! the device has timestamp queries (`None` otherwise). The same scopes feed
//! puffin (wgpu-profiler's `puffin` feature) so the viewer's profiler overlay
//! shows them.
//!
//! A run creates its own profiler, whose first scope creates a query set
//! and two buffers (resolve, read-back) on the device. A caller running
//! every frame keeps a [`KeptProfiler`] instead and starts its runs with
//! [`GpuRun::with_kept`]: the profiler recycles its query pools from one
//! finished run to the next, so a warm run creates no GPU objects for its
//! timings.

use std::time::Instant;

use eframe::egui_wgpu::wgpu;
use wgpu_profiler::{GpuProfiler, GpuProfilerSettings};

use super::{GpuContext, GpuError};

/// One phase's GPU time.
#[derive(Clone, Debug)]
pub struct GpuPhase {
    pub name: String,
    /// Milliseconds between the phase's timestamps; `None` when the adapter
    /// has no timestamp queries.
    pub gpu_ms: Option<f64>,
}

/// Records phases into one encoder, submits, and measures.
pub struct GpuRun<'a> {
    gpu: &'a GpuContext,
    profiler: Profiler<'a>,
    encoder: wgpu::CommandEncoder,
    started: Instant,
}

/// A run's profiler: its own, or one kept by the caller across runs.
enum Profiler<'a> {
    Own(GpuProfiler),
    Kept(&'a mut GpuProfiler),
}

impl Profiler<'_> {
    fn get(&mut self) -> &mut GpuProfiler {
        match self {
            Profiler::Own(p) => p,
            Profiler::Kept(p) => p,
        }
    }
}

/// A timed profiler kept across runs ([`GpuRun::with_kept`]).
pub struct KeptProfiler(GpuProfiler);

impl KeptProfiler {
    /// With timestamp queries when the device has them.
    pub fn new(gpu: &GpuContext) -> Result<Self, GpuError> {
        profiler(gpu, gpu.has_timestamps).map(KeptProfiler)
    }
}

fn profiler(gpu: &GpuContext, timed: bool) -> Result<GpuProfiler, GpuError> {
    GpuProfiler::new(
        &gpu.device,
        GpuProfilerSettings {
            enable_timer_queries: timed,
            // Debug groups crash lavapipe (vkCmdBeginDebugUtilsLabelEXT).
            enable_debug_groups: false,
            max_num_pending_frames: 2,
        },
    )
    .map_err(|e| GpuError::Device(format!("GPU profiler: {e}")))
}

impl<'a> GpuRun<'a> {
    pub fn new(gpu: &'a GpuContext, label: &str) -> Result<Self, GpuError> {
        Ok(Self::start(
            gpu,
            label,
            Profiler::Own(profiler(gpu, gpu.has_timestamps)?),
        ))
    }

    /// A run without timestamp queries, for [`GpuRun::submit`]: recorded
    /// the same way, submitted without waiting.
    pub fn untimed(gpu: &'a GpuContext, label: &str) -> Result<Self, GpuError> {
        Ok(Self::start(
            gpu,
            label,
            Profiler::Own(profiler(gpu, false)?),
        ))
    }

    /// A run timed by `kept`, which must be finished ([`GpuRun::finish`])
    /// before the next run with it — the borrow sees to that.
    pub fn with_kept(gpu: &'a GpuContext, label: &str, kept: &'a mut KeptProfiler) -> Self {
        Self::start(gpu, label, Profiler::Kept(&mut kept.0))
    }

    fn start(gpu: &'a GpuContext, label: &str, profiler: Profiler<'a>) -> Self {
        let encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
        GpuRun {
            gpu,
            profiler,
            encoder,
            started: Instant::now(),
        }
    }

    /// Records a compute pass named `name` (one timestamp scope).
    pub fn compute_pass(&mut self, name: &str, record: impl FnOnce(&mut wgpu::ComputePass<'_>)) {
        let mut scope = self.profiler.get().scope(name, &mut self.encoder);
        let mut pass = scope.scoped_compute_pass(name);
        record(&mut pass);
    }

    /// Records arbitrary encoder work (copies) under scope `name`.
    pub fn encoder_work(&mut self, name: &str, record: impl FnOnce(&mut wgpu::CommandEncoder)) {
        let mut scope = self.profiler.get().scope(name, &mut self.encoder);
        record(&mut scope);
    }

    /// Submits what is recorded so far and goes on in a fresh encoder, so
    /// the GPU starts on it while the caller does host work (creates the
    /// read-back's memory, or reads an earlier part's results as each
    /// completes: [`super::map_staging_after`]). [`GpuRun::finish`]
    /// submits the rest and still times every part's phases (the
    /// timestamp queries are resolved in the last encoder).
    pub fn submit_part(&mut self) -> wgpu::SubmissionIndex {
        let next = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("GpuRun::part"),
            });
        let done = std::mem::replace(&mut self.encoder, next);
        self.gpu.queue.submit([done.finish()])
    }

    /// Submits without waiting (work in flight; no times).
    pub fn submit(self) {
        self.gpu.queue.submit([self.encoder.finish()]);
    }

    /// Submits, waits for the GPU, and returns (phases, wall-clock ms from
    /// creation to completion).
    pub fn finish(self) -> Result<(Vec<GpuPhase>, f64), GpuError> {
        self.submit_last()?.1.finish()
    }

    /// Submits what is recorded as the run's last part, with the
    /// resolution of its timestamp queries and the request to map their
    /// read-back: a caller that waits for this submission anyway (to map a
    /// buffer it copies into) then gets the times without a submission and
    /// a wait of their own (`SubmittedRun::finish`).
    pub fn submit_last(mut self) -> Result<(wgpu::SubmissionIndex, SubmittedRun<'a>), GpuError> {
        self.profiler.get().resolve_queries(&mut self.encoder);
        let submission = self.gpu.queue.submit([self.encoder.finish()]);
        // Ending the frame maps its query buffers; the next wait for this
        // submission completes both the work and the mapping.
        self.profiler
            .get()
            .end_frame()
            .map_err(|e| GpuError::Validation {
                what: "GPU profiler".into(),
                reason: e.to_string(),
            })?;
        Ok((
            submission,
            SubmittedRun {
                gpu: self.gpu,
                profiler: self.profiler,
                started: self.started,
            },
        ))
    }
}

/// A run whose every part is submitted ([`GpuRun::submit_last`]).
pub struct SubmittedRun<'a> {
    gpu: &'a GpuContext,
    profiler: Profiler<'a>,
    started: Instant,
}

impl SubmittedRun<'_> {
    /// Waits for the GPU (at once if the caller has waited already) and
    /// returns (phases, wall-clock ms from the run's creation to now).
    pub fn finish(mut self) -> Result<(Vec<GpuPhase>, f64), GpuError> {
        self.gpu
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Validation {
                what: "GPU run".into(),
                reason: e.to_string(),
            })?;
        let wall_ms = self.started.elapsed().as_secs_f64() * 1e3;
        let period = self.gpu.queue.get_timestamp_period();
        let results = self
            .profiler
            .get()
            .process_finished_frame(period)
            .unwrap_or_default();
        let mut phases = Vec::new();
        flatten(&results, &mut phases);
        Ok((phases, wall_ms))
    }
}

/// One phase per name, in first-seen order: the top-level scopes of the
/// same name (a sort's passes, a build's levels) add up; nested scopes (a
/// pass inside its scope of the same name) are inside their parent's time.
fn flatten(results: &[wgpu_profiler::GpuTimerQueryResult], out: &mut Vec<GpuPhase>) {
    for r in results {
        let ms = r.time.as_ref().map(|t| (t.end - t.start) * 1e3);
        match out.iter_mut().find(|p| p.name == r.label) {
            Some(p) => p.gpu_ms = p.gpu_ms.zip(ms).map(|(a, b)| a + b),
            None => out.push(GpuPhase {
                name: r.label.clone(),
                gpu_ms: ms,
            }),
        }
    }
}
