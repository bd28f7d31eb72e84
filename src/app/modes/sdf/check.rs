//! Verify a loaded field: another tool's signed distance field (File → Open
//! field, the `open-field:PATH` step) against the exact one at its own
//! samples (`crate::stages::check`), beside the current mesh.
//!
//! The view shows |Δ| as a heat map on the samples (above the Verify
//! threshold ε), the sign disagreements as red crosses, and lists the worst
//! samples; clicking one inspects it: its value, the exact value, the error
//! in cells, and a line to its closest point on the mesh.

use std::path::PathBuf;
use std::sync::Arc;

use eframe::egui;
use glam::Vec3;

use super::SdfMode;
use super::reading::{file_name, headline};
use crate::app::shell::Shell;
use crate::app::shell::chrome::value_grid;
use crate::app::shell::legend::sig_figs;
use crate::app::shell::overlays::segment;
use crate::geom::closest_point_triangle;
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::scene::JobError;
use crate::stages::check::{self, Comparison, FieldSamples, Layout, ReadOptions, SampleIndex};
use crate::stages::sdf::{Backend, SdfGpu};
use crate::view::LineVertex;

const FLIP: [f32; 4] = [1.0, 0.15, 0.1, 1.0];
const SELECTED: [f32; 4] = [1.0, 0.9, 0.0, 1.0];

/// A loaded field and its comparison with the exact one.
pub struct Checked {
    pub path: PathBuf,
    pub samples: FieldSamples,
    pub comparison: Comparison,
    pub backend: Backend,
    pub max_abs: f32,
    /// The inspected sample.
    pub selected: Option<usize>,
}

/// How a field is read: its options, whether a mesh of another hash is
/// taken, and notes to flag it with (a guessed layout).
struct HowRead {
    options: ReadOptions,
    ignore_mesh_hash: bool,
    notes: Vec<String>,
}

/// Reads `path` and compares it with the exact field of `mesh` (on a worker
/// thread): on the GPU when there is one (grids and point sets alike).
fn load(
    path: PathBuf,
    how: HowRead,
    mesh: &PreparedMesh,
    gpu: Option<&SdfGpu>,
    progress: &Progress,
) -> Result<Checked, JobError> {
    let mut samples = check::read_samples(&path, &how.options)?;
    samples.accept_mesh(mesh, how.ignore_mesh_hash)?;
    samples.overrides.extend(how.notes);
    let backend = if gpu.is_some() {
        Backend::Gpu
    } else {
        Backend::CpuFast
    };
    let exact = check::exact_values(mesh, &samples, backend, gpu, progress)?;
    let comparison = Comparison::new(&samples, exact.values);
    let max_abs = comparison.errors.iter().copied().fold(0.0, f32::max);
    Ok(Checked {
        path,
        samples,
        backend: exact.backend,
        comparison,
        max_abs,
        selected: None,
    })
}

impl Checked {
    /// The heat map: `[x, y, z, |Δ|]` of the samples with |Δ| > `threshold`.
    pub fn heat_cells(&self, threshold: f32) -> Vec<[f32; 4]> {
        let e = &self.comparison.errors;
        (0..e.len())
            .filter(|&i| e[i] > threshold)
            .map(|i| {
                let p = self.samples.position(i);
                [p.x, p.y, p.z, e[i]]
            })
            .collect()
    }

    /// Half the size of a sample's marker.
    fn marker(&self, i: usize) -> f32 {
        match &self.samples.layout {
            Layout::Grid(g) => 0.5 * g.cell_size,
            Layout::Points(_) => 0.5 * self.samples.unit.at(i).unwrap_or(0.0),
        }
    }

    /// Red crosses at the sign disagreements; the inspected sample's cross
    /// and its line to the closest point on `mesh`.
    pub fn lines(&self, mesh: &PreparedMesh) -> Vec<LineVertex> {
        let fallback = mesh.mesh.bounds().diagonal() / 200.0;
        let mut out = Vec::new();
        let mut cross = |p: Vec3, h: f32, color| {
            let h = if h > 0.0 { h } else { fallback };
            for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
                segment(&mut out, p - axis * h, p + axis * h, color);
            }
        };
        for &i in &self.comparison.sign_disagreements {
            cross(self.samples.position(i), self.marker(i), FLIP);
        }
        if let Some(i) = self.selected {
            let p = self.samples.position(i);
            cross(p, self.marker(i), SELECTED);
            if let Some((t, _)) =
                crate::stages::sdf::nearest_triangle(mesh, p, f32::INFINITY, &mut 0)
            {
                let q = closest_point_triangle(p, mesh.mesh.corners(t as usize)).point;
                segment(&mut out, p, q, SELECTED);
            }
        }
        out
    }

    /// What the view shows, for the caption (with what was read past).
    pub fn caption(&self, threshold: f32, shown: usize) -> String {
        let mut text = format!(
            "|Δ| of {} vs exact ({}): {shown} samples > {}; red crosses: sign disagreements",
            self.file_name(),
            self.backend.name(),
            sig_figs(threshold as f64, 3)
        );
        for note in &self.samples.overrides {
            text += &format!(" — {}", headline(note));
        }
        text
    }

    fn file_name(&self) -> String {
        file_name(&self.path)
    }
}

fn index_text(index: SampleIndex) -> String {
    match index {
        SampleIndex::Cell([k, j, i]) => format!("[k {k}, j {j}, i {i}]"),
        SampleIndex::Point(p) => format!("point {p}"),
    }
}

/// The Verify view's loaded-field part: statistics, the show switch, the
/// worst samples (click to inspect) and the inspected sample.
pub fn checked_ui(mode: &mut SdfMode, shell: &mut Shell, ui: &mut egui::Ui) {
    ui.strong("Loaded field vs exact");
    if ui
        .button("Open field…")
        .on_hover_text(
            "a .npy grid (with collidoscope's sidecar, or its layout under Reading the field) or an .npz point set",
        )
        .clicked()
    {
        crate::app::shell::chrome::open_field_dialog(shell);
    }
    let mesh = shell.mesh.scene.as_ref().map(|s| s.prepared.clone());
    if mode.reading.ui(ui, mesh.as_deref())
        && let Some(path) = mode.reading.retry.clone()
    {
        start(mode, shell, path, false);
    }
    let Some(c) = &mut mode.checked else {
        match &mode.alone {
            Some(a) => ui.label(format!(
                "{} is viewed on its own: open its mesh, then the field again, to verify it.",
                file_name(&a.path)
            )),
            None => ui.label("No field loaded (File > Open field)."),
        };
        return;
    };
    for note in &c.samples.overrides {
        ui.colored_label(
            egui::Color32::YELLOW,
            format!("warning: {}", headline(note)),
        )
        .on_hover_text(note);
    }
    let report = c.comparison.report(&c.samples, 0);
    value_grid(ui, "checked", |row| {
        row("file", c.file_name());
        row("samples", report.points.to_string());
        row("reference", format!("exact, {}", c.backend.name()));
        row("max |Δ|", sig_figs(report.max_abs_error as f64, 3));
        if let Some(cells) = report.max_abs_error_cells {
            row("max |Δ| (cells)", sig_figs(cells as f64, 3));
        }
        row("mean |Δ|", sig_figs(report.mean_abs_error, 3));
        row("sign disagreements", report.sign_disagreements.to_string());
    });
    let before = (mode.show_checked, c.selected, mode.threshold);
    ui.checkbox(&mut mode.show_checked, "show |Δ| and sign disagreements");
    super::verify::threshold_slider(ui, &mut mode.threshold, c.max_abs, mode.show_checked);
    ui.label("Worst samples (click to inspect):");
    egui::ScrollArea::vertical()
        .id_salt("worst")
        .max_height(ui.available_height().max(160.0))
        .show(ui, |ui| {
            for (rank, w) in report.worst.iter().enumerate() {
                let i = c.comparison.worst[rank];
                let text = format!(
                    "{}  |Δ| {}",
                    index_text(w.index),
                    sig_figs(w.error as f64, 3)
                );
                if ui.selectable_label(c.selected == Some(i), text).clicked() {
                    c.selected = Some(i);
                }
            }
        });
    if let Some(i) = c.selected {
        let p = c.samples.position(i);
        let value = c.samples.values[i];
        let exact = c.comparison.exact[i];
        value_grid(ui, "checked-sample", |row| {
            row("sample", index_text(c.samples.index(i)));
            row("position", format!("{:.4}, {:.4}, {:.4}", p.x, p.y, p.z));
            row("value (file)", format!("{value:+.6}"));
            row("exact", format!("{exact:+.6}"));
            row("|Δ|", sig_figs(c.comparison.errors[i] as f64, 3));
            if let Some(cells) = c.comparison.error_cells(&c.samples, i) {
                row("|Δ| (cells)", sig_figs(cells as f64, 3));
            }
            row(
                "sides (file / exact)",
                format!("{} / {}", side(value), side(exact)),
            );
        });
    }
    if before != (mode.show_checked, c.selected, mode.threshold) {
        mode.refresh_cells(shell);
    }
}

fn side(v: f32) -> &'static str {
    if v < 0.0 { "inside" } else { "outside" }
}

/// Starts loading `path`: checked against the current mesh, or viewed on
/// its own ([`super::alone`]) when no mesh is open or `alone` asks for it
/// (its layout then prefilled as with no mesh).
pub fn start(mode: &mut SdfMode, shell: &mut Shell, path: PathBuf, alone: bool) {
    let mesh: Option<Arc<PreparedMesh>> = (shell.mesh.scene.as_ref())
        .filter(|_| !alone)
        .map(|s| s.prepared.clone());
    let reading = &mut mode.reading;
    let bare =
        path.extension().is_some_and(|e| e == "npy") && !path.with_extension("json").is_file();
    let mut notes = Vec::new();
    if bare && (reading.layout.is_none() || reading.prefilled.is_some()) {
        reading.retry = Some(path.clone());
        if let Err(e) = reading.fit(&path, mesh.as_deref()) {
            shell.notify(e, true);
            return;
        }
        if let (Some(p), Some(l)) = (reading.prefilled, reading.layout) {
            if !p.fits() {
                reading.reveal = true;
                shell.notify(
                    format!(
                        "{} has no sidecar and its shape does not fit the mesh's proportions: give its layout under Verify → Reading the field, then load it again",
                        path.display()
                    ),
                    true,
                );
                return;
            }
            notes.push(p.note(l));
        }
    }
    let options = reading.read_options();
    let Some(mesh) = mesh else {
        let label = format!("reading {}", path.display());
        mode.alone_job =
            Some(shell.spawn(label, move |_| super::alone::load(path, options, notes)));
        return;
    };
    let how = HowRead {
        options,
        ignore_mesh_hash: reading.ignore_mesh_hash,
        notes,
    };
    let gpu = shell.sdf_gpu.clone();
    let label = format!("checking {}", path.display());
    mode.checked_job = Some(shell.spawn(label, move |p| load(path, how, &mesh, gpu.as_deref(), p)));
}
