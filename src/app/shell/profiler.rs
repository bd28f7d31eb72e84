//! Profiler overlay: each stage phase's CPU (wall-clock) time beside its GPU
//! time (timestamp queries) as bars, and their history as lines; the 3D
//! view's frame times too. CPU phases are also puffin scopes (connect
//! puffin_viewer for a flame graph); this panel draws from the same timings.
//! Every run is tagged with the mode whose stage it was; the panel shows
//! the active mode's runs only.

use std::collections::VecDeque;
use std::path::Path;
use std::time::Instant;

use eframe::egui;
use egui_plot::{Bar, BarChart, Legend, Line, Plot, PlotPoints};

use super::Shell;
use crate::plot::{Panel, Series};
use crate::stages::sdf_grid::SdfField;
use crate::timing::PhaseTiming;

const MAX_FRAMES: usize = 600;

type Points = Vec<(f64, f64)>;

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
            mode: "field",
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
                    "field,{i},{:.3},{},{},{:.4},{}\n",
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
                name: "field, CPU wall ms".into(),
                points: wall,
            },
            Series {
                name: "field, GPU ms".into(),
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
                    title: "Field computations",
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
        let mut cpu_bars = Vec::new();
        let mut gpu_bars = Vec::new();
        let mut names: Vec<String> = run.phases.iter().map(|p| p.name.clone()).collect();
        for (i, p) in run.phases.iter().enumerate() {
            cpu_bars.push(
                Bar::new(i as f64 - 0.2, p.wall_ms)
                    .width(0.38)
                    .name(format!("{} CPU", p.name)),
            );
            if let Some(g) = p.gpu_ms {
                gpu_bars.push(
                    Bar::new(i as f64 + 0.2, g)
                        .width(0.38)
                        .name(format!("{} GPU", p.name)),
                );
            }
        }
        if let Some((_, cpu, gpu)) = last_frame {
            let i = names.len() as f64;
            names.push("view frame".into());
            cpu_bars.push(Bar::new(i - 0.2, cpu).width(0.38).name("frame CPU"));
            if let Some(g) = gpu {
                gpu_bars.push(Bar::new(i + 0.2, g).width(0.38).name("frame GPU"));
            }
        }
        let height = (ui.available_height() * 0.45).max(80.0);
        Plot::new("phase_bars")
            .legend(Legend::default())
            .height(height)
            .y_axis_label("ms")
            .x_axis_formatter(move |mark, _| {
                names
                    .get(mark.value.round() as usize)
                    .cloned()
                    .unwrap_or_default()
            })
            .allow_scroll(false)
            .show(ui, |plot| {
                plot.bar_chart(
                    BarChart::new("CPU (wall)", cpu_bars)
                        .color(egui::Color32::from_rgb(90, 140, 220)),
                );
                plot.bar_chart(
                    BarChart::new("GPU", gpu_bars).color(egui::Color32::from_rgb(230, 120, 50)),
                );
            });
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
            .y_axis_label("ms")
            .x_axis_label("run")
            .show(&mut cols[0], |plot| {
                plot.line(Line::new(
                    "stage CPU (wall)",
                    PlotPoints::from(wall.iter().map(|p| [p.0, p.1]).collect::<Vec<_>>()),
                ));
                plot.line(Line::new(
                    "stage GPU",
                    PlotPoints::from(gpu.iter().map(|p| [p.0, p.1]).collect::<Vec<_>>()),
                ));
            });
        Plot::new("frame_history")
            .legend(Legend::default())
            .y_axis_label("ms")
            .x_axis_label("seconds")
            .show(&mut cols[1], |plot| {
                plot.line(Line::new("frame CPU", PlotPoints::from(frames_cpu)));
                plot.line(Line::new("frame GPU", PlotPoints::from(frames_gpu)));
            });
    });
}
