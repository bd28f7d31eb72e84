//! Colliders on analytic contact cases (a sphere on a plane, a cube on a
//! cube, a segment through a torus, meshes apart) and the two fixes, each
//! with a case that needs it: flipped-normal rejection and interpolated
//! depth.

use crate::common;

use collidoscope::mesh::{Mesh, box_mesh, torus, uv_sphere};
use collidoscope::stages::collide::{self, Body, BodyShape, ColliderGpu, ColliderParams, Contact};
use collidoscope::stages::sampling::FeatureKind;
use glam::{Mat4, Vec3};

use common::collide_scenes::{body, near, shape};

fn scaled(mesh: Mesh, s: Vec3) -> Mesh {
    mesh.transformed(Mat4::from_scale(s))
}

/// Sphere (radius 0.5) resting 0.05 deep in the plane y = 0: the deepest
/// contact is the bottom pole, depth 0.05, every normal +y out of the plane.
#[test]
fn sphere_resting_on_plane_depth_and_normal() {
    let shapes = vec![shape(&uv_sphere(16, 32), 24)];
    let bodies = [
        body(0, Mat4::from_translation(Vec3::new(0.3, 0.45, -0.2))),
        Body {
            shape: BodyShape::Plane {
                normal: Vec3::Y,
                offset: 0.0,
            },
            world_from_object: Mat4::IDENTITY,
        },
    ];
    let set = collide::detect(
        &shapes,
        &bodies,
        &[(0, 1)],
        &ColliderParams::default(),
        collide::Backend::Cpu,
        None,
    )
    .expect("contacts");
    assert!(!set.contacts.is_empty());
    let deepest = set
        .contacts
        .iter()
        .max_by(|a, b| a.depth.total_cmp(&b.depth))
        .expect("some");
    assert!((deepest.depth - 0.05).abs() < 1e-4, "{deepest:?}");
    assert!(near(deepest.position, Vec3::new(0.3, -0.05, -0.2), 1e-4));
    for c in &set.contacts {
        assert_eq!((c.body, c.other), (0, 1));
        assert!(near(c.normal, Vec3::Y, 1e-6) && c.depth >= 0.0, "{c:?}");
        assert!((c.depth + c.position.y).abs() < 1e-5, "{c:?}");
    }
}

/// Two aligned unit cubes stacked face to face, the upper one 0.04 into the
/// lower: face samples give contacts whose normals lie along the stacking
/// axis, pushing the upper cube up and the lower one down (§5.1.1).
#[test]
fn cube_on_cube_face_to_face_contacts_along_stacking_axis() {
    let shapes = vec![shape(&box_mesh(4), 16)];
    let bodies = [
        body(0, Mat4::IDENTITY),
        body(0, Mat4::from_translation(Vec3::new(0.0, 0.96, 0.0))),
    ];
    let set = collide::detect(
        &shapes,
        &bodies,
        &[(0, 1)],
        &ColliderParams::default(),
        collide::Backend::Cpu,
        None,
    )
    .expect("contacts");
    let face_contacts: Vec<&Contact> = set
        .contacts
        .iter()
        .filter(|c| c.feature == FeatureKind::Face)
        .collect();
    assert_eq!(face_contacts.len(), 2, "{:?}", set.contacts);
    for c in &face_contacts {
        let up = if c.body == 1 { Vec3::Y } else { -Vec3::Y };
        assert!(near(c.normal, up, 1e-3), "{c:?}");
        assert!(c.depth > 0.0 && c.depth < 0.1, "{c:?}");
    }
    for c in &set.contacts {
        let along = c.normal.y.abs();
        assert!(along > 0.5, "a contact across the stacking axis: {c:?}");
    }
}

/// A segment along x through the tube of a torus (ring radius 0.4, tube
/// 0.15) enters at x = −0.55: the contact is the first inside cell that an
/// exact voxel walk meets, which a brute-force march along the segment
/// agrees with.
#[test]
fn segment_through_torus_first_entry_cell() {
    let shapes = vec![shape(&torus(48, 24, 0.4, 0.15), 32)];
    let (a, b) = (Vec3::new(-1.0, 0.013, 0.021), Vec3::new(1.0, 0.013, 0.021));
    let bodies = [
        body(0, Mat4::IDENTITY),
        Body {
            shape: BodyShape::Segment { a, b },
            world_from_object: Mat4::IDENTITY,
        },
    ];
    let set = collide::detect(
        &shapes,
        &bodies,
        &[(0, 1)],
        &ColliderParams::default(),
        collide::Backend::Cpu,
        None,
    )
    .expect("contacts");
    assert_eq!(set.contacts.len(), 1, "{:?}", set.contacts);
    let c = set.contacts[0];
    assert_eq!((c.body, c.other, c.feature), (0, 1, FeatureKind::Cell));
    let field = &shapes[0].field;
    // Brute-force march: the first point of the segment in an inside cell.
    let mut first = None;
    for i in 0..=200_000 {
        let p = a + (b - a) * (i as f32 / 200_000.0);
        if let Some(cell) = field.grid.cell_at(p)
            && field.values[field.grid.index(cell)] < 0.0
        {
            first = Some(field.grid.center(cell));
            break;
        }
    }
    let first = first.expect("the segment enters the torus");
    assert!(near(c.position, first, 1e-5), "{c:?} vs {first}");
    // Analytic entry point x = −0.55, within a cell.
    assert!((c.position.x + 0.55).abs() <= field.grid.cell_size, "{c:?}");
    assert!(near(c.normal, Vec3::X, 0.05), "{c:?}");
    assert!(c.depth >= 0.0);
    // A segment that misses the grid box gives nothing.
    let mut miss = bodies;
    miss[1].shape = BodyShape::Segment {
        a: Vec3::new(-1.0, 2.0, 0.0),
        b: Vec3::new(1.0, 2.0, 0.0),
    };
    let none = collide::detect(
        &shapes,
        &miss,
        &[(0, 1)],
        &ColliderParams::default(),
        collide::Backend::Cpu,
        None,
    )
    .expect("contacts");
    assert!(none.contacts.is_empty());
}

/// A cube pushed into a thin slab deeper than the slab's mid-plane: there
/// the slab's gradient points out of its far side, the same way as the
/// cube's bottom samples' normals, and would push the cube *through* the
/// slab. Sundholm's rejection drops exactly those contacts.
#[test]
fn flipped_normal_rejection_drops_contacts_that_push_through() {
    let slab = scaled(box_mesh(6), Vec3::new(3.0, 0.2, 3.0));
    let shapes = vec![shape(&box_mesh(4), 16), shape(&slab, 48)];
    // Cube bottom at y = -0.03: 0.13 into the slab whose mid-plane is y = 0.
    let bodies = [
        body(0, Mat4::from_translation(Vec3::new(0.0, 0.47, 0.0))),
        body(1, Mat4::IDENTITY),
    ];
    let run = |reject_flipped| {
        let params = ColliderParams {
            reject_flipped,
            ..ColliderParams::default()
        };
        collide::detect(
            &shapes,
            &bodies,
            &[(0, 1)],
            &params,
            collide::Backend::Cpu,
            None,
        )
        .expect("contacts")
        .contacts
    };
    let pushes_cube_down = |c: &&Contact| c.body == 0 && c.normal.y < -0.5 && c.position.y < 0.0;
    let without = run(false);
    assert!(
        without.iter().any(|c| pushes_cube_down(&c)),
        "the flipped case must occur without the rejection"
    );
    let with = run(true);
    assert!(!with.is_empty());
    let bad: Vec<&Contact> = with.iter().filter(pushes_cube_down).collect();
    assert!(bad.is_empty(), "flipped contacts kept: {bad:?}");
}

/// The cell-value depth is the distance at the cell centre, off by up to
/// half a cell (Sundholm §8.1); the trilinear depth is exact near a flat
/// face. A sphere pressed 0.05 into a big box (cell 0.125): the pole's
/// depth.
#[test]
fn interpolated_depth_fixes_the_cell_centre_error() {
    let block = scaled(box_mesh(4), Vec3::new(4.0, 1.0, 4.0));
    let shapes = vec![shape(&block, 32), shape(&uv_sphere(12, 24), 16)];
    let h = shapes[0].field.grid.cell_size;
    // Put the pole a third of a cell away from a cell-centre plane.
    let top = 0.5f32;
    let centres_y = shapes[0].field.grid.origin.y;
    let k = ((top - 0.06 - centres_y) / h).floor();
    let pole_y = centres_y + k * h + h / 3.0;
    let depth = top - pole_y;
    let bodies = [
        body(0, Mat4::IDENTITY),
        body(
            1,
            Mat4::from_translation(Vec3::new(0.01, pole_y + 0.5, -0.02)),
        ),
    ];
    let pole = |interpolated_depth| {
        let params = ColliderParams {
            interpolated_depth,
            ..ColliderParams::default()
        };
        let set = collide::detect(
            &shapes,
            &bodies,
            &[(0, 1)],
            &params,
            collide::Backend::Cpu,
            None,
        )
        .expect("contacts");
        set.contacts
            .into_iter()
            .filter(|c| c.body == 1)
            .min_by(|a, b| a.position.y.total_cmp(&b.position.y))
            .expect("the pole touches")
    };
    let interpolated = pole(true);
    let cell = pole(false);
    eprintln!(
        "true depth {depth:.4}: cell {:.4}, interpolated {:.4}",
        cell.depth, interpolated.depth
    );
    assert!(
        (interpolated.depth - depth).abs() < 0.02 * h,
        "{interpolated:?}"
    );
    assert!((interpolated.depth_cell - cell.depth).abs() < 1e-6);
    assert!((cell.depth - depth).abs() > 0.25 * h, "{cell:?}");
}

/// Meshes that do not touch give no contacts (not an error).
#[test]
fn separated_meshes_give_no_contacts() {
    let shapes = vec![shape(&box_mesh(2), 12)];
    let bodies = [
        body(0, Mat4::IDENTITY),
        body(0, Mat4::from_translation(Vec3::new(3.0, 0.0, 0.0))),
    ];
    let gpu = ColliderGpu::new(&common::gpu());
    for backend in [collide::Backend::Cpu, collide::Backend::Gpu] {
        let set = collide::detect(
            &shapes,
            &bodies,
            &[(0, 1)],
            &ColliderParams::default(),
            backend,
            Some(&gpu),
        )
        .expect("contacts");
        assert!(set.contacts.is_empty());
    }
}

/// With a contact threshold ε, bodies that do not touch are in contact
/// where they are closer than ε, with depth ε − d: a sphere hovering 0.02
/// over the plane has its bottom pole at depth ε − 0.02 and every contact
/// within ε of the plane, and a cube 0.03 over another gets face contacts
/// of depth ε − 0.03 (the interpolated field is exact at a flat face), on
/// the CPU and the GPU; below the gap there are none.
#[test]
fn a_contact_threshold_finds_bodies_closer_than_it_with_depth_eps_minus_d() {
    let gpu = ColliderGpu::new(&common::gpu());
    let shapes = vec![shape(&uv_sphere(16, 32), 24), shape(&box_mesh(4), 16)];
    let plane = Body {
        shape: BodyShape::Plane {
            normal: Vec3::Y,
            offset: 0.0,
        },
        world_from_object: Mat4::IDENTITY,
    };
    let hovering = [
        body(0, Mat4::from_translation(Vec3::new(0.3, 0.52, -0.2))),
        plane,
    ];
    let stacked = [
        body(1, Mat4::IDENTITY),
        body(1, Mat4::from_translation(Vec3::new(0.0, 1.03, 0.0))),
    ];
    for backend in [collide::Backend::Cpu, collide::Backend::Gpu] {
        let detect = |bodies: &[Body], contact_threshold: f32| {
            let params = ColliderParams {
                interpolated_depth: true,
                contact_threshold,
                ..ColliderParams::default()
            };
            collide::detect(&shapes, bodies, &[(0, 1)], &params, backend, Some(&gpu))
                .expect("contacts")
                .contacts
        };
        for eps in [0.0, 0.015] {
            assert!(detect(&hovering, eps).is_empty(), "{backend:?}, ε = {eps}");
            assert!(detect(&stacked, eps).is_empty(), "{backend:?}, ε = {eps}");
        }
        let eps = 0.05;
        let on_plane = detect(&hovering, eps);
        let deepest = on_plane
            .iter()
            .max_by(|a, b| a.depth.total_cmp(&b.depth))
            .expect("contacts within the threshold");
        assert!(
            (deepest.depth - 0.03).abs() < 1e-4,
            "{backend:?}: {deepest:?}"
        );
        for c in &on_plane {
            assert!(near(c.normal, Vec3::Y, 1e-6), "{backend:?}: {c:?}");
            assert!(
                (c.depth - (eps - c.position.y)).abs() < 1e-5,
                "{backend:?}: {c:?}"
            );
            assert!(c.depth > 0.0 && c.position.y < eps, "{backend:?}: {c:?}");
        }
        let faces: Vec<Contact> = detect(&stacked, eps)
            .into_iter()
            .filter(|c| c.feature == FeatureKind::Face)
            .collect();
        assert_eq!(faces.len(), 2, "{backend:?}: {faces:?}");
        for c in &faces {
            let up = if c.body == 1 { Vec3::Y } else { -Vec3::Y };
            assert!(near(c.normal, up, 1e-3), "{backend:?}: {c:?}");
            assert!((c.depth - 0.02).abs() < 2e-3, "{backend:?}: {c:?}");
        }
    }
}
