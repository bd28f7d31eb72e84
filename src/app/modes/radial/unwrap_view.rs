//! The unwrap of one field in the bottom panel, beside the profiler (never
//! over the 3D view): the θ × z image in false colour
//! (`crate::view::unwrap`: near blue, far red, empty cells a grey
//! checker), θ across from the seam θ = 0 (the field's normal u) to the
//! seam again at θ = 1, z down from A, the colour key with ticks and a
//! histogram, and a readout of θ, z and the distance under the pointer.
//! [`picture`] gives the same image to the panel and to the figure
//! export (colour key, θ and z axes, caption).

use eframe::egui;

use crate::app::shell::image_view::{Coloring, Extent, ImageView, Picture};
use crate::app::shell::legend::sig_figs;
use crate::plot::figure::upscale;
use crate::view::ColorMap;
use crate::view::unwrap::unwrap_rgba;

/// The unwrap's least width in a figure at 1×, in pixels.
pub const FIGURE_WIDTH: u32 = 384;

/// One field's cells and how to show them.
pub struct Unwrap<'a> {
    pub title: String,
    pub values: &'a [f32],
    pub n_theta: u32,
    pub n_z: u32,
    /// The colour scale: `lo` blue, `hi` red.
    pub lo: f32,
    pub hi: f32,
}

/// `u` as a figure: the unwrap's own colours (empty cells in the grey
/// checker, NaN in the values so the histogram leaves them out), the
/// distance scale, θ across and z down from A, titled by `u.title`.
pub fn picture(u: &Unwrap<'_>) -> Picture {
    let pixels = unwrap_rgba(u.values, u.n_theta, (u.lo, u.hi));
    // Each cell a block of pixels, so that a coarse unwrap is not a
    // stamp beside its labels: at least FIGURE_WIDTH pixels across at 1×.
    let cells = image::RgbaImage::from_raw(u.n_theta, u.n_z, bytemuck::cast_vec(pixels));
    let block = (FIGURE_WIDTH / u.n_theta.max(1)).max(1);
    Picture {
        width: u.n_theta,
        height: u.n_z,
        values: u
            .values
            .iter()
            .map(|&v| if v.is_finite() { v } else { f32::NAN })
            .collect(),
        pixels: cells.map(|c| upscale(&c, block)),
        coloring: Coloring::Scale {
            map: ColorMap::Sundholm,
            lo: u.lo,
            hi: u.hi,
            title: "distance from the axis (mesh units)".into(),
            threshold: None,
        },
        axes: Some([
            Extent {
                label: "θ (turns from u; 0 and 1: the seam)".into(),
                lo: 0.0,
                hi: 1.0,
            },
            Extent {
                label: "z (0 at A, 1 at B)".into(),
                lo: 1.0,
                hi: 0.0,
            },
        ]),
        caption: u.title.clone(),
        // θ and z are fractions of a turn and of the bone.
        world_aspect: false,
    }
}

/// The image of `u` as an egui texture (created or updated in `slot`).
pub fn texture(
    ctx: &egui::Context,
    slot: &mut Option<egui::TextureHandle>,
    name: &str,
    u: &Unwrap<'_>,
) -> egui::TextureId {
    let pixels = unwrap_rgba(u.values, u.n_theta, (u.lo, u.hi));
    let image = egui::ColorImage::from_rgba_unmultiplied(
        [u.n_theta as usize, u.n_z as usize],
        bytemuck::cast_slice(&pixels),
    );
    match slot {
        Some(t) => t.set(image, egui::TextureOptions::NEAREST),
        None => *slot = Some(ctx.load_texture(name, image, egui::TextureOptions::NEAREST)),
    }
    slot.as_ref().expect("set above").id()
}

/// Shows `u` in the bottom panel's image column with `view` (the shell's
/// image widget: θ and z axes, the colour key with its histogram, the
/// readout of the cell under the pointer), so the unwrap never covers
/// the character. The picture is remade when the values change.
pub fn unwrap_ui(ui: &mut egui::Ui, view: &mut ImageView, u: &Unwrap<'_>) {
    let key = (
        u.n_theta,
        u.n_z,
        &u.title,
        u.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
    );
    view.show(
        ui,
        key,
        || picture(u),
        None,
        |[i, k]| {
            let v = *u.values.get((k * u.n_theta + i) as usize)?;
            let theta = (i as f32 + 0.5) / u.n_theta as f32;
            let z = (k as f32 + 0.5) / u.n_z as f32;
            let d = if v.is_finite() {
                sig_figs(v as f64, 4)
            } else {
                "+inf (empty)".into()
            };
            Some(format!(
                "cell ({i}, {k})  θ {theta:.3}  z {z:.3}  distance {d}"
            ))
        },
    );
}
