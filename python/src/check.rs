//! `collidoscope.check`: anyone's signed distance field (a grid or values
//! at points) against the exact one, by `collidoscope::stages::check`, the
//! report `collidoscope check` writes.

use collidoscope::progress::Progress;
use collidoscope::stages::check::{AxisOrder, CellUnit, FieldSamples, Layout, check_report};
use collidoscope::stages::sdf::{Backend, GridSpec};
use glam::{UVec3, Vec3};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::arrays;
use crate::device::{Choice, choose};
use crate::grid::Grid;
use crate::mesh::Mesh;
use crate::{Failure, detached};

/// The layout arguments of `check`, as given.
struct Layout3 {
    origin: Option<(f32, f32, f32)>,
    cell_size: Option<f32>,
    axis_order: Option<String>,
}

/// check(values, mesh, points=None, origin=None, cell_size=None, axis_order=None, backend=None, max_list=10000) -> dict
///
/// Checks a signed distance field from any tool (Kaolin, Warp, Open3D,
/// mesh_to_sdf, one's own network) against the exact field of ``mesh``:
/// the report ``collidoscope check`` writes, as a dict.
///
/// The field is either
///
/// * a grid: ``values`` a 3-D array with ``origin`` (world position of
///   the value ``[0, 0, 0]``), ``cell_size`` (the spacing) and
///   ``axis_order`` (``"zyx"``: ``values[k, j, i]``, the default and what
///   ``sdf_grid`` returns; ``"xyz"``: ``values[i, j, k]``, numpy's
///   ``meshgrid(..., indexing="ij")``), the value of cell (i, j, k) lying
///   at ``origin + (i, j, k) * cell_size``; or a ``Grid`` from
///   ``sdf_grid`` alone (its layout and band are used);
/// * values at points: ``values`` an (N,) array and ``points`` (N, 3);
///   ``cell_size``, if given, is the length errors are also counted in.
///
/// The exact field has the robust sign: inside where the exact winding
/// number has ``|w| > 1/2``. ``backend`` as in ``signed_distance``.
///
/// Returns a dict: ``points`` (samples), ``max_abs_error``,
/// ``mean_abs_error``, ``max_abs_error_cells``, ``sign_disagreements``
/// and ``sign_disagreement_indices`` (``[k, j, i]`` of grid cells, or
/// point indices; at most ``max_list``), ``worst`` (the 20 largest
/// errors), ``histogram``, ``layout``, ``mesh_hash``, ``reference``
/// (backend, adapter, sign, milliseconds) and ``mesh`` (its name).
/// Raises ValueError for non-finite values, inconsistent shapes, a
/// missing layout, or samples that do not come near the mesh.
#[pyfunction]
#[pyo3(signature = (values, mesh, points = None, origin = None, cell_size = None, axis_order = None, backend = None, max_list = 10_000))]
#[allow(clippy::too_many_arguments)]
pub fn check<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyAny>,
    mesh: &Bound<'py, Mesh>,
    points: Option<&Bound<'py, PyAny>>,
    origin: Option<(f32, f32, f32)>,
    cell_size: Option<f32>,
    axis_order: Option<String>,
    backend: Option<&str>,
    max_list: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let layout = Layout3 {
        origin,
        cell_size,
        axis_order,
    };
    if let Some(h) = layout.cell_size
        && !(h.is_finite() && h > 0.0)
    {
        return Err(PyValueError::new_err(format!(
            "cell_size: {h} must be a positive number"
        )));
    }
    let samples = match (values.cast::<Grid>(), points) {
        (Ok(grid), None) => grid_object(grid.get(), &layout)?,
        (Ok(_), Some(_)) => {
            return Err(PyValueError::new_err(
                "points: a Grid carries its own layout; pass its values with points, or the Grid alone",
            ));
        }
        (Err(_), Some(points)) => point_samples(values, points, &layout)?,
        (Err(_), None) => grid_samples(values, &layout, None)?,
    };
    let choice = choose(py, backend)?;
    let mesh = mesh.get();
    let prepared = mesh.prepared(py)?;
    let report = detached(py, || {
        samples
            .check_mesh(&prepared)
            .map_err(|e| Failure::Value(format!("mesh: {e}")))?;
        let progress = Progress::default();
        let report = match choice {
            Choice::Gpu(gpu) => gpu.exclusive(|stage| {
                check_report(
                    &prepared,
                    &samples,
                    Backend::Gpu,
                    Some(stage),
                    max_list,
                    &progress,
                )
            }),
            Choice::Cpu => check_report(
                &prepared,
                &samples,
                Backend::CpuFast,
                None,
                max_list,
                &progress,
            ),
        };
        let mut report = report.map_err(|e| Failure::Runtime(e.to_string()))?;
        report["mesh"] = serde_json::json!(mesh.raw().name);
        Ok(report)
    })?;
    crate::json_to_python(py, &report)
}

fn grid_object(grid: &Grid, layout: &Layout3) -> PyResult<FieldSamples> {
    if layout.origin.is_some() || layout.cell_size.is_some() || layout.axis_order.is_some() {
        return Err(PyValueError::new_err(
            "origin: a Grid carries its own origin, cell_size and axis_order; pass none of them",
        ));
    }
    Python::attach(|py| {
        let given = Layout3 {
            origin: Some(grid.origin),
            cell_size: Some(grid.cell_size),
            axis_order: Some(grid.axis_order.to_string()),
        };
        grid_samples(grid.values.bind(py), &given, grid.band_world)
    })
}

fn grid_samples(
    values: &Bound<'_, PyAny>,
    layout: &Layout3,
    band_world: Option<f32>,
) -> PyResult<FieldSamples> {
    let array = arrays::values(values, "values")?;
    let shape = array.shape();
    if shape.len() != 3 {
        return Err(PyValueError::new_err(format!(
            "values: a grid is a 3-D array (or pass points= for values at points), got shape {shape:?}"
        )));
    }
    if shape.contains(&0) {
        return Err(PyValueError::new_err(format!(
            "values: the grid {shape:?} has no cells"
        )));
    }
    let (Some(origin), Some(cell_size)) = (layout.origin, layout.cell_size) else {
        return Err(PyValueError::new_err(
            "origin: a grid's layout needs origin=(x, y, z) and cell_size=h (and axis_order, 'zyx' unless told)",
        ));
    };
    let origin = Vec3::from(origin);
    if !origin.is_finite() {
        return Err(PyValueError::new_err(format!(
            "origin: {origin:?} is not three finite numbers"
        )));
    }
    let order = match layout.axis_order.as_deref() {
        None | Some("zyx") => AxisOrder::Zyx,
        Some("xyz") => AxisOrder::Xyz,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "axis_order: {other:?} is not 'zyx' or 'xyz'"
            )));
        }
    };
    let dims = match order {
        AxisOrder::Zyx => UVec3::new(shape[2] as u32, shape[1] as u32, shape[0] as u32),
        AxisOrder::Xyz => UVec3::new(shape[0] as u32, shape[1] as u32, shape[2] as u32),
    };
    let values = array.to_f32(order == AxisOrder::Xyz);
    let grid = GridSpec {
        origin,
        cell_size,
        dims,
    };
    finite(&values, |c| {
        let ijk = grid.coords(c);
        match order {
            AxisOrder::Zyx => format!("values[{}, {}, {}]", ijk.z, ijk.y, ijk.x),
            AxisOrder::Xyz => format!("values[{}, {}, {}]", ijk.x, ijk.y, ijk.z),
        }
    })?;
    Ok(FieldSamples {
        layout: Layout::Grid(grid),
        values,
        unit: CellUnit::Uniform(cell_size),
        band_world,
        mesh_hash: None,
        axis_order: Some(order),
        precise: None,
        overrides: Vec::new(),
    })
}

fn point_samples(
    values: &Bound<'_, PyAny>,
    points: &Bound<'_, PyAny>,
    layout: &Layout3,
) -> PyResult<FieldSamples> {
    if layout.origin.is_some() || layout.axis_order.is_some() {
        return Err(PyValueError::new_err(
            "origin: origin and axis_order describe grids; values at points carry their points",
        ));
    }
    let array = arrays::values(values, "values")?;
    let rows = arrays::rows3(points, "points")?;
    let view = rows.view();
    if array.shape().len() != 1 || array.shape()[0] != view.len() {
        return Err(PyValueError::new_err(format!(
            "values: expected shape ({},), one value per point, got {:?}",
            view.len(),
            array.shape()
        )));
    }
    if view.len() == 0 {
        return Err(PyValueError::new_err("points: the point set is empty"));
    }
    view.check_finite("points")?;
    let values = array.to_f32(false);
    finite(&values, |i| format!("values[{i}]"))?;
    Ok(FieldSamples {
        layout: Layout::Points(view.chunk(0..view.len())),
        values,
        unit: layout.cell_size.map_or(CellUnit::None, CellUnit::Uniform),
        band_world: None,
        mesh_hash: None,
        axis_order: None,
        precise: None,
        overrides: Vec::new(),
    })
}

fn finite(values: &[f32], name: impl Fn(usize) -> String) -> PyResult<()> {
    let bad = values.iter().filter(|v| !v.is_finite()).count();
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(first) => Err(PyValueError::new_err(format!(
            "values: {bad} values are not finite float32 numbers (the first, {}, is {})",
            name(first),
            values[first]
        ))),
    }
}
