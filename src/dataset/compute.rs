//! One mesh's exact signed distances (and closest points and gradients)
//! at its sample points, a chunk at a time so that a time limit can stop
//! the work between chunks.

use std::time::Instant;

use glam::Vec3;

use super::points::Normalized;
use super::{DatasetError, SampleParams, SignChoice};
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::stages::sdf::points::{nearest_at_points, signed_at_points};
use crate::stages::sdf::{Backend, SdfGpu, SignMode, default_sign_mode};

/// Points per chunk: enough to keep a GPU busy, and a time limit is
/// checked between two chunks.
pub const CHUNK: usize = 1 << 16;

/// One mesh's samples, in the normalised frame.
#[derive(Clone, Debug)]
pub struct MeshSamples {
    pub points: Vec<Vec3>,
    /// Signed distance per point, negative inside.
    pub sdf: Vec<f32>,
    /// The closest surface point per point, when asked for.
    pub closest: Option<Vec<Vec3>>,
    /// The field's unit gradient per point (from the closest point
    /// outward, the face's normal on the surface itself), when asked for.
    pub normals: Option<Vec<Vec3>>,
    pub normalized: Normalized,
    pub sign: SignMode,
    /// "gpu" or "cpu": where the distances were computed.
    pub backend: &'static str,
}

/// The sign `choice` gives `mesh` where the distances run on the GPU
/// (`on_gpu`) or the CPU (see [`SignChoice::Auto`]).
pub fn sign_mode(choice: SignChoice, mesh: &PreparedMesh, on_gpu: bool) -> SignMode {
    match choice {
        SignChoice::Winding => SignMode::Winding,
        SignChoice::PseudoNormal => SignMode::PseudoNormal,
        SignChoice::Auto if on_gpu => SignMode::Winding,
        SignChoice::Auto => default_sign_mode(&mesh.report).0,
    }
}

/// Fails with the time limit when `deadline` has passed.
pub(crate) fn check_deadline(
    deadline: Option<(Instant, f64)>,
    during: impl FnOnce() -> String,
) -> Result<(), DatasetError> {
    match deadline {
        Some((at, limit_s)) if Instant::now() >= at => Err(DatasetError::TimeLimit {
            limit_s,
            during: during(),
        }),
        _ => Ok(()),
    }
}

/// The samples of `mesh` (prepared in the normalised frame `normalized`)
/// at `points`: the GPU when `gpu` is given and the sign is the winding
/// number, the CPU otherwise. `deadline` (the instant, and the limit in
/// seconds for the message) is checked before each chunk.
pub fn sample_mesh(
    mesh: &PreparedMesh,
    points: Vec<Vec3>,
    normalized: Normalized,
    params: &SampleParams,
    gpu: Option<&SdfGpu>,
    deadline: Option<(Instant, f64)>,
) -> Result<MeshSamples, DatasetError> {
    let sign = sign_mode(params.sign, mesh, gpu.is_some());
    let (backend, stage) = match gpu {
        Some(g) if sign == SignMode::Winding => (Backend::Gpu, Some(g)),
        _ => (Backend::CpuFast, None),
    };
    let progress = Progress::default();
    let mut sdf = Vec::with_capacity(points.len());
    for (i, chunk) in points.chunks(CHUNK).enumerate() {
        check_deadline(deadline, || {
            format!("after {} of {} distances", i * CHUNK, points.len())
        })?;
        sdf.extend(signed_at_points(mesh, chunk, sign, backend, stage, &progress)?.values);
    }
    let mut closest = None;
    let mut normals = None;
    if params.closest || params.normals {
        let mut near = Vec::with_capacity(points.len());
        for (i, chunk) in points.chunks(CHUNK).enumerate() {
            check_deadline(deadline, || {
                format!("after {} of {} closest points", i * CHUNK, points.len())
            })?;
            near.extend(nearest_at_points(mesh, chunk, &progress)?);
        }
        if params.normals {
            normals = Some(gradients(mesh, &points, &sdf, &near));
        }
        if params.closest {
            let found = near.iter().zip(&points);
            closest = Some(found.map(|(n, p)| n.map_or(*p, |n| n.point)).collect());
        }
    }
    Ok(MeshSamples {
        points,
        sdf,
        closest,
        normals,
        normalized,
        sign,
        backend: if backend.is_gpu() { "gpu" } else { "cpu" },
    })
}

/// The unit gradient of the signed field at each point: away from the
/// closest point outside, towards it inside; a point on the surface takes
/// its triangle's normal.
fn gradients(
    mesh: &PreparedMesh,
    points: &[Vec3],
    sdf: &[f32],
    near: &[Option<crate::stages::sdf::points::Nearest>],
) -> Vec<Vec3> {
    points
        .iter()
        .zip(sdf)
        .zip(near)
        .map(|((p, d), n)| {
            let Some(n) = n else { return Vec3::ZERO };
            let away = (*p - n.point).normalize_or_zero();
            if away == Vec3::ZERO || n.distance == 0.0 {
                mesh.mesh.face_normal(n.triangle as usize)
            } else if *d < 0.0 {
                -away
            } else {
                away
            }
        })
        .collect()
}
