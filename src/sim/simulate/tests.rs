//! Physical checks of the pipeline on the CPU backend (the GPU backend runs
//! the same scenes in tests/it/simulate.rs).

use super::*;
use crate::mesh::box_mesh;

fn cpu_params() -> PipelineParams {
    PipelineParams {
        backend: PipelineBackend::Cpu,
        ..PipelineParams::default()
    }
}

fn fields() -> FieldParams {
    FieldParams {
        sdf: SdfParams {
            resolution: 16,
            ..SdfParams::default()
        },
        ..FieldParams::default()
    }
}

fn resting(y: f32) -> BodySpec {
    BodySpec {
        mesh: 0,
        position: Vec3::new(0.0, y, 0.0),
        orientation: Quat::IDENTITY,
        velocity: Vec3::ZERO,
        angular_velocity: Vec3::ZERO,
        density: 1000.0,
        is_static: false,
    }
}

fn ground() -> Option<Ground> {
    Some(Ground {
        point: Vec3::ZERO,
        normal: Vec3::Y,
    })
}

#[test]
fn a_box_resting_on_the_ground_stays_at_rest_for_1000_frames() {
    let mut p = Pipeline::new(&[box_mesh(2)], &[resting(0.5)], ground(), &fields(), None)
        .expect("pipeline");
    let params = cpu_params();
    for _ in 0..50 {
        p.step(&params).expect("step");
    }
    let settled = p.bodies[0].state;
    for _ in 50..1000 {
        p.step(&params).expect("step");
    }
    let s = p.bodies[0].state;
    assert!(
        s.position.distance(settled.position) < 0.01,
        "drifted from {:?} to {:?}",
        settled.position,
        s.position
    );
    assert!((s.position.y - 0.5).abs() < 0.03, "{:?}", s.position);
    assert!(s.rotation.angle_between(Quat::IDENTITY) < 0.02, "{s:?}");
    assert!(s.velocity.length() < 0.05, "{s:?}");
    assert!(p.summary.contacts > 0);
}

#[test]
fn a_stack_of_boxes_stands_and_energy_never_grows() {
    let specs: Vec<BodySpec> = (0..3)
        .map(|k| BodySpec {
            position: Vec3::new(0.01 * k as f32, 0.5 + 1.02 * k as f32, 0.0),
            ..resting(0.0)
        })
        .collect();
    let mut p = Pipeline::new(&[box_mesh(2)], &specs, ground(), &fields(), None).expect("pipeline");
    let params = cpu_params();
    let mut energy = p.energy(params.gravity);
    // Position correction may lift a body out of the ground by at most the
    // solver's slop: the work of lifting all three boxes by it.
    let slop = params.rigid(f32::INFINITY).slop as f64;
    let tolerance = 3.0 * 1000.0 * 9.81 * slop;
    for frame in 0..300 {
        let e = p.step(&params).expect("step").energy;
        assert!(
            e <= energy + tolerance,
            "frame {frame}: energy grew from {energy} to {e}"
        );
        energy = e.min(energy);
    }
    for k in 0..3 {
        let s = p.bodies[k].state;
        assert!(
            (s.position.y - (0.5 + k as f32)).abs() < 0.06 && s.position.x.abs() < 0.1,
            "box {k}: {:?}",
            s.position
        );
    }
}

#[test]
fn a_fast_box_does_not_pass_through_a_static_one() {
    let specs = [
        BodySpec {
            is_static: true,
            ..resting(0.0)
        },
        BodySpec {
            velocity: Vec3::new(0.0, -8.0, 0.0),
            ..resting(2.0)
        },
    ];
    let mut p = Pipeline::new(&[box_mesh(2)], &specs, None, &fields(), None).expect("pipeline");
    let params = cpu_params();
    for frame in 0..120 {
        p.step(&params).expect("step");
        let y = p.bodies[1].state.position.y;
        assert!(y > 0.8, "frame {frame}: the falling box is at y = {y}");
    }
    let fixed = Pipeline::new(&[box_mesh(2)], &specs, None, &fields(), None).expect("pipeline");
    assert_eq!(
        p.bodies[0].state, fixed.bodies[0].state,
        "the static box moved"
    );
}

#[test]
fn poses_are_those_of_the_meshes_own_coordinates() {
    // A box whose coordinates put it 3 units off its origin.
    let mesh = box_mesh(1).transformed(Mat4::from_translation(Vec3::new(3.0, 0.0, 0.0)));
    let spec = BodySpec {
        position: Vec3::new(1.0, 2.0, 0.0),
        orientation: Quat::from_rotation_y(0.5),
        ..resting(0.0)
    };
    let p = Pipeline::new(&[mesh], &[spec], None, &fields(), None).expect("pipeline");
    let (pos, rot) = p.mesh_pose(0);
    assert!(pos.distance(spec.position) < 1e-5, "{pos}");
    assert!(rot.angle_between(spec.orientation) < 1e-5);
    let centre = p.bodies[0].state.position;
    let want = spec.position + spec.orientation * Vec3::new(3.0, 0.0, 0.0);
    assert!(centre.distance(want) < 1e-4, "{centre} vs {want}");
}
