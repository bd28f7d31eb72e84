//! The window's chrome: the menu bar (File, View, Export, Help) with File →
//! Open's own picker where there is no native dialog, and the mode switch
//! under it.

use eframe::egui;

use super::file_picker::{FilePicker, Outcome, native_dialog_available};
use super::{Shell, keys};
use crate::scene::MeshSource;

/// Which panels beside the viewport the active mode fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Panels {
    /// The right panel (the picked element, verification, read-back images).
    pub inspector: bool,
    /// A slice image in the bottom panel.
    pub slice: bool,
    /// The profiler in the bottom panel (the mode's stage runs, frame times).
    pub profiler: bool,
}

/// The menu bar: File (open, samples, recent), View, Export, Help.
pub fn menu_bar_ui(shell: &mut Shell, panels: Panels, ui: &mut egui::Ui) {
    egui::Panel::top("menu").show(ui, |ui| {
        egui::MenuBar::new().ui(ui, |ui| {
            file_menu_ui(shell, ui);
            ui.menu_button("View", |ui| {
                ui.add_enabled_ui(panels.profiler, |ui| {
                    ui.checkbox(&mut shell.settings.show_profiler, "Profiler")
                });
                ui.add_enabled_ui(panels.slice, |ui| {
                    ui.checkbox(&mut shell.settings.show_slice, "Slice")
                });
                if ui.button("Frame all").clicked() {
                    shell.viewport.frame_all();
                }
            });
            super::export::export_menu_ui(shell, ui);
            help_menu_ui(ui);
            ui.separator();
            ui.label(format!("GPU: {}", shell.render_gpu.describe()));
        });
    });
    let ctx = ui.ctx().clone();
    if let Some(picker) = &mut shell.file_picker {
        match picker.ui(&ctx) {
            Outcome::Open(path) => {
                shell.file_picker = None;
                shell.open_path(path);
            }
            Outcome::Cancel => shell.file_picker = None,
            Outcome::Pending => {}
        }
    }
}

fn file_menu_ui(shell: &mut Shell, ui: &mut egui::Ui) {
    ui.menu_button("File", |ui| {
        if ui.button("Open OBJ…").clicked() {
            ui.close();
            open_dialog(shell);
        }
        if ui.button("Open field (.npy, .npz)…").clicked() {
            ui.close();
            open_field_dialog(shell);
        }
        ui.menu_button("Samples", |ui| {
            for (name, _) in crate::assets::SAMPLES {
                if ui.button(*name).clicked() {
                    ui.close();
                    shell.open(MeshSource::Sample(name.to_string()));
                }
            }
        });
        ui.menu_button("Recent", |ui| {
            if shell.settings.recent.is_empty() {
                ui.label("(none yet)");
            }
            for path in shell.settings.recent.clone() {
                if ui.button(path.display().to_string()).clicked() {
                    ui.close();
                    shell.open(MeshSource::File(path));
                }
            }
        });
    });
}

/// Asks for an OBJ file and opens it (File → Open, Ctrl+O).
pub fn open_dialog(shell: &mut Shell) {
    if !native_dialog_available(|name| std::env::var_os(name)) {
        let start = shell.settings.recent.first().and_then(|p| p.parent());
        let start = start.map_or_else(|| std::env::current_dir().unwrap_or_default(), Into::into);
        shell.file_picker = Some(FilePicker::new(start));
    } else if let Some(path) = rfd::FileDialog::new()
        .add_filter("Wavefront OBJ", &["obj", "OBJ"])
        .pick_file()
    {
        shell.open(MeshSource::File(path));
    }
}

/// Asks for a field file to check against the mesh (File → Open field);
/// without a native dialog, the picker takes its path typed in.
pub fn open_field_dialog(shell: &mut Shell) {
    if !native_dialog_available(|name| std::env::var_os(name)) {
        let start = std::env::current_dir().unwrap_or_default();
        shell.file_picker = Some(FilePicker::new(start));
    } else if let Some(path) = rfd::FileDialog::new()
        .add_filter("Signed distance field", &["npy", "npz"])
        .pick_file()
    {
        shell.open_path(path);
    }
}

/// Help: the keyboard shortcuts.
fn help_menu_ui(ui: &mut egui::Ui) {
    ui.menu_button("Help", |ui| {
        ui.strong("Keyboard shortcuts");
        egui::Grid::new("shortcuts")
            .num_columns(2)
            .striped(true)
            .show(ui, |ui| {
                for (keys, action) in keys::SHORTCUTS {
                    ui.monospace(keys);
                    ui.label(action);
                    ui.end_row();
                }
            });
    });
}

/// The mode switch: one tab per mode (`titles`), the active one selected.
/// Returns the tab clicked, if another than `active`.
pub fn mode_switch_ui(titles: &[&str], active: usize, ui: &mut egui::Ui) -> Option<usize> {
    let mut chosen = None;
    egui::Panel::top("modes").show(ui, |ui| {
        ui.horizontal(|ui| {
            ui.label("Mode:");
            for (i, title) in titles.iter().enumerate() {
                let text = egui::RichText::new(*title).strong();
                if ui.selectable_label(i == active, text).clicked() && i != active {
                    chosen = Some(i);
                }
            }
        });
    });
    chosen
}

/// A striped two-column grid of names and monospaced values; `rows` adds
/// each line through the `row(name, value)` it is given.
pub fn value_grid(ui: &mut egui::Ui, id: &str, rows: impl FnOnce(&mut dyn FnMut(&str, String))) {
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
