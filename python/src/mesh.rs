//! `collidoscope.Mesh` and `collidoscope.load`: a triangle mesh as the
//! caller gave it, and its prepared form (weld, repairs, pseudo-normals,
//! BVH, winding-number tree) built on the first query and kept, so
//! repeated queries on one mesh pay the preparation once.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use collidoscope::mesh::{Mesh as RawMesh, MeshError, MeshReport, PreparedMesh};
use collidoscope::sim::radial::character::gltf_mesh::load_gltf_mesh;
use collidoscope::stages::sdf::default_sign_mode;
use collidoscope::stages::tritri::TriModel;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::json;

use crate::{Failure, arrays, detached};

/// Mesh(vertices, faces, name="mesh")
///
/// A triangle mesh.
///
/// Parameters
/// ----------
/// vertices : array_like, shape (V, 3), float32 or float64
///     Vertex positions (any memory layout; float64 is rounded to float32,
///     the precision of every query).
/// faces : array_like, shape (F, 3), integer (int32, int64, uint32, ...)
///     Vertex indices of each triangle, counted from 0. The winding
///     (counter-clockwise seen from outside) gives the pseudo-normal sign;
///     the winding-number sign needs no orientation to be right.
/// name : str
///     Shown in reports and messages.
///
/// Raises ValueError for empty arrays, wrong shapes or dtypes, non-finite
/// vertices and indices outside the vertices.
///
/// The mesh is prepared (welded, duplicate faces cancelled, inward shells
/// flipped, BVH and winding-number tree built) on the first query and the
/// result kept on the object: later queries on the same Mesh skip it.
/// ``report()`` tells what the preparation found.
#[pyclass(frozen, module = "collidoscope")]
pub struct Mesh {
    raw: RawMesh,
    prepared: Mutex<Option<Arc<PreparedMesh>>>,
    /// Triangles and BVH of the triangle–triangle test, made on its first use.
    tri_model: OnceLock<Result<Arc<TriModel>, String>>,
}

impl Mesh {
    fn from_raw(raw: RawMesh) -> Result<Mesh, Failure> {
        raw.validate().map_err(|e| Failure::Value(e.to_string()))?;
        Ok(Mesh {
            raw,
            prepared: Mutex::new(None),
            tri_model: OnceLock::new(),
        })
    }

    /// The prepared mesh, built (with the GIL released) on first use.
    pub fn prepared(&self, py: Python<'_>) -> PyResult<Arc<PreparedMesh>> {
        detached(py, || self.prepare())
    }

    /// [`Mesh::prepared`] without the GIL.
    fn prepare(&self) -> Result<Arc<PreparedMesh>, Failure> {
        let mut slot = self.prepared.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = slot.as_ref() {
            return Ok(p.clone());
        }
        let prepared = PreparedMesh::new(&self.raw)
            .map(Arc::new)
            .map_err(|e| Failure::Value(format!("mesh: {e}")))?;
        *slot = Some(prepared.clone());
        Ok(prepared)
    }

    /// The triangle–triangle model (without the GIL: a BVH build).
    pub(crate) fn tri_model(&self, name: &str) -> Result<Arc<TriModel>, Failure> {
        self.tri_model
            .get_or_init(|| {
                TriModel::new(&self.raw)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(|e| Failure::Value(format!("{name}: {e}")))
    }

    /// The mesh as the caller gave it.
    pub fn raw(&self) -> &RawMesh {
        &self.raw
    }
}

#[pymethods]
impl Mesh {
    #[new]
    #[pyo3(signature = (vertices, faces, name = "mesh"))]
    fn new(
        py: Python<'_>,
        vertices: &Bound<'_, PyAny>,
        faces: &Bound<'_, PyAny>,
        name: &str,
    ) -> PyResult<Mesh> {
        let rows = arrays::rows3(vertices, "vertices")?;
        let view = rows.view();
        if view.len() == 0 {
            return Err(PyValueError::new_err("vertices: the mesh has no vertices"));
        }
        detached(py, || view.check_finite("vertices"))?;
        let positions = view.chunk(0..view.len());
        let triangles = arrays::faces(faces, "faces", positions.len())?;
        if triangles.is_empty() {
            return Err(PyValueError::new_err("faces: the mesh has no faces"));
        }
        let raw = RawMesh::new(name, positions, triangles);
        raw.validate()
            .map_err(|e| PyValueError::new_err(format!("faces: {e}")))?;
        Ok(Mesh::from_raw(raw)?)
    }

    /// Vertex positions, an (V, 3) float32 array (a copy).
    #[getter]
    fn vertices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rows = self.raw.positions.iter().map(|p| p.to_array()).collect();
        arrays::array_n3(py, rows)
    }

    /// Triangles, an (F, 3) int64 array of vertex indices (a copy).
    #[getter]
    fn faces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rows = self
            .raw
            .triangles
            .iter()
            .map(|t| t.map(i64::from))
            .collect();
        arrays::array_n3(py, rows)
    }

    /// The mesh's name (the file's path for a loaded mesh).
    #[getter]
    fn name(&self) -> String {
        self.raw.name.clone()
    }

    /// The geometry's hash, as field sidecars record it (``mesh_hash``):
    /// xxh3-64 of the vertex and face arrays, in hex. The name takes no
    /// part; the same file loaded twice hashes alike.
    #[getter]
    fn content_hash(&self) -> String {
        format!("{:016x}", self.raw.content_hash())
    }

    /// report() -> dict
    ///
    /// The mesh report ``collidoscope info --json`` prints, as a dict:
    /// ``triangles``, ``vertices_before_weld``/``vertices_after_weld``,
    /// ``bounds_min``/``bounds_max``, ``boundary_edges`` and
    /// ``non_manifold_edges``, ``degenerate_faces``, ``duplicate_faces``
    /// and ``opposite_duplicate_pairs``, ``closed_shell_volumes`` (the
    /// signed volume of each closed shell; negative faces inward) and
    /// ``inward_shells``, ``connected_components``, ``closed``,
    /// ``consistently_oriented``, ``self_intersecting_pairs`` and
    /// ``pseudo_normal_sign_trusted``; and beside them:
    ///
    /// * ``sign`` -- the sign ``sign="auto"`` uses on this mesh
    ///   (``"pseudo-normal"`` or ``"winding"``), ``sign_reason`` -- why;
    /// * ``warnings`` -- one sentence per problem found;
    /// * ``repairs`` -- what the prepared mesh left out or flipped
    ///   (``degenerate_skipped``, ``duplicates_removed``,
    ///   ``shells_flipped``), or None for a mesh that cannot be prepared
    ///   (every face of zero area, or beyond float32's range).
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value = detached(py, || {
            let prepared = self.prepare().ok();
            let report = match &prepared {
                Some(p) => p.report.clone(),
                None => MeshReport::analyze(&self.raw),
            };
            let (sign, why) = default_sign_mode(&report);
            // Through the text `info --json` prints, so float32 numbers
            // keep their shortest form (-0.09469, not -0.0946900025).
            let mut value: serde_json::Value = serde_json::to_string(&report)
                .and_then(|text| serde_json::from_str(&text))
                .map_err(|e| Failure::Runtime(e.to_string()))?;
            value["sign"] = json!(sign.name());
            value["sign_reason"] = json!(why);
            value["warnings"] = json!(report.warnings());
            value["repairs"] = json!(prepared.map(|p| json!({
                "degenerate_skipped": p.degenerate_skipped,
                "duplicates_removed": p.duplicates_removed,
                "shells_flipped": p.shells_flipped,
            })));
            Ok(value)
        })?;
        crate::json_to_python(py, &value)
    }

    fn __repr__(&self) -> String {
        format!(
            "Mesh({:?}: {} vertices, {} faces)",
            self.raw.name,
            self.raw.positions.len(),
            self.raw.triangles.len()
        )
    }
}

/// load(path) -> Mesh
///
/// Loads a mesh file as one Mesh: OBJ (all its objects merged), PLY
/// (ASCII or binary), STL (ASCII or binary) or OFF, as every
/// ``collidoscope`` subcommand reads them, or a glTF 2.0
/// file (``.glb``, ``.gltf``): every mesh of its default scene placed by
/// its node's transform, merged (a skinned mesh in its bind pose).
///
/// OBJ face statements that cannot be loaded as written (a face of fewer
/// than 3 vertices, a file cut off inside a face) are skipped with a
/// ``UserWarning`` each. Raises OSError when the file cannot be read and
/// ValueError when it is not a mesh collidoscope can use (no triangles,
/// indices out of range, non-finite coordinates).
#[pyfunction]
pub fn load(py: Python<'_>, path: PathBuf) -> PyResult<Mesh> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let (raw, problems) = detached(py, || {
        if matches!(extension.as_deref(), Some("glb" | "gltf")) {
            use collidoscope::sim::radial::character::gltf::GltfError;
            return load_gltf_mesh(&path)
                .map(|m| (m, Vec::new()))
                .map_err(|e| match e {
                    GltfError::Read { .. } => Failure::Os(e.to_string()),
                    e => Failure::Value(format!("{}: {e}", path.display())),
                });
        }
        collidoscope::mesh::load_file_merged(&path).map_err(|e| match e {
            MeshError::Io { .. } => Failure::Os(e.to_string()),
            e => Failure::Value(e.to_string()),
        })
    })?;
    for p in problems {
        crate::warn(py, "UserWarning", &format!("{}: {p}", path.display()))?;
    }
    Ok(Mesh::from_raw(raw)?)
}
