//! Profiler overlay: each stage phase's CPU (wall-clock) time beside its GPU
//! time (timestamp queries) as bars, and their history as lines; the 3D
//! view's frame times too. CPU phases are also puffin scopes (connect
//! puffin_viewer for a flame graph); this panel draws from the same timings.
//! Every run is tagged with the mode whose stage it was; the panel shows
//! the active mode's runs only, the exports every mode's.
//!
//! CPU is always [`CPU_COLOR`] and GPU [`GPU_COLOR`], in every chart here
//! and in the exported plot ([`crate::plot`] draws its first two series in
//! these colours). Axis ticks keep three significant figures; the bars
//! group phases to what the width can label ([`super::phase_bars`]); the
//! history plots show from 0, each run as a point, so one run reads as a
//! dot on a sane axis. In tables, a phase that did not run on a side reads
//! "–", not 0.

use std::collections::VecDeque;
use std::path::Path;
use std::time::Instant;

use eframe::egui;
use egui_plot::{Legend, Line, Plot, PlotPoints};

use super::Shell;
use super::legend::sig_figs;
pub use super::phase_bars::{CPU_COLOR, GPU_COLOR};
use super::phase_bars::{PhaseRow, ms_axis, ms_grid, phase_bars_ui};
use crate::plot::{Panel, Series};
use crate::stages::sdf::SdfField;
use crate::timing::PhaseTiming;

const MAX_FRAMES: usize = 600;

type Points = Vec<(f64, f64)>;

/// A phase's time in ms with three significant figures, or "–" for a
/// phase that did not run on that side (no time, or none measured).
pub fn ms_label(ms: Option<f64>) -> String {
    match ms {
        Some(ms) if ms > 0.0 => sig_figs(ms, 3),
        _ => "–".into(),
    }
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
        let mut rows: Vec<PhaseRow> = run
            .phases
            .iter()
            .map(|p| PhaseRow {
                name: p.name.clone(),
                cpu: Some(p.wall_ms),
                gpu: p.gpu_ms,
            })
            .collect();
        if let Some((_, cpu, gpu)) = last_frame {
            rows.push(PhaseRow {
                name: "view frame".into(),
                cpu: Some(cpu),
                gpu,
            });
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
    let wall: Vec<[f64; 2]> = wall.iter().map(|p| [p.0, p.1]).collect();
    let gpu: Vec<[f64; 2]> = gpu.iter().map(|p| [p.0, p.1]).collect();
    ui.columns(2, |cols| {
        history_plot(
            &mut cols[0],
            "run_history",
            "run",
            [("stage CPU (wall)", &wall), ("stage GPU", &gpu)],
        );
        history_plot(
            &mut cols[1],
            "frame_history",
            "seconds",
            [("frame CPU", &frames_cpu), ("frame GPU", &frames_gpu)],
        );
    });
}

/// A history of CPU and GPU times (`series`: name and points each), on
/// axes from 0 that fit the points ([`history_bounds`]); each point is
/// marked, so a single run shows.
fn history_plot(ui: &mut egui::Ui, id: &str, x_label: &str, series: [(&str, &Vec<[f64; 2]>); 2]) {
    let all: Vec<[f64; 2]> = series.iter().flat_map(|s| s.1.iter().copied()).collect();
    let (x, y) = history_bounds(&all);
    Plot::new(id)
        .legend(Legend::default())
        .custom_y_axes(ms_axis())
        .y_grid_spacer(ms_grid())
        .x_axis_label(x_label)
        .include_x(x[0])
        .include_x(x[1])
        .include_y(y[0])
        .include_y(y[1])
        .show(ui, |plot| {
            for ((name, points), color) in series.into_iter().zip([CPU_COLOR, GPU_COLOR]) {
                plot.line(Line::new(name, PlotPoints::from(points.clone())).color(color));
                plot.points(
                    egui_plot::Points::new(name, PlotPoints::from(points.clone()))
                        .color(color)
                        .radius(if points.len() < 30 { 3.0 } else { 1.0 }),
                );
            }
        });
}

/// The x and y ranges a history plot shows: y from 0 to a little above
/// the largest time, x over the points with half a step each side (at
/// least 0 to 1 with none).
pub fn history_bounds(points: &[[f64; 2]]) -> ([f64; 2], [f64; 2]) {
    if points.is_empty() {
        return ([0.0, 1.0], [0.0, 1.0]);
    }
    let (mut lo, mut hi, mut top) = (f64::MAX, f64::MIN, 0.0f64);
    for p in points {
        lo = lo.min(p[0]);
        hi = hi.max(p[0]);
        top = top.max(p[1]);
    }
    let pad = ((hi - lo) * 0.05).max(0.5);
    let top = if top > 0.0 { 1.15 * top } else { 1.0 };
    ([lo - pad, hi + pad], [0.0, top])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_run_shows_on_axes_from_zero_around_it() {
        let (x, y) = history_bounds(&[[0.0, 188.0]]);
        assert_eq!(x, [-0.5, 0.5]);
        assert!(y[0] == 0.0 && y[1] > 188.0 && y[1] < 250.0, "{y:?}");
        assert_eq!(history_bounds(&[]), ([0.0, 1.0], [0.0, 1.0]));
        let (x, _) = history_bounds(&[[0.0, 1.0], [100.0, 2.0]]);
        assert_eq!(x, [-5.0, 105.0]);
    }

    #[test]
    fn phases_that_did_not_run_read_as_a_dash() {
        assert_eq!(ms_label(None), "–");
        assert_eq!(ms_label(Some(0.0)), "–");
        assert_eq!(ms_label(Some(0.000123)), "1.23e-4");
        assert_eq!(ms_label(Some(12.345)), "12.3");
    }
}
