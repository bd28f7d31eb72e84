//! The cloth on the GPU: its constraint projection
//! (`shaders/radial_cloth.wgsl`) between the particle kernels' predict and
//! collide ([`super::gpu`]) — the mirror of [`super::cloth`].
//!
//! The projection reads one buffer and writes another; iterations
//! alternate between the particles' predictions and a scratch buffer
//! (two bind groups), and an odd count ends with a copy back.

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::cloth::{Cloth, ClothError, ClothParams, Link};
use super::gpu::{Bound, GpuParticles, RadialSimError, RadialSimGpu, WORKGROUP};
use crate::gpu::{
    BufferCheck, GpuContext, GpuError, GpuRun, Kernels, dispatch_dims, shader_source,
    storage_buffer_init, storage_buffer_zeroed,
};

/// `struct Params` of shaders/radial_cloth.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Params {
    pub num_particles: u32,
    pub stretch: f32,
    pub bend: f32,
    pub _pad: u32,
}

/// Why a GPU cloth step cannot run.
#[derive(Debug, thiserror::Error)]
pub enum ClothGpuError {
    #[error(transparent)]
    Cloth(#[from] ClothError),
    #[error(transparent)]
    Sim(#[from] RadialSimError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

/// A cloth on the GPU: its particles (bound with the fields through
/// [`RadialSimGpu::bind`]), the scratch predictions and its constraints.
pub struct GpuCloth {
    pub particles: GpuParticles,
    scratch: wgpu::Buffer,
    offsets: wgpu::Buffer,
    links: wgpu::Buffer,
}

impl GpuCloth {
    pub fn new(gpu: &GpuContext, cloth: &Cloth) -> Result<Self, GpuError> {
        let particles = GpuParticles::new(gpu, &cloth.particles)?;
        let bytes = particles.pred.size();
        Ok(GpuCloth {
            scratch: storage_buffer_zeroed(
                gpu,
                BufferCheck {
                    label: "GpuCloth::scratch",
                    bytes,
                },
            )?,
            offsets: storage_buffer_init(gpu, "GpuCloth::offsets", &cloth.offsets)?,
            links: storage_buffer_init::<Link>(gpu, "GpuCloth::links", &cloth.links)?,
            particles,
        })
    }
}

/// The projection kernel, created once per context.
pub struct ClothGpu {
    gpu: GpuContext,
    kernels: Kernels,
    project: wgpu::ComputePipeline,
}

/// A cloth's two projection bind groups (predictions → scratch, scratch →
/// predictions) with its parameters.
pub struct BoundCloth {
    groups: [wgpu::BindGroup; 2],
    workgroups: u32,
    iterations: u32,
}

impl BoundCloth {
    /// GPU commands `ClothGpu::record_constraints` records, each after
    /// the previous: a dispatch per iteration, and the copy back after an
    /// odd count.
    pub fn commands(&self) -> u32 {
        self.iterations + self.iterations % 2
    }
}

impl ClothGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "ClothGpu", shader_source("radial_cloth.wgsl"));
        ClothGpu {
            gpu: gpu.clone(),
            project: kernels.pipeline(gpu, "project"),
            kernels,
        }
    }

    /// Binds `cloth` with `params` (validated).
    pub fn bind(&self, cloth: &GpuCloth, params: &ClothParams) -> Result<BoundCloth, ClothError> {
        params.validate()?;
        let uniform = Params {
            num_particles: cloth.particles.count,
            stretch: params.stretch,
            bend: params.bend,
            _pad: 0,
        };
        let uniform = self
            .gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("ClothGpu::params"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let (pred, scratch) = (&cloth.particles.pred, &cloth.scratch);
        let group = |src, dst| {
            self.kernels.bind(
                &self.gpu,
                &[
                    ("params", &uniform),
                    ("src", src),
                    ("dst", dst),
                    ("offsets", &cloth.offsets),
                    ("links", &cloth.links),
                ],
            )
        };
        Ok(BoundCloth {
            groups: [group(pred, scratch), group(scratch, pred)],
            workgroups: cloth.particles.count.div_ceil(WORKGROUP),
            iterations: params.iterations,
        })
    }

    /// Records the constraint iterations (profiler scope "cloth"), leaving
    /// the result in the particles' predictions.
    pub(crate) fn record_constraints(
        &self,
        run: &mut GpuRun<'_>,
        cloth: &GpuCloth,
        b: &BoundCloth,
    ) {
        let (x, y) = dispatch_dims(b.workgroups);
        run.compute_pass("cloth", |pass| {
            pass.set_pipeline(&self.project);
            for it in 0..b.iterations {
                pass.set_bind_group(0, &b.groups[it as usize % 2], &[]);
                pass.dispatch_workgroups(x, y, 1);
            }
        });
        if b.iterations % 2 == 1 {
            let bytes = cloth.particles.pred.size();
            run.encoder_work("cloth", |encoder| {
                encoder.copy_buffer_to_buffer(&cloth.scratch, 0, &cloth.particles.pred, 0, bytes);
            });
        }
    }

    /// Records one cloth step: predict, constraints, collide, update.
    pub fn record_step(
        &self,
        run: &mut GpuRun<'_>,
        sim: &RadialSimGpu,
        cloth: &GpuCloth,
        particles: &Bound,
        constraints: &BoundCloth,
    ) {
        sim.record_predict(run, particles);
        self.record_constraints(run, cloth, constraints);
        sim.record_collide(run, particles);
        sim.record_update(run, particles);
    }
}
