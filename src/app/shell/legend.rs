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

use crate::view::ViewSettings;

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
/// Signed bars carry an explicit sign and call zero the surface.
pub fn ticks(lo: f32, hi: f32, signed: bool) -> Vec<(f32, String)> {
    (0..5)
        .map(|i| {
            let t = i as f32 / 4.0;
            let value = hi - t * (hi - lo);
            let text = if signed && i == 2 {
                "0 (surface)".to_string()
            } else if i == 4 && !signed {
                "0".to_string()
            } else {
                let label = sig_figs(value as f64, TICK_FIGURES);
                if signed && value > 0.0 {
                    format!("+{label}")
                } else {
                    label
                }
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
            lo: -view.value_range,
            hi: view.value_range,
            signed: true,
            threshold: None,
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
        threshold,
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
    for (t, text) in ticks(lo, hi, signed) {
        let y = bar.top() + t * bar.height();
        painter.hline(
            bar.left() - 4.0..=bar.left(),
            y,
            egui::Stroke::new(1.0, egui::Color32::WHITE),
        );
        label(y, text);
    }
    if let Some(eps) = threshold.filter(|&e| e > lo && e < hi) {
        let y = bar.top() + (hi - eps) / (hi - lo) * bar.height();
        painter.hline(
            bar.left() - 2.0..=bar.right() + 2.0,
            y,
            egui::Stroke::new(2.0, egui::Color32::from_rgb(255, 220, 0)),
        );
        painter.text(
            egui::pos2(bar.right() + 4.0, y),
            egui::Align2::LEFT_CENTER,
            format!("ε {}", sig_figs(eps as f64, TICK_FIGURES)),
            font.clone(),
            egui::Color32::from_rgb(255, 220, 0),
        );
    }
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

/// Writes `text` at the top left of the viewport: what the view shows.
pub fn caption_ui(ui: &egui::Ui, text: &str) {
    let rect = ui.max_rect();
    let font = egui::FontId::proportional(14.0);
    let galley = ui
        .painter()
        .layout_no_wrap(text.to_string(), font, egui::Color32::WHITE);
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
