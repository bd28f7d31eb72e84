//! `check` on a point set: the exact reference at arbitrary points on the
//! GPU (nearest triangle over the BVH, winding-number sign with its
//! bound, undecided points signed exactly on the CPU) against the CPU.

use crate::common;

use collidoscope::mesh::PreparedMesh;
use collidoscope::progress::Progress;
use collidoscope::stages::check::{CellUnit, FieldSamples, Layout, exact_values};
use collidoscope::stages::sdf::{Backend, SdfGpu};
use glam::Vec3;

/// Seeded points over the mesh's box grown by a quarter on every side,
/// plus the corners of the first triangles (points on the surface, where
/// the sign is hardest).
fn points_around(mesh: &PreparedMesh, n: usize) -> Vec<Vec3> {
    let b = mesh.mesh.bounds();
    let grow = 0.25 * (b.max - b.min);
    let (lo, size) = (b.min - grow, b.max - b.min + 2.0 * grow);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut unit = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut points: Vec<Vec3> = (0..n)
        .map(|_| lo + size * Vec3::new(unit(), unit(), unit()))
        .collect();
    points.extend(
        mesh.mesh.triangles.iter().take(50).map(|t| {
            (mesh.mesh.positions[t[0] as usize] + mesh.mesh.positions[t[1] as usize]) * 0.5
        }),
    );
    points
}

#[test]
fn gpu_reference_at_points_matches_the_cpu() {
    let gpu = common::gpu();
    let sdf_gpu = SdfGpu::new(&gpu);
    // Closed (bunny's holes closed? no: it is open, with 223 boundary
    // edges) and open (suzanne): the winding sign matters on both.
    for name in ["stanford-bunny", "suzanne"] {
        let mesh = collidoscope::assets::load_sample(name).expect("sample");
        let mesh = PreparedMesh::new(&mesh).expect("prepares");
        let points = points_around(&mesh, 4000);
        let samples = FieldSamples {
            layout: Layout::Points(points.clone()),
            values: vec![0.0; points.len()],
            unit: CellUnit::None,
            band_world: None,
            mesh_hash: None,
            axis_order: None,
            precise: None,
            overrides: Vec::new(),
        };
        let progress = Progress::default();
        let cpu = exact_values(&mesh, &samples, Backend::CpuFast, None, &progress).expect("cpu");
        let on_gpu =
            exact_values(&mesh, &samples, Backend::Gpu, Some(&sdf_gpu), &progress).expect("gpu");
        assert_eq!(on_gpu.backend, Backend::Gpu);
        let tol = 1e-6 * mesh.mesh.bounds().diagonal();
        let mut inside = 0;
        for (i, (c, g)) in cpu.values.iter().zip(&on_gpu.values).enumerate() {
            assert!(
                (c - g).abs() <= tol,
                "{name} point {i} at {}: cpu {c}, gpu {g}",
                points[i]
            );
            // Same side, except exactly on the surface (|d| = 0 has no sign).
            if c.abs() > tol {
                assert_eq!(c < &0.0, g < &0.0, "{name} point {i}: cpu {c}, gpu {g}");
            }
            inside += usize::from(*c < -tol);
        }
        assert!(inside > 100, "{name}: only {inside} points inside");
        // Without a GPU context the GPU backend refuses in one line.
        let err = exact_values(&mesh, &samples, Backend::Gpu, None, &progress).unwrap_err();
        assert!(err.to_string().contains("no GPU"), "{err}");
    }
}

/// The lower half of a sphere of radius 1 (its triangles below z = 0): an
/// open bowl whose mouth carries the |w| = ½ sheet.
fn bowl() -> collidoscope::mesh::Mesh {
    use collidoscope::mesh::{Mesh, PrimitiveKind, primitive_with_triangles};
    let sphere = primitive_with_triangles(PrimitiveKind::Sphere, 2000);
    let below = |t: &[u32; 3]| {
        t.iter()
            .map(|&v| sphere.positions[v as usize].z)
            .sum::<f32>()
            < 0.0
    };
    let triangles = sphere
        .triangles
        .iter()
        .filter(|t| below(t))
        .copied()
        .collect();
    Mesh::new("bowl", sphere.positions.clone(), triangles)
}

/// Points on both sides of the bowl's |w| = ½ sheet, from 0.01 down to 1e-8
/// of the radius from it: the first pass (β = 5) cannot decide most of
/// them, the refining pass on the GPU decides all but those whose w is
/// within the exact step's rounding of ½, and only those go to the CPU.
/// Every sign is the exact winding number's.
#[test]
fn points_near_a_half_are_refined_on_the_gpu() {
    use collidoscope::geom::{BETA, winding_number_exact};
    let gpu = common::gpu();
    let sdf_gpu = SdfGpu::new(&gpu);
    let mesh = PreparedMesh::new(&bowl()).expect("prepares");
    let (positions, triangles) = (&mesh.mesh.positions, &mesh.mesh.triangles);
    let w = |p: Vec3| winding_number_exact(positions, triangles, p);
    let mut points = Vec::new();
    for (x, y) in [(0.0, 0.0), (0.3, -0.2), (-0.55, 0.1), (0.1, 0.62)] {
        // The sheet on this vertical line: w falls from near 1 in the bowl
        // to near 0 above it; bisect for w = ½ in f64.
        let (mut lo, mut hi) = (-0.5f64, 0.5f64);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            let at = Vec3::new(x, y, mid as f32);
            if w(at) > 0.5 { lo = mid } else { hi = mid }
        }
        for k in 2..=8 {
            let d = 10f64.powi(-k);
            for z in [lo - d, hi + d] {
                points.push(Vec3::new(x, y, z as f32));
            }
        }
    }
    let open_first = points
        .iter()
        .filter(|&&p| mesh.winding().bounded(p, BETA).inside().is_none())
        .count();
    assert!(
        open_first * 2 >= points.len(),
        "the first pass decides {} of {} points: not a test of the refining pass",
        points.len() - open_first,
        points.len()
    );
    let collidoscope::stages::sdf::PointsRun {
        values,
        cpu_signed: cpu,
        ..
    } = sdf_gpu.exact_at_points(&mesh, &points).expect("gpu");
    let mut within_rounding = 0;
    for (i, (&p, v)) in points.iter().zip(&values).enumerate() {
        let exact = w(p);
        within_rounding += usize::from((exact.abs() - 0.5).abs() < 2e-3);
        assert_eq!(
            v.is_sign_negative(),
            exact.abs() > 0.5,
            "point {i} at {p}: value {v}, exact w = {exact}"
        );
    }
    eprintln!(
        "{} points: {open_first} open after a β = 5 pass, {cpu} left to the CPU, {within_rounding} with |w − ½| < 2e-3",
        points.len()
    );
    assert!(
        cpu <= within_rounding && within_rounding < points.len(),
        "{cpu} points left to the CPU, {within_rounding} of {} within the exact step's rounding of ½",
        points.len()
    );
}
