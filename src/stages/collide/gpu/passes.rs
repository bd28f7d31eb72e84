//! What the single and the chunked detects share: the bind group of a
//! pass over a span of points, the recording of the count, scan and write
//! passes, the kept timestamp profiler, and the phases a run's GPU times
//! make.

use eframe::egui_wgpu::wgpu;

use super::{COPY_PHASE, ColliderGpu, Job, Params, Scratch};
use crate::gpu::{GpuContext, GpuError, GpuPhase, GpuRun, KeptProfiler};
use crate::stages::collide::ColliderError;
use crate::timing::Timings;

impl ColliderGpu {
    /// The kept timestamp profiler's slot (filled by [`kept_profiler`]).
    pub(super) fn profiler_slot(&self) -> std::sync::MutexGuard<'_, Option<KeptProfiler>> {
        self.profiler
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The bind group of one pass (`pass_kind`) over `span`'s points,
    /// kept in `scratch` at `slot` ([`KeptBind`]), its uniform written for
    /// the queue's next submission.
    pub(super) fn bind(
        &self,
        job: &Job<'_>,
        scratch: &mut Scratch,
        slot: usize,
        span: Span,
        pass_kind: u32,
    ) -> wgpu::BindGroup {
        let gpu = &self.gpu;
        let (x, y) = span.dims;
        let uniform = Params {
            num_tasks: span.tasks,
            total_threads: span.end,
            capacity: scratch.room.contacts as u32,
            flags: u32::from(job.params.interpolated_depth)
                | (u32::from(job.params.reject_flipped) << 1)
                | (u32::from(span.summary) << 2),
            num_groups: x * y,
            pass_kind,
            first_point: span.first_point,
            contact_threshold: job.params.contact_threshold,
        };
        let bound = [
            &job.plan_buffers[0],
            &job.resident.samples,
            &job.plan_buffers[1],
            &job.resident.fields,
            &job.resident.values,
            &scratch.contacts,
            &scratch.counter,
            &scratch.group_counts,
        ]
        .map(wgpu::Buffer::clone);
        if scratch.binds.len() <= slot {
            scratch.binds.resize_with(slot + 1, || None);
        }
        let kept = match &mut scratch.binds[slot] {
            Some(kept) if kept.bound == bound => kept,
            entry => {
                let uniform = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("ColliderGpu::params"),
                    size: std::mem::size_of::<Params>() as u64,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                let [
                    tasks,
                    samples,
                    extra,
                    fields,
                    values,
                    contacts,
                    counter,
                    groups,
                ] = &bound;
                let group = self.kernels.bind(
                    gpu,
                    &[
                        ("params", &uniform),
                        ("tasks", tasks),
                        ("samples", samples),
                        ("extra", extra),
                        ("fields", fields),
                        ("values", values),
                        ("contacts", contacts),
                        ("counter", counter),
                        ("groups", groups),
                    ],
                );
                entry.insert(KeptBind {
                    bound,
                    uniform,
                    group,
                })
            }
        };
        gpu.queue
            .write_buffer(&kept.uniform, 0, bytemuck::bytes_of(&uniform));
        kept.group.clone()
    }

    /// Records the counter's first `clear_bytes` cleared and the passes
    /// over `span`: count, and with a write group the scan and the write.
    pub(super) fn record_passes(
        &self,
        run: &mut GpuRun<'_>,
        scratch: &Scratch,
        clear_bytes: u64,
        span: Span,
        (count_group, write_group): (&wgpu::BindGroup, Option<&wgpu::BindGroup>),
    ) {
        let (x, y) = span.dims;
        run.encoder_work("clear", |e| {
            e.clear_buffer(&scratch.counter, 0, Some(clear_bytes));
        });
        if span.end <= span.first_point {
            return;
        }
        run.compute_pass("count", |pass| {
            pass.set_pipeline(&self.contacts);
            pass.set_bind_group(0, count_group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        });
        if let Some(write_group) = write_group {
            run.compute_pass("scan", |pass| {
                pass.set_pipeline(&self.scan);
                pass.set_bind_group(0, count_group, &[]);
                pass.dispatch_workgroups(1, 1, 1);
            });
            run.compute_pass("write", |pass| {
                pass.set_pipeline(&self.contacts);
                pass.set_bind_group(0, write_group, &[]);
                pass.dispatch_workgroups(x, y, 1);
            });
        }
    }
}

/// A pass's uniform and bind group, kept between detects: remade only when
/// one of the buffers it binds is another than last time (a grown buffer,
/// other resident shapes), so that a warm detect creates neither. This
/// does not make a detect measurably faster (the cost of a chunk is its
/// encoder's finish and its submission, [`super::chunked`]); it is kept so
/// that a warm detect allocates nothing on the GPU.
pub(super) struct KeptBind {
    /// The bound buffers after the uniform, in binding order.
    bound: [wgpu::Buffer; 8],
    uniform: wgpu::Buffer,
    group: wgpu::BindGroup,
}

/// The points a dispatch covers, `first_point..end`, the tasks they lie
/// in (the plan's first `tasks`), its workgroups (x, y), and whether its
/// count pass sums per-pair summaries.
#[derive(Clone, Copy)]
pub(super) struct Span {
    pub(super) first_point: u32,
    pub(super) end: u32,
    pub(super) tasks: u32,
    pub(super) dims: (u32, u32),
    pub(super) summary: bool,
}

/// Phase `contacts` (`wall_ms`, and the passes' GPU time) and
/// [`COPY_PHASE`] (the copies' GPU time, inside that wall time) of a
/// run's `phases`.
pub(super) fn push_gpu_phases(timings: &mut Timings, wall_ms: f64, phases: &[GpuPhase]) {
    let gpu_of = |names: &[&str]| {
        phases
            .iter()
            .filter(|p| names.contains(&p.name.as_str()))
            .map(|p| p.gpu_ms)
            .sum::<Option<f64>>()
    };
    timings.push("contacts", wall_ms, gpu_of(&["count", "scan", "write"]));
    if let Some(copy_ms) = gpu_of(&["clear", "counter", "copy"]) {
        timings.push(COPY_PHASE, 0.0, Some(copy_ms));
    }
}

/// The profiler in `slot`, created there by the first dispatch.
pub(super) fn kept_profiler<'a>(
    slot: &'a mut Option<KeptProfiler>,
    gpu: &GpuContext,
) -> Result<&'a mut KeptProfiler, GpuError> {
    Ok(match slot.take() {
        Some(kept) => slot.insert(kept),
        None => slot.insert(KeptProfiler::new(gpu)?),
    })
}

pub(super) fn passes_disagree() -> ColliderError {
    GpuError::Validation {
        what: "colliders".into(),
        reason: "the write pass found other contacts than the count pass".into(),
    }
    .into()
}
