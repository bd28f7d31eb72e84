//! The unwrap of one field drawn over the viewport: the θ × z image in
//! false colour (`crate::view::unwrap`: near blue, far red, empty cells a
//! grey checker), the seam θ = 0 (the field's normal u) marked at both
//! edges, a colour bar with ticks, and a readout of θ, z and the distance
//! under the pointer. [`picture`] gives the same image to the shell's
//! figure export (colour key, θ and z axes, caption).

use eframe::egui;

use crate::app::shell::image_view::{Coloring, Extent, Picture};
use crate::app::shell::legend::sig_figs;
use crate::view::ColorMap;
use crate::view::unwrap::unwrap_rgba;

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
    Picture {
        width: u.n_theta,
        height: u.n_z,
        values: u
            .values
            .iter()
            .map(|&v| if v.is_finite() { v } else { f32::NAN })
            .collect(),
        pixels: image::RgbaImage::from_raw(u.n_theta, u.n_z, bytemuck::cast_vec(pixels)),
        coloring: Coloring::Scale {
            map: ColorMap::Sundholm,
            lo: u.lo,
            hi: u.hi,
            title: "distance from the axis (mesh units); grey checker: empty (+inf)".into(),
            threshold: None,
        },
        axes: Some([
            Extent {
                label: "θ (turns from u)".into(),
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

/// Draws `u` with `texture` in `rect`, with the seam, the colour bar to its
/// right and the hover readout.
pub fn unwrap_ui(ui: &mut egui::Ui, rect: egui::Rect, texture: egui::TextureId, u: &Unwrap<'_>) {
    let painter = ui.painter_at(rect.expand2(egui::vec2(150.0, 60.0)));
    let frame = rect
        .expand2(egui::vec2(8.0, 26.0))
        .translate(egui::vec2(0.0, -8.0));
    painter.rect_filled(
        frame.union(
            rect.expand2(egui::vec2(80.0, 0.0))
                .translate(egui::vec2(72.0, 0.0)),
        ),
        4.0,
        egui::Color32::from_black_alpha(170),
    );
    let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
    painter.image(texture, rect, uv, egui::Color32::WHITE);
    let seam = egui::Stroke::new(2.0, egui::Color32::from_rgb(255, 0, 200));
    painter.vline(rect.left(), rect.y_range(), seam);
    painter.vline(rect.right(), rect.y_range(), seam);
    let font = egui::FontId::proportional(12.0);
    let white = egui::Color32::WHITE;
    painter.text(
        rect.left_top() - egui::vec2(0.0, 4.0),
        egui::Align2::LEFT_BOTTOM,
        &u.title,
        font.clone(),
        white,
    );
    painter.text(
        rect.left_bottom() + egui::vec2(0.0, 2.0),
        egui::Align2::LEFT_TOP,
        "θ = 0: seam, along u   (z grows downwards from A)",
        font.clone(),
        seam.color,
    );
    painter.text(
        rect.right_bottom() + egui::vec2(0.0, 2.0),
        egui::Align2::RIGHT_TOP,
        "θ = 1: seam",
        font.clone(),
        seam.color,
    );
    // The colour bar.
    let bar = egui::Rect::from_min_size(
        rect.right_top() + egui::vec2(14.0, 0.0),
        egui::vec2(14.0, rect.height()),
    );
    let steps = 48;
    for i in 0..steps {
        let (t0, t1) = (i as f32 / steps as f32, (i + 1) as f32 / steps as f32);
        let value = (u.hi - u.lo) * (1.0 - (t0 + t1) * 0.5);
        let [r, g, b, _] = ColorMap::Sundholm.color(value, u.hi - u.lo);
        let cell = egui::Rect::from_x_y_ranges(
            bar.x_range(),
            bar.top() + t0 * bar.height()..=bar.top() + t1 * bar.height(),
        );
        painter.rect_filled(cell, 0.0, egui::Color32::from_rgb(r, g, b));
    }
    painter.rect_stroke(
        bar,
        0.0,
        egui::Stroke::new(1.0, white),
        egui::StrokeKind::Outside,
    );
    for i in 0..5 {
        let t = i as f32 / 4.0;
        let text = sig_figs((u.hi - t * (u.hi - u.lo)) as f64, 3);
        let y = bar.top() + t * bar.height();
        painter.hline(
            bar.right()..=bar.right() + 4.0,
            y,
            egui::Stroke::new(1.0, white),
        );
        painter.text(
            egui::pos2(bar.right() + 6.0, y),
            egui::Align2::LEFT_CENTER,
            text,
            font.clone(),
            white,
        );
    }
    painter.text(
        bar.center_bottom() + egui::vec2(0.0, 2.0),
        egui::Align2::CENTER_TOP,
        "distance",
        font.clone(),
        white,
    );
    let empty = egui::Rect::from_min_size(
        bar.left_bottom() + egui::vec2(0.0, 18.0),
        egui::vec2(14.0, 10.0),
    );
    painter.rect_filled(empty, 0.0, egui::Color32::from_gray(88));
    painter.text(
        empty.right_center() + egui::vec2(4.0, 0.0),
        egui::Align2::LEFT_CENTER,
        "empty (+inf)",
        font.clone(),
        white,
    );
    // The readout.
    if let Some(p) = ui.ctx().pointer_hover_pos().filter(|p| rect.contains(*p)) {
        let fx = ((p.x - rect.left()) / rect.width()).clamp(0.0, 0.9999);
        let fz = ((p.y - rect.top()) / rect.height()).clamp(0.0, 0.9999);
        let (i, k) = ((fx * u.n_theta as f32) as u32, (fz * u.n_z as f32) as u32);
        let v = u.values[(k * u.n_theta + i) as usize];
        let theta = (i as f32 + 0.5) / u.n_theta as f32;
        let z = (k as f32 + 0.5) / u.n_z as f32;
        let d = if v.is_finite() {
            format!("{v:.4}")
        } else {
            "+inf (empty)".into()
        };
        let text = format!("cell ({i}, {k})  θ {theta:.3}  z {z:.3}  distance {d}");
        painter.text(
            rect.left_top() - egui::vec2(0.0, 18.0),
            egui::Align2::LEFT_BOTTOM,
            text,
            font,
            egui::Color32::YELLOW,
        );
    }
}
