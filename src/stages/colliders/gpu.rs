//! GPU colliders: every task of every pair in one dispatch, contacts
//! compacted through an atomic counter. Shader: `shaders/colliders.wgsl`.

use std::time::Instant;

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use wgpu::util::DeviceExt;

use super::{Body, ColliderError, ColliderParams, ColliderShape, Contact, ContactSet, plan};
use crate::gpu::{
    Access, BufferCheck, GpuContext, GpuError, GpuRun, Kernels, dispatch_dims, read_buffer,
    shader_source, storage_buffer_init, storage_buffer_zeroed,
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

        // Room for a quarter of the points first; the counter keeps counting
        // past the end, so an overflow is re-run once with the exact size.
        let max_contacts = (gpu.device.limits().max_storage_buffer_binding_size
            / std::mem::size_of::<GpuContact>() as u64) as usize;
        let mut capacity = (plan.total_threads / 4)
            .max(1 << 14)
            .min(plan.total_threads)
            .clamp(1, max_contacts.max(1));
        let (contacts_buf, count) = loop {
            let (buf, count) = self.dispatch(
                &plan,
                params,
                resident,
                &tasks_buf,
                &extra_buf,
                capacity,
                &mut timings,
            )?;
            if count <= capacity {
                break (buf, count);
            }
            if count > max_contacts {
                gpu.check_storage_size(
                    "ColliderGpu::contacts",
                    (count * std::mem::size_of::<GpuContact>()) as u64,
                )?;
            }
            capacity = count;
        };
        let readback = Instant::now();
        let mut raw: Vec<GpuContact> = read_buffer(gpu, &contacts_buf, count)?;
        raw.sort_by_key(|c| (c.task, c.sample));
        let mut contacts = Vec::with_capacity(raw.len());
        for c in &raw {
            let feature = FeatureKind::from_index(c.kind).ok_or_else(|| GpuError::Readback {
                what: "contacts".into(),
                reason: format!("bad feature kind {}", c.kind),
            })?;
            contacts.push(Contact {
                position: Vec3::from(c.position),
                normal: Vec3::from(c.normal),
                depth: c.depth,
                depth_cell: c.depth_cell,
                body: c.body,
                other: c.other,
                feature,
                sample: c.sample,
            });
        }
        timings.push("readback", readback.elapsed().as_secs_f64() * 1e3, None);
        Ok(ContactSet {
            contacts,
            tasks: plan.tasks.len(),
            tests: plan.total_threads,
            timings,
        })
    }

    /// One dispatch with room for `capacity` contacts; returns the buffer
    /// and the number of contacts found (which may exceed the room).
    #[allow(clippy::too_many_arguments)]
    fn dispatch(
        &self,
        plan: &super::Plan,
        params: &ColliderParams,
        resident: &ResidentShapes,
        tasks_buf: &wgpu::Buffer,
        extra_buf: &wgpu::Buffer,
        capacity: usize,
        timings: &mut Timings,
    ) -> Result<(wgpu::Buffer, usize), ColliderError> {
        let gpu = &self.gpu;
        let uniform = Params {
            num_tasks: plan.tasks.len() as u32,
            total_threads: plan.total_threads as u32,
            capacity: capacity as u32,
            flags: u32::from(params.interpolated_depth) | (u32::from(params.reject_flipped) << 1),
        };
        let uniform_buf = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("ColliderGpu::params"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let contacts_buf = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "ColliderGpu::contacts",
                bytes: (capacity * std::mem::size_of::<GpuContact>()) as u64,
            },
        )?;
        let counter_buf = storage_buffer_init(gpu, "ColliderGpu::counter", &[0u32; 4])?;
        let bind_group = self.kernels.bind_group(
            gpu,
            &[
                &uniform_buf,
                tasks_buf,
                &resident.samples,
                extra_buf,
                &resident.fields,
                &resident.values,
                &contacts_buf,
                &counter_buf,
            ],
        );
        let mut run = GpuRun::new(gpu, "ColliderGpu::encoder")?;
        if plan.total_threads > 0 {
            run.compute_pass("contacts", |pass| {
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &bind_group, &[]);
                let (x, y) = dispatch_dims((plan.total_threads as u32).div_ceil(WORKGROUP));
                pass.dispatch_workgroups(x, y, 1);
            });
        }
        let (phases, wall_ms) = run.finish()?;
        let gpu_ms = phases
            .iter()
            .find(|p| p.name == "contacts")
            .and_then(|p| p.gpu_ms);
        timings.push("contacts", wall_ms, gpu_ms);
        let count = read_buffer::<u32>(gpu, &counter_buf, 1)?
            .first()
            .copied()
            .unwrap_or(0) as usize;
        Ok((contacts_buf, count))
    }
}
