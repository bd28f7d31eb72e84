//! The dataset's samples against brute force: on generated open, inward,
//! nested and duplicated-face meshes, every sample's sign is the exact
//! winding number's (`|w| > ½` inside, by the f64 sum over the faces; a
//! repeated face counted once, as the library counts it), on the CPU and
//! on the GPU, and its magnitude the brute-force distance.

use collidoscope::dataset::points::sample_points;
use collidoscope::dataset::{Normalization, Normalized, SampleParams, SignChoice, sample_mesh};
use collidoscope::geom::{closest_point_triangle, winding_number_exact};
use collidoscope::mesh::{Mesh, PreparedMesh, box_mesh, uv_sphere};
use collidoscope::stages::sdf::SdfGpu;
use glam::{Mat4, Quat, Vec3};
use proptest::prelude::*;

/// What a generated mesh is.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// A box with some faces removed.
    Open,
    /// A closed shape with every face reversed.
    Inward,
    /// A sphere inside a box, the sphere outward or a cavity.
    Nested,
    /// A box with some faces repeated, some of them reversed.
    Duplicated,
}

fn reversed(m: &Mesh) -> Mesh {
    let tris = m.triangles.iter().map(|&[a, b, c]| [a, c, b]).collect();
    Mesh::new(m.name.clone(), m.positions.clone(), tris)
}

/// A mesh of `kind`, rotated by `turn`, stretched by `stretch`; `picks`
/// choose the faces that are removed or repeated. With it, the triangles
/// whose raw winding number is the reference (the library counts a
/// repeated face once).
fn generated(
    kind: Kind,
    turn: Quat,
    stretch: Vec3,
    picks: &[usize],
    flag: bool,
) -> (Mesh, Vec<[u32; 3]>) {
    let mut reference = Vec::new();
    let mut m = match kind {
        Kind::Open => {
            let mut m = box_mesh(2);
            let drop: Vec<usize> = picks.iter().map(|p| p % m.triangles.len()).collect();
            m.triangles = (0..m.triangles.len())
                .filter(|t| !drop.contains(t))
                .map(|t| m.triangles[t])
                .collect();
            m
        }
        Kind::Inward if flag => reversed(&uv_sphere(6, 8)),
        Kind::Inward => reversed(&box_mesh(2)),
        Kind::Nested => {
            let inner = uv_sphere(5, 8).transformed(Mat4::from_scale(Vec3::splat(0.25)));
            let inner = if flag { reversed(&inner) } else { inner };
            Mesh::merge(&[box_mesh(1), inner], "nested")
        }
        Kind::Duplicated => {
            // Each picked face once more, as it is or reversed: a reversed
            // copy cancels its face in the raw sum too (a hole); a repeat
            // counts once for the library, so the reference leaves it out.
            let mut m = box_mesh(1);
            let mut faces: Vec<usize> = picks.iter().map(|p| p % 12).collect();
            faces.sort_unstable();
            faces.dedup();
            for (i, t) in faces.into_iter().enumerate() {
                let [a, b, c] = m.triangles[t];
                if (i % 2 == 0) == flag {
                    m.triangles.push([a, c, b]);
                    reference.push([a, c, b]);
                } else {
                    m.triangles.push([a, b, c]);
                }
            }
            m
        }
    };
    m = m.transformed(Mat4::from_scale_rotation_translation(
        stretch,
        turn,
        Vec3::new(3.0, -1.0, 0.5),
    ));
    m.name = format!("{kind:?}");
    let reference = match kind {
        Kind::Duplicated => box_mesh(1).triangles.into_iter().chain(reference).collect(),
        _ => m.triangles.clone(),
    };
    (m, reference)
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Open),
        Just(Kind::Inward),
        Just(Kind::Nested),
        Just(Kind::Duplicated)
    ]
}

/// Checks every sample of `mesh` (normalised as `mode`) against brute
/// force: the distance to all its triangles, the sign of the winding
/// number of `reference` (triangles of `mesh`).
fn check(
    mesh: &Mesh,
    reference: &[[u32; 3]],
    mode: Normalization,
    seed: u64,
    gpu: Option<&SdfGpu>,
) -> Result<(), TestCaseError> {
    let params = SampleParams {
        near: 300,
        uniform: 100,
        variances: vec![0.01, 0.0001],
        normalization: mode,
        sign: SignChoice::Winding,
        seed,
        ..SampleParams::default()
    };
    let normalized = Normalized::of(mesh, mode);
    let moved = normalized.apply(mesh);
    let prepared = PreparedMesh::new(&moved).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let points = sample_points(&moved, &params, seed);
    let s = sample_mesh(&prepared, points, normalized, &params, gpu, None)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(s.points.len(), 400);
    let mut compared = 0;
    for (p, d) in s.points.iter().zip(&s.sdf) {
        let w = winding_number_exact(&moved.positions, reference, *p);
        let nearest = (0..moved.triangles.len())
            .map(|t| {
                closest_point_triangle(*p, moved.corners(t))
                    .distance_squared
                    .sqrt()
            })
            .fold(f32::INFINITY, f32::min);
        prop_assert!(
            (d.abs() - nearest).abs() <= 1e-5 * (1.0 + nearest),
            "{p}: |{d}| vs {nearest}"
        );
        // Within rounding of ½ or of the surface the side is a tie.
        if (w.abs() - 0.5).abs() < 1e-6 || d.abs() < 1e-6 {
            continue;
        }
        compared += 1;
        prop_assert_eq!(
            *d < 0.0,
            w.abs() > 0.5,
            "{} at {}: w = {}, sdf = {}",
            &mesh.name,
            p,
            w,
            d
        );
    }
    prop_assert!(compared > 350, "only {} points compared", compared);
    Ok(())
}

#[test]
fn signs_are_the_exact_winding_numbers_on_cpu_and_gpu() {
    let ctx = crate::common::gpu();
    let gpu = SdfGpu::new(&ctx);
    let config = ProptestConfig {
        cases: 16,
        ..ProptestConfig::default()
    };
    proptest!(config, |(
        kind in kind(),
        axis in (-1.0f32..1.0, -1.0f32..1.0, 0.1f32..1.0),
        angle in 0.0f32..6.3,
        stretch in (0.5f32..3.0, 0.5f32..3.0, 0.5f32..3.0),
        picks in proptest::collection::vec(0usize..100, 1..4),
        flag in any::<bool>(),
        cube in any::<bool>(),
        seed in any::<u64>(),
    )| {
        let turn = Quat::from_axis_angle(Vec3::new(axis.0, axis.1, axis.2).normalize(), angle);
        let (mesh, reference) =
            generated(kind, turn, Vec3::new(stretch.0, stretch.1, stretch.2), &picks, flag);
        let mode = if cube { Normalization::UnitCube } else { Normalization::UnitSphere };
        check(&mesh, &reference, mode, seed, None)?;
        check(&mesh, &reference, mode, seed, Some(&gpu))?;
    });
}
