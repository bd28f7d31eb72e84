//! The chunked detect: the host reads back and decodes one part of a
//! large batch while the GPU computes the next.
//!
//! A detect's wall time in one submission is upload + GPU + read-back +
//! decode, one after the other; the decode of half a million contacts
//! costs about as much as the kernels. Here the batch's points are cut
//! into a few ranges at workgroup boundaries ([`Chunking`]). Each chunk is counted, scanned and written by
//! its own passes (the kernel's `first_point`), its contacts stored from
//! its first point's place in the contacts buffer (which has room for one
//! per point, so no chunk can run into the next), and its counter and its
//! expected records (the last detect's count for this chunk and an eighth
//! more, as in the single submission) copied into its own staging buffer:
//! one submission per chunk, all submitted before the first is read. Each
//! chunk's pairs are planned and their tasks and points written just
//! before its submission ([`crate::stages::collide::Planner`]: the
//! extent, counted without building the plan, cuts the chunks and sizes
//! the buffers), so the GPU starts on the first chunk while the host plans
//! the rest. Then
//! the host maps each chunk's staging buffer as soon as its submission is
//! done — waiting for that submission only — and decodes it while the GPU
//! runs the chunks after it. A chunk finding more contacts than expected
//! copies the rest in a submission of its own. The compaction is stable
//! within each chunk and the chunks follow each other in point order, so
//! the contacts are those of the single submission, bit for bit. Wall time
//! ≈ upload + GPU + the last chunk's read-back and decode + latency. The
//! last chunk's submission also resolves the timestamp queries and asks
//! for their read-back ([`GpuRun::submit_last`]), so the times come with
//! the last chunk's wait instead of a submission and a wait of their own
//! at the end.
//!
//! Why it is shaped so (measurements in
//! `docs/bench/design-measurements.md`): a chunk's cost on the host is
//! mostly its encoder's finish and its submission (the passes are encoded
//! at finish), and about a tenth of a millisecond of each decode is fixed
//! (the pool's wake-up, the job split), so a few large chunks beat many
//! small ones. Planning a chunk at a time lets the GPU start on the first
//! chunk sooner. Two alternatives were tried and dropped: writing each
//! chunk's records straight into a host-visible buffer to skip the copy
//! (the kernels' small stores over PCIe cost far more than the copy they
//! save), and keeping the pool's workers spinning while the host waits
//! (the decodes got faster, but the wake-ups came back as time outside
//! every phase, and the wall time did not move).
//!
//! Phases: `upload` (besides the detect's, each chunk's planning and the
//! writes of its tasks and points), `contacts` (recording, the submissions and the wait for the
//! first chunk; the GPU time of every chunk's passes), [`super::COPY_PHASE`],
//! `readback` (the waits for the later chunks, the maps, any second copy,
//! and the collection of the times at the end) and `convert` (the
//! decodes).

use std::ops::Range;
use std::time::Instant;

use eframe::egui_wgpu::wgpu;

use super::passes::{Span, kept_profiler, passes_disagree, push_gpu_phases};
use super::{
    ColliderGpu, GpuContact, Job, PASS_COUNT, PASS_WRITE, SUMMARY_START, Scratch, WORKGROUP,
};
use crate::gpu::{GpuContext, GpuRun, dispatch_dims, map_staging_after, staging_buffer};
use crate::stages::collide::compact::Decoder;
use crate::stages::collide::{ColliderError, Contact, Planner};
use crate::timing::Timings;

/// When a detect is cut into chunks: as many as there are `min_points`
/// points, at most `max_chunks`. Each chunk costs a submission, two bind
/// groups, a map and a wait on the host; below a million points the
/// decode it hides is shorter than that (see `bench collide`'s
/// `--chunks`). Three chunks suit a thousand pairs best.
///
/// The chunks are equal: a chunk's GPU time (kernels and copy) is about
/// its decode's, so the host is held by the largest chunk wherever it is,
/// and a smaller first chunk only makes the later ones keep the host
/// waiting. The measurements behind both choices are in
/// `docs/bench/design-measurements.md`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chunking {
    pub min_points: usize,
    pub max_chunks: usize,
}

impl Default for Chunking {
    fn default() -> Self {
        Chunking {
            min_points: 1 << 20,
            max_chunks: 3,
        }
    }
}

impl Chunking {
    /// Every detect in one submission.
    pub const SINGLE: Chunking = Chunking {
        min_points: usize::MAX,
        max_chunks: 1,
    };

    /// The point ranges of a detect of `total` points: consecutive, cut at
    /// workgroup boundaries, none empty (none at all for no points).
    pub fn ranges(&self, total: usize) -> Vec<Range<u32>> {
        let workgroup = WORKGROUP as usize;
        let groups = total.div_ceil(workgroup);
        let chunks = (total / self.min_points.max(1))
            .clamp(1, self.max_chunks.max(1))
            .min(groups.max(1));
        let per = groups.div_ceil(chunks).max(1);
        (0..groups)
            .step_by(per)
            .map(|g| (g * workgroup) as u32..((g + per) * workgroup).min(total) as u32)
            .collect()
    }
}

/// Workgroups of a chunk's passes.
pub(super) fn groups_of(range: &Range<u32>) -> u32 {
    (range.end - range.start).div_ceil(WORKGROUP)
}

/// Bytes of a chunk's counter at the start of its staging buffer.
const HEADER: u64 = SUMMARY_START as u64 * 4;
const RECORD: u64 = std::mem::size_of::<GpuContact>() as u64;

/// A chunk's staging buffer (its counter's first words, then room for
/// `records` records), kept between detects, and the contacts the chunk
/// found last time.
pub(super) struct PartStaging {
    buffer: wgpu::Buffer,
    records: usize,
    last: Option<usize>,
}

impl PartStaging {
    fn new(gpu: &GpuContext, records: usize, last: Option<usize>) -> Self {
        PartStaging {
            buffer: staging_buffer(
                &gpu.device,
                "ColliderGpu::chunk staging",
                HEADER + records as u64 * RECORD,
            ),
            records,
            last,
        }
    }
}

impl Scratch {
    /// Gives chunk `c` a staging buffer with room for `records` records.
    fn fit_part(&mut self, gpu: &GpuContext, c: usize, records: usize) {
        while self.parts.len() <= c {
            self.parts.push(PartStaging::new(gpu, records, None));
        }
        let part = &mut self.parts[c];
        if part.records < records {
            *part = PartStaging::new(gpu, records, part.last);
        }
    }
}

/// A submitted chunk: its points, submission and records copied.
struct Submitted {
    range: Range<u32>,
    submission: wgpu::SubmissionIndex,
    copied: usize,
}

/// Wall time (ms) since `t`.
fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

impl ColliderGpu {
    /// The detect of `job` cut into `chunks` (see the module docs), its
    /// contacts decoded into `out` (replacing what it held) and its phases
    /// pushed to `timings`. `scratch` has room for a contact per point.
    pub(super) fn detect_chunked(
        &self,
        job: &Job<'_>,
        planner: &mut Planner<'_>,
        chunks: &[Range<u32>],
        scratch: &mut Scratch,
        timings: &mut Timings,
        out: &mut Vec<Contact>,
    ) -> Result<(), ColliderError> {
        let gpu = &self.gpu;
        let start = Instant::now();
        let mut slot = self.profiler_slot();
        let mut run = GpuRun::with_kept(gpu, "ColliderGpu::chunks", kept_profiler(&mut slot, gpu)?);
        let mut submitted = Vec::with_capacity(chunks.len());
        let mut last = None;
        let mut plan_ms = 0.0;
        for (c, range) in chunks.iter().enumerate() {
            // The pairs this chunk's points lie in, planned and written
            // for its submission (the pairs before them are on the GPU);
            // with the last, every pair left (also those testing no
            // point), so that the plan is whole.
            let planning = Instant::now();
            let before = (planner.plan.tasks.len(), planner.plan.extra.len());
            let until = if c + 1 < chunks.len() {
                range.end as usize
            } else {
                usize::MAX
            };
            if let Err(e) = planner.plan_until(until) {
                // Submitted parts in flight: the run still ends its frame.
                let _ = run.finish();
                return Err(e);
            }
            self.write_plan(job.plan_buffers, &planner.plan, before);
            plan_ms += ms(planning);
            let points = (range.end - range.start) as usize;
            let copied = scratch
                .parts
                .get(c)
                .and_then(|p| p.last)
                .map_or(points, |n| n + n / 8 + super::EXPECTED_SLACK)
                .min(points);
            scratch.fit_part(gpu, c, copied);
            let span = Span {
                first_point: range.start,
                end: range.end,
                tasks: planner.plan.tasks.len() as u32,
                dims: dispatch_dims(groups_of(range)),
                summary: false,
            };
            let count_group = self.bind(job, scratch, 2 * c, span, PASS_COUNT);
            let write_group = self.bind(job, scratch, 2 * c + 1, span, PASS_WRITE);
            self.record_passes(
                &mut run,
                scratch,
                HEADER,
                span,
                (&count_group, Some(&write_group)),
            );
            let staging = &scratch.parts[c].buffer;
            run.encoder_work("counter", |e| {
                e.copy_buffer_to_buffer(&scratch.counter, 0, staging, 0, HEADER);
            });
            run.encoder_work("copy", |e| {
                e.copy_buffer_to_buffer(
                    &scratch.contacts,
                    u64::from(range.start) * RECORD,
                    staging,
                    HEADER,
                    copied as u64 * RECORD,
                );
            });
            if c + 1 < chunks.len() {
                submitted.push(Submitted {
                    range: range.clone(),
                    submission: run.submit_part(),
                    copied,
                });
            } else {
                last = Some((range.clone(), copied));
            }
        }
        // The last chunk goes with the timestamps' resolution and
        // read-back, which its wait then completes.
        let (submission, run) = run.submit_last()?;
        if let Some((range, copied)) = last {
            submitted.push(Submitted {
                range,
                submission,
                copied,
            });
        }
        let decoder = Decoder::new(&planner.plan, job.shapes);
        out.clear();
        let mut contacts_ms = ms(start) - plan_ms;
        let (mut readback_ms, mut convert_ms) = (0.0, 0.0);
        let mut total = 0;
        let read = || {
            for (c, part) in submitted.into_iter().enumerate() {
                let (count, waited_ms, decode_ms) =
                    self.read_chunk(scratch, c, part, &decoder, out)?;
                // The first chunk's wait is the kernels' latency; the
                // later ones' what the decodes did not hide.
                if c == 0 {
                    contacts_ms += waited_ms;
                } else {
                    readback_ms += waited_ms;
                }
                convert_ms += decode_ms;
                scratch.parts[c].last = Some(count);
                total += count;
            }
            Ok::<(), ColliderError>(())
        };
        // The run is finished even after an error, so that the kept
        // profiler ends its frame.
        let read = read();
        let finish = Instant::now();
        let finished = run.finish();
        read?;
        let (phases, _) = finished?;
        readback_ms += ms(finish);
        timings.push("upload", plan_ms, None);
        push_gpu_phases(timings, contacts_ms, &phases);
        timings.push("readback", readback_ms, None);
        timings.push("convert", convert_ms, None);
        scratch.last_count = Some(total);
        Ok(())
    }

    /// Chunk `c`'s contacts appended to `out`: its staging buffer mapped
    /// once its submission is done, the records decoded in place; if more
    /// came than were copied, all of them copied again into a grown
    /// staging buffer first. Returns the chunk's count, the time (ms)
    /// spent waiting and mapping, and the time decoding.
    fn read_chunk(
        &self,
        scratch: &mut Scratch,
        c: usize,
        part: Submitted,
        decoder: &Decoder<'_>,
        out: &mut Vec<Contact>,
    ) -> Result<(usize, f64, f64), ColliderError> {
        let gpu = &self.gpu;
        let wait = Instant::now();
        let decode = |bytes: &[u8], out: &mut Vec<Contact>| {
            let t = Instant::now();
            decoder.append_bytes(bytes, out).map(|()| ms(t))
        };
        let staging = &scratch.parts[c].buffer;
        let (header, waited_ms, decoded) = map_staging_after(
            gpu,
            staging,
            HEADER + part.copied as u64 * RECORD,
            "contacts",
            part.submission,
            |bytes| {
                let waited_ms = ms(wait);
                let header: [u32; SUMMARY_START as usize] =
                    bytemuck::pod_read_unaligned(&bytes[..HEADER as usize]);
                let count = header[0] as usize;
                let decoded = (header[1] == 0 && count <= part.copied).then(|| {
                    decode(
                        &bytes[HEADER as usize..HEADER as usize + count * RECORD as usize],
                        out,
                    )
                });
                (header, waited_ms, decoded)
            },
        )?;
        if header[1] != 0 {
            return Err(passes_disagree());
        }
        let count = header[0] as usize;
        let readback = |reason| crate::gpu::GpuError::Readback {
            what: "contacts".into(),
            reason,
        };
        if let Some(decoded) = decoded {
            return Ok((count, waited_ms, decoded.map_err(readback)?));
        }
        // More than expected: all the chunk's records copied again.
        let again = Instant::now();
        scratch.fit_part(gpu, c, count);
        let staging = &scratch.parts[c].buffer;
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("ColliderGpu::chunk readback"),
            });
        encoder.copy_buffer_to_buffer(
            &scratch.contacts,
            u64::from(part.range.start) * RECORD,
            staging,
            HEADER,
            count as u64 * RECORD,
        );
        let submission = gpu.queue.submit([encoder.finish()]);
        let (again_ms, decoded) = map_staging_after(
            gpu,
            staging,
            HEADER + count as u64 * RECORD,
            "contacts",
            submission,
            |bytes| (ms(again), decode(&bytes[HEADER as usize..], out)),
        )?;
        Ok((count, waited_ms + again_ms, decoded.map_err(readback)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The chunks cover the points once, in order, each starting at a
        /// workgroup boundary, none empty, about as many as asked for.
        #[test]
        fn chunks_cover_the_points_in_order_at_workgroup_boundaries(
            total in 0usize..200_000,
            min_points in 1usize..100_000,
            max_chunks in 1usize..12,
        ) {
            let ranges = Chunking { min_points, max_chunks }.ranges(total);
            let mut next = 0;
            for r in &ranges {
                prop_assert_eq!(r.start, next);
                prop_assert!(r.end > r.start && r.start % WORKGROUP == 0, "{:?}", r);
                next = r.end;
            }
            prop_assert_eq!(next as usize, total);
            // As many as `min_points` allows, at most `max_chunks` — or,
            // cut at workgroups, more than half of that.
            let wanted = (total / min_points)
                .clamp(1, max_chunks)
                .min(total.div_ceil(WORKGROUP as usize));
            prop_assert!(
                total == 0 || (ranges.len() <= wanted && 2 * ranges.len() > wanted),
                "{} chunks for {} points, {} wanted", ranges.len(), total, wanted
            );
        }
    }

    #[test]
    fn single_never_cuts_and_the_default_cuts_only_large_batches() {
        assert_eq!(Chunking::SINGLE.ranges(10_000_000).len(), 1);
        assert_eq!(Chunking::default().ranges(544_800).len(), 1);
        assert_eq!(Chunking::default().ranges(5_448_000).len(), 3);
        assert!(Chunking::default().ranges(0).is_empty());
    }
}
