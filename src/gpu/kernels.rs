//! The compute boilerplate every stage shares: one shader's bind-group
//! layout (by default a uniform at binding 0, then storage buffers; any
//! list of [`Binding`]s, textures included), its pipelines, bind groups
//! over a list of buffers or resources, and dispatch sizes beyond the
//! per-dimension workgroup limit; and the one-uniform layout the render
//! pipelines share. Every compute pipeline of the crate is built here.

use eframe::egui_wgpu::wgpu;

use super::{GpuContext, ShaderSource};

/// How a storage buffer is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    ReadOnly,
    ReadWrite,
}

/// What one binding of a [`Kernels`] layout holds (seen by compute only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// A uniform buffer.
    Uniform,
    /// A storage buffer.
    Storage(Access),
    /// A 2D texture of `sample_type`, read with `textureLoad`.
    Texture(wgpu::TextureSampleType),
    /// A write-only 2D storage texture of this format.
    StorageTexture(wgpu::TextureFormat),
}

impl Binding {
    fn ty(self) -> wgpu::BindingType {
        let buffer = |ty| wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        match self {
            Binding::Uniform => buffer(wgpu::BufferBindingType::Uniform),
            Binding::Storage(a) => buffer(wgpu::BufferBindingType::Storage {
                read_only: a == Access::ReadOnly,
            }),
            Binding::Texture(sample_type) => wgpu::BindingType::Texture {
                sample_type,
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            Binding::StorageTexture(format) => wgpu::BindingType::StorageTexture {
                access: wgpu::StorageTextureAccess::WriteOnly,
                format,
                view_dimension: wgpu::TextureViewDimension::D2,
            },
        }
    }
}

/// A shader module and the layout its entry points share: `@binding(i)`
/// the i-th [`Binding`] (by [`Kernels::new`]: a uniform, then storage
/// buffers).
pub struct Kernels {
    label: String,
    module: wgpu::ShaderModule,
    pub layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
}

impl Kernels {
    /// `@binding(0)` a uniform, `@binding(1..)` storage buffers of `storage`.
    pub fn new(gpu: &GpuContext, label: &str, shader: &ShaderSource, storage: &[Access]) -> Self {
        let bindings: Vec<Binding> = std::iter::once(Binding::Uniform)
            .chain(storage.iter().map(|&a| Binding::Storage(a)))
            .collect();
        Self::with_bindings(gpu, label, shader, &bindings)
    }

    /// `@binding(i)` of `bindings[i]`.
    pub fn with_bindings(
        gpu: &GpuContext,
        label: &str,
        shader: &ShaderSource,
        bindings: &[Binding],
    ) -> Self {
        let device = &gpu.device;
        let entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupLayoutEntry {
                binding: i as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: b.ty(),
                count: None,
            })
            .collect();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(&format!("{label}::layout")),
            entries: &entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(&format!("{label}::pipeline_layout")),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        Kernels {
            label: label.to_string(),
            module: gpu.shader(shader),
            layout,
            pipeline_layout,
        }
    }

    /// The compute pipeline of entry point `entry`, labelled `Label::entry`.
    pub fn pipeline(&self, gpu: &GpuContext, entry: &str) -> wgpu::ComputePipeline {
        self.pipeline_in(gpu, &self.module, entry)
    }

    /// The same for an entry point of another module written for this
    /// layout (one that needs a device feature the first module must not
    /// depend on).
    pub fn pipeline_in(
        &self,
        gpu: &GpuContext,
        module: &wgpu::ShaderModule,
        entry: &str,
    ) -> wgpu::ComputePipeline {
        gpu.device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&format!("{}::{entry}", self.label)),
                layout: Some(&self.pipeline_layout),
                module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
    }

    /// A bind group binding `buffers[i]` whole at binding `i`.
    pub fn bind_group(&self, gpu: &GpuContext, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        let resources: Vec<wgpu::BindingResource> =
            buffers.iter().map(|b| b.as_entire_binding()).collect();
        self.bind_group_of(gpu, resources)
    }

    /// A bind group binding `resources[i]` at binding `i` (buffers and
    /// texture views).
    pub fn bind_group_of(
        &self,
        gpu: &GpuContext,
        resources: Vec<wgpu::BindingResource<'_>>,
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = resources
            .into_iter()
            .enumerate()
            .map(|(i, resource)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource,
            })
            .collect();
        gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&format!("{}::bind_group", self.label)),
            layout: &self.layout,
            entries: &entries,
        })
    }
}

/// Splits `groups` workgroups over x and y (each ≤ 65535); shaders rebuild
/// the flat index as `wid.y * num_workgroups.x + wid.x` and skip the excess.
pub fn dispatch_dims(groups: u32) -> (u32, u32) {
    let x = groups.clamp(1, 65_535);
    (x, groups.div_ceil(x).max(1))
}

/// The bind-group layout of one uniform of `bytes` at binding 0, seen by
/// `visibility`, and a pipeline layout of just that group: what the render
/// pipelines (the viewer, the interference passes) bind.
pub fn uniform_layouts(
    device: &wgpu::Device,
    label: &str,
    visibility: wgpu::ShaderStages,
    bytes: u64,
) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
    let group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(&format!("{label}::bind_group_layout")),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: wgpu::BufferSize::new(bytes),
            },
            count: None,
        }],
    });
    let pipeline = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(&format!("{label}::pipeline_layout")),
        bind_group_layouts: &[Some(&group)],
        immediate_size: 0,
    });
    (group, pipeline)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatch_covers_every_group_within_the_limit() {
        for groups in [0u32, 1, 64, 65_535, 65_536, 1_000_000, 4_194_304] {
            let (x, y) = dispatch_dims(groups);
            assert!(x <= 65_535 && y <= 65_535, "{groups}: {x}×{y}");
            assert!(x as u64 * y as u64 >= groups as u64, "{groups}: {x}×{y}");
        }
    }
}
