// Exact adaptive signed distance field (Liu & Kim 2014): Morton codes of
// triangle centroids, the top-down octree (Alg. 1) and one exact distance
// query per node centre, bounded by the parent's closest triangle (§5.1).
//
// Entry points, in the order src/stages/sdf_adaptive/gpu.rs records them:
//   morton       one invocation per triangle (mesh order): 30-bit code of its
//                centroid -> keys, its index -> vals (then radix_sort.wgsl)
//   init_roots   one invocation per root (the 8^l cells of the start depth)
//   split        one invocation per node of the current level (indirect):
//                more than alpha triangles and above the maximum depth ->
//                8 children appended at an atomically claimed slot
//   next_level   one invocation: the next level's node range and dispatch
//   query        one invocation per node of the current query level
//                (indirect): exact distance of its centre
//   next_query   one invocation: advances the query level
//
// Prepended by src/gpu/mod.rs: shared/closest_point.wgsl and
// shared/bvh_nearest.wgsl (which uses the `tri_pos` and `nodes` bindings).
// Keep in sync with src/stages/sdf_adaptive/gpu.rs (Params, bindings, state
// layout), src/stages/sdf_adaptive/octree.rs (OctreeNode, cell_center) and
// src/geom/morton.rs (quantisation).

struct Params {
    origin: vec3f,      // minimum corner of the octree cube
    size: f32,          // its edge
    scale: f32,         // 1024 / size
    num_tris: u32,
    start_depth: u32,
    max_depth: u32,
    alpha: u32,
    capacity: u32,      // nodes the octree buffer holds
    parent_bound: u32,  // 1: bound a query by the parent's closest triangle
    _pad: u32,
}

struct OctreeNode {
    center: vec3f,
    half_size: f32,
    code: u32,
    depth: u32,
    parent: u32,
    first_child: u32,
    tri_first: u32,
    tri_count: u32,
    _pad0: u32,
    _pad1: u32,
}

// state[]: atomics and level bookkeeping.
const NODE_COUNT: u32 = 0u;   // nodes written so far (also the next free slot)
const EVALS: u32 = 1u;        // point–triangle distance evaluations
const CURSOR: u32 = 2u;       // depth being split
const QUERY_CURSOR: u32 = 3u; // depth being queried
const OVERFLOW: u32 = 4u;     // 1 if a split found the buffer full
const RANGES: u32 = 8u;       // [RANGES + 2j, RANGES + 2j + 1]: nodes of depth j
const MAX_GROUPS_X: u32 = 65535u;

@group(0) @binding(0) var<uniform> params: Params;
// 3 corners per triangle in BVH order (w unused).
@group(0) @binding(1) var<storage, read> tri_pos: array<vec4f>;
// 7 feature normals per triangle (BVH order), 3 floats each.
@group(0) @binding(2) var<storage, read> normals: array<f32>;
@group(0) @binding(3) var<storage, read> nodes: array<BvhNode>;
// BVH slot of each mesh triangle.
@group(0) @binding(4) var<storage, read> slot_of: array<u32>;
// Morton codes and mesh triangle indices, sorted by code after the sort.
@group(0) @binding(5) var<storage, read_write> keys: array<u32>;
@group(0) @binding(6) var<storage, read_write> vals: array<u32>;
@group(0) @binding(7) var<storage, read_write> octree: array<OctreeNode>;
@group(0) @binding(8) var<storage, read_write> values: array<f32>;
// (BVH slot << 3) | feature of each node's closest triangle.
@group(0) @binding(9) var<storage, read_write> closest: array<u32>;
@group(0) @binding(10) var<storage, read_write> state: array<atomic<u32>>;
// Indirect dispatch arguments, 3 u32 per depth.
@group(0) @binding(11) var<storage, read_write> dispatch: array<u32>;

var<workgroup> wg_evals: atomic<u32>;

fn flat_index(wid: vec3u, nwg: vec3u, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * 64u + lid;
}

fn expand_bits_10(v: u32) -> u32 {
    var x = v & 0x3ffu;
    x = (x | (x << 16u)) & 0x030000ffu;
    x = (x | (x << 8u)) & 0x0300f00fu;
    x = (x | (x << 4u)) & 0x030c30c3u;
    x = (x | (x << 2u)) & 0x09249249u;
    return x;
}

fn compact_bits_10(v: u32) -> u32 {
    var x = v & 0x09249249u;
    x = (x | (x >> 2u)) & 0x030c30c3u;
    x = (x | (x >> 4u)) & 0x0300f00fu;
    x = (x | (x >> 8u)) & 0x030000ffu;
    x = (x | (x >> 16u)) & 0x3ffu;
    return x;
}

// MortonCube::code_of with the centroid of triangle_centroid (same f32
// operations, same order).
fn morton_code(p: vec3f) -> u32 {
    let q = (p - params.origin) * params.scale;
    let c = vec3u(clamp(floor(q), vec3f(0.0), vec3f(1023.0)));
    return expand_bits_10(c.x) | (expand_bits_10(c.y) << 1u) | (expand_bits_10(c.z) << 2u);
}

@compute @workgroup_size(64)
fn morton(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let i = flat_index(wid, nwg, lid);
    if (i >= params.num_tris) {
        return;
    }
    let s = slot_of[i];
    let centroid = (tri_pos[3u * s].xyz + tri_pos[3u * s + 1u].xyz + tri_pos[3u * s + 2u].xyz) * (1.0 / 3.0);
    keys[i] = morton_code(centroid);
    vals[i] = i;
}

fn prefix(code: u32, depth: u32) -> u32 {
    return code >> (3u * (10u - depth));
}

// First sorted index whose prefix at `depth` is not below `code`.
fn lower_bound(code: u32, depth: u32) -> u32 {
    var lo = 0u;
    var hi = params.num_tris;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (prefix(keys[mid], depth) < code) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// The node of cell `code` at `depth` (octree.rs: cell_center, prefix_range).
fn node_at(code: u32, depth: u32, parent: u32) -> OctreeNode {
    let cell = vec3f(f32(compact_bits_10(code)), f32(compact_bits_10(code >> 1u)), f32(compact_bits_10(code >> 2u)));
    let edge = params.size / f32(1u << depth);
    let first = lower_bound(code, depth);
    let end = lower_bound(code + 1u, depth);
    return OctreeNode(params.origin + (cell + 0.5) * edge, edge * 0.5, code, depth, parent, NONE, first, end - first, 0u, 0u);
}

fn write_dispatch(depth: u32, count: u32) {
    let groups = (count + 63u) / 64u;
    let x = min(groups, MAX_GROUPS_X);
    dispatch[3u * depth] = x;
    dispatch[3u * depth + 1u] = select(1u, (groups + x - 1u) / max(x, 1u), x > 0u);
    dispatch[3u * depth + 2u] = 1u;
}

@compute @workgroup_size(64)
fn init_roots(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let i = flat_index(wid, nwg, lid);
    let roots = 1u << (3u * params.start_depth);
    if (i == 0u) {
        atomicStore(&state[NODE_COUNT], roots);
        atomicStore(&state[CURSOR], params.start_depth);
        atomicStore(&state[QUERY_CURSOR], params.start_depth);
        atomicStore(&state[RANGES + 2u * params.start_depth], 0u);
        atomicStore(&state[RANGES + 2u * params.start_depth + 1u], roots);
        write_dispatch(params.start_depth, roots);
    }
    if (i < roots) {
        octree[i] = node_at(i, params.start_depth, NONE);
    }
}

@compute @workgroup_size(64)
fn split(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let depth = atomicLoad(&state[CURSOR]);
    let start = atomicLoad(&state[RANGES + 2u * depth]);
    let end = atomicLoad(&state[RANGES + 2u * depth + 1u]);
    let i = start + flat_index(wid, nwg, lid);
    if (i >= end || depth >= params.max_depth) {
        return;
    }
    let n = octree[i];
    if (n.tri_count <= params.alpha) {
        return;
    }
    let first = atomicAdd(&state[NODE_COUNT], 8u);
    if (first + 8u > params.capacity) {
        atomicStore(&state[OVERFLOW], 1u);
        return;
    }
    for (var k = 0u; k < 8u; k++) {
        octree[first + k] = node_at(n.code * 8u + k, depth + 1u, i);
    }
    octree[i].first_child = first;
}

@compute @workgroup_size(1)
fn next_level() {
    let depth = atomicLoad(&state[CURSOR]);
    let start = atomicLoad(&state[RANGES + 2u * depth + 1u]);
    let end = min(atomicLoad(&state[NODE_COUNT]), params.capacity);
    atomicStore(&state[RANGES + 2u * (depth + 1u)], start);
    atomicStore(&state[RANGES + 2u * (depth + 1u) + 1u], end);
    atomicStore(&state[CURSOR], depth + 1u);
    write_dispatch(depth + 1u, end - start);
}

// Signed distance of p with closest triangle `slot` at squared distance d2,
// by the side of the closest feature's angle-weighted pseudo-normal
// (mirrors signed_cell in src/stages/sdf_grid/cpu.rs).
fn write_node(i: u32, p: vec3f, d2: f32, slot: u32) {
    let c = closest_on_triangle(p, tri_pos[3u * slot].xyz, tri_pos[3u * slot + 1u].xyz, tri_pos[3u * slot + 2u].xyz);
    let base = (slot * 7u + c.feature) * 3u;
    let n = vec3f(normals[base], normals[base + 1u], normals[base + 2u]);
    values[i] = select(1.0, -1.0, dot(p - c.q, n) < 0.0) * sqrt(d2);
    closest[i] = (slot << 3u) | c.feature;
}

@compute @workgroup_size(64)
fn query(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let depth = atomicLoad(&state[QUERY_CURSOR]);
    let start = atomicLoad(&state[RANGES + 2u * depth]);
    let end = atomicLoad(&state[RANGES + 2u * depth + 1u]);
    let i = start + flat_index(wid, nwg, lid);
    var evals = 0u;
    if (i < end) {
        let n = octree[i];
        // The initial upper bound (§5.1): the parent's closest triangle, or
        // for a root (and with the bound switched off) a triangle of the
        // node's own — the first at or after its place on the Morton curve.
        var seed: u32;
        if (params.parent_bound == 1u && n.parent != NONE) {
            seed = closest[n.parent] >> 3u;
        } else {
            seed = slot_of[vals[min(n.tri_first, params.num_tris - 1u)]];
        }
        let seed_d2 = distance2_to_triangle(n.center, seed);
        let near = bvh_nearest(n.center, seed_d2);
        evals = near.evals + 1u;
        if (near.tri != NONE) {
            write_node(i, n.center, near.d2, near.tri);
        } else {
            write_node(i, n.center, seed_d2, seed);
        }
    }
    atomicAdd(&wg_evals, evals);
    workgroupBarrier();
    if (lid == 0u) {
        atomicAdd(&state[EVALS], atomicLoad(&wg_evals));
    }
}

@compute @workgroup_size(1)
fn next_query() {
    atomicAdd(&state[QUERY_CURSOR], 1u);
}
