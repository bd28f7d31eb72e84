//! Whole datasets from Python: `collidoscope dataset`'s run
//! (`collidoscope::dataset`), the GIL released, the results as dicts.

use std::path::PathBuf;

use collidoscope::dataset::progress_line::ProgressLine;
use collidoscope::dataset::setup::{inputs, results_name, start};
use collidoscope::dataset::{
    DatasetError, Manifest, MeshResult, Normalization, RunOptions, SampleParams, Shard, SignChoice,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::device::{Choice, choose};
use crate::{Failure, detached, json_to_python};

impl From<DatasetError> for Failure {
    fn from(e: DatasetError) -> Failure {
        match e {
            DatasetError::Param { .. } | DatasetError::Manifest(_) | DatasetError::Output(_) => {
                Failure::Value(e.to_string())
            }
            DatasetError::Io { .. } => Failure::Os(e.to_string()),
            _ => Failure::Runtime(e.to_string()),
        }
    }
}

/// The manifest: a path (folder, glob, list file) or a sequence of mesh
/// paths (`root`: where their output names start), and the path itself
/// when it is one.
fn manifest_of(
    manifest: &Bound<'_, PyAny>,
    root: Option<PathBuf>,
) -> PyResult<(Manifest, Option<PathBuf>)> {
    if manifest.is_instance_of::<PyList>() || manifest.is_instance_of::<PyTuple>() {
        let paths: Vec<PathBuf> = manifest
            .extract()
            .map_err(|_| PyValueError::new_err("manifest: a list must hold mesh paths"))?;
        let what = PathBuf::from("the manifest list");
        let m = Manifest::from_paths(paths, root, &what).map_err(Failure::from)?;
        return Ok((m, None));
    }
    let path: PathBuf = manifest.extract().map_err(|_| {
        PyValueError::new_err(
            "manifest: a folder, a glob or a list file (str or os.PathLike), or a list of mesh paths",
        )
    })?;
    if root.is_some() {
        return Err(PyValueError::new_err(
            "root: only with a list of mesh paths",
        ));
    }
    Ok((Manifest::read(&path).map_err(Failure::from)?, Some(path)))
}

/// `shard`: None, a pair `(i, N)` or the text `"i/N"`.
fn shard_of(shard: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Shard>> {
    let Some(s) = shard else { return Ok(None) };
    let text = match s.extract::<(i64, i64)>() {
        Ok((i, n)) => format!("{i}/{n}"),
        Err(_) => s
            .extract::<String>()
            .map_err(|_| PyValueError::new_err("shard: (i, N) or \"i/N\""))?,
    };
    text.parse()
        .map(Some)
        .map_err(|e: String| PyValueError::new_err(format!("shard: {e}")))
}

/// dataset(manifest, out, near=250000, uniform=25000, variances=(0.0025, 0.00025), pad=0.1, normalize="unit-sphere", sign="auto", seed=0, closest=False, normals=False, grid=None, report=False, shard=None, time_limit=None, backend=None, results=None, root=None, prefetch=2, progress=True)
///
/// Exact signed distances sampled from every mesh of a dataset, written
/// to ``out`` as ``collidoscope dataset`` writes them: per mesh
/// ``NAME.npz`` (``points`` (N, 3) float32, ``sdf`` (N,) float32, with
/// ``closest`` and ``normals`` when asked for, ``center`` (3,) and
/// ``scale`` () float64: ``world = points / scale + center``) and the
/// sidecar ``NAME.json``; a results manifest of one JSON line per mesh.
/// A rerun skips meshes whose files are complete (checksums verified)
/// and writes half-written ones again; a bad mesh is recorded and
/// skipped.
///
/// Parameters
/// ----------
/// manifest : str, os.PathLike or list of paths
///     A folder (every .obj/.ply/.stl/.off under it), a glob
///     (``"shapes/*/model.obj"``, ``**`` for any folders), a text file of
///     paths one a line, or a list of mesh paths. Output names keep each
///     mesh's path below the root (the folder, the glob's fixed part, the
///     list's deepest common folder, or ``root``).
/// out : str or os.PathLike
///     The output folder (created).
/// near, uniform : int
///     Points near the surface (area-weighted, displaced by a Gaussian)
///     and uniform in the padded bounding box, per mesh.
/// variances : sequence of float
///     Variances of the near points' Gaussian, in normalised units
///     (DeepSDF's 0.0025 and 0.00025); the near points are split evenly.
/// pad : float
///     The uniform box's padding, a fraction of the longest side.
/// normalize : {"unit-sphere", "unit-cube", "none"}
///     Bounding-box centre to the origin, then the farthest vertex at 1
///     or the longest side 1 ([-0.5, 0.5]^3).
/// sign : {"auto", "winding", "pseudo-normal"}
///     ``"auto"``: the winding number on the GPU (the GPU's only sign,
///     exact on every mesh), the mesh report's choice on the CPU.
/// seed : int
///     Each mesh's samples come from this and the mesh's name: one seed,
///     the same files, whatever the order, shard or machine.
/// closest, normals : bool
///     Also write each sample's closest surface point, and the field's
///     unit gradient.
/// grid : int or None
///     Also write the field on a grid of this many cells along the
///     longest side (``NAME.grid.npy`` + ``NAME.grid.json``).
/// report : bool
///     Also write the mesh report (``NAME.report.json``).
/// shard : (int, int), str or None
///     ``(i, N)`` or ``"i/N"``: only the meshes i, i+N, ... of the sorted
///     list.
/// time_limit : float or None
///     Seconds one mesh may take; past it the mesh stops and is recorded
///     as timed out.
/// backend : {None, "gpu", "cpu"}
///     None: the GPU when there is one, else the CPU with a warning.
/// results : str, os.PathLike, False or None
///     The results manifest (None: ``out/results.jsonl``, or
///     ``out/results-i-of-N.jsonl`` with a shard; False: none).
/// root : str, os.PathLike or None
///     With a list of paths: the folder output names start from.
/// prefetch : int
///     Meshes loaded and prepared ahead of the device.
/// progress : bool
///     Show the progress on stderr.
///
/// Returns
/// -------
/// list of dict
///     One per mesh, as the results manifest's lines: ``path``,
///     ``output``, ``status`` ("written", "skipped" or "failed"),
///     ``error``, ``timed_out``, counts, ``sign``, ``backend``, ``flags``
///     ("open", "inward", ...), ``timings_ms`` (load, prepare, gpu,
///     write).
#[pyfunction]
#[pyo3(signature = (manifest, out, near = 250000, uniform = 25000, variances = vec![0.0025, 0.00025], pad = 0.1, normalize = "unit-sphere", sign = "auto", seed = 0, closest = false, normals = false, grid = None, report = false, shard = None, time_limit = None, backend = None, results = None, root = None, prefetch = 2, progress = true))]
#[allow(clippy::too_many_arguments)]
pub fn dataset<'py>(
    py: Python<'py>,
    manifest: &Bound<'py, PyAny>,
    out: PathBuf,
    near: usize,
    uniform: usize,
    variances: Vec<f64>,
    pad: f64,
    normalize: &str,
    sign: &str,
    seed: u64,
    closest: bool,
    normals: bool,
    grid: Option<u32>,
    report: bool,
    shard: Option<&Bound<'py, PyAny>>,
    time_limit: Option<f64>,
    backend: Option<&str>,
    results: Option<&Bound<'py, PyAny>>,
    root: Option<PathBuf>,
    prefetch: usize,
    progress: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let normalization = Normalization::from_name(normalize).ok_or_else(|| {
        PyValueError::new_err(format!(
            "normalize: {normalize:?} is not 'unit-sphere', 'unit-cube' or 'none'"
        ))
    })?;
    let sign = SignChoice::from_name(sign).ok_or_else(|| {
        PyValueError::new_err(format!(
            "sign: {sign:?} is not 'auto', 'winding' or 'pseudo-normal'"
        ))
    })?;
    let params = SampleParams {
        near,
        uniform,
        variances,
        pad,
        normalization,
        sign,
        seed,
        closest,
        normals,
    };
    params.validate().map_err(Failure::from)?;
    if let Some(t) = time_limit
        && !(t.is_finite() && t > 0.0)
    {
        return Err(PyValueError::new_err(format!(
            "time_limit: {t} is not a positive number of seconds"
        )));
    }
    let shard = shard_of(shard)?;
    let results: Option<PathBuf> = match results {
        None => Some(out.join(results_name(shard))),
        Some(r) if r.extract::<bool>().ok() == Some(false) => None,
        Some(r) => Some(r.extract().map_err(|_| {
            PyValueError::new_err("results: a path, None (out/results.jsonl) or False (none)")
        })?),
    };
    let choice = choose(py, backend)?;
    let (manifest, source) = manifest_of(manifest, root)?;
    let opts = RunOptions {
        params,
        grid,
        report,
        time_limit,
        results: results.clone(),
        prefetch,
        inputs: inputs(source.as_deref()),
    };
    let summary = detached(py, || {
        let jobs = start(
            &manifest,
            source.as_deref(),
            &out,
            shard,
            seed,
            results.as_deref(),
        )?;
        let mut line = progress.then(|| ProgressLine::new(jobs.len()));
        let mut on_result = |r: &MeshResult| {
            if let Some(l) = &mut line {
                l.advance(r);
            }
        };
        let summary = match choice {
            Choice::Gpu(g) => g.exclusive(|stage| {
                collidoscope::dataset::run(&jobs, &opts, Some(stage), &mut on_result)
            }),
            Choice::Cpu => collidoscope::dataset::run(&jobs, &opts, None, &mut on_result),
        }?;
        Ok(summary)
    })?;
    let rows = serde_json::to_value(&summary.results)
        .map_err(|e| Failure::Runtime(format!("results: {e}")))?;
    json_to_python(py, &rows)
}

/// dataset_meshes(manifest) -> tuple[str, list[str]]
///
/// The meshes ``dataset(manifest, ...)`` would take, sorted, and the
/// root their output names start from (see ``dataset``): what
/// ``collidoscope.ray.dataset`` spreads over a cluster.
#[pyfunction]
pub fn dataset_meshes(manifest: &Bound<'_, PyAny>) -> PyResult<(String, Vec<String>)> {
    let (m, _) = manifest_of(manifest, None)?;
    Ok((
        m.root.display().to_string(),
        m.meshes.iter().map(|p| p.display().to_string()).collect(),
    ))
}
