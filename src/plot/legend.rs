//! Colour keys as drawn beside an image, on screen and in figures: the
//! bar's colours and ticks ([`ColorBar`]), the histogram of the values
//! beside it, round axis ticks in world units and the captions. The viewer
//! and the CLI's `render` use the same ones, so a figure from either reads
//! alike.
//!
//! Tick labels keep [`TICK_FIGURES`] significant figures whatever the
//! magnitude ([`sig_figs`]): a difference bar up to 1.8e-7 reads "1.8e-7",
//! "9e-8", "0", never "0.000". Values from 1e-3 to 1e4 are written in
//! positional notation, others in scientific notation.

use super::figure::BarKey;
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

    /// The caption of a view coloured by this bar: the mesh, the quantity,
    /// its range and the colour map.
    pub fn caption(&self, mesh: &str, map: ColorMap) -> String {
        format!(
            "{mesh}: {} from {} to {}, {} colour map",
            self.title,
            sig_figs(self.lo as f64, 3),
            sig_figs(self.hi as f64, 3),
            map.name()
        )
    }
}

/// Bins of the histogram beside the colour bar.
pub const HISTOGRAM_BINS: usize = 32;

/// The histogram of the finite `values` within `lo..=hi` in `bins` bins
/// from `hi` (first) down to `lo`, each bin's length √(count / largest
/// count) from 0 to 1. Empty when no value is in range.
pub fn histogram(values: &[f32], lo: f32, hi: f32, bins: usize) -> Vec<f32> {
    let (a, b) = (lo.min(hi), lo.max(hi));
    if b.partial_cmp(&a) != Some(std::cmp::Ordering::Greater) || bins == 0 {
        return Vec::new();
    }
    let mut counts = vec![0u64; bins];
    for &v in values {
        if v.is_finite() && v >= a && v <= b {
            let t = ((b - v) / (b - a) * bins as f32) as usize;
            counts[t.min(bins - 1)] += 1;
        }
    }
    let most = counts.iter().copied().max().unwrap_or(0);
    if most == 0 {
        return Vec::new();
    }
    counts
        .iter()
        .map(|&c| (c as f32 / most as f32).sqrt())
        .collect()
}

/// Round ticks (1, 2 or 5 × 10^k apart, about `count` of them) inside
/// `lo..=hi`, as (fraction from `lo` to `hi`, label).
pub fn nice_ticks(lo: f32, hi: f32, count: usize) -> Vec<(f32, String)> {
    let span = hi - lo;
    if !(span.is_finite() && span != 0.0) {
        return Vec::new();
    }
    let raw = (span.abs() as f64) / count.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let (a, b) = (lo.min(hi) as f64, lo.max(hi) as f64);
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let mut k = (a / step).ceil();
    let mut out = Vec::new();
    while k * step <= b + step * 1e-6 {
        let v = k * step;
        let text = format!(
            "{:.*}",
            decimals,
            if v.abs() < step * 1e-6 { 0.0 } else { v }
        );
        out.push((((v - lo as f64) / span as f64) as f32, text));
        k += 1.0;
    }
    out
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
