//! Reading the GPU colliders' contacts back: a detect finding more than the
//! last one copied reads the rest, a contact set reused across detects of
//! other sizes equals fresh ones, and a detect cut into chunks equals the
//! single submission bit for bit.

use crate::common;

use collidoscope::stages::collide::{
    self, Body, Chunking, ColliderGpu, ColliderParams, ColliderShape,
};

use common::collide_scenes::{contact_bits, large_batch};
use glam::Vec3;

/// The kernels' own submission copies as many records as the last detect
/// found (and an eighth more); a detect finding many more copies the rest
/// in a second one. Either way the contacts are those of a fresh
/// `ColliderGpu` (which copies all its room), bit for bit, and a detect
/// finding fewer again reads only its own.
#[test]
fn more_contacts_than_the_last_detect_found_are_read_back_whole() {
    let ctx = common::gpu();
    let (shapes, bodies, pairs) = large_batch();
    let params = ColliderParams::default();
    let fresh = ColliderGpu::new(&ctx);
    let resident = fresh.upload(&shapes).expect("upload");
    let detect = |gpu: &ColliderGpu, pairs: &[(usize, usize)]| {
        gpu.detect(&resident, &shapes, &bodies, pairs, &params)
            .expect("gpu")
    };
    let whole = detect(&fresh, &pairs);
    let warm = ColliderGpu::new(&ctx);
    let few = detect(&warm, &pairs[..1]);
    assert!(
        few.contacts.len() * 2 + 1024 < whole.contacts.len(),
        "{} then {}: the second detect must find more than the first copies",
        few.contacts.len(),
        whole.contacts.len()
    );
    let grown = detect(&warm, &pairs);
    let dispatches = |set: &collide::ContactSet| {
        set.timings
            .phases
            .iter()
            .filter(|p| p.name == "contacts")
            .count()
    };
    // One dispatch: the room sufficed, only the copy was short.
    assert_eq!(dispatches(&grown), 1);
    assert!(
        contact_bits(&grown.contacts) == contact_bits(&whole.contacts),
        "contacts read back in two copies differ from one"
    );
    let few_again = detect(&warm, &pairs[..1]);
    assert!(
        contact_bits(&few_again.contacts) == contact_bits(&few.contacts),
        "a smaller detect after a larger one differs"
    );
}

/// A caller detecting every frame keeps one set and detects into it: big,
/// small, empty, big again and an error in between. Each time it holds
/// exactly what a fresh set gets, bit for bit, with its counts and
/// phases; the allocation of a large detect is kept for the next; and a
/// failed detect leaves it empty, not holding the last frame's contacts.
#[test]
fn a_contact_set_reused_across_detects_of_other_sizes_equals_fresh_ones() {
    let ctx = common::gpu();
    let (shapes, bodies, pairs) = large_batch();
    // In one submission, and cut into chunks (the large ones).
    for chunking in [Chunking::SINGLE, FINE_CHUNKS] {
        reused_set_equals_fresh(&ctx, &shapes, &bodies, &pairs, chunking);
    }
}

/// Chunks of at least 4096 points, up to 5.
const FINE_CHUNKS: Chunking = Chunking {
    min_points: 1 << 12,
    max_chunks: 5,
};

fn reused_set_equals_fresh(
    ctx: &collidoscope::gpu::GpuContext,
    shapes: &[ColliderShape],
    bodies: &[Body],
    pairs: &[(usize, usize)],
    chunking: Chunking,
) {
    let params = ColliderParams::default();
    let gpu = ColliderGpu::new(ctx).with_chunking(chunking);
    let resident = gpu.upload(shapes).expect("upload");
    let apart = [(0, 2)];
    let mut kept = collide::ContactSet::default();
    let mut capacity = 0;
    for (what, list) in [
        ("all", pairs),
        ("one", &pairs[..1]),
        ("apart", &apart[..]),
        ("a tenth", &pairs[..40]),
        ("all again", pairs),
    ] {
        let what = format!("{what}, {chunking:?}");
        gpu.detect_into(&mut kept, &resident, shapes, bodies, list, &params)
            .expect("detect into");
        let fresh = gpu
            .detect(&resident, shapes, bodies, list, &params)
            .expect("detect");
        assert!(
            contact_bits(&kept.contacts) == contact_bits(&fresh.contacts),
            "{what}: {} contacts into a reused set, {} into a fresh one",
            kept.contacts.len(),
            fresh.contacts.len()
        );
        assert_eq!(
            (kept.tasks, kept.tests),
            (fresh.tasks, fresh.tests),
            "{what}"
        );
        let names = |set: &collide::ContactSet| {
            set.timings
                .phases
                .iter()
                .map(|p| p.name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&kept), names(&fresh), "{what}: phases");
        assert!(
            kept.contacts.capacity() >= capacity,
            "{what}: the set's allocation shrank"
        );
        capacity = kept.contacts.capacity();
    }
    assert!(
        kept.contacts.len() > 10_000,
        "the batch must be large: {}",
        kept.contacts.len()
    );
    let err = gpu.detect_into(&mut kept, &resident, shapes, bodies, &[(0, 9999)], &params);
    assert!(err.is_err(), "a pair naming no body must fail");
    assert!(
        kept.contacts.is_empty(),
        "a failed detect left {} contacts of the last one",
        kept.contacts.len()
    );
}

/// A detect cut into chunks — each counted, written and copied in its own
/// submission, read back and decoded while the GPU runs the next — equals
/// the one-submission detect bit for bit: cut into 2, 3, 7 and 40 chunks
/// (ends inside tasks), with a long run of pairs far apart in the middle
/// (tasks without contacts, whole chunks without any), and warm, where
/// each chunk copies what it found last time: after a small detect every
/// chunk of the large one finds more than it copied and reads the rest in
/// a second copy. The list ends with meshes against spheres and boxes,
/// whose points the plan adds as it goes: a chunked detect plans its pairs
/// a chunk at a time and writes each chunk's tasks and points apart.
#[test]
fn chunked_detects_equal_the_single_submission_contact_for_contact() {
    let ctx = common::gpu();
    let (shapes, mut bodies, pairs) = large_batch();
    let mut primitive_pairs = Vec::new();
    for (k, &(mesh, _)) in pairs[..12].iter().enumerate() {
        let shape = if k % 2 == 0 {
            collide::BodyShape::Sphere { radius: 0.3 }
        } else {
            collide::BodyShape::Cuboid {
                half_extents: Vec3::new(0.3, 0.2, 0.25),
            }
        };
        bodies.push(Body {
            shape,
            world_from_object: bodies[mesh].world_from_object,
        });
        let primitive = bodies.len() - 1;
        primitive_pairs.push(if k % 4 < 2 {
            (mesh, primitive)
        } else {
            (primitive, mesh)
        });
    }
    let params = ColliderParams::default();
    let single = ColliderGpu::new(&ctx).with_chunking(Chunking::SINGLE);
    let resident = single.upload(&shapes).expect("upload");
    // Torus of lattice cell i against the sphere of cell i + 64: 3 apart.
    let apart = (0..200).map(|i| (2 * i, 2 * (i + 64) + 1));
    let list: Vec<(usize, usize)> = pairs[..20]
        .iter()
        .copied()
        .chain(apart)
        .chain(pairs[20..40].iter().copied())
        .chain(primitive_pairs)
        .collect();
    let per_pair = shapes[0].samples.samples.len() + shapes[1].samples.samples.len();
    let (quiet_start, quiet_end) = (20 * per_pair, 220 * per_pair);
    let detect = |gpu: &ColliderGpu, list: &[(usize, usize)]| {
        gpu.detect(&resident, &shapes, &bodies, list, &params)
            .expect("detect")
    };
    let expected = detect(&single, &list);
    let total = expected.tests;
    assert!(
        expected.contacts.len() > 1000,
        "too few contacts: {}",
        expected.contacts.len()
    );
    for chunks in [2, 3, 7, 40] {
        let chunking = Chunking {
            min_points: 1,
            max_chunks: chunks,
        };
        let ranges = chunking.ranges(total);
        assert_eq!(ranges.len(), chunks, "{chunking:?}");
        assert_eq!((ranges[0].start, ranges[chunks - 1].end), (0, total as u32));
        assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
        if chunks >= 7 {
            assert!(
                ranges
                    .iter()
                    .any(|r| r.start as usize >= quiet_start && r.end as usize <= quiet_end),
                "{chunking:?}: no chunk lies among the pairs apart"
            );
        }
        let chunked = ColliderGpu::new(&ctx).with_chunking(chunking);
        for (what, set) in [
            ("cold", detect(&chunked, &list)),
            ("warm", detect(&chunked, &list)),
            ("after one pair", {
                let few = detect(&chunked, &list[..1]);
                assert!(
                    contact_bits(&few.contacts)
                        == contact_bits(&detect(&single, &list[..1]).contacts),
                    "{chunking:?}: one pair"
                );
                detect(&chunked, &list)
            }),
        ] {
            assert_eq!(set.tests, total);
            assert_eq!(set.chunks, chunks, "{chunking:?}, {what}: submissions");
            assert!(
                contact_bits(&set.contacts) == contact_bits(&expected.contacts),
                "{chunking:?}, {what}: {} contacts chunked, {} in one submission; first \
                 difference at {:?}",
                set.contacts.len(),
                expected.contacts.len(),
                set.contacts
                    .iter()
                    .zip(&expected.contacts)
                    .position(|(a, b)| a != b)
            );
            let phases: Vec<&str> = set.timings.phases.iter().map(|p| p.name.as_str()).collect();
            assert_eq!(
                phases.iter().filter(|&&p| p == "contacts").count(),
                1,
                "{chunking:?}, {what}: {phases:?}"
            );
        }
    }
}

/// One `ColliderGpu` keeps its passes' bind groups and its plan's buffers
/// between detects. Alternating two resident sets whose shapes are listed
/// in the opposite order (the bodies renumbered to match), with summaries
/// and smaller detects in between, every detect equals a fresh
/// `ColliderGpu`'s bit for bit: a bind group still bound to the other
/// set's buffers, or a plan read past its own tasks, would give the other
/// shape's contacts.
#[test]
fn kept_bind_groups_follow_the_resident_shapes_and_the_plan() {
    let ctx = common::gpu();
    let (shapes, bodies, pairs) = large_batch();
    let params = ColliderParams::default();
    let swapped: Vec<ColliderShape> = shapes.iter().rev().cloned().collect();
    let renumbered: Vec<Body> = bodies
        .iter()
        .map(|b| match b.shape {
            collide::BodyShape::Mesh(s) => common::collide_scenes::body(1 - s, b.world_from_object),
            _ => unreachable!("the batch holds meshes only"),
        })
        .collect();
    for chunking in [Chunking::SINGLE, FINE_CHUNKS] {
        let kept = ColliderGpu::new(&ctx).with_chunking(chunking);
        let sets = [
            (kept.upload(&shapes).expect("upload"), &shapes, &bodies),
            (
                kept.upload(&swapped).expect("upload"),
                &swapped,
                &renumbered,
            ),
        ];
        let mut expected = Vec::new();
        for (k, list) in [&pairs[..], &pairs[..7], &pairs[..]]
            .into_iter()
            .enumerate()
        {
            for (s, (resident, shapes, bodies)) in sets.iter().enumerate() {
                let what = format!("{chunking:?}, detect {k} of set {s}");
                let got = kept
                    .detect(resident, shapes, bodies, list, &params)
                    .expect("detect");
                let fresh = ColliderGpu::new(&ctx).with_chunking(chunking);
                let own = fresh.upload(shapes).expect("upload");
                let want = fresh
                    .detect(&own, shapes, bodies, list, &params)
                    .expect("detect");
                assert!(
                    contact_bits(&got.contacts) == contact_bits(&want.contacts),
                    "{what}: {} contacts, a fresh ColliderGpu finds {}",
                    got.contacts.len(),
                    want.contacts.len()
                );
                let summaries = kept
                    .summarize(resident, shapes, bodies, list, &params)
                    .expect("summarize");
                let counted: u32 = summaries.pairs.iter().map(|p| p.contacts).sum();
                assert_eq!(counted as usize, got.contacts.len(), "{what}: summaries");
                expected.push(contact_bits(&got.contacts));
            }
        }
        // Both orders of the shapes give the same contacts.
        assert!(expected[0] == expected[1] && expected[4] == expected[5]);
    }
}
