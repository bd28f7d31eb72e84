//! Image-space interference detection (Knott 2003, ch. 4), the counts:
//! GPU stencil counts against the CPU reference pixel for pixel, the CPU and
//! GPU backends behind the stage's one `run` alike, and coincident solids
//! reported as touching by every backend. All on the real rasteriser
//! (lavapipe in CI).

use crate::common;

use collidoscope::mesh::{box_mesh, torus};
use collidoscope::stages::interfere::{
    Backend, Identification, Interference, InterferenceGpu, InterferenceParams, InterferenceRun,
    InterferenceScene, OrthoView, RunOptions, StencilPasses, ViewAxis, count_cpu,
};
use glam::{Quat, Vec3};

use common::interfere_scenes::{CULLING, posed, scenes, tilt};

/// GPU stencil counts equal the CPU reference counts on every pixel where
/// the rasteriser's tie rules cannot decide (at most a few percent are
/// such), for every axis, both stencil modes, culled (the reference with
/// the same scissors) and not.
#[test]
fn gpu_counts_equal_cpu_counts_pixel_for_pixel() {
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    for (name, scene) in scenes() {
        let uploaded = stage.upload(&gpu, &scene);
        let params = InterferenceParams::default();
        let offset = scene.edge_offset(&params);
        for (axis, passes, cull) in ViewAxis::ALL.into_iter().flat_map(|axis| {
            [StencilPasses::TwoSided, StencilPasses::Separate]
                .into_iter()
                .flat_map(move |passes| CULLING.map(|cull| (axis, passes, cull)))
        }) {
            let view = OrthoView::fit(&scene, axis, 48, 40, offset);
            let options = RunOptions {
                passes,
                read_pixels: true,
                pairs: false,
                cull,
                identification: Identification::PairPasses,
            };
            let run = stage.run(&gpu, &uploaded, &view, offset, options).unwrap();
            assert_eq!(run.cull.is_some(), cull);
            let image = run.image.expect("read_pixels gives images");
            let cpu = count_cpu(&scene, &view, &image.edge_depth, run.cull.as_ref());
            let ambiguous = cpu.ambiguous.iter().filter(|&&a| a).count();
            assert!(
                ambiguous * 20 <= cpu.counts.len(),
                "{name}, {axis:?}: {ambiguous} ambiguous pixels"
            );
            for (i, (&g, &c)) in image.counts.iter().zip(&cpu.counts).enumerate() {
                if !cpu.ambiguous[i] {
                    assert_eq!(
                        g,
                        c,
                        "{name}, axis {axis:?}, {passes:?}, cull {cull}: pixel {i} ({}, {}) GPU {g} CPU {c}",
                        i % 48,
                        i / 48
                    );
                }
            }
            let positive = image.counts.iter().filter(|&&c| c > 0).count();
            let negative = image.negative_pixels();
            eprintln!(
                "{name}, {axis:?}, {passes:?}, cull {cull}: {positive} pixels > 0, {negative} < 0, {ambiguous} ambiguous"
            );
            // Every scene interferes; only the open box goes negative.
            assert!(positive > 0, "{name}, {axis:?}: no interfering pixel");
            if name.starts_with("open") && axis == ViewAxis::Z {
                assert!(negative > 0, "{name}, cull {cull}: no negative count");
            }
            if !name.starts_with("open") {
                assert_eq!(negative, 0, "{name}, {axis:?}: negative counts");
            }
            let edges = image.edge_depth.iter().filter(|&&d| d < 1.0).count();
            assert!(edges > 20, "{name}, {axis:?}: only {edges} edge pixels");
        }
    }
}

/// The CPU and the GPU backends behind the stage's one `run` agree on the
/// closed scenes, culled and not: the same pairs, per view and combined,
/// and on every pixel the CPU can decide (at least 80% at 96 × 80) the
/// same edge depth, edge owner, count and penetrated object.
#[test]
fn cpu_run_equals_gpu_run() {
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let positive = |r: &InterferenceRun| -> std::collections::BTreeSet<(usize, usize)> {
        r.queries
            .pairs
            .iter()
            .filter(|q| q.pixels > 0)
            .map(|q| (q.penetrating, q.penetrated))
            .collect()
    };
    for (name, scene) in scenes()
        .into_iter()
        .filter(|(_, s)| s.objects.iter().all(|o| o.closed))
    {
        for cull in CULLING {
            let params = InterferenceParams {
                width: 96,
                height: 80,
                cull,
                ..Default::default()
            };
            let input = (&scene, &ViewAxis::ALL[..]);
            let backends = [Backend::Cpu, Backend::Stencil];
            let [cpu, gpu] = common::run_each(backends, |b, p| {
                Interference::run(input, &params, b, Some(&stage), p)
            });
            assert_eq!(cpu.summary, gpu.summary, "{name}, cull {cull}: summaries");
            for (c, g) in cpu.runs.iter().zip(&gpu.runs) {
                let axis = c.view.axis;
                assert_eq!(
                    positive(c),
                    positive(g),
                    "{name}, {axis:?}, cull {cull}: pairs"
                );
                let (ci, gi) = (c.image.as_ref().unwrap(), g.image.as_ref().unwrap());
                let ambiguous = ci
                    .ambiguous
                    .as_ref()
                    .expect("the CPU marks its undecided pixels");
                let undecided = ambiguous.iter().filter(|&&a| a).count();
                assert!(
                    undecided * 5 <= ambiguous.len(),
                    "{name}, {axis:?}: {undecided} pixels undecided"
                );
                for p in (0..ambiguous.len()).filter(|&p| !ambiguous[p]) {
                    let at = format!(
                        "{name}, axis {axis:?}, cull {cull}: pixel {p} ({}, {})",
                        p % 96,
                        p / 96
                    );
                    let (cd, gd) = (ci.edge_depth[p], gi.edge_depth[p]);
                    assert!((cd - gd).abs() < 1e-5, "{at}: edge depth CPU {cd} GPU {gd}");
                    assert_eq!(ci.ids[p][0], gi.ids[p][0], "{at}: edge owner");
                    assert_eq!(ci.counts[p], gi.counts[p], "{at}: count");
                    assert_eq!(ci.penetrated[p], gi.penetrated[p], "{at}: penetrated");
                }
            }
        }
    }
}

/// Coincident surfaces: two identical cubes at one
/// pose, and two copies of a closed torus at one pose, give zero counts
/// wherever the CPU can decide (the offset edges lie outside both), so
/// they are reported as touching with their tied pixels; two cubes apart
/// are not. All three backends report the pair: as touching, or as interfering
/// where the rasteriser's ties on grazing faces give a positive count at
/// pixels the CPU cannot decide (the GPU on the tori). Where both call it
/// touching, their tied pixels differ by at most the undecided pixels.
#[test]
fn coincident_solids_are_touching_on_both_backends() {
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let (b, ring) = (box_mesh(1), torus(24, 12, 0.6, 0.2));
    let s = |objects| InterferenceScene::new(objects).unwrap();
    let at = Vec3::new(0.1, -0.2, 0.3);
    let cases = [
        (
            "cubes",
            s(vec![
                posed(&b, 1.0, Quat::IDENTITY, Vec3::ZERO),
                posed(&b, 1.0, Quat::IDENTITY, Vec3::ZERO),
            ]),
            true,
        ),
        (
            "tori",
            s(vec![
                posed(&ring, 1.0, tilt(), at),
                posed(&ring, 1.0, tilt(), at),
            ]),
            true,
        ),
        (
            "apart",
            s(vec![
                posed(&b, 1.0, Quat::IDENTITY, Vec3::ZERO),
                posed(&b, 1.0, Quat::IDENTITY, Vec3::new(1.5, 0.1, 0.0)),
            ]),
            false,
        ),
    ];
    let params = InterferenceParams {
        width: 96,
        height: 80,
        ..Default::default()
    };
    for (name, scene, touching) in cases {
        let input = (&scene, &ViewAxis::ALL[..]);
        let [cpu, stencil, compute] = common::run_each(Backend::ALL, |b, p| {
            Interference::run(input, &params, b, Some(&stage), p)
        });
        let undecided: u64 = cpu
            .runs
            .iter()
            .filter_map(|r| r.image.as_ref()?.ambiguous.as_ref())
            .map(|a| a.iter().filter(|&&x| x).count() as u64)
            .sum();
        for d in [&cpu, &stencil, &compute] {
            let backend = d.backend.name();
            let mut reported = d.summary.pairs.clone();
            reported.extend(d.summary.touching.iter().map(|t| t.objects));
            let expected: Vec<[usize; 2]> = if touching { vec![[0, 1]] } else { vec![] };
            assert_eq!(reported, expected, "{name}, {backend}: {:?}", d.summary);
            if let Some(t) = d.summary.touching.first() {
                assert!(t.tied_pixels > 100, "{name}, {backend}: {t:?}");
            }
        }
        for gpu in [&stencil, &compute] {
            let backend = gpu.backend.name();
            if let (Some(c), Some(g)) = (cpu.summary.touching.first(), gpu.summary.touching.first())
            {
                let (c, g) = (c.tied_pixels, g.tied_pixels);
                assert!(
                    c.abs_diff(g) <= undecided,
                    "{name}: tied pixels CPU {c}, {backend} {g}, {undecided} undecided"
                );
            }
        }
    }
}
