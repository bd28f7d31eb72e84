//! Reading a field to check: a `.npy` grid with collidoscope's sidecar, a
//! bare `.npy` grid with its layout given, or an `.npz` point set.
//!
//! Grids are stored internally in collidoscope's order (cell `(i, j, k)` at
//! index `i + nx*(j + ny*k)`, the value at `origin + (i, j, k) * h`); an
//! `xyz` array (`field[i][j][k]`, numpy's `meshgrid(..., indexing="ij")`) is
//! reordered on reading.

use std::path::Path;

use glam::{DVec3, UVec3, Vec3};

use super::{CellUnit, CheckError, FieldSamples, Layout, Precise};
use crate::io::{
    CHECKSUM_KEY, InputKind, checksum_hex, decode_npy_f64, decode_npy_float, read_input,
    read_npz_entries, read_verified,
};
use crate::stages::sdf::GridSpec;

/// An array's shape and values in float64.
type NpyArray64 = (Vec<usize>, Vec<f64>);

/// Index order of a bare `.npy` grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxisOrder {
    /// `field[k][j][i]`, shape `(nz, ny, nx)` (collidoscope's).
    Zyx,
    /// `field[i][j][k]`, shape `(nx, ny, nz)`.
    Xyz,
}

impl AxisOrder {
    pub fn name(self) -> &'static str {
        match self {
            AxisOrder::Zyx => "zyx",
            AxisOrder::Xyz => "xyz",
        }
    }
}

/// How to read the field: the layout of a grid without a sidecar, a cell
/// size to measure point-set errors in, and whether data that no longer
/// matches its sidecar's checksum (an edited `.npy`) is read all the same.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// World position of the value `[0, 0, 0]`.
    pub origin: Option<Vec3>,
    /// Grid spacing (grids), or the length errors are measured in (point sets).
    pub cell_size: Option<f32>,
    pub axis_order: Option<AxisOrder>,
    /// Read data whose checksum differs from its sidecar's, noting it in
    /// [`FieldSamples::overrides`] instead of refusing it.
    pub ignore_checksum: bool,
}

/// The override note of a checksum that differs.
pub const CHECKSUM_DIFFERS: &str = "checksum differs: values may not be what the sidecar describes";

/// Reads `path` (`.npy` or `.npz`) as samples of a signed distance field.
pub fn read_samples(path: &Path, options: &ReadOptions) -> Result<FieldSamples, CheckError> {
    if let Some(h) = options.cell_size
        && !(h.is_finite() && h > 0.0)
    {
        return Err(CheckError::Input(format!(
            "--cell-size {h} must be a positive number"
        )));
    }
    match path.extension().and_then(|e| e.to_str()) {
        Some("npy") => read_grid(path, options),
        Some("npz") => read_points(path, options),
        _ => Err(CheckError::Input(format!(
            "{}: a field is a .npy grid or an .npz point set",
            path.display()
        ))),
    }
}

fn input(path: &Path, what: impl std::fmt::Display) -> CheckError {
    CheckError::Input(format!("{}: {what}", path.display()))
}

fn read_array(path: &Path) -> Result<Vec<u8>, CheckError> {
    read_input(path, InputKind::Array).map_err(|e| CheckError::Input(e.to_string()))
}
/// What was read with a sidecar: the data's bytes, the sidecar, and the
/// note of a checksum read past ([`ReadOptions::ignore_checksum`]).
type WithSidecar = (Vec<u8>, serde_json::Value, Option<String>);

/// The sidecar beside `data`, when it is one of collidoscope's: the data's
/// bytes checked against it (or, with `ignore_checksum`, a note when they
/// differ), and the sidecar.
fn collidoscope_sidecar(
    data: &Path,
    ignore_checksum: bool,
) -> Result<Option<WithSidecar>, CheckError> {
    let sidecar = data.with_extension("json");
    if !sidecar.exists() {
        return Ok(None);
    }
    let text =
        read_input(&sidecar, InputKind::Sidecar).map_err(|e| CheckError::Input(e.to_string()))?;
    let meta: serde_json::Value = serde_json::from_slice(&text)
        .map_err(|e| input(&sidecar, format!("sidecar is not JSON: {e}")))?;
    if !meta["format"]
        .as_str()
        .is_some_and(|f| f.starts_with("collidoscope"))
    {
        return Ok(None);
    }
    if ignore_checksum {
        let bytes = read_array(data)?;
        let actual = checksum_hex(&bytes);
        let note = match meta[CHECKSUM_KEY].as_str() {
            Some(recorded) if recorded == actual => None,
            recorded => Some(format!(
                "{CHECKSUM_DIFFERS} ({} has checksum {actual}, {} records {})",
                data.display(),
                sidecar.display(),
                recorded.unwrap_or("none")
            )),
        };
        return Ok(Some((bytes, meta, note)));
    }
    read_verified(data, &sidecar)
        .map(|(bytes, meta)| Some((bytes, meta, None)))
        .map_err(|e| CheckError::Input(format!("{e}; --ignore-checksum reads it anyway")))
}

fn read_grid(path: &Path, options: &ReadOptions) -> Result<FieldSamples, CheckError> {
    let mut overrides = Vec::new();
    let given = options.origin.is_some() || options.axis_order.is_some();
    let (bytes, layout) = if given || options.cell_size.is_some() {
        let bytes = read_array(path)?;
        let missing: Vec<&str> = [
            (options.origin.is_none(), "--origin x,y,z"),
            (options.cell_size.is_none(), "--cell-size h"),
            (options.axis_order.is_none(), "--axis-order zyx|xyz"),
        ]
        .into_iter()
        .filter_map(|(m, flag)| m.then_some(flag))
        .collect();
        if !missing.is_empty() {
            return Err(input(
                path,
                format!("a grid's layout needs {} as well", missing.join(" and ")),
            ));
        }
        (bytes, None)
    } else {
        match collidoscope_sidecar(path, options.ignore_checksum)? {
            Some((bytes, meta, note)) => {
                overrides.extend(note);
                (bytes, Some(meta))
            }
            None => {
                return Err(input(
                    path,
                    format!(
                        "no collidoscope sidecar ({}); for another tool's field give --origin x,y,z --cell-size h --axis-order zyx|xyz",
                        path.with_extension("json").display()
                    ),
                ));
            }
        }
    };
    let array = decode_npy_float(&bytes).map_err(|e| input(path, e))?;
    if array.shape.len() != 3 {
        return Err(input(
            path,
            format!(
                "a grid is a 3-D array, this one has shape {:?}",
                array.shape
            ),
        ));
    }
    let s = [array.shape[0], array.shape[1], array.shape[2]];
    if array.data.is_empty() {
        return Err(input(path, format!("the grid {s:?} has no cells")));
    }
    // The origin in float64 where the sidecar has it (and it rounds to the
    // float32 origin the sidecar gives).
    let precise = layout.as_ref().and_then(|meta| {
        let o = DVec3::from_array(serde_json::from_value(meta["origin_f64"].clone()).ok()?);
        let rounded: [f32; 3] = serde_json::from_value(meta["origin"].clone()).ok()?;
        (o.is_finite() && o.as_vec3() == Vec3::from(rounded)).then_some(Precise::GridOrigin(o))
    });
    let (origin, cell_size, order, band_world, mesh_hash) = match &layout {
        Some(meta) => {
            let sidecar = path.with_extension("json");
            let shape: Option<Vec<usize>> = serde_json::from_value(meta["shape"].clone()).ok();
            if shape.as_deref() != Some(&s[..]) {
                return Err(input(
                    &sidecar,
                    format!(
                        "the sidecar's shape {} does not match the array's {s:?}",
                        meta["shape"]
                    ),
                ));
            }
            if meta["axis_order"] != "zyx" {
                return Err(input(
                    &sidecar,
                    format!("axis_order {} (expected \"zyx\")", meta["axis_order"]),
                ));
            }
            let origin: [f32; 3] = serde_json::from_value(meta["origin"].clone())
                .ok()
                .filter(|o: &[f32; 3]| o.iter().all(|v| v.is_finite()))
                .ok_or_else(|| input(&sidecar, "no finite origin [x, y, z]"))?;
            let h = meta["cell_size"]
                .as_f64()
                .map(|h| h as f32)
                .filter(|h| h.is_finite() && *h > 0.0)
                .ok_or_else(|| input(&sidecar, "no positive, finite cell_size"))?;
            let band = match &meta["band_world"] {
                serde_json::Value::Null => None,
                b => Some(
                    b.as_f64()
                        .map(|b| b as f32)
                        .filter(|b| b.is_finite() && *b >= 0.0)
                        .ok_or_else(|| {
                            input(
                                &sidecar,
                                format!("band_world {b} is not a finite number >= 0"),
                            )
                        })?,
                ),
            };
            (
                Vec3::from(origin),
                h,
                AxisOrder::Zyx,
                band,
                meta["mesh_hash"].as_str().map(str::to_string),
            )
        }
        None => (
            options.origin.unwrap_or_default(),
            options.cell_size.unwrap_or_default(),
            options.axis_order.unwrap_or(AxisOrder::Zyx),
            None,
            None,
        ),
    };
    let dims = match order {
        AxisOrder::Zyx => UVec3::new(s[2] as u32, s[1] as u32, s[0] as u32),
        AxisOrder::Xyz => UVec3::new(s[0] as u32, s[1] as u32, s[2] as u32),
    };
    let grid = GridSpec {
        origin,
        cell_size,
        dims,
    };
    let values = match order {
        AxisOrder::Zyx => array.data,
        AxisOrder::Xyz => (0..grid.num_cells())
            .map(|c| {
                let ijk = grid.coords(c);
                array.data[ijk.z as usize + s[2] * (ijk.y as usize + s[1] * ijk.x as usize)]
            })
            .collect(),
    };
    finite(path, &values, |c| format!("{:?}", kji(&grid, c)))?;
    Ok(FieldSamples {
        layout: Layout::Grid(grid),
        values,
        unit: CellUnit::Uniform(cell_size),
        band_world,
        mesh_hash,
        axis_order: Some(order),
        precise,
        overrides,
    })
}

/// The `[k, j, i]` of a cell.
pub(super) fn kji(grid: &GridSpec, cell: usize) -> [u32; 3] {
    let c = grid.coords(cell);
    [c.z, c.y, c.x]
}

fn finite(path: &Path, values: &[f32], name: impl Fn(usize) -> String) -> Result<(), CheckError> {
    let bad: Vec<usize> = (0..values.len())
        .filter(|&i| !values[i].is_finite())
        .collect();
    match bad.first() {
        None => Ok(()),
        Some(&first) => Err(input(
            path,
            format!(
                "{} values are not finite numbers (the first, {}, is {})",
                bad.len(),
                name(first),
                values[first]
            ),
        )),
    }
}

fn read_points(path: &Path, options: &ReadOptions) -> Result<FieldSamples, CheckError> {
    if options.origin.is_some() || options.axis_order.is_some() {
        return Err(input(
            path,
            "--origin and --axis-order describe grids; a point set carries its points",
        ));
    }
    let (bytes, meta, overrides) = match collidoscope_sidecar(path, options.ignore_checksum)? {
        Some((bytes, meta, note)) => (bytes, Some(meta), note.into_iter().collect()),
        None => (read_array(path)?, None, Vec::new()),
    };
    let entries = read_npz_entries(&bytes).map_err(|e| {
        input(
            path,
            format!("{e} (np.savez and np.savez_compressed write what is read here)"),
        )
    })?;
    // float64 as the file has it (float32 arrays exactly): the points are
    // taken into the mesh's frame in float64 ([`super::Precise`]).
    let array = |name: &str| -> Result<Option<NpyArray64>, CheckError> {
        entries
            .iter()
            .find(|(n, _)| n.trim_end_matches(".npy") == name)
            .map(|(_, b)| decode_npy_f64(b).map_err(|e| input(path, format!("{name}: {e}"))))
            .transpose()
    };
    let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
    let (points_shape, points) = match (array("centers")?, array("points")?) {
        (Some(p), _) | (None, Some(p)) => p,
        (None, None) => {
            return Err(input(
                path,
                format!("no `centers` or `points` array (found {names:?})"),
            ));
        }
    };
    let (values_shape, values) = array("values")?
        .ok_or_else(|| input(path, format!("no `values` array (found {names:?})")))?;
    let n = values.len();
    if points_shape != [n, 3] || values_shape.len() != 1 {
        return Err(input(
            path,
            format!(
                "points must have shape (N, 3) and values (N,); found {points_shape:?} and {values_shape:?}"
            ),
        ));
    }
    if n == 0 {
        return Err(input(path, "the point set is empty"));
    }
    let to_f32 = |v: &[f64]| -> Vec<f32> { v.iter().map(|&x| x as f32).collect() };
    let (points32, values) = (to_f32(&points), to_f32(&values));
    finite(path, &points32, |i| format!("point {}", i / 3))?;
    finite(path, &values, |i| format!("value {i}"))?;
    let unit = match (options.cell_size, array("half_sizes")?) {
        (Some(h), _) => CellUnit::Uniform(h),
        (None, Some((_, half))) if half.len() == n => {
            CellUnit::PerPoint(half.iter().map(|&h| (2.0 * h) as f32).collect())
        }
        _ => CellUnit::None,
    };
    Ok(FieldSamples {
        layout: Layout::Points(points32.chunks_exact(3).map(Vec3::from_slice).collect()),
        values,
        unit,
        band_world: None,
        mesh_hash: meta.and_then(|m| m["mesh_hash"].as_str().map(str::to_string)),
        axis_order: None,
        precise: Some(Precise::Points(
            points.chunks_exact(3).map(DVec3::from_slice).collect(),
        )),
        overrides,
    })
}
