//! Export: window screenshot (the app's own, via egui), the 3D view at full
//! resolution, the 3D view as a figure (1×, 2× or 4× the view's size, with
//! its colour bar and an optional caption: [`export_view_figure`]), the
//! field as .npy + JSON, the timing history as CSV + PNG.
//! Every file goes through `crate::io`'s output sets: written to a temporary
//! name and renamed (the field and its sidecar together, the sidecar
//! recording the field's checksum), so a failed export leaves nothing broken
//! behind; a directory, device or symbolic link chosen as the target is
//! refused.

use std::path::{Path, PathBuf};

use eframe::egui;

use super::Shell;
use crate::plot::figure::{self, Figure};
use crate::stages::sdf::export::{FieldSource, write_field};

pub fn export_menu_ui(shell: &mut Shell, ui: &mut egui::Ui) {
    ui.menu_button("Export", |ui| {
        if ui.button("Window screenshot (PNG)…").clicked() {
            ui.close();
            if let Some(path) = save_dialog("collidoscope.png", "PNG image", "png") {
                let sink = shell.async_sink();
                let shown = path.display().to_string();
                request_window_screenshot(ui.ctx(), path, move |r| {
                    sink(r.map(|()| format!("wrote {shown}")))
                });
            }
        }
        if ui.button("3D view (PNG)…").clicked() {
            ui.close();
            if let Some(path) = save_dialog("view.png", "PNG image", "png") {
                let result =
                    shell
                        .viewport
                        .export_png(&shell.render_gpu, &shell.settings.view, &path);
                report(shell, result, &path);
            }
        }
        figure_menu_ui(
            shell,
            ui,
            "3D view with colour bar",
            "figure.png",
            export_view_figure,
        );
        if ui.button("Field (.npy + .json)…").clicked() {
            ui.close();
            if let Some(path) = save_dialog("field.npy", "NumPy array", "npy") {
                let result = export_field(shell, &path);
                report(shell, result, &path);
            }
        }
        if ui.button("Timings (CSV + PNG plot)…").clicked() {
            ui.close();
            if let Some(path) = save_dialog("timings.csv", "CSV", "csv") {
                let result = shell.history.export(&path);
                report(shell, result, &path);
            }
        }
    });
}

/// The figure export steps' argument `PATH[@1x|@2x|@4x][+caption]`: the
/// path, the scale (1 when not given) and whether to add the caption.
pub fn figure_target(arg: &str) -> Result<(PathBuf, u32, bool), String> {
    let (rest, caption) = match arg.strip_suffix("+caption") {
        Some(rest) => (rest, true),
        None => (arg, false),
    };
    let (path, factor) = match rest.rsplit_once('@') {
        Some((path, scale)) => match scale {
            "1x" => (path, 1),
            "2x" => (path, 2),
            "4x" => (path, 4),
            _ => return Err(format!("scale {scale:?} is not one of 1x, 2x, 4x")),
        },
        None => (rest, 1),
    };
    if path.is_empty() {
        return Err("a figure export needs PATH[@1x|@2x|@4x][+caption]".into());
    }
    Ok((path.into(), factor, caption))
}

/// The 3D view at `factor` × its size with the colour bar shown this frame
/// beside it and (when `caption`) the caption under it.
pub fn export_view_figure(
    shell: &Shell,
    path: &Path,
    factor: u32,
    caption: bool,
) -> Result<(), String> {
    let img = shell
        .viewport
        .render_scaled(&shell.render_gpu, &shell.settings.view, factor)?;
    let (key, text) = match &shell.shown_key {
        Some((key, text)) => (Some(key), text.as_str()),
        None => (None, "no colour key shown"),
    };
    let fig = figure::render(
        &Figure {
            image: &img,
            key,
            axes: None,
            caption: caption.then_some(text),
        },
        factor,
    )?;
    write_png(&fig, path)
}

/// An "Export PNG" menu: scale 1×, 2× or 4×, with or without the caption;
/// `export(path, factor, caption)` writes the file. The outcome is shown
/// in the banner.
pub fn figure_menu_ui(
    shell: &mut Shell,
    ui: &mut egui::Ui,
    label: &str,
    file_name: &str,
    export: impl Fn(&Shell, &Path, u32, bool) -> Result<(), String>,
) {
    ui.menu_button(label, |ui| {
        let id = ui.make_persistent_id("figure caption");
        let mut caption = ui.data_mut(|d| *d.get_persisted_mut_or(id, true));
        ui.checkbox(&mut caption, "caption (mesh, quantity, range)");
        ui.data_mut(|d| d.insert_persisted(id, caption));
        for factor in [1, 2, 4] {
            if ui.button(format!("{factor}× (PNG)…")).clicked() {
                ui.close();
                if let Some(path) = save_dialog(file_name, "PNG image", "png") {
                    let result = export(shell, &path, factor, caption);
                    report(shell, result, &path);
                }
            }
        }
    });
}

pub fn save_dialog(name: &str, what: &str, ext: &str) -> Option<PathBuf> {
    rfd::FileDialog::new()
        .set_file_name(name)
        .add_filter(what, &[ext])
        .save_file()
}

fn report(shell: &mut Shell, result: Result<(), String>, path: &Path) {
    match result {
        Ok(()) => shell.notify(format!("wrote {}", path.display()), false),
        Err(e) => shell.notify(format!("export failed: {e}"), true),
    }
}

/// Asks egui for a screenshot of the whole window and writes it as PNG at
/// `path`; `done` gets the outcome.
pub fn request_window_screenshot(
    ctx: &egui::Context,
    path: PathBuf,
    done: impl FnOnce(Result<(), String>) + Send + 'static,
) {
    let repaint = ctx.clone();
    ctx.request_screenshot(move |image| {
        let [w, h] = image.size;
        let bytes: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
        let result = match image::RgbaImage::from_raw(w as u32, h as u32, bytes) {
            Some(img) => write_png(&img, &path),
            None => Err("the screenshot has the wrong size".into()),
        };
        done(result);
        repaint.request_repaint();
    });
}

/// Encodes and writes a PNG atomically.
pub fn write_png(img: &image::RgbaImage, path: &Path) -> Result<(), String> {
    let mut png = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    crate::io::write_atomically(path, &png)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Writes the uniform field as .npy + JSON sidecar (the CLI's format).
pub fn export_field(shell: &Shell, path: &Path) -> Result<(), String> {
    let (Some(field), Some(scene)) = (&shell.mesh.field, &shell.mesh.scene) else {
        return Err("no field to export".into());
    };
    let adapter = field.backend.is_gpu().then(|| shell.render_gpu.describe());
    let source = FieldSource {
        mesh_file: &scene.source.label(),
        cache: "off",
        adapter,
    };
    write_field(path, field, &scene.prepared, &source)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
