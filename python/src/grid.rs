//! `collidoscope.sdf_grid`: the field on a uniform grid, computed by
//! `collidoscope::stages::sdf::compute` and written, when asked, by the
//! same `write_field` as `collidoscope sdf`.

use std::path::PathBuf;

use collidoscope::progress::Progress;
use collidoscope::stages::sdf::export::{
    FieldSource, sidecar, sidecar_path, write_field, write_values,
};
use collidoscope::stages::sdf::{Backend, SdfParams, SignMode, compute};
use numpy::PyArrayMethods;
use pyo3::prelude::*;

use crate::device::{Choice, choose};
use crate::mesh::Mesh;
use crate::queries::{check_sign_name, sign_mode};
use crate::timings::Recorder;
use crate::{Failure, arrays, detached};

/// A signed distance field on a uniform grid (what ``sdf_grid`` returns).
///
/// Attributes
/// ----------
/// values : numpy.ndarray, shape (nz, ny, nx), float32
///     Signed distance at each cell centre, negative inside, indexed
///     ``values[k, j, i]`` (axis order ``"zyx"``, as ``collidoscope sdf``
///     writes it): cell (i, j, k) lies at ``origin + (i, j, k) * cell_size``.
/// origin : tuple[float, float, float]
///     World position of the centre of cell (0, 0, 0).
/// cell_size : float
///     Spacing of the cubic cells.
/// axis_order : str
///     ``"zyx"``.
/// band_world : float or None
///     Narrow band's half-width in world units: cells farther than it hold
///     ``+-band_world``. None: exact everywhere.
/// sign : str
///     The sign mode used (``"pseudo-normal"`` or ``"winding"``).
/// backend : str
///     ``"gpu"`` or ``"cpu"``.
/// info : dict
///     The JSON sidecar ``collidoscope sdf`` writes beside the .npy (mesh
///     hash, timings, adapter, counts).
#[pyclass(frozen, module = "collidoscope")]
pub struct Grid {
    #[pyo3(get)]
    pub values: Py<PyAny>,
    #[pyo3(get)]
    pub origin: (f32, f32, f32),
    #[pyo3(get)]
    pub cell_size: f32,
    #[pyo3(get)]
    pub axis_order: &'static str,
    #[pyo3(get)]
    pub band_world: Option<f32>,
    #[pyo3(get)]
    pub sign: &'static str,
    #[pyo3(get)]
    pub backend: &'static str,
    #[pyo3(get)]
    pub info: Py<PyAny>,
}

#[pymethods]
impl Grid {
    /// cell_centers() -> numpy.ndarray
    ///
    /// World positions of the cell centres, shape (nz, ny, nx, 3), float32,
    /// in the order of ``values``.
    fn cell_centers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let shape: Vec<usize> = self.values.bind(py).getattr("shape")?.extract()?;
        let (o, h) = (self.origin, self.cell_size);
        let [nz, ny, nx] = [shape[0], shape[1], shape[2]];
        let mut flat = Vec::with_capacity(nz * ny * nx * 3);
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..nx {
                    flat.extend([o.0 + i as f32 * h, o.1 + j as f32 * h, o.2 + k as f32 * h]);
                }
            }
        }
        Ok(arrays::array1(py, flat)
            .reshape([nz, ny, nx, 3])?
            .into_any())
    }

    /// save(path)
    ///
    /// Writes the field as ``path`` (.npy, float32, zyx) with ``info`` as
    /// its JSON sidecar beside it (``path`` with extension .json, the
    /// .npy's checksum recorded), as ``sdf_grid(..., out=path)`` does: the
    /// files ``collidoscope check`` and the viewer read. Raises OSError
    /// when they cannot be written.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let values = arrays::values(self.values.bind(py), "values")?;
        let shape = values.shape();
        let flat = values.to_f32(false);
        let text: String = py
            .import("json")?
            .call_method1("dumps", (self.info.bind(py),))?
            .extract()?;
        let meta: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| Failure::Runtime(e.to_string()))?;
        detached(py, || {
            write_values(&path, &shape, &flat, meta)
                .map_err(|e| Failure::Os(format!("cannot write {}: {e}", path.display())))
        })
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let shape = self
            .values
            .bind(py)
            .getattr("shape")
            .map(|s| s.to_string())
            .unwrap_or_default();
        format!(
            "Grid(shape {shape} zyx, origin {:?}, cell_size {}, sign {}, backend {})",
            self.origin, self.cell_size, self.sign, self.backend
        )
    }
}

/// sdf_grid(mesh, res=64, pad=0.1, band=None, sign="auto", backend=None, out=None) -> Grid
///
/// The exact signed distance field of ``mesh`` on a uniform grid, as
/// ``collidoscope sdf`` computes it: the mesh's bounding box grown by
/// ``pad`` times its longest side on every side, ``res`` cubic cells along
/// the longest axis, values at cell centres.
///
/// Parameters
/// ----------
/// mesh : Mesh
/// res : int
///     Cells along the longest axis, 8 to 512.
/// pad : float
///     Padding on every side, a fraction of the longest side (0 to 10).
/// band : float or None
///     Narrow band: exact distances only within this many cells (>= 1) of
///     the surface; farther cells hold ``+-band * cell_size`` with the
///     right sign. None: exact everywhere.
/// sign : {"auto", "winding", "pseudo-normal"}
///     As in ``signed_distance``.
/// backend : {None, "gpu", "cpu"}
///     As in ``signed_distance``; both give the same field (the CPU's and
///     the CLI's ``--backend cpu`` bit for bit).
/// out : str or os.PathLike or None
///     Also write the field as ``out`` (.npy, float32, zyx) with its JSON
///     sidecar beside it (``out`` with extension .json), exactly as
///     ``collidoscope sdf --out`` writes them.
///
/// Returns a ``Grid``. Raises ValueError for parameters out of range.
#[pyfunction]
#[pyo3(signature = (mesh, res = 64, pad = 0.1, band = None, sign = "auto", backend = None, out = None))]
#[allow(clippy::too_many_arguments)]
pub fn sdf_grid<'py>(
    py: Python<'py>,
    mesh: &Bound<'py, Mesh>,
    res: u32,
    pad: f32,
    band: Option<f32>,
    sign: &str,
    backend: Option<&str>,
    out: Option<PathBuf>,
) -> PyResult<Grid> {
    check_sign_name(sign)?;
    let mut params = SdfParams {
        resolution: res,
        padding: pad,
        band,
        sign_mode: SignMode::Winding,
    };
    params.validate().map_err(Failure::from)?;
    if let Some(out) = &out {
        collidoscope::io::check_targets(&[out, &sidecar_path(out)])
            .map_err(|e| Failure::Os(format!("out: {e}")))?;
    }
    let choice = choose(py, backend)?;
    let mesh = mesh.get();
    let prepared = mesh.prepared(py)?;
    params.sign_mode = sign_mode(sign, &prepared)?;
    let mut timings = Recorder::start("sdf_grid");
    let (field, adapter) = detached(py, || {
        let progress = Progress::default();
        let (field, adapter) = match choice {
            Choice::Gpu(gpu) => (
                gpu.exclusive(|stage| {
                    compute(&prepared, &params, Backend::Gpu, Some(stage), &progress)
                })?,
                Some(gpu.adapter.clone()),
            ),
            Choice::Cpu => (
                compute(&prepared, &params, Backend::CpuFast, None, &progress)?,
                None,
            ),
        };
        Ok((field, adapter))
    })?;
    timings.add(
        field
            .timings
            .phases
            .iter()
            .map(|p| (p.name.as_str(), p.gpu_ms)),
    );
    let name = mesh.raw().name.clone();
    let source = FieldSource {
        mesh_file: &name,
        cache: "off",
        adapter,
    };
    if let Some(out) = &out {
        detached(py, || {
            write_field(out, &field, &prepared, &source)
                .map_err(|e| Failure::Os(format!("cannot write {}: {e}", out.display())))
        })?;
    }
    let info = crate::json_to_python(py, &sidecar(&field, &prepared, &source))?;
    let d = field.grid.dims;
    let band_world = field.band_world();
    timings.finish(choice.name(), field.values.len());
    let values = arrays::array1(py, field.values)
        .reshape([d.z as usize, d.y as usize, d.x as usize])?
        .into_any();
    let o = field.grid.origin;
    Ok(Grid {
        values: values.unbind(),
        origin: (o.x, o.y, o.z),
        cell_size: field.grid.cell_size,
        axis_order: "zyx",
        band_world,
        sign: field.params.sign_mode.name(),
        backend: choice.name(),
        info: info.unbind(),
    })
}
