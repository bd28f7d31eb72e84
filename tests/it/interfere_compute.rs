//! The compute backend of interference detection (ray counting without the
//! rasteriser, `stages::interfere::compute`) against the CPU reference,
//! pixel for pixel, and against the stencil path's pairs, on every
//! interference test scene, view axis and culling setting. On lavapipe in
//! CI.

use crate::common;

use collidoscope::stages::interfere::compute::EdgePass;
use collidoscope::stages::interfere::{
    Backend, Identification, Interference, InterferenceGpu, InterferenceParams, InterferenceRun,
    OrthoView, RunOptions, ViewAxis, count_cpu, detect_compute, identify_cpu, run_cpu,
};

use common::interfere_scenes::{CULLING, scenes};

const W: u32 = 64;
const H: u32 = 56;

fn options(cull: bool, identification: Identification) -> RunOptions {
    RunOptions {
        cull,
        identification,
        ..Default::default()
    }
}

fn positive(r: &InterferenceRun) -> std::collections::BTreeSet<(usize, usize)> {
    r.queries
        .pairs
        .iter()
        .filter(|q| q.pixels > 0)
        .map(|q| (q.penetrating, q.penetrated))
        .collect()
}

/// On every scene (the open mesh included), axis and culling setting: the
/// compute run's counts equal the CPU reference's counts against the
/// compute run's own edge depths on every pixel the reference can decide,
/// and the whole compute run equals the CPU backend's run (its own edge
/// pass) on every pixel that one can decide — edge depth, edge owner,
/// count, penetrated object — with at most a fifth of the pixels
/// undecided.
#[test]
fn compute_equals_cpu_reference_pixel_for_pixel() {
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let compute = stage.compute();
    for (name, scene) in scenes() {
        let uploaded = compute.upload(&gpu, &scene).unwrap();
        let offset = scene.edge_offset(&InterferenceParams::default());
        let cases = ViewAxis::ALL.into_iter().flat_map(|axis| {
            CULLING.into_iter().flat_map(move |cull| {
                let passes = compute.edge_passes().into_iter();
                passes.map(move |edge_pass| (axis, cull, edge_pass))
            })
        });
        for (axis, cull, edge_pass) in cases {
            let view = OrthoView::fit(&scene, axis, W, H, offset);
            let o = options(cull, Identification::WeightedSums);
            let run = compute
                .run_with(&gpu, &uploaded, &view, offset, o, edge_pass)
                .unwrap();
            let image = run.image.as_ref().expect("read_pixels gives images");
            let case = format!("{name}, axis {axis:?}, cull {cull}, {edge_pass:?}");
            let at =
                |p: usize| format!("{case}: pixel {p} ({}, {})", p % W as usize, p / W as usize);

            let reference = count_cpu(&scene, &view, &image.edge_depth, run.cull.as_ref());
            let mut decided = 0;
            for p in (0..reference.counts.len()).filter(|&p| !reference.ambiguous[p]) {
                decided += 1;
                let (g, c) = (image.counts[p], reference.counts[p]);
                assert_eq!(g, c, "{}: count compute {g}, CPU {c}", at(p));
            }
            assert!(
                decided * 20 >= 19 * reference.counts.len(),
                "{case}: {decided} decided"
            );

            let cpu = run_cpu(&scene, &view, offset, cull);
            let ci = cpu.image.as_ref().unwrap();
            let ambiguous = ci.ambiguous.as_ref().unwrap();
            let undecided = ambiguous.iter().filter(|&&a| a).count();
            assert!(
                undecided * 5 <= ambiguous.len(),
                "{case}: {undecided} undecided"
            );
            for p in (0..ambiguous.len()).filter(|&p| !ambiguous[p]) {
                let (cd, gd) = (ci.edge_depth[p], image.edge_depth[p]);
                assert!(
                    (cd - gd).abs() < 1e-5,
                    "{}: edge depth CPU {cd}, compute {gd}",
                    at(p)
                );
                assert_eq!(ci.ids[p], image.ids[p], "{}: edge ids", at(p));
                assert_eq!(ci.counts[p], image.counts[p], "{}: count", at(p));
                assert_eq!(
                    ci.penetrated[p],
                    image.penetrated[p],
                    "{}: penetrated",
                    at(p)
                );
            }
            let positive_pixels = image.counts.iter().filter(|&&c| c > 0).count();
            assert!(positive_pixels > 0, "{case}: no interfering pixel");
            // The queries agree with the image (Alg. 5 against Alg. 2).
            let by_pixels = image.penetrating_pixels(scene.objects.len());
            assert_eq!(
                run.queries.object_pixels, by_pixels,
                "{case}: object pixels"
            );
        }
    }
}

/// Both edge passes leave the same images bit for bit (the nearest depth,
/// on a tie the smallest edge id), where the device has 64-bit atomics
/// (lavapipe has); the two-pass resolve is always there.
#[test]
fn one_pass_and_two_pass_edge_resolves_agree() {
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let compute = stage.compute();
    let passes = compute.edge_passes();
    assert_eq!(passes.last(), Some(&EdgePass::TwoPass));
    if passes.len() == 1 {
        eprintln!(
            "{}: no 64-bit atomics, only the two-pass resolve",
            gpu.describe()
        );
        return;
    }
    for (name, scene) in scenes() {
        let uploaded = compute.upload(&gpu, &scene).unwrap();
        let offset = scene.edge_offset(&InterferenceParams::default());
        for axis in ViewAxis::ALL {
            let view = OrthoView::fit(&scene, axis, 2 * W, 2 * H, offset);
            let [one, two] = [EdgePass::Atomic64, EdgePass::TwoPass].map(|edge_pass| {
                let o = options(true, Identification::WeightedSums);
                let run = compute.run_with(&gpu, &uploaded, &view, offset, o, edge_pass);
                run.unwrap().image.unwrap()
            });
            let depth_bits = |d: &[f32]| d.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            let case = format!("{name}, axis {axis:?}");
            assert_eq!(
                depth_bits(&one.edge_depth),
                depth_bits(&two.edge_depth),
                "{case}: depths"
            );
            assert_eq!(one.ids, two.ids, "{case}: ids");
            assert_eq!(one.counts, two.counts, "{case}: counts");
            assert!(one.edge_depth.iter().any(|&d| d < 1.0), "{case}: no edge");
        }
    }
}

/// The pairs: between the CPU reference's certain pairs (no pixel of the
/// pair ambiguous) and its possible ones, with both identifications, on
/// every scene, axis and culling setting; and the same per view as the
/// stencil path's wherever the CPU reference is certain of the answer
/// (the rasteriser's tie rules are not involved).
#[test]
fn compute_pairs_equal_reference_and_stencil_pairs() {
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let compute = stage.compute();
    for (name, scene) in scenes() {
        let uploaded = compute.upload(&gpu, &scene).unwrap();
        let stencil_scene = stage.upload(&gpu, &scene);
        let offset = scene.edge_offset(&InterferenceParams::default());
        for (axis, cull) in ViewAxis::ALL
            .into_iter()
            .flat_map(|axis| CULLING.map(|cull| (axis, cull)))
        {
            let view = OrthoView::fit(&scene, axis, W, H, offset);
            let stencil = stage
                .run(
                    &gpu,
                    &stencil_scene,
                    &view,
                    offset,
                    options(cull, Identification::PairPasses),
                )
                .unwrap();
            let stencil_pairs = positive(&stencil);
            let si = stencil.image.as_ref().unwrap();
            let stencil_reference = identify_cpu(
                &scene,
                &view,
                &si.edge_depth,
                &si.ids,
                stencil.cull.as_ref(),
            );
            for identification in Identification::ALL {
                let case = format!("{name}, axis {axis:?}, cull {cull}, {identification:?}");
                let run = compute
                    .run(
                        &gpu,
                        &uploaded,
                        &view,
                        offset,
                        options(cull, identification),
                    )
                    .unwrap();
                let image = run.image.as_ref().unwrap();
                let reference = identify_cpu(
                    &scene,
                    &view,
                    &image.edge_depth,
                    &image.ids,
                    run.cull.as_ref(),
                );
                let pairs = positive(&run);
                for pair in &reference.certain {
                    assert!(
                        pairs.contains(pair),
                        "{case}: certain pair {pair:?} missing from {pairs:?}"
                    );
                }
                for pair in &pairs {
                    assert!(
                        reference.possible.contains(pair),
                        "{case}: pair {pair:?} not possible ({:?})",
                        reference.possible
                    );
                }
                // A pair only one GPU backend finds is undecided by the
                // reference of one of them: a tie rule decides it.
                for pair in stencil_pairs.symmetric_difference(&pairs) {
                    let certain =
                        [&reference, &stencil_reference].map(|r| r.certain.contains(pair));
                    assert!(
                        certain != [true, true],
                        "{case}: pair {pair:?} certain, compute {pairs:?}, stencil {stencil_pairs:?}"
                    );
                }
                assert!(!pairs.is_empty(), "{case}: no pair");
                // Reading only the tallies (no images: pixels without an
                // edge point count nothing) answers the same.
                let queries = RunOptions {
                    read_pixels: false,
                    ..options(cull, identification)
                };
                let quick = compute
                    .run(&gpu, &uploaded, &view, offset, queries)
                    .unwrap();
                assert!(quick.image.is_none(), "{case}: images without read_pixels");
                assert_eq!(
                    quick.queries.object_pixels, run.queries.object_pixels,
                    "{case}: object pixels without images"
                );
                let pixels = |r: &InterferenceRun| {
                    let mut p: Vec<_> = r
                        .queries
                        .pairs
                        .iter()
                        .map(|q| (q.penetrating, q.penetrated, q.pixels))
                        .collect();
                    p.sort();
                    p
                };
                assert_eq!(pixels(&quick), pixels(&run), "{case}: pairs without images");
            }
        }
    }
}

/// The compute backend behind the stage's one `run` gives the same
/// summary (pairs, self-only objects, touching pairs) as the stencil path
/// and the CPU on the closed scenes, culled and not.
#[test]
fn compute_summary_equals_stencil_and_cpu_summaries() {
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
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
            let [cpu, stencil, compute] = common::run_each(Backend::ALL, |b, p| {
                Interference::run(input, &params, b, Some(&stage), p)
            });
            assert_eq!(compute.backend, Backend::Compute);
            assert_eq!(
                compute.summary, cpu.summary,
                "{name}, cull {cull}: compute vs CPU"
            );
            assert_eq!(
                compute.summary, stencil.summary,
                "{name}, cull {cull}: compute vs stencil"
            );
            let (_, direct) = detect_compute(
                &stage,
                &scene,
                &params,
                &ViewAxis::ALL,
                RunOptions::default(),
            )
            .unwrap();
            assert_eq!(direct, compute.summary, "{name}: detect_compute");
        }
    }
}

/// Boxes apart: with culling nothing is drawn (no GPU pass, early
/// non-interference, empty images); without it every edge is drawn, no
/// pair is found, and the counts equal the CPU reference's on every pixel
/// it can decide (spurious self-interference, §4.5.8, included: culling
/// is what removes it).
#[test]
fn apart_boxes_count_nothing() {
    use collidoscope::mesh::box_mesh;
    use common::interfere_scenes::posed;
    use glam::{Quat, Vec3};
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let compute = stage.compute();
    let b = box_mesh(2);
    let scene = collidoscope::stages::interfere::InterferenceScene::new(vec![
        posed(&b, 1.0, Quat::IDENTITY, Vec3::ZERO),
        posed(
            &b,
            1.0,
            Quat::from_rotation_z(0.3),
            Vec3::new(2.0, 0.4, 0.0),
        ),
        posed(&b, 0.5, Quat::IDENTITY, Vec3::new(0.2, 2.5, -0.3)),
    ])
    .unwrap();
    let uploaded = compute.upload(&gpu, &scene).unwrap();
    let offset = scene.edge_offset(&InterferenceParams::default());
    for axis in ViewAxis::ALL {
        let view = OrthoView::fit(&scene, axis, W, H, offset);
        let [culled, drawn] = CULLING.map(|cull| {
            let o = options(cull, Identification::WeightedSums);
            compute.run(&gpu, &uploaded, &view, offset, o).unwrap()
        });
        assert!(culled.queries.early_exit, "{axis:?}: {:?}", culled.queries);
        assert!(
            culled.phases.is_empty(),
            "{axis:?}: culling drew nothing, ran nothing"
        );
        let ci = culled.image.unwrap();
        assert!(
            ci.edge_depth.iter().all(|&d| d == 1.0),
            "{axis:?}: culled edges"
        );
        assert!(ci.counts.iter().all(|&c| c == 0), "{axis:?}: culled count");
        assert!(
            drawn.queries.pairs.is_empty(),
            "{axis:?}: {:?}",
            drawn.queries
        );
        let di = drawn.image.unwrap();
        assert!(
            di.edge_depth.iter().any(|&d| d < 1.0),
            "{axis:?}: no edge drawn"
        );
        let reference = count_cpu(&scene, &view, &di.edge_depth, None);
        for p in (0..di.counts.len()).filter(|&p| !reference.ambiguous[p]) {
            assert_eq!(di.counts[p], reference.counts[p], "{axis:?}: pixel {p}");
        }
    }
}

/// Pass 1 covers the pixels the rasteriser's lines cover (the
/// one-pixel-wide rectangle about each edge, between its ends), so on a
/// dense scene of many boxes the compute and stencil edge images — which
/// edge point is nearest in each pixel — differ only at the rectangle's
/// boundaries, where the rasteriser's tie rules decide (well under 1% of
/// the edge pixels; a Bresenham walk, one centre per column, differs at
/// about a tenth of them and hides fewer edge points, finding pairs the
/// stencil path cannot), and the two backends find the same pairs but for
/// ones resting on a tied pixel or two.
#[test]
fn compute_edge_image_matches_the_rasterisers_lines() {
    use collidoscope::stages::interfere::scenes;
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let compute = stage.compute();
    let meshes = scenes::Shapes::Boxes.meshes(3);
    let placements = scenes::placements(60, meshes.len(), 11, scenes::Layout::DENSE);
    let scene = scenes::build(&meshes, &placements).unwrap();
    let offset = scene.edge_offset(&InterferenceParams::default());
    let view = OrthoView::fit(&scene, ViewAxis::Z, 384, 384, offset);
    let o = options(true, Identification::PairPasses);
    let stencil = stage
        .run(&gpu, &stage.upload(&gpu, &scene), &view, offset, o)
        .unwrap();
    let uploaded = compute.upload(&gpu, &scene).unwrap();
    let run = compute.run(&gpu, &uploaded, &view, offset, o).unwrap();
    let (si, ci) = (stencil.image.as_ref().unwrap(), run.image.as_ref().unwrap());
    let edge_pixels = si.ids.iter().filter(|ids| ids[0] != 0).count();
    let differing: Vec<usize> = (0..si.ids.len())
        .filter(|&p| si.ids[p] != ci.ids[p])
        .collect();
    assert!(
        edge_pixels > 20_000,
        "{edge_pixels} edge pixels: scene too sparse"
    );
    assert!(
        differing.len() * 100 < edge_pixels,
        "{} of {edge_pixels} edge pixels differ from the stencil path's (first at {:?})",
        differing.len(),
        differing.first()
    );
    let (s, c) = (positive(&stencil), positive(&run));
    let pixels = |r: &InterferenceRun, pair: &(usize, usize)| {
        let q = r.queries.pairs.iter();
        q.filter(|q| (q.penetrating, q.penetrated) == *pair)
            .map(|q| q.pixels)
            .sum::<u64>()
    };
    for pair in s.symmetric_difference(&c) {
        let most = pixels(&stencil, pair).max(pixels(&run, pair));
        assert!(
            most <= 2,
            "pair {pair:?} only one backend finds rests on {most} pixels (stencil {s:?}, compute {c:?})"
        );
    }
    assert!(s.len() > 20, "{} pairs: scene too sparse", s.len());
}
