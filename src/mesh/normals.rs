//! Angle-weighted pseudo-normals for the sign of a distance field.
//!
//! The closest point of a triangle mesh to a query lies on a face, an edge or
//! a vertex of one triangle. Bærentzen & Aanæs show that the sign of
//! `(query − closest) · n` is correct for a closed, consistently oriented
//! mesh when `n` is the *pseudo-normal* of that feature (Sundholm 2010,
//! §4.3.2, `shared/papers/sundholm-2010-distance-fields-opencl.txt`):
//!
//! * face: its unit normal (zero for a degenerate face);
//! * edge: `π·n_i + π·n_j` over the two incident faces — the weight is the
//!   same for both, so we take the normalised sum of incident face normals
//!   (also when an open or non-manifold edge has one or more than two faces);
//! * vertex: `Σ α_i·n_i` over incident non-degenerate faces, `α_i` the
//!   interior angle of face `i` at the vertex, normalised.
//!
//! Sums are accumulated in f64; a sum of (near) zero length stays zero,
//! which the sign stage must treat as "no information".
//!
//! Per triangle, the GPU stage uploads seven normals in this fixed order,
//! the order `shaders/sdf.wgsl` reads (tests/it/sdf.rs compares the
//! GPU's signs with the CPU reference's):
//!
//! ```text
//! [ face | edge(0,1) | edge(1,2) | edge(2,0) | vertex0 | vertex1 | vertex2 ]
//!    0        1           2           3          4         5         6
//! ```

use glam::{DVec3, Vec3};
use rayon::prelude::*;

use super::{Mesh, Topology};

/// Pseudo-normals indexed by face, by [`Topology`] edge and by vertex.
#[derive(Clone, Debug, Default)]
pub struct PseudoNormals {
    pub face: Vec<Vec3>,
    pub edge: Vec<Vec3>,
    pub vertex: Vec<Vec3>,
}

/// Unit vector along `v`, or zero if `v` has no usable length.
fn unit_or_zero(v: DVec3) -> Vec3 {
    let len = v.length();
    if len > 1e-300 && len.is_finite() {
        (v / len).as_vec3()
    } else {
        Vec3::ZERO
    }
}

impl PseudoNormals {
    /// `topo` must have been built from `mesh`.
    pub fn compute(mesh: &Mesh, topo: &Topology) -> PseudoNormals {
        let face: Vec<Vec3> = (0..mesh.triangles.len())
            .into_par_iter()
            .map(|t| mesh.face_normal(t))
            .collect();

        let edge = (0..topo.num_edges())
            .into_par_iter()
            .map(|e| {
                let sum = topo
                    .edge_faces(e)
                    .iter()
                    .map(|&f| face[f as usize].as_dvec3())
                    .sum::<DVec3>();
                unit_or_zero(sum)
            })
            .collect();

        let mut vertex_sum = vec![DVec3::ZERO; mesh.positions.len()];
        for (t, tri) in mesh.triangles.iter().enumerate() {
            let n = face[t].as_dvec3();
            if n == DVec3::ZERO {
                continue;
            }
            let p = mesh.corners(t).map(|p| p.as_dvec3());
            for k in 0..3 {
                let u = p[(k + 1) % 3] - p[k];
                let w = p[(k + 2) % 3] - p[k];
                // atan2(|u×w|, u·w) is accurate for tiny and near-π angles, unlike acos.
                let angle = u.cross(w).length().atan2(u.dot(w));
                if let Some(sum) = vertex_sum.get_mut(tri[k] as usize) {
                    *sum += angle * n;
                }
            }
        }
        let vertex = vertex_sum.into_par_iter().map(unit_or_zero).collect();
        PseudoNormals { face, edge, vertex }
    }

    /// The seven normals of triangle `t` in the GPU order
    /// `[face, edge(0,1), edge(1,2), edge(2,0), vertex0, vertex1, vertex2]`
    /// (the order `shaders/sdf.wgsl` reads).
    pub fn triangle_feature_normals(&self, topo: &Topology, mesh: &Mesh, t: usize) -> [Vec3; 7] {
        let [e0, e1, e2] = topo.face_edges(t).map(|e| self.edge[e as usize]);
        let [v0, v1, v2] = mesh.triangles[t].map(|v| self.vertex[v as usize]);
        [self.face[t], e0, e1, e2, v0, v1, v2]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{box_mesh, uv_sphere};

    fn assert_outward(mesh: &Mesh) {
        let topo = Topology::build(mesh);
        let normals = PseudoNormals::compute(mesh, &topo);
        let centroid = mesh.positions.iter().sum::<Vec3>() / mesh.positions.len() as f32;
        for t in 0..mesh.triangles.len() {
            let features = normals.triangle_feature_normals(&topo, mesh, t);
            let corners = mesh.corners(t);
            let points = [
                (corners[0] + corners[1] + corners[2]) / 3.0,
                0.5 * (corners[0] + corners[1]),
                0.5 * (corners[1] + corners[2]),
                0.5 * (corners[2] + corners[0]),
                corners[0],
                corners[1],
                corners[2],
            ];
            for (i, (n, p)) in features.iter().zip(points).enumerate() {
                assert!(
                    (n.length() - 1.0).abs() < 1e-5,
                    "{}: triangle {t} feature {i} not unit",
                    mesh.name
                );
                assert!(
                    n.dot(p - centroid) > 0.0,
                    "{}: triangle {t} feature {i} points inward",
                    mesh.name
                );
            }
        }
    }

    #[test]
    fn pseudo_normals_point_outward_on_convex_meshes() {
        assert_outward(&box_mesh(3));
        assert_outward(&uv_sphere(12, 24));
    }

    #[test]
    fn cube_corner_vertex_normal_is_the_diagonal() {
        let cube = box_mesh(1);
        let topo = Topology::build(&cube);
        let normals = PseudoNormals::compute(&cube, &topo);
        let corner = cube
            .positions
            .iter()
            .position(|&p| p == Vec3::splat(0.5))
            .expect("corner (0.5, 0.5, 0.5)");
        let expected = Vec3::ONE / 3f32.sqrt();
        assert!(
            (normals.vertex[corner] - expected).length() < 1e-6,
            "{}",
            normals.vertex[corner]
        );
        // Edge normals of the cube's edges are the face-diagonal directions.
        for e in 0..topo.num_edges() {
            let n = normals.edge[e];
            let faces = topo.edge_faces(e);
            let coplanar =
                cube.face_normal(faces[0] as usize) == cube.face_normal(faces[1] as usize);
            let expected_zeros = if coplanar { 2 } else { 1 };
            let zeros = n.to_array().iter().filter(|c| c.abs() < 1e-6).count();
            assert_eq!(zeros, expected_zeros, "edge {e}: {n}");
        }
    }

    #[test]
    fn degenerate_faces_contribute_nothing() {
        let m = Mesh::new(
            "sliver",
            vec![Vec3::ZERO, Vec3::X, Vec3::Y, 2.0 * Vec3::X],
            vec![[0, 1, 2], [0, 1, 3]],
        );
        let topo = Topology::build(&m);
        let normals = PseudoNormals::compute(&m, &topo);
        assert_eq!(normals.face[1], Vec3::ZERO);
        assert_eq!(normals.vertex[3], Vec3::ZERO);
        assert_eq!(normals.vertex[0], Vec3::Z);
        assert!(
            normals
                .edge
                .iter()
                .all(|n| *n == Vec3::Z || *n == Vec3::ZERO)
        );
    }
}
