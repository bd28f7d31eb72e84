//! The CPU reference: the same octree (Alg. 1), the same RSS multi-BVH
//! (Algs. 2–3) and the same culled, bounded queries (§5.1, Alg. 4) as the
//! shaders, one node after another.

use std::time::Instant;

use glam::Vec3;

use super::{
    AdaptiveBvh, AdaptiveError, AdaptiveField, AdaptiveMemory, AdaptiveParams, DepthStats, NONE,
    Octree, QueryCounts, RssBvh, RssNode, group_ranges, mesh_cube,
};
use crate::geom::{BvhNode, closest_point_triangle};
use crate::mesh::PreparedMesh;
use crate::stages::sdf::{nearest_triangle, signed_cell};
use crate::timing::Timings;

/// Builds the octree and the BVHs and queries every node centre on the CPU.
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
    let rss = (params.bvh != AdaptiveBvh::Aabb).then(|| {
        let groups = group_ranges(&octree.sorted_codes, params.effective_group_level());
        RssBvh::build_cpu(
            &mesh.corners,
            octree.sorted_triangles.clone(),
            &groups,
            params,
        )
    });
    timings.push("bvh build", start.elapsed().as_secs_f64() * 1e3, None);

    let start = Instant::now();
    let n = octree.nodes.len();
    let mut values = vec![0.0; n];
    let mut closest = vec![0u32; n];
    let mut totals = vec![QueryCounts::default(); octree.max_depth as usize + 1];
    // Parents come before their children in the list, so a parent's closest
    // triangle is known when its children are queried.
    for (i, node) in octree.nodes.iter().enumerate() {
        let p = Vec3::from_array(node.center);
        let seed = if !params.parent_bound {
            0
        } else if node.parent != NONE {
            closest[node.parent as usize] >> 3
        } else {
            let k = (node.tri_first as usize).min(octree.sorted_triangles.len() - 1);
            octree.sorted_triangles[k]
        };
        let seed_d2 = closest_point_triangle(p, mesh.corners[seed as usize]).distance_squared;
        let counts = &mut totals[node.depth as usize];
        counts.triangles += 1;
        let found = match &rss {
            Some(bvh) => bvh.nearest(&mesh.corners, p, seed_d2, counts),
            None => {
                counts.bvhs += 1;
                let mut evals = 0;
                let found = nearest_triangle(mesh, p, seed_d2, &mut evals);
                counts.triangles += evals;
                found
            }
        };
        let (tri, d2) = found.unwrap_or((seed, seed_d2));
        let (v, c) = signed_cell(mesh, p, tri, d2);
        values[i] = v;
        closest[i] = c;
    }
    timings.push("queries", start.elapsed().as_secs_f64() * 1e3, None);
    let nodes_per_depth: Vec<u64> = octree.nodes_per_depth().iter().map(|&c| c as u64).collect();
    let memory = match &rss {
        Some(b) => AdaptiveMemory::of(n, b.nodes.len(), size_of::<RssNode>(), b.order.len()),
        None => AdaptiveMemory::of(
            n,
            mesh.bvh.nodes.len(),
            size_of::<BvhNode>(),
            mesh.bvh.order.len(),
        ),
    };
    Ok(AdaptiveField {
        params: *params,
        values,
        closest,
        distance_evaluations: totals.iter().map(|c| c.triangles).sum(),
        stats: DepthStats::from_totals(&nodes_per_depth, &totals),
        memory,
        octree,
        timings,
        open: None,
    })
}
