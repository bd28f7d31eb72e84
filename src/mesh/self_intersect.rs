//! Self-intersections: pairs of triangles that share no vertex and yet
//! cross. A closed, consistently oriented mesh whose surface passes through
//! itself has no well-defined inside, and the pseudo-normal sign is wrong
//! deep inside such meshes (the cow sample has 24-cell-deep sign errors for
//! this reason), so the report checks for it.
//!
//! Candidate pairs come from a BVH over the triangles' boxes; each pair is
//! decided by the exact Guigue–Devillers predicate
//! ([`crate::geom::intersect_triangle_triangle`]). Triangles that
//! share a vertex touch there by construction and are not tested.

use rayon::prelude::*;

use super::Mesh;
use crate::geom::intersect_triangle_triangle;
use crate::geom::{Aabb, Bvh};

/// Pairs of vertex-disjoint triangles that intersect (each pair once).
pub fn self_intersecting_pairs(mesh: &Mesh) -> usize {
    let n = mesh.triangles.len();
    let bounds: Vec<Aabb> = (0..n).map(|t| Aabb::of_triangle(mesh.corners(t))).collect();
    let centroids: Vec<_> = bounds.iter().map(Aabb::center).collect();
    let bvh = Bvh::build(&bounds, &centroids, 4);
    (0..n)
        .into_par_iter()
        .map(|t| {
            let tri = mesh.triangles[t];
            let corners = mesh.corners(t);
            let mut count = 0;
            bvh.for_each_overlapping(&bounds[t], &bounds, |u| {
                let u = u as usize;
                if u <= t || mesh.triangles[u].iter().any(|v| tri.contains(v)) {
                    return;
                }
                if intersect_triangle_triangle(corners, mesh.corners(u)) {
                    count += 1;
                }
            });
            count
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::box_mesh;
    use glam::{Mat4, Vec3};

    #[test]
    fn a_clean_box_has_none_and_two_crossing_boxes_do() {
        let a = box_mesh(2);
        assert_eq!(self_intersecting_pairs(&a), 0);
        let b = a.transformed(Mat4::from_translation(Vec3::new(0.5, 0.2, 0.1)));
        let both = Mesh::merge(&[a, b], "two boxes");
        assert!(self_intersecting_pairs(&both) > 0);
    }
}
