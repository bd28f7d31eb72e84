//! Verify: the whole field against another backend (CPU vs GPU) or the
//! other sign mode — max and mean |Δ|, sign disagreements, and a heat map in
//! the viewport (cells coloured by |Δ|; for sign modes, the sign
//! diagnostics below).
//!
//! **Sign diagnostics** (`verify:sign-modes`): every cell gets three signs —
//! the closest feature's pseudo-normal, the fast winding number alone
//! (Barill et al.'s expansion at β = 5, no fallback:
//! [`crate::geom::FastWinding::bounded`]) and the exact winding number's
//! side ([`crate::geom::FastWinding::is_inside`], the winding mode's sign).
//! Where they differ, one of the three is the odd one out, and the cell is
//! coloured by which: the pseudo-normal against both winding signs (an open
//! or broken surface), the fast winding number against the other two (a
//! cell near |w| = ½ that the error bound sends to the exact sum), or the
//! exact winding number against both (a cell where pseudo-normal and fast
//! winding agree on the wrong side). A legend names the colours.
//!
//! The CPU-vs-GPU heat map shows only the cells with |Δ| above a threshold
//! ε (0 at first: every cell that differs at all), so that at large grids
//! the few cells that matter do not bury the mesh under the many that
//! agree to the last bit.

use eframe::egui;

use super::SdfMode;
use crate::app::shell::Shell;
use crate::app::shell::chrome::value_grid;
use crate::app::shell::legend::{ViewKey, sig_figs};
use crate::geom::BETA;
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::scene::JobError;
use crate::stages::sdf::{self, Backend, SdfField, SdfGpu, SignMode};
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

/// Which of a cell's three signs (pseudo-normal, fast winding, exact
/// winding) is the odd one out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignClass {
    Agree,
    PseudoNormal,
    FastWinding,
    ExactWinding,
}

impl SignClass {
    pub const DISAGREEING: [SignClass; 3] = [
        SignClass::PseudoNormal,
        SignClass::FastWinding,
        SignClass::ExactWinding,
    ];

    /// The class of three insides.
    pub fn of(pseudo_normal: bool, fast: bool, exact: bool) -> Self {
        match (pseudo_normal == fast, fast == exact) {
            (true, true) => SignClass::Agree,
            (false, true) => SignClass::PseudoNormal,
            (false, false) => SignClass::FastWinding,
            (true, false) => SignClass::ExactWinding,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            SignClass::Agree => "all three agree",
            SignClass::PseudoNormal => "pseudo-normal ≠ both winding signs",
            SignClass::FastWinding => "fast winding ≠ pseudo-normal and exact",
            SignClass::ExactWinding => "exact winding ≠ pseudo-normal and fast",
        }
    }

    /// The class in a few words, for the key beside the view.
    pub fn short_label(self) -> &'static str {
        match self {
            SignClass::Agree => "all agree",
            SignClass::PseudoNormal => "pseudo-normal",
            SignClass::FastWinding => "fast winding",
            SignClass::ExactWinding => "exact winding",
        }
    }

    /// The value its cells carry in the viewport, over a colour range of 1:
    /// three well-apart colours of either colour map.
    pub fn value(self) -> f32 {
        match self {
            SignClass::Agree => 0.0,
            SignClass::PseudoNormal => 1.0,
            SignClass::FastWinding => -1.0,
            SignClass::ExactWinding => 0.5,
        }
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
    /// Sign modes: each cell's [`SignClass`].
    pub sign_classes: Vec<SignClass>,
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
                        let class = self.sign_classes[c];
                        (class != SignClass::Agree).then_some([p.x, p.y, p.z, class.value()])
                    }
                }
            })
            .collect()
    }

    /// What the heat map shows, for the viewport's caption; when it shows
    /// no cell, why the view is empty.
    pub fn caption(&self, field_backend: &str, threshold: f32, shown: usize) -> String {
        match self.kind {
            CompareKind::CpuVsGpu if shown == 0 => format!(
                "|Δ| of {field_backend} vs {}: no cell with |Δ| > {} (mesh units; the largest is {}), so the view shows none",
                self.other,
                sig_figs(threshold as f64, 3),
                sig_figs(self.max_abs as f64, 3)
            ),
            CompareKind::SignModes if shown == 0 => format!(
                "sign diagnostics ({field_backend}): the pseudo-normal, fast winding and exact winding signs agree in every cell, so the view shows none"
            ),
            CompareKind::CpuVsGpu => format!(
                "|Δ| of {field_backend} vs {}: {shown} cells with |Δ| > {} (mesh units)",
                self.other,
                sig_figs(threshold as f64, 3)
            ),
            CompareKind::SignModes => format!(
                "sign diagnostics ({field_backend}): {shown} cells where the pseudo-normal, fast winding and exact winding signs differ, coloured by the odd one out"
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
    let other = sdf::compute(mesh, &params, backend, gpu, progress)?;
    let abs_diff: Vec<f32> = field
        .values
        .iter()
        .zip(&other.values)
        .map(|(a, b)| (a - b).abs())
        .collect();
    let sign_disagreements = field
        .values
        .iter()
        .zip(&other.values)
        .filter(|(a, b)| (**a < 0.0) != (**b < 0.0))
        .count();
    let sign_classes = match kind {
        CompareKind::CpuVsGpu => Vec::new(),
        CompareKind::SignModes => {
            let pseudo_normal = match field.params.sign_mode {
                SignMode::PseudoNormal => &field.values,
                SignMode::Winding => &other.values,
            };
            sign_classes(mesh, field, pseudo_normal)
        }
    };
    let max_abs = abs_diff.iter().copied().fold(0.0, f32::max);
    let mean_abs =
        abs_diff.iter().map(|&d| d as f64).sum::<f64>() as f32 / abs_diff.len().max(1) as f32;
    Ok(Comparison {
        kind,
        other: format!("{} with {} sign", backend.name(), params.sign_mode.name()),
        max_abs,
        mean_abs,
        sign_disagreements,
        abs_diff,
        sign_classes,
        phases: other.timings.phases,
    })
}

/// Each cell's [`SignClass`] from the pseudo-normal field's signs and the
/// fast and exact winding signs at its centre.
fn sign_classes(mesh: &PreparedMesh, field: &SdfField, pseudo_normal: &[f32]) -> Vec<SignClass> {
    use rayon::prelude::*;
    let winding = mesh.winding();
    (0..field.values.len())
        .into_par_iter()
        .map(|c| {
            let p = field.grid.center_of(c);
            let fast = winding.bounded(p, BETA).w.abs() > 0.5;
            SignClass::of(pseudo_normal[c] < 0.0, fast, winding.is_inside(p))
        })
        .collect()
}

/// The sign diagnostics' legend, in place of the colour bar: each class's
/// colour (as the viewport draws it), name and number of cells.
/// The key of the sign diagnostics: each class's colour and count.
pub fn sign_key(view: &crate::view::ViewSettings, c: &Comparison) -> ViewKey {
    let entries = SignClass::DISAGREEING
        .into_iter()
        .map(|class| {
            let count = c.sign_classes.iter().filter(|&&k| k == class).count();
            (
                format!("{}: {count}", class.short_label()),
                view.color_map.color(class.value(), 1.0),
            )
        })
        .collect();
    ViewKey::classes("the odd sign out", entries)
}

pub fn verify_ui(mode: &mut SdfMode, shell: &mut Shell, ui: &mut egui::Ui) {
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
        row("cells whose sign differs", c.sign_disagreements.to_string());
        for class in SignClass::DISAGREEING {
            if c.kind == CompareKind::SignModes {
                let count = c.sign_classes.iter().filter(|&&k| k == class).count();
                row(class.label(), count.to_string());
            }
        }
    });
    if c.kind == CompareKind::SignModes {
        ui.label(sign_counts_note(c));
    }
    let label = match c.kind {
        CompareKind::CpuVsGpu => "heat map of |Δ| in the view",
        CompareKind::SignModes => "sign diagnostics in the view",
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

/// Why the count of cells whose sign differs between the two fields need
/// not be the sum of the classes that change it.
pub fn sign_counts_note(c: &Comparison) -> String {
    let count = |class| c.sign_classes.iter().filter(|&&k| k == class).count();
    let changed = count(SignClass::PseudoNormal) + count(SignClass::ExactWinding);
    let mut note = format!(
        "The two fields' signs differ where the pseudo-normal or the exact winding number is \
         the odd one out ({changed} cells); where only the fast winding number is, both \
         fields agree (the winding field falls back to the exact sum)."
    );
    if changed != c.sign_disagreements {
        note += &format!(
            " The fields differ in {} cells: the classes test each cell's signs afresh, and \
             a cell at distance 0 or decided on the other side of |w| = ½ by the field's own \
             evaluation counts in one tally only.",
            c.sign_disagreements
        );
    }
    note
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_odd_sign_out_names_the_class() {
        assert_eq!(SignClass::of(true, true, true), SignClass::Agree);
        assert_eq!(SignClass::of(false, false, false), SignClass::Agree);
        assert_eq!(SignClass::of(true, false, false), SignClass::PseudoNormal);
        assert_eq!(SignClass::of(false, true, false), SignClass::FastWinding);
        assert_eq!(SignClass::of(true, true, false), SignClass::ExactWinding);
        assert_eq!(SignClass::of(false, false, true), SignClass::ExactWinding);
    }

    #[test]
    fn sign_diagnostics_find_the_open_meshs_pseudo_normal_errors() {
        use crate::stages::sdf::SdfParams;
        let mesh = PreparedMesh::new(&crate::assets::load_sample("teapot").unwrap()).unwrap();
        let params = SdfParams {
            resolution: 24,
            sign_mode: SignMode::Winding,
            ..SdfParams::default()
        };
        let progress = Progress::default();
        let field = sdf::compute(&mesh, &params, Backend::CpuFast, None, &progress).unwrap();
        let c = compare(&mesh, &field, CompareKind::SignModes, None, &progress).unwrap();
        let count = |class| c.sign_classes.iter().filter(|&&k| k == class).count();
        // The winding field's signs are the exact ones; the pseudo-normal
        // field differs on the open teapot, and the two fields disagree
        // where the pseudo-normal is the odd one out or the fast winding
        // number agrees with it.
        assert!(count(SignClass::PseudoNormal) > 0);
        assert_eq!(
            c.sign_disagreements,
            count(SignClass::PseudoNormal) + count(SignClass::ExactWinding)
        );
        let shown = c.heat_cells(&field, 0.0);
        assert_eq!(shown.len(), field.values.len() - count(SignClass::Agree));
        assert!(c.caption("cpu", 0.0, shown.len()).contains(" cells where "));
    }

    /// An empty heat map says why it is empty.
    #[test]
    fn an_empty_view_is_explained_in_the_caption() {
        let comparison = |kind| Comparison {
            kind,
            other: "gpu".into(),
            max_abs: 2.5e-7,
            mean_abs: 1e-8,
            sign_disagreements: 0,
            abs_diff: vec![0.0; 8],
            sign_classes: vec![SignClass::Agree; 8],
            phases: Vec::new(),
        };
        let signs = comparison(CompareKind::SignModes).caption("cpu", 0.0, 0);
        assert!(signs.contains("agree in every cell"), "{signs}");
        let diff = comparison(CompareKind::CpuVsGpu).caption("cpu", 1e-6, 0);
        assert!(
            diff.contains("no cell with |Δ| > 1e-6") && diff.contains("the largest is 2.5e-7"),
            "{diff}"
        );
        let shown = comparison(CompareKind::CpuVsGpu).caption("cpu", 1e-6, 3);
        assert!(shown.contains("3 cells with |Δ| > 1e-6"), "{shown}");
    }
}
