//! Exact distances, signs and winding numbers at arbitrary points: what
//! `collidoscope check` computes for a point set, and what the Python
//! package's point queries return.
//!
//! # How it works
//!
//! The points are moved into the mesh's frame ([`PreparedMesh::local`]), as
//! the grids are. Each point's nearest triangle comes from a BVH traversal
//! with the exact point–triangle distance
//! ([`crate::geom::closest_point_triangle`]), on all CPU cores; the value is
//! scaled back to the world exactly (the frame's scale is a power of two).
//! The sign is one of the grid's [`SignMode`]s:
//!
//! * **winding** — inside where the exact winding number has `|w| > ½`
//!   ([`crate::geom::FastWinding::is_inside`]); on the GPU backends the whole
//!   query runs on the GPU ([`SdfGpu::exact_at_points`]) and the points its
//!   float32 bounds leave open are signed exactly on the CPU, so the signs
//!   are the CPU's;
//! * **pseudo-normal** — the side of the closest feature's angle-weighted
//!   pseudo-normal, as the grid's cells. The GPU has no pseudo-normal point
//!   kernel: this sign is computed on the CPU whatever backend is asked for
//!   ([`PointValues::backend`] says which ran).
//!
//! A mesh with no triangles has no surface: every point is infinitely far
//! and outside.

use glam::{DVec3, Vec3};
use rayon::prelude::*;

use super::cpu::{nearest_triangle, signed_cell};
use super::{Backend, SdfError, SdfGpu, SignMode};
use crate::geom::closest_point_triangle;
use crate::gpu::GpuPhase;
use crate::mesh::PreparedMesh;
use crate::progress::Progress;

/// Points per unit of parallel work and of progress.
const CHUNK: usize = 4096;

/// The nearest point of the surface to a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Nearest {
    /// Triangle of [`PreparedMesh::mesh`] (see [`PreparedMesh::source_faces`]
    /// for the face of the mesh as loaded).
    pub triangle: u32,
    /// The closest point, world coordinates.
    pub point: Vec3,
    /// Its barycentric weights on the triangle's corners.
    pub barycentric: [f32; 3],
    /// Unsigned distance, world units.
    pub distance: f32,
}

/// Signed distances at points, the backend that computed them and, on the
/// GPU, its time per phase.
#[derive(Clone, Debug)]
pub struct PointValues {
    /// Signed distance per point, negative inside, world units.
    pub values: Vec<f32>,
    pub backend: Backend,
    /// The GPU's phases (empty on the CPU or without timestamp queries).
    pub phases: Vec<GpuPhase>,
}

/// The nearest surface point to each of `points` (world coordinates), or
/// `None` for every point of a mesh without triangles. CPU, all cores.
pub fn nearest_at_points(
    mesh: &PreparedMesh,
    points: &[Vec3],
    progress: &Progress,
) -> Result<Vec<Option<Nearest>>, SdfError> {
    let frame = mesh.frame();
    let local = mesh.local();
    let found = in_chunks(points, progress, |p| {
        let p = frame.to_local(p);
        let (tri, _) = nearest_triangle(local, p, f32::INFINITY, &mut 0)?;
        let c = closest_point_triangle(p, local.corners[tri as usize]);
        Some(Nearest {
            triangle: tri,
            point: frame.to_world(c.point),
            barycentric: c.barycentric,
            distance: frame.length_to_world(c.distance_squared.sqrt()),
        })
    })?;
    Ok(found)
}

/// The exact signed distance from `mesh` at each of `points` (world
/// coordinates), signed by `sign` (module docs). A GPU backend needs
/// `gpu` (the stage's "no GPU" error otherwise).
pub fn signed_at_points(
    mesh: &PreparedMesh,
    points: &[Vec3],
    sign: SignMode,
    backend: Backend,
    gpu: Option<&SdfGpu>,
    progress: &Progress,
) -> Result<PointValues, SdfError> {
    let frame = mesh.frame();
    let local: Vec<Vec3> = points.par_iter().map(|&p| frame.to_local(p)).collect();
    signed_at_local(mesh, &local, sign, backend, gpu, progress)
}

/// [`signed_at_points`] of points given in float64: they go into the
/// mesh's frame in float64 ([`crate::mesh::Frame::to_local_f64`]), so
/// points far from the origin are not first rounded to float32 world
/// coordinates (at 1e6 those are 1/16 apart).
pub fn signed_at_points_f64(
    mesh: &PreparedMesh,
    points: &[DVec3],
    sign: SignMode,
    backend: Backend,
    gpu: Option<&SdfGpu>,
    progress: &Progress,
) -> Result<PointValues, SdfError> {
    let frame = mesh.frame();
    let local: Vec<Vec3> = points.par_iter().map(|&p| frame.to_local_f64(p)).collect();
    signed_at_local(mesh, &local, sign, backend, gpu, progress)
}

/// [`signed_at_points`] of points in `mesh`'s frame.
fn signed_at_local(
    mesh: &PreparedMesh,
    local_points: &[Vec3],
    sign: SignMode,
    backend: Backend,
    gpu: Option<&SdfGpu>,
    progress: &Progress,
) -> Result<PointValues, SdfError> {
    if backend.is_gpu() && sign == SignMode::Winding {
        let gpu = gpu.ok_or_else(crate::stages::no_gpu)?;
        let run = gpu.exact_at_local_points(mesh, local_points)?;
        return Ok(PointValues {
            values: run.values,
            backend: Backend::Gpu,
            phases: run.phases,
        });
    }
    let frame = mesh.frame();
    let local = mesh.local();
    let values = match sign {
        SignMode::PseudoNormal => {
            // A kept copy of cancelling duplicates has no side: the winding
            // number signs the points nearest to one (as the grids' cells).
            let oriented = local.oriented_triangles().len() as u32;
            in_chunks(local_points, progress, |p| {
                nearest_triangle(local, p, f32::INFINITY, &mut 0).map_or(
                    f32::INFINITY,
                    |(tri, d2)| {
                        if tri < oriented {
                            signed_cell(local, p, tri, d2).0
                        } else if local.winding().is_inside(p) {
                            -d2.sqrt()
                        } else {
                            d2.sqrt()
                        }
                    },
                )
            })?
        }
        SignMode::Winding => {
            let magnitudes = in_chunks(local_points, progress, |p| {
                nearest_triangle(local, p, f32::INFINITY, &mut 0)
                    .map_or(f32::INFINITY, |(_, d2)| d2.sqrt())
            })?;
            let inside = inside_local(local, local_points);
            magnitudes
                .into_iter()
                .zip(inside)
                .map(|(d, inside)| if inside { -d } else { d })
                .collect()
        }
    };
    Ok(PointValues {
        values: values
            .into_iter()
            .map(|v| frame.length_to_world(v))
            .collect(),
        backend: Backend::CpuFast,
        phases: Vec::new(),
    })
}

/// Whether each of `points` (world coordinates) is inside `mesh` by the
/// exact winding number (`|w| > ½`). CPU, all cores.
pub fn inside_at_points(mesh: &PreparedMesh, points: &[Vec3]) -> Vec<bool> {
    let frame = mesh.frame();
    let local: Vec<Vec3> = points.par_iter().map(|&p| frame.to_local(p)).collect();
    inside_local(mesh.local(), &local)
}

/// The generalised winding number of `mesh` at each of `points` (world
/// coordinates), by the fast evaluation of Barill et al. 2018
/// ([`crate::geom::FastWinding::winding_number`]). CPU, all cores.
pub fn winding_at_points(mesh: &PreparedMesh, points: &[Vec3]) -> Vec<f32> {
    let frame = mesh.frame();
    let local: Vec<Vec3> = points.par_iter().map(|&p| frame.to_local(p)).collect();
    if mesh.triangle_count() == 0 {
        return vec![0.0; points.len()];
    }
    mesh.local().winding().winding_numbers(&local)
}

fn inside_local(local: &PreparedMesh, points: &[Vec3]) -> Vec<bool> {
    if local.triangle_count() == 0 {
        return vec![false; points.len()];
    }
    local.winding().inside_flags(points)
}

/// `f` at every point, in parallel chunks that report progress and stop
/// when it is cancelled.
fn in_chunks<T: Send>(
    points: &[Vec3],
    progress: &Progress,
    f: impl Fn(Vec3) -> T + Sync,
) -> Result<Vec<T>, SdfError> {
    progress.start(points.len() as u64);
    let chunks: Vec<Option<Vec<T>>> = points
        .par_chunks(CHUNK)
        .map(|chunk| {
            if progress.is_cancelled() {
                return None;
            }
            let out: Vec<T> = chunk.iter().map(|&p| f(p)).collect();
            progress.advance(chunk.len() as u64);
            Some(out)
        })
        .collect();
    let mut out = Vec::with_capacity(points.len());
    for chunk in chunks {
        out.extend(chunk.ok_or(SdfError::Cancelled)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{Mesh, torus};
    use crate::stages::sdf::reference_cell;

    fn points() -> Vec<Vec3> {
        (0..300)
            .map(|i| {
                let t = i as f32 * 0.37;
                Vec3::new(t.sin() * 0.8, (1.3 * t).cos() * 0.7, (0.7 * t).sin() * 0.4)
            })
            .collect()
    }

    /// Both signs against the brute-force reference cell; winding and
    /// pseudo-normal agree on a closed mesh; the nearest point lies on the
    /// triangle at the distance.
    #[test]
    fn points_match_the_reference() {
        let mesh = PreparedMesh::new(&torus(16, 10, 0.5, 0.2)).unwrap();
        let points = points();
        let progress = Progress::default();
        let pseudo = signed_at_points(
            &mesh,
            &points,
            SignMode::PseudoNormal,
            Backend::CpuFast,
            None,
            &progress,
        )
        .unwrap();
        let winding = signed_at_points(
            &mesh,
            &points,
            SignMode::Winding,
            Backend::CpuFast,
            None,
            &progress,
        )
        .unwrap();
        let nearest = nearest_at_points(&mesh, &points, &progress).unwrap();
        let inside = inside_at_points(&mesh, &points);
        for (i, &p) in points.iter().enumerate() {
            let (expected, _) = reference_cell(&mesh, p, f32::INFINITY).unwrap();
            assert!((pseudo.values[i] - expected).abs() <= 1e-6, "point {i}");
            assert!((winding.values[i] - expected).abs() <= 1e-6, "point {i}");
            assert_eq!(inside[i], winding.values[i] < 0.0, "point {i}");
            let n = nearest[i].unwrap();
            assert!((n.distance - expected.abs()).abs() <= 1e-6, "point {i}");
            let corners = mesh.mesh.corners(n.triangle as usize);
            let on: Vec3 = (0..3).map(|c| corners[c] * n.barycentric[c]).sum();
            assert!(
                on.distance(n.point) <= 1e-5,
                "point {i}: {on} vs {}",
                n.point
            );
        }
    }

    /// The prepared mesh names the loaded face of each triangle after
    /// leaving out two collapsed faces and a duplicate.
    #[test]
    fn source_faces_survive_the_repairs() {
        let base = torus(8, 6, 0.5, 0.2);
        let mut positions = base.positions.clone();
        positions.push(positions[0] + Vec3::splat(1e-9)); // welds onto vertex 0
        let twin = (positions.len() - 1) as u32;
        let mut triangles = vec![[0, twin, 1], [0, 1, 1], base.triangles[5]];
        triangles.extend(&base.triangles);
        let mesh = PreparedMesh::new(&Mesh::new("repaired", positions, triangles.clone())).unwrap();
        assert_eq!(mesh.triangle_count(), base.triangles.len());
        for t in 0..mesh.triangle_count() {
            let source = triangles[mesh.source_faces[t] as usize];
            let mut a = mesh.mesh.triangles[t].map(|v| mesh.mesh.positions[v as usize].to_array());
            let mut b =
                source.map(|v| base.positions[(v as usize) % base.positions.len()].to_array());
            a.sort_by(|x, y| x.partial_cmp(y).unwrap());
            b.sort_by(|x, y| x.partial_cmp(y).unwrap());
            assert_eq!(a, b, "triangle {t}");
            // Faces 0 and 1 collapse; of the duplicate pair (2 and 8) the
            // preparation keeps one.
            assert!(
                mesh.source_faces[t] >= 2,
                "triangle {t} from a collapsed face"
            );
        }
    }
}
