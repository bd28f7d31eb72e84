//! A shader's bindings read from its WGSL, so that Rust never lists them by
//! hand.
//!
//! # Method
//!
//! [`reflect`] parses a shader module (its includes resolved) with naga and
//! reads every global resource of `@group(0)`: its `@binding` index, its
//! WGSL name, its kind ([`Binding`]: uniform, storage read or read-write,
//! sampled texture, storage texture with its format) and, for buffers, the
//! fewest bytes it may be bound with — the type's size, a runtime-sized
//! array counted with one element, as WebGPU counts it. The list, sorted by
//! binding, is a [`ShaderBindings`]; [`super::Kernels`] builds its
//! bind-group layout from it and checks every bind group against it.
//!
//! By default a layout is the union of the module's declarations (every
//! entry point of the module shares it). [`ShaderBindings::used_by`] keeps
//! only the bindings some of the entry points use (naga's analysis of each
//! entry point, its callees included), for a pass whose layout must end
//! before a buffer the module's other passes bind.
//!
//! [`shader_bindings`] reflects each embedded module once per process.
//! A module that does not reflect (a binding outside group 0, a resource
//! kind the crate does not bind) is a programming error: it panics with the
//! shader's name, and `tests/it/shader_bindings.rs` reflects every module.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use eframe::egui_wgpu::wgpu;

use super::shaders::ShaderSource;

/// How a storage buffer is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    ReadOnly,
    ReadWrite,
}

/// What one binding of a [`super::Kernels`] layout holds (seen by compute only).
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
    /// The layout entry's type for this binding.
    pub(crate) fn ty(self) -> wgpu::BindingType {
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

/// One `@group(0)` resource of a shader, as its WGSL declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reflected {
    /// Its `@binding` index.
    pub binding: u32,
    /// Its WGSL name.
    pub name: String,
    pub kind: Binding,
    /// The fewest bytes a buffer may be bound with (0 for textures).
    pub min_size: u64,
}

/// Every `@group(0)` resource of a shader, sorted by binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderBindings {
    /// The shader's file name under `shaders/`.
    pub shader: String,
    pub bindings: Vec<Reflected>,
    /// The bindings each entry point uses (by entry-point name).
    uses: Vec<(String, Vec<u32>)>,
    /// The names of the module's bindings [`ShaderBindings::used_by`] left
    /// out.
    pub left_out: Vec<String>,
}

/// Why a shader's bindings could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReflectError {
    #[error("{shader}: {message}")]
    Parse { shader: String, message: String },
    #[error("{shader}: `{name}` is in @group({group}); only group 0 is bound")]
    Group {
        shader: String,
        name: String,
        group: u32,
    },
    #[error("{shader}: `{name}` at @binding({binding}) is {what}, which no layout binds")]
    Unsupported {
        shader: String,
        name: String,
        binding: u32,
        what: String,
    },
    #[error("{shader}: no entry point `{entry}`")]
    NoEntry { shader: String, entry: String },
    #[error("{shader} and {other} declare @binding({binding}) differently: {ours} vs {theirs}")]
    Conflict {
        shader: String,
        other: String,
        binding: u32,
        ours: String,
        theirs: String,
    },
}

impl ShaderBindings {
    /// The binding named `name` in the WGSL.
    pub fn by_name(&self, name: &str) -> Option<&Reflected> {
        self.bindings.iter().find(|b| b.name == name)
    }

    /// The union of these bindings and `other`'s (a variant of the module
    /// written for the same layout); a binding both declare must agree in
    /// name and kind.
    pub fn union(&self, other: &ShaderBindings) -> Result<ShaderBindings, ReflectError> {
        let mut out = self.clone();
        for theirs in &other.bindings {
            match out.bindings.iter().find(|b| b.binding == theirs.binding) {
                Some(ours) if ours.name != theirs.name || ours.kind != theirs.kind => {
                    return Err(ReflectError::Conflict {
                        shader: self.shader.clone(),
                        other: other.shader.clone(),
                        binding: ours.binding,
                        ours: format!("`{}` ({:?})", ours.name, ours.kind),
                        theirs: format!("`{}` ({:?})", theirs.name, theirs.kind),
                    });
                }
                Some(ours) => {
                    let min_size = ours.min_size.max(theirs.min_size);
                    let i = out
                        .bindings
                        .iter()
                        .position(|b| b.binding == theirs.binding);
                    if let Some(i) = i {
                        out.bindings[i].min_size = min_size;
                    }
                }
                None => out.bindings.push(theirs.clone()),
            }
        }
        out.bindings.sort_by_key(|b| b.binding);
        Ok(out)
    }

    /// The bindings the entry points `entries` use, the others left out.
    pub fn used_by(&self, entries: &[&str]) -> Result<ShaderBindings, ReflectError> {
        let mut used = Vec::new();
        for &entry in entries {
            let (_, bindings) = self.uses.iter().find(|(e, _)| e == entry).ok_or_else(|| {
                ReflectError::NoEntry {
                    shader: self.shader.clone(),
                    entry: entry.to_string(),
                }
            })?;
            used.extend_from_slice(bindings);
        }
        let (bindings, left_out): (Vec<_>, Vec<_>) = self
            .bindings
            .iter()
            .cloned()
            .partition(|b| used.contains(&b.binding));
        Ok(ShaderBindings {
            shader: self.shader.clone(),
            bindings,
            uses: self.uses.clone(),
            left_out: left_out.into_iter().map(|b| b.name).collect(),
        })
    }
}

/// Reads the `@group(0)` bindings of `source`'s WGSL.
pub fn reflect(source: &ShaderSource) -> Result<ShaderBindings, ReflectError> {
    let shader = source.name.to_string();
    let parse_error = |message| ReflectError::Parse {
        shader: shader.clone(),
        message,
    };
    let module = naga::front::wgsl::parse_str(source.code)
        .map_err(|e| parse_error(e.emit_to_string(source.code)))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| parse_error(e.emit_to_string(source.code)))?;
    let mut bindings = Vec::new();
    let mut handles = Vec::new();
    for (handle, var) in module.global_variables.iter() {
        let Some(rb) = &var.binding else { continue };
        let name = var.name.clone().unwrap_or_default();
        if rb.group != 0 {
            return Err(ReflectError::Group {
                shader,
                name,
                group: rb.group,
            });
        }
        let unsupported = |what: String| ReflectError::Unsupported {
            shader: shader.clone(),
            name: name.clone(),
            binding: rb.binding,
            what,
        };
        let inner = &module.types[var.ty].inner;
        let size = || u64::from(inner.try_size(module.to_ctx()).unwrap_or(0));
        let (kind, min_size) = match (var.space, inner) {
            (naga::AddressSpace::Uniform, _) => (Binding::Uniform, size()),
            (naga::AddressSpace::Storage { access }, _) => {
                let access = if access.contains(naga::StorageAccess::STORE) {
                    Access::ReadWrite
                } else {
                    Access::ReadOnly
                };
                (Binding::Storage(access), size())
            }
            (
                naga::AddressSpace::Handle,
                naga::TypeInner::Image {
                    dim,
                    arrayed,
                    class,
                },
            ) => {
                if *dim != naga::ImageDimension::D2 || *arrayed {
                    return Err(unsupported(format!("a {dim:?} image (arrayed: {arrayed})")));
                }
                (image_binding(class).map_err(unsupported)?, 0)
            }
            (space, inner) => return Err(unsupported(format!("{inner:?} in {space:?}"))),
        };
        handles.push((handle, rb.binding));
        bindings.push(Reflected {
            binding: rb.binding,
            name,
            kind,
            min_size,
        });
    }
    bindings.sort_by_key(|b| b.binding);
    let uses = module
        .entry_points
        .iter()
        .enumerate()
        .map(|(i, ep)| {
            let fun = info.get_entry_point(i);
            let used = handles
                .iter()
                .filter(|&&(h, _)| !fun[h].is_empty())
                .map(|&(_, b)| b)
                .collect();
            (ep.name.clone(), used)
        })
        .collect();
    Ok(ShaderBindings {
        shader,
        bindings,
        uses,
        left_out: Vec::new(),
    })
}

/// The binding of a 2D image of `class`.
fn image_binding(class: &naga::ImageClass) -> Result<Binding, String> {
    match *class {
        naga::ImageClass::Sampled { kind, multi: false } => Ok(Binding::Texture(match kind {
            // Read with textureLoad: unfilterable accepts every float format.
            naga::ScalarKind::Float => wgpu::TextureSampleType::Float { filterable: false },
            naga::ScalarKind::Uint => wgpu::TextureSampleType::Uint,
            naga::ScalarKind::Sint => wgpu::TextureSampleType::Sint,
            other => return Err(format!("a texture of {other:?}")),
        })),
        naga::ImageClass::Storage { format, access } if access == naga::StorageAccess::STORE => {
            Ok(Binding::StorageTexture(storage_format(format)?))
        }
        other => Err(format!("{other:?}")),
    }
}

/// The texture format of a storage texture's WGSL format.
fn storage_format(format: naga::StorageFormat) -> Result<wgpu::TextureFormat, String> {
    use naga::StorageFormat as S;
    use wgpu::TextureFormat as T;
    Ok(match format {
        S::R32Uint => T::R32Uint,
        S::R32Sint => T::R32Sint,
        S::R32Float => T::R32Float,
        S::Rg32Uint => T::Rg32Uint,
        S::Rg32Float => T::Rg32Float,
        S::Rgba8Unorm => T::Rgba8Unorm,
        S::Rgba16Float => T::Rgba16Float,
        S::Rgba32Uint => T::Rgba32Uint,
        S::Rgba32Float => T::Rgba32Float,
        other => return Err(format!("a storage texture of {other:?}")),
    })
}

/// The bindings of an embedded shader module, reflected once per process.
///
/// # Panics
///
/// If the module does not reflect: the embedded shaders are fixed at build
/// time and `tests/it/shader_bindings.rs` reflects every one.
pub fn shader_bindings(source: &'static ShaderSource) -> &'static ShaderBindings {
    // Keyed by the text's address: one entry per embedded module.
    static CACHE: LazyLock<Mutex<HashMap<usize, &'static ShaderBindings>>> =
        LazyLock::new(Mutex::default);
    let key = source.code.as_ptr() as usize;
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache.entry(key).or_insert_with(|| {
        let reflected = reflect(source).unwrap_or_else(|e| panic!("{e}"));
        Box::leak(Box::new(reflected))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(code: &'static str) -> ShaderSource {
        ShaderSource {
            name: "test.wgsl",
            code,
        }
    }

    const CODE: &str = "
        struct P { n: u32, scale: f32, _pad: vec2<u32> }
        @group(0) @binding(0) var<uniform> params: P;
        @group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
        @group(0) @binding(1) var<storage, read> cells: array<u32>;
        @group(0) @binding(3) var ids: texture_2d<u32>;
        @group(0) @binding(4) var marks: texture_storage_2d<r32uint, write>;
        @compute @workgroup_size(1) fn a() { out[0] = vec4(f32(cells[0]) * params.scale); }
        @compute @workgroup_size(1) fn b() {
            textureStore(marks, vec2(0i), vec4(textureLoad(ids, vec2(0i), 0).x));
        }
    ";

    #[test]
    fn reads_every_binding_sorted_with_kind_and_size() {
        let r = reflect(&source(CODE)).unwrap();
        let got: Vec<_> = r
            .bindings
            .iter()
            .map(|b| (b.binding, b.name.as_str(), b.kind, b.min_size))
            .collect();
        assert_eq!(
            got,
            [
                (0, "params", Binding::Uniform, 16),
                (1, "cells", Binding::Storage(Access::ReadOnly), 4),
                (2, "out", Binding::Storage(Access::ReadWrite), 16),
                (3, "ids", Binding::Texture(wgpu::TextureSampleType::Uint), 0),
                (
                    4,
                    "marks",
                    Binding::StorageTexture(wgpu::TextureFormat::R32Uint),
                    0
                ),
            ]
        );
    }

    #[test]
    fn used_by_keeps_what_the_entry_points_touch() {
        let r = reflect(&source(CODE)).unwrap();
        let names = |s: ShaderBindings| s.bindings.into_iter().map(|b| b.name).collect::<Vec<_>>();
        assert_eq!(
            names(r.used_by(&["a"]).unwrap()),
            ["params", "cells", "out"]
        );
        assert_eq!(names(r.used_by(&["b"]).unwrap()), ["ids", "marks"]);
        assert!(matches!(
            r.used_by(&["c"]),
            Err(ReflectError::NoEntry { .. })
        ));
    }

    #[test]
    fn another_group_is_an_error_naming_the_variable() {
        let code = "@group(1) @binding(0) var<storage, read> x: array<u32>;
            @compute @workgroup_size(1) fn main() { _ = x[0]; }";
        let err = reflect(&source(code)).unwrap_err();
        assert!(err.to_string().contains("`x` is in @group(1)"), "{err}");
    }
}
