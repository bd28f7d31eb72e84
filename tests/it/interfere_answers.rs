//! Image-space interference detection (Knott 2003, ch. 4), known answers:
//! boxes overlapping, touching, apart and inside, a box in a torus's hole,
//! an open mesh's negative counts, occlusion queries against read pixels,
//! early non-interference (§4.5.2) and localisation (§4.5.5).

use crate::common;

use collidoscope::mesh::{box_mesh, torus};
use collidoscope::stages::interfere::{
    InterferenceGpu, InterferenceObject, InterferenceParams, InterferenceScene,
    InterferenceSummary, Localisation, ViewAxis, detect_gpu,
};
use glam::{Mat4, Quat, Vec3};

use common::interfere_runs::{QUERIES, detect};
use common::interfere_scenes::{CULLING, open_box, open_box_scene, posed, tilt};

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
