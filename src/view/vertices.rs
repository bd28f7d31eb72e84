//! The viewer's vertex and uniform types, mirrored by `shaders/view.wgsl`
//! (its vertex layouts, `ViewUniforms` and the `FILTER_*` bits; checked by
//! tests/it/shader_layouts.rs through [`super::layouts`]).

use glam::Vec3;

/// A vertex of a line list (debug lines and the wireframe); colour is
/// linear RGBA. Vertex layout of `vs_lines`/`vs_wire` in shaders/view.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LineVertex {
    pub pos: [f32; 3],
    pub color: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<LineVertex>() == 28);

impl LineVertex {
    pub fn new(pos: Vec3, color: [f32; 4]) -> Self {
        LineVertex {
            pos: pos.to_array(),
            color,
        }
    }
}

/// A vertex of the flat-shaded mesh: position, its triangle's normal, linear
/// RGBA colour. Vertex layout of `vs_mesh` in shaders/view.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MeshVertex {
    pub pos: [f32; 3],
    pub normal: [f32; 3],
    pub color: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<MeshVertex>() == 40);

/// Per-frame uniforms: `ViewUniforms` of shaders/view.wgsl (the layout is
/// checked by tests/it/shader_layouts.rs, like the vertex types and filter
/// bits here).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ViewUniforms {
    pub clip_from_world: [[f32; 4]; 4],
    pub view_from_world: [[f32; 4]; 4],
    /// xyz: eye; w: 0.
    pub eye: [f32; 4],
    /// width px, height px, point size px, wireframe depth offset.
    pub viewport: [f32; 4],
    /// normal xyz, offset.
    pub clip_plane: [f32; 4],
    /// colour range low end, band, high end, mesh opacity.
    pub cell_params: [f32; 4],
    /// colour map id, filter bits, 0, 0.
    pub cell_flags: [u32; 4],
}
const _: () = assert!(std::mem::size_of::<ViewUniforms>() == 208);

/// Filter bits: FILTER_* of shaders/view.wgsl.
pub const FILTER_INSIDE: u32 = 1;
pub const FILTER_OUTSIDE: u32 = 2;
pub const FILTER_BAND: u32 = 4;
pub const FILTER_CLIP: u32 = 8;
