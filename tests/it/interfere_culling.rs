//! Image-space interference detection (Knott 2003, ch. 4) with the
//! bounding-box culling: the same pairs and counts as drawing everything,
//! nothing drawn for a scene whose objects overlap no other, and every pair
//! of a dense scene found.

use crate::common;

use collidoscope::stages::interfere::{
    Identification, InterferenceGpu, InterferenceParams, InterferenceRun, InterferenceSummary,
    OrthoView, RunOptions, ViewAxis, count_cpu_objects, detect_gpu,
};

use common::interfere_runs::detect;
use common::interfere_scenes::{CULLING, scenes};

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
    use collidoscope::stages::interfere::scenes;
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
    use collidoscope::stages::interfere::scenes;
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
