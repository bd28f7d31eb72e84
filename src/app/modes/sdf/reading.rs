//! How the Verify view reads another tool's field (the "Reading the field"
//! section and the `field-layout:` and `field-overrides:` steps): the
//! layout of a bare `.npy` grid, which has no collidoscope sidecar to say
//! it, and two overrides — a field whose sidecar records another mesh's
//! hash (a slightly different mesh) or whose data no longer matches the
//! sidecar's checksum (an edited `.npy`) is read all the same, flagged in
//! the view and the notices instead of refused.
//!
//! A bare grid opened without a layout is not refused either: its shape
//! is read from the `.npy` header and its layout guessed from it and the
//! mesh's bounds ([`guess`]). A guess that fits is loaded at once, flagged
//! as guessed in the view; one that does not is prefilled in the form, to
//! correct and load again.
//!
//! The guess: the array's axes in each order (`zyx`: `field[k][j][i]`,
//! `xyz`: `field[i][j][k]`) give the cell counts along x, y, z; a grid
//! spanning the mesh's box has about the same spacing `extent / n` on
//! every axis in the right order. The order whose three spacings are the
//! most alike wins (`zyx`, collidoscope's own, on a tie); the spacing is
//! the largest of the three, so the grid covers the mesh on every axis,
//! and the grid is centred on the mesh's box. It is offered as "fits" when
//! the spacings differ by less than half, else as a starting point only.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use eframe::egui;
use glam::Vec3;

use crate::geom::Aabb;
use crate::stages::check::{AxisOrder, ReadOptions};

/// The layout given for a bare grid: value `[0, 0, 0]` at `origin`, the
/// others `cell_size` apart, the array's axes in `order`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridLayout {
    pub origin: Vec3,
    pub cell_size: f32,
    pub order: AxisOrder,
}

/// A layout guessed from an array's shape and a mesh's box, and whether
/// the shape's proportions fit the box's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Guess {
    pub layout: GridLayout,
    pub fits: bool,
}

/// The cell counts along x, y, z of an array of `shape` in `order`.
fn counts(shape: [usize; 3], order: AxisOrder) -> Vec3 {
    let [a, b, c] = shape.map(|n| n.max(1) as f32);
    match order {
        AxisOrder::Zyx => Vec3::new(c, b, a),
        AxisOrder::Xyz => Vec3::new(a, b, c),
    }
}

/// The layout of a grid of `shape` over `bounds` (module docs).
pub fn guess(shape: [usize; 3], bounds: Aabb) -> Guess {
    let extent = bounds.size().max(Vec3::splat(f32::MIN_POSITIVE));
    let spread = |order| {
        let h = extent / counts(shape, order);
        (h.max_element() / h.min_element(), h.max_element())
    };
    let (zyx, xyz) = (spread(AxisOrder::Zyx), spread(AxisOrder::Xyz));
    let (order, (ratio, cell_size)) = if xyz.0 < zyx.0 {
        (AxisOrder::Xyz, xyz)
    } else {
        (AxisOrder::Zyx, zyx)
    };
    let n = counts(shape, order);
    let origin = bounds.center() - 0.5 * (n - Vec3::ONE) * cell_size;
    Guess {
        layout: GridLayout {
            origin,
            cell_size,
            order,
        },
        fits: ratio < 1.5,
    }
}

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
    /// `layout` is a guess (`Some`), and whether it fitted the mesh; a
    /// guessed layout is guessed again for the next bare grid.
    pub guess_fits: Option<bool>,
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

    /// Takes the layout guessed for the grid at `path` over `bounds`.
    pub fn fit(&mut self, path: &Path, bounds: Aabb) -> Result<(), String> {
        let shape = npy_shape(path)?;
        let [a, b, c] = shape[..] else {
            return Err(format!(
                "{}: a grid is a 3-D array, this one has shape {shape:?}",
                path.display()
            ));
        };
        let g = guess([a, b, c], bounds);
        self.layout = Some(g.layout);
        self.guess_fits = Some(g.fits);
        Ok(())
    }

    /// The section's form; true when "Load again" was clicked.
    pub fn ui(&mut self, ui: &mut egui::Ui, bounds: Option<Aabb>) -> bool {
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
                    self.guess_fits = None;
                }
                if self.layout.is_some() {
                    if let (Some(path), Some(b)) = (self.retry.clone(), bounds)
                        && ui
                            .button("fit to the mesh")
                            .on_hover_text("from the mesh's bounds and the array's shape")
                            .clicked()
                        && let Err(e) = self.fit(&path, b)
                    {
                        ui.colored_label(egui::Color32::LIGHT_RED, e);
                    }
                    match self.guess_fits {
                        Some(true) => {
                            ui.label("prefilled from the mesh's bounds and the array's shape");
                        }
                        Some(false) => {
                            ui.colored_label(
                                egui::Color32::YELLOW,
                                "the array's proportions do not match the mesh's: check the layout",
                            );
                        }
                        None => {}
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
                    let name = path
                        .file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                    again = ui.button(format!("Load {name} again")).clicked();
                }
            });
        again
    }
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
    fn guess_finds_the_order_and_covers_the_mesh() {
        let bounds = Aabb {
            min: Vec3::new(-1.0, 0.0, 0.0),
            max: Vec3::new(3.0, 2.0, 1.0),
        };
        // 40 × 20 × 10 cells over a 4 × 2 × 1 box: h = 0.1 on every axis.
        let zyx = guess([10, 20, 40], bounds);
        assert!(zyx.fits);
        assert_eq!(zyx.layout.order, AxisOrder::Zyx);
        assert!((zyx.layout.cell_size - 0.1).abs() < 1e-6);
        let centre = zyx.layout.origin + 0.5 * Vec3::new(39.0, 19.0, 9.0) * 0.1;
        assert!((centre - bounds.center()).length() < 1e-5, "{centre}");
        let xyz = guess([40, 20, 10], bounds);
        assert_eq!((xyz.layout.order, xyz.fits), (AxisOrder::Xyz, true));
        // A cube array over a long box: a start, not a fit.
        let cube = guess([16, 16, 16], bounds);
        assert!(!cube.fits);
        assert!((cube.layout.cell_size - 0.25).abs() < 1e-6);
    }

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
