//! `collidoscope.interfere`: image-space interference detection of many
//! posed meshes (Knott 2003, ch. 4; `collidoscope::stages::interfere`,
//! the call `collidoscope interfere` makes), the pairs, per-pixel counts
//! and localised points as numpy arrays instead of files.

use collidoscope::stages::interfere as interference;
use collidoscope::stages::interfere::{
    Backend, Identification, InterferenceError, InterferenceObject, InterferenceParams,
    InterferenceScene, Localisation, StencilPasses, ViewAxis,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::device::{Choice, choose};
use crate::mesh::Mesh;
use crate::{Failure, arrays, detached, poses};

impl From<InterferenceError> for Failure {
    fn from(e: InterferenceError) -> Failure {
        match e {
            InterferenceError::NoObjects | InterferenceError::BadObject { .. } => {
                Failure::Value(format!("meshes: {e}"))
            }
            InterferenceError::BadViewport { .. } => Failure::Value(format!("res: {e}")),
            _ => Failure::Runtime(e.to_string()),
        }
    }
}

/// `"xyz"`, `"x,z"`, `"Y"`: the view axes, each once.
fn parse_axes(text: &str) -> PyResult<Vec<ViewAxis>> {
    let mut axes = Vec::new();
    for c in text.chars().filter(|c| *c != ',' && !c.is_whitespace()) {
        let axis = ViewAxis::parse(&c.to_string()).ok_or_else(|| {
            PyValueError::new_err(format!("axes: {text:?}: {c:?} is not x, y or z"))
        })?;
        if axes.contains(&axis) {
            return Err(PyValueError::new_err(format!(
                "axes: {text:?}: {} given twice",
                axis.name()
            )));
        }
        axes.push(axis);
    }
    if axes.is_empty() {
        return Err(PyValueError::new_err("axes: no view axis (x, y or z)"));
    }
    Ok(axes)
}

/// Pixels along a side of a view at most (the GPU may allow fewer: its
/// limit is the stage's error).
const MAX_SIDE: u32 = 16384;

/// `(width, height)` or one number for both.
fn parse_res(res: &Bound<'_, PyAny>) -> PyResult<(u32, u32)> {
    let (w, h) = match res.extract::<u32>() {
        Ok(n) => (n, n),
        Err(_) => res.extract::<(u32, u32)>().map_err(|_| {
            PyValueError::new_err("res: expected (width, height) or one number of pixels")
        })?,
    };
    if !(1..=MAX_SIDE).contains(&w) || !(1..=MAX_SIDE).contains(&h) {
        return Err(PyValueError::new_err(format!(
            "res: {w}×{h}: each side must be 1 to {MAX_SIDE} pixels"
        )));
    }
    Ok((w, h))
}

/// `None`, `"gpu"`/`"stencil"`, `"compute"` or `"cpu"`: the stage's
/// backend and the device.
fn backend_of(py: Python<'_>, backend: Option<&str>) -> PyResult<(Backend, Choice)> {
    let device = match backend {
        None => None,
        Some("gpu" | "stencil" | "compute") => Some("gpu"),
        Some("cpu") => Some("cpu"),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "backend: {other:?} is not 'gpu', 'stencil', 'compute' or 'cpu' (or None: the GPU when there is one, else the CPU)"
            )));
        }
    };
    let choice = choose(py, device)?;
    let stage = match (choice, backend) {
        (Choice::Cpu, _) => Backend::Cpu,
        (Choice::Gpu(_), Some("compute")) => Backend::Compute,
        (Choice::Gpu(_), _) => Backend::Stencil,
    };
    Ok((stage, choice))
}

/// interfere(meshes, poses=None, *, res=256, axes="xyz", backend=None, edge_offset=None, cull=True, pair_passes=False, separate_passes=False) -> dict
///
/// Which of ``meshes`` (closed solids) interfere at ``poses``: image-space
/// interference detection by counting, along parallel rays of each view,
/// how many solids every edge point of every mesh is inside (Knott 2003,
/// ch. 4); ``collidoscope interfere`` as arrays.
///
/// Parameters
/// ----------
/// meshes : sequence of Mesh
///     Numbered from 0 in this order.
/// poses : sequence of poses, or None
///     One per mesh (None: all where their vertices put them). Each is
///     None, a 4×4 rigid matrix, ``(translation, quaternion xyzw)``, or 3
///     or 7 numbers, as for ``tritri``.
/// res : int or (width, height)
///     Pixels of each view (None: 256 × 256; at most 16384 a side).
/// axes : str
///     View axes, e.g. ``"xyz"`` or ``"z"``: a pair found in any view
///     interferes.
/// backend : {None, "gpu", "stencil", "compute", "cpu"}
///     ``"gpu"``/``"stencil"``: the rendering passes counting in the
///     stencil buffer; ``"compute"``: the same rays on the compute units;
///     ``"cpu"``: the reference. None: the GPU when there is one, else the
///     CPU with a RuntimeWarning.
/// edge_offset : float or None
///     World distance the edges are pushed out along their vertex
///     normals (default 1/1000 of the scene's bounding-box diagonal).
/// cull : bool
///     Bounding-box culling of the passes (exact: it only draws less).
/// pair_passes : bool
///     Identify the penetrated meshes by the paper's pair passes (Alg. 4)
///     alone, not by the weighted sums of the counting pass.
/// separate_passes : bool
///     Draw the counting passes culling back then front faces instead of
///     one two-sided stencil pass.
///
/// Returns
/// -------
/// dict
///     * ``pairs``: (P, 2) int64 interfering pairs ``i < j``, sorted;
///       ``interfering``: (M,) bool per mesh;
///     * ``self_only``: (S,) int64 meshes whose edges are inside
///       something but in no other mesh (spurious self-interference);
///       ``touching_pairs``: (T, 2) int64 pairs whose surfaces coincide
///       without interfering, ``touching_pixels``: (T,) their tied pixels;
///     * ``views``: per axis name, a dict of ``counts`` (H, W) int32 --
///       how many solids the nearest edge point on each pixel's ray is
///       inside, rows from the top (the CLI's ``counts_<axis>.npy``, as
///       float32 there); ``edge_ids`` (H, W, 2) uint32 -- that edge's mesh
///       + 1 and global edge + 1 (0: no edge); ``penetrated`` (H, W)
///       uint32 -- the mesh it is inside + 1 (0: none found);
///       ``pixel_size`` (float, float); ``bounds_min``/``bounds_max``:
///       the view's box in world coordinates; ``negative_pixels`` (int,
///       > 0 where a mesh is not closed);
///     * ``points``: the localised interference points, a dict of
///       ``position`` (K, 3) float64 world, ``count`` (K,) int32,
///       ``mesh`` and ``edge`` (K,) int64 (the penetrating mesh and its
///       edge), ``inside`` (K,) int64 (the mesh penetrated), ``axis``
///       (K,) str;
///     * ``interfering_edges``: (E, 2) int64 (mesh, local edge);
///     * ``edge_offset`` (float), ``self_interference`` and
///       ``open_meshes`` (dicts, as the CLI's JSON), ``backend`` (str).
#[pyfunction]
#[pyo3(signature = (meshes, poses = None, *, res = None, axes = "xyz", backend = None, edge_offset = None, cull = true, pair_passes = false, separate_passes = false))]
#[allow(clippy::too_many_arguments)]
pub fn interfere<'py>(
    py: Python<'py>,
    meshes: &Bound<'py, PyAny>,
    poses: Option<&Bound<'py, PyAny>>,
    res: Option<&Bound<'py, PyAny>>,
    axes: &str,
    backend: Option<&str>,
    edge_offset: Option<f32>,
    cull: bool,
    pair_passes: bool,
    separate_passes: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let meshes: Vec<Bound<'py, Mesh>> = meshes
        .try_iter()
        .and_then(|it| it.map(|m| Ok(m?.cast_into::<Mesh>()?)).collect())
        .map_err(|_| PyValueError::new_err("meshes: expected a sequence of collidoscope.Mesh"))?;
    if meshes.is_empty() {
        return Err(PyValueError::new_err("meshes: no meshes to test"));
    }
    let poses = poses::poses(poses, meshes.len(), "poses")?;
    let (width, height) = match res {
        Some(r) if !r.is_none() => parse_res(r)?,
        _ => (256, 256),
    };
    let axes = parse_axes(axes)?;
    if let Some(o) = edge_offset
        && !(o.is_finite() && o >= 0.0)
    {
        return Err(PyValueError::new_err(format!(
            "edge_offset: {o} is not a finite number ≥ 0"
        )));
    }
    let (stage_backend, choice) = backend_of(py, backend)?;
    let params = InterferenceParams {
        width,
        height,
        edge_offset,
        stencil_passes: if separate_passes {
            StencilPasses::Separate
        } else {
            StencilPasses::TwoSided
        },
        cull,
        identification: if pair_passes {
            Identification::PairPasses
        } else {
            Identification::WeightedSums
        },
    };
    let raws: Vec<_> = meshes.iter().map(|m| m.get().raw()).collect();
    let (scene, detection, located) = detached(py, || {
        let objects = raws
            .iter()
            .zip(&poses)
            .map(|(m, p)| InterferenceObject::new(m, p.to_mat4()))
            .collect();
        let scene = InterferenceScene::new(objects)?;
        let detection = match choice {
            Choice::Cpu => interference::run(&scene, &axes, &params, Backend::Cpu, None)?,
            Choice::Gpu(gpu) => {
                let stage = gpu.interfere()?;
                gpu.locked(|| {
                    interference::run(&scene, &axes, &params, stage_backend, Some(stage))
                })?
            }
        };
        let located = Localisation::from_runs(&scene, &detection.runs);
        Ok((scene, detection, located))
    })?;
    let summary = &detection.summary;
    let out = PyDict::new(py);
    let pair_rows = |pairs: Vec<[usize; 2]>| {
        let n = pairs.len();
        let flat: Vec<i64> = pairs.into_iter().flatten().map(|v| v as i64).collect();
        arrays::array_shaped(py, flat, &[n, 2])
    };
    out.set_item("pairs", pair_rows(summary.pairs.clone())?)?;
    out.set_item(
        "interfering",
        arrays::array1(py, summary.interfering.clone()),
    )?;
    let self_only: Vec<i64> = summary.self_only.iter().map(|&k| k as i64).collect();
    out.set_item("self_only", arrays::array1(py, self_only))?;
    out.set_item(
        "touching_pairs",
        pair_rows(summary.touching.iter().map(|t| t.objects).collect())?,
    )?;
    let tied: Vec<u64> = summary.touching.iter().map(|t| t.tied_pixels).collect();
    out.set_item("touching_pixels", arrays::array1(py, tied))?;
    out.set_item("views", views(py, &detection.runs)?)?;
    out.set_item("points", points(py, &located)?)?;
    let edges: Vec<[usize; 2]> = located
        .edges
        .iter()
        .map(|&(o, e)| [o, e as usize])
        .collect();
    out.set_item("interfering_edges", pair_rows(edges)?)?;
    out.set_item("edge_offset", scene.edge_offset(&params))?;
    let self_interference = serde_json::json!(located.self_interference);
    out.set_item(
        "self_interference",
        crate::json_to_python(py, &self_interference)?,
    )?;
    let open_meshes = serde_json::json!(located.open_meshes);
    out.set_item("open_meshes", crate::json_to_python(py, &open_meshes)?)?;
    out.set_item("backend", detection.backend.name())?;
    Ok(out)
}

/// Per view: its images as arrays.
fn views<'py>(
    py: Python<'py>,
    runs: &[interference::InterferenceRun],
) -> PyResult<Bound<'py, PyDict>> {
    let views = PyDict::new(py);
    for run in runs {
        let Some(image) = &run.image else { continue };
        let (w, h) = (run.view.width as usize, run.view.height as usize);
        let view = PyDict::new(py);
        view.set_item(
            "counts",
            arrays::array_shaped(py, image.counts.clone(), &[h, w])?,
        )?;
        let ids: Vec<u32> = image.ids.iter().flatten().copied().collect();
        view.set_item("edge_ids", arrays::array_shaped(py, ids, &[h, w, 2])?)?;
        view.set_item(
            "penetrated",
            arrays::array_shaped(py, image.penetrated.clone(), &[h, w])?,
        )?;
        view.set_item("pixel_size", run.view.pixel_size())?;
        view.set_item("bounds_min", run.view.min.to_array())?;
        view.set_item("bounds_max", run.view.max.to_array())?;
        view.set_item("negative_pixels", image.negative_pixels())?;
        views.set_item(run.view.axis.name(), view)?;
    }
    Ok(views)
}

/// The localised points as columns.
fn points<'py>(py: Python<'py>, located: &Localisation) -> PyResult<Bound<'py, PyDict>> {
    let p = &located.points;
    let out = PyDict::new(py);
    let position: Vec<[f64; 3]> = p.iter().map(|q| q.position.to_array()).collect();
    out.set_item("position", arrays::array_n3(py, position)?)?;
    let count: Vec<i32> = p.iter().map(|q| q.count).collect();
    out.set_item("count", arrays::array1(py, count))?;
    let column = |f: &dyn Fn(&interference::LocalisedPoint) -> i64| {
        arrays::array1(py, p.iter().map(f).collect::<Vec<i64>>())
    };
    out.set_item("mesh", column(&|q| q.object as i64))?;
    out.set_item("edge", column(&|q| i64::from(q.edge)))?;
    out.set_item("inside", column(&|q| q.penetrated as i64))?;
    let axis: Vec<&str> = p.iter().map(|q| q.axis.name()).collect();
    let numpy = py.import("numpy")?;
    out.set_item("axis", numpy.call_method1("array", (axis, "<U1"))?)?;
    Ok(out)
}
