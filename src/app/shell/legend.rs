//! The colour bar drawn over the viewport: the active colour map from `lo`
//! to `hi`, in mesh units — signed distance from −range (inside) to +range
//! (outside), or a heat map of differences from 0 — and the caption of
//! what the view shows.
//!
//! Tick labels keep [`TICK_FIGURES`] significant figures whatever the
//! magnitude ([`sig_figs`]): a difference bar up to 1.8e-7 reads "1.8e-7",
//! "9e-8", "0", never "0.000". Values from 1e-3 to 1e4 are written in
//! positional notation, others in scientific notation.

use eframe::egui;

use super::Shell;
use crate::plot::figure::{BarKey, Key};
use crate::view::{ColorMap, ViewSettings};

/// Significant figures of the colour bar's tick labels.
pub const TICK_FIGURES: u32 = 2;

/// `value` with `figures` significant figures (at least 1): positional
/// from 1e-3 to 1e4 ("0.25", "-0.031", "120"), scientific otherwise
/// ("1.8e-7"), trailing zeros dropped; "0" for zero.
pub fn sig_figs(value: f64, figures: u32) -> String {
    if value == 0.0 || !value.is_finite() {
        return if value.is_nan() {
            "NaN".into()
        } else if value == 0.0 {
            "0".into()
        } else {
            format!("{value}")
        };
    }
    let figures = figures.max(1) as i32;
    // The exponent after rounding to `figures` (9.96 at 2 figures is 10).
    let rounded: f64 = format!("{:.*e}", (figures - 1) as usize, value)
        .parse()
        .unwrap_or(value);
    let exponent = rounded.abs().log10().floor() as i32;
    if (-3..4).contains(&exponent) {
        let decimals = (figures - 1 - exponent).max(0) as usize;
        trim_zeros(format!("{rounded:.decimals$}"))
    } else {
        let text = format!("{:.*e}", (figures - 1) as usize, value);
        match text.split_once('e') {
            Some((mantissa, exp)) => format!("{}e{exp}", trim_zeros(mantissa.to_string())),
            None => text,
        }
    }
}

/// "1.50" → "1.5", "2.0" → "2"; integers stay as they are.
fn trim_zeros(text: String) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// The colour bar's ticks from the top: (fraction down the bar, label).
/// Five evenly spaced values; a signed bar whose range holds zero puts its
/// middle tick at zero, "0 (surface)", and the others halfway to each end
/// (ticks that would crowd it are dropped), and writes an explicit sign.
pub fn ticks(lo: f32, hi: f32, signed: bool) -> Vec<(f32, String)> {
    let label = |value: f32| {
        let text = sig_figs(value as f64, TICK_FIGURES);
        if signed && value > 0.0 {
            format!("+{text}")
        } else {
            text
        }
    };
    let at = |value: f32| (hi - value) / (hi - lo);
    if signed && lo < 0.0 && hi > 0.0 {
        let mut out = vec![(at(0.0), "0 (surface)".to_string())];
        for value in [hi, 0.5 * hi, 0.5 * lo, lo] {
            let t = at(value);
            if out.iter().all(|(u, _)| (u - t).abs() > 0.08) {
                out.push((t, label(value)));
            }
        }
        out.sort_by(|a, b| a.0.total_cmp(&b.0));
        return out;
    }
    (0..5)
        .map(|i| {
            let t = i as f32 / 4.0;
            let value = hi - t * (hi - lo);
            let text = if i == 4 && !signed && lo == 0.0 {
                "0".to_string()
            } else {
                label(value)
            };
            (t, text)
        })
        .collect()
}

/// What the colour bar shows.
pub struct ColorBar {
    pub title: &'static str,
    pub lo: f32,
    pub hi: f32,
    /// Signed distance (zero is the surface), else a magnitude from 0.
    pub signed: bool,
    /// A threshold marked on the bar (the heat map hides the values under
    /// it), with its label.
    pub threshold: Option<f32>,
}

impl ColorBar {
    /// Signed distance over the view's colour range.
    pub fn signed_distance(view: &ViewSettings) -> Self {
        ColorBar {
            title: "signed distance (mesh units)",
            lo: view.value_min,
            hi: view.value_max,
            signed: true,
            threshold: None,
        }
    }
}

impl ColorBar {
    /// The bar as drawn, coloured by `map`, with `histogram` beside it.
    pub fn key(&self, map: ColorMap, histogram: Vec<f32>) -> BarKey {
        let (lo, hi) = (self.lo, self.hi);
        let at = |t: f32| hi - t * (hi - lo);
        let steps = 96;
        let mut marks = Vec::new();
        if let Some(eps) = self.threshold.filter(|&e| e > lo && e < hi) {
            marks.push((
                (hi - eps) / (hi - lo),
                format!("ε {}", sig_figs(eps as f64, TICK_FIGURES)),
            ));
        }
        BarKey {
            title: self.title.to_string(),
            colors: (0..steps)
                .map(|i| map.color_between(at((i as f32 + 0.5) / steps as f32), lo, hi))
                .collect(),
            ticks: ticks(lo, hi, self.signed),
            marks,
            histogram,
            empty: None,
        }
    }
}

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
    let caption = format!(
        "{mesh}: {} from {} to {}, {} colour map",
        bar.title,
        sig_figs(bar.lo as f64, 3),
        sig_figs(bar.hi as f64, 3),
        view.color_map.name()
    );
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_keep_significant_figures() {
        assert_eq!(sig_figs(1.8e-7, 2), "1.8e-7");
        assert_eq!(sig_figs(1.83e-7, 2), "1.8e-7");
        assert_eq!(sig_figs(9.0e-8, 2), "9e-8");
        assert_eq!(sig_figs(-2.5e-5, 2), "-2.5e-5");
        assert_eq!(sig_figs(0.0, 2), "0");
        assert_eq!(sig_figs(0.25, 2), "0.25");
        assert_eq!(sig_figs(-0.0312, 2), "-0.031");
        assert_eq!(sig_figs(0.001234, 2), "0.0012");
        assert_eq!(sig_figs(1.5, 2), "1.5");
        assert_eq!(sig_figs(2.0, 2), "2");
        assert_eq!(sig_figs(9.96, 2), "10");
        assert_eq!(sig_figs(123.4, 2), "120");
        assert_eq!(sig_figs(0.123456, 3), "0.123");
        assert_eq!(sig_figs(45678.0, 2), "4.6e4");
        assert_eq!(sig_figs(3.0e9, 1), "3e9");
    }

    #[test]
    fn an_uneven_signed_range_keeps_the_surface_and_drops_crowded_ticks() {
        let t = ticks(-0.01, 1.0, true);
        let labels: Vec<&str> = t.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["+1", "+0.5", "0 (surface)"]);
        assert!((t[2].0 - 1.0 / 1.01).abs() < 1e-6);
        let t = ticks(0.2, 0.6, false);
        assert_eq!(t[4].1, "0.2");
    }

    #[test]
    fn colour_bar_ticks_never_round_a_small_range_to_zero() {
        let heat = ticks(0.0, 1.8e-7, false);
        let labels: Vec<&str> = heat.iter().map(|(_, l)| l.as_str()).collect();
        // 1.35e-7 is 1.3499999e-7 in f32.
        assert_eq!(labels, ["1.8e-7", "1.3e-7", "9e-8", "4.5e-8", "0"]);
        assert_eq!(heat[0].0, 0.0);
        assert_eq!(heat[4].0, 1.0);
        let signed = ticks(-0.12, 0.12, true);
        let labels: Vec<&str> = signed.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["+0.12", "+0.06", "0 (surface)", "-0.06", "-0.12"]);
    }
}
