//! Image-space interference detection (Knott 2003, ch. 4): GPU stencil
//! counts against the CPU reference, known answers, and occlusion queries
//! against read pixels, with and without the bounding-box culling. All on
//! the real rasteriser (lavapipe in CI).

mod common;

use collidoscope::mesh::{box_mesh, torus};
use collidoscope::stages::interference::{
    Backend, Identification, Interference, InterferenceGpu, InterferenceObject, InterferenceParams,
    InterferenceRun, InterferenceScene, InterferenceSummary, Localisation, OrthoView, RunOptions,
    StencilPasses, ViewAxis, count_cpu, count_cpu_objects, detect_gpu, identify_cpu,
};
use glam::{Mat4, Quat, Vec3};

use common::interference_scenes::{CULLING, open_box, open_box_scene, posed, scenes, tilt};

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
            let [cpu, gpu] = common::run_each::<Interference, 2>(input, &params, backends, &stage);
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

/// All passes with the default options, which must succeed.
fn detect(
    gpu: &collidoscope::gpu::GpuContext,
    stage: &InterferenceGpu,
    scene: &InterferenceScene,
    params: &InterferenceParams,
    axes: &[ViewAxis],
) -> (Vec<InterferenceRun>, InterferenceSummary) {
    detect_gpu(gpu, stage, scene, params, axes, RunOptions::default()).unwrap()
}

fn summary(scene: &InterferenceScene) -> InterferenceSummary {
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let params = InterferenceParams {
        width: 96,
        height: 96,
        ..Default::default()
    };
    let (runs, summary) = detect(&gpu, &stage, scene, &params, &ViewAxis::ALL);
    // Occlusion-query answers equal the read-pixels answers (§4.5.2).
    for run in &runs {
        let image = run.image.as_ref().unwrap();
        let by_pixels = image.penetrating_pixels(scene.objects.len());
        for (k, (&q, &p)) in run.queries.object_pixels.iter().zip(&by_pixels).enumerate() {
            assert_eq!(
                q > 0,
                p > 0,
                "object {k}, axis {:?}: query {q} pixels, read {p}",
                run.view.axis
            );
        }
    }
    summary
}

#[test]
fn two_boxes_known_answers() {
    let b = box_mesh(1);
    let s = |objects| InterferenceScene::new(objects).unwrap();
    let overlapping = s(vec![
        posed(&b, 1.0, Quat::IDENTITY, Vec3::ZERO),
        posed(&b, 1.0, tilt(), Vec3::new(0.7, 0.2, 0.1)),
    ]);
    assert_eq!(summary(&overlapping).pairs, vec![[0, 1]]);

    // Face to face: A's +x side lies in B's −x side. Touching is
    // interference (a = b in §4.2); the offset edges of A enter B.
    let touching = s(vec![
        posed(&b, 1.0, Quat::IDENTITY, Vec3::ZERO),
        posed(&b, 2.0, Quat::IDENTITY, Vec3::new(1.5, 0.1, 0.05)),
    ]);
    assert_eq!(summary(&touching).pairs, vec![[0, 1]]);

    let apart = s(vec![
        posed(&b, 1.0, Quat::IDENTITY, Vec3::ZERO),
        posed(&b, 1.0, tilt(), Vec3::new(1.5, 0.1, 0.0)),
    ]);
    let r = summary(&apart);
    assert!(r.pairs.is_empty(), "{r:?}");
    assert_eq!(r.interfering, vec![false, false]);

    // Theorem 4.1's "wholly contains": no surfaces cross, B's edges are
    // inside A.
    let inside = s(vec![
        posed(&b, 3.0, Quat::IDENTITY, Vec3::ZERO),
        posed(&b, 1.0, tilt(), Vec3::new(0.2, 0.1, 0.0)),
    ]);
    let r = summary(&inside);
    assert_eq!(r.pairs, vec![[0, 1]]);
    assert!(r.self_only.is_empty(), "{r:?}");
}

/// Non-convex: a box through the hole of a torus does not touch it; moved
/// onto the tube, it does.
#[test]
fn box_in_torus_hole_known_answers() {
    let ring = torus(24, 12, 0.6, 0.2);
    let b = box_mesh(1);
    let through = InterferenceScene::new(vec![
        posed(&ring, 1.0, Quat::IDENTITY, Vec3::ZERO),
        posed(&b, 0.4, Quat::IDENTITY, Vec3::new(0.0, 0.0, 0.0)),
    ])
    .unwrap();
    assert!(summary(&through).pairs.is_empty());
    let on_tube = InterferenceScene::new(vec![
        posed(&ring, 1.0, Quat::IDENTITY, Vec3::ZERO),
        posed(&b, 0.4, Quat::IDENTITY, Vec3::new(0.6, 0.0, 0.0)),
    ])
    .unwrap();
    assert_eq!(summary(&on_tube).pairs, vec![[0, 1]]);
}

/// An open mesh gives negative counts where a ray sees its inside through
/// the hole (§4.4.1), on the view facing the hole.
/// Alone, it overlaps nothing: culling draws none of it, so only the run
/// without culling shows them.
#[test]
fn open_mesh_gives_negative_counts() {
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let scene = InterferenceScene::new(vec![posed(
        &open_box(1),
        1.0,
        Quat::from_rotation_x(0.05),
        Vec3::ZERO,
    )])
    .unwrap();
    assert!(!scene.objects[0].closed);
    for cull in CULLING {
        let params = InterferenceParams {
            cull,
            ..Default::default()
        };
        let (runs, _) = detect(&gpu, &stage, &scene, &params, &[ViewAxis::Z]);
        let image = runs[0].image.as_ref().unwrap();
        assert_eq!(image.negative_pixels() > 0, !cull, "cull {cull}");
    }
    let closed = InterferenceScene::new(vec![posed(
        &box_mesh(1),
        1.0,
        Quat::from_rotation_x(0.05),
        Vec3::ZERO,
    )])
    .unwrap();
    let (runs, _) = detect(
        &gpu,
        &stage,
        &closed,
        &InterferenceParams::default(),
        &[ViewAxis::Z],
    );
    assert_eq!(runs[0].image.as_ref().unwrap().negative_pixels(), 0);
}

/// Whether the global edges `a` and `b` of `object` (ids − 1) are one
/// edge or share a vertex.
fn same_or_adjacent(scene: &InterferenceScene, object: usize, a: u32, b: u32) -> bool {
    let base: u32 = scene.objects[..object]
        .iter()
        .map(|o| o.edges.len() as u32)
        .sum();
    let edges = &scene.objects[object].edges;
    let [a, b] = [a, b].map(|e| edges[(e - base) as usize]);
    a.iter().any(|v| b.contains(v))
}

/// Identification per the paper on every scene and axis, culled and not:
/// pass 4's colour image (Alg. 3) holds pass 1's ids where the count is
/// positive (the same object, and the same edge but where edges meet at one
/// depth: pass 1 keeps the first drawn, pass 4 the last); the pair queries
/// (Alg. 4–5) equal the CPU reference's per-object counts (every certain
/// pair found, nothing outside the possible pairs); the penetrated image
/// names an object whose faces alone contain that pixel, a pixel of
/// positive count where every mesh is closed.
#[test]
fn gpu_identification_equals_cpu_reference() {
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    for (name, scene) in scenes() {
        let uploaded = stage.upload(&gpu, &scene);
        let offset = scene.edge_offset(&InterferenceParams::default());
        for (axis, cull, identification) in ViewAxis::ALL.into_iter().flat_map(|axis| {
            CULLING
                .into_iter()
                .flat_map(move |cull| Identification::ALL.map(|id| (axis, cull, id)))
        }) {
            let view = OrthoView::fit(&scene, axis, 48, 40, offset);
            let options = RunOptions {
                cull,
                identification,
                ..Default::default()
            };
            let run = stage.run(&gpu, &uploaded, &view, offset, options).unwrap();
            let image = run.image.as_ref().unwrap();
            for (i, ((&c, &ids), &inside)) in image
                .counts
                .iter()
                .zip(&image.ids)
                .zip(&image.inside_ids)
                .enumerate()
            {
                let at = format!("{name}, {axis:?}, cull {cull}: pixel {i} count {c}");
                if c <= 0 {
                    assert_eq!(inside, [0, 0], "{at}");
                    continue;
                }
                assert_eq!(inside[0], ids[0], "{at}");
                let object = ids[0] as usize - 1;
                assert!(
                    same_or_adjacent(&scene, object, ids[1] - 1, inside[1] - 1),
                    "{at}: edges {ids:?} {inside:?}"
                );
            }
            let cpu = identify_cpu(
                &scene,
                &view,
                &image.edge_depth,
                &image.ids,
                run.cull.as_ref(),
            );
            let gpu_pairs: std::collections::BTreeSet<(usize, usize)> = run
                .queries
                .pairs
                .iter()
                .filter(|p| p.pixels > 0)
                .map(|p| (p.penetrating, p.penetrated))
                .collect();
            assert!(
                cpu.certain.is_subset(&gpu_pairs) && gpu_pairs.is_subset(&cpu.possible),
                "{name}, {axis:?}: GPU pairs {gpu_pairs:?}, CPU certain {:?} possible {:?}",
                cpu.certain,
                cpu.possible
            );
            // Each pair's query counts every pixel where i's nearest edge
            // point is surely inside j: the pair passes' per-pair edge
            // lists and scissors lose none of them.
            for q in &run.queries.pairs {
                let least = cpu
                    .certain_pixels
                    .get(&(q.penetrating, q.penetrated))
                    .copied()
                    .unwrap_or(0);
                assert!(
                    q.pixels >= least,
                    "{name}, {axis:?}, cull {cull}: {q:?} but {least} pixels certain"
                );
            }
            for (p, &into) in image.penetrated.iter().enumerate() {
                let Some(j) = (into as usize).checked_sub(1) else {
                    continue;
                };
                let alone =
                    count_cpu_objects(&scene, &view, &image.edge_depth, run.cull.as_ref(), |k| {
                        k == j
                    });
                assert!(
                    alone.ambiguous[p] || alone.counts[p] > 0,
                    "{name}, {axis:?}: pixel {p} says inside {j}, CPU count {}",
                    alone.counts[p]
                );
                // An open mesh's −1 can cancel j's +1 in the full count.
                let closed = scene.objects.iter().all(|o| o.closed);
                assert!(
                    !closed || image.counts[p] > 0,
                    "{name}, {axis:?}: pixel {p}"
                );
            }
        }
    }
}

/// Early non-interference (§4.5.2): objects apart stop after pass 4 with no
/// pair tested; overlapping ones test only the penetrating objects. (The
/// apart boxes are axis-aligned: tilted faces seen steeply can put an edge
/// point half a pixel behind its own face at this resolution, spurious
/// self-interference that defeats the early exit, §4.5.8.)
#[test]
fn early_non_interference_skips_pair_passes() {
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let b = box_mesh(1);
    let apart = InterferenceScene::new(vec![
        posed(&b, 1.0, Quat::IDENTITY, Vec3::ZERO),
        posed(&b, 1.0, Quat::IDENTITY, Vec3::new(1.5, 0.1, 0.0)),
    ])
    .unwrap();
    let params = InterferenceParams {
        width: 64,
        height: 64,
        ..Default::default()
    };
    let (runs, _) = detect_gpu(&gpu, &stage, &apart, &params, &[ViewAxis::Z], QUERIES).unwrap();
    assert!(runs[0].queries.early_exit, "{:?}", runs[0].queries);
    assert!(runs[0].queries.pairs.is_empty());
    let overlapping = InterferenceScene::new(vec![
        posed(&b, 1.0, Quat::IDENTITY, Vec3::ZERO),
        posed(&b, 1.0, tilt(), Vec3::new(0.7, 0.2, 0.1)),
    ])
    .unwrap();
    let (runs, summary) =
        detect_gpu(&gpu, &stage, &overlapping, &params, &[ViewAxis::Z], QUERIES).unwrap();
    let q = &runs[0].queries;
    assert!(!q.early_exit);
    assert_eq!(summary.pairs, vec![[0, 1]]);
    for p in &q.pairs {
        assert!(q.object_pixels[p.penetrating] > 0, "{p:?} tested");
    }
}

const QUERIES: RunOptions = RunOptions {
    passes: StencilPasses::TwoSided,
    read_pixels: false,
    pairs: true,
    cull: true,
    identification: Identification::WeightedSums,
};

/// Localisation (§4.5.5): every localised point of a box dipped into a
/// bigger box lies on an edge of its object and inside the other one; the
/// interfering edges are those points' edges; the pairs are the summary's.
/// The open box's negative counts are reported against it.
#[test]
fn localised_points_lie_on_interfering_edges() {
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let b = box_mesh(1);
    let poses = [
        Mat4::from_scale(Vec3::splat(2.0)),
        Mat4::from_scale_rotation_translation(Vec3::splat(0.5), tilt(), Vec3::new(1.1, 0.2, 0.1)),
    ];
    let scene = InterferenceScene::new(
        poses
            .iter()
            .map(|&m| InterferenceObject::new(&b, m))
            .collect(),
    )
    .unwrap();
    let params = InterferenceParams {
        width: 64,
        height: 64,
        ..Default::default()
    };
    let (runs, summary) = detect(&gpu, &stage, &scene, &params, &ViewAxis::ALL);
    let located = Localisation::from_runs(&scene, &runs);
    assert_eq!(located.pairs, summary.pairs);
    assert_eq!(located.pairs, vec![[0, 1]]);
    assert!(located.points.len() > 10, "{} points", located.points.len());
    // A pixel's ray meets the edge within half a pixel diagonal of its
    // centre; the edge is pushed out by the offset.
    let (px, py) = runs[0].view.pixel_size();
    let tolerance = 0.75 * (px * px + py * py).sqrt() + 2.0 * scene.edge_offset(&params) as f64;
    let mut edges = std::collections::BTreeSet::new();
    for p in &located.points {
        assert_ne!(p.object, p.penetrated, "{p:?}");
        let o = &scene.objects[p.object];
        let [a, c] = o.edges[p.edge as usize];
        let (a, c) = (
            o.mesh.positions[a as usize].as_dvec3(),
            o.mesh.positions[c as usize].as_dvec3(),
        );
        let t = ((p.position - a).dot(c - a) / (c - a).length_squared()).clamp(0.0, 1.0);
        let distance = (a + t * (c - a) - p.position).length();
        assert!(
            distance <= tolerance,
            "{p:?}: {distance} from edge {}",
            p.edge
        );
        // Inside the penetrated unit box, in its own frame (scaled).
        let inverse = poses[p.penetrated].inverse().as_dmat4();
        let local = inverse.transform_point3(p.position);
        let scale = if p.penetrated == 0 { 2.0 } else { 0.5 };
        assert!(
            local.abs().max_element() <= 0.5 + tolerance / scale,
            "{p:?}: local {local}"
        );
        edges.insert((p.object, p.edge));
    }
    assert_eq!(located.edges, edges.into_iter().collect::<Vec<_>>());
    assert!(located.open_meshes.open_objects.is_empty());

    let open = open_box_scene();
    let (runs, _) = detect(&gpu, &stage, &open, &params, &[ViewAxis::Z]);
    let report = Localisation::from_runs(&open, &runs).open_meshes;
    assert_eq!(report.open_objects, vec![0]);
    assert!(
        report.negative_pixels.iter().any(|&(o, n)| o == 0 && n > 0),
        "{report:?}"
    );
    assert!(
        report.negative_pixels.iter().all(|&(o, _)| o == 0),
        "{report:?}"
    );
}

/// Culling is exact (`cull.rs`): on every scene and axis the culled run
/// finds the same pairs as drawing everything, every pixel where that
/// found an edge point inside another object is the same (depth, count,
/// penetrated object), and at every pixel whose nearest edge point is the
/// same in both runs (same depth) the counts are equal — except where an object whose faces the culled run does not draw
/// at that pixel would have added a count there by itself: an open mesh
/// seen through its hole, or an object's own edge (spurious
/// self-interference, §4.5.8). It draws fewer triangles, and nothing of an
/// object overlapping no other.
#[test]
fn culling_keeps_pairs_and_counts() {
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    for (name, scene) in scenes() {
        let uploaded = stage.upload(&gpu, &scene);
        let offset = scene.edge_offset(&InterferenceParams::default());
        for axis in ViewAxis::ALL {
            let view = OrthoView::fit(&scene, axis, 48, 40, offset);
            let [culled, full] = CULLING.map(|cull| {
                let options = RunOptions {
                    cull,
                    ..Default::default()
                };
                stage.run(&gpu, &uploaded, &view, offset, options).unwrap()
            });
            let objects = scene.objects.len();
            let pairs = |run: &InterferenceRun| {
                InterferenceSummary::from_runs(objects, std::slice::from_ref(run)).pairs
            };
            assert_eq!(pairs(&culled), pairs(&full), "{name}, {axis:?}: pairs");
            let plan = culled.cull.as_ref().unwrap();
            let (a, b) = (culled.image.as_ref().unwrap(), full.image.as_ref().unwrap());
            let (mut same, mut excused) = (0, 0);
            for p in 0..a.counts.len() {
                // Culling only removes edges: the nearest is as near or
                // farther, and the same at every pixel where the full run
                // found an edge point inside another object.
                assert!(a.edge_depth[p] >= b.edge_depth[p], "{name}, {axis:?}: {p}");
                let owner = (b.ids[p][0] as usize).checked_sub(1);
                let inside = (b.penetrated[p] as usize).checked_sub(1);
                if inside.is_some() && inside != owner {
                    assert_eq!(a.edge_depth[p], b.edge_depth[p], "{name}, {axis:?}: {p}");
                    assert_eq!(a.counts[p], b.counts[p], "{name}, {axis:?}: {p}");
                    assert_eq!(a.penetrated[p], b.penetrated[p], "{name}, {axis:?}: {p}");
                }
                if a.edge_depth[p].to_bits() != b.edge_depth[p].to_bits() {
                    continue;
                }
                same += 1;
                if a.counts[p] == b.counts[p] {
                    continue;
                }
                let (x, y) = ((p % 48) as u32, (p / 48) as u32);
                let excuse = (0..objects).any(|k| {
                    let may_count = !scene.objects[k].closed || owner == Some(k);
                    may_count && !plan.faces_at(k, x, y) && {
                        let alone =
                            count_cpu_objects(&scene, &view, &b.edge_depth, None, |o| o == k);
                        alone.ambiguous[p] || alone.counts[p] != 0
                    }
                });
                assert!(
                    excuse,
                    "{name}, {axis:?}: pixel ({x}, {y}) culled {} full {}",
                    a.counts[p], b.counts[p]
                );
                excused += 1;
            }
            eprintln!(
                "{name}, {axis:?}: {same} pixels with the same edge depth, {excused} differ \
                 by an undrawn open or own mesh; drawn {:?}",
                culled.drawn
            );
            assert!(same > 0, "{name}, {axis:?}: no pixel has the same edge");
            let d = culled.drawn;
            assert_eq!(full.drawn.triangles.drawn, full.drawn.triangles.total);
            assert_eq!(d.triangles.total, full.drawn.triangles.total);
            assert!(d.triangles.drawn < d.triangles.total, "{name}: {d:?}");
            assert!(d.edges.drawn <= d.edges.total, "{name}: {d:?}");
            if name.ends_with("apart") {
                assert_eq!(d.objects.drawn, 2, "{name}: {d:?}");
            }
        }
    }
}

/// Objects on a grid with gaps overlap no other box: culling draws no
/// triangle and no edge, and the run ends in early non-interference.
#[test]
fn apart_scene_draws_nothing() {
    use collidoscope::stages::interference::scenes;
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let meshes = scenes::Shapes::Mixed.meshes(2);
    let scene = scenes::build(
        &meshes,
        &scenes::placements(27, meshes.len(), 3, scenes::Layout::Grid),
    )
    .unwrap();
    for cull in CULLING {
        let params = InterferenceParams {
            width: 64,
            height: 64,
            cull,
            ..Default::default()
        };
        let (runs, summary) = detect(&gpu, &stage, &scene, &params, &ViewAxis::ALL);
        assert!(summary.pairs.is_empty());
        for run in &runs {
            let d = run.drawn;
            assert_eq!(d.triangles.total as usize, scene.triangle_count());
            if cull {
                assert!(run.queries.early_exit, "{:?}", run.queries);
                assert_eq!(d.objects.drawn, 0, "{d:?}");
                assert_eq!(d.triangles.drawn, 0, "{d:?}");
                assert_eq!(d.edges.drawn, 0, "{d:?}");
                let image = run.image.as_ref().unwrap();
                assert!(image.edge_depth.iter().all(|&z| z == 1.0));
                assert!(image.counts.iter().all(|&c| c == 0));
                // Nothing drawn, so nothing summed or decoded, and the
                // report still names the mode asked for.
                assert_eq!(run.identification.used, Some(Identification::WeightedSums));
                assert!(
                    run.phases.iter().all(|p| !p.name.contains("weighted sums")),
                    "{:?}",
                    run.phases.iter().map(|p| &p.name).collect::<Vec<_>>()
                );
            } else {
                assert_eq!(d.triangles.drawn, d.triangles.total);
            }
        }
    }
}

/// On a dense random scene, where edges hide one another, culling finds
/// every pair that drawing everything finds (and may find more: an edge
/// that cannot interfere no longer hides an interfering one, figure 4.11).
#[test]
fn culling_finds_every_pair_of_a_dense_scene() {
    use collidoscope::stages::interference::scenes;
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let meshes = scenes::Shapes::Mixed.meshes(2);
    let scene = scenes::build(
        &meshes,
        &scenes::placements(100, meshes.len(), 9, scenes::Layout::DENSE),
    )
    .unwrap();
    let [culled, full] = CULLING.map(|cull| {
        let params = InterferenceParams {
            width: 128,
            height: 128,
            cull,
            ..Default::default()
        };
        let queries = RunOptions {
            read_pixels: false,
            ..Default::default()
        };
        detect_gpu(&gpu, &stage, &scene, &params, &ViewAxis::ALL, queries)
            .unwrap()
            .1
            .pairs
    });
    eprintln!(
        "{} pairs culled, {} drawing everything",
        culled.len(),
        full.len()
    );
    assert!(full.len() > 20, "{full:?}");
    for pair in &full {
        assert!(culled.contains(pair), "{pair:?} lost: {culled:?}");
    }
}

/// Runs `scene` along `axis` with `identification`, reading pixels.
fn identify_with(
    gpu: &collidoscope::gpu::GpuContext,
    stage: &InterferenceGpu,
    scene: &InterferenceScene,
    params: &InterferenceParams,
    axis: ViewAxis,
    cull: bool,
    identification: Identification,
) -> InterferenceRun {
    let uploaded = stage.upload(gpu, scene);
    let offset = scene.edge_offset(params);
    let view = OrthoView::fit(scene, axis, params.width, params.height, offset);
    let options = RunOptions {
        cull,
        identification,
        ..Default::default()
    };
    stage.run(gpu, &uploaded, &view, offset, options).unwrap()
}

/// The pairs with pixels, and their pixels.
fn pair_pixels(run: &InterferenceRun) -> std::collections::BTreeMap<(usize, usize), u64> {
    run.queries
        .pairs
        .iter()
        .filter(|p| p.pixels > 0)
        .map(|p| ((p.penetrating, p.penetrated), p.pixels))
        .collect()
}

/// The weighted sums against the paper's pair passes and the CPU reference
/// on one scene, every axis, culled and not: the same pairs, the same
/// penetrated image, the same summary (self-interference included); per
/// pair, the pixels of the pair passes' occlusion query, which counts
/// fragments — where two edges of one object meet at one pixel and depth,
/// both pass (a pixel or two) — and the pixels of the CPU reference (the
/// edge's object `i` from the ids, `j`'s faces alone counted in f64), up
/// to its ambiguous pixels. Returns the weighted runs.
fn weighted_equals_pair_passes(
    name: &str,
    scene: &InterferenceScene,
    params: &InterferenceParams,
) -> Vec<InterferenceRun> {
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let objects = scene.objects.len();
    let mut weighted_runs = Vec::new();
    for (axis, cull) in ViewAxis::ALL
        .into_iter()
        .flat_map(|axis| CULLING.map(|cull| (axis, cull)))
    {
        let at = format!("{name}, {axis:?}, cull {cull}");
        let [paper, weighted] = Identification::ALL
            .map(|id| identify_with(&gpu, &stage, scene, params, axis, cull, id));
        let id = &weighted.identification;
        assert_eq!(id.used, Some(Identification::WeightedSums), "{at}: {id:?}");
        assert_eq!(id.fallback, None, "{at}");
        let (ours, theirs) = (pair_pixels(&weighted), pair_pixels(&paper));
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "{at}: {id:?}"
        );
        for (pair, &px) in &ours {
            let fragments = theirs[pair];
            assert!(
                px <= fragments && fragments <= px + 2 + px / 100,
                "{at}: {pair:?} {px} pixels, {fragments} fragments"
            );
        }
        let image = weighted.image.as_ref().unwrap();
        // Closed meshes: the sums decode every pixel inside at most two
        // objects (the edge's own, spuriously, included) and no other.
        if scene.objects.iter().all(|o| o.closed) {
            for i in 0..objects {
                let beyond = (image.counts.iter().zip(&image.ids))
                    .filter(|(c, ids)| ids[0] as usize == i + 1 && !(0..=2).contains(*c))
                    .count() as u64;
                assert_eq!(id.ambiguous_pixels[i], beyond, "{at}: object {i}");
            }
        }
        for j in 0..objects {
            let alone = count_cpu_objects(
                scene,
                &weighted.view,
                &image.edge_depth,
                weighted.cull.as_ref(),
                |k| k == j,
            );
            for i in (0..objects).filter(|&i| i != j) {
                let (mut certain, mut possible) = (0, 0);
                for (p, ids) in image.ids.iter().enumerate() {
                    if ids[0] as usize == i + 1 && (alone.ambiguous[p] || alone.counts[p] > 0) {
                        possible += 1;
                        certain += u64::from(!alone.ambiguous[p]);
                    }
                }
                let px = ours.get(&(i, j)).copied().unwrap_or(0);
                assert!(
                    certain <= px && px <= possible,
                    "{at}: ({i}, {j}) {px} pixels, CPU {certain}..={possible}"
                );
            }
        }
        let summary =
            |r: &InterferenceRun| InterferenceSummary::from_runs(objects, std::slice::from_ref(r));
        assert_eq!(summary(&weighted), summary(&paper), "{at}");
        let [a, b] = [&paper, &weighted].map(|r| r.image.as_ref().unwrap());
        assert_eq!(a.counts, b.counts, "{at}");
        let differ = (a.penetrated.iter().zip(&b.penetrated))
            .filter(|(x, y)| x != y)
            .count();
        assert_eq!(
            differ, 0,
            "{at}: penetrated images differ at {differ} pixels"
        );
        weighted_runs.push(weighted);
    }
    weighted_runs
}

/// The weighted sums identify as the pair passes (Alg. 4) do on every
/// scene of the other tests; with closed meshes each inside at most one
/// other, they need no pair pass at all, and the open mesh's pixels go to
/// the pair passes.
#[test]
fn weighted_sums_equal_pair_passes() {
    for (name, scene) in scenes() {
        let runs = weighted_equals_pair_passes(name, &scene, &InterferenceParams::default());
        let closed = scene.objects.iter().all(|o| o.closed);
        for run in &runs {
            let id = &run.identification;
            if closed {
                assert!(id.pair_pass_objects.is_empty(), "{name}: {id:?}");
            }
        }
        if !closed {
            assert!(
                runs.iter()
                    .any(|r| !r.identification.pair_pass_objects.is_empty()),
                "{name}: the open mesh made nothing ambiguous"
            );
        }
    }
}

/// Two big boxes overlapping, a small box inside both, and a fourth box
/// crossing the small one and both big ones: edge points inside two
/// objects (the quadratic) and inside three (ambiguous, pair passes; also
/// where an edge point inside two is spuriously inside its own object).
fn nested_scene(third: bool) -> InterferenceScene {
    let b = box_mesh(2);
    let mut objects = vec![
        posed(&b, 2.0, Quat::IDENTITY, Vec3::new(-0.3, 0.0, 0.0)),
        posed(&b, 2.0, tilt(), Vec3::new(0.3, 0.05, 0.02)),
        posed(&b, 0.4, tilt(), Vec3::new(0.0, 0.1, 0.05)),
    ];
    if third {
        objects.push(posed(
            &b,
            1.5,
            Quat::from_rotation_z(0.4),
            Vec3::new(0.05, -0.1, 0.1),
        ));
    }
    InterferenceScene::new(objects).unwrap()
}

#[test]
fn weighted_sums_solve_two_objects() {
    let scene = nested_scene(false);
    let params = InterferenceParams::default();
    let runs = weighted_equals_pair_passes("inside two", &scene, &params);
    let mut two = 0;
    for run in &runs {
        let image = run.image.as_ref().unwrap();
        // The small box's edge points inside both big ones.
        two += (image.counts.iter().zip(&image.ids))
            .filter(|(c, ids)| **c == 2 && ids[0] == 3)
            .count();
        let pairs = pair_pixels(run);
        assert!(
            pairs.contains_key(&(2, 0)) && pairs.contains_key(&(2, 1)),
            "{pairs:?}"
        );
    }
    assert!(two > 100, "{two} pixels inside two objects");
}

#[test]
fn weighted_sums_fall_back_inside_three_objects() {
    let scene = nested_scene(true);
    let runs = weighted_equals_pair_passes("inside three", &scene, &InterferenceParams::default());
    let mut three = 0;
    for run in &runs {
        let image = run.image.as_ref().unwrap();
        let here = (image.counts.iter().zip(&image.ids))
            .filter(|(c, ids)| **c == 3 && ids[0] == 3)
            .count();
        if here > 0 {
            let id = &run.identification;
            assert!(id.pair_pass_objects.contains(&2), "{id:?}");
            assert!(id.ambiguous_pixels[2] >= here as u64, "{id:?}");
        }
        three += here;
    }
    assert!(three > 100, "{three} pixels inside three objects");
}

/// Edges pushed inward (a negative offset) lie inside their own solid:
/// spurious self-interference, filtered by identity and reported as
/// "self only" by both identifications; overlapping, the pair is still
/// found.
#[test]
fn weighted_sums_report_self_interference() {
    let b = box_mesh(2);
    let params = InterferenceParams {
        edge_offset: Some(-0.02),
        ..Default::default()
    };
    // Apart, but their boxes overlap (culling draws both): a diamond and
    // a small box in a corner of its bounding box.
    let apart = InterferenceScene::new(vec![
        posed(&b, 1.0, Quat::from_rotation_z(0.78), Vec3::ZERO),
        posed(&b, 0.2, Quat::IDENTITY, Vec3::new(0.6, 0.6, 0.0)),
    ])
    .unwrap();
    for run in weighted_equals_pair_passes("self", &apart, &params) {
        let summary = InterferenceSummary::from_runs(2, std::slice::from_ref(&run));
        assert!(summary.self_only.contains(&1), "{:?}", summary.self_only);
        assert!(summary.pairs.is_empty());
    }
    let two = InterferenceScene::new(vec![
        posed(&b, 1.0, Quat::IDENTITY, Vec3::ZERO),
        posed(&b, 0.8, tilt(), Vec3::new(0.6, 0.15, 0.1)),
    ])
    .unwrap();
    for run in weighted_equals_pair_passes("self and pair", &two, &params) {
        let summary = InterferenceSummary::from_runs(2, std::slice::from_ref(&run));
        assert_eq!(summary.pairs, vec![[0, 1]]);
        assert!(run.identification.pair_pass_objects.is_empty());
    }
}

/// Beyond the objects the f32 sums identify exactly, a run asked for the
/// weighted sums uses the pair passes, says why, and finds the pair.
#[test]
fn too_many_objects_for_the_sums_fall_back_to_pair_passes() {
    use collidoscope::stages::interference::MAX_OBJECTS;
    let gpu = common::gpu();
    let stage = InterferenceGpu::new(&gpu).unwrap();
    let b = box_mesh(1);
    let side = (MAX_OBJECTS as f32 + 1.0).sqrt().ceil() as usize;
    let mut objects: Vec<InterferenceObject> = (0..=MAX_OBJECTS)
        .map(|k| {
            let at = Vec3::new((k % side) as f32 * 1.5, (k / side) as f32 * 1.5, 0.0);
            posed(&b, 1.0, Quat::IDENTITY, at)
        })
        .collect();
    objects.push(posed(&b, 0.6, tilt(), Vec3::new(0.3, 0.1, 0.1)));
    let scene = InterferenceScene::new(objects).unwrap();
    let params = InterferenceParams {
        width: 512,
        height: 512,
        ..Default::default()
    };
    let (runs, summary) =
        detect_gpu(&gpu, &stage, &scene, &params, &[ViewAxis::Z], QUERIES).unwrap();
    let id = &runs[0].identification;
    assert_eq!(id.used, Some(Identification::PairPasses), "{id:?}");
    assert!(
        id.fallback
            .as_deref()
            .is_some_and(|why| why.contains("512")),
        "{id:?}"
    );
    assert_eq!(summary.pairs, vec![[0, MAX_OBJECTS + 1]]);
}

/// Coincident surfaces (issue 15, item 8): two identical cubes at one
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
        let [cpu, stencil, compute] =
            common::run_each::<Interference, 3>(input, &params, Backend::ALL, &stage);
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
