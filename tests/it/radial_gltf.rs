//! CesiumMan (Khronos glTF sample, `assets/CesiumMan.glb`) through the glTF
//! loader: its counts, the bind pose, GPU skinning against CPU skinning
//! through the animation, and fitted fields that cover the body.

use crate::common;

use std::path::Path;

use collidoscope::gpu::{read_buffer, storage_buffer_init};
use collidoscope::progress::Progress;
use collidoscope::sim::radial::character::gltf::{Loaded, load_gltf};
use collidoscope::sim::radial::character::skinning::{SkinningGpu, skin_cpu};
use collidoscope::stages::radial::{Backend, Radial, RadialInput, RadialParams};
use glam::{Mat4, Vec3};

fn cesium_man() -> Loaded {
    load_gltf(&Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/CesiumMan.glb")).unwrap()
}

#[test]
fn cesium_man_loads_with_its_skin_and_animation() {
    let loaded = cesium_man();
    let c = &loaded.character;
    assert_eq!(loaded.skin_joints, 19);
    assert_eq!(loaded.ignored_influences, 0);
    // The 19 joints and their two ancestors (Z_UP, Armature).
    assert_eq!(c.skeleton.joints.len(), 21);
    assert_eq!(c.skeleton.joints[0].name, "Z_UP");
    assert_eq!(c.rest.len(), 3273);
    assert_eq!(c.triangles.len(), 4672);
    let clip = c.clip.as_ref().unwrap();
    assert_eq!(clip.channels.len(), 57);
    assert!(clip.duration() > 1.0, "{}", clip.duration());
    for (v, w) in c.skin.weights.iter().enumerate() {
        let sum: f32 = w.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "vertex {v}: weights sum to {sum}");
    }
}

#[test]
fn the_bind_pose_skins_to_the_mesh() {
    let c = cesium_man().character;
    // Every joint at its bind transform: the skin matrices are identity
    // and the skinned mesh is the file's.
    let bind: Vec<Mat4> = c
        .skeleton
        .joints
        .iter()
        .map(|j| j.inverse_bind.inverse() * j.inverse_bind)
        .collect();
    for (v, (p, q)) in skin_cpu(&c.rest, &c.skin, &bind)
        .iter()
        .zip(&c.rest)
        .enumerate()
    {
        assert!(p.abs_diff_eq(*q, 1e-5), "vertex {v}: {p} vs {q}");
    }
    // The nodes' rest transforms are the bind pose seen through the
    // Z_UP · Armature ancestors: the mesh (z up) stands up in y.
    let rest = c.skeleton.rest_pose();
    let up = c.skeleton.world(&rest)[1];
    let skinned = skin_cpu(&c.rest, &c.skin, &c.skeleton.skin_matrices(&rest));
    for (v, (p, q)) in skinned.iter().zip(&c.rest).enumerate() {
        let q = up.transform_point3(*q);
        assert!(p.abs_diff_eq(q, 1e-3), "vertex {v}: {p} vs {q}");
    }
    let top = skinned.iter().map(|p| p.y).fold(f32::MIN, f32::max);
    assert!((1.4..1.6).contains(&top), "stands {top} tall in y");
}

#[test]
fn gpu_skinning_matches_the_cpu_through_the_animation() {
    let gpu = common::gpu();
    let c = cesium_man().character;
    let out =
        storage_buffer_init(&gpu, "radial_gltf::out", &vec![[0.0f32; 4]; c.rest.len()]).unwrap();
    let skinning = SkinningGpu::new(&gpu, &c.rest, &c.skin, c.skeleton.joints.len(), &out).unwrap();
    let duration = c.clip.as_ref().unwrap().duration();
    for t in [0.0, 0.17, 0.5, 0.93, duration * 0.999] {
        let pose = c.pose(t);
        skinning.write_matrices(&gpu, &pose.skin_matrices);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let mut pass = encoder.begin_compute_pass(&Default::default());
        skinning.record(&mut pass);
        drop(pass);
        gpu.queue.submit([encoder.finish()]);
        let on_gpu: Vec<[f32; 4]> = read_buffer(&gpu, &out, c.rest.len()).unwrap();
        let cpu = c.skinned(&pose);
        for (v, (g, p)) in on_gpu.iter().zip(&cpu).enumerate() {
            let g = Vec3::new(g[0], g[1], g[2]);
            assert!(
                g.abs_diff_eq(*p, 1e-5),
                "t {t}: vertex {v}: GPU {g} vs CPU {p}"
            );
        }
    }
}

#[test]
fn fitted_fields_cover_the_body() {
    let c = cesium_man().character;
    assert!(c.fields.len() >= 15, "{} fields", c.fields.len());
    let mut in_a_field = vec![false; c.triangles.len()];
    for f in &c.fields {
        for &t in f.faces.as_ref().unwrap() {
            in_a_field[t as usize] = true;
        }
    }
    if let Some(t) = in_a_field.iter().position(|&x| !x) {
        panic!("triangle {t} is in no field");
    }
    let pose = c.pose(0.5);
    let skinned = c.skinned(&pose);
    let specs = c.field_specs(&pose).unwrap();
    let params = RadialParams::new(32, 16);
    let input = RadialInput {
        positions: &skinned,
        triangles: &c.triangles,
        fields: &specs,
    };
    let p = Radial::run(input, &params, Backend::Cpu, None, &Progress::default()).unwrap();
    let n = params.cells_per_field();
    let mut all = 0;
    for (f, cells) in p.values.chunks(n).enumerate() {
        let covered = cells.iter().filter(|v| v.is_finite()).count();
        // The shortest (a neck band) sees its faces in under a fifth.
        assert!(
            covered * 8 >= n,
            "field {f} ({}): {covered} of {n} cells covered",
            c.field_name(f)
        );
        all += covered;
    }
    assert!(
        all * 10 >= p.values.len() * 7,
        "{all} of {} cells covered",
        p.values.len()
    );
    // In the bind pose every vertex lies along the field of its main bone.
    for (v, q) in c.rest.iter().enumerate() {
        let joint = c.skin.dominant(v) as usize;
        let f = c.fields.iter().find(|f| f.joint == joint).unwrap();
        let z = (*q - f.a).dot(f.b - f.a) / f.b.distance_squared(f.a);
        assert!(
            (0.0..=1.0).contains(&z),
            "vertex {v}: z = {z} along joint {joint}"
        );
    }
}
