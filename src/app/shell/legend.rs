//! The colour bar drawn over the viewport: the active colour map from `lo`
//! to `hi`, in mesh units — signed distance from −range (inside) to +range
//! (outside), or a heat map of differences from 0 — and the caption of
//! what the view shows.
//!
//! The bar's ticks, colours and caption come from
//! [`crate::plot::legend`], as in the figures the CLI writes.

use eframe::egui;

use super::Shell;
use crate::plot::figure::Key;
pub use crate::plot::legend::{ColorBar, TICK_FIGURES, sig_figs, ticks};

/// Width of the colour bar's column at the viewport's right edge; captions
/// wrap left of it, so no text overlaps the bar.
pub const BAR_COLUMN: f32 = 200.0;

/// Draws `bar` at the viewport's right edge (when cells are shown), with
/// the histogram of the shown cells' values beside it.
pub fn color_bar_ui(ui: &mut egui::Ui, shell: &mut Shell, bar: ColorBar) {
    let view = shell.settings.view;
    if !view.show_cells {
        return;
    }
    let histogram = shell.viewport.value_histogram(bar.lo, bar.hi);
    let key = Key::Bar(bar.key(view.color_map, histogram));
    let mesh = shell
        .mesh
        .scene
        .as_ref()
        .map_or("no mesh".into(), |s| s.source.label());
    let caption = bar.caption(&mesh, view.color_map);
    shell.shown_key = Some((key.clone(), caption));
    let rect = ui.max_rect();
    let column = egui::Rect::from_min_max(
        egui::pos2(rect.right() - BAR_COLUMN, rect.top() + 8.0),
        egui::pos2(
            rect.right() - 8.0,
            rect.top() + 8.0 + (rect.height() - 100.0).clamp(140.0, 420.0),
        ),
    );
    let painter = ui.painter();
    painter.rect_filled(column, 4.0, egui::Color32::from_black_alpha(160));
    let key_rect = egui::Rect::from_min_max(
        column.min + egui::vec2(10.0, 30.0),
        column.max - egui::vec2(10.0, 30.0),
    );
    key_ui(painter, &key, key_rect, egui::Color32::WHITE);
    if bar.signed {
        painter.text(
            egui::pos2(key_rect.right(), key_rect.bottom() + 8.0),
            egui::Align2::RIGHT_TOP,
            "outside + / inside −",
            egui::FontId::proportional(11.0),
            egui::Color32::WHITE,
        );
    }
}

/// Paints `key` in `rect` (the bar's height; the key's title above it).
pub fn key_ui(painter: &egui::Painter, key: &Key, rect: egui::Rect, text: egui::Color32) {
    let font = egui::FontId::proportional(11.0);
    let stroke = egui::Stroke::new(1.0, text);
    match key {
        Key::Bar(bar) => {
            let hist_w = 26.0;
            let bar_rect = egui::Rect::from_min_size(
                rect.min + egui::vec2(hist_w + 2.0, 0.0),
                egui::vec2(14.0, rect.height()),
            );
            let n = bar.colors.len().max(1) as f32;
            for (i, c) in bar.colors.iter().enumerate() {
                let r = egui::Rect::from_min_max(
                    egui::pos2(
                        bar_rect.left(),
                        bar_rect.top() + i as f32 / n * bar_rect.height(),
                    ),
                    egui::pos2(
                        bar_rect.right(),
                        bar_rect.top() + (i + 1) as f32 / n * bar_rect.height(),
                    ),
                );
                painter.rect_filled(r, 0.0, egui::Color32::from_rgb(c[0], c[1], c[2]));
            }
            painter.rect_stroke(bar_rect, 0.0, stroke, egui::StrokeKind::Outside);
            let bins = bar.histogram.len() as f32;
            for (i, &len) in bar.histogram.iter().enumerate() {
                let y0 = bar_rect.top() + i as f32 / bins * bar_rect.height();
                let y1 = bar_rect.top() + (i + 1) as f32 / bins * bar_rect.height();
                let right = bar_rect.left() - 2.0;
                painter.rect_filled(
                    egui::Rect::from_min_max(
                        egui::pos2(right - len * hist_w, y0),
                        egui::pos2(right, y1 - 0.5),
                    ),
                    0.0,
                    egui::Color32::from_gray(128),
                );
            }
            for (t, label) in &bar.ticks {
                let y = bar_rect.top() + t * bar_rect.height();
                painter.hline(bar_rect.right()..=bar_rect.right() + 4.0, y, stroke);
                painter.text(
                    egui::pos2(bar_rect.right() + 6.0, y),
                    egui::Align2::LEFT_CENTER,
                    label,
                    font.clone(),
                    text,
                );
            }
            let mark = egui::Color32::from_rgb(230, 180, 0);
            for (t, label) in &bar.marks {
                let y = bar_rect.top() + t * bar_rect.height();
                painter.hline(
                    bar_rect.left() - 2.0..=bar_rect.right() + 2.0,
                    y,
                    egui::Stroke::new(2.0, mark),
                );
                painter.text(
                    egui::pos2(bar_rect.left() - 4.0, y),
                    egui::Align2::RIGHT_CENTER,
                    label,
                    font.clone(),
                    mark,
                );
            }
            // Right-aligned, so a long title runs left over the strip above
            // the image rather than out of the widget.
            painter.text(
                egui::pos2(rect.right(), rect.top() - 6.0),
                egui::Align2::RIGHT_BOTTOM,
                &bar.title,
                font.clone(),
                text,
            );
            if let Some((c, label)) = &bar.empty {
                let sw = egui::Rect::from_min_size(
                    egui::pos2(bar_rect.left(), bar_rect.bottom() + 8.0),
                    egui::vec2(10.0, 10.0),
                );
                painter.rect_filled(sw, 0.0, egui::Color32::from_rgb(c[0], c[1], c[2]));
                painter.text(
                    sw.right_center() + egui::vec2(4.0, 0.0),
                    egui::Align2::LEFT_CENTER,
                    label,
                    font,
                    text,
                );
            }
        }
        Key::Classes(title, entries) => {
            painter.text(
                egui::pos2(rect.left(), rect.top() - 6.0),
                egui::Align2::LEFT_BOTTOM,
                title,
                font.clone(),
                text,
            );
            for (i, (label, c)) in entries.iter().enumerate() {
                let sw = egui::Rect::from_min_size(
                    rect.min + egui::vec2(0.0, i as f32 * 16.0),
                    egui::vec2(11.0, 11.0),
                );
                painter.rect_filled(sw, 0.0, egui::Color32::from_rgb(c[0], c[1], c[2]));
                painter.rect_stroke(sw, 0.0, stroke, egui::StrokeKind::Outside);
                painter.text(
                    sw.right_center() + egui::vec2(5.0, 0.0),
                    egui::Align2::LEFT_CENTER,
                    label,
                    font.clone(),
                    text,
                );
            }
        }
    }
}

/// Writes `text` at the top left of the viewport: what the view shows.
pub fn caption_ui(ui: &egui::Ui, text: &str) {
    let rect = ui.max_rect();
    let font = egui::FontId::proportional(14.0);
    let galley = ui.painter().layout(
        text.to_string(),
        font,
        egui::Color32::WHITE,
        (rect.width() - BAR_COLUMN - 30.0).max(120.0),
    );
    let pos = rect.left_top() + egui::vec2(10.0, 10.0);
    ui.painter().rect_filled(
        egui::Rect::from_min_size(pos, galley.size()).expand(5.0),
        4.0,
        egui::Color32::from_black_alpha(160),
    );
    ui.painter().galley(pos, galley, egui::Color32::WHITE);
}
