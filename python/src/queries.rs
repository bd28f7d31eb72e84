//! Queries at arbitrary points: N×3 in, length-N out, through
//! `collidoscope::stages::sdf::points` (the code `collidoscope check`
//! runs on a point set), a chunk of points at a time.

use collidoscope::mesh::PreparedMesh;
use collidoscope::progress::Progress;
use collidoscope::stages::sdf::points::{
    Nearest, inside_at_points, nearest_at_points, signed_at_points, winding_at_points,
};
use collidoscope::stages::sdf::{Backend, SignMode, default_sign_mode};
use glam::Vec3;
use numpy::Element;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::arrays::{self, RowsView};
use crate::device::{Choice, choose};
use crate::mesh::Mesh;
use crate::timings::Recorder;
use crate::{Failure, detached};

// Points per chunk unless told (`chunk_size = 1048576` in the signatures
// below, a literal so that `help()` shows it): large enough to keep the GPU
// busy, small enough that a chunk's buffers (about 100 bytes a point on the
// GPU) stay near 100 MB.

/// The sign mode `sign` names on `mesh` (`"auto"`: the mesh's default, as
/// `collidoscope sdf` chooses it).
pub fn sign_mode(sign: &str, mesh: &PreparedMesh) -> PyResult<SignMode> {
    match sign {
        "auto" => Ok(default_sign_mode(&mesh.report).0),
        "winding" => Ok(SignMode::Winding),
        "pseudo-normal" => Ok(SignMode::PseudoNormal),
        other => Err(PyValueError::new_err(format!(
            "sign: {other:?} is not 'auto', 'winding' or 'pseudo-normal'"
        ))),
    }
}

/// Refuses a sign name before any work (the mesh may not be prepared yet).
pub fn check_sign_name(sign: &str) -> PyResult<()> {
    match sign {
        "auto" | "winding" | "pseudo-normal" => Ok(()),
        other => Err(PyValueError::new_err(format!(
            "sign: {other:?} is not 'auto', 'winding' or 'pseudo-normal'"
        ))),
    }
}

fn check_chunk(chunk_size: usize) -> PyResult<()> {
    if chunk_size == 0 {
        return Err(PyValueError::new_err("chunk_size: must be at least 1"));
    }
    Ok(())
}

/// `f` over `points` in chunks of `chunk` rows, the results in order.
fn chunked<T>(
    points: RowsView<'_>,
    chunk: usize,
    mut f: impl FnMut(&[Vec3]) -> Result<Vec<T>, Failure>,
) -> Result<Vec<T>, Failure> {
    points.check_finite("points")?;
    let n = points.len();
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    while start < n {
        let end = n.min(start + chunk);
        out.extend(f(&points.chunk(start..end))?);
        start = end;
    }
    Ok(out)
}

/// signed_distance(mesh, points, sign="auto", backend=None, return_closest=False, chunk_size=1048576)
///
/// Exact signed distance from the surface of ``mesh`` at each point,
/// negative inside: the magnitude is the exact distance to the nearest
/// triangle, the sign the same robust sign the CLI gives.
///
/// Parameters
/// ----------
/// mesh : Mesh
/// points : array_like, shape (N, 3), float32 or float64
///     Query points (numpy, a CPU torch tensor, anything with
///     ``__array__``; any memory layout). NaN or inf is a ValueError.
/// sign : {"auto", "winding", "pseudo-normal"}
///     ``"winding"``: inside where the exact generalised winding number
///     has ``|w| > 1/2`` -- right on open, self-intersecting and
///     inconsistently oriented meshes. ``"pseudo-normal"``: the side of
///     the closest feature's angle-weighted pseudo-normal -- exact on
///     closed, consistently oriented, manifold meshes, arbitrary near the
///     holes of others. ``"auto"``: pseudo-normal where the mesh report
///     trusts it, winding otherwise (``mesh.report()["sign"]``), as
///     ``collidoscope sdf`` chooses.
/// backend : {None, "gpu", "cpu"}
///     None: the GPU when there is one, else the CPU with a
///     RuntimeWarning. ``"gpu"`` raises RuntimeError without a GPU.
///     The GPU signs by winding number (its results equal the CPU's to
///     float32 rounding of the distance; the signs are the exact winding
///     number's); the pseudo-normal sign and ``return_closest`` are
///     computed on the CPU.
/// return_closest : bool
///     Also return, per point, the closest face, its barycentric weights
///     and the closest point (to build gradients and normals).
/// chunk_size : int
///     Points sent to the device at a time (memory stays bounded for any
///     N).
///
/// Returns
/// -------
/// distance : numpy.ndarray, shape (N,), float32
///     Or, with ``return_closest=True``, a tuple ``(distance, face,
///     barycentric, closest)``: ``face`` (N,) int64 indices into
///     ``mesh.faces``, ``barycentric`` (N, 3) float32 weights of that
///     face's three vertices (in ``mesh.faces`` order) at the closest
///     point, ``closest`` (N, 3) float32 closest points. The gradient of
///     the field away from the surface is ``(points - closest) /
///     distance``.
#[pyfunction]
#[pyo3(signature = (mesh, points, sign = "auto", backend = None, return_closest = false, chunk_size = 1048576))]
pub fn signed_distance<'py>(
    py: Python<'py>,
    mesh: &Bound<'py, Mesh>,
    points: &Bound<'py, PyAny>,
    sign: &str,
    backend: Option<&str>,
    return_closest: bool,
    chunk_size: usize,
) -> PyResult<Bound<'py, PyAny>> {
    check_sign_name(sign)?;
    check_chunk(chunk_size)?;
    let rows = arrays::rows3(points, "points")?;
    let choice = choose(py, backend)?;
    let mesh = mesh.get();
    let prepared = mesh.prepared(py)?;
    let mode = sign_mode(sign, &prepared)?;
    let view = rows.view();
    let progress = Progress::default();
    let mut timings = Recorder::start("signed_distance");
    let on_gpu = matches!(choice, Choice::Gpu(_)) && mode == SignMode::Winding;
    let values = detached(py, || {
        chunked(view, chunk_size, |chunk| {
            // The GPU signs by winding number; the pseudo-normal sign is
            // the CPU's whatever the backend (its module docs).
            let got = match choice {
                Choice::Gpu(gpu) if on_gpu => gpu.exclusive(|stage| {
                    signed_at_points(&prepared, chunk, mode, Backend::Gpu, Some(stage), &progress)
                }),
                _ => signed_at_points(&prepared, chunk, mode, Backend::CpuFast, None, &progress),
            }?;
            timings.add_gpu(&got.phases);
            Ok(got.values)
        })
    })?;
    let distance = arrays::array1(py, values).into_any();
    if !return_closest {
        timings.finish(if on_gpu { "gpu" } else { "cpu" }, view.len());
        return Ok(distance);
    }
    let nearest = detached(py, || {
        chunked(view, chunk_size, |chunk| {
            Ok(nearest_at_points(&prepared, chunk, &progress)?)
        })
    })?;
    let (face, barycentric, closest) = closest_columns(mesh, &prepared, &nearest);
    timings.finish(if on_gpu { "gpu" } else { "cpu" }, view.len());
    let tuple = (
        distance,
        arrays::array1(py, face),
        arrays::array_n3(py, barycentric)?,
        arrays::array_n3(py, closest)?,
    );
    Ok(tuple.into_pyobject(py)?.into_any())
}

/// The closest faces (the caller's numbering), their barycentric weights
/// in the caller's corner order, and the closest points.
fn closest_columns(
    mesh: &Mesh,
    prepared: &PreparedMesh,
    nearest: &[Option<Nearest>],
) -> (Vec<i64>, Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let raw = mesh.raw();
    let mut faces = Vec::with_capacity(nearest.len());
    let mut weights = Vec::with_capacity(nearest.len());
    let mut points = Vec::with_capacity(nearest.len());
    for n in nearest {
        let Some(n) = n else {
            faces.push(-1);
            weights.push([f32::NAN; 3]);
            points.push([f32::NAN; 3]);
            continue;
        };
        let face = prepared.source_faces[n.triangle as usize] as usize;
        // The prepared triangle may start at another corner or run the
        // other way (a flipped shell), and its corners are the welded
        // positions: each goes to the caller's corner nearest it.
        let prepared_corners = prepared.mesh.corners(n.triangle as usize);
        let corners = raw.corners(face);
        let mut w = [0.0f32; 3];
        for (pc, weight) in prepared_corners.iter().zip(n.barycentric) {
            let nearest_corner = (0..3)
                .min_by(|&a, &b| {
                    corners[a]
                        .distance_squared(*pc)
                        .total_cmp(&corners[b].distance_squared(*pc))
                })
                .unwrap_or(0);
            w[nearest_corner] += weight;
        }
        faces.push(face as i64);
        weights.push(w);
        points.push(n.point.to_array());
    }
    (faces, weights, points)
}

/// A CPU query: `query` over the points in chunks, without the GIL, as a
/// 1-D array.
fn on_the_cpu<'py, T: Element + Send>(
    py: Python<'py>,
    mesh: &Bound<'py, Mesh>,
    points: &Bound<'py, PyAny>,
    chunk_size: usize,
    query: impl Fn(&PreparedMesh, &[Vec3]) -> Result<Vec<T>, Failure> + Send + Sync,
) -> PyResult<Bound<'py, PyAny>> {
    check_chunk(chunk_size)?;
    let rows = arrays::rows3(points, "points")?;
    let prepared = mesh.get().prepared(py)?;
    let view = rows.view();
    let values = detached(py, || {
        chunked(view, chunk_size, |chunk| query(&prepared, chunk))
    })?;
    Ok(arrays::array1(py, values).into_any())
}

/// unsigned_distance(mesh, points, chunk_size=1048576) -> numpy.ndarray
///
/// Exact distance from the surface of ``mesh`` at each point (no sign):
/// the distance to the nearest triangle, by a BVH query on all CPU cores.
///
/// ``points``: (N, 3) float32 or float64 array_like, finite. Returns an
/// (N,) float32 array.
#[pyfunction]
#[pyo3(signature = (mesh, points, chunk_size = 1048576))]
pub fn unsigned_distance<'py>(
    py: Python<'py>,
    mesh: &Bound<'py, Mesh>,
    points: &Bound<'py, PyAny>,
    chunk_size: usize,
) -> PyResult<Bound<'py, PyAny>> {
    on_the_cpu(py, mesh, points, chunk_size, |prepared, chunk| {
        let found = nearest_at_points(prepared, chunk, &Progress::default())?;
        Ok(found
            .into_iter()
            .map(|n| n.map_or(f32::INFINITY, |n| n.distance))
            .collect())
    })
}

/// winding_number(mesh, points, chunk_size=1048576) -> numpy.ndarray
///
/// Generalised winding number of ``mesh`` at each point (Jacobson 2013):
/// about 1 inside a closed outward-facing surface, 0 outside, fractional
/// near the holes of an open one. Evaluated by the fast hierarchical
/// method of Barill et al. 2018 (orders 1-2, beta = 5) on all CPU cores:
/// approximate, within a few 1e-3 of the exact sum near the surface and
/// closer away from it; ``contains`` decides ``|w| > 1/2`` exactly.
///
/// ``points``: (N, 3) float32 or float64 array_like, finite. Returns an
/// (N,) float32 array.
#[pyfunction]
#[pyo3(signature = (mesh, points, chunk_size = 1048576))]
pub fn winding_number<'py>(
    py: Python<'py>,
    mesh: &Bound<'py, Mesh>,
    points: &Bound<'py, PyAny>,
    chunk_size: usize,
) -> PyResult<Bound<'py, PyAny>> {
    on_the_cpu(py, mesh, points, chunk_size, |prepared, chunk| {
        Ok(winding_at_points(prepared, chunk))
    })
}

/// contains(mesh, points, chunk_size=1048576) -> numpy.ndarray
///
/// Whether each point is inside ``mesh``: ``|w| > 1/2`` for the exact
/// generalised winding number w (the fast evaluation, then stricter ones
/// and the exact sum wherever its error bound leaves the side open), on
/// all CPU cores. Right on open and self-intersecting meshes too; the
/// sign ``signed_distance(..., sign="winding")`` gives.
///
/// ``points``: (N, 3) float32 or float64 array_like, finite. Returns an
/// (N,) bool array.
#[pyfunction]
#[pyo3(signature = (mesh, points, chunk_size = 1048576))]
pub fn contains<'py>(
    py: Python<'py>,
    mesh: &Bound<'py, Mesh>,
    points: &Bound<'py, PyAny>,
    chunk_size: usize,
) -> PyResult<Bound<'py, PyAny>> {
    on_the_cpu(py, mesh, points, chunk_size, |prepared, chunk| {
        Ok(inside_at_points(prepared, chunk))
    })
}
