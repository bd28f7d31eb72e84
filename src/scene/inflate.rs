//! A mesh that inflates and deflates: every vertex moves along its rest
//! pose's angle-weighted vertex pseudo-normal by one common offset (Liu &
//! Kim 2014, §6: the inflating bunny whose field is rebuilt every frame).
//!
//! The normals are those of the rest pose, computed once, so a frame costs
//! one multiply-add per vertex and the triangle list never changes. With a
//! positive offset a closed convex mesh grows; a negative one larger than
//! the local feature size folds the surface, as a real inflation would not,
//! so keep the amplitude small against the mesh's thinnest part.

use glam::Vec3;

use crate::mesh::{Mesh, PseudoNormals, Topology};

/// A rest mesh and its vertex normals.
pub struct InflatingMesh {
    pub rest: Mesh,
    normals: Vec<Vec3>,
}

impl InflatingMesh {
    pub fn new(rest: Mesh) -> Self {
        let topology = Topology::build(&rest);
        let normals = PseudoNormals::compute(&rest, &topology).vertex;
        InflatingMesh { rest, normals }
    }

    /// The rest mesh with every vertex moved `offset` (world units) along
    /// its normal; vertices without a normal (isolated) stay.
    pub fn at(&self, offset: f32) -> Mesh {
        let positions = self
            .rest
            .positions
            .iter()
            .zip(&self.normals)
            .map(|(p, n)| *p + *n * offset)
            .collect();
        Mesh::new(
            self.rest.name.clone(),
            positions,
            self.rest.triangles.clone(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sphere_inflates_by_the_offset() {
        let sphere = crate::mesh::uv_sphere(16, 24);
        let inflating = InflatingMesh::new(sphere.weld(crate::mesh::DEFAULT_WELD_TOLERANCE).mesh);
        for offset in [0.1f32, -0.2] {
            let m = inflating.at(offset);
            for p in &m.positions {
                let r = p.length();
                assert!(
                    (r - (0.5 + offset)).abs() < 0.01,
                    "offset {offset}: vertex at radius {r}"
                );
            }
        }
        assert_eq!(inflating.at(0.0).positions, inflating.rest.positions);
    }
}
