//! The interference test scenes, shared by the tests/it/interfere_*.rs
//! binaries (the stencil path, culling and identification) and
//! tests/it/interfere_compute.rs (the compute backend).

use collidoscope::mesh::{Mesh, box_mesh, torus};
use collidoscope::stages::interfere::{InterferenceObject, InterferenceScene};
use glam::{Mat4, Quat, Vec3};

pub fn posed(mesh: &Mesh, scale: f32, rotation: Quat, at: Vec3) -> InterferenceObject {
    InterferenceObject::new(
        mesh,
        Mat4::from_scale_rotation_translation(Vec3::splat(scale), rotation, at),
    )
}

pub fn tilt() -> Quat {
    Quat::from_euler(glam::EulerRot::XYZ, 0.11, 0.23, 0.07)
}

/// The unit box split `k × k` per side without its +z side: an open mesh.
pub fn open_box(k: u32) -> Mesh {
    let mut m = box_mesh(k);
    let keep: Vec<[u32; 3]> = (0..m.triangles.len())
        .filter(|&t| m.face_normal(t).z < 0.5)
        .map(|t| m.triangles[t])
        .collect();
    assert_eq!(keep.len(), 10 * (k * k) as usize);
    m.triangles = keep;
    m
}

/// An open box whose bottom overlaps the box of a unit box turned 45°
/// about z (a diamond, inside the open box's corners only near the
/// middle): the rays through the hole to the bottom's edges near the
/// corners leave the open box without entering it, negative counts, inside
/// the overlap region, so culling keeps them. Plus a box far from both,
/// which culling does not draw at all.
pub fn open_box_scene() -> InterferenceScene {
    InterferenceScene::new(vec![
        posed(&open_box(4), 1.0, Quat::from_rotation_x(0.05), Vec3::ZERO),
        posed(
            &box_mesh(1),
            1.0,
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_4),
            Vec3::new(0.0, 0.0, -0.6),
        ),
        posed(&box_mesh(1), 0.5, tilt(), Vec3::new(2.5, 0.0, 0.0)),
    ])
    .unwrap()
}

pub fn scenes() -> Vec<(&'static str, InterferenceScene)> {
    let b = box_mesh(2);
    let ring = torus(16, 8, 0.6, 0.2);
    let s = |objects| InterferenceScene::new(objects).unwrap();
    vec![
        (
            "overlapping boxes",
            s(vec![
                posed(&b, 1.0, Quat::IDENTITY, Vec3::ZERO),
                posed(&b, 0.8, tilt(), Vec3::new(0.6, 0.15, 0.1)),
            ]),
        ),
        (
            "box inside box",
            s(vec![
                posed(&b, 3.0, Quat::IDENTITY, Vec3::ZERO),
                posed(&b, 1.0, tilt(), Vec3::new(0.2, 0.1, 0.05)),
            ]),
        ),
        (
            "box through torus",
            s(vec![
                posed(&ring, 1.0, tilt(), Vec3::ZERO),
                posed(&b, 0.5, Quat::IDENTITY, Vec3::new(0.55, 0.0, 0.0)),
            ]),
        ),
        ("open box and a diamond", open_box_scene()),
        (
            "overlapping boxes and one apart",
            s(vec![
                posed(&b, 1.0, Quat::IDENTITY, Vec3::ZERO),
                posed(&ring, 0.8, tilt(), Vec3::new(0.6, 0.15, 0.1)),
                posed(&b, 0.6, tilt(), Vec3::new(0.2, 2.5, 0.3)),
            ]),
        ),
    ]
}

pub const CULLING: [bool; 2] = [true, false];
