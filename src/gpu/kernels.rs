//! The compute boilerplate every stage shares: one shader's bind-group
//! layout, read from its WGSL ([`super::reflect`]), its pipelines, bind
//! groups checked against the WGSL, and dispatch sizes beyond the
//! per-dimension workgroup limit; and the one-uniform layout the render
//! pipelines share. Every compute pipeline of the crate is built here.
//!
//! # Bind groups
//!
//! A bind group is given by WGSL name ([`Kernels::bind`]) or in binding
//! order ([`Kernels::bind_group`]). Either way each resource is checked
//! against its declaration before the group is made: a buffer must have the
//! usage its binding needs (`UNIFORM` or `STORAGE`) and at least the bytes
//! of its WGSL type (a runtime-sized array with one element); a texture
//! binding takes a view. A [`BindingMismatch`] names the kernels' label, the
//! binding index and the WGSL name, so a buffer bound in the wrong place
//! fails where the bind group is made rather than as a wrong result.

use eframe::egui_wgpu::wgpu;

use super::reflect::{Binding, Reflected, ShaderBindings, shader_bindings};
use super::{GpuContext, ShaderSource};

/// A shader module and the layout its entry points share, read from the
/// WGSL ([`super::reflect`]): binding, kind and access of every
/// `@group(0)` resource.
pub struct Kernels {
    label: String,
    module: wgpu::ShaderModule,
    bindings: ShaderBindings,
    pub layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
}

/// A bind group that does not fit the shader: the wrong number of
/// resources, a buffer without the usage or the size its binding declares,
/// a name the shader does not declare.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{label}: {what}")]
pub struct BindingMismatch {
    /// The kernels' label.
    pub label: String,
    /// What is wrong, with the binding index and WGSL name.
    pub what: String,
}

/// What one bind-group entry holds, as far as the checks see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Given {
    /// `size` bytes of a buffer of `usage`.
    Buffer {
        usage: wgpu::BufferUsages,
        size: u64,
    },
    /// A texture view.
    Texture,
    /// Anything else (a sampler, an array of resources).
    Other,
}

impl Given {
    /// The part of `resource` the checks see.
    pub fn of(resource: &wgpu::BindingResource<'_>) -> Given {
        match resource {
            wgpu::BindingResource::Buffer(b) => Given::Buffer {
                usage: b.buffer.usage(),
                size: b
                    .size
                    .map_or(b.buffer.size().saturating_sub(b.offset), |s| s.get()),
            },
            wgpu::BindingResource::TextureView(_) => Given::Texture,
            _ => Given::Other,
        }
    }
}

/// Whether `given` fits binding `b`; the error says why not (without the
/// label).
pub fn check_binding(b: &Reflected, given: Given) -> Result<(), String> {
    let at = format!("@binding({}) `{}` ({:?})", b.binding, b.name, b.kind);
    let needs = match b.kind {
        Binding::Uniform => Some(wgpu::BufferUsages::UNIFORM),
        Binding::Storage(_) => Some(wgpu::BufferUsages::STORAGE),
        Binding::Texture(_) | Binding::StorageTexture(_) => None,
    };
    match (needs, given) {
        (Some(needs), Given::Buffer { usage, size }) => {
            if !usage.contains(needs) {
                return Err(format!("{at}: a buffer of usage {usage:?}, not {needs:?}"));
            }
            if size < b.min_size {
                return Err(format!(
                    "{at}: {size} bytes bound, the WGSL type needs {}",
                    b.min_size
                ));
            }
            Ok(())
        }
        (None, Given::Texture) => Ok(()),
        (_, given) => Err(format!("{at}: given {given:?}")),
    }
}

impl Kernels {
    /// The kernels of every entry point of `shader`: its layout binds every
    /// `@group(0)` resource the module declares.
    pub fn new(gpu: &GpuContext, label: &str, shader: &'static ShaderSource) -> Self {
        Self::with_bindings(gpu, label, shader, shader_bindings(shader).clone())
    }

    /// The kernels of `shader` and of `variants`, modules written for the
    /// same layout that need a device feature `shader` must not depend on
    /// (their pipelines made with [`Kernels::module_for`] where the device
    /// has it): the layout binds the union of their declarations.
    ///
    /// # Panics
    ///
    /// If two of them declare one binding differently.
    pub fn with_variants(
        gpu: &GpuContext,
        label: &str,
        shader: &'static ShaderSource,
        variants: &[&'static ShaderSource],
    ) -> Self {
        let mut bindings = shader_bindings(shader).clone();
        for &v in variants {
            bindings = bindings
                .union(shader_bindings(v))
                .unwrap_or_else(|e| panic!("{label}: {e}"));
        }
        Self::with_bindings(gpu, label, shader, bindings)
    }

    /// The kernels of the entry points `entries` of `shader` alone: its
    /// layout binds only the resources they use (naga's analysis).
    ///
    /// # Panics
    ///
    /// If `shader` has no entry point of one of these names.
    pub fn for_entries(
        gpu: &GpuContext,
        label: &str,
        shader: &'static ShaderSource,
        entries: &[&str],
    ) -> Self {
        let bindings = shader_bindings(shader)
            .used_by(entries)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        Self::with_bindings(gpu, label, shader, bindings)
    }

    fn with_bindings(
        gpu: &GpuContext,
        label: &str,
        shader: &ShaderSource,
        bindings: ShaderBindings,
    ) -> Self {
        let device = &gpu.device;
        let entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
            .bindings
            .iter()
            .map(|b| wgpu::BindGroupLayoutEntry {
                binding: b.binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: b.kind.ty(),
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
            bindings,
            layout,
            pipeline_layout,
        }
    }

    /// The bindings of the layout, as the WGSL declares them.
    pub fn bindings(&self) -> &ShaderBindings {
        &self.bindings
    }

    /// The compute pipeline of entry point `entry`, labelled `Label::entry`.
    pub fn pipeline(&self, gpu: &GpuContext, entry: &str) -> wgpu::ComputePipeline {
        self.pipeline_in(gpu, &self.module, entry)
    }

    /// The module of another shader written for this layout (one that needs
    /// a device feature the first module must not depend on), for
    /// [`Kernels::pipeline_in`].
    ///
    /// # Panics
    ///
    /// If `shader` declares a binding this layout lacks or binds otherwise.
    pub fn module_for(
        &self,
        gpu: &GpuContext,
        shader: &'static ShaderSource,
    ) -> wgpu::ShaderModule {
        for b in &shader_bindings(shader).bindings {
            let ours = self
                .bindings
                .bindings
                .iter()
                .find(|o| o.binding == b.binding);
            if ours.is_none_or(|o| o.kind != b.kind) {
                panic!(
                    "{}: {} declares @binding({}) `{}` ({:?}), the layout {:?}",
                    self.label,
                    shader.name,
                    b.binding,
                    b.name,
                    b.kind,
                    ours.map(|o| (&o.name, o.kind))
                );
            }
        }
        gpu.shader(shader)
    }

    /// The pipeline of entry point `entry` of `module` (from
    /// [`Kernels::module_for`]) over this layout.
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

    /// A bind group binding `buffers[i]` whole at the i-th binding of the
    /// layout (in binding order), each checked against its declaration.
    ///
    /// # Panics
    ///
    /// On a [`BindingMismatch`]: a programming error, like a wrong WGSL type.
    pub fn bind_group(&self, gpu: &GpuContext, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        let resources = buffers.iter().map(|b| b.as_entire_binding()).collect();
        self.bind_group_of(gpu, resources)
    }

    /// A bind group binding each named buffer whole at the binding its WGSL
    /// name declares; every binding of the layout named once (a binding of
    /// the module that [`Kernels::for_entries`] left out may be named too,
    /// and is skipped).
    ///
    /// # Panics
    ///
    /// On a [`BindingMismatch`].
    pub fn bind(&self, gpu: &GpuContext, named: &[(&str, &wgpu::Buffer)]) -> wgpu::BindGroup {
        let named = named
            .iter()
            .map(|&(name, b)| (name, b.as_entire_binding()))
            .collect();
        self.bind_resources(gpu, named)
    }

    /// [`Kernels::bind`] over any resources (buffers and texture views).
    ///
    /// # Panics
    ///
    /// On a [`BindingMismatch`].
    pub fn bind_resources(
        &self,
        gpu: &GpuContext,
        named: Vec<(&str, wgpu::BindingResource<'_>)>,
    ) -> wgpu::BindGroup {
        self.try_bind(gpu, named).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A bind group binding `resources[i]` (buffers and texture views) at
    /// the i-th binding of the layout, checked.
    ///
    /// # Panics
    ///
    /// On a [`BindingMismatch`].
    pub fn bind_group_of(
        &self,
        gpu: &GpuContext,
        resources: Vec<wgpu::BindingResource<'_>>,
    ) -> wgpu::BindGroup {
        self.try_bind_group_of(gpu, resources)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Kernels::bind_group_of`], the mismatch returned.
    pub fn try_bind_group_of(
        &self,
        gpu: &GpuContext,
        resources: Vec<wgpu::BindingResource<'_>>,
    ) -> Result<wgpu::BindGroup, BindingMismatch> {
        let declared = &self.bindings.bindings;
        if resources.len() != declared.len() {
            let names: Vec<_> = declared.iter().map(|b| b.name.as_str()).collect();
            return Err(self.mismatch(format!(
                "{} resources for the {} bindings of {} ({})",
                resources.len(),
                declared.len(),
                self.bindings.shader,
                names.join(", ")
            )));
        }
        let entries = declared.iter().zip(resources).collect();
        self.create(gpu, entries)
    }

    /// [`Kernels::bind`] over any resources, the mismatch returned.
    pub fn try_bind(
        &self,
        gpu: &GpuContext,
        mut named: Vec<(&str, wgpu::BindingResource<'_>)>,
    ) -> Result<wgpu::BindGroup, BindingMismatch> {
        let mut entries = Vec::with_capacity(named.len());
        for b in &self.bindings.bindings {
            let Some(i) = named.iter().position(|(n, _)| *n == b.name) else {
                return Err(self.mismatch(format!(
                    "@binding({}) `{}` of {} is not given",
                    b.binding, b.name, self.bindings.shader
                )));
            };
            entries.push((b, named.swap_remove(i).1));
        }
        let left_out = &self.bindings.left_out;
        if let Some((name, _)) = named.iter().find(|(n, _)| !left_out.iter().any(|l| l == n)) {
            return Err(self.mismatch(format!(
                "`{name}` is no binding of the layout of {} (or given twice)",
                self.bindings.shader
            )));
        }
        self.create(gpu, entries)
    }

    /// Checks each entry against its declaration and creates the group.
    fn create(
        &self,
        gpu: &GpuContext,
        entries: Vec<(&Reflected, wgpu::BindingResource<'_>)>,
    ) -> Result<wgpu::BindGroup, BindingMismatch> {
        let mut out = Vec::with_capacity(entries.len());
        for (b, resource) in entries {
            check_binding(b, Given::of(&resource)).map_err(|what| self.mismatch(what))?;
            out.push(wgpu::BindGroupEntry {
                binding: b.binding,
                resource,
            });
        }
        Ok(gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&format!("{}::bind_group", self.label)),
            layout: &self.layout,
            entries: &out,
        }))
    }

    fn mismatch(&self, what: String) -> BindingMismatch {
        BindingMismatch {
            label: self.label.clone(),
            what,
        }
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
    use crate::gpu::Access;

    fn declared(kind: Binding, min_size: u64) -> Reflected {
        Reflected {
            binding: 3,
            name: "cells".into(),
            kind,
            min_size,
        }
    }

    #[test]
    fn a_binding_takes_a_buffer_of_its_usage_and_size() {
        use wgpu::BufferUsages as U;
        let storage = declared(Binding::Storage(Access::ReadOnly), 16);
        let buffer = |usage, size| Given::Buffer { usage, size };
        assert_eq!(
            check_binding(&storage, buffer(U::STORAGE | U::COPY_DST, 16)),
            Ok(())
        );
        let err = check_binding(&storage, buffer(U::UNIFORM, 64)).unwrap_err();
        assert!(err.starts_with("@binding(3) `cells`"), "{err}");
        assert!(err.contains("not BufferUsages(STORAGE)"), "{err}");
        let err = check_binding(&storage, buffer(U::STORAGE, 12)).unwrap_err();
        assert!(
            err.contains("12 bytes bound, the WGSL type needs 16"),
            "{err}"
        );
        assert!(check_binding(&storage, Given::Texture).is_err());
        let uniform = declared(Binding::Uniform, 32);
        assert_eq!(check_binding(&uniform, buffer(U::UNIFORM, 32)), Ok(()));
        assert!(check_binding(&uniform, buffer(U::STORAGE, 32)).is_err());
        let texture = declared(Binding::Texture(wgpu::TextureSampleType::Uint), 0);
        assert_eq!(check_binding(&texture, Given::Texture), Ok(()));
        assert!(check_binding(&texture, buffer(U::STORAGE, 16)).is_err());
    }

    #[test]
    fn dispatch_covers_every_group_within_the_limit() {
        for groups in [0u32, 1, 64, 65_535, 65_536, 1_000_000, 4_194_304] {
            let (x, y) = dispatch_dims(groups);
            assert!(x <= 65_535 && y <= 65_535, "{groups}: {x}×{y}");
            assert!(x as u64 * y as u64 >= groups as u64, "{groups}: {x}×{y}");
        }
    }
}
