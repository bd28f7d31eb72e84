//! The window's chrome: the menu bar (File, View, Export, Help) with File →
//! Open's own picker where there is no native dialog, and the mode switch
//! under it.

use eframe::egui;

use super::file_picker::{FilePicker, Filter, Outcome, native_dialog_available};
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
            help_menu_ui(shell, ui);
            ui.separator();
            ui.label(format!("GPU: {}", shell.render_gpu.describe()));
        });
    });
    let ctx = ui.ctx().clone();
    about_ui(shell, &ctx);
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
        if ui.button("Open…").on_hover_text("Ctrl+O").clicked() {
            ui.close();
            open_dialog(shell, None);
        }
        for (i, kind) in shell.file_kinds.clone().iter().enumerate() {
            if ui.button(format!("Open {}…", kind.label())).clicked() {
                ui.close();
                open_dialog(shell, Some(i));
            }
        }
        ui.separator();
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

/// Asks for a file and opens it (File → Open, Ctrl+O): one of
/// [`Shell::file_kinds`] (`kind`), or any of them (`None`). Where there is
/// no native dialog, the viewer's own picker is shown instead.
pub fn open_dialog(shell: &mut Shell, kind: Option<usize>) {
    let filter = Filter {
        kinds: shell.file_kinds.clone(),
        chosen: kind,
    };
    if !native_dialog_available(|name| std::env::var_os(name)) {
        open_picker(shell, filter, None);
    } else if let Some(path) = filter.native_dialog().pick_file() {
        shell.open_path(path);
    }
}

/// Asks for a signed distance field (`.npy`, `.npz`) and opens it.
pub fn open_field_dialog(shell: &mut Shell) {
    let kind = shell
        .file_kinds
        .iter()
        .position(|k| k.extensions.contains(&"npy"));
    open_dialog(shell, kind);
}

/// Shows the viewer's own picker with `filter`, listing `dir` (else the
/// folder of the last file opened, else the working folder).
pub fn open_picker(shell: &mut Shell, filter: Filter, dir: Option<std::path::PathBuf>) {
    let recent = shell.settings.recent.first().and_then(|p| p.parent());
    let start = dir
        .or_else(|| recent.map(Into::into))
        .unwrap_or_else(|| std::env::current_dir().unwrap_or_default());
    shell.file_picker = Some(FilePicker::new(start, filter));
}

/// Help: the version, About, where the documentation is, and the
/// keyboard shortcuts.
fn help_menu_ui(shell: &mut Shell, ui: &mut egui::Ui) {
    ui.menu_button("Help", |ui| {
        ui.label(format!("collidoscope {}", env!("CARGO_PKG_VERSION")));
        if ui.button("About collidoscope…").clicked() {
            ui.close();
            shell.show_about = true;
        }
        docs_ui(ui);
        ui.separator();
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

/// The documentation: the book in `docs/` of the source tree this binary
/// was built from (a link to its built HTML, or to its Markdown pages
/// where it is not built; the path alone where the tree is gone) and the
/// built-in help.
fn docs_ui(ui: &mut egui::Ui) {
    let book = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let html = book.join("book").join("index.html");
    let pages = book.join("src").join("SUMMARY.md");
    ui.label(format!("Documentation: the book in {}", book.display()));
    if html.is_file() {
        ui.hyperlink_to("Open the book", format!("file://{}", html.display()));
    } else if pages.is_file() {
        ui.hyperlink_to(
            "Open the book's pages (scripts/book builds it as HTML)",
            format!("file://{}", pages.display()),
        );
    }
    for (command, what) in [
        ("collidoscope --help", "the commands"),
        ("collidoscope --script help", "the script steps"),
    ] {
        ui.horizontal(|ui| {
            ui.monospace(command);
            ui.label(what);
        });
    }
}

/// Help → About: what collidoscope is, its version, licence and GPU.
fn about_ui(shell: &mut Shell, ctx: &egui::Context) {
    let mut open = shell.show_about;
    egui::Window::new("About collidoscope")
        .open(&mut open)
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            ui.heading(format!("collidoscope {}", env!("CARGO_PKG_VERSION")));
            ui.label(env!("CARGO_PKG_DESCRIPTION"));
            ui.label(format!("Licence: {}", env!("CARGO_PKG_LICENSE")));
            ui.label(format!("GPU: {}", shell.render_gpu.describe()));
            ui.separator();
            docs_ui(ui);
        });
    shell.show_about = open;
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
