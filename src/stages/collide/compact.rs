//! The compact contact record the GPU writes and the host reads back, and
//! its decoding into [`Contact`]s.
//!
//! A [`Contact`] holds 44 bytes, most of which the host knows already: the
//! GPU writes its contacts in (task, point) order (`shaders/collide.wgsl`,
//! a stable compaction), so a record needs only the global index of its
//! point, from which the plan gives the task (bodies, target) and the
//! sample (feature kind, index, object-frame position). What is left is
//! the depth, the cell-centre depth and the normal, octahedral-encoded in
//! two 16-bit snorms ([`super::octahedral`]): 16 bytes a contact instead
//! of 64. The position is recomputed on the host from the sample and the
//! pose with the CPU reference's arithmetic, so it is the CPU's bit for
//! bit.
//!
//! The decode runs on all cores, each job over a range of records: the
//! normals of a block of records first, several lanes an instruction
//! ([`super::octahedral::decode_block`]), then each record's task, sample
//! and position, the whole loop compiled with the record's decode inlined
//! ([`DecodeRecord`]). A block at a time lets the normals' decode use
//! several lanes an instruction and keeps the per-record work inlined;
//! decoding normals one by one through a closure called per record was
//! slower. The records are independent, so the decode scales with the
//! cores until memory traffic bounds it ([`super::streamed`]). Finding a
//! whole block's tasks and samples before decoding any of its records (so
//! that the samples' loads are in flight together) was tried and gained
//! nothing measurable. The measurements are in
//! `docs/bench/design-measurements.md`.

use glam::{Mat4, Vec3};

use std::mem::MaybeUninit;

use super::cpu::transform;
use super::octahedral::{self, BLOCK, ZERO_NORMAL};
use super::streamed;
use super::{ColliderShape, Contact, Plan, TASK_SEGMENT_FIELD, sample_starts};
use crate::stages::sampling::{FeatureKind, Sample};
use crate::stages::sdf::GridSpec;

/// `struct Contact` of shaders/collide.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuContact {
    /// Global point index: the task's `thread_start` plus the point's index
    /// within the task.
    pub point: u32,
    pub depth: f32,
    /// The bits of `depth_cell`; for a segment task (whose two depths are
    /// equal) the linear index of the contact's cell.
    pub aux: u32,
    /// The normal, `octahedral`'s code.
    pub normal: u32,
}
const _: () = assert!(std::mem::size_of::<GpuContact>() == 16);

/// What decoding needs of one task, gathered once per detect.
struct TaskView<'a> {
    world_from_a: Mat4,
    world_from_b: Mat4,
    body: u32,
    other: u32,
    /// The points the task tests (empty for a segment).
    samples: &'a [Sample],
    /// The field's grid, for a segment task.
    segment: Option<&'a GridSpec>,
}

impl TaskView<'_> {
    /// The contact of `record`, the `k`-th point of this task, whose
    /// normal decodes to `normal`.
    #[inline(always)]
    fn contact(&self, record: &GpuContact, k: u32, normal: Vec3) -> Option<Contact> {
        if let Some(grid) = self.segment {
            let cell = record.aux as usize;
            return (cell < grid.num_cells()).then(|| Contact {
                position: transform(&self.world_from_b, grid.center_of(cell)),
                normal,
                depth: record.depth,
                depth_cell: record.depth,
                body: self.body,
                other: self.other,
                feature: FeatureKind::Cell,
                sample: 0,
            });
        }
        let sample = self.samples.get(k as usize)?;
        Some(Contact {
            position: transform(&self.world_from_a, sample.position),
            normal,
            depth: record.depth,
            depth_cell: f32::from_bits(record.aux),
            body: self.body,
            other: self.other,
            feature: sample.kind,
            sample: k,
        })
    }
}

/// Finds the task of a global point index. The tasks' point ranges are
/// contiguous and ascending (`thread_start` is their running total), so
/// the task holding a point is the last one starting at or before it; a
/// walk remembers the last task found and, as records come in point
/// order, searches (binary, over the tasks' first points) only when a
/// record leaves it — at a task boundary, not per record.
#[derive(Clone)]
struct TaskWalk<'a> {
    /// First point of each task.
    starts: &'a [u32],
    /// Points of each task.
    counts: &'a [u32],
    current: usize,
}

impl<'a> TaskWalk<'a> {
    fn new(starts: &'a [u32], counts: &'a [u32]) -> Self {
        TaskWalk {
            starts,
            counts,
            current: 0,
        }
    }

    /// `k` if `point` is the `k`-th point of task `t`.
    fn within(&self, t: usize, point: u32) -> Option<u32> {
        let k = point.checked_sub(*self.starts.get(t)?)?;
        (k < self.counts[t]).then_some(k)
    }

    /// The task holding `point` and the point's index in it, or `None`
    /// when no task holds it.
    fn task_of(&mut self, point: u32) -> Option<(usize, u32)> {
        if let Some(k) = self.within(self.current, point) {
            return Some((self.current, k));
        }
        let t = find_task(self.starts, point)?;
        self.current = t;
        Some((t, self.within(t, point)?))
    }
}

/// The last task starting at or before `point` (tasks without points
/// start where the next one does, so this skips them).
fn find_task(starts: &[u32], point: u32) -> Option<usize> {
    starts.partition_point(|&s| s <= point).checked_sub(1)
}

/// Fewest records one rayon job decodes: enough to hide the job's
/// overhead (a few microseconds).
const MIN_CHUNK: usize = 1024;

/// Most records one rayon job decodes.
const MAX_CHUNK: usize = 8192;

/// Records per rayon job for `records` records: about four jobs a thread,
/// so that the last round leaves few cores idle. A fixed 8,192 gave a
/// chunked detect's part of ~140 K records 18 jobs, so on 16 threads a
/// second round in which two cores worked and fourteen waited (as in
/// `bench collide`'s `convert` at 1000 pairs).
fn job_size(records: usize) -> usize {
    records
        .div_ceil(4 * rayon::current_num_threads())
        .clamp(MIN_CHUNK, MAX_CHUNK)
}

/// The ordinary store: a `store` of [`decode_chunked`].
fn write<T>(slot: &mut MaybeUninit<T>, value: T) {
    slot.write(value);
}

/// One record's decoding, the work of [`decode_chunked`]'s inner loop (a
/// trait, not a closure, so that the loop is compiled with it inlined).
trait DecodeRecord: Sync {
    type Out: Send;
    /// The record whose normal decodes to `normal`; `None` when it names
    /// no point of the plan. `walk` finds its task.
    fn decode(
        &self,
        walk: &mut TaskWalk<'_>,
        record: &GpuContact,
        normal: Vec3,
    ) -> Option<Self::Out>;
}

/// `decoder`'s decode of every record and its decoded normal, in order, on all
/// cores, appended to `out` (whose old contents stay; on an error nothing
/// is appended): the records are cut into chunks of `chunk`, each decoded
/// by one job — the normals of [`BLOCK`] records at a time
/// ([`octahedral::decode_block`]), then the records one by one — into
/// its own range of the output — written in place by `store`, so that a
/// fresh allocation's pages are first touched by the threads that fill
/// them, and a reused one (a caller detecting every frame) is not touched
/// by the allocator at all — with a [`TaskWalk`] of its own. Each job ends
/// with [`streamed::fence`], for a `store` that writes past the cache. The
/// first error wins.
fn decode_chunked<D: DecodeRecord>(
    records: &[GpuContact],
    chunk: usize,
    walk: &TaskWalk<'_>,
    decoder: &D,
    store: impl Fn(&mut MaybeUninit<D::Out>, D::Out) + Sync,
    out: &mut Vec<D::Out>,
) -> Result<(), String> {
    use rayon::prelude::*;
    let base = out.len();
    out.reserve(records.len());
    records
        .par_chunks(chunk)
        .zip(out.spare_capacity_mut()[..records.len()].par_chunks_mut(chunk))
        .try_for_each(|(records, slots)| {
            let mut walk = walk.clone();
            let mut decode_job = || {
                for (records, slots) in records.chunks(BLOCK).zip(slots.chunks_mut(BLOCK)) {
                    let mut codes = [ZERO_NORMAL; BLOCK];
                    for (code, record) in codes.iter_mut().zip(records) {
                        *code = record.normal;
                    }
                    let [x, y, z] = octahedral::decode_block(&codes);
                    for (i, (record, slot)) in records.iter().zip(slots).enumerate() {
                        let normal = Vec3::new(x[i], y[i], z[i]);
                        let Some(decoded) = decoder.decode(&mut walk, record, normal) else {
                            return Err(format!("record {record:?} names no point of the plan"));
                        };
                        store(slot, decoded);
                    }
                }
                Ok(())
            };
            let decoded = decode_job();
            streamed::fence();
            decoded
        })?;
    // SAFETY: the chunks of `records` and of the first `records.len()`
    // spare slots have the same lengths, so every slot was written by the
    // loop above (it returns early only on an error, and then we return
    // too, leaving the length as it was).
    unsafe { out.set_len(base + records.len()) };
    Ok(())
}

/// What decoding needs of a plan, gathered once per detect: per task its
/// first point, its point count and its [`TaskView`]. A detect whose
/// records come back in several parts ([`super::gpu`]'s chunked path)
/// decodes each part with the same decoder as it arrives.
pub(super) struct Decoder<'a> {
    first_points: Vec<u32>,
    counts: Vec<u32>,
    views: Vec<TaskView<'a>>,
}

impl<'a> Decoder<'a> {
    /// Per task, once: its poses and its points.
    pub(super) fn new(plan: &'a Plan, shapes: &'a [ColliderShape]) -> Self {
        let starts = sample_starts(shapes);
        let all_samples = |start: u32, count: u32| -> &'a [Sample] {
            let i = start as usize;
            let shape = starts.partition_point(|&s| s as usize <= i).wrapping_sub(1);
            shapes
                .get(shape)
                .and_then(|s| {
                    let local = i - starts[shape] as usize;
                    s.samples.samples.get(local..local + count as usize)
                })
                .unwrap_or(&[])
        };
        let views = plan
            .tasks
            .iter()
            .map(|t| TaskView {
                world_from_a: t.world_from_a(),
                world_from_b: t.world_from_b(),
                body: t.body,
                other: t.other,
                samples: match (t.kind, t.extra) {
                    (TASK_SEGMENT_FIELD, _) => &[],
                    (_, 1) => plan
                        .extra
                        .get(t.sample_start as usize..(t.sample_start + t.sample_count) as usize)
                        .unwrap_or(&[]),
                    _ => all_samples(t.sample_start, t.sample_count),
                },
                segment: (t.kind == TASK_SEGMENT_FIELD)
                    .then(|| shapes.get(t.field as usize).map(|s| &s.field.grid))
                    .flatten(),
            })
            .collect();
        Decoder {
            first_points: plan.tasks.iter().map(|t| t.thread_start).collect(),
            counts: plan.tasks.iter().map(|t| t.sample_count).collect(),
            views,
        }
    }

    /// The contacts of `records` (any order in, the same order out)
    /// appended to `out`; all cores. Per record: its task by a
    /// [`TaskWalk`] (a range check, a search only at a task boundary), its
    /// sample by index and its position by one transform.
    pub(super) fn append(
        &self,
        records: &[GpuContact],
        out: &mut Vec<Contact>,
    ) -> Result<(), String> {
        let walk = TaskWalk::new(&self.first_points, &self.counts);
        let job = job_size(records.len());
        // Two instances of the loop, each with its store inlined.
        if records.len() >= streamed::STREAM_MIN {
            decode_chunked(records, job, &walk, self, streamed::store, out)
        } else {
            decode_chunked(records, job, &walk, self, write, out)
        }
    }

    /// [`Decoder::append`] of the records in `bytes` (mapped memory).
    /// Mapped ranges are aligned for any record type; this copies only if
    /// a backend ever maps one that is not.
    pub(super) fn append_bytes(&self, bytes: &[u8], out: &mut Vec<Contact>) -> Result<(), String> {
        match bytemuck::try_cast_slice::<u8, GpuContact>(bytes) {
            Ok(records) => self.append(records, out),
            Err(_) => self.append(&bytemuck::pod_collect_to_vec(bytes), out),
        }
    }
}

impl DecodeRecord for Decoder<'_> {
    type Out = Contact;

    #[inline(always)]
    fn decode(
        &self,
        walk: &mut TaskWalk<'_>,
        record: &GpuContact,
        normal: Vec3,
    ) -> Option<Contact> {
        let (t, k) = walk.task_of(record.point)?;
        self.views[t].contact(record, k, normal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Decodes a record to its task and its point's index in it.
    struct TaskOf;

    impl DecodeRecord for TaskOf {
        type Out = (usize, u32);

        fn decode(
            &self,
            walk: &mut TaskWalk<'_>,
            record: &GpuContact,
            _: Vec3,
        ) -> Option<(usize, u32)> {
            walk.task_of(record.point)
        }
    }

    /// Tasks' first points from their point counts.
    fn starts_of(counts: &[u32]) -> Vec<u32> {
        counts
            .iter()
            .scan(0, |acc, &c| {
                let s = *acc;
                *acc += c;
                Some(s)
            })
            .collect()
    }

    /// The straightforward decode: a search per record.
    fn task_by_search(starts: &[u32], counts: &[u32], point: u32) -> Option<(usize, u32)> {
        let t = find_task(starts, point)?;
        let k = point - starts[t];
        (k < counts[t]).then_some((t, k))
    }

    fn record(point: u32) -> GpuContact {
        GpuContact {
            point,
            depth: 0.0,
            aux: 0,
            normal: ZERO_NORMAL,
        }
    }

    /// Random plans (no task, one, many; tasks without points among
    /// them), points kept at random in order — or shuffled, or with points
    /// past the last task — and random chunk sizes: the chunked walk finds
    /// what a search per record finds.
    fn plans() -> impl Strategy<Value = (Vec<u32>, Vec<u32>, usize)> {
        (
            prop::collection::vec(prop_oneof![Just(0u32), 1u32..40], 0..30),
            prop::collection::vec(any::<u8>(), 0..600),
            1usize..50,
            any::<bool>(),
        )
            .prop_map(|(counts, picks, chunk, shuffle)| {
                let total: u32 = counts.iter().sum();
                // Every point of the plan kept with probability 1/2, plus a
                // few past the end when `picks` says so.
                let mut points: Vec<u32> = (0..total + 3)
                    .zip(picks.iter().cycle())
                    .filter(|&(p, &b)| b % 2 == 0 && (p < total || b % 7 == 0))
                    .map(|(p, _)| p)
                    .collect();
                if shuffle {
                    points.reverse();
                    let half = points.len() / 2;
                    points.rotate_left(half);
                }
                (counts, points, chunk)
            })
    }

    proptest! {
        #[test]
        fn chunked_walk_finds_the_tasks_a_search_finds(
            (counts, points, chunk) in plans(),
            leftover in 0usize..700,
        ) {
            let starts = starts_of(&counts);
            let records: Vec<GpuContact> = points.iter().map(|&p| record(p)).collect();
            let walk = TaskWalk::new(&starts, &counts);
            // Into an output holding leftovers of another size, as a
            // caller reusing its set across detects would pass.
            // Appended to an output holding leftovers of another size, as
            // the chunked read-back appends part after part.
            let mut out = vec![(usize::MAX, 0); leftover];
            let walked = decode_chunked(&records, chunk, &walk, &TaskOf, write, &mut out).map(|()| {
                prop_assert!(out[..leftover].iter().all(|&x| x == (usize::MAX, 0)));
                Ok(out.split_off(leftover))
            });
            let walked = match walked {
                Ok(w) => Ok(w?),
                Err(e) => {
                    prop_assert_eq!(out.len(), leftover, "a failed decode appended");
                    Err(e)
                }
            };
            let searched: Result<Vec<_>, String> = points
                .iter()
                .map(|&p| task_by_search(&starts, &counts, p).ok_or_else(|| format!("{p}")))
                .collect();
            match (&walked, &searched) {
                (Ok(w), Ok(s)) => prop_assert_eq!(w, s),
                (Err(_), Err(_)) => {}
                _ => prop_assert!(false, "walk {walked:?}, search {searched:?}"),
            }
        }
    }

    #[test]
    fn decode_jobs_are_about_four_a_thread_within_their_bounds() {
        let threads = rayon::current_num_threads();
        assert_eq!(job_size(0), MIN_CHUNK);
        assert_eq!(job_size(10), MIN_CHUNK);
        assert_eq!(job_size(usize::MAX / 2), MAX_CHUNK);
        let per_job = 2000;
        assert_eq!(job_size(4 * threads * per_job), per_job);
        assert_eq!(job_size(4 * threads * per_job + 1), per_job + 1);
    }

    #[test]
    fn walk_skips_empty_tasks_and_rejects_points_past_the_end() {
        let counts = [0, 3, 0, 0, 2, 0];
        let starts = starts_of(&counts);
        let mut walk = TaskWalk::new(&starts, &counts);
        let found: Vec<_> = (0..6).map(|p| walk.task_of(p)).collect();
        assert_eq!(
            found,
            [
                Some((1, 0)),
                Some((1, 1)),
                Some((1, 2)),
                Some((4, 0)),
                Some((4, 1)),
                None
            ]
        );
        let records: Vec<GpuContact> = [0, 4, 5].map(record).to_vec();
        let mut out = vec![(9, 9); 7];
        let err = decode_chunked(&records, 2, &walk, &TaskOf, write, &mut out).unwrap_err();
        assert_eq!(
            err,
            format!("record {:?} names no point of the plan", record(5))
        );
        assert_eq!(out, vec![(9, 9); 7], "a failed decode appended");
    }
}
