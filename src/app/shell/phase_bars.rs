//! The profiler's bar chart of one run: a CPU and a GPU bar per phase,
//! each with its value written on it and its phase's name under it.
//!
//! A run may have twenty phases (the GPU winding path) and the chart a few
//! hundred points of width, so the phases are grouped first ([`group`]):
//! as many as the width gives a slot of [`MIN_SLOT`] points to, the
//! longest ones kept in their order, the rest summed into one "other"
//! bar. Within a slot the CPU value is written right-aligned left of the
//! slot's centre and the GPU value left-aligned right of it
//! ([`label_spans`]), so values never run into each other; a phase that
//! did not run on one side has no bar and no value there (the legend says
//! which colour is which). The colours and the ms axis are shared by
//! every chart of the profiler.

use eframe::egui;
use egui_plot::{AxisHints, Bar, BarChart, GridMark, Legend, Plot, PlotPoint, Text};

use super::legend::sig_figs;

/// The colour of CPU (wall-clock) times in every chart.
pub const CPU_COLOR: egui::Color32 = egui::Color32::from_rgb(31, 119, 180);
/// The colour of GPU (timestamp) times in every chart.
pub const GPU_COLOR: egui::Color32 = egui::Color32::from_rgb(255, 127, 14);

/// A y axis whose ticks keep three significant figures.
pub fn ms_axis<'a>() -> Vec<AxisHints<'a>> {
    vec![
        AxisHints::new_y()
            .label("ms")
            .min_thickness(44.0)
            .label_spacing(12.0..=16.0)
            .formatter(|mark: GridMark, _| sig_figs(mark.value, 3)),
    ]
}

/// y grid steps of 1, 2 or 5 × 10ⁿ, about three to the visible range, so
/// that even a short chart has labelled ticks besides 0.
pub fn ms_grid() -> impl Fn(egui_plot::GridInput) -> Vec<GridMark> {
    egui_plot::uniform_grid_spacer(|input| {
        let range = (input.bounds.1 - input.bounds.0).abs().max(1e-12);
        let step = nice_step(range / 3.0);
        [step, 5.0 * step, 10.0 * step]
    })
}

/// The smallest 1, 2 or 5 × 10ⁿ at or above `x` (> 0).
fn nice_step(x: f64) -> f64 {
    let power = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|&s| s >= x * (1.0 - 1e-9))
        .unwrap_or(10.0 * power)
}

/// One phase (or group of phases) and its times in ms.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseRow {
    pub name: String,
    pub cpu: Option<f64>,
    pub gpu: Option<f64>,
}

/// The narrowest slot (points) a phase gets: room for its two values of
/// up to [`VALUE_CHARS`] characters side by side.
pub const MIN_SLOT: f32 = 2.0 * (VALUE_CHARS as f32 * CHAR_WIDTH + GAP);
/// The longest value label ("1.23e-4").
pub const VALUE_CHARS: usize = 7;
/// The width of a character of the chart's text, points (an upper bound
/// for digits at the plot's font).
pub const CHAR_WIDTH: f32 = 8.5;
/// The space between a value and the slot's centre.
const GAP: f32 = 3.0;

/// A phase's time in ms with three significant figures; `None` for a
/// phase that did not run on that side (no time, or none measured).
pub fn value_label(ms: Option<f64>) -> Option<String> {
    ms.filter(|&ms| ms > 0.0).map(|ms| sig_figs(ms, 3))
}

/// How many slots a chart `width` points wide gives (the plot keeps a 5 %
/// margin each side).
pub fn slots(width: f32) -> usize {
    ((width / (1.1 * MIN_SLOT)).floor() as usize).max(2)
}

fn longest(r: &PhaseRow) -> f64 {
    r.cpu.unwrap_or(0.0).max(r.gpu.unwrap_or(0.0))
}

/// At most `max` rows (at least 2): the longest `max − 1` in their order
/// and "other (k phases)" with the rest's sums, or all when they fit.
pub fn group(rows: &[PhaseRow], max: usize) -> Vec<PhaseRow> {
    let max = max.max(2);
    if rows.len() <= max {
        return rows.to_vec();
    }
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| longest(&rows[b]).total_cmp(&longest(&rows[a])));
    let mut keep = vec![false; rows.len()];
    for &i in &order[..max - 1] {
        keep[i] = true;
    }
    let sum = |side: fn(&PhaseRow) -> Option<f64>| {
        let times: Vec<f64> = rows
            .iter()
            .zip(&keep)
            .filter(|(_, k)| !**k)
            .filter_map(|(r, _)| side(r))
            .collect();
        (!times.is_empty()).then(|| times.iter().sum())
    };
    let other = PhaseRow {
        name: format!("other ({} phases)", rows.len() - (max - 1)),
        cpu: sum(|r| r.cpu),
        gpu: sum(|r| r.gpu),
    };
    rows.iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(r, _)| r.clone())
        .chain([other])
        .collect()
}

/// `name` cut to about `chars` characters, with an ellipsis when cut.
pub fn shorten(name: &str, chars: usize) -> String {
    if name.chars().count() <= chars.max(1) {
        name.to_string()
    } else {
        let kept: String = name.chars().take(chars.max(2) - 1).collect();
        format!("{kept}…")
    }
}

/// Where each row's value labels go across a chart `width` points wide
/// with one slot per row: (left, right) of the CPU label and of the GPU
/// label, `None` where the side has no value.
pub fn label_spans(rows: &[PhaseRow], width: f32) -> Vec<[Option<(f32, f32)>; 2]> {
    let slot = width / rows.len().max(1) as f32;
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            let centre = (i as f32 + 0.5) * slot;
            let w = |ms| value_label(ms).map(|l| l.chars().count() as f32 * CHAR_WIDTH);
            [
                w(r.cpu).map(|w| (centre - GAP - w, centre - GAP)),
                w(r.gpu).map(|w| (centre + GAP, centre + GAP + w)),
            ]
        })
        .collect()
}

/// The chart of `rows` (the last one, the view's frame, always kept).
pub fn phase_bars_ui(ui: &mut egui::Ui, rows: &[PhaseRow]) {
    let width = ui.available_width() - 60.0;
    let rows = match rows.split_last() {
        Some((frame, phases)) => {
            let mut grouped = group(phases, slots(width) - 1);
            grouped.push(frame.clone());
            grouped
        }
        None => Vec::new(),
    };
    let top = rows.iter().map(longest).fold(0.0, f64::max).max(1e-9);
    let mut cpu_bars = Vec::new();
    let mut gpu_bars = Vec::new();
    let mut values = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let x = i as f64;
        for (side, ms, dx, anchor, color, bars) in [
            (
                "CPU",
                r.cpu,
                -0.2,
                egui::Align2::RIGHT_BOTTOM,
                CPU_COLOR,
                &mut cpu_bars,
            ),
            (
                "GPU",
                r.gpu,
                0.2,
                egui::Align2::LEFT_BOTTOM,
                GPU_COLOR,
                &mut gpu_bars,
            ),
        ] {
            let Some(label) = value_label(ms) else {
                continue;
            };
            let height = ms.unwrap_or(0.0);
            bars.push(
                Bar::new(x + dx, height)
                    .width(0.38)
                    .name(format!("{} {side}: {label} ms", r.name)),
            );
            values.push((
                x + dx.signum() * 0.02,
                height + 0.03 * top,
                anchor,
                color,
                label,
            ));
        }
    }
    let height = (ui.available_height() * 0.45).max(100.0);
    // Every slot keeps its name, cut to the slot's width as the plot lays
    // it out (its x range has a 5 % margin each side; a label wider than
    // its slot is not drawn at all).
    let slot = width / (1.1 * rows.len().max(1) as f32) - 6.0;
    let font = egui::TextStyle::Body.resolve(ui.style());
    let names: Vec<String> = rows
        .iter()
        .map(|r| {
            let fits = |text: &str| {
                let galley = ui.painter().layout_no_wrap(
                    text.to_string(),
                    font.clone(),
                    egui::Color32::WHITE,
                );
                galley.size().x <= slot
            };
            (1..=r.name.chars().count())
                .rev()
                .map(|chars| shorten(&r.name, chars))
                .find(|name| fits(name))
                .unwrap_or_default()
        })
        .collect();
    let count = rows.len();
    // Each value in a light tint of its bar's colour.
    let tint = |c: egui::Color32| c.lerp_to_gamma(egui::Color32::WHITE, 0.45);
    Plot::new("phase_bars")
        .legend(Legend::default())
        .height(height)
        .custom_y_axes(ms_axis())
        .y_grid_spacer(ms_grid())
        .custom_x_axes(vec![AxisHints::new_x().label_spacing(0.0..=1.0).formatter(
            move |mark: GridMark, _| {
                names
                    .get(mark.value.round() as usize)
                    .filter(|_| mark.value.fract() == 0.0)
                    .cloned()
                    .unwrap_or_default()
            },
        )])
        .x_grid_spacer(move |_| {
            (0..count)
                .map(|i| GridMark {
                    value: i as f64,
                    step_size: 1.0,
                })
                .collect()
        })
        .include_x(-0.5)
        .include_x(count as f64 - 0.5)
        .include_y(0.0)
        .include_y(1.2 * top)
        .allow_scroll(false)
        .allow_zoom(false)
        .allow_drag(false)
        .show(ui, |plot| {
            plot.bar_chart(BarChart::new("CPU (wall)", cpu_bars).color(CPU_COLOR));
            plot.bar_chart(BarChart::new("GPU", gpu_bars).color(GPU_COLOR));
            for (x, y, anchor, color, label) in values {
                plot.text(
                    Text::new("", PlotPoint::new(x, y), label)
                        .color(tint(color))
                        .anchor(anchor),
                );
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, cpu: Option<f64>, gpu: Option<f64>) -> PhaseRow {
        PhaseRow {
            name: name.into(),
            cpu,
            gpu,
        }
    }

    /// Twenty phases like the GPU winding path's: some CPU only, some GPU
    /// only, values of every size.
    fn winding_run() -> Vec<PhaseRow> {
        (0..20)
            .map(|i| {
                let ms = 188.0 / (1.0 + i as f64 * 1.7);
                match i % 3 {
                    0 => row(&format!("phase {i}"), Some(ms), None),
                    1 => row(&format!("phase {i}"), None, Some(ms * 0.9)),
                    _ => row(&format!("phase {i}"), Some(ms), Some(0.000123 * ms)),
                }
            })
            .collect()
    }

    #[test]
    fn grouping_keeps_the_longest_phases_in_order_and_sums_the_rest() {
        let rows = winding_run();
        let grouped = group(&rows, 5);
        assert_eq!(grouped.len(), 5);
        let names: Vec<&str> = grouped.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "phase 0",
                "phase 1",
                "phase 2",
                "phase 3",
                "other (16 phases)"
            ]
        );
        let total = |rows: &[PhaseRow], side: fn(&PhaseRow) -> Option<f64>| -> f64 {
            rows.iter().filter_map(side).sum()
        };
        for side in [|r: &PhaseRow| r.cpu, |r: &PhaseRow| r.gpu] {
            assert!((total(&rows, side) - total(&grouped, side)).abs() < 1e-9);
        }
        assert_eq!(group(&rows[..3], 5), rows[..3].to_vec(), "they fit");
    }

    #[test]
    fn every_bar_keeps_a_label_and_no_two_labels_meet() {
        let rows = winding_run();
        for width in [300.0, 620.0, 1240.0, 1540.0] {
            let grouped = group(&rows, slots(width));
            assert!(grouped.len() <= slots(width));
            let slot = width / grouped.len() as f32;
            let spans = label_spans(&grouped, width);
            let mut all: Vec<(f32, f32)> = Vec::new();
            for (i, (r, s)) in grouped.iter().zip(&spans).enumerate() {
                // A bar has a label exactly where it has a value.
                assert_eq!(s[0].is_some(), r.cpu.is_some_and(|v| v > 0.0));
                assert_eq!(s[1].is_some(), r.gpu.is_some_and(|v| v > 0.0));
                for &(a, b) in s.iter().flatten() {
                    assert!(
                        a >= i as f32 * slot && b <= (i + 1) as f32 * slot,
                        "width {width}: label of {} leaves its slot",
                        r.name
                    );
                    all.push((a, b));
                }
                let name = shorten(&r.name, (slot / CHAR_WIDTH) as usize);
                assert!(name.chars().count() as f32 * CHAR_WIDTH <= slot);
            }
            all.sort_by(|a, b| a.0.total_cmp(&b.0));
            for pair in all.windows(2) {
                assert!(pair[0].1 < pair[1].0, "width {width}: labels meet");
            }
        }
    }

    #[test]
    fn ticks_step_by_one_two_or_five() {
        for (x, step) in [
            (0.3, 0.5),
            (3.0, 5.0),
            (0.0011, 0.002),
            (70.0, 100.0),
            (2.0, 2.0),
        ] {
            assert!(
                (nice_step(x) - step).abs() < 1e-9 * step,
                "{x} → {}",
                nice_step(x)
            );
        }
    }

    #[test]
    fn a_phase_that_did_not_run_has_no_label() {
        assert_eq!(value_label(None), None);
        assert_eq!(value_label(Some(0.0)), None);
        assert_eq!(value_label(Some(0.000123)).as_deref(), Some("1.23e-4"));
        assert_eq!(value_label(Some(12.345)).as_deref(), Some("12.3"));
        assert_eq!(shorten("distance", 20), "distance");
        assert_eq!(shorten("vertices+edges (wall)", 6), "verti…");
    }
}
