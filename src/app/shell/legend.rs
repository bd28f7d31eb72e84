//! The colour bar drawn over the viewport: the active colour map from `lo`
//! to `hi`, in mesh units — signed distance from −range (inside) to +range
//! (outside), or a heat map of differences from 0.

use eframe::egui;

use crate::view::ViewSettings;

/// What the colour bar shows.
pub struct ColorBar {
    pub title: &'static str,
    pub lo: f32,
    pub hi: f32,
    /// Signed distance (zero is the surface), else a magnitude from 0.
    pub signed: bool,
}

impl ColorBar {
    /// Signed distance over the view's colour range.
    pub fn signed_distance(view: &ViewSettings) -> Self {
        ColorBar {
            title: "signed distance (mesh units)",
            lo: -view.value_range,
            hi: view.value_range,
            signed: true,
        }
    }
}

/// Draws `bar` at the viewport's right edge (when cells are shown).
pub fn color_bar_ui(ui: &mut egui::Ui, view: &ViewSettings, bar: ColorBar) {
    if !view.show_cells {
        return;
    }
    let ColorBar {
        title,
        lo,
        hi,
        signed,
    } = bar;
    let rect = ui.max_rect();
    let bar = egui::Rect::from_min_size(
        egui::pos2(rect.right() - 70.0, rect.top() + 40.0),
        egui::vec2(18.0, (rect.height() - 120.0).clamp(80.0, 360.0)),
    );
    let painter = ui.painter();
    painter.rect_filled(
        bar.expand2(egui::vec2(58.0, 30.0))
            .translate(egui::vec2(-20.0, 4.0)),
        4.0,
        egui::Color32::from_black_alpha(150),
    );
    let steps = 64;
    for i in 0..steps {
        let t0 = i as f32 / steps as f32;
        let t1 = (i + 1) as f32 / steps as f32;
        let value = hi - (t0 + 0.5 / steps as f32) * (hi - lo);
        let [r, g, b, _] = view
            .color_map
            .color(value, if signed { view.value_range } else { hi });
        let r0 = egui::Rect::from_min_max(
            egui::pos2(bar.left(), bar.top() + t0 * bar.height()),
            egui::pos2(bar.right(), bar.top() + t1 * bar.height()),
        );
        painter.rect_filled(r0, 0.0, egui::Color32::from_rgb(r, g, b));
    }
    painter.rect_stroke(
        bar,
        0.0,
        egui::Stroke::new(1.0, egui::Color32::WHITE),
        egui::StrokeKind::Outside,
    );
    let font = egui::FontId::proportional(12.0);
    let label = |y: f32, text: String| {
        painter.text(
            egui::pos2(bar.left() - 6.0, y),
            egui::Align2::RIGHT_CENTER,
            text,
            font.clone(),
            egui::Color32::WHITE,
        );
    };
    label(bar.top(), format!("{hi:+.3}"));
    label(
        bar.center().y,
        if signed {
            "0 (surface)".into()
        } else {
            format!("{:.3}", 0.5 * (lo + hi))
        },
    );
    label(
        bar.bottom(),
        if signed {
            format!("{lo:+.3}")
        } else {
            "0".into()
        },
    );
    painter.text(
        egui::pos2(bar.right() + 2.0, bar.top() - 14.0),
        egui::Align2::RIGHT_BOTTOM,
        title,
        font.clone(),
        egui::Color32::WHITE,
    );
    if signed {
        painter.text(
            egui::pos2(bar.right() + 2.0, bar.bottom() + 14.0),
            egui::Align2::RIGHT_TOP,
            "outside + / inside −",
            font,
            egui::Color32::WHITE,
        );
    }
}
