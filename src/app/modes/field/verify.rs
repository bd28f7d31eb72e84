//! Verify: the whole field against another backend (CPU vs GPU) or the
//! other sign mode — max and mean |Δ|, sign disagreements, and a heat map in
//! the viewport (cells coloured by |Δ|; for sign modes, only the cells whose
//! signs disagree).
//!
//! The CPU-vs-GPU heat map shows only the cells with |Δ| above a threshold
//! ε (0 at first: every cell that differs at all), so that at large grids
//! the few cells that matter do not bury the mesh under the many that
//! agree to the last bit.

use eframe::egui;

use super::Field;
use crate::app::shell::Shell;
use crate::app::shell::chrome::value_grid;
use crate::app::shell::legend::sig_figs;
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::scene::JobError;
use crate::stages::sdf_grid::{self, Backend, SdfField, SdfGpu, SignMode};
use crate::timing::PhaseTiming;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareKind {
    /// The same field by the other family of backends (GPU ↔ CPU fast).
    CpuVsGpu,
    /// The same backend with the other sign mode.
    SignModes,
}

impl CompareKind {
    pub fn name(self) -> &'static str {
        match self {
            CompareKind::CpuVsGpu => "cpu-vs-gpu",
            CompareKind::SignModes => "sign-modes",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        [CompareKind::CpuVsGpu, CompareKind::SignModes]
            .into_iter()
            .find(|k| k.name() == name)
    }
}

/// A comparison of the shown field with another one.
pub struct Comparison {
    pub kind: CompareKind,
    pub other: String,
    pub max_abs: f32,
    pub mean_abs: f32,
    pub sign_disagreements: usize,
    /// |Δ| per cell.
    pub abs_diff: Vec<f32>,
    pub sign_differs: Vec<bool>,
    /// The other field's phases, for the profiler.
    pub phases: Vec<PhaseTiming>,
}

impl Comparison {
    /// Cells for the heat map: `[x, y, z, value]`, value = |Δ| for the
    /// cells with |Δ| > `threshold` (CPU vs GPU) or the shown value where
    /// signs differ (sign modes).
    pub fn heat_cells(&self, field: &SdfField, threshold: f32) -> Vec<[f32; 4]> {
        (0..field.values.len())
            .filter_map(|c| {
                let p = field.grid.center_of(c);
                match self.kind {
                    CompareKind::CpuVsGpu => {
                        (self.abs_diff[c] > threshold).then_some([p.x, p.y, p.z, self.abs_diff[c]])
                    }
                    CompareKind::SignModes => {
                        self.sign_differs[c].then_some([p.x, p.y, p.z, field.values[c]])
                    }
                }
            })
            .collect()
    }

    /// What the heat map shows, for the viewport's caption.
    pub fn caption(&self, field_backend: &str, threshold: f32, shown: usize) -> String {
        match self.kind {
            CompareKind::CpuVsGpu => format!(
                "|Δ| of {field_backend} vs {}: {shown} cells with |Δ| > {} (mesh units)",
                self.other,
                sig_figs(threshold as f64, 3)
            ),
            CompareKind::SignModes => format!(
                "sign disagreements of {field_backend} vs {}: {shown} cells, coloured by distance",
                self.other
            ),
        }
    }
}

/// Computes the other field and compares (runs on a worker thread).
pub fn compare(
    mesh: &PreparedMesh,
    field: &SdfField,
    kind: CompareKind,
    gpu: Option<&SdfGpu>,
    progress: &Progress,
) -> Result<Comparison, JobError> {
    let mut params = field.params;
    let backend = match kind {
        CompareKind::CpuVsGpu if field.backend.is_gpu() => Backend::CpuFast,
        CompareKind::CpuVsGpu => {
            if gpu.is_none() {
                return Err(JobError::Failed("no GPU compute on this adapter".into()));
            }
            Backend::Gpu
        }
        CompareKind::SignModes => {
            params.sign_mode = match params.sign_mode {
                SignMode::PseudoNormal => SignMode::Winding,
                SignMode::Winding => SignMode::PseudoNormal,
            };
            field.backend
        }
    };
    let other = sdf_grid::compute(mesh, &params, backend, gpu, progress)?;
    let abs_diff: Vec<f32> = field
        .values
        .iter()
        .zip(&other.values)
        .map(|(a, b)| (a - b).abs())
        .collect();
    let sign_differs: Vec<bool> = field
        .values
        .iter()
        .zip(&other.values)
        .map(|(a, b)| (*a < 0.0) != (*b < 0.0))
        .collect();
    let max_abs = abs_diff.iter().copied().fold(0.0, f32::max);
    let mean_abs =
        abs_diff.iter().map(|&d| d as f64).sum::<f64>() as f32 / abs_diff.len().max(1) as f32;
    Ok(Comparison {
        kind,
        other: format!("{} with {} sign", backend.name(), params.sign_mode.name()),
        max_abs,
        mean_abs,
        sign_disagreements: sign_differs.iter().filter(|&&d| d).count(),
        abs_diff,
        sign_differs,
        phases: other.timings.phases,
    })
}

pub fn verify_ui(mode: &mut Field, shell: &mut Shell, ui: &mut egui::Ui) {
    ui.heading("Verify");
    ui.horizontal(|ui| {
        if ui
            .button("CPU vs GPU")
            .on_hover_text("recompute with the other backend family and compare")
            .clicked()
        {
            mode.start_comparison(shell, CompareKind::CpuVsGpu);
        }
        if ui
            .button("Sign modes")
            .on_hover_text("recompute with the other sign mode and show where signs disagree")
            .clicked()
        {
            mode.start_comparison(shell, CompareKind::SignModes);
        }
    });
    let Some(c) = &mode.comparison else {
        ui.label("No comparison yet.");
        return;
    };
    let field_backend = shell.mesh.field.as_ref().map_or("", |f| f.backend.name());
    value_grid(ui, "verify", |row| {
        row("compared", format!("{field_backend} vs {}", c.other));
        row("max |Δ|", sig_figs(c.max_abs as f64, 3));
        row("mean |Δ|", sig_figs(c.mean_abs as f64, 3));
        row("sign disagreements", c.sign_disagreements.to_string());
    });
    let label = match c.kind {
        CompareKind::CpuVsGpu => "heat map of |Δ| in the view",
        CompareKind::SignModes => "show only cells whose signs disagree",
    };
    let before = (mode.show_comparison, mode.threshold);
    ui.checkbox(&mut mode.show_comparison, label);
    if c.kind == CompareKind::CpuVsGpu {
        threshold_slider(ui, &mut mode.threshold, c.max_abs, mode.show_comparison);
    }
    if before != (mode.show_comparison, mode.threshold) {
        mode.refresh_cells(shell);
    }
}

/// The heat maps' threshold ε (log scale up to the largest |Δ|).
pub fn threshold_slider(ui: &mut egui::Ui, threshold: &mut f32, max_abs: f32, enabled: bool) {
    let max = max_abs.max(f32::MIN_POSITIVE);
    ui.add_enabled(
        enabled,
        egui::Slider::new(threshold, 0.0..=max)
            .logarithmic(true)
            .smallest_positive((max as f64 * 1e-4).max(f32::MIN_POSITIVE as f64))
            .custom_formatter(|v, _| sig_figs(v, 2))
            .text("show only |Δ| > ε"),
    );
}
