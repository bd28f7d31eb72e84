//! File → Open: the kinds of file the viewer opens, the native dialog's
//! filters, and a picker drawn in egui where there is no native dialog.
//!
//! The native dialog (`rfd`) asks the XDG desktop portal over D-Bus and
//! falls back to `zenity`; with neither it returns nothing, exactly as if
//! the user had cancelled. So before asking, [`native_dialog_available`]
//! looks for them: `zenity` on `PATH`, or a session bus with the portal's
//! D-Bus service file installed. Where both are missing, [`FilePicker`]
//! is used instead: a small window with a path field, the folders and the
//! files of one folder that the chosen [`FileKind`] takes (or any kind the
//! viewer opens; hidden entries left out), a choice of kind, and Up / Open
//! / Cancel. Typing a folder's path lists it; typing a file's path opens
//! it. Its folder and file icons are painted, not glyphs: the viewer's
//! fonts have no emoji.

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

/// A kind of file the viewer opens: what it is, and its extensions (lower
/// case, no dot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileKind {
    pub what: &'static str,
    pub extensions: &'static [&'static str],
}

impl FileKind {
    /// Meshes: every format the mesh loader reads.
    pub const MESH: FileKind = FileKind {
        what: "Mesh",
        extensions: &crate::mesh::MESH_EXTENSIONS,
    };

    /// Whether `path` has one of this kind's extensions (any case).
    pub fn matches(&self, path: &Path) -> bool {
        path.extension()
            .is_some_and(|e| self.extensions.iter().any(|x| e.eq_ignore_ascii_case(x)))
    }

    /// `what (.a, .b)`, as the picker and the File menu show it.
    pub fn label(&self) -> String {
        let dotted: Vec<String> = self.extensions.iter().map(|e| format!(".{e}")).collect();
        format!("{} ({})", self.what, dotted.join(", "))
    }
}

/// Which files a picker lists: those of one kind of `kinds`, or
/// (`chosen: None`) of any of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    pub kinds: Vec<FileKind>,
    pub chosen: Option<usize>,
}

impl Filter {
    /// The window's title: "Open", or "Open mesh", "Open field", ...
    pub fn title(&self) -> String {
        match self.chosen.and_then(|i| self.kinds.get(i)) {
            Some(kind) => format!("Open {}", kind.what.to_lowercase()),
            None => "Open".into(),
        }
    }

    /// Whether the picker lists `path` (a file).
    pub fn matches(&self, path: &Path) -> bool {
        match self.chosen.and_then(|i| self.kinds.get(i)) {
            Some(kind) => kind.matches(path),
            None => self.kinds.iter().any(|k| k.matches(path)),
        }
    }

    /// The extensions of every kind, for "All supported files".
    pub fn all_extensions(&self) -> Vec<&'static str> {
        self.kinds
            .iter()
            .flat_map(|k| k.extensions.iter().copied())
            .collect()
    }

    /// The native dialog with this filter's kinds, the chosen one first
    /// (the dialog starts with its first filter).
    pub fn native_dialog(&self) -> rfd::FileDialog {
        let all = self.all_extensions();
        let mut dialog = rfd::FileDialog::new();
        let chosen = self.chosen.and_then(|i| self.kinds.get(i));
        if let Some(kind) = chosen {
            dialog = dialog.add_filter(kind.label(), kind.extensions);
        }
        dialog = dialog.add_filter("All supported files", &all);
        for kind in self.kinds.iter().filter(|k| Some(*k) != chosen) {
            dialog = dialog.add_filter(kind.label(), kind.extensions);
        }
        dialog
    }
}

/// One listed entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Folder(PathBuf),
    File(PathBuf),
}

/// The folders, then the files of `dir` that `filter` takes, each by name;
/// hidden entries are left out.
pub fn list(dir: &Path, filter: &Filter) -> std::io::Result<Vec<Entry>> {
    let mut folders = Vec::new();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)?.flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            folders.push(path);
        } else if filter.matches(&path) {
            files.push(path);
        }
    }
    folders.sort();
    files.sort();
    Ok(folders
        .into_iter()
        .map(Entry::Folder)
        .chain(files.into_iter().map(Entry::File))
        .collect())
}

/// What one frame of the picker decided.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Open(PathBuf),
    Cancel,
    Pending,
}

/// The picker's state: the folder shown, the path field and the filter.
pub struct FilePicker {
    dir: PathBuf,
    filter: Filter,
    field: String,
    entries: Vec<Entry>,
    error: Option<String>,
}

impl FilePicker {
    /// Showing the files of `dir` that `filter` takes.
    pub fn new(dir: PathBuf, filter: Filter) -> FilePicker {
        let mut picker = FilePicker {
            dir: PathBuf::new(),
            filter,
            field: String::new(),
            entries: Vec::new(),
            error: None,
        };
        picker.show_dir(dir);
        picker
    }

    /// The window's title.
    pub fn title(&self) -> String {
        self.filter.title()
    }

    fn show_dir(&mut self, dir: PathBuf) {
        match list(&dir, &self.filter) {
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
        egui::Window::new(self.title())
            .id(egui::Id::unique("file picker"))
            .open(&mut open)
            .collapsible(false)
            .default_size([520.0, 380.0])
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
                if self.kind_ui(ui) {
                    self.show_dir(self.dir.clone());
                }
                if let Some(e) = &self.error {
                    ui.colored_label(egui::Color32::from_rgb(230, 80, 80), e);
                }
                let mut chosen = None;
                egui::ScrollArea::vertical()
                    .max_height(280.0)
                    .show(ui, |ui| {
                        if self.entries.is_empty() {
                            ui.label("(no folders or files of this kind here)");
                        }
                        for entry in &self.entries {
                            let (path, folder) = match entry {
                                Entry::Folder(p) => (p, true),
                                Entry::File(p) => (p, false),
                            };
                            let selected = self.field == path.display().to_string();
                            let row = entry_row(ui, selected, folder, &name(path));
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
                    Some((Entry::File(p), true)) => outcome = Outcome::Open(p),
                    Some((Entry::File(p), false)) => self.field = p.display().to_string(),
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

    /// The choice of kind ("All supported files" or one kind); true when
    /// it changed.
    fn kind_ui(&mut self, ui: &mut egui::Ui) -> bool {
        let before = self.filter.chosen;
        let label =
            |chosen: Option<usize>, kinds: &[FileKind]| match chosen.and_then(|i| kinds.get(i)) {
                Some(kind) => kind.label(),
                None => "All supported files".to_string(),
            };
        ui.horizontal(|ui| {
            ui.label("Files of type:");
            egui::ComboBox::from_id_salt("file picker kind")
                .width(300.0)
                .selected_text(label(self.filter.chosen, &self.filter.kinds))
                .show_ui(ui, |ui| {
                    for choice in
                        std::iter::once(None).chain((0..self.filter.kinds.len()).map(Some))
                    {
                        let text = label(choice, &self.filter.kinds);
                        ui.selectable_value(&mut self.filter.chosen, choice, text);
                    }
                });
        });
        self.filter.chosen != before
    }
}

/// One listed row: a painted folder or page icon, then the name.
fn entry_row(ui: &mut egui::Ui, selected: bool, folder: bool, name: &str) -> egui::Response {
    ui.horizontal(|ui| {
        let size = egui::vec2(16.0, 14.0);
        let (rect, _) = ui.allocate_exact_size(size, egui::Sense::hover());
        paint_icon(ui.painter(), rect, folder, ui.visuals().text_color());
        let text = if folder {
            format!("{name}/")
        } else {
            name.to_string()
        };
        ui.selectable_label(selected, text)
    })
    .inner
}

/// A folder (a box with a tab) or a page (a box with a folded corner).
fn paint_icon(painter: &egui::Painter, rect: egui::Rect, folder: bool, color: egui::Color32) {
    let stroke = egui::Stroke::new(1.2, color);
    let r = rect.shrink(1.5);
    if folder {
        let body = egui::Rect::from_min_max(egui::pos2(r.left(), r.top() + 3.0), r.max);
        painter.rect_filled(body, 1.0, color.gamma_multiply(0.35));
        painter.rect_stroke(body, 1.0, stroke, egui::StrokeKind::Inside);
        let tab = egui::Rect::from_min_size(r.min, egui::vec2(r.width() * 0.45, 3.5));
        painter.rect_filled(tab, 1.0, color.gamma_multiply(0.6));
    } else {
        let page =
            egui::Rect::from_center_size(r.center(), egui::vec2(r.height() * 0.8, r.height()));
        let fold = 3.5;
        let points = vec![
            page.left_top(),
            egui::pos2(page.right() - fold, page.top()),
            egui::pos2(page.right(), page.top() + fold),
            page.right_bottom(),
            page.left_bottom(),
            page.left_top(),
        ];
        painter.add(egui::Shape::line(points, stroke));
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

    const FIELD: FileKind = FileKind {
        what: "Field",
        extensions: &["npy", "npz"],
    };
    const SCENE: FileKind = FileKind {
        what: "Particle scene",
        extensions: &["json"],
    };

    fn filter(chosen: Option<usize>) -> Filter {
        Filter {
            kinds: vec![FileKind::MESH, FIELD, SCENE],
            chosen,
        }
    }

    fn temp_dir(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("collidoscope-picker-{}-{tag}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(dir.join("meshes")).unwrap();
        std::fs::create_dir_all(dir.join(".hidden")).unwrap();
        for file in [
            "b.obj",
            "A.OBJ",
            "scan.ply",
            "part.STL",
            "f.npy",
            "g.npz",
            "hail.json",
            "notes.txt",
            ".secret.obj",
        ] {
            std::fs::write(dir.join(file), "v 0 0 0\n").unwrap();
        }
        dir
    }

    fn names(entries: &[Entry]) -> Vec<String> {
        entries
            .iter()
            .map(|e| match e {
                Entry::Folder(p) => format!("{}/", name(p)),
                Entry::File(p) => name(p),
            })
            .collect()
    }

    #[test]
    fn each_kind_lists_its_own_files() {
        let dir = temp_dir("list");
        let listed = |chosen| names(&list(&dir, &filter(chosen)).unwrap());
        assert_eq!(
            listed(Some(0)),
            ["meshes/", "A.OBJ", "b.obj", "part.STL", "scan.ply"]
        );
        assert_eq!(listed(Some(1)), ["meshes/", "f.npy", "g.npz"]);
        assert_eq!(listed(Some(2)), ["meshes/", "hail.json"]);
        assert_eq!(
            listed(None),
            [
                "meshes/",
                "A.OBJ",
                "b.obj",
                "f.npy",
                "g.npz",
                "hail.json",
                "part.STL",
                "scan.ply"
            ]
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn titles_and_labels_name_the_kind() {
        assert_eq!(filter(Some(1)).title(), "Open field");
        assert_eq!(filter(Some(0)).title(), "Open mesh");
        assert_eq!(filter(None).title(), "Open");
        assert_eq!(FileKind::MESH.label(), "Mesh (.obj, .ply, .stl, .off)");
        assert_eq!(
            filter(None).all_extensions(),
            ["obj", "ply", "stl", "off", "npy", "npz", "json"]
        );
    }

    #[test]
    fn path_field_lists_folders_and_opens_files() {
        let dir = temp_dir("field");
        let mut picker = FilePicker::new(dir.clone(), filter(Some(1)));
        assert_eq!(names(&picker.entries), ["meshes/", "f.npy", "g.npz"]);
        picker.field = dir.join("meshes").display().to_string();
        assert_eq!(picker.submit(), Outcome::Pending);
        assert_eq!(picker.dir, dir.join("meshes"));
        assert!(picker.entries.is_empty());
        picker.field = dir.join("b.obj").display().to_string();
        assert_eq!(picker.submit(), Outcome::Open(dir.join("b.obj")));
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Drawn headless for a frame: nothing chosen yet, and every piece of
    /// text it shows has glyphs in the viewer's fonts (no emoji boxes).
    #[test]
    fn picker_draws_with_the_fonts_it_has() {
        let dir = temp_dir("draw");
        let mut picker = FilePicker::new(dir.clone(), filter(Some(0)));
        let ctx = egui::Context::default();
        let mut outcome = None;
        let mut frame = ctx.run_ui(egui::RawInput::default(), |ui| {
            outcome = Some(picker.ui(ui.ctx()));
        });
        frame.textures_delta.clear();
        assert_eq!(outcome, Some(Outcome::Pending));
        let font = egui::FontId::proportional(14.0);
        let mut texts = vec![picker.title(), "All supported files".into()];
        texts.extend(picker.filter.kinds.iter().map(FileKind::label));
        texts.extend(names(&picker.entries));
        ctx.fonts_mut(|fonts| {
            for text in &texts {
                assert!(fonts.has_glyphs(&font, text), "no glyphs for {text:?}");
            }
            assert!(
                !fonts.has_glyphs(&font, "\u{1F4C1}"),
                "the test must see a missing glyph"
            );
        });
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
