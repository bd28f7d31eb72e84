//! The 3D view: camera, colour maps, offscreen render target, the render
//! pipelines and 2D field slices.
//!
//! # Render path
//!
//! Everything is drawn offscreen: [`ViewRenderer`] records one render pass
//! (clear, flat-shaded mesh, wireframe, instanced cell sprites, debug
//! lines) into a [`RenderTarget`] — an `Rgba8UnormSrgb` colour texture plus
//! `Depth32Float` depth. The viewer registers the colour texture with egui
//! (`egui_wgpu::Renderer::register_native_texture`) and shows it as an image
//! in the viewport, recording frames with [`ViewRenderer::render_encoder`];
//! the CLI (`collidoscope render`) calls [`ViewRenderer::render`] and reads
//! the target back with [`RenderTarget::read_rgba`] into a PNG. Both paths
//! draw the same pixels, so screenshots and tests see what the viewer shows.
//!
//! Field cells are instanced point sprites: one `[x, y, z, value]` instance
//! per cell, a screen-space quad built in the vertex shader, coloured by the
//! colour map and filtered (inside/outside, band, clip plane) there too, so
//! a view change costs no CPU work per cell — millions of cells stay
//! interactive. Slices ([`slice_image`]) are computed on the CPU into
//! images for 2D display.
//!
//! Shaders: `shaders/view.wgsl`.

mod camera;
mod colormap;
#[doc(hidden)]
pub mod layouts;
mod renderer;
mod settings;
mod slice;
mod target;
pub mod unwrap;
mod vertices;

pub use camera::{AxisView, Camera, MAX_PITCH};
pub use colormap::{ColorMap, lightness, linear_to_srgb, srgb_to_linear};
pub use renderer::{MESH_GREY, ViewRenderer};
pub use settings::{CellFilter, ClipPlane, MIN_OPACITY, MeshMode, ViewSettings};
pub use slice::{
    Axis, slice_cell, slice_dims, slice_extents, slice_image, slice_place, slice_values,
};
pub use target::{COLOR_FORMAT, DEPTH_FORMAT, RenderTarget};
pub use vertices::{LineVertex, MeshVertex};

use crate::stages::sdf::SdfField;

/// The instances [`ViewRenderer::set_cells`] takes: every cell's centre and
/// value, in the field's cell order.
pub fn cells_from_field(field: &SdfField) -> Vec<[f32; 4]> {
    use rayon::prelude::*;
    let count = field.grid.num_cells().min(field.values.len());
    (0..count)
        .into_par_iter()
        .map(|i| {
            let p = field.grid.center_of(i);
            [p.x, p.y, p.z, field.values[i]]
        })
        .collect()
}

/// A colour-map range that shows a field well (see the comment inside), or
/// a quarter of the grid's diagonal for a field with no near cells.
pub fn default_value_range(field: &SdfField) -> f32 {
    let far = crate::stages::sdf::FAR;
    let (inside, outside) = field
        .values
        .iter()
        // A field read without its closest triangles has no far cells.
        .zip(field.closest.iter().chain(std::iter::repeat(&0)))
        .filter(|(v, c)| **c != far && v.is_finite())
        .fold((0.0f32, 0.0f32), |(i, o), (&v, _)| {
            if v < 0.0 {
                (i.max(-v), o)
            } else {
                (i, o.max(v))
            }
        });
    // The deepest inside cell sets the scale, so the inside shows its
    // gradient; the outside saturates beyond it (but never below 35% of
    // its own extent).
    let range = inside.max(0.35 * outside);
    if range > 0.0 {
        range
    } else {
        0.25 * field.grid.bounds().diagonal().max(1e-6)
    }
}
