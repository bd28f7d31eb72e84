//! Marching cubes on the GPU against the CPU reference (the same table,
//! the same vertex formula, the same order), on a sphere's field and on
//! the bunny's; the sphere's surface lies near its radius, is closed and
//! faces outwards.

use crate::common;

use std::collections::HashMap;

use collidoscope::mesh::PreparedMesh;
use collidoscope::progress::Progress;
use collidoscope::stages::iso_surface::table::{self, CASE_WORDS, MAX_TRIANGLES};
use collidoscope::stages::iso_surface::{
    self, FieldGrid, IsoError, IsoParams, IsoSurfaceGpu, IsoSurfaceStage, extract_cpu,
};
use collidoscope::stages::sdf::{self, Backend, GridSpec, SdfParams, SignMode};
use glam::{UVec3, Vec3};

/// The signed distance to a sphere of `radius` at the origin, sampled at
/// the centres of `n³` cells over [-1, 1]³.
fn sphere_field(n: u32, radius: f32) -> (GridSpec, Vec<f32>) {
    let h = 2.0 / n as f32;
    let grid = GridSpec {
        origin: Vec3::splat(-1.0 + 0.5 * h),
        cell_size: h,
        dims: UVec3::splat(n),
    };
    let values = (0..grid.num_cells())
        .map(|i| grid.center_of(i).length() - radius)
        .collect();
    (grid, values)
}

fn run(
    field: FieldGrid<'_>,
    level: f32,
    backend: iso_surface::Backend,
    gpu: &IsoSurfaceGpu,
) -> Vec<[Vec3; 3]> {
    IsoSurfaceStage::run(
        field,
        &IsoParams { level },
        backend,
        Some(gpu),
        &Progress::default(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", backend.name()))
    .triangles
}

/// GPU = CPU triangle by triangle (both emit in cube order), within `tol`.
fn assert_same(cpu: &[[Vec3; 3]], gpu: &[[Vec3; 3]], tol: f32) {
    assert_eq!(cpu.len(), gpu.len(), "triangle counts");
    for (i, (c, g)) in cpu.iter().zip(gpu).enumerate() {
        for v in 0..3 {
            let d = (c[v] - g[v]).abs().max_element();
            assert!(
                d <= tol,
                "triangle {i} vertex {v}: cpu {} gpu {} (|Δ| {d})",
                c[v],
                g[v]
            );
        }
    }
}

#[test]
fn gpu_matches_cpu_on_a_sphere_and_the_surface_lies_on_it() {
    let gpu = common::gpu();
    let iso = IsoSurfaceGpu::new(&gpu);
    let radius = 0.61;
    let (grid, values) = sphere_field(32, radius);
    let field = FieldGrid {
        grid,
        values: &values,
    };
    let cpu = run(field, 0.0, iso_surface::Backend::Cpu, &iso);
    let on_gpu = run(field, 0.0, iso_surface::Backend::Gpu, &iso);
    assert!(cpu.len() > 500, "only {} triangles", cpu.len());
    assert_same(&cpu, &on_gpu, 1e-5);
    // Linear interpolation of a sphere's distance misses the sphere by
    // O(h²/r) between samples.
    let bound = 0.25 * grid.cell_size;
    for (i, t) in on_gpu.iter().enumerate() {
        for p in t {
            let off = (p.length() - radius).abs();
            assert!(
                off < bound,
                "triangle {i}: |p| = {} for r = {radius}",
                p.length()
            );
        }
    }
    // Another level is another sphere.
    let level = 0.2;
    let outer = run(field, level, iso_surface::Backend::Gpu, &iso);
    assert_same(
        &run(field, level, iso_surface::Backend::Cpu, &iso),
        &outer,
        1e-5,
    );
    let mean = outer.iter().flatten().map(|p| p.length()).sum::<f32>() / (3 * outer.len()) as f32;
    assert!(
        (mean - (radius + level)).abs() < bound,
        "mean radius {mean}"
    );
}

/// Welds vertices by their bits (vertices on a shared cube edge are
/// computed alike) and returns, for each directed edge, how often it occurs.
fn directed_edges(triangles: &[[Vec3; 3]]) -> HashMap<([u32; 3], [u32; 3]), u32> {
    let key = |p: Vec3| p.to_array().map(f32::to_bits);
    let mut edges = HashMap::new();
    for t in triangles {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            *edges.entry((key(a), key(b))).or_insert(0) += 1;
        }
    }
    edges
}

/// Closed and consistently oriented: every directed edge once, and its
/// reverse once (so every edge is shared by exactly two triangles).
fn assert_closed(triangles: &[[Vec3; 3]]) {
    let edges = directed_edges(triangles);
    for (&(a, b), &n) in &edges {
        assert_eq!(n, 1, "edge {a:?} → {b:?} used {n} times");
        assert_eq!(
            edges.get(&(b, a)),
            Some(&1),
            "edge {a:?} → {b:?} has no neighbour across it"
        );
    }
}

fn signed_volume(triangles: &[[Vec3; 3]]) -> f32 {
    triangles
        .iter()
        .map(|[a, b, c]| a.dot(b.cross(*c)) / 6.0)
        .sum()
}

#[test]
fn a_sphere_gives_a_closed_outward_surface() {
    let gpu = common::gpu();
    let iso = IsoSurfaceGpu::new(&gpu);
    let radius = 0.55;
    let (grid, values) = sphere_field(24, radius);
    let triangles = run(
        FieldGrid {
            grid,
            values: &values,
        },
        0.0,
        iso_surface::Backend::Gpu,
        &iso,
    );
    assert_closed(&triangles);
    // Outward normals: the enclosed volume comes out positive and close to
    // the sphere's.
    let volume = signed_volume(&triangles);
    let exact = 4.0 / 3.0 * std::f32::consts::PI * radius.powi(3);
    assert!(
        (volume / exact - 1.0).abs() < 0.03,
        "volume {volume}, sphere {exact}"
    );
}

#[test]
fn random_fields_give_closed_surfaces() {
    use proptest::prelude::*;
    // Values on a 7³ grid whose border is outside: every ambiguous face
    // configuration occurs, and the level set is closed. Values are kept at
    // least 1e-3 from the level: one within f32 rounding of it puts the
    // edge's vertex on the grid corner itself, where the vertices of other
    // edges land too, and the surface's triangles there have no area (the
    // configurations, not that rounding, are what this test is about).
    let n = 7u32;
    let grid = GridSpec {
        origin: Vec3::ZERO,
        cell_size: 1.0,
        dims: UVec3::splat(n),
    };
    let cells = grid.num_cells();
    proptest!(ProptestConfig::with_cases(200), |(inner in proptest::collection::vec(-1.0f32..1.0, cells))| {
        let values: Vec<f32> = (0..cells)
            .map(|i| {
                let c = grid.coords(i);
                let border = c.min_element() == 0 || c.max_element() == n - 1;
                if border {
                    1.0
                } else {
                    inner[i].signum() * (1e-3 + inner[i].abs())
                }
            })
            .collect();
        let triangles = extract_cpu(FieldGrid { grid, values: &values }, 0.0);
        let edges = directed_edges(&triangles);
        for (&(a, b), &k) in &edges {
            prop_assert_eq!(k, 1, "edge {:?} → {:?} used {} times", a, b, k);
            prop_assert_eq!(edges.get(&(b, a)), Some(&1), "edge {:?} → {:?} is open", a, b);
        }
        prop_assert!(triangles.is_empty() || signed_volume(&triangles) > 0.0);
    });
}

#[test]
fn gpu_matches_cpu_on_the_bunny() {
    let gpu = common::gpu();
    let iso = IsoSurfaceGpu::new(&gpu);
    let mesh = collidoscope::assets::load_sample("stanford-bunny").expect("the bunny");
    let mesh = PreparedMesh::new(&mesh).expect("prepares");
    let params = SdfParams {
        resolution: 40,
        sign_mode: SignMode::Winding,
        ..Default::default()
    };
    let field = sdf::compute(&mesh, &params, Backend::CpuFast, None, &Progress::default())
        .expect("the bunny's field");
    let h = field.grid.cell_size;
    for level in [0.0, 1.5 * h, -0.5 * h] {
        let cpu = run((&field).into(), level, iso_surface::Backend::Cpu, &iso);
        let on_gpu = run((&field).into(), level, iso_surface::Backend::Gpu, &iso);
        assert!(!cpu.is_empty(), "level {level}");
        assert_same(&cpu, &on_gpu, 1e-6 * field.grid.bounds().diagonal());
    }
}

#[test]
fn bad_input_is_refused_in_one_line() {
    let gpu = common::gpu();
    let iso = IsoSurfaceGpu::new(&gpu);
    let (grid, values) = sphere_field(8, 0.5);
    for backend in iso_surface::Backend::ALL {
        let err = IsoSurfaceStage::run(
            FieldGrid {
                grid,
                values: &values[1..],
            },
            &IsoParams { level: 0.0 },
            backend,
            Some(&iso),
            &Progress::default(),
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                IsoError::Shape {
                    values: 511,
                    cells: 512
                }
            ),
            "{err}"
        );
        let err = IsoSurfaceStage::run(
            FieldGrid {
                grid,
                values: &values,
            },
            &IsoParams { level: f32::NAN },
            backend,
            Some(&iso),
            &Progress::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("finite"), "{err}");
    }
}

#[test]
fn the_table_edges_join_neighbouring_corners_and_cover_the_cube() {
    let mut seen = std::collections::HashSet::new();
    for e in 0..12 {
        let (a, b) = table::edge_corners(e);
        assert_eq!(a ^ b, 1 << (e / 4), "edge {e} runs along its axis");
        assert!(a < b && seen.insert((a, b)), "edge {e}");
    }
}

fn corner(c: usize) -> Vec3 {
    Vec3::new((c & 1) as f32, (c >> 1 & 1) as f32, (c >> 2 & 1) as f32)
}

fn midpoint(e: u8) -> Vec3 {
    let (a, b) = table::edge_corners(e as usize);
    0.5 * (corner(a) + corner(b))
}

#[test]
fn every_case_fits_the_table_and_crosses_exactly_its_edges() {
    for case in 0..=255u8 {
        let tris = table::triangles(case);
        assert!(tris.len() <= MAX_TRIANGLES, "case {case}: {}", tris.len());
        let used: std::collections::BTreeSet<u8> = tris.iter().flatten().copied().collect();
        let crossed: std::collections::BTreeSet<u8> = (0..12u8)
            .filter(|&e| {
                let (a, b) = table::edge_corners(e as usize);
                (case >> a & 1) != (case >> b & 1)
            })
            .collect();
        assert_eq!(used, crossed, "case {case}");
    }
    assert!(table::triangles(0).is_empty() && table::triangles(255).is_empty());
    let words = table::gpu_words();
    assert_eq!(words.len(), 256 * CASE_WORDS);
    assert_eq!(words[CASE_WORDS], 1, "case 1: one triangle");
}

/// A single inside corner's triangle faces away from it; its complement's
/// faces towards it.
#[test]
fn table_triangles_face_the_outside() {
    for c in 0..8usize {
        let [a, b, d] = table::triangles(1 << c)[0].map(midpoint);
        let away = (a + b + d) / 3.0 - corner(c);
        assert!((b - a).cross(d - a).dot(away) > 0.0, "corner {c}");
        let [a, b, d] = table::triangles(!(1u8 << c))[0].map(midpoint);
        assert!(
            (b - a).cross(d - a).dot(away) < 0.0,
            "complement of corner {c}"
        );
    }
}

/// The emitted buffer is the view's vertex layout: drawn as it is, the
/// sphere's surface covers the centre of the image in its colour.
#[test]
fn the_extracted_surface_draws_in_the_view() {
    use collidoscope::view::{Camera, MeshMode, RenderTarget, ViewRenderer, ViewSettings};
    let gpu = common::gpu();
    let iso = IsoSurfaceGpu::new(&gpu);
    let (grid, values) = sphere_field(16, 0.5);
    let green = [0.0, 1.0, 0.0, 1.0];
    let surface = iso
        .extract(
            FieldGrid {
                grid,
                values: &values,
            },
            0.0,
            green,
        )
        .expect("extracts");
    assert!(surface.triangles > 0);
    let mut renderer = ViewRenderer::new(&gpu.device);
    renderer.set_surface(Some((surface.vertices, surface.triangles * 3)));
    let settings = ViewSettings {
        mesh_mode: MeshMode::Hidden,
        ..ViewSettings::default()
    };
    let target = RenderTarget::new(&gpu.device, 64, 64);
    renderer
        .try_render(&gpu, &target, &Camera::framing(grid.bounds()), &settings)
        .expect("renders");
    let img = target.read_rgba(&gpu).expect("reads back");
    let [r, g, b, _] = img.get_pixel(32, 32).0;
    assert!(g > 100 && r == 0 && b == 0, "centre pixel {:?}", [r, g, b]);
}
