//! The SDF grid stage: GPU backends and the CPU fast backend against the
//! CPU reference, analytic shapes, narrow band, sign modes.

use crate::common;

use collidoscope::geom::closest_point_triangle;
use collidoscope::mesh::PreparedMesh;
use collidoscope::mesh::{
    Mesh, PrimitiveKind, box_mesh, primitive_with_triangles, torus, uv_sphere,
};
use collidoscope::progress::Progress;
use collidoscope::stages::sdf::{
    self, Backend, FAR, FieldOutputs, SdfField, SdfGpu, SdfGrid, SdfParams, SignMode,
};
use glam::Vec3;

fn field(
    mesh: &PreparedMesh,
    params: &SdfParams,
    backend: Backend,
    gpu: Option<&SdfGpu>,
) -> SdfField {
    sdf::compute(mesh, params, backend, gpu, &Progress::default())
        .unwrap_or_else(|e| panic!("{} failed: {e}", backend.name()))
}

/// Compares `got` with the reference: |Δ| within float32 tolerance of the
/// grid diagonal, identical signs (when `closed`, away from the surface's
/// rounding zone), and a closest triangle that really is closest (ties
/// allowed). Panics naming the first failing cell.
fn assert_matches_reference(
    label: &str,
    mesh: &PreparedMesh,
    reference: &SdfField,
    got: &SdfField,
    closed: bool,
) {
    assert_eq!(reference.grid, got.grid, "{label}: grids differ");
    let tol = 2e-5 * reference.grid.bounds().diagonal();
    let mut max = 0.0f32;
    for cell in 0..reference.values.len() {
        let (r, g) = (reference.values[cell], got.values[cell]);
        let diff = (r.abs() - g.abs()).abs();
        max = max.max(diff);
        assert!(
            diff <= tol,
            "{label}: cell {cell} at {:?}: reference {r}, got {g} (|Δ| {diff} > {tol})",
            reference.grid.center_of(cell)
        );
        if closed && r.abs() > tol {
            assert_eq!(
                r < 0.0,
                g < 0.0,
                "{label}: sign differs at cell {cell} at {:?}: reference {r}, got {g}",
                reference.grid.center_of(cell)
            );
        }
        if let Some((t, _)) = got.closest_feature(cell) {
            let p = reference.grid.center_of(cell);
            let d = closest_point_triangle(p, mesh.mesh.corners(t as usize))
                .distance_squared
                .sqrt();
            assert!(
                (d - r.abs()).abs() <= tol,
                "{label}: cell {cell}: reported closest triangle {t} is at {d}, the closest is at {}",
                r.abs()
            );
        } else {
            assert_eq!(
                reference.closest[cell], FAR,
                "{label}: cell {cell} is far in the result but not in the reference"
            );
        }
    }
    eprintln!("{label}: max |Δ| {max:e} (tolerance {tol:e})");
}

fn compare_all_backends(
    name: &str,
    mesh: &Mesh,
    resolution: u32,
    closed: bool,
    sign_mode: SignMode,
) {
    let gpu_ctx = common::gpu();
    let gpu = SdfGpu::new(&gpu_ctx);
    let prepared = PreparedMesh::new(mesh).expect("mesh prepares");
    let params = SdfParams {
        resolution,
        padding: 0.1,
        band: None,
        sign_mode,
    };
    let [reference, rest @ ..] = common::run_each(Backend::ALL, |b, p| {
        SdfGrid::run(&prepared, &params, b, Some(&gpu), p)
    });
    for got in rest {
        assert_matches_reference(
            &format!("{name} {}", got.backend.name()),
            &prepared,
            &reference,
            &got,
            closed,
        );
    }
}

#[test]
fn backends_agree_on_closed_spot() {
    compare_all_backends(
        "spot",
        &common::sample("spot"),
        20,
        true,
        SignMode::PseudoNormal,
    );
}

#[test]
fn backends_agree_on_generated_primitives() {
    for kind in [
        PrimitiveKind::Box,
        PrimitiveKind::Cone,
        PrimitiveKind::Cylinder,
        PrimitiveKind::Torus,
        PrimitiveKind::Sphere,
    ] {
        let mesh = primitive_with_triangles(kind, 400);
        compare_all_backends(&mesh.name.clone(), &mesh, 16, true, SignMode::PseudoNormal);
    }
}

#[test]
fn backends_agree_on_open_teapot_in_both_sign_modes() {
    let teapot = common::sample("teapot");
    compare_all_backends(
        "teapot pseudo-normal",
        &teapot,
        16,
        false,
        SignMode::PseudoNormal,
    );
    compare_all_backends("teapot winding", &teapot, 16, true, SignMode::Winding);
}

#[test]
fn fine_sphere_matches_the_exact_sphere_distance() {
    // uv sphere of radius 0.5 (the generator's); tessellation error bounded
    // by the sagitta of the coarsest angular step.
    let (stacks, slices) = (48u32, 96u32);
    let mesh = uv_sphere(stacks, slices);
    let radius = mesh
        .positions
        .iter()
        .map(|p| p.length())
        .fold(0.0, f32::max);
    let step = std::f32::consts::PI / stacks as f32;
    let sagitta = radius * (1.0 - (step).cos()) * 2.0;
    let prepared = PreparedMesh::new(&mesh).unwrap();
    let gpu_ctx = common::gpu();
    let gpu = SdfGpu::new(&gpu_ctx);
    let params = SdfParams {
        resolution: 24,
        ..SdfParams::default()
    };
    let f = field(&prepared, &params, Backend::Gpu, Some(&gpu));
    for (cell, v) in f.values.iter().enumerate() {
        let exact = f.grid.center_of(cell).length() - radius;
        assert!(
            (v - exact).abs() <= sagitta + 1e-5,
            "cell {cell}: {v} vs exact {exact} (allowed {sagitta})"
        );
    }
}

#[test]
fn box_matches_the_exact_box_distance() {
    let mesh = box_mesh(3);
    let half = Vec3::splat(0.5);
    let prepared = PreparedMesh::new(&mesh).unwrap();
    let gpu_ctx = common::gpu();
    let gpu = SdfGpu::new(&gpu_ctx);
    let params = SdfParams {
        resolution: 20,
        padding: 0.3,
        ..SdfParams::default()
    };
    for backend in [Backend::Gpu, Backend::GpuBrute, Backend::CpuFast] {
        let f = field(&prepared, &params, backend, Some(&gpu));
        for (cell, v) in f.values.iter().enumerate() {
            let p = f.grid.center_of(cell);
            let q = p.abs() - half;
            let exact = q.max(Vec3::ZERO).length() + q.max_element().min(0.0);
            assert!(
                (v - exact).abs() <= 1e-5,
                "{}: cell {cell} at {p:?}: {v} vs exact {exact}",
                backend.name()
            );
        }
    }
}

#[test]
fn narrow_band_keeps_exact_values_inside_the_band_and_signs_outside() {
    let mesh = torus(24, 12, 0.35, 0.12);
    let prepared = PreparedMesh::new(&mesh).unwrap();
    let gpu_ctx = common::gpu();
    let gpu = SdfGpu::new(&gpu_ctx);
    let full_params = SdfParams {
        resolution: 24,
        ..SdfParams::default()
    };
    let full = field(&prepared, &full_params, Backend::CpuReference, None);
    let band_params = SdfParams {
        band: Some(2.0),
        ..full_params
    };
    for backend in Backend::ALL {
        let banded = field(&prepared, &band_params, backend, Some(&gpu));
        let band = 2.0 * banded.grid.cell_size;
        let mut far = 0;
        for cell in 0..full.values.len() {
            let (exact, b) = (full.values[cell], banded.values[cell]);
            if exact.abs() < band * 0.999 {
                assert!(
                    (exact - b).abs() < 1e-5,
                    "{}: cell {cell} in band: {b} vs {exact}",
                    backend.name()
                );
            } else if exact.abs() > band * 1.001 {
                far += 1;
                assert_eq!(
                    banded.closest[cell],
                    FAR,
                    "{}: cell {cell} beyond the band is not far",
                    backend.name()
                );
                assert_eq!(
                    b,
                    exact.signum() * band,
                    "{}: far cell {cell} has value {b}, expected ±{band} with the sign of {exact}",
                    backend.name()
                );
            }
        }
        assert!(
            far > full.values.len() / 4,
            "{}: the band should leave many far cells, found {far}",
            backend.name()
        );
    }
}

#[test]
fn winding_and_pseudo_normal_signs_agree_on_a_closed_mesh() {
    let prepared = PreparedMesh::new(&common::sample("spot")).unwrap();
    let base = SdfParams {
        resolution: 20,
        ..SdfParams::default()
    };
    let pn = field(&prepared, &base, Backend::CpuFast, None);
    let wn = field(
        &prepared,
        &SdfParams {
            sign_mode: SignMode::Winding,
            ..base
        },
        Backend::CpuFast,
        None,
    );
    let tol = 1e-3 * pn.grid.cell_size;
    for cell in 0..pn.values.len() {
        assert_eq!(
            pn.values[cell].abs(),
            wn.values[cell].abs(),
            "cell {cell}: winding mode changed a magnitude"
        );
        if pn.values[cell].abs() > tol {
            assert_eq!(
                pn.values[cell] < 0.0,
                wn.values[cell] < 0.0,
                "cell {cell}: signs differ ({} vs {})",
                pn.values[cell],
                wn.values[cell]
            );
        }
    }
    assert!(pn.inside_cells() > 100, "spot has inside cells");
}

#[test]
fn gpu_backends_report_gpu_time_when_the_adapter_has_timestamps() {
    let gpu_ctx = common::gpu();
    let gpu = SdfGpu::new(&gpu_ctx);
    let prepared = PreparedMesh::new(&common::sample("suzanne")).unwrap();
    let params = SdfParams {
        resolution: 12,
        ..SdfParams::default()
    };
    for backend in [Backend::GpuBrute, Backend::Gpu] {
        let f = field(&prepared, &params, backend, Some(&gpu));
        match f.timings.total_gpu_ms() {
            Some(ms) => assert!(
                ms > 0.0 && ms.is_finite(),
                "{}: GPU time {ms}",
                backend.name()
            ),
            None => assert!(
                !gpu_ctx.has_timestamps,
                "{}: the adapter has timestamps but no GPU time was reported",
                backend.name()
            ),
        }
    }
}

/// `compute_with(FieldOutputs::VALUES)` gives the same values bit for bit,
/// in both sign modes, and no closest triangles, unless the field has a
/// band (its far cells are marked there): then the same closest triangles
/// as `compute`.
#[test]
fn closest_triangles_come_back_only_when_asked_for_or_banded() {
    let gpu_ctx = common::gpu();
    let gpu = SdfGpu::new(&gpu_ctx);
    let prepared = PreparedMesh::new(&common::sample("suzanne")).unwrap();
    for (sign_mode, band) in [
        (SignMode::PseudoNormal, None),
        (SignMode::Winding, None),
        (SignMode::PseudoNormal, Some(2.0)),
    ] {
        let params = SdfParams {
            resolution: 16,
            band,
            sign_mode,
            ..SdfParams::default()
        };
        for backend in Backend::ALL {
            let label = format!("{} {} band {band:?}", backend.name(), sign_mode.name());
            let all = field(&prepared, &params, backend, Some(&gpu));
            let values = sdf::compute_with(
                &prepared,
                &params,
                backend,
                Some(&gpu),
                &Progress::default(),
                FieldOutputs::VALUES,
            )
            .unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(all.grid, values.grid, "{label}: grids differ");
            if let Some(cell) = (0..all.values.len())
                .find(|&c| all.values[c].to_bits() != values.values[c].to_bits())
            {
                panic!(
                    "{label}: cell {cell}: {} with closest triangles, {} without",
                    all.values[cell], values.values[cell]
                );
            }
            assert_eq!(all.closest.len(), all.values.len(), "{label}: all outputs");
            if band.is_some() {
                assert!(all.far_cells() > 0, "{label}: the band leaves far cells");
                assert_eq!(all.closest, values.closest, "{label}: far cells' marks");
            } else {
                assert!(values.closest.is_empty(), "{label}: closest not asked for");
                assert_eq!(values.closest_feature(0), None, "{label}");
            }
        }
    }
}

/// Our claim against the libraries that flip signs deep inside real meshes:
/// on closed, consistently oriented, self-intersection-free meshes the
/// pseudo-normal sign agrees with the winding number everywhere away from
/// the surface's rounding zone; and a mesh that passes through itself (the
/// cow) is reported as such, so its sign is not trusted.
#[test]
fn closed_meshes_have_no_sign_errors_and_self_intersections_are_reported() {
    for name in ["spot", "fandisk", "rocker-arm", "cheburashka"] {
        let prepared = PreparedMesh::new(&common::sample(name)).unwrap();
        assert!(
            prepared.report.pseudo_normal_sign_trusted,
            "{name} should be trusted: {}",
            prepared.report
        );
        let base = SdfParams {
            resolution: 40,
            ..SdfParams::default()
        };
        let pn = field(&prepared, &base, Backend::CpuFast, None);
        let wn = field(
            &prepared,
            &SdfParams {
                sign_mode: SignMode::Winding,
                ..base
            },
            Backend::CpuFast,
            None,
        );
        let half_cell = 0.5 * pn.grid.cell_size;
        let errors: Vec<usize> = (0..pn.values.len())
            .filter(|&c| {
                pn.values[c].abs() > half_cell && (pn.values[c] < 0.0) != (wn.values[c] < 0.0)
            })
            .collect();
        assert!(
            errors.is_empty(),
            "{name}: {} sign errors, first at cell {} (d = {})",
            errors.len(),
            errors[0],
            pn.values[errors[0]]
        );
    }
    let cow = PreparedMesh::new(&common::sample("cow")).unwrap();
    assert!(
        cow.report.closed && cow.report.self_intersecting_pairs > 0,
        "{}",
        cow.report
    );
    assert!(!cow.report.pseudo_normal_sign_trusted);
}

/// `mesh` with every triangle wound the other way.
fn inside_out(mesh: &Mesh) -> Mesh {
    let triangles = mesh.triangles.iter().map(|&[a, b, c]| [a, c, b]).collect();
    Mesh::new(mesh.name.clone(), mesh.positions.clone(), triangles)
}

/// The fields of `mesh` in both sign modes on the CPU and `gpu-brute`.
fn fields_in_both_modes(mesh: &Mesh, sdf_gpu: &SdfGpu) -> Vec<SdfField> {
    let prepared = PreparedMesh::new(mesh).unwrap();
    let mut fields = Vec::new();
    for sign_mode in SignMode::ALL {
        let params = SdfParams {
            resolution: 16,
            sign_mode,
            ..SdfParams::default()
        };
        fields.push(field(&prepared, &params, Backend::CpuFast, None));
        fields.push(field(&prepared, &params, Backend::GpuBrute, Some(sdf_gpu)));
    }
    fields
}

/// Every field of `got` has the values of the matching one of `expected`,
/// up to float32 rounding, and the same signs.
fn assert_same_fields(label: &str, expected: &[SdfField], got: &[SdfField]) {
    for (e, g) in expected.iter().zip(got) {
        let tol = 1e-5 * e.grid.bounds().diagonal();
        for cell in 0..e.values.len() {
            let (a, b) = (e.values[cell], g.values[cell]);
            assert!(
                (a - b).abs() <= tol,
                "{label}, {} {}: cell {cell}: {a} vs {b}",
                g.backend.name(),
                g.params.sign_mode.name()
            );
        }
    }
}

#[test]
fn inward_facing_and_nested_shells_get_the_winding_numbers_signs() {
    let ctx = common::gpu();
    let sdf_gpu = SdfGpu::new(&ctx);
    let outer = box_mesh(2);
    let inner = outer.transformed(glam::Mat4::from_scale(Vec3::splat(0.5)));

    // A closed mesh facing inward: reported, flipped, same field.
    let inward = inside_out(&outer);
    let report = PreparedMesh::new(&inward).unwrap().report;
    assert_eq!(report.inward_shells, 1);
    assert!(report.closed_shell_volumes[0] < 0.0, "{report}");
    assert!(report.to_string().contains("faces inward"), "{report}");
    let expected = fields_in_both_modes(&outer, &sdf_gpu);
    assert!(expected.iter().all(|f| f.inside_cells() > 100));
    assert_same_fields(
        "inward box",
        &expected,
        &fields_in_both_modes(&inward, &sdf_gpu),
    );

    // A hollow box (cavity wound inward), and the same turned inside out:
    // the cavity is outside (w = 0) in both, in both sign modes.
    let hollow = Mesh::merge(&[outer.clone(), inside_out(&inner)], "hollow");
    let report = PreparedMesh::new(&hollow).unwrap().report;
    assert_eq!(report.inward_shells, 0, "{report}");
    let expected = fields_in_both_modes(&hollow, &sdf_gpu);
    for f in &expected {
        let centre = f.grid.index(f.grid.cell_at(Vec3::ZERO).unwrap());
        assert!(f.values[centre] > 0.0, "the cavity is outside");
    }
    let inverted = inside_out(&hollow);
    assert_eq!(
        PreparedMesh::new(&inverted).unwrap().report.inward_shells,
        2
    );
    assert_same_fields(
        "inverted hollow box",
        &expected,
        &fields_in_both_modes(&inverted, &sdf_gpu),
    );

    // A shell inside a shell, both outward: w = 2 at the centre, inside.
    let nested = Mesh::merge(&[outer, inner], "nested");
    for f in fields_in_both_modes(&nested, &sdf_gpu) {
        let centre = f.grid.index(f.grid.cell_at(Vec3::ZERO).unwrap());
        assert!(
            f.values[centre] < 0.0,
            "{}: w = 2 is inside",
            f.params.sign_mode.name()
        );
    }
}

#[test]
fn an_opposite_pair_of_duplicate_faces_cancels() {
    let ctx = common::gpu();
    let sdf_gpu = SdfGpu::new(&ctx);
    let cube = box_mesh(2);
    let mut doubled = cube.clone();
    let [a, b, c] = cube.triangles[3];
    doubled.triangles.extend([[a, b, c], [a, c, b]]);
    assert_same_fields(
        "cube with an opposite pair",
        &fields_in_both_modes(&cube, &sdf_gpu),
        &fields_in_both_modes(&doubled, &sdf_gpu),
    );
    // A face stored once more, wound the other way: the pair cancels, and
    // the field is the one of the cube without that face.
    let mut paired = cube.clone();
    paired.triangles.push([a, c, b]);
    let mut holed = cube.clone();
    holed.triangles.remove(3);
    assert_same_fields(
        "cube with a face stored both ways",
        &fields_in_both_modes(&holed, &sdf_gpu),
        &fields_in_both_modes(&paired, &sdf_gpu),
    );
    let prepared = PreparedMesh::new(&doubled).unwrap();
    assert_eq!(prepared.report.duplicate_faces, 2);
    assert_eq!(prepared.report.opposite_duplicate_pairs, 1);
    assert_eq!(prepared.duplicates_removed, 2);
    assert!(
        prepared
            .report
            .warnings()
            .iter()
            .any(|w| w.contains("opposite")),
        "{}",
        prepared.report
    );
}

#[test]
fn padding_is_bounded_and_sizes_beyond_float32_are_refused() {
    let ok = |padding| {
        SdfParams {
            padding,
            ..SdfParams::default()
        }
        .validate()
        .is_ok()
    };
    assert!(ok(0.0) && ok(10.0));
    assert!(!ok(10.5) && !ok(1e30) && !ok(-0.1) && !ok(f32::NAN));
    let adaptive_ok = |padding| {
        let params = collidoscope::stages::adaptive::AdaptiveParams {
            padding,
            ..Default::default()
        };
        params.validate().is_ok()
    };
    assert!(adaptive_ok(10.0) && !adaptive_ok(1e30));
    let unit = box_mesh(1);
    for scale in [1e-12, 1e-6, 1.0, 1e6, 1e10, 1e17] {
        let scaled = unit.transformed(glam::Mat4::from_scale(Vec3::splat(scale)));
        assert!(PreparedMesh::new(&scaled).is_ok(), "{scale}");
    }
    for scale in [1e-18, 1e19, 1e25] {
        let scaled = unit.transformed(glam::Mat4::from_scale(Vec3::splat(scale)));
        let err = PreparedMesh::new(&scaled)
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains("beyond what float32"), "{scale}: {err}");
    }
    let moved = unit.transformed(glam::Mat4::from_translation(Vec3::splat(1e19)));
    assert!(PreparedMesh::new(&moved).is_err(), "coordinates of 1e19");
}

/// One `Backend::Gpu` call.
fn gpu_run(
    gpu: &SdfGpu,
    mesh: &PreparedMesh,
    resolution: u32,
    band: Option<f32>,
    outputs: FieldOutputs,
) -> Result<SdfField, sdf::SdfError> {
    let params = SdfParams {
        resolution,
        band,
        ..SdfParams::default()
    };
    let progress = Progress::default();
    sdf::compute_with(mesh, &params, Backend::Gpu, Some(gpu), &progress, outputs)
}

/// The GPU backend keeps a run's buffers for the next run they are large
/// enough for, and creates the staging buffer and the host's copy of the
/// field while the kernels run (copied to after them, in a second
/// submission): runs of smaller and larger grids of two meshes, with and
/// without the closest triangles, in a row on one `SdfGpu` give the
/// fields (values, closest triangles, evaluation counts) of runs on a new
/// `SdfGpu` each, nothing kept. A stale tail of a larger buffer, the other
/// mesh's triangles, counters not reset, a staging buffer too small or
/// a copy racing the kernels would show here.
#[test]
fn reused_run_buffers_give_the_fields_of_fresh_ones() {
    let gpu_ctx = common::gpu();
    let reused = SdfGpu::new(&gpu_ctx);
    let suzanne = PreparedMesh::new(&common::sample("suzanne")).unwrap();
    let ring = PreparedMesh::new(&torus(24, 12, 0.35, 0.12)).unwrap();
    let run = |gpu: &SdfGpu, mesh, resolution: u32, band: Option<f32>, outputs| {
        gpu_run(gpu, mesh, resolution, band, outputs)
            .unwrap_or_else(|e| panic!("{resolution}³: {e}"))
    };
    for (mesh, name, resolution, band, outputs) in [
        (&suzanne, "suzanne", 24, None, FieldOutputs::ALL),
        (&suzanne, "suzanne", 12, None, FieldOutputs::VALUES),
        (&ring, "torus", 16, Some(2.0), FieldOutputs::VALUES),
        (&suzanne, "suzanne", 20, None, FieldOutputs::ALL),
        (&ring, "torus", 28, None, FieldOutputs::ALL),
        (&ring, "torus", 30, None, FieldOutputs::VALUES),
        (&suzanne, "suzanne", 8, None, FieldOutputs::ALL),
    ] {
        let label = format!(
            "{name} {resolution}³ band {band:?} closest {}",
            outputs.closest
        );
        let got = run(&reused, mesh, resolution, band, outputs);
        let want = run(&SdfGpu::new(&gpu_ctx), mesh, resolution, band, outputs);
        assert_eq!(got.grid, want.grid, "{label}: grids differ");
        assert_eq!(got.values.len(), want.values.len(), "{label}: cells");
        if let Some(cell) =
            (0..want.values.len()).find(|&c| got.values[c].to_bits() != want.values[c].to_bits())
        {
            panic!(
                "{label}: cell {cell}: {} after earlier runs, {} fresh",
                got.values[cell], want.values[cell]
            );
        }
        assert_eq!(got.closest, want.closest, "{label}: closest triangles");
        assert_eq!(
            got.distance_evaluations, want.distance_evaluations,
            "{label}: evaluation counts"
        );
    }
}

/// A call that fails (a grid beyond the device's storage-binding limit)
/// leaves the stage usable: the next call, after a kept run of another
/// size, gives a fresh stage's field. Needs a device whose limit a grid
/// of at most `MAX_RESOLUTION`³ exceeds (lavapipe's 128 MiB).
#[test]
fn a_refused_grid_leaves_the_stage_usable() {
    let gpu_ctx = common::gpu();
    let limit = gpu_ctx.device.limits().max_storage_buffer_binding_size;
    let cube = PreparedMesh::new(&box_mesh(1)).unwrap();
    let too_large = (8..=sdf::MAX_RESOLUTION)
        .find(|&r| {
            let grid = sdf::GridSpec::around(cube.mesh.bounds(), r, 0.1);
            grid.num_cells() as u64 * 4 > limit
        })
        .unwrap_or_else(|| {
            panic!(
                "{}: every grid fits its {limit}-byte limit",
                gpu_ctx.describe()
            )
        });
    let stage = SdfGpu::new(&gpu_ctx);
    gpu_run(&stage, &cube, 20, None, FieldOutputs::ALL).expect("20³");
    let err = gpu_run(&stage, &cube, too_large, None, FieldOutputs::VALUES)
        .err()
        .unwrap_or_else(|| panic!("{too_large}³ beyond {limit} bytes was accepted"))
        .to_string();
    assert!(err.contains("SdfGpu::values"), "{too_large}³: {err}");
    let got = gpu_run(&stage, &cube, 16, None, FieldOutputs::ALL).expect("16³ after");
    let want = gpu_run(&SdfGpu::new(&gpu_ctx), &cube, 16, None, FieldOutputs::ALL).unwrap();
    let bits = |f: &SdfField| f.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(&want), "16³ after the refused grid");
    assert_eq!(
        got.closest, want.closest,
        "16³ closest after the refused grid"
    );
}

/// A field larger than a staging-ring chunk (`gpu::RING_CHUNK`) comes back
/// through several chunks, values and closest triangles, each cell where
/// it belongs: the GPU field of a box at 170³ (4.9 M cells, 19.7 MB per
/// part) against the CPU backend's.
#[test]
fn a_field_larger_than_a_ring_chunk_comes_back_whole() {
    let gpu_ctx = common::gpu();
    let stage = SdfGpu::new(&gpu_ctx);
    let cube = PreparedMesh::new(&box_mesh(1)).unwrap();
    let params = SdfParams {
        resolution: 170,
        ..SdfParams::default()
    };
    let want = field(&cube, &params, Backend::CpuFast, None);
    assert!(
        want.values.len() as u64 * 4 > collidoscope::gpu::RING_CHUNK,
        "{} cells fit one chunk",
        want.values.len()
    );
    let got = field(&cube, &params, Backend::Gpu, Some(&stage));
    assert_matches_reference("box 170³", &cube, &want, &got, true);
}

/// The first run on a mesh computes its tree's slabs on the GPU (phase
/// `slabs`, ahead of the distance kernels in their submission) and later
/// runs reuse them. The first run already prunes with them: its field and
/// its count of distance evaluations are the second's (a tree walked
/// without its slabs evaluates more triangles).
#[test]
fn the_tree_slabs_are_computed_once_per_resident_mesh() {
    let gpu = SdfGpu::new(&common::gpu());
    let mesh = PreparedMesh::new(&common::sample("suzanne")).unwrap();
    let run = || gpu_run(&gpu, &mesh, 20, None, FieldOutputs::VALUES).expect("runs");
    let slab_phases = |f: &SdfField| {
        f.timings
            .phases
            .iter()
            .filter(|p| p.name == "slabs")
            .count()
    };
    let (first, again) = (run(), run());
    assert_eq!((slab_phases(&first), slab_phases(&again)), (1, 0));
    assert!(
        first
            .values
            .iter()
            .map(|v| v.to_bits())
            .eq(again.values.iter().map(|v| v.to_bits())),
        "the fields differ"
    );
    assert_eq!(first.distance_evaluations, again.distance_evaluations);
}
