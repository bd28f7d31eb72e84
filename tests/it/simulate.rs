//! The collision pipeline on the GPU (lavapipe here): each phase against
//! the CPU path, the physical checks of the CPU unit tests on the resident
//! GPU step (its own solver), and its trajectory against the CPU path's.

use crate::common;

use collidoscope::mesh::{Mesh, box_mesh, torus};
use collidoscope::sim::collide::BodyState;
use collidoscope::sim::simulate::{
    BodySpec, BroadPhase, FieldParams, Ground, Pipeline, PipelineBackend, PipelineParams, pairs_cpu,
};
use collidoscope::stages::collide::{ContactTolerance, compare_contacts};
use collidoscope::stages::sdf::SdfParams;
use collidoscope::timing::Timings;
use glam::{Quat, Vec3};

pub(crate) fn fields() -> FieldParams {
    FieldParams {
        sdf: SdfParams {
            resolution: 16,
            ..SdfParams::default()
        },
        ..FieldParams::default()
    }
}

fn at(mesh: usize, position: Vec3, orientation: Quat) -> BodySpec {
    BodySpec {
        mesh,
        position,
        orientation,
        velocity: Vec3::ZERO,
        angular_velocity: Vec3::ZERO,
        density: 1000.0,
        is_static: false,
    }
}

pub(crate) fn ground() -> Option<Ground> {
    Some(Ground {
        point: Vec3::ZERO,
        normal: Vec3::Y,
    })
}

fn params(backend: PipelineBackend) -> PipelineParams {
    PipelineParams {
        backend,
        ..PipelineParams::default()
    }
}

/// A pile of boxes and tori at pseudo-random poses, some overlapping.
fn pile(n: usize) -> (Vec<Mesh>, Vec<BodySpec>) {
    let meshes = vec![box_mesh(2), torus(16, 8, 0.4, 0.15)];
    let mut seed = 7u32;
    let mut next = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    let specs = (0..n)
        .map(|i| {
            let p = Vec3::new(3.0 * next() - 1.5, 0.3 + 3.0 * next(), 3.0 * next() - 1.5);
            let q = Quat::from_euler(glam::EulerRot::XYZ, 3.0 * next(), 3.0 * next(), 0.0);
            BodySpec {
                is_static: i == 0,
                ..at(i % 2, p, q)
            }
        })
        .collect();
    (meshes, specs)
}

#[test]
fn gpu_phases_match_the_cpu_path_frame_by_frame() {
    let ctx = common::gpu();
    let (meshes, specs) = pile(24);
    let mut p = Pipeline::new(&meshes, &specs, ground(), &fields(), Some(&ctx)).expect("pipeline");
    let (cpu, gpu) = (params(PipelineBackend::Cpu), params(PipelineBackend::Gpu));
    let mut compared_contacts = 0;
    for frame in 0..40 {
        let mut t = Timings::default();
        let (cpu_pairs, cpu_set) = p.detect(&cpu, &mut t).expect("cpu phases");
        let (gpu_pairs, gpu_set) = p.detect(&gpu, &mut t).expect("gpu phases");
        assert_eq!(
            gpu_pairs, cpu_pairs,
            "frame {frame}: broad-phase pairs differ"
        );
        let pairs: Vec<(usize, usize)> = cpu_pairs
            .iter()
            .map(|&(i, j)| (i as usize, j as usize))
            .collect();
        let cmp = compare_contacts(
            &p.shapes,
            &p.collider_bodies(),
            &pairs,
            &gpu.colliders,
            &cpu_set.contacts,
            &gpu_set.contacts,
            &ContactTolerance::default(),
        )
        .expect("compare");
        if let Some(m) = cmp.unexplained().next() {
            let c = m.cpu.or(m.gpu).expect("a side");
            panic!(
                "frame {frame}: pair ({}, {}) sample {}: cpu {:?} gpu {:?} ({})",
                c.body,
                c.other,
                c.sample,
                m.cpu,
                m.gpu,
                cmp.summary()
            );
        }
        compared_contacts += cmp.matched;
        // Advance on the CPU path so both backends see the same states.
        p.step(&cpu).expect("step");
    }
    assert!(
        compared_contacts > 100,
        "only {compared_contacts} contacts compared"
    );
}

#[test]
fn on_the_gpu_a_box_rests_a_stack_stands_and_nothing_passes_through() {
    let ctx = common::gpu();
    let gpu = params(PipelineBackend::Gpu);
    let mesh = [box_mesh(2)];

    let rest = [at(0, Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY)];
    let mut p = Pipeline::new(&mesh, &rest, ground(), &fields(), Some(&ctx)).expect("pipeline");
    for _ in 0..50 {
        p.step(&gpu).expect("step");
    }
    p.finish().expect("finish");
    let settled = p.bodies[0].state.position;
    for _ in 50..400 {
        p.step(&gpu).expect("step");
    }
    assert!(p.finish().expect("finish").contacts > 0);
    let s = p.bodies[0].state;
    assert!(
        s.position.distance(settled) < 0.01,
        "{settled} → {:?}",
        s.position
    );
    assert!(s.velocity.length() < 0.05, "{s:?}");

    let stack: Vec<BodySpec> = (0..3)
        .map(|k| {
            at(
                0,
                Vec3::new(0.0, 0.5 + 1.02 * k as f32, 0.0),
                Quat::IDENTITY,
            )
        })
        .collect();
    let mut p = Pipeline::new(&mesh, &stack, ground(), &fields(), Some(&ctx)).expect("pipeline");
    let mut lowest = p.energy(gpu.gravity);
    for frame in 0..200 {
        p.step(&gpu).expect("step");
        let e = p.finish().expect("finish").energy;
        assert!(
            e <= lowest + 3.0 * 1000.0 * 9.81 * 0.005,
            "frame {frame}: {lowest} → {e}"
        );
        lowest = lowest.min(e);
    }
    for k in 0..3 {
        let s = p.bodies[k].state.position;
        assert!(
            (s.y - (0.5 + k as f32)).abs() < 0.06 && s.x.abs() < 0.1,
            "box {k} at {s}"
        );
    }

    let fall = [
        BodySpec {
            is_static: true,
            ..at(0, Vec3::ZERO, Quat::IDENTITY)
        },
        BodySpec {
            velocity: Vec3::new(0.0, -8.0, 0.0),
            ..at(0, Vec3::new(0.0, 2.0, 0.0), Quat::IDENTITY)
        },
    ];
    let mut p = Pipeline::new(&mesh, &fall, None, &fields(), Some(&ctx)).expect("pipeline");
    let fixed = p.bodies[0].state;
    for frame in 0..120 {
        p.step(&gpu).expect("step");
        p.sync().expect("sync");
        let y = p.bodies[1].state.position.y;
        assert!(y > 0.8, "frame {frame}: the falling box is at {y}");
    }
    assert_eq!(p.bodies[0].state, fixed, "the static box moved");
}

/// With a contact threshold ε, bodies come to rest about ε apart, on every
/// backend: a box on the ground and a box on that box rest ε higher than
/// without the threshold (each solver sinks its bodies by its own slop and
/// stiffness; the threshold adds ε to both gaps), and they do not touch.
#[test]
fn with_a_contact_threshold_boxes_rest_that_far_apart_on_every_backend() {
    let ctx = common::gpu();
    let mesh = [box_mesh(2)];
    let eps = 0.04;
    for backend in [
        PipelineBackend::Cpu,
        PipelineBackend::GpuDetect,
        PipelineBackend::Gpu,
    ] {
        let gaps = [0.0, eps].map(|threshold| {
            let mut params = params(backend);
            params.colliders.contact_threshold = threshold;
            let stack = [
                at(0, Vec3::new(0.0, 0.5 + threshold, 0.0), Quat::IDENTITY),
                at(
                    0,
                    Vec3::new(0.0, 1.5 + 2.0 * threshold, 0.0),
                    Quat::IDENTITY,
                ),
            ];
            let mut p =
                Pipeline::new(&mesh, &stack, ground(), &fields(), Some(&ctx)).expect("pipeline");
            for _ in 0..90 {
                p.step(&params).expect("step");
            }
            assert!(p.finish().expect("finish").contacts > 0, "{backend:?}");
            p.sync().expect("sync");
            let [low, high] = [0, 1].map(|k| p.bodies[k].state);
            for s in [low, high] {
                assert!(
                    s.velocity.length() < 0.05 && s.position.x.abs() < 0.01,
                    "{backend:?}, ε = {threshold}: {s:?}"
                );
            }
            [low.position.y - 0.5, high.position.y - low.position.y - 1.0]
        });
        for (k, what) in ["ground", "boxes"].iter().enumerate() {
            let (without, with) = (gaps[0][k], gaps[1][k]);
            assert!(
                with > 0.0 && (with - without - eps).abs() < 0.01,
                "{backend:?}: the gap to the {what} is {with} with ε = {eps}, {without} without"
            );
        }
    }
}

/// Largest distance between the two runs' positions of body `i` over the
/// frames.
fn largest_gap(a: &[(Vec<BodyState>, usize)], b: &[(Vec<BodyState>, usize)], i: usize) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.0[i].position.distance(y.0[i].position))
        .fold(0.0, f32::max)
}

/// A box dropped from 1.5 m at `orientation`: each frame's state and
/// contact count for 120 frames.
fn landing(
    ctx: &collidoscope::gpu::GpuContext,
    orientation: Quat,
    backend: PipelineBackend,
) -> Vec<(Vec<BodyState>, usize)> {
    let drop = [at(0, Vec3::new(0.0, 1.5, 0.0), orientation)];
    let mut p =
        Pipeline::new(&[box_mesh(2)], &drop, ground(), &fields(), Some(ctx)).expect("pipeline");
    p.step_batch(&params(backend), 120).expect("frames")
}

#[test]
fn a_box_landing_follows_the_cpu_trajectory_on_the_gpu() {
    let ctx = common::gpu();
    // Nearly flat: it lands on a face, rocks and settles.
    let tilt = Quat::from_rotation_z(0.05);
    let cpu = landing(&ctx, tilt, PipelineBackend::Cpu);
    let gpu = landing(&ctx, tilt, PipelineBackend::Gpu);
    // Free fall (until the first contact) is the same integrator on both.
    let falling = cpu.iter().take_while(|f| f.1 == 0).count();
    assert!(falling > 10, "contact after {falling} frames");
    let fall_gap = largest_gap(&cpu[..falling], &gpu[..falling], 0);
    assert!(fall_gap < 1e-4, "free fall differs by {fall_gap}");
    // The landing: sequential against Jacobi impulses on the same
    // contacts, within 1 cm all the way; both at rest at the end.
    let gap = largest_gap(&cpu, &gpu, 0);
    assert!(gap < 0.01, "trajectories differ by up to {gap}");
    let (c, g) = (cpu[119].0[0], gpu[119].0[0]);
    assert!(
        c.rotation.angle_between(g.rotation) < 0.01,
        "{c:?} vs {g:?}"
    );
    assert!(g.velocity.length() < 0.05, "{g:?}");
    assert!(gpu[119].1 > 0, "no contacts at rest");
}

#[test]
fn a_box_landing_on_a_corner_settles_on_a_face_on_the_gpu() {
    // Landing on a corner is chaotic (the two solvers send the box to
    // different places), so this checks the outcome, not the path.
    let ctx = common::gpu();
    let tilt = Quat::from_rotation_z(0.3) * Quat::from_rotation_x(0.2);
    let gpu = landing(&ctx, tilt, PipelineBackend::Gpu);
    let s = gpu[119].0[0];
    let up = s.rotation.inverse() * Vec3::Y;
    assert!(up.abs().max_element() > 0.999, "not on a face: {s:?}");
    assert!((s.position.y - 0.5).abs() < 0.01, "{s:?}");
    assert!(s.velocity.length() < 0.05, "{s:?}");
}

#[test]
fn the_gpu_step_is_deterministic_and_batched_poses_match_synced_ones() {
    let ctx = common::gpu();
    let (meshes, specs) = pile(24);
    let gpu = params(PipelineBackend::Gpu);
    let new = || Pipeline::new(&meshes, &specs, ground(), &fields(), Some(&ctx)).expect("pipeline");
    let mut stepped = new();
    for _ in 0..60 {
        stepped.step(&gpu).expect("step");
    }
    let summary = stepped.finish().expect("finish").clone();
    let batched = new().step_batch(&gpu, 60).expect("frames");
    // Fixed-point sums make the order the invocations ran in irrelevant:
    // bit for bit the same.
    assert_eq!(stepped.states(), batched[59].0);
    assert_eq!(summary.contacts, batched[59].1);
    assert_eq!(summary.lag, 0);
    assert!(
        summary.contacts > 0 && summary.pair_count > 0,
        "{summary:?}"
    );
    let energy = stepped.energy(gpu.gravity);
    assert!(
        (summary.energy - energy).abs() < 1e-4 * energy.abs().max(1.0),
        "GPU energy {} vs {energy}",
        summary.energy
    );
    assert!(
        summary.max_depth > 0.0 && summary.max_depth < 0.5,
        "{summary:?}"
    );
}

/// "About twice the contacts" traced: every backend counts the
/// same quantity — both sides' sampling points inside the other body (A's
/// in B and B's in A) plus samples below the ground, of the frame's last
/// substep, each once. From one state the three paths report the same
/// pairs and contacts; the resident step's larger counts in a settling
/// pile come from its pile, not its counting (its Jacobi solver leaves
/// stacked bodies deeper in one another, and a curved surface's samples
/// inside grow with the depth).
#[test]
fn from_one_state_every_backend_counts_the_same_pairs_and_contacts() {
    let ctx = common::gpu();
    let (meshes, specs) = pile(24);
    let mut p = Pipeline::new(&meshes, &specs, ground(), &fields(), Some(&ctx)).expect("pipeline");
    for _ in 0..40 {
        p.step(&params(PipelineBackend::Cpu)).expect("step");
    }
    let states = p.states();
    let mut counts = Vec::new();
    for backend in PipelineBackend::ALL {
        for (b, s) in p.bodies.iter_mut().zip(&states) {
            b.state = *s;
        }
        p.states_changed();
        p.step_timed(&params(backend)).expect("step");
        let s = p.finish().expect("finish");
        assert_eq!(s.lag, 0, "{backend:?}: the summary is not the frame's");
        counts.push((backend, s.pair_count, s.contacts));
    }
    let (_, pairs, contacts) = counts[0];
    assert!(pairs > 10 && contacts > 20, "a pile in contact: {counts:?}");
    for &(backend, p, c) in &counts {
        // Float rounding may move a sample across a surface.
        assert!(
            p == pairs && c.abs_diff(contacts) <= 1 + contacts / 100,
            "{backend:?} counts differ: {counts:?}"
        );
    }
}

/// The image-space broad phase on a pile, every backend of it: each
/// pair it reports has boxes that overlap when grown by its edge offset,
/// its ground pairs are sort-and-sweep's, and every pair the narrow phase
/// finds in contact from sort-and-sweep's pairs is among its pairs.
#[test]
fn the_image_space_broad_phase_keeps_every_touching_pair_and_only_near_ones() {
    let ctx = common::gpu();
    let (meshes, specs) = pile(24);
    let mut p = Pipeline::new(&meshes, &specs, ground(), &fields(), Some(&ctx)).expect("pipeline");
    let n = p.body_count() as u32;
    let sweep = params(PipelineBackend::GpuDetect);
    let mut touching = 0;
    for frame in 0..45 {
        if frame % 15 == 14 {
            let mut t = Timings::default();
            let (sweep_pairs, set) = p.detect(&sweep, &mut t).expect("sweep");
            let contacting: std::collections::BTreeSet<(u32, u32)> = set
                .contacts
                .iter()
                .map(|c| (c.body.min(c.other), c.body.max(c.other)))
                .collect();
            touching += contacting.len();
            let runs = [
                (PipelineBackend::GpuDetect, BroadPhase::ImageCompute),
                (PipelineBackend::GpuDetect, BroadPhase::ImageStencil),
                (PipelineBackend::Cpu, BroadPhase::ImageCompute),
            ];
            for (backend, broad) in runs {
                let image = PipelineParams {
                    broad,
                    ..params(backend)
                };
                let (pairs, _) = p.detect(&image, &mut t).expect("image-space pairs");
                let what = format!("frame {frame}, {} on {}", broad.name(), backend.name());
                let grown = pairs_cpu(&p.boxes(p.image_edge_offset(&image), 0.0), None);
                for pair in pairs.iter().filter(|q| q.1 < n) {
                    assert!(
                        grown.binary_search(pair).is_ok(),
                        "{what}: pair {pair:?} whose grown boxes do not overlap"
                    );
                }
                let ground_of = |v: &[(u32, u32)]| -> Vec<(u32, u32)> {
                    v.iter().copied().filter(|q| q.1 >= n).collect()
                };
                assert_eq!(ground_of(&pairs), ground_of(&sweep_pairs), "{what}");
                for pair in &contacting {
                    assert!(
                        pairs.binary_search(pair).is_ok(),
                        "{what}: pair {pair:?} in contact is missing from {pairs:?}"
                    );
                }
                assert!(
                    pairs.len() <= sweep_pairs.len() + 2 * n as usize,
                    "{what}: {} pairs",
                    pairs.len()
                );
            }
        }
        p.step(&sweep).expect("step");
    }
    assert!(touching > 10, "only {touching} pairs in contact checked");
    let resident = PipelineParams {
        broad: BroadPhase::ImageCompute,
        ..params(PipelineBackend::Gpu)
    };
    let err = p.step(&resident).expect_err("the resident step refuses");
    assert!(err.to_string().contains("gpu-detect"), "{err}");
}

/// The exact (triangle–triangle) narrow phase on gpu-detect against the
/// CPU reference, frame by frame on a pile with every torus exact: the
/// same intersection segments and the same contacts, up to pairs within
/// rounding of touching (which the f32 GPU test and the exact CPU one may
/// decide differently).
#[test]
fn exact_pairs_on_the_gpu_match_the_cpu_reference() {
    use collidoscope::stages::collide::Contact;
    let ctx = common::gpu();
    let (meshes, specs) = pile(24);
    let mut p = Pipeline::new(&meshes, &specs, ground(), &fields(), Some(&ctx)).expect("pipeline");
    for i in (1..specs.len()).step_by(2) {
        p.set_exact(i, true);
    }
    let (cpu, gpu) = (
        params(PipelineBackend::Cpu),
        params(PipelineBackend::GpuDetect),
    );
    let n = p.body_count() as u32;
    let exact_of = |p: &Pipeline, set: &[Contact]| -> Vec<Contact> {
        set.iter()
            .filter(|c| {
                c.body < n
                    && c.other < n
                    && (p.is_exact(c.body as usize) || p.is_exact(c.other as usize))
            })
            .copied()
            .collect()
    };
    let same = |a: &Contact, b: &Contact| {
        a.body == b.body
            && a.other == b.other
            && a.position.distance(b.position) < 1e-3
            && a.normal.dot(b.normal) > 0.999
            && (a.depth - b.depth).abs() < 1e-3
    };
    let (mut compared, mut unmatched) = (0, 0);
    for frame in 0..30 {
        let mut t = Timings::default();
        let c = p.detect_phases(&cpu, &mut t).expect("cpu phases");
        let g = p.detect_phases(&gpu, &mut t).expect("gpu phases");
        assert_eq!(g.pairs, c.pairs, "frame {frame}: broad-phase pairs differ");
        let (ce, ge) = (
            exact_of(&p, &c.contacts.contacts),
            exact_of(&p, &g.contacts.contacts),
        );
        for (k, x) in ge.iter().enumerate() {
            if !ce.iter().any(|y| same(x, y)) {
                unmatched += 1;
                assert!(
                    unmatched <= 2 + compared / 50,
                    "frame {frame}: gpu exact contact {k} {x:?} has no cpu match ({unmatched} so far)"
                );
            }
        }
        for (k, y) in ce.iter().enumerate() {
            if !ge.iter().any(|x| same(x, y)) {
                unmatched += 1;
                assert!(
                    unmatched <= 2 + compared / 50,
                    "frame {frame}: cpu exact contact {k} {y:?} has no gpu match ({unmatched} so far)"
                );
            }
        }
        assert!(
            g.segments.len().abs_diff(c.segments.len()) <= 2,
            "frame {frame}: {} gpu segments, {} cpu",
            g.segments.len(),
            c.segments.len()
        );
        compared += ce.len();
        p.step(&cpu).expect("step");
    }
    assert!(compared > 50, "only {compared} exact contacts compared");
}
