//!include shared/bvh_nearest.wgsl

// Table 1's BVH point–triangle tests (Friston & Steed 2019, §9) on a
// skinned mesh: the tree's topology is built once on the CPU (binned SAH,
// src/geom/bvh.rs) and its boxes refitted every frame from the skinned
// triangles; each point then finds the nearest triangle within `reach`
// (shared/bvh_nearest.wgsl) as a signed distance.
//
// Entry points, in order every frame:
//   gather  tri_pos[3k + c] = corner c of triangle order[k] (BVH order)
//   refit   the boxes of the nodes level_nodes[level_start..level_end]:
//           a leaf's from its triangles, an inner node's from its children;
//           one dispatch per depth, deepest first
//   query   per point: the nearest triangle within reach, signed (FAR
//           beyond)
//
// Rust side: src/sim/radial/bvh_gpu.rs (BvhParams, layout checked by
// tests/it/shader_layouts.rs); CPU reference: bvh_query in
// src/sim/radial/alternatives.rs.

struct BvhParams {
    num_triangles: u32,
    num_points: u32,
    level_start: u32,
    level_end: u32,
    reach: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

const WG: u32 = 64u;
// The "no triangle within reach" distance.
const FAR: f32 = 3.0e38;

@group(0) @binding(0) var<uniform> params: BvhParams;
@group(0) @binding(1) var<storage, read> positions: array<vec4f>;
@group(0) @binding(2) var<storage, read> triangles: array<u32>;
@group(0) @binding(3) var<storage, read> order: array<u32>;
@group(0) @binding(4) var<storage, read> level_nodes: array<u32>;
@group(0) @binding(5) var<storage, read> points: array<vec4f>;
@group(0) @binding(6) var<storage, read_write> nodes: array<BvhNode>;
@group(0) @binding(7) var<storage, read_write> tri_pos: array<vec4f>;
@group(0) @binding(8) var<storage, read_write> distance: array<f32>;

fn flat(wid: vec3u, nwg: vec3u, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * WG + lid;
}

@compute @workgroup_size(WG)
fn gather(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
          @builtin(local_invocation_index) lid: u32) {
    let k = flat(wid, nwg, lid);
    if k >= params.num_triangles {
        return;
    }
    let t = order[k];
    for (var c = 0u; c < 3u; c++) {
        tri_pos[3u * k + c] = positions[triangles[3u * t + c]];
    }
}

@compute @workgroup_size(WG)
fn refit(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
    let i = params.level_start + flat(wid, nwg, lid);
    if i >= params.level_end {
        return;
    }
    let id = level_nodes[i];
    let n = nodes[id];
    var lo = vec3f(3.0e38);
    var hi = vec3f(-3.0e38);
    if (n.b & LEAF_BIT) != 0u {
        let end = 3u * (n.a + (n.b & ~LEAF_BIT));
        for (var s = 3u * n.a; s < end; s++) {
            lo = min(lo, tri_pos[s].xyz);
            hi = max(hi, tri_pos[s].xyz);
        }
    } else {
        let l = nodes[n.a];
        let r = nodes[n.b];
        lo = min(l.min, r.min);
        hi = max(l.max, r.max);
    }
    nodes[id].min = lo;
    nodes[id].max = hi;
}

@compute @workgroup_size(WG)
fn query(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
    let i = flat(wid, nwg, lid);
    if i >= params.num_points {
        return;
    }
    let p = points[i].xyz;
    let reach2 = params.reach * params.reach;
    // bvh_nearest keeps what is strictly nearer than its bound: a hair
    // above reach², then the CPU's d² ≤ reach² decides.
    let near = bvh_nearest(p, reach2 * (1.0 + 1e-6) + 1e-30);
    var d = FAR;
    if near.tri != NONE && near.d2 <= reach2 {
        let a = tri_pos[3u * near.tri].xyz;
        let b = tri_pos[3u * near.tri + 1u].xyz;
        let c = tri_pos[3u * near.tri + 2u].xyz;
        let q = closest_on_triangle(p, a, b, c).q;
        let len = length(p - q);
        d = select(len, -len, dot(p - q, cross(b - a, c - a)) < 0.0);
    }
    distance[i] = d;
}
