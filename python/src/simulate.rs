//! `collidoscope.simulate`: the multi-body pipeline headless (broad phase,
//! narrow phase, response every frame; `collidoscope::sim::simulate`, the
//! calls `collidoscope simulate` makes), the trajectory as numpy arrays.

use std::path::{Path, PathBuf};

use collidoscope::mesh::MeshError;
use collidoscope::sim::simulate::scene_file::{Frame, SceneFile, run_frames};
use collidoscope::sim::simulate::{BroadPhase, FieldParams, Pipeline, PipelineError};
use collidoscope::stages::collide::ColliderParams;
use collidoscope::stages::sampling::SamplingParams;
use collidoscope::stages::sdf::SdfParams;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::device::{Choice, choose};
use crate::{Failure, arrays, detached};

impl From<PipelineError> for Failure {
    fn from(e: PipelineError) -> Failure {
        match e {
            PipelineError::BadBody(..) | PipelineError::BadGround => {
                Failure::Value(format!("scene: {e}"))
            }
            _ => Failure::Runtime(e.to_string()),
        }
    }
}

/// `default=` of `json.dumps`: numpy arrays and numbers as lists and numbers.
#[pyfunction]
fn numpy_to_json<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if obj.hasattr("tolist")? {
        return obj.call_method0("tolist");
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "{} is not JSON",
        obj.get_type().name()?
    )))
}

/// The scene: a dict (mesh paths relative to the working directory) or
/// the path of a scene file (mesh paths relative to it).
fn read_scene(scene: &Bound<'_, PyAny>) -> PyResult<SceneFile> {
    let py = scene.py();
    let is_path =
        scene.is_instance_of::<PyString>() || scene.hasattr("__fspath__").unwrap_or(false);
    let parsed = if is_path {
        let path: PathBuf = scene.extract()?;
        detached(py, || {
            if !path.is_file() {
                return Err(Failure::Os(format!(
                    "scene: {} is not a file",
                    path.display()
                )));
            }
            SceneFile::read(&path).map_err(|e| Failure::Value(format!("scene: {e}")))
        })?
    } else {
        let dumps = py.import("json")?.getattr("dumps")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("default", wrap_pyfunction!(numpy_to_json, py)?)?;
        let text: String = dumps
            .call((scene,), Some(&kwargs))
            .map_err(|e| {
                PyValueError::new_err(format!(
                    "scene: expected a dict in the scene file's form or a path ({e})"
                ))
            })?
            .extract()?;
        SceneFile::parse(&text, Path::new("."))
            .map_err(|e| PyValueError::new_err(format!("scene: {e}")))?
    };
    Ok(parsed)
}

/// simulate(scene, frames, *, backend=None, res=32, threshold=0.0, contact_threshold=0.0, broad="sweep", image_res=256) -> dict
///
/// Runs the collision pipeline (broad phase, SDF narrow phase, impulse
/// response) on a scene for ``frames`` frames: ``collidoscope simulate``
/// as arrays.
///
/// Parameters
/// ----------
/// scene : dict or path
///     The scene file's content as a dict, or its path::
///
///         {"timestep": 1/60, "substeps": 1, "gravity": [0, -9.81, 0],
///          "ground": {"point": [0, 0, 0], "normal": [0, 1, 0]},
///          "restitution": 0.2, "friction": 0.5,
///          "bodies": [{"mesh": "a.obj", "position": [0, 1, 0],
///                      "orientation": [0, 0, 0, 1], "velocity": [0, 0, 0],
///                      "angular_velocity": [0, 0, 0], "density": 1000,
///                      "static": False, "exact": False}]}
///
///     ``timestep``, ``bodies`` and each body's ``mesh`` are required.
///     Mesh paths are relative to the scene file, or to the working
///     directory for a dict; numpy arrays may stand for lists. Unknown
///     fields are refused (ValueError naming the field).
/// frames : int
/// backend : {None, "gpu", "cpu"}
///     Where the broad and narrow phases run. ``"gpu"``: the resident GPU
///     step (with ``broad="sweep"`` and no exact body; otherwise GPU
///     detection read back to the CPU solver). None: the GPU when there is
///     one, else the CPU with a RuntimeWarning.
/// res : int
///     Field cells along each mesh's longest axis (8-512).
/// threshold : float
///     Edge sampling threshold (world units; the cell diagonal is the
///     minimum).
/// contact_threshold : float
///     Samples closer than this to the other surface are contacts (≥ 0).
/// broad : {"sweep", "image", "image-stencil"}
///     Sort-and-sweep over the bodies' boxes, or the interference test's
///     compute rays or stencil passes (image space).
/// image_res : int
///     Pixels along each side of the image-space views (16-4096).
///
/// Returns
/// -------
/// dict
///     Per frame f (after its step) and body b: ``t`` (F,) float64
///     seconds; ``contacts`` (F,) int64; ``position`` (F, B, 3) float32
///     and ``orientation`` (F, B, 4) float32 quaternions ``(x, y, z, w)``
///     -- the pose of each body's mesh in its own coordinates, as the
///     CLI's trajectory; ``velocity`` and ``angular_velocity`` (F, B, 3)
///     float32 (of the centre of mass); ``energy`` (F,) float64, kinetic
///     plus potential energy of the moving bodies; ``backend`` and
///     ``broad``: the names used.
#[pyfunction]
#[pyo3(signature = (scene, frames, *, backend = None, res = 32, threshold = 0.0, contact_threshold = 0.0, broad = "sweep", image_res = 256))]
#[allow(clippy::too_many_arguments)]
pub fn simulate<'py>(
    py: Python<'py>,
    scene: &Bound<'py, PyAny>,
    frames: i64,
    backend: Option<&str>,
    res: u32,
    threshold: f32,
    contact_threshold: f32,
    broad: &str,
    image_res: u32,
) -> PyResult<Bound<'py, PyDict>> {
    let frames = usize::try_from(frames)
        .map_err(|_| PyValueError::new_err(format!("frames: {frames} is negative")))?;
    let broad = BroadPhase::parse(broad).ok_or_else(|| {
        PyValueError::new_err(format!(
            "broad: {broad:?} is not 'sweep', 'image' or 'image-stencil'"
        ))
    })?;
    if !(16..=4096).contains(&image_res) {
        return Err(PyValueError::new_err(format!(
            "image_res: {image_res} is outside 16..=4096"
        )));
    }
    ColliderParams::checked_contact_threshold(contact_threshold)
        .map_err(|e| PyValueError::new_err(format!("contact_threshold: {e}")))?;
    if !(threshold.is_finite() && threshold >= 0.0) {
        return Err(PyValueError::new_err(format!(
            "threshold: {threshold} is not a finite number ≥ 0"
        )));
    }
    let fields = FieldParams {
        sdf: SdfParams {
            resolution: res,
            ..SdfParams::default()
        },
        sampling: SamplingParams {
            threshold,
            ..SamplingParams::default()
        },
    };
    fields.sdf.validate().map_err(Failure::from)?;
    let scene = read_scene(scene)?;
    let choice = choose(py, backend)?;
    let params = scene.params_for(
        matches!(choice, Choice::Gpu(_)),
        broad,
        image_res,
        contact_threshold,
    );
    let mut problems = Vec::new();
    let (rows, energy, bodies) = detached(py, || {
        let mut meshes = Vec::with_capacity(scene.meshes.len());
        for path in &scene.meshes {
            let (mesh, p) =
                collidoscope::mesh::load_obj_merged_checked(path).map_err(|e| match e {
                    MeshError::Io { .. } => Failure::Os(format!("scene: {e}")),
                    e => Failure::Value(format!("scene: {}: {e}", path.display())),
                })?;
            problems.extend(p.into_iter().map(|p| format!("{}: {p}", path.display())));
            meshes.push(mesh);
        }
        let ctx = match choice {
            Choice::Gpu(gpu) => Some(&gpu.ctx),
            Choice::Cpu => None,
        };
        let mut pipeline = Pipeline::new(&meshes, &scene.bodies, scene.ground, &fields, ctx)?;
        for (i, &exact) in scene.exact.iter().enumerate() {
            pipeline.set_exact(i, exact);
        }
        let mut rows = Vec::with_capacity(frames);
        let mut energy = Vec::with_capacity(frames);
        run_frames(
            &mut pipeline,
            &params,
            frames,
            |p, frame, states, contacts| {
                rows.push(Frame::at(p, frame, states, contacts, params.timestep));
                energy.push(p.energy_of(states, params.gravity));
            },
        )?;
        Ok((rows, energy, pipeline.body_count()))
    })?;
    for p in problems {
        crate::warn(py, "UserWarning", &p)?;
    }
    let f = rows.len();
    let column =
        |n: usize,
         get: &dyn Fn(&collidoscope::sim::simulate::scene_file::BodyFrame) -> Vec<f32>| {
            let flat: Vec<f32> = rows
                .iter()
                .flat_map(|r| r.bodies.iter().flat_map(get))
                .collect();
            arrays::array_shaped(py, flat, &[f, bodies, n])
        };
    let out = PyDict::new(py);
    let t: Vec<f64> = rows.iter().map(|r| r.t).collect();
    out.set_item("t", arrays::array1(py, t))?;
    let contacts: Vec<i64> = rows.iter().map(|r| r.contacts as i64).collect();
    out.set_item("contacts", arrays::array1(py, contacts))?;
    out.set_item("position", column(3, &|b| b.position.to_vec())?)?;
    out.set_item("orientation", column(4, &|b| b.orientation.to_vec())?)?;
    out.set_item("velocity", column(3, &|b| b.velocity.to_vec())?)?;
    out.set_item(
        "angular_velocity",
        column(3, &|b| b.angular_velocity.to_vec())?,
    )?;
    out.set_item("energy", arrays::array1(py, energy))?;
    out.set_item("backend", params.backend.name())?;
    out.set_item("broad", broad.name())?;
    Ok(out)
}
