//! Linear blend skinning: each vertex moves with up to four joints,
//! `p' = Σ wₖ · Sₖ · p` where `S = world · inverse_bind` are the skin
//! matrices. [`skin_cpu`] is the reference; [`SkinningGpu`] runs
//! `shaders/radial_skinning.wgsl`, one invocation per vertex, writing vec4
//! positions into a buffer the caller gives — the radial-field
//! rasteriser's [`crate::stages::radial::RadialScene::positions`], so the
//! skinned mesh never leaves the GPU. [`SkinningGpu::with_clear`] folds
//! that scene's clear of its fields to +inf into the same dispatch.

use eframe::egui_wgpu::wgpu;
use glam::{Mat4, Vec3};

use crate::gpu::{GpuContext, Kernels, dispatch_dims, shader_source, storage_buffer_init};

/// Threads per workgroup of `skin_vertices`.
pub const SKIN_GROUP: u32 = 64;

/// Up to four joints and weights per vertex (weights sum to 1; unused
/// slots have weight 0).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skin {
    pub joints: Vec<[u32; 4]>,
    pub weights: Vec<[f32; 4]>,
}

impl Skin {
    /// Every vertex on joint 0 alone (a rigid character).
    pub fn rigid(vertices: usize) -> Skin {
        Skin {
            joints: vec![[0; 4]; vertices],
            weights: vec![[1.0, 0.0, 0.0, 0.0]; vertices],
        }
    }

    /// The joint with the largest weight at vertex `v`.
    pub fn dominant(&self, v: usize) -> u32 {
        let (w, j) = (&self.weights[v], &self.joints[v]);
        let k = (0..4).fold(0, |best, k| if w[k] > w[best] { k } else { best });
        j[k]
    }
}

/// The skinned positions of `rest` under `skin_matrices`.
pub fn skin_cpu(rest: &[Vec3], skin: &Skin, skin_matrices: &[Mat4]) -> Vec<Vec3> {
    rest.iter()
        .zip(skin.joints.iter().zip(&skin.weights))
        .map(|(&p, (j, w))| {
            (0..4)
                .filter(|&k| w[k] != 0.0)
                .map(|k| w[k] * skin_matrices[j[k] as usize].transform_point3(p))
                .sum()
        })
        .collect()
}

/// The uniform of `radial_skinning.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SkinParams {
    pub vertices: u32,
    pub joints: u32,
    /// Values set to +inf on the way (0: none).
    pub clear: u32,
    pub _pad: u32,
}

/// The skinning kernel and one character's resident buffers.
pub struct SkinningGpu {
    pipeline: wgpu::ComputePipeline,
    matrices: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// Invocations of the dispatch: vertices, or cells cleared if more.
    invocations: u32,
    joints: u32,
}

impl SkinningGpu {
    /// Uploads the rest positions and the skin, writing into `out` (vec4
    /// per vertex, at least as many as `rest`).
    pub fn new(
        gpu: &GpuContext,
        rest: &[Vec3],
        skin: &Skin,
        joints: usize,
        out: &wgpu::Buffer,
    ) -> Result<Self, crate::gpu::GpuError> {
        Self::with_clear(gpu, rest, skin, joints, out, None)
    }

    /// [`SkinningGpu::new`] that also sets the first `count` u32 of
    /// `clear` to +inf each dispatch: a radial scene's
    /// [`values`](crate::stages::radial::RadialScene::values), whose own
    /// clear is then left out
    /// ([`record_draw`](crate::stages::radial::RadialScene::record_draw)
    /// alone).
    pub fn with_clear(
        gpu: &GpuContext,
        rest: &[Vec3],
        skin: &Skin,
        joints: usize,
        out: &wgpu::Buffer,
        clear: Option<(&wgpu::Buffer, u32)>,
    ) -> Result<Self, crate::gpu::GpuError> {
        let kernels = Kernels::new(gpu, "SkinningGpu", shader_source("radial_skinning.wgsl"));
        let pipeline = kernels.pipeline(gpu, "skin_vertices");
        let unused;
        let (clear, cleared) = match clear {
            Some((buffer, count)) => (buffer, count.min((buffer.size() / 4) as u32)),
            None => {
                // A binding of one element, never written.
                unused = crate::gpu::storage_buffer_zeroed(
                    gpu,
                    crate::gpu::BufferCheck {
                        label: "skinning clear (none)",
                        bytes: 4,
                    },
                )?;
                (&unused, 0)
            }
        };
        let params = SkinParams {
            vertices: rest.len() as u32,
            joints: joints as u32,
            clear: cleared,
            _pad: 0,
        };
        let uniform = wgpu::util::DeviceExt::create_buffer_init(
            &gpu.device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("SkinningGpu::params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            },
        );
        let rest4: Vec<[f32; 4]> = rest.iter().map(|p| p.extend(1.0).into()).collect();
        let rest_buffer = storage_buffer_init(gpu, "skinning rest", &rest4)?;
        let joint_buffer = storage_buffer_init(gpu, "skinning joints", &skin.joints)?;
        let weight_buffer = storage_buffer_init(gpu, "skinning weights", &skin.weights)?;
        let matrices =
            storage_buffer_init(gpu, "skin matrices", &vec![Mat4::IDENTITY; joints.max(1)])?;
        let bind_group = kernels.bind(
            gpu,
            &[
                ("params", &uniform),
                ("rest", &rest_buffer),
                ("joint_ids", &joint_buffer),
                ("weights", &weight_buffer),
                ("skin", &matrices),
                ("skinned", out),
                ("clear", clear),
            ],
        );
        Ok(SkinningGpu {
            pipeline,
            matrices,
            bind_group,
            invocations: (rest.len() as u32).max(cleared),
            joints: joints as u32,
        })
    }

    /// Writes this frame's skin matrices.
    pub fn write_matrices(&self, gpu: &GpuContext, skin_matrices: &[Mat4]) {
        let n = skin_matrices.len().min(self.joints as usize);
        gpu.queue
            .write_buffer(&self.matrices, 0, bytemuck::cast_slice(&skin_matrices[..n]));
    }

    /// Dispatches [`SkinningGpu::record`] records.
    pub const DISPATCHES: u32 = 1;

    /// Records the skinning pass.
    pub fn record(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        let (x, y) = dispatch_dims(self.invocations.div_ceil(SKIN_GROUP));
        pass.dispatch_workgroups(x, y, 1);
    }
}
