//! The whole step on the GPU with the bodies resident
//! (`shaders/simulate_step.wgsl`): poses, velocities and masses live in a
//! GPU buffer between frames, and a frame — every substep's gravity, broad
//! phase, narrow phase, contact preparation, solver sweeps and integration,
//! then the frame's summary — is recorded into one command encoder and
//! submitted once, with nothing read back inside it. Dispatch sizes that
//! depend on the pairs and contacts found come from indirect arguments the
//! GPU writes itself.
//!
//! # The solver: Jacobi impulses with mass splitting
//!
//! The CPU path's sequential impulses (Catto; [`crate::sim::collide`]) visit
//! the contacts one after another, each seeing the velocities the previous
//! one left — sequential by nature. Here every contact row is one
//! invocation: in a sweep each row computes its accumulated, clamped normal
//! impulse (the same target as the CPU rows: restitution or Baumgarte
//! correction, whichever is larger) and its Coulomb friction impulse from
//! the velocities at the sweep's start, and the velocity changes are summed
//! per body; then each body applies its sum. A plain Jacobi sum would
//! overshoot by the number of contacts a body has — a box resting on the
//! ground has dozens of sample contacts, each of which alone would stop it.
//! Mass splitting (Tonge, Benevolenski & Voroshilov 2012, "Mass splitting
//! for jitter-free parallel rigid body simulation") removes that: a body
//! touched by `n` rows is split into `n` sub-bodies of mass `m/n`, each row
//! sees its sub-body (inverse mass and inertia times `n`), and averaging
//! the sub-bodies' velocities after the sweep is the body's velocity plus
//! the plain sum of the rows' impulses over `m`. The sweep converges to the
//! same solution as Gauss–Seidel, more slowly; the defaults give the GPU
//! solver more sweeps. Impulses rather than position-based dynamics for the
//! CPU path's reason (the field contacts are exactly a velocity solver's
//! rows; accumulated clamped impulses give static friction and stable
//! stacks).
//!
//! After the sweeps the bodies move, and as many relaxing sweeps aim at
//! the restitution alone, taking position correction's velocity back out
//! (the CPU path's [`crate::sim::collide::relax_contacts`]); every tolerance
//! is relative to the bodies' size, as there.
//!
//! The per-body sums are 32-bit fixed-point atomics in units of the
//! substep's speed bound (the largest relative plus target speed of any
//! row, over 2²⁷; angular changes times the body's size), so a drop at
//! 10 km/s sums as exactly as a body at rest, and a 1 µm body's spin as a
//! 1 m body's: WebGPU has no float atomics, and integer addition is associative, so a
//! frame's result does not depend on the order the invocations ran in — the
//! step is deterministic although pairs and contacts are appended in any
//! order. No warm starting: a contact row lives for one substep.
//!
//! # What comes back
//!
//! Each frame's [`GpuSummary`] (pairs, contacts, energy, deepest
//! penetration) goes through a ring of staging buffers mapped without
//! waiting ([`ring`]). Poses come back only when asked
//! ([`ResidentStep::read_bodies`]), or batched with the frames
//! ([`ResidentStep::frame`]'s `states` argument). Pairs and contacts that
//! overflow their buffers are dropped for that frame and counted in the
//! summary; [`ResidentStep::grow`] makes room.

pub mod layout;
pub mod ring;

use std::time::Instant;

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::broad::{BroadGpu, BroadParams};
use crate::gpu::{
    BufferCheck, GpuContext, GpuError, GpuRun, Kernels, dispatch_dims, map_staging, shader_source,
    staging_buffer, storage_buffer_init, storage_buffer_zeroed,
};
use crate::stages::collide::ResidentShapes;
use crate::timing::Timings;
use layout::{ACCUM, GpuBody, GpuRow, GpuShape, GpuSummary, StepParams};
use ring::SummaryRing;

/// The phases of a frame, as the timings name them.
pub const PHASES: [&str; 5] = ["broad", "narrow", "solve", "integrate", "summary"];

/// What one frame of the resident step is asked to do.
#[derive(Clone, Copy, Debug)]
pub struct FrameRequest {
    pub params: StepParams,
    pub substeps: u32,
    pub iterations: u32,
    /// Time each phase with timestamp queries and wait for the frame (the
    /// bench, the viewer's profiler); otherwise submit and return.
    pub timed: bool,
}

/// A batch of frames' body states and summaries copied into one staging
/// buffer, mapped once ([`ResidentStep::read_batch`]).
pub struct StateBatch {
    staging: wgpu::Buffer,
    frames: usize,
    used: usize,
    body_bytes: u64,
}

impl StateBatch {
    fn stride(&self) -> u64 {
        self.body_bytes + SUMMARY_BYTES
    }
}

const SUMMARY_BYTES: u64 = std::mem::size_of::<GpuSummary>() as u64;

struct Pipelines {
    begin: wgpu::ComputePipeline,
    narrow_args: wgpu::ComputePipeline,
    narrow: wgpu::ComputePipeline,
    rows_args: wgpu::ComputePipeline,
    prepare: wgpu::ComputePipeline,
    solve: wgpu::ComputePipeline,
    relax: wgpu::ComputePipeline,
    apply: wgpu::ComputePipeline,
    integrate: wgpu::ComputePipeline,
    summary: wgpu::ComputePipeline,
}

/// The buffers whose size is fixed by the bodies and shapes.
struct Fixed {
    uniform: wgpu::Buffer,
    bodies: wgpu::Buffer,
    shapes: wgpu::Buffer,
    boxes: wgpu::Buffer,
    keys: wgpu::Buffer,
    order: wgpu::Buffer,
    counters: wgpu::Buffer,
    accum: wgpu::Buffer,
    /// Indirect dispatch sizes the args kernels write. A buffer cannot be
    /// storage and indirect in one dispatch, so the indirect dispatches
    /// bind `no_args` in its place (they never touch it).
    args: wgpu::Buffer,
    no_args: wgpu::Buffer,
    summary: wgpu::Buffer,
    /// The resident shapes' samples, field descriptions and values.
    shapes_resident: [wgpu::Buffer; 3],
}

/// The buffers whose size follows the pair and contact capacities, and
/// the bind groups over everything.
struct Sized {
    /// For the args kernels.
    args_group: wgpu::BindGroup,
    /// For every other kernel.
    group: wgpu::BindGroup,
    broad_group: wgpu::BindGroup,
    broad_uniform: wgpu::Buffer,
}

/// The resident step's buffers and pipelines.
pub struct ResidentStep {
    gpu: GpuContext,
    kernels: Kernels,
    pipes: Pipelines,
    fixed: Fixed,
    sized: Sized,
    /// Bodies in the buffer (the ground included) and with a box.
    body_count: usize,
    box_count: u32,
    pub pair_capacity: u32,
    pub contact_capacity: u32,
    pub ring: SummaryRing,
    /// Frames stepped.
    pub frames: usize,
}

fn wall_ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

impl ResidentStep {
    /// Uploads `bodies` (the ground, if any, last, after the `box_count`
    /// bodies with boxes) and the shapes' bounds; reads fields and samples
    /// from `resident` in place.
    pub fn new(
        gpu: &GpuContext,
        broad: &BroadGpu,
        resident: &ResidentShapes,
        shapes: &[GpuShape],
        bodies: &[GpuBody],
        box_count: u32,
    ) -> Result<Self, GpuError> {
        let kernels = Kernels::new(gpu, "ResidentStep", shader_source("simulate_step.wgsl"));
        let pipe = |entry| kernels.pipeline(gpu, entry);
        let pipes = Pipelines {
            begin: pipe("begin_main"),
            narrow_args: pipe("narrow_args_main"),
            narrow: pipe("narrow_main"),
            rows_args: pipe("rows_args_main"),
            prepare: pipe("prepare_main"),
            solve: pipe("solve_main"),
            relax: pipe("relax_main"),
            apply: pipe("apply_main"),
            integrate: pipe("integrate_main"),
            summary: pipe("summary_main"),
        };
        let zeroed = |label, bytes| storage_buffer_zeroed(gpu, BufferCheck { label, bytes });
        let n = bodies.len() as u64;
        let boxes = u64::from(box_count);
        let [s, f, v] = resident.buffers();
        let fixed = Fixed {
            uniform: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("ResidentStep::params"),
                size: std::mem::size_of::<StepParams>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            bodies: storage_buffer_init(gpu, "ResidentStep::bodies", bodies)?,
            shapes: storage_buffer_init(gpu, "ResidentStep::shapes", shapes)?,
            boxes: zeroed("ResidentStep::boxes", boxes * 32)?,
            keys: zeroed("ResidentStep::keys", boxes * 4)?,
            order: zeroed("ResidentStep::order", boxes * 4)?,
            counters: zeroed("ResidentStep::counters", 16)?,
            accum: zeroed("ResidentStep::accum", n * u64::from(ACCUM) * 4)?,
            args: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("ResidentStep::args"),
                size: 6 * 4,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT,
                mapped_at_creation: false,
            }),
            no_args: zeroed("ResidentStep::no_args", 6 * 4)?,
            summary: zeroed(
                "ResidentStep::summary",
                std::mem::size_of::<GpuSummary>() as u64,
            )?,
            shapes_resident: [s.clone(), f.clone(), v.clone()],
        };
        // Room for a few pairs per body and, per body, a few times its
        // samples in contact (grown when a summary reports more).
        let pair_capacity = 8 * box_count + 1024;
        let most_rows = gpu.device.limits().max_storage_buffer_binding_size
            / std::mem::size_of::<GpuRow>() as u64;
        let contact_capacity = (shapes.iter().map(|s| u64::from(s.sample_count)).max())
            .unwrap_or(0)
            .saturating_mul(boxes)
            .clamp(1 << 14, most_rows.min(1 << 20)) as u32;
        let sized = Self::sized(
            gpu,
            &kernels,
            broad,
            &fixed,
            box_count,
            pair_capacity,
            contact_capacity,
        )?;
        Ok(ResidentStep {
            gpu: gpu.clone(),
            kernels,
            pipes,
            fixed,
            sized,
            body_count: bodies.len(),
            box_count,
            pair_capacity,
            contact_capacity,
            ring: SummaryRing::new(gpu),
            frames: 0,
        })
    }

    fn sized(
        gpu: &GpuContext,
        kernels: &Kernels,
        broad: &BroadGpu,
        fixed: &Fixed,
        box_count: u32,
        pair_capacity: u32,
        contact_capacity: u32,
    ) -> Result<Sized, GpuError> {
        let zeroed = |label, bytes| storage_buffer_zeroed(gpu, BufferCheck { label, bytes });
        let pairs = zeroed("ResidentStep::pairs", u64::from(pair_capacity) * 8)?;
        let rows = zeroed(
            "ResidentStep::rows",
            u64::from(contact_capacity) * std::mem::size_of::<GpuRow>() as u64,
        )?;
        let has_ground =
            fixed.bodies.size() / std::mem::size_of::<GpuBody>() as u64 > u64::from(box_count);
        // The plane is written with each frame's params.
        let broad_params = BroadParams {
            n: box_count,
            capacity: pair_capacity,
            ground: u32::from(has_ground),
            ground_index: box_count,
            plane: [0.0; 4],
        };
        let broad_uniform = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("ResidentStep::broad_params"),
                contents: bytemuck::bytes_of(&broad_params),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            });
        let [samples, fields, values] = &fixed.shapes_resident;
        let group_with = |args: &wgpu::Buffer| {
            kernels.bind(
                gpu,
                &[
                    ("params", &fixed.uniform),
                    ("bodies", &fixed.bodies),
                    ("shapes", &fixed.shapes),
                    ("boxes", &fixed.boxes),
                    ("pairs", &pairs),
                    ("counters", &fixed.counters),
                    ("samples", samples),
                    ("fields", fields),
                    ("values", values),
                    ("rows", &rows),
                    ("accum", &fixed.accum),
                    ("args", args),
                    ("summary", &fixed.summary),
                ],
            )
        };
        let broad_group = broad.bind(&[
            ("params", &broad_uniform),
            ("boxes", &fixed.boxes),
            ("keys", &fixed.keys),
            ("order", &fixed.order),
            ("pairs", &pairs),
            ("counter", &fixed.counters),
        ]);
        Ok(Sized {
            args_group: group_with(&fixed.args),
            group: group_with(&fixed.no_args),
            broad_group,
            broad_uniform,
        })
    }

    /// Room for at least `pairs` pairs and `contacts` contacts (after a
    /// summary reported an overflow).
    pub fn grow(&mut self, broad: &BroadGpu, pairs: u32, contacts: u32) -> Result<(), GpuError> {
        if pairs <= self.pair_capacity && contacts <= self.contact_capacity {
            return Ok(());
        }
        self.pair_capacity = self.pair_capacity.max(pairs.next_power_of_two());
        self.contact_capacity = self.contact_capacity.max(contacts.next_power_of_two());
        self.sized = Self::sized(
            &self.gpu,
            &self.kernels,
            broad,
            &self.fixed,
            self.box_count,
            self.pair_capacity,
            self.contact_capacity,
        )?;
        Ok(())
    }

    /// The newest summary that has arrived, without waiting.
    pub fn collect_summary(&mut self) -> Result<Option<ring::Arrived>, GpuError> {
        self.ring.collect(&self.gpu)
    }

    /// Waits for the summaries in flight; the newest.
    pub fn wait_summary(&mut self) -> Result<Option<ring::Arrived>, GpuError> {
        self.ring.wait(&self.gpu)
    }

    /// Overwrites the resident bodies (after the caller changed them).
    pub fn write_bodies(&self, bodies: &[GpuBody]) {
        self.gpu
            .queue
            .write_buffer(&self.fixed.bodies, 0, bytemuck::cast_slice(bodies));
    }

    /// Reads the resident bodies back (waits for the GPU).
    pub fn read_bodies(&self) -> Result<Vec<GpuBody>, GpuError> {
        crate::gpu::read_buffer(&self.gpu, &self.fixed.bodies, self.body_count)
    }

    /// A staging buffer for the states and summaries of up to `frames`
    /// frames.
    pub fn batch(&self, frames: usize) -> StateBatch {
        let body_bytes = (self.body_count * std::mem::size_of::<GpuBody>()) as u64;
        StateBatch {
            staging: staging_buffer(
                &self.gpu.device,
                "ResidentStep::states",
                (body_bytes + SUMMARY_BYTES) * frames.max(1) as u64,
            ),
            frames: frames.max(1),
            used: 0,
            body_bytes,
        }
    }

    /// Maps a batch once and returns each frame's bodies and summary.
    pub fn read_batch(
        &self,
        batch: StateBatch,
    ) -> Result<Vec<(Vec<GpuBody>, GpuSummary)>, GpuError> {
        if batch.used == 0 {
            return Ok(Vec::new());
        }
        let words: Vec<u32> = map_staging(&self.gpu, &batch.staging, "pipeline states")?;
        let stride = (batch.stride() / 4) as usize;
        let body_words = (batch.body_bytes / 4) as usize;
        Ok(words
            .chunks(stride)
            .take(batch.used)
            .map(|frame| {
                let (bodies, summary) = frame.split_at(body_words);
                (
                    bytemuck::cast_slice::<u32, GpuBody>(bodies).to_vec(),
                    bytemuck::pod_read_unaligned(bytemuck::cast_slice(summary)),
                )
            })
            .collect())
    }

    /// Records and submits one frame; with `states`, the bodies after the
    /// frame are copied into the batch's next slot. Returns the frame's
    /// timings: "record" (CPU, encoding) and, when timed, [`PHASES`] (GPU
    /// time, no wall time of their own) and "wait" (submit to done);
    /// untimed, "submit".
    pub fn frame(
        &mut self,
        broad: &BroadGpu,
        request: &FrameRequest,
        states: Option<&mut StateBatch>,
    ) -> Result<Timings, GpuError> {
        let start = Instant::now();
        let gpu = self.gpu.clone();
        let mut params = request.params;
        params.bodies = self.box_count;
        params.pair_capacity = self.pair_capacity;
        params.contact_capacity = self.contact_capacity;
        gpu.queue
            .write_buffer(&self.fixed.uniform, 0, bytemuck::bytes_of(&params));
        gpu.queue.write_buffer(
            &self.sized.broad_uniform,
            16,
            bytemuck::bytes_of(&params.plane),
        );
        let mut run = if request.timed {
            GpuRun::new(&gpu, "ResidentStep::frame")?
        } else {
            GpuRun::untimed(&gpu, "ResidentStep::frame")?
        };
        let mut scratch = Vec::new();
        for _ in 0..request.substeps.max(1) {
            scratch.push(self.encode_substep(&mut run, broad, request.iterations)?);
        }
        let bind_group = &self.sized.group;
        run.compute_pass("summary", |p| {
            p.set_bind_group(0, bind_group, &[]);
            p.set_pipeline(&self.pipes.summary);
            p.dispatch_workgroups(1, 1, 1);
        });
        let staging = self.ring.claim(&gpu)?;
        let summary = &self.fixed.summary;
        let bodies = &self.fixed.bodies;
        run.encoder_work("summary", |e| {
            e.copy_buffer_to_buffer(summary, 0, staging, 0, SUMMARY_BYTES);
            if let Some(b) = states.filter(|b| b.used < b.frames) {
                let at = b.used as u64 * b.stride();
                e.copy_buffer_to_buffer(bodies, 0, &b.staging, at, b.body_bytes);
                e.copy_buffer_to_buffer(summary, 0, &b.staging, at + b.body_bytes, SUMMARY_BYTES);
                b.used += 1;
            }
        });
        let mut timings = Timings::default();
        timings.push("record", wall_ms(start), None);
        self.frames += 1;
        if request.timed {
            let submitted = Instant::now();
            let (phases, _) = run.finish()?;
            for name in PHASES {
                let gpu_ms = phases
                    .iter()
                    .filter(|p| p.name == name || (name == "broad" && p.name.starts_with("sort")))
                    .filter_map(|p| p.gpu_ms)
                    .reduce(|a, b| a + b);
                timings.push(name, 0.0, gpu_ms);
            }
            timings.push("wait", wall_ms(submitted), None);
        } else {
            let submitted = Instant::now();
            run.submit();
            timings.push("submit", wall_ms(submitted), None);
        }
        drop(scratch);
        self.ring.submitted(self.frames);
        Ok(timings)
    }

    fn encode_substep(
        &self,
        run: &mut GpuRun<'_>,
        broad: &BroadGpu,
        iterations: u32,
    ) -> Result<Option<crate::gpu::RadixSortScratch>, GpuError> {
        let group = &self.sized.group;
        let args_group = &self.sized.args_group;
        let p = &self.pipes;
        let (bx, by) = dispatch_dims((self.body_count as u32).div_ceil(64));
        run.compute_pass("broad", |pass| {
            pass.set_bind_group(0, group, &[]);
            pass.set_pipeline(&p.begin);
            pass.dispatch_workgroups(bx, by, 1);
        });
        let scratch = broad.encode(
            run,
            &self.sized.broad_group,
            &self.fixed.keys,
            &self.fixed.order,
            self.box_count,
        )?;
        let args = &self.fixed.args;
        run.compute_pass("narrow", |pass| {
            pass.set_bind_group(0, args_group, &[]);
            pass.set_pipeline(&p.narrow_args);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_bind_group(0, group, &[]);
            pass.set_pipeline(&p.narrow);
            pass.dispatch_workgroups_indirect(args, 0);
        });
        run.compute_pass("solve", |pass| {
            pass.set_bind_group(0, args_group, &[]);
            pass.set_pipeline(&p.rows_args);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_bind_group(0, group, &[]);
            pass.set_pipeline(&p.prepare);
            pass.dispatch_workgroups_indirect(args, 12);
            for _ in 0..iterations {
                pass.set_pipeline(&p.solve);
                pass.dispatch_workgroups_indirect(args, 12);
                pass.set_pipeline(&p.apply);
                pass.dispatch_workgroups(bx, by, 1);
            }
        });
        run.compute_pass("integrate", |pass| {
            pass.set_bind_group(0, group, &[]);
            pass.set_pipeline(&p.integrate);
            pass.dispatch_workgroups(bx, by, 1);
        });
        run.compute_pass("solve", |pass| {
            pass.set_bind_group(0, group, &[]);
            for _ in 0..iterations {
                pass.set_pipeline(&p.relax);
                pass.dispatch_workgroups_indirect(args, 12);
                pass.set_pipeline(&p.apply);
                pass.dispatch_workgroups(bx, by, 1);
            }
        });
        Ok(scratch)
    }
}
