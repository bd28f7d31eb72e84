//! Profiler overlay: each stage phase's CPU (wall-clock) time beside its GPU
//! time (timestamp queries) as bars, and their history as lines; the 3D
//! view's frame times too. CPU phases are also puffin scopes (connect
//! puffin_viewer for a flame graph); this panel draws from the same timings.
//! Every run is tagged with the mode whose stage it was; the panel shows
//! the active mode's runs only, the exports every mode's.
//!
//! CPU is always [`CPU_COLOR`] and GPU [`GPU_COLOR`], in every chart here
//! and in the exported plot ([`crate::plot`] draws its first two series in
//! these colours). Axis ticks keep three significant figures, every bar
//! keeps its phase's name (shortened to the bar's width; the full name on
//! hover), and a phase that did not run on a side reads "–", not 0.

use std::collections::VecDeque;
use std::path::Path;
use std::time::Instant;

use eframe::egui;
use egui_plot::{
    AxisHints, Bar, BarChart, GridMark, Legend, Line, Plot, PlotPoint, PlotPoints, Text,
};

use super::Shell;
use super::legend::sig_figs;
use crate::plot::{Panel, Series};
use crate::stages::sdf::SdfField;
use crate::timing::PhaseTiming;

const MAX_FRAMES: usize = 600;

type Points = Vec<(f64, f64)>;

/// The colour of CPU (wall-clock) times in every chart.
pub const CPU_COLOR: egui::Color32 = egui::Color32::from_rgb(31, 119, 180);
/// The colour of GPU (timestamp) times in every chart.
pub const GPU_COLOR: egui::Color32 = egui::Color32::from_rgb(255, 127, 14);

/// A phase's time in ms with three significant figures, or "–" for a
/// phase that did not run on that side (no time, or none measured).
pub fn ms_label(ms: Option<f64>) -> String {
    match ms {
        Some(ms) if ms > 0.0 => sig_figs(ms, 3),
        _ => "–".into(),
    }
}

/// `name` cut to about `chars` characters, with an ellipsis when cut.
fn shorten(name: &str, chars: usize) -> String {
    if name.chars().count() <= chars.max(1) {
        name.to_string()
    } else {
        let kept: String = name.chars().take(chars.max(2) - 1).collect();
        format!("{kept}…")
    }
}

/// A y axis whose ticks keep three significant figures.
fn ms_axis<'a>() -> Vec<AxisHints<'a>> {
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
fn ms_grid() -> impl Fn(egui_plot::GridInput) -> Vec<GridMark> {
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

/// One stage run (a field computation, a query).
#[derive(Clone, Debug)]
pub struct FieldRun {
    /// The mode the run belongs to ([`crate::app::modes::Mode::name`]).
    pub mode: &'static str,
    pub at_s: f64,
    pub label: String,
    pub phases: Vec<PhaseTiming>,
}

/// Timing history for the overlay and its exports.
pub struct ProfilerHistory {
    start: Instant,
    /// puffin's frames (this process's CPU scopes), read by the overlay.
    puffin: puffin::GlobalFrameView,
    pub runs: Vec<FieldRun>,
    /// (seconds since start, CPU ms to record and submit, GPU ms).
    pub frames: VecDeque<(f64, f64, Option<f64>)>,
}

impl Default for ProfilerHistory {
    fn default() -> Self {
        ProfilerHistory {
            start: Instant::now(),
            puffin: puffin::GlobalFrameView::default(),
            runs: Vec::new(),
            frames: VecDeque::new(),
        }
    }
}

impl ProfilerHistory {
    /// A uniform field (the field mode's stage).
    pub fn record_field(&mut self, field: &SdfField) {
        self.runs.push(FieldRun {
            mode: "sdf",
            at_s: self.start.elapsed().as_secs_f64(),
            label: format!("{} {}³", field.backend.name(), field.params.resolution),
            phases: field.timings.phases.clone(),
        });
    }

    /// Another stage's run (e.g. a triangle–triangle query) of `mode`.
    pub fn record_run(&mut self, mode: &'static str, label: String, phases: Vec<PhaseTiming>) {
        self.runs.push(FieldRun {
            mode,
            at_s: self.start.elapsed().as_secs_f64(),
            label,
            phases,
        });
    }

    /// The top-level puffin scopes of the latest complete frame, per
    /// thread: (thread, scope name, ms), longest first.
    pub fn puffin_scopes(&self) -> Vec<(String, String, f64)> {
        let view = self.puffin.lock();
        let Some(frame) = view.latest_frame() else {
            return Vec::new();
        };
        let Ok(unpacked) = frame.unpacked();
        let mut out = Vec::new();
        for (thread, stream) in &unpacked.thread_streams {
            let Ok(scopes) = puffin::Reader::from_start(&stream.stream).read_top_scopes() else {
                continue;
            };
            for scope in scopes {
                let name = view.scope_collection().fetch_by_id(&scope.id).map_or_else(
                    || "?".to_string(),
                    |d| {
                        d.scope_name
                            .as_deref()
                            .unwrap_or(&d.function_name)
                            .to_string()
                    },
                );
                let name = if scope.record.data.is_empty() {
                    name
                } else {
                    format!("{name} ({})", scope.record.data)
                };
                out.push((
                    thread.name.clone(),
                    name,
                    scope.record.duration_ns as f64 * 1e-6,
                ));
            }
        }
        out.sort_by(|a, b| b.2.total_cmp(&a.2));
        out
    }

    pub fn record_frame(&mut self, cpu_ms: f64, gpu_ms: Option<f64>) {
        self.frames
            .push_back((self.start.elapsed().as_secs_f64(), cpu_ms, gpu_ms));
        while self.frames.len() > MAX_FRAMES {
            self.frames.pop_front();
        }
    }

    /// (run index, total CPU ms) and (run index, total GPU ms) per run of
    /// `mode` (all modes: `None`).
    fn run_series(&self, mode: Option<&str>) -> (Points, Points) {
        let runs: Vec<&FieldRun> = self
            .runs
            .iter()
            .filter(|r| mode.is_none_or(|m| r.mode == m))
            .collect();
        let wall = runs
            .iter()
            .enumerate()
            .map(|(i, r)| (i as f64, r.phases.iter().map(|p| p.wall_ms).sum()))
            .collect();
        let gpu = runs
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let g: Vec<f64> = r.phases.iter().filter_map(|p| p.gpu_ms).collect();
                (!g.is_empty()).then(|| (i as f64, g.iter().sum()))
            })
            .collect();
        (wall, gpu)
    }

    /// Writes the history as CSV at `path` and a PNG plot beside it.
    pub fn export(&self, path: &Path) -> Result<(), String> {
        let mut csv = String::from("kind,index,seconds,label,phase,cpu_ms,gpu_ms\n");
        for (i, r) in self.runs.iter().enumerate() {
            for p in &r.phases {
                csv.push_str(&format!(
                    "{},{i},{:.3},{},{},{:.4},{}\n",
                    r.mode,
                    r.at_s,
                    r.label,
                    p.name,
                    p.wall_ms,
                    p.gpu_ms.map_or(String::new(), |g| format!("{g:.4}"))
                ));
            }
        }
        for (i, (t, cpu, gpu)) in self.frames.iter().enumerate() {
            csv.push_str(&format!(
                "frame,{i},{t:.3},view,render,{cpu:.4},{}\n",
                gpu.map_or(String::new(), |g| format!("{g:.4}"))
            ));
        }
        crate::io::write_atomically(path, csv.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let (wall, gpu) = self.run_series(None);
        let frames_cpu: Vec<(f64, f64)> = self
            .frames
            .iter()
            .enumerate()
            .map(|(i, f)| (i as f64, f.1))
            .collect();
        let frames_gpu: Vec<(f64, f64)> = self
            .frames
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.2.map(|g| (i as f64, g)))
            .collect();
        let runs = [
            Series {
                name: "stage runs, CPU wall ms".into(),
                points: wall,
            },
            Series {
                name: "stage runs, GPU ms".into(),
                points: gpu,
            },
        ];
        let frames = [
            Series {
                name: "frame, CPU ms".into(),
                points: frames_cpu,
            },
            Series {
                name: "frame, GPU ms".into(),
                points: frames_gpu,
            },
        ];
        crate::plot::write_png(
            &path.with_extension("png"),
            1400,
            500,
            &[
                Panel {
                    title: "Stage runs (all modes)",
                    x_label: "run",
                    y_label: "ms",
                    log_x: false,
                    log_y: false,
                    series: &runs,
                },
                Panel {
                    title: "3D view frames",
                    x_label: "frame",
                    y_label: "ms",
                    log_x: false,
                    log_y: false,
                    series: &frames,
                },
            ],
        )
    }
}

/// The profiler for the runs of `mode` and the view's frames.
pub fn profiler_ui(shell: &Shell, mode: &'static str, ui: &mut egui::Ui) {
    ui.horizontal(|ui| {
        ui.strong("Profiler");
        ui.label(format!("— {mode} mode — {}", shell.render_gpu.describe()));
        if !shell.render_gpu.has_timestamps {
            ui.label("(no timestamp queries: GPU times unavailable)");
        }
    });
    let h = &shell.history;
    let last_frame = h.frames.back().copied();
    if let Some(run) = h.runs.iter().rev().find(|r| r.mode == mode) {
        ui.label(format!("last: {}", run.label));
        let mut rows: Vec<(String, Option<f64>, Option<f64>)> = run
            .phases
            .iter()
            .map(|p| (p.name.clone(), Some(p.wall_ms), p.gpu_ms))
            .collect();
        if let Some((_, cpu, gpu)) = last_frame {
            rows.push(("view frame".into(), Some(cpu), gpu));
        }
        phase_bars_ui(ui, &rows);
    } else {
        ui.label("no stage of this mode has run yet");
    }
    let scopes = h.puffin_scopes();
    if !scopes.is_empty() {
        let line: Vec<String> = scopes
            .iter()
            .take(4)
            .map(|(t, n, ms)| format!("{n} [{t}] {ms:.2} ms"))
            .collect();
        ui.label(format!(
            "CPU scopes, last frame (puffin): {}",
            line.join(" · ")
        ));
    }
    let (wall, gpu) = h.run_series(Some(mode));
    let frames_gpu: Vec<[f64; 2]> = h
        .frames
        .iter()
        .filter_map(|f| f.2.map(|g| [f.0, g]))
        .collect();
    let frames_cpu: Vec<[f64; 2]> = h.frames.iter().map(|f| [f.0, f.1]).collect();
    ui.columns(2, |cols| {
        Plot::new("run_history")
            .legend(Legend::default())
            .custom_y_axes(ms_axis())
            .y_grid_spacer(ms_grid())
            .x_axis_label("run")
            .show(&mut cols[0], |plot| {
                plot.line(
                    Line::new(
                        "stage CPU (wall)",
                        PlotPoints::from(wall.iter().map(|p| [p.0, p.1]).collect::<Vec<_>>()),
                    )
                    .color(CPU_COLOR),
                );
                plot.line(
                    Line::new(
                        "stage GPU",
                        PlotPoints::from(gpu.iter().map(|p| [p.0, p.1]).collect::<Vec<_>>()),
                    )
                    .color(GPU_COLOR),
                );
            });
        Plot::new("frame_history")
            .legend(Legend::default())
            .custom_y_axes(ms_axis())
            .y_grid_spacer(ms_grid())
            .x_axis_label("seconds")
            .show(&mut cols[1], |plot| {
                plot.line(Line::new("frame CPU", PlotPoints::from(frames_cpu)).color(CPU_COLOR));
                plot.line(Line::new("frame GPU", PlotPoints::from(frames_gpu)).color(GPU_COLOR));
            });
    });
}

/// One CPU and one GPU bar per (phase, CPU ms, GPU ms); every bar has its
/// value written on it, "–" where the phase did not run on that side.
fn phase_bars_ui(ui: &mut egui::Ui, rows: &[(String, Option<f64>, Option<f64>)]) {
    let mut cpu_bars = Vec::new();
    let mut gpu_bars = Vec::new();
    let mut values = Vec::new();
    let top = rows
        .iter()
        .flat_map(|(_, c, g)| [c.unwrap_or(0.0), g.unwrap_or(0.0)])
        .fold(0.0, f64::max)
        .max(1e-9);
    for (i, (name, cpu, gpu)) in rows.iter().enumerate() {
        let x = i as f64;
        for (side, ms, dx, bars) in [
            ("CPU", cpu, -0.2, &mut cpu_bars),
            ("GPU", gpu, 0.2, &mut gpu_bars),
        ] {
            let label = ms_label(*ms);
            let height = ms.unwrap_or(0.0).max(0.0);
            if height > 0.0 {
                bars.push(
                    Bar::new(x + dx, height)
                        .width(0.38)
                        .name(format!("{name} {side}: {label} ms")),
                );
            }
            values.push((x + dx, height + 0.04 * top, label));
        }
    }
    let height = (ui.available_height() * 0.45).max(100.0);
    // Every phase keeps its name, cut to the width of its pair of bars.
    let chars = ((ui.available_width() / rows.len().max(1) as f32) / 7.0).max(3.0) as usize;
    let names: Vec<String> = rows.iter().map(|r| shorten(&r.0, chars)).collect();
    let count = rows.len();
    let text_color = ui.visuals().strong_text_color();
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
        .include_y(0.0)
        .include_y(1.15 * top)
        .allow_scroll(false)
        .allow_zoom(false)
        .allow_drag(false)
        .show(ui, |plot| {
            plot.bar_chart(BarChart::new("CPU (wall)", cpu_bars).color(CPU_COLOR));
            plot.bar_chart(BarChart::new("GPU", gpu_bars).color(GPU_COLOR));
            for (x, y, label) in values {
                plot.text(
                    Text::new("", PlotPoint::new(x, y), label)
                        .color(text_color)
                        .anchor(egui::Align2::CENTER_BOTTOM),
                );
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_that_did_not_run_read_as_a_dash() {
        assert_eq!(ms_label(None), "–");
        assert_eq!(ms_label(Some(0.0)), "–");
        assert_eq!(ms_label(Some(0.000123)), "1.23e-4");
        assert_eq!(ms_label(Some(12.345)), "12.3");
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
        assert_eq!(shorten("distance", 20), "distance");
        assert_eq!(shorten("vertices+edges (wall)", 6), "verti…");
    }
}
