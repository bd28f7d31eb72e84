//! Mass properties of a mesh body: volume and centre of mass by the
//! divergence theorem (signed tetrahedra from the origin, exact for a closed
//! mesh), and the principal moments of a solid box of the same mass
//! spanning the mesh's bounding box around that centre. The box inertia is
//! the rigid demonstrator's choice ([`crate::sim::collide`]); it is exact for
//! boxes and keeps every body's rotation well conditioned.

use glam::Vec3;

use crate::mesh::Mesh;

/// Volume, centre of mass and bounding-box size of a mesh (mesh coordinates).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    pub volume: f32,
    pub centre: Vec3,
    pub size: Vec3,
}

impl MassProperties {
    /// Of a closed, outward-wound mesh. An open or inverted mesh (volume not
    /// positive) falls back to its bounding box: its volume and centre.
    pub fn of(mesh: &Mesh) -> MassProperties {
        let bounds = mesh.bounds();
        let size = bounds.max - bounds.min;
        let mut volume = 0.0f64;
        let mut moment = glam::DVec3::ZERO;
        for t in 0..mesh.triangles.len() {
            let [a, b, c] = mesh.corners(t).map(|p| p.as_dvec3());
            let v = a.dot(b.cross(c)) / 6.0;
            volume += v;
            moment += v * (a + b + c) / 4.0;
        }
        if volume > 1e-12 {
            MassProperties {
                volume: volume as f32,
                centre: (moment / volume).as_vec3(),
                size,
            }
        } else {
            MassProperties {
                volume: size.x * size.y * size.z,
                centre: 0.5 * (bounds.min + bounds.max),
                size,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::box_mesh;
    use glam::Mat4;

    #[test]
    fn a_moved_box_has_its_volume_and_centre() {
        let m = box_mesh(2).transformed(
            Mat4::from_translation(Vec3::new(1.0, 2.0, -3.0)) * Mat4::from_scale(Vec3::splat(2.0)),
        );
        let p = MassProperties::of(&m);
        assert!((p.volume - 8.0).abs() < 1e-4, "{p:?}");
        assert!(p.centre.distance(Vec3::new(1.0, 2.0, -3.0)) < 1e-5, "{p:?}");
        assert!(p.size.distance(Vec3::splat(2.0)) < 1e-5, "{p:?}");
    }
}
