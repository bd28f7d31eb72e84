//! The field mode: the uniform signed distance field of the open mesh
//! (computed by the shell whenever the mesh or the parameters change) as a
//! cloud of cells, with the stage's parameters, a slice, an inspector for
//! the picked cell and a verification against another backend or sign mode
//! (its heat map replaces the cells while shown), and a field from another
//! tool loaded beside the mesh and checked against the exact one
//! (`check`), and the field's iso-surface at a chosen level, extracted
//! on the GPU (`iso_surface`).
//!
//! The mode draws what changed since its last upload: the mesh and its
//! overlay lines for a new mesh, the cells for a new field or comparison,
//! the marker for a new pick.

mod check;
mod inspector;
mod iso_surface;
mod pipeline;
mod reading;
mod scene;
mod slice;
mod verify;

use std::path::PathBuf;
use std::sync::Arc;

use eframe::egui;

use super::{Mode, ModeRequest, Panels, StepDoc, StepTable, Steps, args, step};
use crate::app::shell::cells::axis_from_name;
use crate::app::shell::file_picker::FileKind;
use crate::app::shell::image_view::ImageView;
use crate::app::shell::legend::{ColorBar, caption_ui, color_bar_ui, keys_ui};
use crate::app::shell::{Shell, cells_ui};
use crate::io::Format;
use crate::scene::{Job, JobError};
use crate::stages::sdf::{self, Backend, SdfField, SignMode};
use glam::Vec3;
use verify::{CompareKind, Comparison};

/// The picked cell and what the inspector shows about it.
pub struct Pick {
    pub cell: usize,
    /// Value of the CPU reference at this cell, computed on pick.
    pub reference: Option<f32>,
}

#[derive(Default)]
pub struct SdfMode {
    /// A field file (.npy, .npz) to check against the mesh, until the
    /// mode's next frame starts its job.
    opened: Option<std::path::PathBuf>,
    pick: Option<Pick>,
    comparison: Option<Comparison>,
    show_comparison: bool,
    /// The CPU-vs-GPU heat map shows the cells with |Δ| above this.
    threshold: f32,
    /// How many cells the cloud shows now.
    shown_cells: usize,
    compare_job: Option<Job<Comparison>>,
    /// A loaded field checked against the exact one, and whether the view
    /// shows it.
    checked: Option<check::Checked>,
    show_checked: bool,
    checked_job: Option<Job<check::Checked>>,
    /// How the next loaded field is read (a bare grid's layout, overrides).
    reading: reading::Reading,
    /// The mesh and the field (by address) the viewport shows.
    drawn_mesh: Option<usize>,
    drawn_field: Option<usize>,
    /// The slice panel's image.
    slice_view: ImageView,
    /// The slice whose plane the 3D view draws, if shown.
    drawn_slice: Option<(crate::view::Axis, u32)>,
    iso: iso_surface::Iso,
}

/// The field mode's script steps.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SdfStep {
    /// `res:N`: cells along the longest axis.
    Resolution(u32),
    /// `backend:NAME`: gpu, gpu-brute, cpu, cpu-ref.
    Backend(String),
    /// `sign:pseudo-normal|winding`.
    Sign(String),
    /// `verify:cpu-vs-gpu|sign-modes`: run a comparison, show its heat map.
    Verify(String),
    /// `hide-verify`: hide the comparison heat map.
    HideVerify,
    /// `verify-threshold:EPS`: the heat map shows only |Δ| > EPS.
    VerifyThreshold(f32),
    /// `pick[:N]`: the default pick ([`default_pick`]), or cell N.
    Pick(Option<usize>),
    /// `slice:x|y|z`: show the slice panel on an axis.
    Slice(String),
    /// `open-field:PATH`: load a field file and check it against the exact one.
    OpenField(String),
    /// `check-pick:N`: inspect the loaded field's N-th worst sample (0: the worst).
    CheckPick(usize),
    /// `field-layout:X,Y,Z,H,ORDER|off`: the next bare grid's layout.
    Layout(Option<reading::GridLayout>),
    /// `field-overrides:mesh-hash,checksum|none`: what a loaded field may
    /// differ in (ignore the mesh hash, ignore the checksum).
    Overrides(bool, bool),
    /// `export-slice:PATH[@2x][+caption]`: the slice with its colour bar.
    ExportSlice(std::path::PathBuf, u32, bool),
    /// `iso:LEVEL|off`: the iso-surface at LEVEL, or none.
    Iso(Option<f32>),
}

/// This mode's script steps, for `--script help`.
const STEPS: &[StepDoc] = &[
    step(
        "res",
        "N",
        "cells along the longest axis (8–512); recomputes the field",
    ),
    step(
        "backend",
        "NAME",
        "the field's backend: cpu, gpu-brute or gpu",
    ),
    step(
        "sign",
        "pseudo-normal|winding",
        "how inside and outside are told apart",
    ),
    step(
        "verify",
        "cpu-vs-gpu|sign-modes",
        "compare the field with another computation",
    ),
    step("hide-verify", "", "hide the comparison"),
    step(
        "verify-threshold",
        "EPS",
        "the CPU-vs-GPU and loaded-field heat maps show only |Δ| > EPS",
    ),
    step(
        "pick",
        "[CELL]",
        "select a cell for the inspector (none: clear)",
    ),
    step("slice", "AXIS", "the slice's axis: x, y or z"),
    step(
        "open-field",
        "PATH",
        "load a field (.npy with sidecar, .npz points) and verify it against the exact one",
    ),
    step(
        "check-pick",
        "N",
        "inspect the loaded field's N-th worst sample (0: the worst)",
    ),
    step(
        "field-layout",
        "X,Y,Z,H,zyx|xyz|off",
        "a bare .npy grid's layout (value [0,0,0] at X,Y,Z, spacing H, axis order), or off: the sidecar's",
    ),
    step(
        "field-overrides",
        "mesh-hash,checksum|none",
        "read a field of another mesh hash or an edited .npy all the same, flagged",
    ),
    step(
        "export-slice",
        "PATH[@1x|@2x|@4x][+caption]",
        "save the slice at 1×, 2× or 4× with its colour bar and axes (and a caption)",
    ),
    step(
        "iso",
        "LEVEL|off",
        "show the field's iso-surface at LEVEL (mesh units; GPU marching cubes), or none",
    ),
];

fn parse(verb: &str, arg: &str) -> Option<Result<SdfStep, String>> {
    let need = |what: &str| args::need(verb, arg, what);
    Some(match verb {
        "res" => args::number(verb, arg, "a number").and_then(|r| {
            // The bounds `collidoscope sdf --res` checks, with its message.
            let params = sdf::SdfParams {
                resolution: r,
                ..Default::default()
            };
            params
                .validate()
                .map(|()| SdfStep::Resolution(r))
                .map_err(|e| format!("{verb}: {e}"))
        }),
        "backend" => need("a backend").map(SdfStep::Backend),
        "sign" => need("pseudo-normal or winding").map(SdfStep::Sign),
        "verify" => need("cpu-vs-gpu or sign-modes").map(SdfStep::Verify),
        "hide-verify" => Ok(SdfStep::HideVerify),
        "verify-threshold" => match arg.parse::<f32>() {
            Ok(eps) if eps.is_finite() && eps >= 0.0 => Ok(SdfStep::VerifyThreshold(eps)),
            _ => Err(format!(
                "verify-threshold needs a distance ≥ 0 such as 1e-7, not {arg:?}"
            )),
        },
        "pick" if arg.is_empty() => Ok(SdfStep::Pick(None)),
        "pick" => args::number(verb, arg, "a cell index").map(|c| SdfStep::Pick(Some(c))),
        "slice" => need("an axis").map(SdfStep::Slice),
        "open-field" => need("a .npy or .npz file").map(SdfStep::OpenField),
        "check-pick" => args::number(verb, arg, "a rank").map(SdfStep::CheckPick),
        "field-layout" => reading::parse_layout(verb, arg).map(SdfStep::Layout),
        "field-overrides" => {
            reading::parse_overrides(verb, arg).map(|(h, c)| SdfStep::Overrides(h, c))
        }
        "iso" if arg == "off" => Ok(SdfStep::Iso(None)),
        "iso" => match arg.parse::<f32>() {
            Ok(level) if level.is_finite() => Ok(SdfStep::Iso(Some(level))),
            _ => Err(format!(
                "iso needs a level in mesh units such as 0 or -0.01, or off, not {arg:?}"
            )),
        },
        "export-slice" => crate::app::shell::export::figure_target(arg)
            .map(|(path, factor, caption)| SdfStep::ExportSlice(path, factor, caption)),
        _ => return None,
    })
}

/// The default pick: from the grid's centre towards the eye, the first
/// cell at least two cells outside the surface. Its closest-point line then
/// runs in front of the mesh, where it can be seen; the centre cell itself
/// is often inside the mesh, its line hidden by the shaded surface. The
/// centre cell when no cell on the way is that far out.
fn default_pick(field: &SdfField, toward_eye: Vec3) -> usize {
    let grid = &field.grid;
    let centre = grid.index(grid.dims / 2);
    let start = grid.center_of(centre);
    let step = 0.5 * grid.cell_size;
    (1..4 * grid.dims.max_element())
        .map_while(|k| grid.cell_at(start + toward_eye * (k as f32 * step)))
        .map(|ijk| grid.index(ijk))
        .find(|&c| field.values[c] > 2.0 * grid.cell_size)
        .unwrap_or(centre)
}

/// The mesh's opacity at most while a verify view shows flagged cells.
const VERIFY_OPACITY: f32 = 0.3;

fn key<T>(item: Option<&Arc<T>>) -> Option<usize> {
    item.map(|a| Arc::as_ptr(a) as usize)
}

impl SdfMode {
    /// Uploads the cell cloud: the field, or the comparison heat map.
    fn refresh_cells(&mut self, shell: &mut Shell) {
        if let (Some(c), true, Some(scene)) = (&self.checked, self.show_checked, &shell.mesh.scene)
        {
            let cells = c.heat_cells(self.threshold);
            shell.viewport.range_override = Some((0.0, c.max_abs.max(f32::MIN_POSITIVE)));
            shell.viewport.opacity_max = Some(VERIFY_OPACITY);
            self.shown_cells = cells.len();
            shell.viewport.set_cells(&cells);
            shell.viewport.set_pick_lines(&c.lines(&scene.prepared));
            return;
        }
        self.refresh_pick(shell);
        let (cells, range) = match (&shell.mesh.field, &self.comparison) {
            (Some(field), Some(c)) if self.show_comparison => {
                // Sign diagnostics: class values over a range of 1.
                let range = Some(match c.kind {
                    CompareKind::CpuVsGpu => (0.0, c.max_abs.max(f32::MIN_POSITIVE)),
                    CompareKind::SignModes => (0.0, 1.0),
                });
                (c.heat_cells(field, self.threshold), range)
            }
            (Some(field), _) => (crate::view::cells_from_field(field), None),
            _ => (Vec::new(), None),
        };
        shell.viewport.range_override = range;
        // The flagged cells lie inside and behind the mesh: it turns
        // translucent while they are shown.
        shell.viewport.opacity_max = range.map(|_| VERIFY_OPACITY);
        self.shown_cells = cells.len();
        shell.viewport.set_cells(&cells);
    }

    /// The viewport's caption: the quantity the cells show, and the
    /// iso-surface if one is shown.
    fn caption(&self, shell: &Shell) -> String {
        let quantity = self.quantity_caption(shell);
        match self.iso.caption() {
            Some(iso) if !quantity.is_empty() => format!("{quantity}; {iso}"),
            _ => quantity,
        }
    }

    fn quantity_caption(&self, shell: &Shell) -> String {
        let Some(field) = &shell.mesh.field else {
            return String::new();
        };
        let backend = field.backend.name();
        if let (Some(c), true) = (&self.checked, self.show_checked) {
            return c.caption(self.threshold, self.shown_cells);
        }
        match &self.comparison {
            Some(c) if self.show_comparison => c.caption(backend, self.threshold, self.shown_cells),
            _ => format!(
                "signed distance field ({backend}, {}×{}×{} cells, mesh units)",
                field.grid.dims.x, field.grid.dims.y, field.grid.dims.z
            ),
        }
    }

    /// What the slice shows: what the viewport's cells show.
    fn slice_quantity(&self) -> slice::Quantity<'_> {
        match &self.comparison {
            Some(c) if self.show_comparison => match c.kind {
                CompareKind::CpuVsGpu => slice::Quantity::Difference {
                    values: &c.abs_diff,
                    max: c.max_abs.max(f32::MIN_POSITIVE),
                    threshold: self.threshold,
                },
                CompareKind::SignModes => slice::Quantity::SignDisagreements {
                    classes: &c.sign_classes,
                },
            },
            _ => slice::Quantity::Field,
        }
    }

    /// Uploads the mesh with its overlay lines, and the pick's marker.
    fn refresh_overlays(&mut self, shell: &mut Shell) {
        if let Some(scene) = &shell.mesh.scene {
            shell.viewport.set_scene(scene, &shell.settings.overlays);
            self.refresh_pick(shell);
        }
    }

    /// Recomputes the inspector's reference value and its 3D marker, and
    /// the slice's plane.
    fn refresh_pick(&mut self, shell: &mut Shell) {
        let mut lines = Vec::new();
        if let (Some(scene), Some(field), Some(pick)) =
            (&shell.mesh.scene, &shell.mesh.field, &mut self.pick)
        {
            let p = field.grid.center_of(pick.cell);
            pick.reference = sdf::reference_cell(&scene.prepared, p, f32::INFINITY).map(|(v, _)| v);
            lines = inspector::pick_lines(&scene.prepared, field, pick.cell);
        }
        if let (Some(field), Some((axis, index))) = (&shell.mesh.field, self.drawn_slice) {
            lines.extend(slice::slice_plane_lines(field, axis, index));
        }
        shell.viewport.set_pick_lines(&lines);
    }

    fn set_pick(&mut self, shell: &mut Shell, cell: Option<usize>) {
        self.pick = cell.map(|cell| Pick {
            cell,
            reference: None,
        });
        self.refresh_pick(shell);
    }

    /// Starts a comparison job.
    fn start_comparison(&mut self, shell: &mut Shell, kind: CompareKind) {
        let (Some(scene), Some(field)) = (&shell.mesh.scene, &shell.mesh.field) else {
            shell.notify("nothing to compare yet: compute a field first", true);
            return;
        };
        let mesh = scene.prepared.clone();
        let field = field.clone();
        let gpu = shell.sdf_gpu.clone();
        self.compare_job = Some(
            shell.spawn(format!("comparing ({})", kind.name()), move |p| {
                verify::compare(&mesh, &field, kind, gpu.as_deref(), p)
            }),
        );
    }

    fn apply(&mut self, shell: &mut Shell, step: SdfStep) -> Result<(), String> {
        match step {
            SdfStep::Resolution(r) => {
                shell.settings.params.resolution = r;
                shell.request_field();
            }
            SdfStep::Backend(b) => {
                shell.settings.backend =
                    Backend::from_name(&b).ok_or(format!("unknown backend {b}"))?;
                shell.request_field();
            }
            SdfStep::Sign(s) => {
                shell.settings.params.sign_mode = SignMode::ALL
                    .into_iter()
                    .find(|m| m.name() == s)
                    .ok_or(format!("unknown sign mode {s}"))?;
                shell.request_field();
            }
            SdfStep::Verify(kind) => {
                let kind =
                    CompareKind::from_name(&kind).ok_or(format!("unknown comparison {kind}"))?;
                self.start_comparison(shell, kind);
            }
            SdfStep::HideVerify => {
                self.show_comparison = false;
                self.show_checked = false;
                self.refresh_cells(shell);
            }
            SdfStep::VerifyThreshold(eps) => {
                self.threshold = eps;
                self.refresh_cells(shell);
            }
            SdfStep::Pick(cell) => {
                let field = shell.mesh.field.as_ref().ok_or("no field to pick from")?;
                let cell =
                    cell.unwrap_or_else(|| default_pick(field, shell.viewport.camera.backward()));
                if cell >= field.values.len() {
                    return Err(format!("cell {cell} is outside the grid"));
                }
                self.set_pick(shell, Some(cell));
            }
            SdfStep::OpenField(path) => check::start(self, shell, path.into()),
            SdfStep::Layout(layout) => {
                self.reading.layout = layout;
                self.reading.guess_fits = None;
            }
            SdfStep::Overrides(mesh_hash, checksum) => {
                self.reading.ignore_mesh_hash = mesh_hash;
                self.reading.ignore_checksum = checksum;
            }
            SdfStep::CheckPick(rank) => {
                let c = self
                    .checked
                    .as_mut()
                    .ok_or("no field loaded (open-field:PATH)")?;
                let i = *c.comparison.worst.get(rank).ok_or(format!(
                    "the loaded field lists {} worst samples",
                    c.comparison.worst.len()
                ))?;
                c.selected = Some(i);
                self.show_checked = true;
                self.refresh_cells(shell);
            }
            SdfStep::Slice(axis) => {
                shell.settings.slice_axis =
                    axis_from_name(&axis).ok_or(format!("unknown axis {axis}"))?;
                shell.settings.show_slice = true;
            }
            SdfStep::ExportSlice(path, factor, caption) => {
                slice::export_slice(self, shell, &path, factor, caption)?
            }
            SdfStep::Iso(level) => {
                self.iso.enabled = level.is_some();
                if let Some(level) = level {
                    self.iso.level = level;
                }
                self.iso.requested = true;
            }
        }
        Ok(())
    }
}

impl Mode for SdfMode {
    fn shows_open_mesh(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "sdf"
    }

    fn old_names(&self) -> &'static [&'static str] {
        &["field"]
    }

    fn title(&self) -> &'static str {
        "Signed distance field"
    }

    fn panels(&self) -> Panels {
        Panels {
            inspector: true,
            slice: true,
            profiler: true,
        }
    }

    fn file_kind(&self) -> Option<FileKind> {
        Some(FileKind {
            what: "Signed distance field",
            extensions: &["npy", "npz"],
        })
    }

    fn open_file(&mut self, shell: &mut Shell, path: std::path::PathBuf) -> ModeRequest {
        shell.notify(
            format!(
                "{}: checked against the mesh in the signed distance field mode's Verify view",
                path.display()
            ),
            false,
        );
        self.opened = Some(path);
        ModeRequest::Stay
    }

    fn activate(&mut self, _shell: &mut Shell) {
        self.drawn_mesh = None;
        self.drawn_field = None;
        self.iso.forget();
    }

    fn deactivate(&mut self, shell: &mut Shell) {
        self.iso.clear(shell);
    }

    fn update(&mut self, shell: &mut Shell) {
        let mesh = key(shell.mesh.scene.as_ref().map(|s| &s.prepared));
        let field = key(shell.mesh.field.as_ref());
        let mut cells = false;
        if mesh != self.drawn_mesh {
            // A new mesh: its field follows.
            self.drawn_mesh = mesh;
            self.pick = None;
            self.comparison = None;
            self.checked = None;
            self.show_checked = false;
            self.refresh_overlays(shell);
            cells = true;
        }
        if field != self.drawn_field {
            self.drawn_field = field;
            self.comparison = None;
            self.show_comparison = false;
            let cell_count = shell.mesh.field.as_ref().map_or(0, |f| f.values.len());
            if self.pick.as_ref().is_some_and(|p| p.cell >= cell_count) {
                self.pick = None;
            }
            self.refresh_pick(shell);
            cells = true;
        }
        let slice = shell
            .mesh
            .field
            .as_ref()
            .filter(|_| shell.settings.show_slice)
            .map(|f| {
                let axis = shell.settings.slice_axis;
                (
                    axis,
                    slice::slice_index(f, axis, shell.settings.slice_position),
                )
            });
        if slice != self.drawn_slice {
            self.drawn_slice = slice;
            self.refresh_pick(shell);
        }
        if let Some(result) = self.compare_job.as_ref().and_then(Job::poll) {
            self.compare_job = None;
            match result {
                Ok(c) => {
                    let res = shell.mesh.field.as_ref().map_or(0, |f| f.params.resolution);
                    shell.history.record_run(
                        self.name(),
                        format!("verify: {} {res}³", c.other),
                        c.phases.clone(),
                    );
                    self.comparison = Some(c);
                    self.show_comparison = true;
                    self.show_checked = false;
                    cells = true;
                }
                Err(JobError::Cancelled) => {}
                Err(e) => shell.notify(format!("comparison: {e}"), true),
            }
        }
        if let Some(path) = self.opened.take() {
            check::start(self, shell, path);
        }
        if let Some(result) = self.checked_job.as_ref().and_then(Job::poll) {
            self.checked_job = None;
            match result {
                Ok(c) => {
                    let flags: String = (c.samples.overrides.iter())
                        .map(|n| format!("; {}", check::headline(n)))
                        .collect();
                    shell.notify(
                        format!(
                            "{}: {} sign disagreements, max |Δ| {}{flags}",
                            c.path.display(),
                            c.comparison.sign_disagreements.len(),
                            crate::app::shell::legend::sig_figs(c.max_abs as f64, 3)
                        ),
                        false,
                    );
                    self.checked = Some(c);
                    self.show_checked = true;
                    self.comparison = None;
                    cells = true;
                }
                Err(JobError::Cancelled) => {}
                Err(e) => shell.notify(format!("open field: {e}"), true),
            }
        }
        if cells {
            self.refresh_cells(shell);
        }
        self.iso.update(shell);
    }

    fn busy(&self) -> bool {
        self.compare_job.is_some() || self.checked_job.is_some() || self.iso.busy()
    }

    fn side_panel_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui) {
        pipeline::pipeline_ui(shell, ui);
        ui.separator();
        cells_ui(shell, ui);
        self.iso.ui(shell, ui);
        ui.separator();
        let overlays = egui::CollapsingHeader::new("Scene")
            .default_open(true)
            .show(ui, |ui| scene::scene_ui(shell, ui))
            .body_returned;
        if overlays == Some(true) {
            self.refresh_overlays(shell);
        }
    }

    fn inspector_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui) {
        inspector::inspector_ui(self, shell, ui);
        ui.separator();
        verify::verify_ui(self, shell, ui);
        ui.separator();
        check::checked_ui(self, shell, ui);
    }

    fn slice_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui) {
        slice::slice_ui(self, shell, ui);
    }

    fn viewport_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui, picked: Option<Option<usize>>) {
        if let Some(cell) = picked {
            self.set_pick(shell, cell);
        }
        if shell.mesh.field.is_none() {
            return;
        }
        let view = &shell.settings.view;
        if let Some(c) = self
            .comparison
            .as_ref()
            .filter(|c| self.show_comparison && c.kind == CompareKind::SignModes)
        {
            let key = verify::sign_key(view, c);
            keys_ui(ui, shell, &[key]);
            caption_ui(ui, &self.caption(shell));
            return;
        }
        let bar = match &self.comparison {
            _ if self.show_checked && self.checked.is_some() => ColorBar {
                title: "|Δ| vs exact (mesh units)",
                lo: 0.0,
                hi: self.checked.as_ref().map_or(0.0, |c| c.max_abs),
                signed: false,
                threshold: Some(self.threshold),
            },
            Some(c) if self.show_comparison && c.kind == CompareKind::CpuVsGpu => ColorBar {
                title: "|Δ| (mesh units)",
                lo: 0.0,
                hi: c.max_abs.max(f32::MIN_POSITIVE),
                signed: false,
                threshold: Some(self.threshold),
            },
            _ => ColorBar::signed_distance(view),
        };
        color_bar_ui(ui, shell, bar, Vec::new());
        caption_ui(ui, &self.caption(shell));
    }
}

impl Steps for SdfMode {
    type Step = SdfStep;
    const TABLE: StepTable<Self, SdfStep> = StepTable::new(STEPS, parse, |m, shell, step| {
        m.apply(shell, step).map(|()| ModeRequest::Stay)
    });

    fn outputs(verb: &str, arg: &str) -> Vec<(PathBuf, Format)> {
        super::figure_output("export-slice", verb, arg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_pick_lies_outside_the_mesh_towards_the_eye() {
        use crate::stages::sdf::{GridSpec, SdfParams};
        // A sphere of radius 0.5 in a 16³ grid over [-1, 1]³.
        let cell_size = 2.0 / 16.0;
        let grid = GridSpec {
            origin: Vec3::splat(-1.0 + 0.5 * cell_size),
            cell_size,
            dims: glam::UVec3::splat(16),
        };
        let values: Vec<f32> = (0..grid.num_cells())
            .map(|i| grid.center_of(i).length() - 0.5)
            .collect();
        let field = SdfField {
            grid,
            params: SdfParams::default(),
            backend: Backend::CpuReference,
            closest: vec![0; values.len()],
            values,
            distance_evaluations: 0,
            timings: Default::default(),
        };
        let toward_eye = Vec3::new(0.3, 0.2, 1.0).normalize();
        let cell = default_pick(&field, toward_eye);
        let p = field.grid.center_of(cell);
        assert!(field.values[cell] > 2.0 * cell_size, "outside: {p}");
        assert!(p.normalize().dot(toward_eye) > 0.95, "towards the eye: {p}");
        // Nothing far enough outside on the way: the centre cell.
        let mut inside = field.clone();
        inside.values.iter_mut().for_each(|v| *v = -1.0);
        assert_eq!(
            default_pick(&inside, toward_eye),
            field.grid.index(field.grid.dims / 2)
        );
    }

    #[test]
    fn parses_the_field_steps() {
        assert_eq!(parse("res", "64"), Some(Ok(SdfStep::Resolution(64))));
        assert!(matches!(parse("res", "many"), Some(Err(_))));
        for refused in ["0", "7", "513"] {
            let err = parse("res", refused).and_then(Result::err);
            assert!(
                err.as_deref()
                    .is_some_and(|e| e.contains("outside 8..=512")),
                "res:{refused}: {err:?}"
            );
        }
        assert_eq!(parse("pick", ""), Some(Ok(SdfStep::Pick(None))));
        assert_eq!(parse("pick", "7"), Some(Ok(SdfStep::Pick(Some(7)))));
        assert_eq!(parse("hide-verify", ""), Some(Ok(SdfStep::HideVerify)));
        assert_eq!(
            parse("verify-threshold", "1e-7"),
            Some(Ok(SdfStep::VerifyThreshold(1e-7)))
        );
        assert!(matches!(parse("verify-threshold", "-1"), Some(Err(_))));
        assert!(matches!(parse("verify-threshold", "small"), Some(Err(_))));
        assert!(matches!(parse("slice", ""), Some(Err(_))));
        assert_eq!(
            parse("open-field", "theirs.npz"),
            Some(Ok(SdfStep::OpenField("theirs.npz".into())))
        );
        assert!(matches!(parse("open-field", ""), Some(Err(_))));
        assert_eq!(parse("check-pick", "3"), Some(Ok(SdfStep::CheckPick(3))));
        assert!(matches!(parse("check-pick", "worst"), Some(Err(_))));
        assert_eq!(parse("iso", "-0.01"), Some(Ok(SdfStep::Iso(Some(-0.01)))));
        assert_eq!(parse("iso", "off"), Some(Ok(SdfStep::Iso(None))));
        assert!(matches!(parse("iso", "inf"), Some(Err(_))));
        assert!(matches!(parse("iso", ""), Some(Err(_))));
        assert_eq!(parse("tritri", "tori"), None);
    }
}
