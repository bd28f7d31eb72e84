//! Mass properties of a mesh body: volume and centre of mass by the
//! divergence theorem (signed tetrahedra from the origin, exact for a closed
//! mesh), and the principal moments of a solid box of the same mass
//! spanning the mesh's bounding box around that centre. The tetrahedra
//! start at the mean of the vertices, so a flat mesh (one triangle, a
//! sheet) encloses exactly nothing wherever it lies: it has no mass to
//! simulate, and [`MassProperties::flat`] says so. The box inertia is
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
    /// The mesh encloses no volume (less than a millionth of its longest
    /// side cubed, either way round): a lone triangle or a flat sheet.
    pub flat: bool,
}

impl MassProperties {
    /// Of a closed, outward-wound mesh. An open or inverted mesh (volume not
    /// positive) falls back to its bounding box: its volume and centre.
    pub fn of(mesh: &Mesh) -> MassProperties {
        let bounds = mesh.bounds();
        let size = bounds.max - bounds.min;
        let origin = mesh
            .positions
            .iter()
            .map(|p| p.as_dvec3())
            .sum::<glam::DVec3>()
            / mesh.positions.len().max(1) as f64;
        let mut volume = 0.0f64;
        let mut moment = glam::DVec3::ZERO;
        for t in 0..mesh.triangles.len() {
            let [a, b, c] = mesh.corners(t).map(|p| p.as_dvec3() - origin);
            let v = a.dot(b.cross(c)) / 6.0;
            volume += v;
            moment += v * (a + b + c) / 4.0;
        }
        // Relative to the mesh's size: a 1 µm cube encloses 1e-18 m³.
        let tiny = 1e-6 * f64::from(size.max_element()).powi(3);
        let flat = volume.abs() <= tiny;
        if volume > tiny {
            MassProperties {
                volume: volume as f32,
                centre: (origin + moment / volume).as_vec3(),
                size,
                flat,
            }
        } else {
            MassProperties {
                volume: size.x * size.y * size.z,
                centre: 0.5 * (bounds.min + bounds.max),
                size,
                flat,
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
        assert!(!p.flat);
    }

    #[test]
    fn a_micrometre_box_has_its_volume_and_a_lone_triangle_is_flat() {
        let m = box_mesh(2).transformed(Mat4::from_scale(Vec3::splat(1e-6)));
        let p = MassProperties::of(&m);
        assert!((p.volume / 1e-18 - 1.0).abs() < 1e-3, "{p:?}");
        let triangle = Mesh::new(
            "triangle",
            vec![
                Vec3::new(3.0, 1.0, 0.0),
                Vec3::new(4.0, 2.0, 1.0),
                Vec3::new(3.0, 2.5, 2.0),
            ],
            vec![[0, 1, 2]],
        );
        assert!(MassProperties::of(&triangle).flat);
    }
}
