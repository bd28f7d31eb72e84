//! The GPU colliders against the CPU reference: random poses of meshes and
//! every primitive, per-pair summaries, a large batch far from the origin
//! (equal apart from classified rounding cases), the comparison that
//! classifies them, the rigid-body demonstrator stepping on either backend,
//! and the octahedral normal of the GPU's compact contact record.

use crate::common;

use collidoscope::mesh::{box_mesh, torus, uv_sphere};
use collidoscope::stages::collide::{
    self, Body, BodyShape, ColliderGpu, ColliderParams, ColliderShape, Contact, ContactTolerance,
    NORMAL_MAX_ERROR, ROUNDING_ULPS, RoundingCase, all_pairs, compare_contacts, decode_normal,
    encode_normal, summarize,
};
use glam::{Mat4, Quat, Vec3};
use proptest::prelude::*;

use common::collide_scenes::{Lcg, body, contact_bits, large_batch, near, shape};

fn assert_same_contacts(cpu: &[Contact], gpu: &[Contact], what: &str) {
    assert_eq!(cpu.len(), gpu.len(), "{what}: contact counts");
    for (i, (a, b)) in cpu.iter().zip(gpu).enumerate() {
        assert_eq!(
            (a.body, a.other, a.feature, a.sample),
            (b.body, b.other, b.feature, b.sample),
            "{what}: contact {i}"
        );
        assert!(
            near(a.position, b.position, 1e-4)
                && near(a.normal, b.normal, 1e-3)
                && (a.depth - b.depth).abs() < 1e-4
                && (a.depth_cell - b.depth_cell).abs() < 1e-4,
            "{what}: contact {i}: {a:?} vs {b:?}"
        );
    }
}

/// Random overlapping poses of mesh pairs plus every primitive, many pairs
/// in one dispatch: the GPU's contacts equal the CPU reference's.
#[test]
fn gpu_contacts_equal_cpu_contacts_on_random_poses() {
    let gpu = ColliderGpu::new(&common::gpu());
    let shapes = vec![
        shape(&torus(24, 12, 0.4, 0.15), 20),
        shape(&box_mesh(3), 16),
        shape(&uv_sphere(10, 16), 16),
    ];
    let resident = gpu.upload(&shapes).expect("upload");
    let mut rng = Lcg(7);
    for round in 0..4 {
        let mut bodies = Vec::new();
        for i in 0..6 {
            let rot = rng.rotation();
            let t = Vec3::new(
                rng.range(-0.4, 0.4),
                rng.range(-0.4, 0.4),
                rng.range(-0.4, 0.4),
            );
            bodies.push(body(i % 3, Mat4::from_rotation_translation(rot, t)));
        }
        bodies.push(Body {
            shape: BodyShape::Plane {
                normal: Vec3::new(0.1, 1.0, 0.2).normalize(),
                offset: -0.1,
            },
            world_from_object: Mat4::IDENTITY,
        });
        bodies.push(Body {
            shape: BodyShape::Sphere { radius: 0.3 },
            world_from_object: Mat4::from_translation(Vec3::new(0.1, 0.0, 0.1)),
        });
        bodies.push(Body {
            shape: BodyShape::Cuboid {
                half_extents: Vec3::new(0.3, 0.2, 0.25),
            },
            world_from_object: Mat4::from_rotation_translation(
                Quat::from_rotation_z(0.4),
                Vec3::new(-0.1, 0.1, 0.0),
            ),
        });
        bodies.push(Body {
            shape: BodyShape::Segment {
                a: Vec3::new(-1.0, 0.05, 0.03),
                b: Vec3::new(1.0, -0.02, 0.01),
            },
            world_from_object: Mat4::IDENTITY,
        });
        let pairs = all_pairs(&bodies);
        // With a contact threshold every kind of task (fields, plane,
        // sphere, box, segment) finds contacts a little outside too.
        let cases = [(false, 0.0), (true, 0.0), (false, 0.04), (true, 0.04)];
        let mut found = Vec::new();
        for (interpolated_depth, contact_threshold) in cases {
            let params = ColliderParams {
                interpolated_depth,
                contact_threshold,
                ..ColliderParams::default()
            };
            let cpu = collide::detect_cpu(&shapes, &bodies, &pairs, &params).expect("cpu");
            found.push(cpu.contacts.len());
            let g = gpu
                .detect(&resident, &shapes, &bodies, &pairs, &params)
                .expect("gpu");
            assert!(
                cpu.contacts.len() > 50,
                "round {round}: {}",
                cpu.contacts.len()
            );
            for c in &cpu.contacts {
                assert!(
                    c.depth >= 0.0 && (c.normal.length() - 1.0).abs() < 1e-3,
                    "{c:?}"
                );
            }
            let what = format!(
                "round {round}, interpolated {interpolated_depth}, threshold {contact_threshold}"
            );
            assert_same_contacts(&cpu.contacts, &g.contacts, &what);
            assert_summaries(
                &gpu, &resident, &shapes, &bodies, &pairs, &params, &cpu, &g, &what,
            );
        }
        assert!(
            found[2] > found[0] && found[3] > found[1],
            "round {round}: the threshold adds contacts: {found:?}"
        );
    }
}

/// The GPU's per-pair summaries equal its contacts summarized exactly,
/// and the CPU's contacts summarized in count (depths within rounding).
#[allow(clippy::too_many_arguments)]
fn assert_summaries(
    gpu: &ColliderGpu,
    resident: &collide::ResidentShapes,
    shapes: &[ColliderShape],
    bodies: &[Body],
    pairs: &[(usize, usize)],
    params: &ColliderParams,
    cpu: &collide::ContactSet,
    g: &collide::ContactSet,
    what: &str,
) {
    let summary = gpu
        .summarize(resident, shapes, bodies, pairs, params)
        .expect("summary");
    assert_eq!(summary.pairs, summarize(pairs, &g.contacts), "{what}");
    assert_eq!(summary.contacts(), g.contacts.len(), "{what}");
    let reference = summarize(pairs, &cpu.contacts);
    assert!(reference.iter().any(|p| p.contacts > 0), "{what}");
    for (p, (a, b)) in reference.iter().zip(&summary.pairs).enumerate() {
        assert!(
            a.contacts == b.contacts && (a.deepest - b.deepest).abs() < 1e-4,
            "{what}: pair {p} {:?}: cpu {a:?} gpu {b:?}",
            pairs[p]
        );
    }
}

/// `bench collide` found 4 (100 pairs) and 82 (1000 pairs) GPU contacts
/// without a CPU partner on lavapipe. The cause is float rounding, not the
/// compacted buffer: every one is a point within an ulp of a cell face
/// (the backends read different cells) or of a cell's centre plane
/// (different finite-difference neighbours, so a different normal or
/// rejection). A large batch far from the origin, where rounding is
/// largest, must agree exactly apart from such classified points.
#[test]
fn large_batch_gpu_contacts_equal_cpu_contacts_apart_from_rounding_cases() {
    let gpu = ColliderGpu::new(&common::gpu());
    let (shapes, bodies, pairs) = large_batch();
    let resident = gpu.upload(&shapes).expect("upload");
    for interpolated_depth in [false, true] {
        let params = ColliderParams {
            interpolated_depth,
            ..ColliderParams::default()
        };
        let cpu = collide::detect_cpu(&shapes, &bodies, &pairs, &params).expect("cpu");
        let g = gpu
            .detect(&resident, &shapes, &bodies, &pairs, &params)
            .expect("gpu");
        let again = gpu
            .detect(&resident, &shapes, &bodies, &pairs, &params)
            .expect("gpu");
        assert!(
            contact_bits(&g.contacts) == contact_bits(&again.contacts),
            "two GPU runs differ"
        );
        let order = |c: &Contact| (c.body, c.other, c.sample);
        assert!(
            g.contacts.windows(2).all(|w| order(&w[0]) < order(&w[1])),
            "GPU contacts not in (pair, sample) order"
        );
        let cmp = compare_contacts(
            &shapes,
            &bodies,
            &pairs,
            &params,
            &cpu.contacts,
            &g.contacts,
            &ContactTolerance::default(),
        )
        .expect("compare");
        let what = format!("interpolated {interpolated_depth}: {}", cmp.summary());
        assert!(cpu.contacts.len() > 20_000, "{what}");
        let unexplained: Vec<_> = cmp.unexplained().take(5).collect();
        assert!(unexplained.is_empty(), "{what}: {unexplained:#?}");
        assert!(cmp.mismatches.len() * 1000 < cmp.matched, "{what}");
        assert!(cmp.largest_margin_ulps() <= ROUNDING_ULPS, "{what}");
        assert_eq!(
            cmp.matched + cmp.mismatches.iter().filter(|m| m.cpu.is_some()).count(),
            cpu.contacts.len(),
            "{what}"
        );
    }
}

/// The comparison itself: equal sets match fully; a point placed on a
/// face between two cells is classified as rounding; a contact whose depth
/// differs at a point far from every decision is unexplained.
#[test]
fn contact_comparison_classifies_cell_faces_and_flags_real_differences() {
    let shapes = vec![shape(&box_mesh(3), 16)];
    let grid = shapes[0].field.grid;
    let sample = shapes[0].samples.samples[0];
    let face_x = grid.origin.x + 5.5 * grid.cell_size;
    let t = Vec3::new(face_x - sample.position.x, 0.3, -0.2);
    let bodies = vec![body(0, Mat4::from_translation(t)), body(0, Mat4::IDENTITY)];
    let pairs = [(0, 1)];
    let params = ColliderParams::default();
    let cpu = collide::detect_cpu(&shapes, &bodies, &pairs, &params).expect("cpu");
    assert!(!cpu.contacts.is_empty());
    let tol = ContactTolerance::default();
    let same = compare_contacts(
        &shapes,
        &bodies,
        &pairs,
        &params,
        &cpu.contacts,
        &cpu.contacts,
        &tol,
    )
    .expect("compare");
    assert_eq!(
        (same.matched, same.mismatches.len()),
        (cpu.contacts.len(), 0)
    );

    let on_face = Contact {
        position: t + sample.position,
        normal: Vec3::X,
        depth: 0.01,
        depth_cell: 0.01,
        body: 0,
        other: 1,
        feature: sample.kind,
        sample: 0,
    };
    let cmp = compare_contacts(&shapes, &bodies, &pairs, &params, &[on_face], &[], &tol)
        .expect("compare");
    assert_eq!(cmp.mismatches.len(), 1);
    assert_eq!(
        cmp.mismatches[0].rounding,
        Some(RoundingCase::CellFace),
        "{:?}",
        cmp.mismatches[0]
    );

    // A generic pose: no sample near a face, a centre plane or the flip
    // threshold (the axis-aligned pose above has many).
    let bodies = vec![
        body(
            0,
            Mat4::from_rotation_translation(
                Quat::from_axis_angle(Vec3::new(0.3, 0.8, -0.5).normalize(), 0.7),
                Vec3::new(0.837, 0.071, -0.093),
            ),
        ),
        body(0, Mat4::IDENTITY),
    ];
    let cpu = collide::detect_cpu(&shapes, &bodies, &pairs, &params).expect("cpu");
    assert!(cpu.contacts.len() > 4, "{}", cpu.contacts.len());
    let mut changed = cpu.contacts.clone();
    let last = changed.len() - 1;
    changed[last].depth += 0.01;
    let cmp = compare_contacts(
        &shapes,
        &bodies,
        &pairs,
        &params,
        &cpu.contacts,
        &changed,
        &tol,
    )
    .expect("compare");
    assert_eq!(cmp.matched, cpu.contacts.len() - 1, "{}", cmp.summary());
    assert_eq!(cmp.unexplained_count(), 1, "{:?}", cmp.mismatches);
}

/// The rigid-body demonstrator steps the same on either contact backend.
#[test]
fn rigid_world_gpu_contacts_equal_cpu_contacts_while_stepping() {
    use collidoscope::sim::collide::{RigidParams, Scene, World};
    let gpu = ColliderGpu::new(&common::gpu());
    for scene in Scene::ALL {
        let mut world = World::new(scene).expect("scene");
        let cpu_params = RigidParams::default();
        let gpu_params = RigidParams {
            backend: collide::Backend::Gpu,
            ..cpu_params
        };
        for _ in 0..30 {
            world.step(&cpu_params, None).expect("step");
        }
        let cpu = world
            .detect(&cpu_params, None)
            .expect("cpu")
            .contacts
            .clone();
        let g = world
            .detect(&gpu_params, Some(&gpu))
            .expect("gpu")
            .contacts
            .clone();
        assert_same_contacts(&cpu, &g, scene.name());
        world.step(&gpu_params, Some(&gpu)).expect("gpu step");
    }
}

/// The angle between two unit vectors, accurate near zero.
fn angle(a: Vec3, b: Vec3) -> f32 {
    a.cross(b).length().atan2(a.dot(b))
}

fn unit_vector() -> impl Strategy<Value = Vec3> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
        .prop_filter("not near zero", |(x, y, z)| x * x + y * y + z * z > 1e-6)
        .prop_map(|(x, y, z)| Vec3::new(x, y, z).normalize())
}

proptest! {
    /// The GPU's compact contact record: any unit normal comes back from
    /// its octahedral encoding unit and within the stated angle.
    #[test]
    fn octahedral_normal_round_trips_within_its_bound(n in unit_vector()) {
        let back = decode_normal(encode_normal(n));
        prop_assert!((back.length() - 1.0).abs() < 1e-6, "{n} -> {back}");
        prop_assert!(angle(n, back) <= NORMAL_MAX_ERROR, "{n} -> {back}: {}", angle(n, back));
    }
}

#[test]
fn octahedral_normal_edge_cases_round_trip() {
    for n in [
        Vec3::X,
        -Vec3::X,
        Vec3::Y,
        -Vec3::Y,
        Vec3::Z,
        -Vec3::Z,
        Vec3::new(1.0, 1.0, -1.0).normalize(),
        Vec3::new(-1.0, 0.0, -1.0).normalize(),
        Vec3::new(0.0, -1e-7, -1.0).normalize(),
    ] {
        let back = decode_normal(encode_normal(n));
        assert!(angle(n, back) <= NORMAL_MAX_ERROR, "{n} -> {back}");
    }
    assert_eq!(decode_normal(encode_normal(Vec3::ZERO)), Vec3::ZERO);
}
