//! The compute boilerplate every stage shares: one shader's bind-group
//! layout (a uniform at binding 0, then storage buffers), its pipelines,
//! bind groups over a list of buffers, and dispatch sizes beyond the
//! per-dimension workgroup limit; and the one-uniform layout the render
//! pipelines share.

use eframe::egui_wgpu::wgpu;

use super::{GpuContext, ShaderSource};

/// How a storage buffer is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    ReadOnly,
    ReadWrite,
}

/// A shader module and the layout its entry points share:
/// `@binding(0)` a uniform, `@binding(1..)` storage buffers as `storage`.
pub struct Kernels {
    label: String,
    module: wgpu::ShaderModule,
    pub layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
}

impl Kernels {
    pub fn new(gpu: &GpuContext, label: &str, shader: &ShaderSource, storage: &[Access]) -> Self {
        let device = &gpu.device;
        let entry = |binding: u32, ty: wgpu::BufferBindingType| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let entries: Vec<wgpu::BindGroupLayoutEntry> =
            std::iter::once(entry(0, wgpu::BufferBindingType::Uniform))
                .chain(storage.iter().enumerate().map(|(i, a)| {
                    entry(
                        i as u32 + 1,
                        wgpu::BufferBindingType::Storage {
                            read_only: *a == Access::ReadOnly,
                        },
                    )
                }))
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
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
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
