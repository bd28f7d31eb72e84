//! The viewer's panels, one file each: scene (files, samples, mesh report),
//! pipeline (stage parameters), collide, triangle–triangle, interference,
//! adaptive field, inspector, verify, slice, profiler, export.

mod adaptive;
mod collide;
mod export;
mod inspector;
mod interference;
mod pipeline;
mod profiler;
mod scene;
mod slice;
mod tri_tri;
mod verify;

pub use collide::CollideState;
pub use export::{export_field, request_window_screenshot, write_png};
pub use interference::InterferenceState;
pub use profiler::ProfilerHistory;
pub use tri_tri::{TriScene, TriTriState};
pub use verify::{CompareKind, Comparison, compare};

use eframe::egui;

use super::viewer::Viewer;
use crate::stages::sdf_grid::SdfField;
use crate::view::{Axis, ViewSettings};

/// The menu bar: File (open, samples, recent), View, Export.
pub fn menu_bar_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    egui::Panel::top("menu").show(ui, |ui| {
        egui::MenuBar::new().ui(ui, |ui| {
            scene::file_menu_ui(viewer, ui);
            ui.menu_button("View", |ui| {
                ui.checkbox(&mut viewer.settings.show_profiler, "Profiler");
                ui.checkbox(&mut viewer.settings.show_slice, "Slice");
                if ui.button("Frame all").clicked() {
                    viewer.viewport.frame_all();
                }
            });
            export::export_menu_ui(viewer, ui);
            ui.separator();
            ui.label(format!("GPU: {}", viewer.render_gpu.describe()));
        });
    });
}

/// Errors and notices, newest first; each can be dismissed.
pub fn banner_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    let recent: Vec<usize> = (0..viewer.messages.len())
        .rev()
        .filter(|&i| viewer.messages[i].is_error || viewer.messages[i].at.elapsed().as_secs() < 30)
        .take(3)
        .collect();
    if recent.is_empty() {
        return;
    }
    let mut dismiss = None;
    egui::Panel::top("banner").show(ui, |ui| {
        for i in recent {
            let m = &viewer.messages[i];
            ui.horizontal(|ui| {
                let (icon, color) = if m.is_error {
                    ("error:", egui::Color32::from_rgb(230, 80, 80))
                } else {
                    ("note:", egui::Color32::from_rgb(210, 180, 60))
                };
                ui.colored_label(color, format!("{icon} {}", m.text));
                if ui.small_button("dismiss").clicked() {
                    dismiss = Some(i);
                }
            });
        }
    });
    if let Some(i) = dismiss {
        viewer.messages.remove(i);
    }
}

/// Left: scene and pipeline; right: inspector and verify.
pub fn side_panel_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    egui::Panel::left("left")
        .default_size(320.0)
        .show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                // While the collide view owns the viewport its panel comes
                // first, so its contact table is in sight.
                if viewer.collide.is_active() {
                    collide::collide_ui(viewer, ui);
                    ui.separator();
                }
                scene::scene_ui(viewer, ui);
                ui.separator();
                pipeline::pipeline_ui(viewer, ui);
                if !viewer.collide.is_active() {
                    ui.separator();
                    collide::collide_ui(viewer, ui);
                }
                ui.separator();
                tri_tri::tri_tri_ui(viewer, ui);
                ui.separator();
                interference::interference_ui(viewer, ui);
                ui.separator();
                adaptive::adaptive_ui(viewer, ui);
            });
        });
    egui::Panel::right("right")
        .default_size(320.0)
        .show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                if viewer.interference.is_active() {
                    interference::images_ui(viewer, ui);
                    ui.separator();
                }
                inspector::inspector_ui(viewer, ui);
                ui.separator();
                verify::verify_ui(viewer, ui);
            });
        });
}

/// Bottom: slice and profiler side by side.
pub fn bottom_panel_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    egui::Panel::bottom("bottom")
        .default_size(300.0)
        .resizable(true)
        .show(ui, |ui| {
            ui.columns(2, |cols| {
                if viewer.settings.show_slice {
                    slice::slice_ui(viewer, &mut cols[0]);
                }
                if viewer.settings.show_profiler {
                    profiler::profiler_ui(viewer, &mut cols[1]);
                }
            });
        });
}

/// A striped two-column grid of names and monospaced values; `rows` adds
/// each line through the `row(name, value)` it is given.
fn value_grid(ui: &mut egui::Ui, id: &str, rows: impl FnOnce(&mut dyn FnMut(&str, String))) {
    egui::Grid::new(id)
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            rows(&mut |k: &str, v: String| {
                ui.label(k);
                ui.monospace(v);
                ui.end_row();
            });
        });
}

/// A stage's collapsible section in the left panel. `open` (taken from the
/// stage's state: a script step asked for it) opens it once and scrolls it
/// into view.
fn stage_section(
    ui: &mut egui::Ui,
    open: bool,
    title: &str,
    id: &str,
    contents: impl FnOnce(&mut egui::Ui),
) {
    let open = open.then_some(true);
    let response = egui::CollapsingHeader::new(title)
        .id_salt(id)
        .open(open)
        .show(ui, contents);
    if open.is_some() {
        response
            .header_response
            .scroll_to_me(Some(egui::Align::TOP));
    }
}

/// Sets the cell filter from a name (`all`, `inside`, `outside`, `band`).
pub fn apply_filter_name(
    view: &mut ViewSettings,
    name: &str,
    field: Option<&SdfField>,
) -> Result<(), String> {
    let f = &mut view.filter;
    f.inside_only = false;
    f.outside_only = false;
    f.band = None;
    match name {
        "all" => {}
        "inside" => f.inside_only = true,
        "outside" => f.outside_only = true,
        "band" => f.band = Some(field.map_or(0.05, |fl| 2.0 * fl.grid.cell_size)),
        _ => return Err(format!("unknown filter {name}")),
    }
    Ok(())
}

pub fn axis_from_name(name: &str) -> Option<Axis> {
    match name {
        "x" | "X" => Some(Axis::X),
        "y" | "Y" => Some(Axis::Y),
        "z" | "Z" => Some(Axis::Z),
        _ => None,
    }
}
