//! The CPU reference: the same octree (Alg. 1) and the same bounded queries
//! as the shader, one node after another.

use std::time::Instant;

use glam::Vec3;

use super::{AdaptiveError, AdaptiveField, AdaptiveParams, NONE, Octree, mesh_cube};
use crate::stages::sdf_grid::{PreparedMesh, nearest_triangle, signed_cell};
use crate::timing::Timings;

/// Builds the octree and queries every node centre on the CPU.
pub fn compute_cpu(
    mesh: &PreparedMesh,
    params: &AdaptiveParams,
) -> Result<AdaptiveField, AdaptiveError> {
    puffin::profile_function!();
    params.validate()?;
    let mut timings = Timings::default();
    let start = Instant::now();
    let octree = Octree::build_cpu(&mesh.corners, mesh_cube(mesh, params), params);
    timings.push("octree", start.elapsed().as_secs_f64() * 1e3, None);

    let start = Instant::now();
    let n = octree.nodes.len();
    let mut values = vec![0.0; n];
    let mut closest = vec![0u32; n];
    let mut evals = 0u64;
    // Parents come before their children in the list, so a parent's closest
    // triangle is known when its children are queried.
    for (i, node) in octree.nodes.iter().enumerate() {
        let p = Vec3::from_array(node.center);
        let seed = if params.parent_bound && node.parent != NONE {
            closest[node.parent as usize] >> 3
        } else {
            let k = (node.tri_first as usize).min(octree.sorted_triangles.len() - 1);
            octree.sorted_triangles[k]
        };
        let seed_d2 =
            crate::geom::closest_point_triangle(p, mesh.corners[seed as usize]).distance_squared;
        evals += 1;
        let (tri, d2) = nearest_triangle(mesh, p, seed_d2, &mut evals).unwrap_or((seed, seed_d2));
        let (v, c) = signed_cell(mesh, p, tri, d2);
        values[i] = v;
        closest[i] = c;
    }
    timings.push("queries", start.elapsed().as_secs_f64() * 1e3, None);
    Ok(AdaptiveField {
        octree,
        params: *params,
        values,
        closest,
        distance_evaluations: evals,
        timings,
    })
}
