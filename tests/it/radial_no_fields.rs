//! A skinned character whose bones each own fewer than the 4 vertices a
//! field is fitted to has no radial fields. Colliding particles with no
//! fields is an empty result on the GPU as on the CPU (nothing is hit),
//! not a failure to bind the fields' empty buffers.

use crate::common;

use collidoscope::sim::radial::character::gltf::from_slice;
use collidoscope::sim::radial::{CollideParams, FieldSet, NO_CONTACT, RadialSimGpu, collide};
use glam::Vec3;

#[test]
fn a_character_without_fields_collides_with_nothing_on_the_gpu() {
    // Two rows of two vertices per bone: 2 vertices each.
    let (document, bin) = common::gltf::strip(2, 2);
    let loaded = from_slice("strip", &common::gltf::glb(&document, &bin), None)
        .expect("a valid skinned glTF");
    assert_eq!(loaded.skin_joints, 2);
    assert!(
        loaded.character.fields.is_empty(),
        "no bone owns 4 vertices"
    );
    let set = FieldSet::fixed(Vec::new(), Vec::new(), Vec::new());
    let q = [Vec3::new(0.0, 0.5, 0.0), Vec3::new(1.0, 2.0, 3.0)];
    let q1 = [Vec3::new(0.0, 0.4, 0.0), Vec3::new(1.0, 1.0, 3.0)];
    let params = CollideParams::default();
    let cpu = collide(&set, &params, &q, &q1).expect("cpu");
    let gpu = RadialSimGpu::new(&common::gpu())
        .collide(&set, &params, &q, &q1)
        .expect("no fields is not an error");
    assert_eq!(gpu.len(), 2);
    for (i, (g, c)) in gpu.iter().zip(&cpu).enumerate() {
        assert_eq!(g.field, NO_CONTACT, "particle {i}");
        assert_eq!(c.field, NO_CONTACT, "particle {i}");
        assert_eq!(g.predicted, q1[i], "particle {i} moves freely");
    }
}
