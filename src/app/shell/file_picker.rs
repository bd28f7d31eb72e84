//! File → Open without a desktop dialog: a picker drawn in egui.
//!
//! The native dialog (`rfd`) asks the XDG desktop portal over D-Bus and
//! falls back to `zenity`; with neither it returns nothing, exactly as if
//! the user had cancelled. So before asking, [`native_dialog_available`]
//! looks for them: `zenity` on `PATH`, or a session bus with the portal's
//! D-Bus service file installed. Where both are missing, [`FilePicker`]
//! is used instead: a small window with a path field, the folders and the
//! `.obj` files of one folder (hidden entries left out), and Up / Open /
//! Cancel. Typing a folder's path lists it; typing a file's path opens it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use eframe::egui;

/// Whether `rfd` can show a native file dialog here. `var` reads the
/// environment (a parameter, so tests can pass their own).
pub fn native_dialog_available(var: impl Fn(&str) -> Option<OsString>) -> bool {
    if cfg!(any(target_os = "windows", target_os = "macos")) {
        return true;
    }
    let paths = |name: &str| -> Vec<PathBuf> {
        var(name)
            .map(|v| std::env::split_paths(&v).collect())
            .unwrap_or_default()
    };
    let zenity = paths("PATH").iter().any(|dir| dir.join("zenity").is_file());
    let mut data_dirs = paths("XDG_DATA_DIRS");
    if data_dirs.is_empty() {
        data_dirs = vec!["/usr/local/share".into(), "/usr/share".into()];
    }
    let portal = var("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty())
        && data_dirs.iter().any(|dir| {
            dir.join("dbus-1/services/org.freedesktop.portal.Desktop.service")
                .is_file()
        });
    zenity || portal
}

/// One listed entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Folder(PathBuf),
    Obj(PathBuf),
}

/// The folders, then the `.obj` files (any case) of `dir`, each by name;
/// hidden entries are left out.
pub fn list(dir: &Path) -> std::io::Result<Vec<Entry>> {
    let mut folders = Vec::new();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)?.flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            folders.push(path);
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("obj"))
        {
            files.push(path);
        }
    }
    folders.sort();
    files.sort();
    Ok(folders
        .into_iter()
        .map(Entry::Folder)
        .chain(files.into_iter().map(Entry::Obj))
        .collect())
}

/// What one frame of the picker decided.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Open(PathBuf),
    Cancel,
    Pending,
}

/// The picker's state: the folder shown and the path field.
pub struct FilePicker {
    dir: PathBuf,
    field: String,
    entries: Vec<Entry>,
    error: Option<String>,
}

impl FilePicker {
    /// Showing `dir`.
    pub fn new(dir: PathBuf) -> FilePicker {
        let mut picker = FilePicker {
            dir: PathBuf::new(),
            field: String::new(),
            entries: Vec::new(),
            error: None,
        };
        picker.show_dir(dir);
        picker
    }

    fn show_dir(&mut self, dir: PathBuf) {
        match list(&dir) {
            Ok(entries) => {
                self.entries = entries;
                self.field = dir.display().to_string();
                self.dir = dir;
                self.error = None;
            }
            Err(e) => self.error = Some(format!("cannot list {}: {e}", dir.display())),
        }
    }

    /// Acts on the path field: a folder is listed, anything else opened
    /// (the loader reports what is wrong with it).
    pub fn submit(&mut self) -> Outcome {
        let path = PathBuf::from(self.field.trim());
        if path.is_dir() {
            self.show_dir(path);
            Outcome::Pending
        } else {
            Outcome::Open(path)
        }
    }

    /// The window, for one frame.
    pub fn ui(&mut self, ctx: &egui::Context) -> Outcome {
        let mut outcome = Outcome::Pending;
        let mut open = true;
        egui::Window::new("Open OBJ")
            .open(&mut open)
            .collapsible(false)
            .default_size([480.0, 360.0])
            .show(ctx, |ui| {
                ui.horizontal(|ui| {
                    if ui.button("Up").clicked()
                        && let Some(parent) = self.dir.parent()
                    {
                        self.show_dir(parent.to_path_buf());
                    }
                    let field = ui.add(
                        egui::TextEdit::singleline(&mut self.field).desired_width(f32::INFINITY),
                    );
                    if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                        outcome = self.submit();
                    }
                });
                if let Some(e) = &self.error {
                    ui.colored_label(egui::Color32::from_rgb(230, 80, 80), e);
                }
                let mut chosen = None;
                egui::ScrollArea::vertical()
                    .max_height(280.0)
                    .show(ui, |ui| {
                        if self.entries.is_empty() {
                            ui.label("(no folders or .obj files here)");
                        }
                        for entry in &self.entries {
                            let (path, label) = match entry {
                                Entry::Folder(p) => (p, format!("📁 {}/", name(p))),
                                Entry::Obj(p) => (p, name(p)),
                            };
                            let row = ui
                                .selectable_label(self.field == path.display().to_string(), label);
                            if row.clicked() {
                                chosen = Some((entry.clone(), row.double_clicked()));
                            }
                            if row.double_clicked() {
                                chosen = Some((entry.clone(), true));
                            }
                        }
                    });
                match chosen {
                    Some((Entry::Folder(p), _)) => self.show_dir(p),
                    Some((Entry::Obj(p), true)) => outcome = Outcome::Open(p),
                    Some((Entry::Obj(p), false)) => self.field = p.display().to_string(),
                    None => {}
                }
                ui.horizontal(|ui| {
                    if ui.button("Open").clicked() {
                        outcome = self.submit();
                    }
                    if ui.button("Cancel").clicked() {
                        outcome = Outcome::Cancel;
                    }
                });
            });
        if !open {
            outcome = Outcome::Cancel;
        }
        outcome
    }
}

fn name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("collidoscope-picker-{}-{tag}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(dir.join("meshes")).unwrap();
        std::fs::create_dir_all(dir.join(".hidden")).unwrap();
        for file in ["b.obj", "A.OBJ", "notes.txt", ".secret.obj"] {
            std::fs::write(dir.join(file), "v 0 0 0\n").unwrap();
        }
        dir
    }

    #[test]
    fn lists_folders_then_obj_files() {
        let dir = temp_dir("list");
        assert_eq!(
            list(&dir).unwrap(),
            vec![
                Entry::Folder(dir.join("meshes")),
                Entry::Obj(dir.join("A.OBJ")),
                Entry::Obj(dir.join("b.obj")),
            ]
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn path_field_lists_folders_and_opens_files() {
        let dir = temp_dir("field");
        let mut picker = FilePicker::new(dir.clone());
        picker.field = dir.join("meshes").display().to_string();
        assert_eq!(picker.submit(), Outcome::Pending);
        assert_eq!(picker.dir, dir.join("meshes"));
        assert!(picker.entries.is_empty());
        picker.field = dir.join("b.obj").display().to_string();
        assert_eq!(picker.submit(), Outcome::Open(dir.join("b.obj")));
        // Drawn headless for a frame: nothing chosen yet.
        let ctx = egui::Context::default();
        let mut outcome = None;
        let mut frame = ctx.run_ui(egui::RawInput::default(), |ui| {
            outcome = Some(picker.ui(ui.ctx()));
        });
        frame.textures_delta.clear();
        assert_eq!(outcome, Some(Outcome::Pending));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn no_portal_and_no_zenity_means_no_native_dialog() {
        let empty = std::env::temp_dir();
        let env = |name: &str| match name {
            "PATH" | "XDG_DATA_DIRS" => Some(empty.clone().into_os_string()),
            _ => None,
        };
        assert!(!native_dialog_available(env));
        let dir = temp_dir("zenity");
        std::fs::write(dir.join("zenity"), "").unwrap();
        let with_zenity = |name: &str| (name == "PATH").then(|| dir.clone().into_os_string());
        assert!(native_dialog_available(with_zenity));
        std::fs::remove_dir_all(&dir).ok();
    }
}
