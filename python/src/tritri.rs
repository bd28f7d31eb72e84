//! `collidoscope.tritri`: the exact triangle–triangle test of two posed
//! meshes (`collidoscope::stages::tritri::query`, the call
//! `collidoscope tritri --all-pairs` makes), every colliding pair with its
//! intersection segment as numpy arrays.

use collidoscope::stages::tritri::{Backend, Predicate, TritriError, TritriParams, query};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::device::{Choice, choose};
use crate::mesh::Mesh;
use crate::{Failure, arrays, detached, poses};

impl From<TritriError> for Failure {
    fn from(e: TritriError) -> Failure {
        match e {
            TritriError::Mesh(_) | TritriError::Pose(_) => Failure::Value(e.to_string()),
            TritriError::BvhTooDeep { .. } | TritriError::TooLarge(_) => {
                Failure::Runtime(format!("{e}; backend='cpu' has no such limit"))
            }
            _ => Failure::Runtime(e.to_string()),
        }
    }
}

/// tritri(a, pose_a, b, pose_b, *, all_pairs=True, backend=None, predicate="exact") -> dict
///
/// Which triangles of mesh ``a`` at ``pose_a`` intersect which of mesh
/// ``b`` at ``pose_b``, and along which segment: ``collidoscope tritri
/// --all-pairs`` as arrays. Triangles are closed: touching at a vertex or
/// an edge counts, and so do coplanar overlaps.
///
/// Parameters
/// ----------
/// a, b : Mesh
/// pose_a, pose_b : pose or None
///     Where each mesh is: None (where its vertices put it); a 4×4
///     rigid matrix ``world_from_object`` (rotation and translation, the
///     translation in the last column; scale, shear or reflection is a
///     ValueError); a pair ``(translation, quaternion)`` of 3 and 4
///     numbers, the quaternion ``(x, y, z, w)`` (normalised); or 3 numbers
///     (a translation) or 7 (translation then quaternion), as the CLI's
///     ``--pose-a``. A mesh is rotated about its own origin, then moved.
/// all_pairs : bool
///     True: every colliding pair with its segment. False: stop at the
///     first (``collides`` only; ``pairs`` empty), faster when only the
///     answer matters.
/// backend : {None, "gpu", "cpu"}
///     ``"gpu"``: one GPU thread per triangle of ``a`` traversing ``b``'s
///     BVH, in float32. ``"cpu"``: the exact predicate in float64 and
///     128-bit integers, pruned by the BVH, on all cores. None: the GPU
///     when there is one, else the CPU with a RuntimeWarning. They agree
///     except on pairs within float32 rounding of touching (counted in
///     ``near_touching`` by the CPU).
/// predicate : {"exact", "tutorial"}
///     The pair test: Guigue–Devillers (``"exact"``) or the OpenCL
///     tutorial's five-edge test (misses coplanar overlaps; kept for
///     comparison).
///
/// Returns
/// -------
/// dict
///     ``collides`` (bool); ``pairs``: (K, 2) int64, a triangle of ``a``
///     and one of ``b`` (indices into ``a.faces`` and ``b.faces``),
///     sorted; ``segments``: (K, 2, 3) float32, each pair's intersection
///     segment (its two end points, world coordinates); ``near_touching``:
///     int, pairs whose float32 answer could differ from the exact one
///     (CPU), or None (GPU); ``backend`` and ``predicate``: the names
///     used.
///
/// Example
/// -------
/// >>> hit = cs.tritri(cube, np.eye(4), cube, ([0.5, 0.5, 0.5], [0, 0, 0, 1]))
/// >>> hit["collides"], hit["pairs"].shape, hit["segments"].shape
#[pyfunction]
#[pyo3(signature = (a, pose_a, b, pose_b, *, all_pairs = true, backend = None, predicate = "exact"))]
#[allow(clippy::too_many_arguments)]
pub fn tritri<'py>(
    py: Python<'py>,
    a: &Bound<'py, Mesh>,
    pose_a: Option<&Bound<'py, PyAny>>,
    b: &Bound<'py, Mesh>,
    pose_b: Option<&Bound<'py, PyAny>>,
    all_pairs: bool,
    backend: Option<&str>,
    predicate: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let predicate = match predicate {
        "exact" => Predicate::Exact,
        "tutorial" => Predicate::Tutorial,
        other => {
            return Err(PyValueError::new_err(format!(
                "predicate: {other:?} is not 'exact' or 'tutorial'"
            )));
        }
    };
    let pose_a = poses::pose(pose_a, "pose_a")?;
    let pose_b = poses::pose(pose_b, "pose_b")?;
    let choice = choose(py, backend)?;
    let (a, b) = (a.get(), b.get());
    let params = TritriParams {
        all_pairs,
        predicate,
    };
    let r = detached(py, || {
        let (ma, mb) = (a.tri_model("a")?, b.tri_model("b")?);
        let r = match choice {
            Choice::Cpu => query(&ma, pose_a, &mb, pose_b, &params, Backend::Cpu, None),
            Choice::Gpu(gpu) => gpu.locked(|| {
                let stage = Some(gpu.tritri());
                query(&ma, pose_a, &mb, pose_b, &params, Backend::Gpu, stage)
            }),
        };
        Ok(r?)
    })?;
    let k = r.contacts.len();
    let pairs: Vec<i64> = r.pairs().into_iter().flatten().map(i64::from).collect();
    let segments: Vec<f32> = r
        .contacts
        .iter()
        .flat_map(|c| c.segment)
        .flat_map(|p| p.to_array())
        .collect();
    let out = PyDict::new(py);
    out.set_item("collides", r.collides)?;
    out.set_item("pairs", arrays::array_shaped(py, pairs, &[k, 2])?)?;
    out.set_item("segments", arrays::array_shaped(py, segments, &[k, 2, 3])?)?;
    out.set_item("near_touching", r.near_touching)?;
    out.set_item("backend", choice.name())?;
    out.set_item("predicate", predicate.name())?;
    Ok(out)
}
