//! The keys of the 3D view and its caption. Every colour the view draws
//! has a key: the colour bar of the cells (the active colour map from `lo`
//! to `hi`, in mesh units — signed distance from −range (inside) to +range
//! (outside), or a heat map of differences from 0), and the modes' own
//! keys (contacts by depth, classes of lines, points and bodies).
//!
//! The keys stack in a column of their own right of the view
//! ([`split_key_column`], [`keys_ui`]): the view is drawn beside it, not
//! under it, so no key covers a cell. The column is kept while a mode
//! draws keys, and given back to the view a frame after it stops.
//!
//! The bar's ticks, colours and caption come from
//! [`crate::plot::legend`], as in the figures the CLI writes.

use eframe::egui;

use super::Shell;
use crate::plot::figure::Key;
pub use crate::plot::legend::{ColorBar, TICK_FIGURES, sig_figs, ticks};
use crate::view::ColorMap;

/// Width of the key column right of the 3D view ([`split_key_column`]);
/// captions wrap left of it, so no text overlaps a key.
pub const BAR_COLUMN: f32 = 200.0;

/// A key for the key column: what a colour in the 3D view means, with a
/// line under it (e.g. which sign is inside).
#[derive(Clone, Debug, PartialEq)]
pub struct ViewKey {
    pub key: Key,
    pub note: Option<String>,
}

impl ViewKey {
    pub fn new(key: Key) -> Self {
        ViewKey { key, note: None }
    }

    /// Discrete classes: a title and (label, sRGB colour) entries.
    pub fn classes(title: &str, entries: Vec<(String, [u8; 4])>) -> Self {
        Self::new(Key::Classes(title.to_string(), entries))
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// The key's height in the column when a bar is `bar` points tall.
    fn height(&self, bar: f32) -> f32 {
        let note = if self.note.is_some() { 16.0 } else { 0.0 };
        match &self.key {
            Key::Bar(b) => KEY_TITLE + bar + if b.empty.is_some() { 22.0 } else { 8.0 } + note,
            Key::Classes(_, entries) => KEY_TITLE + entries.len() as f32 * CLASS_ROW + 4.0 + note,
        }
    }
}

/// The sRGB swatch of a line or vertex colour given in linear RGBA.
pub fn linear_swatch(linear: [f32; 4]) -> [u8; 4] {
    let [r, g, b, _] = linear.map(crate::view::linear_to_srgb);
    [r, g, b, 255]
}

/// Value a contact of relative depth `t` (0 shallow … 1 deepest) is drawn
/// with over a colour range of ±1: spread over the inside half of the
/// colour map, so depth shows whatever its scale (the collide and
/// pipeline modes).
pub fn contact_value(t: f32) -> f32 {
    -(0.25 + 0.75 * t.clamp(0.0, 1.0))
}

/// Colour of a contact normal of relative depth `t` (linear RGBA).
pub fn normal_color(t: f32) -> [f32; 4] {
    [1.0, 1.0 - 0.8 * t.clamp(0.0, 1.0), 0.2, 1.0]
}

/// The key of contacts drawn with [`contact_value`], the deepest one
/// `deepest` mesh units deep.
pub fn contact_depth_key(map: ColorMap, deepest: f32) -> ViewKey {
    let steps = 48;
    let colors = (0..steps)
        .map(|i| {
            let t = 1.0 - (i as f32 + 0.5) / steps as f32;
            map.color_between(contact_value(t), -1.0, 1.0)
        })
        .collect();
    ViewKey::new(Key::Bar(crate::plot::figure::BarKey {
        title: "contact depth (mesh units)".into(),
        colors,
        ticks: vec![
            (0.0, sig_figs(deepest as f64, TICK_FIGURES)),
            (1.0, "0".into()),
        ],
        ..Default::default()
    }))
}

/// The space above a key for its title.
const KEY_TITLE: f32 = 28.0;
/// One class's row in a classes key.
const CLASS_ROW: f32 = 16.0;
/// A colour bar's height range in the key column.
const BAR_HEIGHTS: std::ops::RangeInclusive<f32> = 90.0..=360.0;

/// The 3D view's rectangle and, when `keys` are shown, the key column's
/// at the right of the central panel's `rect`: the keys never cover what
/// the view draws.
pub fn split_key_column(rect: egui::Rect, keys: bool) -> (egui::Rect, Option<egui::Rect>) {
    if !keys || rect.width() < 2.0 * BAR_COLUMN {
        return (rect, None);
    }
    let split = rect.right() - BAR_COLUMN;
    (
        egui::Rect::from_min_max(rect.min, egui::pos2(split, rect.bottom())),
        Some(egui::Rect::from_min_max(
            egui::pos2(split, rect.top()),
            rect.max,
        )),
    )
}

/// The rectangles of `keys` stacked from the top of `column`, colour bars
/// sharing the height the classes leave.
pub fn stack_keys(column: egui::Rect, keys: &[ViewKey]) -> Vec<egui::Rect> {
    let gap = 6.0;
    let bars = keys.iter().filter(|k| matches!(k.key, Key::Bar(_))).count();
    let fixed: f32 = keys.iter().map(|k| k.height(0.0) + gap).sum();
    let bar = ((column.height() - 2.0 * gap - fixed) / bars.max(1) as f32)
        .clamp(*BAR_HEIGHTS.start(), *BAR_HEIGHTS.end());
    let mut top = column.top() + gap;
    keys.iter()
        .map(|k| {
            let rect = egui::Rect::from_min_size(
                egui::pos2(column.left() + gap, top),
                egui::vec2(column.width() - 2.0 * gap, k.height(bar)),
            );
            top = rect.bottom() + gap;
            rect
        })
        .collect()
}

/// Draws `keys` in the key column (from the next frame on when this frame
/// has none yet) and records where each went.
pub fn keys_ui(ui: &egui::Ui, shell: &mut Shell, keys: &[ViewKey]) {
    if keys.is_empty() {
        return;
    }
    shell.keys_drawn = true;
    let Some(column) = shell.key_column else {
        ui.ctx().request_repaint();
        return;
    };
    let painter = ui.painter();
    for (k, rect) in keys.iter().zip(stack_keys(column, keys)) {
        painter.rect_filled(rect, 4.0, egui::Color32::from_black_alpha(160));
        let note = if k.note.is_some() { 16.0 } else { 0.0 };
        let bottom = match &k.key {
            Key::Bar(b) if b.empty.is_some() => 22.0,
            _ => 6.0,
        } + note;
        let inner = egui::Rect::from_min_max(
            rect.min + egui::vec2(8.0, KEY_TITLE),
            rect.max - egui::vec2(8.0, bottom),
        );
        key_ui(painter, &k.key, inner, egui::Color32::WHITE);
        if let Some(note) = &k.note {
            painter.text(
                egui::pos2(inner.right(), rect.bottom() - 4.0),
                egui::Align2::RIGHT_BOTTOM,
                note,
                egui::FontId::proportional(11.0),
                egui::Color32::WHITE,
            );
        }
        let title = match &k.key {
            Key::Bar(b) => b.title.clone(),
            Key::Classes(t, _) => t.clone(),
        };
        shell.layout.key(title, rect);
    }
}

/// Draws `bar` in the key column (when cells are shown), with the
/// histogram of the shown cells' values beside it, and `more` keys under
/// it; the bar is the key a figure export takes.
pub fn color_bar_ui(ui: &mut egui::Ui, shell: &mut Shell, bar: ColorBar, more: Vec<ViewKey>) {
    let view = shell.settings.view;
    let mut keys = Vec::new();
    if view.show_cells {
        let histogram = shell.viewport.value_histogram(bar.lo, bar.hi);
        let key = Key::Bar(bar.key(view.color_map, histogram));
        let mesh = shell
            .mesh
            .scene
            .as_ref()
            .map_or("no mesh".into(), |s| s.source.label());
        let caption = bar.caption(&mesh, view.color_map);
        shell.shown_key = Some((key.clone(), caption));
        let key = ViewKey::new(key);
        keys.push(if bar.signed {
            key.with_note("outside + / inside −")
        } else {
            key
        });
    }
    keys.extend(more);
    keys_ui(ui, shell, &keys);
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
