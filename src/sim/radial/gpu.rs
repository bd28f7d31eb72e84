//! The particles' GPU kernels (`shaders/radial_particles.wgsl`): predict,
//! collide against radial fields, update — the mirror of
//! [`super::particles`] and `super::collide`.
//!
//! [`GpuFields`] holds a field set on the GPU, [`GpuParticles`] a particle
//! system's state; [`RadialSimGpu`] records the three passes into a
//! [`GpuRun`] (one profiler scope each) over a bind group of both.

use eframe::egui_wgpu::wgpu;
use glam::{Vec3, Vec4};
use wgpu::util::DeviceExt;

use super::collide::{CollideParams, Collision};
use super::fields::{FieldSet, FieldSetError};
use super::particles::{Particles, StepParams};
use crate::gpu::{
    GpuContext, GpuError, GpuRun, Kernels, dispatch_dims, read_buffer, shader_source,
    storage_buffer_init,
};
use crate::stages::radial::FieldFrameGpu;

/// Invocations per workgroup of every entry point.
pub const WORKGROUP: u32 = 64;
/// Invocations per particle in `collide` (the shader's `LANES`), each
/// testing every `COLLIDE_LANES`-th substep.
pub const COLLIDE_LANES: u32 = 8;

/// `struct Params` of shaders/radial_particles.wgsl (layout checked by
/// tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Params {
    pub gravity: [f32; 3],
    pub dt: f32,
    pub num_particles: u32,
    pub num_fields: u32,
    pub substeps: u32,
    pub friction: f32,
    pub floor: f32,
    pub damping: f32,
    pub _pad: [u32; 2],
}

/// Why a GPU simulation step cannot run.
#[derive(Debug, thiserror::Error)]
pub enum RadialSimError {
    #[error(transparent)]
    Fields(#[from] FieldSetError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

/// A field set on the GPU.
pub struct GpuFields {
    pub frames: wgpu::Buffer,
    pub prev: wgpu::Buffer,
    pub radius: wgpu::Buffer,
    pub values: wgpu::Buffer,
    pub count: u32,
}

/// `data`, or one zeroed element when it is empty. A binding holds at least
/// one element; with `num_fields` 0 the kernels read none of it, so a set
/// without fields (a character whose bones each own too few vertices to
/// fit one) collides with nothing instead of failing to bind.
fn at_least_one<T: bytemuck::Pod>(data: &[T]) -> std::borrow::Cow<'_, [T]> {
    if data.is_empty() {
        std::borrow::Cow::Owned(vec![T::zeroed()])
    } else {
        std::borrow::Cow::Borrowed(data)
    }
}

impl GpuFields {
    pub fn new(gpu: &GpuContext, set: &FieldSet) -> Result<Self, RadialSimError> {
        set.validate()?;
        let upload = |label, data: &[_]| storage_buffer_init(gpu, label, &at_least_one(data));
        Ok(GpuFields {
            frames: upload("GpuFields::frames", &set.frames)?,
            prev: upload("GpuFields::prev", &set.prev)?,
            radius: storage_buffer_init(gpu, "GpuFields::radius", &at_least_one(&set.radius))?,
            values: storage_buffer_init(gpu, "GpuFields::values", &at_least_one(&set.values))?,
            count: set.len() as u32,
        })
    }

    /// Fields whose frames and cells already live on the GPU (the
    /// rasterising stage's `RadialScene` writes them every frame), with
    /// their previous frames and broad-phase radii uploaded here. The
    /// previous frames change each step through [`GpuFields::write_prev`].
    pub fn resident(
        gpu: &GpuContext,
        frames: &wgpu::Buffer,
        values: &wgpu::Buffer,
        prev: &[FieldFrameGpu],
        radius: &[f32],
    ) -> Result<Self, RadialSimError> {
        if prev.len() != radius.len() {
            return Err(FieldSetError::Counts {
                frames: prev.len(),
                prev: prev.len(),
                radii: radius.len(),
            }
            .into());
        }
        if prev.is_empty() {
            // The scene's buffers of no fields are too small to bind.
            return Self::new(gpu, &FieldSet::fixed(Vec::new(), Vec::new(), Vec::new()));
        }
        Ok(GpuFields {
            frames: frames.clone(),
            prev: storage_buffer_init(gpu, "GpuFields::prev", prev)?,
            radius: storage_buffer_init(gpu, "GpuFields::radius", radius)?,
            values: values.clone(),
            count: prev.len() as u32,
        })
    }

    /// The frames the fields had at the start of the step (as many as the
    /// fields).
    pub fn write_prev(&self, gpu: &GpuContext, prev: &[FieldFrameGpu]) {
        let n = prev.len().min(self.count as usize);
        gpu.queue
            .write_buffer(&self.prev, 0, bytemuck::cast_slice(&prev[..n]));
    }

    /// Writes `set` into these buffers when it has the same shape (field
    /// count, value count): the per-frame path. `false` when it does not
    /// fit (make new buffers then).
    pub fn write(&self, gpu: &GpuContext, set: &FieldSet) -> Result<bool, RadialSimError> {
        set.validate()?;
        let fits = set.len() as u32 == self.count
            && std::mem::size_of_val(set.values.as_slice()) as u64 <= self.values.size();
        if fits && !set.is_empty() {
            gpu.queue
                .write_buffer(&self.frames, 0, bytemuck::cast_slice(&set.frames));
            gpu.queue
                .write_buffer(&self.prev, 0, bytemuck::cast_slice(&set.prev));
            gpu.queue
                .write_buffer(&self.radius, 0, bytemuck::cast_slice(&set.radius));
            gpu.queue
                .write_buffer(&self.values, 0, bytemuck::cast_slice(&set.values));
        }
        Ok(fits)
    }
}

/// A particle system's state on the GPU (see [`Particles`]).
pub struct GpuParticles {
    pub pos: wgpu::Buffer,
    pub pred: wgpu::Buffer,
    pub vel: wgpu::Buffer,
    pub spawn: wgpu::Buffer,
    pub contacts: wgpu::Buffer,
    pub count: u32,
}

impl GpuParticles {
    pub fn new(gpu: &GpuContext, p: &Particles) -> Result<Self, GpuError> {
        let vel: Vec<Vec4> = p.vel.iter().map(|v| v.extend(0.0)).collect();
        Ok(GpuParticles {
            pos: storage_buffer_init(gpu, "GpuParticles::pos", &p.pos)?,
            pred: storage_buffer_init(gpu, "GpuParticles::pred", &p.pred)?,
            vel: storage_buffer_init(gpu, "GpuParticles::vel", &vel)?,
            spawn: storage_buffer_init(gpu, "GpuParticles::spawn", &p.spawn)?,
            contacts: storage_buffer_init(gpu, "GpuParticles::contacts", &p.contacts)?,
            count: p.len() as u32,
        })
    }

    /// Reads the whole state back.
    pub fn read(&self, gpu: &GpuContext) -> Result<Particles, GpuError> {
        let n = self.count as usize;
        let vel: Vec<Vec4> = read_buffer(gpu, &self.vel, n)?;
        Ok(Particles {
            pos: read_buffer(gpu, &self.pos, n)?,
            pred: read_buffer(gpu, &self.pred, n)?,
            vel: vel.iter().map(|v| v.truncate()).collect(),
            spawn: read_buffer(gpu, &self.spawn, n)?,
            contacts: read_buffer(gpu, &self.contacts, n)?,
        })
    }
}

/// The particle kernels, created once per context.
pub struct RadialSimGpu {
    gpu: GpuContext,
    kernels: Kernels,
    predict: wgpu::ComputePipeline,
    collide: wgpu::ComputePipeline,
    update: wgpu::ComputePipeline,
}

/// The bind group of one field set and particle system, with its
/// parameters.
pub struct Bound {
    group: wgpu::BindGroup,
    /// Workgroups of predict and update (a particle each invocation).
    groups: u32,
    /// Workgroups of collide ([`COLLIDE_LANES`] invocations a particle).
    collide_groups: u32,
}

impl RadialSimGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "RadialSimGpu", shader_source("radial_particles.wgsl"));
        RadialSimGpu {
            gpu: gpu.clone(),
            predict: kernels.pipeline(gpu, "predict"),
            collide: kernels.pipeline(gpu, "collide"),
            update: kernels.pipeline(gpu, "update"),
            kernels,
        }
    }

    pub fn context(&self) -> &GpuContext {
        &self.gpu
    }

    /// Binds `fields` and `particles` with `params` (validated).
    pub fn bind(
        &self,
        fields: &GpuFields,
        particles: &GpuParticles,
        params: &StepParams,
    ) -> Result<Bound, RadialSimError> {
        params.collide.validate()?;
        let uniform = Params {
            gravity: params.gravity.into(),
            dt: params.dt,
            num_particles: particles.count,
            num_fields: fields.count,
            substeps: params.collide.substeps,
            friction: params.collide.friction,
            floor: params.floor,
            damping: params.damping,
            _pad: [0; 2],
        };
        let uniform = self
            .gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("RadialSimGpu::params"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let group = self.kernels.bind(
            &self.gpu,
            &[
                ("params", &uniform),
                ("frames", &fields.frames),
                ("prev_frames", &fields.prev),
                ("radius", &fields.radius),
                ("values", &fields.values),
                ("pos", &particles.pos),
                ("pred", &particles.pred),
                ("vel", &particles.vel),
                ("spawn", &particles.spawn),
                ("contacts", &particles.contacts),
            ],
        );
        Ok(Bound {
            group,
            groups: particles.count.div_ceil(WORKGROUP),
            collide_groups: particles.count.div_ceil(WORKGROUP / COLLIDE_LANES),
        })
    }

    fn pass(
        &self,
        run: &mut GpuRun<'_>,
        name: &str,
        pipeline: &wgpu::ComputePipeline,
        b: &Bound,
        groups: u32,
    ) {
        let (x, y) = dispatch_dims(groups);
        run.compute_pass(name, |pass| {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &b.group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        });
    }

    /// Dispatches [`RadialSimGpu::record_step`] records: predict, collide,
    /// update.
    pub const STEP_DISPATCHES: u32 = 3;

    /// Records step 1 (profiler scope "predict").
    pub(crate) fn record_predict(&self, run: &mut GpuRun<'_>, b: &Bound) {
        self.pass(run, "predict", &self.predict, b, b.groups);
    }

    /// Records step 2 (profiler scope "collision").
    pub(crate) fn record_collide(&self, run: &mut GpuRun<'_>, b: &Bound) {
        self.pass(run, "collision", &self.collide, b, b.collide_groups);
    }

    /// Records step 3 (profiler scope "update").
    pub fn record_update(&self, run: &mut GpuRun<'_>, b: &Bound) {
        self.pass(run, "update", &self.update, b, b.groups);
    }

    /// Records a whole particle step.
    pub fn record_step(&self, run: &mut GpuRun<'_>, b: &Bound) {
        self.record_predict(run, b);
        self.record_collide(run, b);
        self.record_update(run, b);
    }

    /// Collision alone on the GPU, the counterpart of
    /// [`super::collide::collide`]: for tests and one-off queries.
    pub fn collide(
        &self,
        set: &FieldSet,
        params: &CollideParams,
        q: &[Vec3],
        q1: &[Vec3],
    ) -> Result<Vec<Collision>, RadialSimError> {
        let mut particles = Particles::at(q.iter().map(|p| p.extend(1.0)).collect());
        particles.pred = q1.iter().map(|p| p.extend(1.0)).collect();
        let fields = GpuFields::new(&self.gpu, set)?;
        let state = GpuParticles::new(&self.gpu, &particles)?;
        let step = StepParams {
            collide: *params,
            ..StepParams::default()
        };
        let bound = self.bind(&fields, &state, &step)?;
        let mut run = GpuRun::new(&self.gpu, "RadialSimGpu::collide")?;
        self.record_collide(&mut run, &bound);
        run.finish()?;
        let pred: Vec<Vec4> = read_buffer(&self.gpu, &state.pred, q.len())?;
        let contacts: Vec<u32> = read_buffer(&self.gpu, &state.contacts, q.len())?;
        Ok(pred
            .iter()
            .zip(contacts)
            .map(|(p, field)| Collision {
                predicted: p.truncate(),
                field,
            })
            .collect())
    }
}
