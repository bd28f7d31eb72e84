//! The collision pipeline at every scale and speed, on the CPU path and the
//! resident GPU step alike: position correction that never adds energy (a
//! large contact threshold) and pushes out at a speed bounded by the body's
//! size (a body placed below the ground), a 10 km/s drop that bounces, long
//! frames split into substeps, flat bodies refused, and millimetre and
//! micrometre cubes resting on the ground.

use crate::common;
use crate::simulate::{fields, ground};

use collidoscope::gpu::GpuContext;
use collidoscope::mesh::{Mesh, box_mesh};
use collidoscope::sim::collide::BodyState;
use collidoscope::sim::simulate::{
    BodySpec, Pipeline, PipelineBackend, PipelineError, PipelineParams,
};
use glam::{Mat4, Quat, Vec3};

const BACKENDS: [PipelineBackend; 2] = [PipelineBackend::Cpu, PipelineBackend::Gpu];

/// A cube of side `side` centred at the origin.
fn cube(side: f32) -> Mesh {
    box_mesh(2).transformed(Mat4::from_scale(Vec3::splat(side)))
}

/// One cube of side `side` whose centre starts at height `y` with `velocity`.
fn cube_at(side: f32, y: f32, velocity: Vec3) -> ([Mesh; 1], [BodySpec; 1]) {
    let spec = BodySpec {
        mesh: 0,
        position: Vec3::new(0.0, y, 0.0),
        orientation: Quat::IDENTITY,
        velocity,
        angular_velocity: Vec3::ZERO,
        density: 1000.0,
        is_static: false,
    };
    ([cube(side)], [spec])
}

/// Each frame's states and energy, `frames` frames on `backend`.
fn frames(
    ctx: &GpuContext,
    scene: &([Mesh; 1], [BodySpec; 1]),
    params: &PipelineParams,
    frames: usize,
) -> Vec<(BodyState, f64)> {
    let mut p =
        Pipeline::new(&scene.0, &scene.1, ground(), &fields(), Some(ctx)).expect("pipeline");
    (0..frames)
        .map(|_| {
            p.step(params).expect("step");
            let energy = p.finish().expect("finish").energy;
            (p.bodies[0].state, energy)
        })
        .collect()
}

fn params(backend: PipelineBackend) -> PipelineParams {
    PipelineParams {
        backend,
        ..PipelineParams::default()
    }
}

/// A cube resting on the ground with a contact threshold of 10 m rises to
/// rest 10 m up — at a bounded speed, and gaining no more energy than the
/// lift's.
#[test]
fn a_large_contact_threshold_lifts_a_resting_cube_without_launching_it() {
    let ctx = common::gpu();
    let eps = 10.0;
    let scene = cube_at(1.0, 0.5, Vec3::ZERO);
    let lift = 1000.0 * 9.81 * (f64::from(eps) + 0.01);
    for backend in BACKENDS {
        let mut params = params(backend);
        params.colliders.contact_threshold = eps;
        // It rises at the bounded 2 m/s, comes within 5 cm of its place
        // by frame 305 and stops by frame 340 on both backends.
        let run = frames(&ctx, &scene, &params, 360);
        let start = run[0].1;
        for (frame, (s, e)) in run.iter().enumerate() {
            assert!(
                *e <= start + lift,
                "{backend:?}: frame {frame}, energy {e} > {start} + the lift's {lift} ({s:?})"
            );
            assert!(
                s.velocity.length() < 2.5,
                "{backend:?}: frame {frame}, {s:?}"
            );
        }
        let last = run[run.len() - 1].0;
        assert!(
            (last.position.y - (0.5 + eps)).abs() < 0.05,
            "{backend:?}: rests at {last:?}"
        );
    }
}

/// A cube placed with its top 4.5 m below the ground comes out at the
/// bounded push-out speed (2 sizes per second), not at hundreds of m/s,
/// and rests on the ground.
#[test]
fn a_body_below_the_ground_comes_out_slowly_and_rests_on_it() {
    let ctx = common::gpu();
    let scene = cube_at(1.0, -5.0, Vec3::ZERO);
    for backend in BACKENDS {
        let params = params(backend);
        // Out and within 2 cm of resting by frame 175, still by 205.
        let run = frames(&ctx, &scene, &params, 210);
        let mut y = -5.0f32;
        for (frame, (s, _)) in run.iter().enumerate() {
            let speed = (s.position.y - y) / params.timestep;
            assert!(
                speed.abs() < 2.5 && s.velocity.length() < 2.5,
                "{backend:?}: frame {frame}, moving at {speed} m/s: {s:?}"
            );
            y = s.position.y;
        }
        let last = run[run.len() - 1].0;
        assert!(
            (last.position.y - 0.5).abs() < 0.02 && last.velocity.length() < 0.05,
            "{backend:?}: {last:?}"
        );
    }
}

/// A cube dropped at 10 km/s goes 167 m into the ground in one step: both
/// backends send it back up at the restitution's speed (a fifth of
/// 10 km/s), the same within float rounding, and it leaves the ground.
#[test]
fn a_cube_dropped_at_ten_kilometres_a_second_bounces_on_both_backends() {
    let ctx = common::gpu();
    let scene = cube_at(1.0, 2.0, Vec3::new(0.0, -10_000.0, 0.0));
    let [cpu, gpu] = BACKENDS.map(|b| frames(&ctx, &scene, &params(b), 12));
    // Within 0.02% of the 167 m a frame covers (the landing step's
    // Gauss–Seidel and Jacobi impulses differ in rounding).
    let frame_travel = 10_000.0 * PipelineParams::default().timestep;
    for (frame, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
        let gap = c.0.position.distance(g.0.position);
        assert!(
            gap < 2e-4 * frame_travel,
            "frame {frame}: cpu {:?}, gpu {:?}",
            c.0,
            g.0
        );
    }
    for (name, run) in [("cpu", &cpu), ("gpu", &gpu)] {
        let s = run[run.len() - 1].0;
        assert!(
            s.position.y > 100.0 && (s.velocity.y - 2000.0).abs() < 50.0,
            "{name}: {s:?}"
        );
    }
}

/// Frames of 0.2 s and 1 s (inside the scene file's (0, 1] s) run as
/// substeps of at most 1/60 s: a resting cube stays on the ground.
#[test]
fn long_frames_keep_a_resting_cube_on_the_ground() {
    let ctx = common::gpu();
    let scene = cube_at(1.0, 0.5, Vec3::ZERO);
    for (timestep, count) in [(0.2f32, 5), (1.0, 2)] {
        for backend in BACKENDS {
            let params = PipelineParams {
                timestep,
                ..params(backend)
            };
            assert_eq!(
                params.substeps_per_frame(1.0),
                (timestep * 60.0).round() as u32
            );
            let run = frames(&ctx, &scene, &params, count);
            for (frame, (s, _)) in run.iter().enumerate() {
                assert!(
                    (s.position.y - 0.5).abs() < 0.02 && s.velocity.length() < 0.05,
                    "{backend:?}, {timestep} s: frame {frame}, {s:?}"
                );
            }
        }
    }
}

/// A lone triangle encloses no volume, so it has no mass: refused as a
/// moving body whichever backend would run it, accepted as a static one.
#[test]
fn a_one_triangle_body_is_refused_as_moving_and_kept_as_static() {
    let ctx = common::gpu();
    let triangle = Mesh::new(
        "triangle",
        vec![
            Vec3::new(-0.5, 0.0, -0.5),
            Vec3::new(0.5, 0.2, -0.5),
            Vec3::new(0.0, 0.1, 0.5),
        ],
        vec![[0, 1, 2]],
    );
    let (_, [spec]) = cube_at(1.0, 1.0, Vec3::ZERO);
    let meshes = [triangle];
    for gpu in [None, Some(&ctx)] {
        match Pipeline::new(&meshes, &[spec], ground(), &fields(), gpu) {
            Err(e @ PipelineError::BadBody(0, _)) => {
                let line = e.to_string();
                assert!(line.contains("no volume") && !line.contains('\n'), "{line}");
            }
            Err(e) => panic!("refused for another reason: {e}"),
            Ok(_) => panic!("a one-triangle moving body was accepted"),
        }
        let fixed = BodySpec {
            is_static: true,
            ..spec
        };
        Pipeline::new(&meshes, &[fixed], ground(), &fields(), gpu).expect("a static triangle");
    }
}

/// A 1 mm and a 1 µm cube, resting on the ground or dropped from twice
/// its size, settle on the ground: neither buried nor floating by more
/// than 2% of its side. The solver's tolerances are relative to the body,
/// and the substeps short enough that gravity moves the smallest body a
/// fraction of its size in one (at 1/60 s the 1 µm cube would fall 2,700
/// sizes into the ground before its first contact). Lavapipe takes tens of
/// milliseconds a substep, so the GPU runs the dropped cube only, the
/// 1 µm one in frames of 1 ms (7 substeps each).
#[test]
fn millimetre_and_micrometre_cubes_settle_on_the_ground() {
    let ctx = common::gpu();
    for side in [1e-3f32, 1e-6] {
        let gpu_frame = if side < 1e-4 { 1e-3 } else { 1.0 / 60.0 };
        for (backend, timestep, starts) in [
            (PipelineBackend::Cpu, 1.0 / 60.0, &[0.5, 2.0][..]),
            (PipelineBackend::Gpu, gpu_frame, &[2.0][..]),
        ] {
            let params = PipelineParams {
                timestep,
                ..params(backend)
            };
            assert!(params.substeps_per_frame(side) > 1);
            for &start in starts {
                let scene = cube_at(side, start * side, Vec3::ZERO);
                let run = frames(&ctx, &scene, &params, 6);
                let last = run[run.len() - 1].0;
                let gap = last.position.y - 0.5 * side;
                assert!(
                    gap.abs() < 0.02 * side,
                    "{backend:?}: a {side} m cube from {start} sides rests {} sides off the ground: {last:?}",
                    gap / side
                );
            }
        }
    }
}
