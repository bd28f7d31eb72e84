//! GPU colliders: every task of every pair in one dispatch, contacts
//! written in the CPU reference's order. Shader: `shaders/collide.wgsl`.
//!
//! **Order on the GPU.** Each point makes at most one contact. The kernel
//! runs twice with the same code: the count pass stores how many contacts
//! each workgroup of points makes, one workgroup scans those counts into
//! offsets, and the write pass stores each contact at its workgroup's
//! offset plus its rank within the workgroup (a stable stream compaction,
//! Blelloch's scan-then-scatter; the rank and the count come from a
//! workgroup ballot, one bit per invocation, so each pass has two barriers).
//! The write pass checks its counts against the count pass's and the
//! detect fails if they differ. Points are numbered task by task, so the
//! contacts come out in (task, point) order — the CPU's — and two runs are
//! byte-identical. Records are compact ([`super::compact`], 16 bytes).
//!
//! **Where a detect's wall time goes** (its [`Timings`] phases, reported
//! by `bench collide`): `upload` (the plan: per-pair tasks and primitive
//! samples, written into their kept buffers; any growth of the kept
//! buffers), `contacts` (the uniforms, recording, the one submission —
//! count, scan and write passes with their GPU time, the counter's copy and the
//! records' copy to the staging buffer — and the wait; the copies' GPU
//! time is reported apart, as phase [`COPY_PHASE`]), `readback` (the
//! counter's map, and the records': one map of the used range) and
//! `convert` (records decoded into [`Contact`]s in place from the mapped
//! memory, already in order, on all cores, no sort).
//!
//! **One round trip.** The records are copied to the staging buffer in
//! the kernels' own submission, before their count is known: as many as
//! the last detect found and an eighth more
//! ([`Scratch::expected_contacts`]; all the room on the first). Only a
//! detect finding more than that copies the rest in a second submission.
//! [`ColliderGpu::summarize`] runs the count pass alone, adding each
//! contact to its pair's count and deepest depth with atomics, and reads
//! back 8 bytes a pair. The plan, record, counter, group and staging
//! buffers are kept between detects and only grow, so a run allocates no
//! GPU memory once warm, and so are the passes' uniforms and bind groups
//! ([`passes::KeptBind`]: remade only when a bound buffer changed); so is
//! the timestamp profiler ([`KeptProfiler`]: a profiler
//! per dispatch created a query set and two buffers each time). A caller
//! detecting every frame keeps its [`ContactSet`] too and detects into it
//! ([`ColliderGpu::detect_into`]), so the decode writes into memory
//! already mapped instead of a fresh 25 MB list (1000 pairs) whose first
//! touch faults pages on every core.
//!
//! **Chunks.** A large detect is cut into a few chunks of points, each in
//! its own submission, read back and decoded while the GPU runs the next
//! ([`chunked`], [`Chunking`]); what both paths share is in [`passes`].

use std::time::Instant;

use eframe::egui_wgpu::wgpu;

mod chunked;
mod passes;
mod planned;

pub use chunked::Chunking;
use passes::{Span, kept_profiler, passes_disagree, push_gpu_phases};
use planned::Planned;

use super::compact::{self, GpuContact};
use super::{
    Body, ColliderError, ColliderParams, ColliderShape, Contact, ContactSet, PairSummary, Planner,
    SummarySet, plan,
};
use crate::gpu::{
    BufferCheck, GpuContext, GpuError, GpuRun, KeptProfiler, KeptStorage, Kernels, dispatch_dims,
    map_staging_range, map_staging_with, shader_source, staging_buffer, storage_buffer_init,
    storage_buffer_zeroed,
};
use crate::stages::sampling::GpuSample;
use crate::timing::Timings;

/// `struct Params` of shaders/collide.wgsl (the layout is checked by
/// tests/it/shader_layouts.rs, like every mirrored type here).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Params {
    pub num_tasks: u32,
    pub total_threads: u32,
    pub capacity: u32,
    pub flags: u32,
    /// Workgroups dispatched (x · y).
    pub num_groups: u32,
    /// [`PASS_COUNT`] or [`PASS_WRITE`].
    pub pass_kind: u32,
    /// The dispatch's first point (a chunk's, `chunked`), and where its
    /// contacts start in the contacts buffer.
    pub first_point: u32,
    /// [`ColliderParams::contact_threshold`].
    pub contact_threshold: f32,
}
const _: () = assert!(std::mem::size_of::<Params>() == 32);

/// The kernel's pass storing each workgroup's contact count.
pub const PASS_COUNT: u32 = 0;
/// The kernel's pass writing each contact at its place.
pub const PASS_WRITE: u32 = 1;

/// `struct FieldInfo` of shaders/collide.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FieldInfo {
    pub origin: [f32; 3],
    pub cell_size: f32,
    pub dims: [u32; 3],
    pub offset: u32,
}
const _: () = assert!(std::mem::size_of::<FieldInfo>() == 32);

pub const WORKGROUP: u32 = 256;

/// The phase holding the GPU time of a dispatch's transfers (the
/// counter's clear, its copy and the records' copy to the staging
/// buffers). They run in the `contacts` phase's submission, so its wall
/// time is counted there and this phase's is 0.
pub const COPY_PHASE: &str = "copies";

/// The colliders' long-lived GPU objects.
pub struct ColliderGpu {
    gpu: GpuContext,
    kernels: Kernels,
    /// `contacts_main` (both passes) and `scan_groups`.
    contacts: wgpu::ComputePipeline,
    scan: wgpu::ComputePipeline,
    /// Output buffers of the last detect, reused by the next (the lock
    /// also keeps two detects from sharing them).
    scratch: std::sync::Mutex<Option<Scratch>>,
    /// The dispatches' timestamp queries, kept so that a warm dispatch
    /// creates no query set or buffers (created by the first).
    profiler: std::sync::Mutex<Option<KeptProfiler>>,
    /// When a detect is cut into chunks read back one by one.
    chunking: Chunking,
    /// The plan's buffers (tasks, primitive points), rewritten by every
    /// detect and kept, so that the kept bind groups stay valid.
    plan_room: std::sync::Mutex<[KeptStorage; 2]>,
}

/// First word of the per-pair summaries in the counter buffer (before
/// it: the contact count, the passes' disagreement flag, two unused).
pub const SUMMARY_START: u32 = 4;

/// Words of a counter buffer holding the summaries of `pairs` pairs.
fn counter_words(pairs: usize) -> usize {
    SUMMARY_START as usize + 2 * pairs
}

/// What a detect needs of the kept buffers: room for `contacts` records,
/// `groups` workgroups' counts and `pairs` summaries.
#[derive(Clone, Copy, Debug)]
struct Need {
    contacts: usize,
    groups: usize,
    pairs: usize,
}

/// A detect's output buffers, for [`Need`] `room`.
struct Scratch {
    room: Need,
    contacts: wgpu::Buffer,
    counter: wgpu::Buffer,
    /// Per workgroup: its count, then its offset.
    group_counts: wgpu::Buffer,
    count_staging: wgpu::Buffer,
    staging: wgpu::Buffer,
    /// Contacts the last detect found (`None` before the first).
    last_count: Option<usize>,
    /// The staging buffers of a chunked detect's chunks.
    parts: Vec<chunked::PartStaging>,
    /// The passes' uniforms and bind groups ([`passes::KeptBind`]), by
    /// slot: a single detect's count and write passes, then a chunk's.
    binds: Vec<Option<passes::KeptBind>>,
}

impl Scratch {
    /// `kept` if it has room for `need`, else new buffers with room for
    /// both (keeping its last count).
    fn fit(gpu: &GpuContext, kept: Option<Scratch>, need: Need) -> Result<Scratch, GpuError> {
        let (room, last_count, parts) = match kept {
            Some(s)
                if s.room.contacts >= need.contacts
                    && s.room.groups >= need.groups
                    && s.room.pairs >= need.pairs =>
            {
                return Ok(s);
            }
            Some(s) => (
                Need {
                    contacts: need.contacts.max(s.room.contacts),
                    groups: need.groups.max(s.room.groups),
                    pairs: need.pairs.max(s.room.pairs),
                },
                s.last_count,
                s.parts,
            ),
            None => (need, None, Vec::new()),
        };
        let bytes = (room.contacts * std::mem::size_of::<GpuContact>()) as u64;
        let counter = vec![0u32; counter_words(room.pairs)];
        let counter_bytes = (counter.len() * 4) as u64;
        Ok(Scratch {
            room,
            contacts: storage_buffer_zeroed(
                gpu,
                BufferCheck {
                    label: "ColliderGpu::contacts",
                    bytes,
                },
            )?,
            counter: storage_buffer_init(gpu, "ColliderGpu::counter", &counter)?,
            group_counts: storage_buffer_zeroed(
                gpu,
                BufferCheck {
                    label: "ColliderGpu::groups",
                    bytes: (2 * room.groups * std::mem::size_of::<u32>()) as u64,
                },
            )?,
            count_staging: staging_buffer(&gpu.device, "ColliderGpu::count", counter_bytes),
            staging: staging_buffer(&gpu.device, "ColliderGpu::contacts staging", bytes),
            last_count,
            parts,
            binds: Vec::new(),
        })
    }

    /// Records to copy to the staging buffer in the detect's own
    /// submission, before their count is known: the last detect's count
    /// and an eighth more (a frame's contacts change little from the
    /// last's), or the whole room on the first detect. A detect finding
    /// more copies the rest in a second submission.
    fn expected_contacts(&self) -> usize {
        self.last_count
            .map_or(self.room.contacts, |c| c + c / 8 + EXPECTED_SLACK)
            .min(self.room.contacts)
    }
}

/// Records copied beyond the expected count (see
/// [`Scratch::expected_contacts`]), for small counts that vary a lot.
const EXPECTED_SLACK: usize = 1024;

/// Shapes (fields and samples) uploaded once and reused by every detect.
pub struct ResidentShapes {
    samples: wgpu::Buffer,
    fields: wgpu::Buffer,
    values: wgpu::Buffer,
    shape_count: usize,
    sample_count: usize,
}

impl ResidentShapes {
    pub fn shape_count(&self) -> usize {
        self.shape_count
    }

    /// The samples, field descriptions and field values, for other
    /// kernels that read the shapes in place (the resident pipeline step).
    pub fn buffers(&self) -> [&wgpu::Buffer; 3] {
        [&self.samples, &self.fields, &self.values]
    }
}

impl ColliderGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "ColliderGpu", shader_source("collide.wgsl"));
        ColliderGpu {
            gpu: gpu.clone(),
            contacts: kernels.pipeline(gpu, "contacts_main"),
            scan: kernels.pipeline(gpu, "scan_groups"),
            kernels,
            scratch: std::sync::Mutex::new(None),
            profiler: std::sync::Mutex::new(None),
            chunking: Chunking::default(),
            plan_room: std::sync::Mutex::new([
                KeptStorage::new("ColliderGpu::tasks"),
                KeptStorage::new("ColliderGpu::extra"),
            ]),
        }
    }

    /// These colliders cutting large detects into chunks by `chunking`
    /// ([`Chunking::SINGLE`]: never).
    pub fn with_chunking(mut self, chunking: Chunking) -> Self {
        self.chunking = chunking;
        self
    }

    pub fn context(&self) -> &GpuContext {
        &self.gpu
    }

    /// Uploads the shapes' fields and samples.
    pub fn upload(&self, shapes: &[ColliderShape]) -> Result<ResidentShapes, ColliderError> {
        let samples: Vec<GpuSample> = shapes
            .iter()
            .flat_map(|s| s.samples.samples.iter().map(GpuSample::from))
            .collect();
        let mut samples = samples;
        // A binding must hold at least one element of its array type.
        if samples.is_empty() {
            samples.push(bytemuck::Zeroable::zeroed());
        }
        let sample_count = shapes.iter().map(|s| s.samples.samples.len()).sum();
        let mut values: Vec<f32> = Vec::new();
        let mut fields = Vec::with_capacity(shapes.len());
        for s in shapes {
            let g = &s.field.grid;
            fields.push(FieldInfo {
                origin: g.origin.to_array(),
                cell_size: g.cell_size,
                dims: g.dims.to_array(),
                offset: values.len() as u32,
            });
            values.extend_from_slice(&s.field.values);
        }
        if fields.is_empty() {
            fields.push(bytemuck::Zeroable::zeroed());
        }
        Ok(ResidentShapes {
            samples: storage_buffer_init(&self.gpu, "ColliderGpu::samples", &samples)?,
            fields: storage_buffer_init(&self.gpu, "ColliderGpu::fields", &fields)?,
            values: storage_buffer_init(&self.gpu, "ColliderGpu::values", &values)?,
            shape_count: shapes.len(),
            sample_count,
        })
    }

    /// Contacts of `pairs`, all in one dispatch. `resident` must hold
    /// `shapes` (same list, same order). A caller detecting again and
    /// again keeps its set and calls [`ColliderGpu::detect_into`].
    pub fn detect(
        &self,
        resident: &ResidentShapes,
        shapes: &[ColliderShape],
        bodies: &[Body],
        pairs: &[(usize, usize)],
        params: &ColliderParams,
    ) -> Result<ContactSet, ColliderError> {
        let mut set = ContactSet::default();
        self.detect_into(&mut set, resident, shapes, bodies, pairs, params)?;
        Ok(set)
    }

    /// [`ColliderGpu::detect`] into `set`, replacing what it held but
    /// keeping the allocation of its contacts: a caller detecting every
    /// frame decodes into memory it already owns (a fresh 25 MB list per
    /// detect costs page faults on every core, all contending for the
    /// process's memory map). After an error `set` holds no contacts.
    pub fn detect_into(
        &self,
        set: &mut ContactSet,
        resident: &ResidentShapes,
        shapes: &[ColliderShape],
        bodies: &[Body],
        pairs: &[(usize, usize)],
        params: &ColliderParams,
    ) -> Result<(), ColliderError> {
        puffin::profile_function!();
        set.contacts.clear();
        let gpu = &self.gpu;
        let mut timings = Timings::default();
        let upload_start = Instant::now();
        Self::check_resident(resident, shapes)?;
        // A chunked detect plans its pairs a chunk at a time, each chunk's
        // submitted before the next is planned; the extent (counted
        // without building the plan) cuts the chunks and sizes the buffers.
        let mut planner = Planner::new(shapes, bodies, pairs, params)?;
        let extent = planner.extent()?;
        let max_contacts = self.max_contacts();
        let total = extent.points;
        let mut kept = self
            .scratch
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let chunks = self.chunking.ranges(total);
        // A chunk's contacts start at its first point's place: the
        // chunked path needs room for one per point.
        let chunked = chunks.len() > 1 && total <= max_contacts;
        let detected = if chunked {
            let need = Need {
                contacts: total,
                groups: chunks
                    .iter()
                    .map(|r| {
                        let (x, y) = dispatch_dims(chunked::groups_of(r));
                        (x * y) as usize
                    })
                    .max()
                    .unwrap_or(1),
                pairs: 0,
            };
            let scratch = Scratch::fit(gpu, kept.take(), need)?;
            let scratch = kept.insert(scratch);
            let buffers = self.plan_room(extent)?;
            let job = Job {
                plan_buffers: &buffers,
                params,
                resident,
                shapes,
            };
            timings.push("upload", upload_start.elapsed().as_secs_f64() * 1e3, None);
            self.detect_chunked(
                &job,
                &mut planner,
                &chunks,
                scratch,
                &mut timings,
                &mut set.contacts,
            )
        } else {
            let planned = self.planned(planner.finish()?, pairs.len())?;
            let job = Job {
                plan_buffers: &planned.buffers,
                params,
                resident,
                shapes,
            };
            self.detect_whole(
                &job,
                &planned,
                &mut kept,
                upload_start,
                &mut timings,
                &mut set.contacts,
            )
        };
        drop(kept);
        if let Err(e) = detected {
            set.contacts.clear();
            return Err(e);
        }
        set.tasks = extent.tasks;
        set.tests = total;
        set.chunks = if chunked { chunks.len() } else { 1 };
        set.timings = timings;
        Ok(())
    }

    /// Most records one storage binding holds.
    fn max_contacts(&self) -> usize {
        (self.gpu.device.limits().max_storage_buffer_binding_size
            / std::mem::size_of::<GpuContact>() as u64) as usize
    }

    /// The detect of `job` in one submission (and a second copy if more
    /// contacts came than expected): its phases after `upload_start`
    /// pushed to `timings`, its contacts decoded into `out`. Room for a
    /// quarter of the points first (or what the kept buffers hold); the
    /// write pass skips contacts past the end, so an overflow is re-run
    /// once with the exact size.
    fn detect_whole(
        &self,
        job: &Job<'_>,
        planned: &Planned,
        kept: &mut Option<Scratch>,
        upload_start: Instant,
        timings: &mut Timings,
        out: &mut Vec<Contact>,
    ) -> Result<(), ColliderError> {
        let gpu = &self.gpu;
        let max_contacts = self.max_contacts();
        let total = planned.plan.total_threads;
        let mut need = Need {
            contacts: (total / 4)
                .max(1 << 14)
                .min(total)
                .clamp(1, max_contacts.max(1)),
            groups: planned.groups(),
            pairs: 0,
        };
        let mut scratch = Scratch::fit(gpu, kept.take(), need)?;
        timings.push("upload", upload_start.elapsed().as_secs_f64() * 1e3, None);
        let (count, copied, counter_ms) = loop {
            let copy = scratch.expected_contacts();
            let (counter, counter_ms) =
                self.dispatch(job, planned, &mut scratch, Some(copy), timings)?;
            let count = counter[0] as usize;
            if count <= scratch.room.contacts {
                break (count, copy, counter_ms);
            }
            if count > max_contacts {
                gpu.check_storage_size(
                    "ColliderGpu::contacts",
                    (count * std::mem::size_of::<GpuContact>()) as u64,
                )?;
            }
            // Grown to the exact count and run again, copying all its
            // contacts in its own submission (a second `upload` and
            // `contacts` phase).
            let grow = Instant::now();
            need.contacts = count;
            scratch.last_count = Some(count);
            scratch = Scratch::fit(gpu, Some(scratch), need)?;
            timings.push("upload", grow.elapsed().as_secs_f64() * 1e3, None);
        };
        scratch.last_count = Some(count);
        let scratch = kept.insert(scratch);
        self.read_contacts(
            scratch,
            Copied {
                count,
                copied,
                counter_ms,
            },
            &planned.plan,
            job.shapes,
            timings,
            out,
        )
    }

    /// The `count` contacts of the last dispatch, the first `copied` of
    /// which its submission copied to the staging buffer: the rest copied
    /// now (a second submission, only when the expected count was low),
    /// the used range mapped once and decoded in place from the mapped
    /// memory into `out`. Phases: `readback` (the counter's map,
    /// `counter_ms`, and the records' copy and map) and `convert`.
    fn read_contacts(
        &self,
        scratch: &Scratch,
        Copied {
            count,
            copied,
            counter_ms,
        }: Copied,
        plan: &super::Plan,
        shapes: &[ColliderShape],
        timings: &mut Timings,
        out: &mut Vec<Contact>,
    ) -> Result<(), ColliderError> {
        let gpu = &self.gpu;
        if count == 0 {
            timings.push("readback", counter_ms, None);
            out.clear();
            return Ok(());
        }
        let readback = Instant::now();
        let record = std::mem::size_of::<GpuContact>() as u64;
        if count > copied {
            let mut encoder = gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("ColliderGpu::readback"),
                });
            let from = copied as u64 * record;
            encoder.copy_buffer_to_buffer(
                &scratch.contacts,
                from,
                &scratch.staging,
                from,
                (count - copied) as u64 * record,
            );
            gpu.queue.submit([encoder.finish()]);
        }
        let decoded = map_staging_with(
            gpu,
            &scratch.staging,
            count as u64 * record,
            "contacts",
            |bytes| {
                let readback_ms = readback.elapsed().as_secs_f64() * 1e3;
                timings.push("readback", counter_ms + readback_ms, None);
                let convert = Instant::now();
                out.clear();
                let decoded = compact::Decoder::new(plan, shapes).append_bytes(bytes, out);
                timings.push("convert", convert.elapsed().as_secs_f64() * 1e3, None);
                decoded
            },
        )?;
        decoded.map_err(|reason| {
            GpuError::Readback {
                what: "contacts".into(),
                reason,
            }
            .into()
        })
    }

    /// Per-pair summaries of the contacts of `pairs` (how many, the
    /// deepest), reduced on the GPU by the count pass alone: no contact
    /// is written or read back, only `8 · pairs` bytes. Pairs are counted
    /// apart, also when the list names one twice.
    pub fn summarize(
        &self,
        resident: &ResidentShapes,
        shapes: &[ColliderShape],
        bodies: &[Body],
        pairs: &[(usize, usize)],
        params: &ColliderParams,
    ) -> Result<SummarySet, ColliderError> {
        puffin::profile_function!();
        let mut timings = Timings::default();
        let upload_start = Instant::now();
        Self::check_resident(resident, shapes)?;
        let planned = self.planned(plan(shapes, bodies, pairs, params)?, pairs.len())?;
        let mut kept = self
            .scratch
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let need = Need {
            contacts: 1,
            groups: planned.groups(),
            pairs: pairs.len(),
        };
        let fitted = Scratch::fit(&self.gpu, kept.take(), need)?;
        let scratch = kept.insert(fitted);
        timings.push("upload", upload_start.elapsed().as_secs_f64() * 1e3, None);
        let job = Job {
            plan_buffers: &planned.buffers,
            params,
            resident,
            shapes,
        };
        let (counter, readback_ms) = self.dispatch(&job, &planned, scratch, None, &mut timings)?;
        drop(kept);
        timings.push("readback", readback_ms, None);
        let convert = Instant::now();
        let summaries = counter[SUMMARY_START as usize..]
            .chunks_exact(2)
            .map(|w| PairSummary {
                contacts: w[0],
                deepest: f32::from_bits(w[1]),
            })
            .collect();
        timings.push("convert", convert.elapsed().as_secs_f64() * 1e3, None);
        Ok(SummarySet {
            pairs: summaries,
            tasks: planned.plan.tasks.len(),
            tests: planned.plan.total_threads,
            timings,
        })
    }

    /// One submission: the counter cleared, the count pass, and unless
    /// `copy` is `None` (summaries) the scan and write passes with room
    /// for `scratch.room.contacts` contacts and the first `copy` of them
    /// copied to the staging buffer; then the counter read back (its
    /// `SUMMARY_START` words, and for summaries the pairs' summaries).
    /// Its first word is the number of contacts found, which may exceed
    /// the room. Phase `contacts`: everything up to the GPU's end (bind
    /// groups, recording, submission, the kernels with their GPU time, the
    /// wait). Also returns the counter's map time (ms), which the caller
    /// counts as read-back.
    fn dispatch(
        &self,
        job: &Job<'_>,
        planned: &Planned,
        scratch: &mut Scratch,
        copy: Option<usize>,
        timings: &mut Timings,
    ) -> Result<(Vec<u32>, f64), ColliderError> {
        let start = Instant::now();
        let summary = copy.is_none();
        let gpu = &self.gpu;
        let plan = &planned.plan;
        let span = Span {
            first_point: 0,
            end: plan.total_threads as u32,
            tasks: plan.tasks.len() as u32,
            dims: planned.dims,
            summary,
        };
        let count_group = self.bind(job, scratch, 0, span, PASS_COUNT);
        let write_group = (!summary).then(|| self.bind(job, scratch, 1, span, PASS_WRITE));
        let counter_bytes = (counter_words(if summary { planned.pairs } else { 0 }) * 4) as u64;
        let mut slot = self.profiler_slot();
        let mut run =
            GpuRun::with_kept(gpu, "ColliderGpu::encoder", kept_profiler(&mut slot, gpu)?);
        self.record_passes(
            &mut run,
            scratch,
            counter_bytes,
            span,
            (&count_group, write_group.as_ref()),
        );
        run.encoder_work("counter", |e| {
            e.copy_buffer_to_buffer(
                &scratch.counter,
                0,
                &scratch.count_staging,
                0,
                counter_bytes,
            );
        });
        let copy_bytes = (copy.unwrap_or(0) * std::mem::size_of::<GpuContact>()) as u64;
        if copy_bytes > 0 && plan.total_threads > 0 {
            run.encoder_work("copy", |e| {
                e.copy_buffer_to_buffer(&scratch.contacts, 0, &scratch.staging, 0, copy_bytes);
            });
        }
        let (phases, _) = run.finish()?;
        push_gpu_phases(timings, start.elapsed().as_secs_f64() * 1e3, &phases);
        let readback = Instant::now();
        let counter =
            map_staging_range::<u32>(gpu, &scratch.count_staging, counter_bytes, "contact count")?;
        let readback_ms = readback.elapsed().as_secs_f64() * 1e3;
        if counter[1] != 0 {
            return Err(passes_disagree());
        }
        Ok((counter, readback_ms))
    }
}

/// How many contacts a dispatch found, how many of them its submission
/// copied to the staging buffer, and the time (ms) its counter's map took.
#[derive(Clone, Copy)]
struct Copied {
    count: usize,
    copied: usize,
    counter_ms: f64,
}

/// What a detect's passes bind: its plan's buffers (tasks, primitive
/// points), parameters and shapes.
struct Job<'a> {
    plan_buffers: &'a [wgpu::Buffer; 2],
    params: &'a ColliderParams,
    resident: &'a ResidentShapes,
    shapes: &'a [ColliderShape],
}
