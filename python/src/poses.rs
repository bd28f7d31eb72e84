//! Poses from Python: where a mesh is placed in the world, as the CLI's
//! `--pose-a`/`--poses` values place it (rotate about the mesh's own
//! origin, then translate).
//!
//! A pose is any of
//!
//! * `None`: the mesh where its vertices put it;
//! * a 4×4 matrix (`world_from_object`, column vectors: the translation in
//!   the last column) that is a rotation and a translation: scale, shear
//!   and reflection are refused (the stages move rigid bodies);
//! * a pair `(translation, quaternion)`: 3 numbers and 4 (`x, y, z, w`,
//!   normalised when used);
//! * 3 numbers (a translation) or 7 (translation then quaternion), the
//!   CLI's `tx,ty,tz[,qx,qy,qz,qw]`.
//!
//! The matrix's rotation becomes a quaternion in float64, then both are
//! float32, as the CLI reads them.

use collidoscope::stages::tritri::Pose;
use glam::{DMat3, DQuat, DVec3, Quat, Vec3};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// How far a matrix may be from rigid (rounding of a float32 rotation).
const RIGID_TOLERANCE: f64 = 1e-4;

fn bad(name: &str, what: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{name}: {what}"))
}

/// `obj` as float64 numbers with the given shape (`numpy.asarray`).
fn numbers(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<(Vec<usize>, Vec<f64>)> {
    let numpy = obj.py().import("numpy")?;
    let array = numpy
        .call_method1("asarray", (obj, "float64"))
        .map_err(|e| bad(name, format!("cannot be read as numbers: {e}")))?;
    let shape: Vec<usize> = array.getattr("shape")?.extract()?;
    let flat: Vec<f64> = array
        .call_method0("ravel")?
        .call_method0("tolist")?
        .extract()?;
    if flat.iter().any(|v| !v.is_finite()) {
        return Err(bad(name, "has values that are not finite (NaN or inf)"));
    }
    Ok((shape, flat))
}

/// The pose `obj` describes (module docs); `name` is the argument's name
/// in errors.
pub fn pose(obj: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Pose> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Pose::IDENTITY);
    };
    // A pair of sequences, not two numbers.
    let is_pair = (obj.is_instance_of::<PyTuple>() || obj.is_instance_of::<PyList>())
        && obj.len()? == 2
        && obj.get_item(0)?.hasattr("__len__")?;
    let pose = if is_pair {
        let (_, t) = numbers(&obj.get_item(0)?, &format!("{name}[0] (translation)"))?;
        let (_, q) = numbers(&obj.get_item(1)?, &format!("{name}[1] (quaternion)"))?;
        if t.len() != 3 || q.len() != 4 {
            return Err(bad(
                name,
                format!(
                    "(translation, quaternion) takes 3 and 4 numbers, got {} and {}",
                    t.len(),
                    q.len()
                ),
            ));
        }
        from_values(&[t, q].concat())
    } else {
        let (shape, v) = numbers(obj, name)?;
        match shape.as_slice() {
            [4, 4] => from_matrix(&v).map_err(|e| bad(name, e))?,
            [3] | [7] => from_values(&v),
            _ => {
                return Err(bad(
                    name,
                    format!(
                        "expected a 4×4 matrix, (translation, quaternion), or 3 or 7 numbers; got shape {shape:?}"
                    ),
                ));
            }
        }
    };
    pose.validate().map_err(|e| bad(name, e))?;
    Ok(pose)
}

/// 3 numbers (translation) or 7 (translation, quaternion x, y, z, w).
fn from_values(v: &[f64]) -> Pose {
    let t = Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32);
    let q = match v {
        [_, _, _, x, y, z, w] => Quat::from_xyzw(*x as f32, *y as f32, *z as f32, *w as f32),
        _ => Quat::IDENTITY,
    };
    Pose::new(t, q)
}

/// A rigid 4×4 matrix (row-major `m`) as a pose.
fn from_matrix(m: &[f64]) -> Result<Pose, String> {
    let at = |r: usize, c: usize| m[r * 4 + c];
    let bottom = [at(3, 0), at(3, 1), at(3, 2), at(3, 3)];
    if bottom
        .iter()
        .zip([0.0, 0.0, 0.0, 1.0])
        .any(|(v, e)| (v - e).abs() > 1e-6)
    {
        return Err(format!(
            "the 4×4 matrix's last row is {bottom:?}, not [0, 0, 0, 1] (a pose maps column vectors: the translation goes in the last column)"
        ));
    }
    let rotation = DMat3::from_cols(
        DVec3::new(at(0, 0), at(1, 0), at(2, 0)),
        DVec3::new(at(0, 1), at(1, 1), at(2, 1)),
        DVec3::new(at(0, 2), at(1, 2), at(2, 2)),
    );
    let off = (rotation.transpose() * rotation - DMat3::IDENTITY)
        .to_cols_array()
        .iter()
        .fold(0.0f64, |a, v| a.max(v.abs()));
    if off > RIGID_TOLERANCE || rotation.determinant() <= 0.0 {
        return Err(
            "the 4×4 matrix is not a rotation and a translation (it scales, shears or reflects); poses move rigid bodies"
                .into(),
        );
    }
    let q = DQuat::from_mat3(&rotation).normalize();
    Ok(Pose::new(
        DVec3::new(at(0, 3), at(1, 3), at(2, 3)).as_vec3(),
        q.as_quat(),
    ))
}

/// One pose per mesh: `None` (all where their vertices put them) or a
/// sequence of `count` poses, each any form [`pose`] takes.
pub fn poses(obj: Option<&Bound<'_, PyAny>>, count: usize, name: &str) -> PyResult<Vec<Pose>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(vec![Pose::IDENTITY; count]);
    };
    let n = obj
        .len()
        .map_err(|_| bad(name, "expected a sequence with one pose per mesh"))?;
    if n != count {
        return Err(bad(name, format!("{n} poses for {count} meshes")));
    }
    (0..n)
        .map(|i| pose(Some(&obj.get_item(i)?), &format!("{name}[{i}]")))
        .collect()
}
