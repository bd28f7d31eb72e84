//! How the Verify view reads another tool's field (the "Reading the field"
//! section and the `field-layout:` and `field-overrides:` steps): the
//! layout of a bare `.npy` grid, which has no collidoscope sidecar to say
//! it, and two overrides — a field whose sidecar records another mesh's
//! hash (a slightly different mesh) or whose data no longer matches the
//! sidecar's checksum (an edited `.npy`) is read all the same, flagged in
//! the view and the notices instead of refused.
//!
//! A bare grid opened without a layout is not refused either: its shape
//! is read from the `.npy` header and its layout prefilled
//! ([`super::prefill`]). A prefilled layout that fits is loaded at once
//! (flagged as guessed in the view and the report unless it is `sdf`'s
//! grid); one that does not is shown in the form, to correct and load
//! again.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use eframe::egui;
use glam::Vec3;

use super::prefill::{GridLayout, Prefill, prefill};
use crate::io::{InputKind, decode_npy_float, read_input};
use crate::mesh::PreparedMesh;
use crate::stages::check::{AxisOrder, ReadOptions};

/// The shape of the `.npy` array at `path`, from its header only.
pub fn npy_shape(path: &Path) -> Result<Vec<usize>, String> {
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(65_546).read_to_end(&mut head))
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&head);
    let not_npy = || format!("{} is not a .npy array", path.display());
    if !head.starts_with(b"\x93NUMPY") {
        return Err(not_npy());
    }
    let after = text.split_once("'shape':").ok_or_else(not_npy)?.1;
    let inside = after
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .ok_or_else(not_npy)?
        .0;
    inside
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| not_npy()))
        .collect()
}

/// What the next field is read with.
#[derive(Clone, Debug, Default)]
pub struct Reading {
    /// The bare grid's layout (`None`: the sidecar's).
    pub layout: Option<GridLayout>,
    pub ignore_mesh_hash: bool,
    pub ignore_checksum: bool,
    /// A bare grid opened without a layout, to load again with one.
    pub retry: Option<PathBuf>,
    /// Open the section at the next frame (the form needs attention).
    pub reveal: bool,
    /// Where `layout` came from when it was prefilled (`None`: given);
    /// a prefilled layout is prefilled again for the next bare grid.
    pub prefilled: Option<Prefill>,
}

impl Reading {
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            origin: self.layout.map(|l| l.origin),
            cell_size: self.layout.map(|l| l.cell_size),
            axis_order: self.layout.map(|l| l.order),
            ignore_checksum: self.ignore_checksum,
        }
    }

    /// Takes the layout prefilled for the grid at `path` and `mesh`.
    pub fn fit(&mut self, path: &Path, mesh: Option<&PreparedMesh>) -> Result<(), String> {
        let shape = npy_shape(path)?;
        let [a, b, c] = shape[..] else {
            return Err(format!(
                "{}: a grid is a 3-D array, this one has shape {shape:?}",
                path.display()
            ));
        };
        let values = || {
            let bytes = read_input(path, InputKind::Array).ok()?;
            decode_npy_float(&bytes).ok().map(|a| a.data)
        };
        let (layout, prefill) = prefill([a, b, c], mesh, values);
        self.layout = Some(layout);
        self.prefilled = Some(prefill);
        Ok(())
    }

    /// The section's form; true when "Load again" was clicked.
    pub fn ui(&mut self, ui: &mut egui::Ui, mesh: Option<&PreparedMesh>) -> bool {
        let mut again = false;
        egui::CollapsingHeader::new("Reading the field")
            .open(std::mem::take(&mut self.reveal).then_some(true))
            .show(ui, |ui| {
                let mut given = self.layout.is_some();
                ui.checkbox(&mut given, "give a bare .npy grid's layout (no sidecar)");
                match (given, self.layout.is_some()) {
                    (true, false) => {
                        self.layout = Some(GridLayout {
                            origin: Vec3::ZERO,
                            cell_size: 1.0,
                            order: AxisOrder::Zyx,
                        })
                    }
                    (false, true) => self.layout = None,
                    _ => {}
                }
                if let Some(l) = &mut self.layout
                    && layout_ui(ui, l)
                {
                    self.prefilled = None;
                }
                if self.layout.is_some() {
                    let fit = if mesh.is_some() {
                        (
                            "fit to the mesh",
                            "sdf's grid for the mesh, or its bounds and the array's shape",
                        )
                    } else {
                        (
                            "from the shape",
                            "no mesh: index coordinates (cell size 1 at the origin)",
                        )
                    };
                    if let Some(path) = self.retry.clone()
                        && ui.button(fit.0).on_hover_text(fit.1).clicked()
                        && let Err(e) = self.fit(&path, mesh)
                    {
                        ui.colored_label(egui::Color32::LIGHT_RED, e);
                    }
                    if let Some(p) = self.prefilled {
                        let colour = if p.guessed() {
                            egui::Color32::YELLOW
                        } else {
                            ui.visuals().text_color()
                        };
                        ui.colored_label(colour, format!("prefilled: {}", p.describe()));
                    }
                }
                ui.checkbox(
                    &mut self.ignore_mesh_hash,
                    "ignore the mesh hash (a field of a slightly different mesh)",
                );
                ui.checkbox(
                    &mut self.ignore_checksum,
                    "ignore the checksum (an edited .npy)",
                );
                if let Some(path) = &self.retry {
                    let name = file_name(path);
                    again = ui.button(format!("Load {name} again")).clicked();
                }
            });
        again
    }
}

/// A field file's name, as the view shows it.
pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// The first words of an override note, before its details in brackets.
pub fn headline(note: &str) -> &str {
    note.split(" (").next().unwrap_or(note)
}

/// The layout's fields; true when one was changed.
fn layout_ui(ui: &mut egui::Ui, l: &mut GridLayout) -> bool {
    let before = *l;
    egui::Grid::new("field layout")
        .num_columns(2)
        .show(ui, |ui| {
            ui.label("origin (value [0,0,0])");
            ui.horizontal(|ui| {
                for c in [&mut l.origin.x, &mut l.origin.y, &mut l.origin.z] {
                    ui.add(egui::DragValue::new(c).speed(0.01).max_decimals(5));
                }
            });
            ui.end_row();
            ui.label("cell size");
            ui.add(
                egui::DragValue::new(&mut l.cell_size)
                    .speed(0.001)
                    .range(1e-6..=1e6)
                    .max_decimals(6),
            );
            ui.end_row();
            ui.label("axis order");
            ui.horizontal(|ui| {
                ui.radio_value(&mut l.order, AxisOrder::Zyx, "zyx: field[k][j][i]");
                ui.radio_value(&mut l.order, AxisOrder::Xyz, "xyz: field[i][j][k]");
            });
            ui.end_row();
        });
    *l != before
}

/// `field-layout:X,Y,Z,H,zyx|xyz`, or `field-layout:off` (`None`: the
/// sidecar's, or a guess for a bare grid).
pub fn parse_layout(verb: &str, arg: &str) -> Result<Option<GridLayout>, String> {
    if arg == "off" {
        return Ok(None);
    }
    let parts: Vec<&str> = arg.split(',').map(str::trim).collect();
    let bad = || format!("{verb} takes X,Y,Z,H,zyx|xyz or off, not {arg:?}");
    let [x, y, z, h, order] = parts[..] else {
        return Err(bad());
    };
    let number = |s: &str| s.parse::<f32>().ok().filter(|v| v.is_finite());
    let (Some(x), Some(y), Some(z), Some(h)) = (number(x), number(y), number(z), number(h)) else {
        return Err(bad());
    };
    let order = match order {
        "zyx" => AxisOrder::Zyx,
        "xyz" => AxisOrder::Xyz,
        _ => return Err(bad()),
    };
    if h <= 0.0 {
        return Err(format!("{verb}: the cell size {h} must be positive"));
    }
    Ok(Some(GridLayout {
        origin: Vec3::new(x, y, z),
        cell_size: h,
        order,
    }))
}

/// `field-overrides:mesh-hash,checksum` (either or both) or `none`: the
/// pair (ignore the mesh hash, ignore the checksum).
pub fn parse_overrides(verb: &str, arg: &str) -> Result<(bool, bool), String> {
    if arg == "none" {
        return Ok((false, false));
    }
    let mut pair = (false, false);
    for word in arg.split(',').map(str::trim) {
        match word {
            "mesh-hash" => pair.0 = true,
            "checksum" => pair.1 = true,
            _ => {
                return Err(format!(
                    "{verb} takes mesh-hash, checksum (or both) or none, not {arg:?}"
                ));
            }
        }
    }
    Ok(pair)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_shape_reads_the_header() {
        let dir = std::env::temp_dir().join(format!("collidoscope-reading-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.npy");
        let bytes = crate::io::encode_npy_f32(&[3, 4, 5], &[0.0; 60]);
        std::fs::write(&path, bytes).unwrap();
        assert_eq!(npy_shape(&path).unwrap(), [3, 4, 5]);
        std::fs::write(&path, b"not an array").unwrap();
        assert!(npy_shape(&path).unwrap_err().contains("not a .npy"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn parses_the_reading_steps() {
        assert_eq!(parse_layout("field-layout", "off"), Ok(None));
        assert_eq!(
            parse_layout("field-layout", "0,-1,2.5,0.1,xyz"),
            Ok(Some(GridLayout {
                origin: Vec3::new(0.0, -1.0, 2.5),
                cell_size: 0.1,
                order: AxisOrder::Xyz
            }))
        );
        assert!(parse_layout("field-layout", "0,0,0,0,zyx").is_err());
        assert!(parse_layout("field-layout", "0,0,0,1,kji").is_err());
        assert_eq!(
            parse_overrides("field-overrides", "mesh-hash"),
            Ok((true, false))
        );
        assert_eq!(
            parse_overrides("field-overrides", "checksum, mesh-hash"),
            Ok((true, true))
        );
        assert!(parse_overrides("field-overrides", "all").is_err());
    }
}
