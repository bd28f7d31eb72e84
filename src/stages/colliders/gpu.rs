//! GPU colliders: every task of every pair in one dispatch, contacts
//! compacted through an atomic counter. Shader: `shaders/colliders.wgsl`.
//!
//! **Where a detect's wall time goes** (its [`Timings`] phases, reported
//! by `bench collide`): `upload` (the plan: per-pair tasks and primitive
//! samples, and their buffers), `contacts` (recording, submission and the
//! kernel, with its GPU time), `readback` (the count, then the contacts
//! copied to a staging buffer and mapped) and `convert` (the contacts put
//! in (task, sample) order — the counter hands out slots in whatever order
//! threads arrive — and turned into [`Contact`]s, on all cores). The
//! contact, counter and staging buffers are kept between detects and only
//! grow, so a run allocates no GPU memory once warm.

use std::time::Instant;

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use rayon::prelude::*;
use wgpu::util::DeviceExt;

use super::{Body, ColliderError, ColliderParams, ColliderShape, Contact, ContactSet, plan};
use crate::gpu::{
    Access, BufferCheck, GpuContext, GpuError, GpuRun, Kernels, dispatch_dims, map_staging,
    map_staging_range, shader_source, staging_buffer, storage_buffer_init, storage_buffer_zeroed,
};
use crate::stages::sampling::{FeatureKind, GpuSample};
use crate::timing::Timings;

/// `struct Params` of shaders/colliders.wgsl (the layout is checked by
/// tests/shader_layouts.rs, like every mirrored type here).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Params {
    pub num_tasks: u32,
    pub total_threads: u32,
    pub capacity: u32,
    pub flags: u32,
}
const _: () = assert!(std::mem::size_of::<Params>() == 16);

/// `struct FieldInfo` of shaders/colliders.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FieldInfo {
    pub origin: [f32; 3],
    pub cell_size: f32,
    pub dims: [u32; 3],
    pub offset: u32,
}
const _: () = assert!(std::mem::size_of::<FieldInfo>() == 32);

/// `struct Contact` of shaders/colliders.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuContact {
    pub position: [f32; 3],
    pub depth: f32,
    pub normal: [f32; 3],
    pub depth_cell: f32,
    pub body: u32,
    pub other: u32,
    pub kind: u32,
    pub sample: u32,
    pub task: u32,
    pub _pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<GpuContact>() == 64);

pub const WORKGROUP: u32 = 64;

/// The colliders' long-lived GPU objects.
pub struct ColliderGpu {
    gpu: GpuContext,
    kernels: Kernels,
    pipeline: wgpu::ComputePipeline,
    /// Output buffers of the last detect, reused by the next (the lock
    /// also keeps two detects from sharing them).
    scratch: std::sync::Mutex<Option<Scratch>>,
}

/// A detect's output buffers: room for `capacity` contacts.
struct Scratch {
    capacity: usize,
    contacts: wgpu::Buffer,
    counter: wgpu::Buffer,
    count_staging: wgpu::Buffer,
    staging: wgpu::Buffer,
}

impl Scratch {
    fn new(gpu: &GpuContext, capacity: usize) -> Result<Scratch, GpuError> {
        let bytes = (capacity * std::mem::size_of::<GpuContact>()) as u64;
        Ok(Scratch {
            capacity,
            contacts: storage_buffer_zeroed(
                gpu,
                BufferCheck {
                    label: "ColliderGpu::contacts",
                    bytes,
                },
            )?,
            counter: storage_buffer_init(gpu, "ColliderGpu::counter", &[0u32; 4])?,
            count_staging: staging_buffer(&gpu.device, "ColliderGpu::count", 16),
            staging: staging_buffer(&gpu.device, "ColliderGpu::contacts staging", bytes),
        })
    }
}

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
        use Access::{ReadOnly, ReadWrite};
        // Bindings as in shaders/colliders.wgsl: tasks, samples, extra,
        // fields, values, contacts, counter.
        let kernels = Kernels::new(
            gpu,
            "ColliderGpu",
            shader_source("colliders.wgsl"),
            &[
                ReadOnly, ReadOnly, ReadOnly, ReadOnly, ReadOnly, ReadWrite, ReadWrite,
            ],
        );
        ColliderGpu {
            gpu: gpu.clone(),
            pipeline: kernels.pipeline(gpu, "contacts_main"),
            kernels,
            scratch: std::sync::Mutex::new(None),
        }
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
    /// `shapes` (same list, same order).
    pub fn detect(
        &self,
        resident: &ResidentShapes,
        shapes: &[ColliderShape],
        bodies: &[Body],
        pairs: &[(usize, usize)],
        params: &ColliderParams,
    ) -> Result<ContactSet, ColliderError> {
        puffin::profile_function!();
        let gpu = &self.gpu;
        let mut timings = Timings::default();
        let upload_start = Instant::now();
        let total_samples: usize = shapes.iter().map(|s| s.samples.samples.len()).sum();
        if resident.shape_count != shapes.len() || resident.sample_count != total_samples {
            return Err(GpuError::Validation {
                what: "colliders".into(),
                reason: "the resident shapes are not the shapes given".into(),
            }
            .into());
        }
        let plan = plan(shapes, bodies, pairs, params)?;
        let tasks_buf = storage_buffer_init(gpu, "ColliderGpu::tasks", &plan.tasks)?;
        let mut extra: Vec<GpuSample> = plan.extra.iter().map(GpuSample::from).collect();
        // A binding must hold at least one element of its array type.
        if extra.is_empty() {
            extra.push(bytemuck::Zeroable::zeroed());
        }
        let extra_buf = storage_buffer_init(gpu, "ColliderGpu::extra", &extra)?;
        timings.push("upload", upload_start.elapsed().as_secs_f64() * 1e3, None);

        // Room for a quarter of the points first (or what the kept buffers
        // hold); the counter keeps counting past the end, so an overflow is
        // re-run once with the exact size.
        let max_contacts = (gpu.device.limits().max_storage_buffer_binding_size
            / std::mem::size_of::<GpuContact>() as u64) as usize;
        let mut kept = self
            .scratch
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut wanted = (plan.total_threads / 4)
            .max(1 << 14)
            .min(plan.total_threads)
            .clamp(1, max_contacts.max(1));
        let (scratch, count) = loop {
            let scratch = match kept.take() {
                Some(s) if s.capacity >= wanted => s,
                _ => Scratch::new(gpu, wanted)?,
            };
            let count = self.dispatch(
                &plan,
                params,
                resident,
                &tasks_buf,
                &extra_buf,
                &scratch,
                &mut timings,
            )?;
            if count <= scratch.capacity {
                break (kept.insert(scratch), count);
            }
            if count > max_contacts {
                gpu.check_storage_size(
                    "ColliderGpu::contacts",
                    (count * std::mem::size_of::<GpuContact>()) as u64,
                )?;
            }
            wanted = count;
        };
        let readback = Instant::now();
        let mut raw: Vec<GpuContact> = if count == 0 {
            Vec::new()
        } else {
            let bytes = (count * std::mem::size_of::<GpuContact>()) as u64;
            let mut encoder = gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("ColliderGpu::readback"),
                });
            encoder.copy_buffer_to_buffer(&scratch.contacts, 0, &scratch.staging, 0, bytes);
            gpu.queue.submit([encoder.finish()]);
            map_staging_range(gpu, &scratch.staging, bytes, "contacts")?
        };
        drop(kept);
        timings.push("readback", readback.elapsed().as_secs_f64() * 1e3, None);
        let convert = Instant::now();
        raw.par_sort_unstable_by_key(|c| (c.task, c.sample));
        let contacts = raw
            .par_iter()
            .map(|c| {
                let feature =
                    FeatureKind::from_index(c.kind).ok_or_else(|| GpuError::Readback {
                        what: "contacts".into(),
                        reason: format!("bad feature kind {}", c.kind),
                    })?;
                Ok(Contact {
                    position: Vec3::from(c.position),
                    normal: Vec3::from(c.normal),
                    depth: c.depth,
                    depth_cell: c.depth_cell,
                    body: c.body,
                    other: c.other,
                    feature,
                    sample: c.sample,
                })
            })
            .collect::<Result<Vec<Contact>, GpuError>>()?;
        timings.push("convert", convert.elapsed().as_secs_f64() * 1e3, None);
        Ok(ContactSet {
            contacts,
            tasks: plan.tasks.len(),
            tests: plan.total_threads,
            timings,
        })
    }

    /// One dispatch with room for `scratch.capacity` contacts; returns the
    /// number of contacts found (which may exceed the room). The counter is
    /// cleared and read back in the same submission.
    #[allow(clippy::too_many_arguments)]
    fn dispatch(
        &self,
        plan: &super::Plan,
        params: &ColliderParams,
        resident: &ResidentShapes,
        tasks_buf: &wgpu::Buffer,
        extra_buf: &wgpu::Buffer,
        scratch: &Scratch,
        timings: &mut Timings,
    ) -> Result<usize, ColliderError> {
        let gpu = &self.gpu;
        let uniform = Params {
            num_tasks: plan.tasks.len() as u32,
            total_threads: plan.total_threads as u32,
            capacity: scratch.capacity as u32,
            flags: u32::from(params.interpolated_depth) | (u32::from(params.reject_flipped) << 1),
        };
        let uniform_buf = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("ColliderGpu::params"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let bind_group = self.kernels.bind_group(
            gpu,
            &[
                &uniform_buf,
                tasks_buf,
                &resident.samples,
                extra_buf,
                &resident.fields,
                &resident.values,
                &scratch.contacts,
                &scratch.counter,
            ],
        );
        let mut run = GpuRun::new(gpu, "ColliderGpu::encoder")?;
        run.encoder_work("clear", |e| e.clear_buffer(&scratch.counter, 0, None));
        if plan.total_threads > 0 {
            run.compute_pass("contacts", |pass| {
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &bind_group, &[]);
                let (x, y) = dispatch_dims((plan.total_threads as u32).div_ceil(WORKGROUP));
                pass.dispatch_workgroups(x, y, 1);
            });
        }
        run.encoder_work("count", |e| {
            e.copy_buffer_to_buffer(&scratch.counter, 0, &scratch.count_staging, 0, 16);
        });
        let (phases, wall_ms) = run.finish()?;
        let gpu_ms = phases
            .iter()
            .find(|p| p.name == "contacts")
            .and_then(|p| p.gpu_ms);
        timings.push("contacts", wall_ms, gpu_ms);
        let count = map_staging::<u32>(gpu, &scratch.count_staging, "contact count")?
            .first()
            .copied()
            .unwrap_or(0) as usize;
        Ok(count)
    }
}
