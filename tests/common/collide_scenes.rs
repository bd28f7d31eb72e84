//! The collider test scenes and helpers, shared by the tests/collide_*.rs
//! binaries: a collider shape from a mesh, a body, a deterministic
//! generator of poses, a large batch of overlapping pairs, and the bits of
//! a contact list for byte-identity checks.

use collidoscope::mesh::{Mesh, torus, uv_sphere};
use collidoscope::stages::collide::{Body, BodyShape, ColliderShape, Contact};
use collidoscope::stages::sampling::SamplingParams;
use collidoscope::stages::sdf::SdfParams;
use glam::{Mat4, Quat, Vec3};

pub fn sdf(res: u32) -> SdfParams {
    SdfParams {
        resolution: res,
        ..SdfParams::default()
    }
}

pub fn shape(mesh: &Mesh, res: u32) -> ColliderShape {
    ColliderShape::from_mesh(mesh, &sdf(res), &SamplingParams::default()).expect("shape")
}

pub fn body(shape: usize, world: Mat4) -> Body {
    Body {
        shape: BodyShape::Mesh(shape),
        world_from_object: world,
    }
}

pub fn near(a: Vec3, b: Vec3, tol: f32) -> bool {
    a.distance(b) <= tol
}

/// A tiny deterministic generator for the random poses.
pub struct Lcg(pub u64);
impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32) / (1u64 << 24) as f32
    }
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
    /// A random rotation: a random axis, a random angle.
    pub fn rotation(&mut self) -> Quat {
        let axis = Vec3::new(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        )
        .normalize_or(Vec3::Y);
        Quat::from_axis_angle(axis, self.range(0.0, std::f32::consts::TAU))
    }
}

/// Every bit of a contact list, for byte-identity checks.
pub fn contact_bits(contacts: &[Contact]) -> Vec<[u32; 12]> {
    contacts
        .iter()
        .map(|c| {
            let [px, py, pz] = c.position.to_array().map(f32::to_bits);
            let [nx, ny, nz] = c.normal.to_array().map(f32::to_bits);
            [
                px,
                py,
                pz,
                nx,
                ny,
                nz,
                c.depth.to_bits(),
                c.depth_cell.to_bits(),
                c.body,
                c.other,
                c.feature as u32,
                c.sample,
            ]
        })
        .collect()
}

/// 400 overlapping torus–sphere pairs on a lattice far from the origin.
pub fn large_batch() -> (Vec<ColliderShape>, Vec<Body>, Vec<(usize, usize)>) {
    let shapes = vec![
        shape(&torus(32, 12, 0.4, 0.15), 24),
        shape(&uv_sphere(12, 24), 24),
    ];
    let mut rng = Lcg(11);
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    for p in 0..400 {
        let cell = Vec3::new((p % 8) as f32, ((p / 8) % 8) as f32, (p / 64) as f32) * 3.0;
        for s in 0..2 {
            let rot = rng.rotation();
            let t = cell
                + Vec3::new(
                    rng.range(-0.2, 0.2),
                    rng.range(-0.2, 0.2),
                    rng.range(-0.2, 0.2),
                );
            bodies.push(body(s, Mat4::from_rotation_translation(rot, t)));
        }
        pairs.push((2 * p, 2 * p + 1));
    }
    (shapes, bodies, pairs)
}
