//! The radial-field stage (Friston & Steed 2019, §4–5): both GPU
//! rasterisers (the render pipeline and compute) against the CPU
//! reference cell by cell, analytic cases, culling and the
//! seam, and both against brute-force ray casting on random star-shaped
//! tubes.

use crate::common;

use collidoscope::progress::Progress;
use collidoscope::stages::radial::{
    Backend, BoneFrame, FieldSpec, Radial, RadialError, RadialGpu, RadialInput, RadialParams,
    RadialProduct,
};
use glam::Vec3;
use proptest::prelude::*;
use std::f32::consts::TAU;

/// An open tube around `frame`'s axis from z = `z0` to `z1` (in units of
/// |AB|), `around × along` quads, radius `radius(θ, z)`, faces outward.
fn tube(
    frame: &BoneFrame,
    (around, along): (u32, u32),
    (z0, z1): (f32, f32),
    radius: impl Fn(f32, f32) -> f32,
) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut positions = Vec::new();
    for k in 0..=along {
        let z = z0 + (z1 - z0) * k as f32 / along as f32;
        for i in 0..around {
            let theta = i as f32 / around as f32;
            let (s, c) = (theta * TAU).sin_cos();
            let r = radius(theta, z);
            positions
                .push(frame.a + frame.w * (z * frame.length) + (frame.u * c + frame.v * s) * r);
        }
    }
    let at = |i: u32, k: u32| k * around + i % around;
    let mut triangles = Vec::new();
    for k in 0..along {
        for i in 0..around {
            // θ grows from u towards v = u × w, clockwise seen from B, so
            // (i, k), (i, k+1), (i+1, k+1) is counter-clockwise from outside.
            triangles.push([at(i, k), at(i, k + 1), at(i + 1, k + 1)]);
            triangles.push([at(i, k), at(i + 1, k + 1), at(i + 1, k)]);
        }
    }
    (positions, triangles)
}

fn run(
    input: RadialInput<'_>,
    params: &RadialParams,
    backend: Backend,
    gpu: Option<&RadialGpu>,
) -> RadialProduct {
    Radial::run(input, params, backend, gpu, &Progress::default())
        .unwrap_or_else(|e| panic!("{backend:?}: {e}"))
}

/// Compares two products cell by cell: both empty or within `tol`
/// (relative above 1), naming the field and the cell of the first miss.
fn assert_same(a: &RadialProduct, b: &RadialProduct, tol: f32, what: &str) {
    assert_eq!(a.values.len(), b.values.len(), "{what}: value count");
    let n = (a.n_theta * a.n_z) as usize;
    for (j, (&x, &y)) in a.values.iter().zip(&b.values).enumerate() {
        let ok = (x.is_infinite() && y.is_infinite()) || (x - y).abs() <= tol * x.abs().max(1.0);
        let (f, cell) = (j / n, j % n);
        let (i, k) = (cell as u32 % a.n_theta, cell as u32 / a.n_theta);
        assert!(ok, "{what}: field {f}, cell θ {i} z {k}: {x} vs {y}");
    }
}

/// The render pipeline and the compute rasteriser.
const GPU_BACKENDS: [Backend; 2] = [Backend::Gpu, Backend::GpuCompute];

/// The CPU reference and both GPU rasterisers, with the GPU state each needs.
fn every_backend(gpu: &RadialGpu) -> [(Backend, Option<&RadialGpu>); 3] {
    [
        (Backend::Cpu, None),
        (Backend::Gpu, Some(gpu)),
        (Backend::GpuCompute, Some(gpu)),
    ]
}

fn axis_frame(a: Vec3, b: Vec3, normal: Vec3) -> BoneFrame {
    BoneFrame::new(a, b, normal).expect("test frame")
}

/// Three rippled tubes at different angles; fields over subsets and over
/// everything, so faces of other tubes are culled or depth-masked.
fn scene() -> (Vec<Vec3>, Vec<[u32; 3]>, Vec<FieldSpec>) {
    let frames = [
        axis_frame(Vec3::ZERO, Vec3::new(0.0, 2.0, 0.0), Vec3::X),
        axis_frame(Vec3::new(1.0, 0.5, 0.2), Vec3::new(2.5, 1.2, -0.4), Vec3::Y),
        axis_frame(
            Vec3::new(-1.0, 0.0, 0.5),
            Vec3::new(-1.3, -1.8, 1.1),
            Vec3::Z,
        ),
    ];
    let (mut positions, mut triangles) = (Vec::new(), Vec::new());
    let mut fields = Vec::new();
    for (n, frame) in frames.iter().enumerate() {
        let ripple = 0.1 * (n as f32 + 1.0);
        let (p, t) = tube(frame, (40, 24), (-0.1, 1.1), |th, z| {
            0.4 + ripple * (TAU * 3.0 * th).sin() * (TAU * z).cos()
        });
        let base = positions.len() as u32;
        let first = triangles.len() as u32;
        positions.extend(p);
        triangles.extend(t.iter().map(|t| t.map(|v| v + base)));
        fields.push(FieldSpec {
            frame: *frame,
            faces: Some((first..triangles.len() as u32).collect()),
        });
    }
    fields.push(FieldSpec {
        frame: axis_frame(Vec3::new(0.0, -0.5, 0.0), Vec3::new(0.0, 2.5, 0.0), Vec3::Z),
        faces: None,
    });
    (positions, triangles, fields)
}

#[test]
fn gpu_matches_cpu_cell_by_cell() {
    let gpu = Radial::gpu(&common::gpu()).unwrap();
    let (positions, triangles, fields) = scene();
    let input = RadialInput {
        positions: &positions,
        triangles: &triangles,
        fields: &fields,
    };
    for (n_theta, n_z) in [(64, 32), (50, 17), (256, 128)] {
        for filter in [true, false] {
            let params = RadialParams {
                filter,
                ..RadialParams::new(n_theta, n_z)
            };
            let cpu = run(input, &params, Backend::Cpu, None);
            let covered = cpu.values.iter().filter(|v| v.is_finite()).count();
            assert!(
                covered > cpu.values.len() / 2,
                "{n_theta}x{n_z}: only {covered} cells covered"
            );
            for backend in GPU_BACKENDS {
                let on_gpu = run(input, &params, backend, Some(&gpu));
                assert_same(
                    &cpu,
                    &on_gpu,
                    1e-4,
                    &format!("{backend:?} {n_theta}x{n_z} filter {filter}"),
                );
            }
        }
    }
}

#[test]
fn a_cylinder_around_the_axis_gives_its_radius_and_inf_beyond_its_ends() {
    let gpu = Radial::gpu(&common::gpu()).unwrap();
    let frame = axis_frame(Vec3::new(0.3, -1.0, 0.2), Vec3::new(0.3, 1.0, 0.7), Vec3::X);
    let radius = 0.75;
    let around = 96;
    // The tube covers z in [0.25, 0.75] only.
    let (positions, triangles) = tube(&frame, (around, 8), (0.25, 0.75), |_, _| radius);
    let fields = [FieldSpec { frame, faces: None }];
    let input = RadialInput {
        positions: &positions,
        triangles: &triangles,
        fields: &fields,
    };
    let params = RadialParams::new(128, 64);
    let chord = radius * (std::f32::consts::PI / around as f32).cos();
    for (backend, g) in every_backend(&gpu) {
        let p = run(input, &params, backend, g);
        for k in 0..64u32 {
            let z = (k as f32 + 0.5) / 64.0;
            for i in 0..128u32 {
                let v = p.values[(k * 128 + i) as usize];
                if (0.25..0.75).contains(&z) {
                    assert!(
                        v >= chord * 0.9999 && v <= radius * 1.0001,
                        "{backend:?}: cell θ {i} z {k} = {v}, radius {radius}"
                    );
                } else {
                    assert!(
                        v.is_infinite(),
                        "{backend:?}: cell θ {i} z {k} = {v} outside the tube"
                    );
                }
            }
        }
    }
}

#[test]
fn axis_crossing_and_back_facing_triangles_are_culled() {
    let gpu = Radial::gpu(&common::gpu()).unwrap();
    let frame = axis_frame(Vec3::ZERO, Vec3::Z, Vec3::X);
    // A triangle around the axis, and a tube turned inside out.
    let around = vec![
        Vec3::new(1.0, -1.0, 0.5),
        Vec3::new(0.0, 1.0, 0.5),
        Vec3::new(-1.0, -1.0, 0.6),
    ];
    let (inside_out, mut tris) = tube(&frame, (16, 4), (-0.5, 1.5), |_, _| 0.5);
    tris.iter_mut().for_each(|t| t.swap(1, 2));
    for (name, positions, triangles) in [
        ("axis-crossing", around, vec![[0, 1, 2], [0, 2, 1]]),
        ("back-facing", inside_out, tris),
    ] {
        let fields = [FieldSpec { frame, faces: None }];
        let input = RadialInput {
            positions: &positions,
            triangles: &triangles,
            fields: &fields,
        };
        for (backend, g) in every_backend(&gpu) {
            let p = run(input, &RadialParams::new(32, 16), backend, g);
            let filled = p.values.iter().filter(|v| v.is_finite()).count();
            assert_eq!(filled, 0, "{name} {backend:?}: {filled} cells filled");
        }
    }
}

#[test]
fn a_triangle_across_the_seam_fills_both_sides() {
    let gpu = Radial::gpu(&common::gpu()).unwrap();
    let frame = axis_frame(Vec3::ZERO, Vec3::Z, Vec3::X);
    // A quad facing the axis at x = 1, from θ ≈ −0.1 to +0.1 turn.
    let positions = vec![
        Vec3::new(1.0, -0.7, 0.1),
        Vec3::new(1.0, 0.7, 0.1),
        Vec3::new(1.0, 0.7, 0.9),
        Vec3::new(1.0, -0.7, 0.9),
    ];
    let triangles = vec![[0, 1, 2], [0, 2, 3]];
    let fields = [FieldSpec { frame, faces: None }];
    let input = RadialInput {
        positions: &positions,
        triangles: &triangles,
        fields: &fields,
    };
    let params = RadialParams::new(64, 16);
    let cpu = run(input, &params, Backend::Cpu, None);
    for backend in GPU_BACKENDS {
        let on_gpu = run(input, &params, backend, Some(&gpu));
        assert_same(&cpu, &on_gpu, 1e-4, &format!("{backend:?} seam quad"));
    }
    let row = 8 * 64;
    for i in [0usize, 1, 2, 61, 62, 63] {
        let theta = (i as f32 + 0.5) / 64.0 * TAU;
        let expected = 1.0 / theta.cos();
        let v = cpu.values[row + i];
        assert!(
            (v - expected).abs() < 1e-4,
            "column {i}: {v}, plane at {expected}"
        );
    }
    assert!(cpu.values[row + 32].is_infinite(), "the far side is empty");
}

#[test]
fn large_footprints_and_many_small_ones_fill_the_same_cells_on_every_backend() {
    // A coarse tube at a fine resolution: each quad's two triangles cover
    // hundreds of cells (the compute rasteriser's workgroup-per-footprint
    // path); beside it a fine tube whose triangles cover a cell or none.
    let gpu = Radial::gpu(&common::gpu()).unwrap();
    let frame = axis_frame(Vec3::ZERO, Vec3::new(0.0, 0.0, 2.0), Vec3::X);
    let (coarse, coarse_tris) = tube(&frame, (6, 2), (0.0, 0.5), |_, _| 0.8);
    let (fine, fine_tris) = tube(&frame, (200, 100), (0.5, 1.0), |th, _| {
        0.7 + 0.05 * (TAU * 5.0 * th).sin()
    });
    let mut positions = coarse;
    let base = positions.len() as u32;
    positions.extend(fine);
    let mut triangles = coarse_tris;
    triangles.extend(fine_tris.iter().map(|t| t.map(|v| v + base)));
    let fields = [FieldSpec { frame, faces: None }];
    let input = RadialInput {
        positions: &positions,
        triangles: &triangles,
        fields: &fields,
    };
    let params = RadialParams::new(128, 64);
    let cpu = run(input, &params, Backend::Cpu, None);
    // Every cell is covered: the coarse hexagon's lower half, the fine tube's upper.
    let empty = cpu.values.iter().filter(|v| v.is_infinite()).count();
    assert_eq!(empty, 0, "{empty} cells empty on the CPU");
    for backend in GPU_BACKENDS {
        let on_gpu = run(input, &params, backend, Some(&gpu));
        assert_same(&cpu, &on_gpu, 1e-4, &format!("{backend:?} coarse + fine"));
    }
}

#[test]
fn bad_parameters_are_refused() {
    let frame = axis_frame(Vec3::ZERO, Vec3::Z, Vec3::X);
    let fields = [FieldSpec {
        frame,
        faces: Some(vec![3]),
    }];
    let positions = [Vec3::X, Vec3::Y, Vec3::Z];
    let triangles = [[0, 1, 2]];
    let input = RadialInput {
        positions: &positions,
        triangles: &triangles,
        fields: &fields,
    };
    let go = |params: RadialParams| {
        Radial::run(input, &params, Backend::Cpu, None, &Progress::default())
    };
    for (w, h) in [(0, 8), (8, 0), (7, 8), (1 << 20, 8)] {
        let e = go(RadialParams::new(w, h)).unwrap_err();
        assert!(matches!(e, RadialError::Resolution { .. }), "{w}x{h}: {e}");
    }
    let e = go(RadialParams::new(8, 8)).unwrap_err();
    assert!(e.to_string().contains("triangle 3"), "{e}");
    let fields = [FieldSpec { frame, faces: None }];
    let input = RadialInput {
        fields: &fields,
        ..input
    };
    let e = Radial::run(
        input,
        &RadialParams::new(8, 8),
        Backend::Gpu,
        None,
        &Progress::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("no GPU"), "{e}");
}

/// The nearest hit of the ray from `o` along `d` with any triangle
/// (Möller–Trumbore, both sides), or +inf.
fn ray_cast(o: Vec3, d: Vec3, positions: &[Vec3], triangles: &[[u32; 3]]) -> f32 {
    let mut best = f32::INFINITY;
    for t in triangles {
        let [a, b, c] = t.map(|v| positions[v as usize]);
        let (e1, e2) = (b - a, c - a);
        let p = d.cross(e2);
        let det = e1.dot(p);
        if det.abs() < 1e-12 {
            continue;
        }
        let s = o - a;
        let u = s.dot(p) / det;
        let q = s.cross(e1);
        let v = d.dot(q) / det;
        let t = e2.dot(q) / det;
        if (-1e-6..=1.0 + 1e-6).contains(&u) && v >= -1e-6 && u + v <= 1.0 + 1e-6 && t > 0.0 {
            best = best.min(t);
        }
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Random smooth star-shaped tubes around random axes: every cell
    /// holds the distance a brute-force ray cast finds, on both backends.
    #[test]
    fn fields_match_brute_force_ray_casting(
        a in prop::array::uniform3(-2.0f32..2.0),
        dir in prop::array::uniform3(-1.0f32..1.0),
        normal in prop::array::uniform3(-1.0f32..1.0),
        amplitude in 0.0f32..0.25,
        waves in 1u32..4,
        phase in 0.0f32..1.0,
    ) {
        let a = Vec3::from(a);
        let dir = Vec3::from(dir);
        prop_assume!(dir.length() > 0.3);
        let Ok(frame) = BoneFrame::new(a, a + dir * 2.0, Vec3::from(normal)) else {
            return Err(TestCaseError::reject("normal along the axis"));
        };
        let radius = |th: f32, z: f32| {
            0.6 + amplitude * (TAU * (waves as f32 * th + phase)).sin() * (TAU * z).cos()
        };
        let (positions, triangles) = tube(&frame, (128, 64), (-0.1, 1.1), radius);
        let fields = [FieldSpec { frame, faces: None }];
        let input = RadialInput { positions: &positions, triangles: &triangles, fields: &fields };
        let params = RadialParams::new(48, 24);
        let gpu = gpu_once();
        for (backend, g) in every_backend(gpu) {
            let p = run(input, &params, backend, g);
            for k in 0..24u32 {
                for i in 0..48u32 {
                    let theta = (i as f32 + 0.5) / 48.0;
                    let z = (k as f32 + 0.5) / 24.0;
                    let o = frame.a + frame.w * (z * frame.length);
                    let (s, c) = (theta * TAU).sin_cos();
                    let truth = ray_cast(o, frame.u * c + frame.v * s, &positions, &triangles);
                    let v = p.values[(k * 48 + i) as usize];
                    prop_assert!(
                        (v - truth).abs() <= 2e-3 * truth,
                        "{:?}: cell θ {} z {}: {} vs ray cast {}", backend, i, k, v, truth
                    );
                }
            }
        }
    }
}

/// One GPU state for every proptest case.
fn gpu_once() -> &'static RadialGpu {
    static GPU: std::sync::OnceLock<RadialGpu> = std::sync::OnceLock::new();
    GPU.get_or_init(|| Radial::gpu(&common::gpu()).unwrap())
}
