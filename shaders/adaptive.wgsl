//!include shared/closest_point.wgsl
//!include shared/bvh_bounds.wgsl
//!include shared/bvh_nearest.wgsl
//!include shared/rss.wgsl
//!include shared/sorted_codes.wgsl

// Exact adaptive signed distance field (Liu & Kim 2014): Morton codes of
// triangle centroids, the top-down octree (Alg. 1) and one exact distance
// query per node centre, bounded by the parent's closest triangle (§5.1),
// over the RSS multi-BVH of adaptive_rss_bvh.wgsl with culling (§5.3, Alg. 4) or
// over the mesh's AABB BVH.
//
// Entry points, in the order src/stages/adaptive/gpu.rs records them:
//   morton       one invocation per triangle (mesh order): 30-bit code of its
//                centroid -> keys, its index -> vals (then radix_sort.wgsl)
//   init_roots   one invocation per root (the 8^l cells of the start depth)
//   split        one invocation per node of the current level (indirect):
//                more than alpha triangles and above the maximum depth ->
//                8 children appended at an atomically claimed slot
//   next_level   one invocation: the next level's node range and dispatch
//                sizes (split; queries: narrow or wide by the level's size)
//   query        one invocation per node of the current query level
//                (indirect): exact distance of its centre; what it tested
//                is summed per depth into state (table 1)
//   query_wide   one workgroup per node of a level with fewer than
//                `wide_below` nodes (indirect; the other dispatch is empty):
//                the BVHs of the multi-BVH spread over the invocations,
//                which share the bound through workgroup memory
//   next_query   one invocation: advances the query level
//
// Included: shared/closest_point.wgsl, shared/bvh_bounds.wgsl,
// shared/bvh_nearest.wgsl (which uses the `tri_pos` and `nodes` bindings),
// shared/rss.wgsl and shared/sorted_codes.wgsl.
// Rust side: src/stages/adaptive/gpu.rs (Params, bindings, state
// layout), src/stages/adaptive/octree.rs (OctreeNode, cell_center) and
// src/geom/morton.rs (quantisation); tests/it/shader_layouts.rs checks the
// layouts and slots, tests/it/adaptive.rs the two backends' octrees.

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
    use_rss: u32,       // 1: the RSS multi-BVH, 0: the AABB BVH
    wide_below: u32,    // levels with fewer nodes use query_wide (RSS only)
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
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
const CURSOR: u32 = 2u;       // depth being split
const QUERY_CURSOR: u32 = 3u; // depth being queried
const OVERFLOW: u32 = 4u;     // 1 if a split found the buffer full
const RANGES: u32 = 8u;       // [RANGES + 2j, RANGES + 2j + 1]: nodes of depth j
const GROUP_COUNT: u32 = 33u; // BVHs of the multi-BVH (adaptive_rss_bvh.wgsl)
// [STATS + 6j + 2k, +1]: low and high words of depth j's total of
// k = 0 candidate BVHs, 1 RSS distance tests, 2 point–triangle tests.
const STATS: u32 = 48u;

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
// The RSS multi-BVH (adaptive_rss_bvh.wgsl): nodes, the slot of each leaf entry,
// and each root's extent along x.
@group(0) @binding(12) var<storage, read> rss: array<RssNode>;
@group(0) @binding(13) var<storage, read> rss_order: array<u32>;
@group(0) @binding(14) var<storage, read> group_x: array<vec2f>;

// Indirect dispatch slots (3 u32 each): 0..=10 the split of each depth,
// then each depth's narrow and wide query dispatch; adaptive_rss_bvh.wgsl uses 11
// and 12 (DISPATCH_SLOTS in rss_bvh_gpu.rs counts them all).
const QUERY_ARGS: u32 = 13u;
const WIDE_ARGS: u32 = 24u;

var<workgroup> wg_counts: array<atomic<u32>, 3>;
// query_wide: the workgroup's best squared distance (as bits: non-negative
// floats order like their bits) and the smallest slot reaching it.
var<workgroup> wg_best: atomic<u32>;
var<workgroup> wg_tri: atomic<u32>;

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

// The node of cell `code` at `depth` holding sorted triangles [first, end)
// (octree.rs: cell_center, prefix_range).
fn node_at(code: u32, depth: u32, parent: u32, first: u32, end: u32) -> OctreeNode {
    let cell = vec3f(f32(compact_bits_10(code)), f32(compact_bits_10(code >> 1u)), f32(compact_bits_10(code >> 2u)));
    let edge = params.size / f32(1u << depth);
    return OctreeNode(params.origin + (cell + 0.5) * edge, edge * 0.5, code, depth, parent, NONE, first, end - first, 0u, 0u);
}

// The nodes of depth `depth`: [x, y) in the octree list.
fn level_range(depth: u32) -> vec2u {
    return vec2u(atomicLoad(&state[RANGES + 2u * depth]), atomicLoad(&state[RANGES + 2u * depth + 1u]));
}

// The split of a depth and its queries: 64 nodes per workgroup, or one
// node per workgroup (query_wide) for a small level.
fn write_dispatch(depth: u32, count: u32) {
    let narrow = (count + 63u) / 64u;
    write_args(depth, narrow);
    let wide = params.use_rss == 1u && count < params.wide_below;
    write_args(QUERY_ARGS + depth, select(narrow, 0u, wide));
    write_args(WIDE_ARGS + depth, select(0u, count, wide));
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
        octree[i] = node_at(i, params.start_depth, NONE, lower_bound(i, params.start_depth), lower_bound(i + 1u, params.start_depth));
    }
}

@compute @workgroup_size(64)
fn split(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let depth = atomicLoad(&state[CURSOR]);
    let range = level_range(depth);
    let start = range.x;
    let end = range.y;
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
    // The children split the parent's range: each one's end is the next
    // one's start, searched within the parent's range only.
    let tri_end = n.tri_first + n.tri_count;
    var lo = n.tri_first;
    for (var k = 0u; k < 8u; k++) {
        let code = n.code * 8u + k;
        var hi = tri_end;
        if (k < 7u) {
            hi = lower_bound_in(code + 1u, depth + 1u, lo, tri_end);
        }
        octree[first + k] = node_at(code, depth + 1u, i, lo, hi);
        lo = hi;
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
// (mirrors signed_cell in src/stages/sdf/cpu.rs).
fn write_node(i: u32, p: vec3f, d2: f32, slot: u32) {
    let c = closest_on_triangle(p, tri_pos[3u * slot].xyz, tri_pos[3u * slot + 1u].xyz, tri_pos[3u * slot + 2u].xyz);
    let base = (slot * 7u + c.feature) * 3u;
    let n = vec3f(normals[base], normals[base + 1u], normals[base + 2u]);
    values[i] = select(1.0, -1.0, dot(p - c.q, n) < 0.0) * sqrt(d2);
    closest[i] = (slot << 3u) | c.feature;
}

struct Found {
    d2: f32,            // squared distance of tri
    tri: u32,           // slot, or NONE when nothing beat the bound
    counts: vec3u,      // candidate BVHs, RSS tests, triangle tests
}

// RssBvh::nearest in src/stages/adaptive/rss_bvh.rs (Alg. 4, §5.3):
// each BVH whose root's x extent meets [p.x - u, p.x + u] (u the current
// bound) and whose RSS is closer than u is traversed at once, nearer child
// first, so later culling tests use the bound improved by earlier BVHs.
// The BVHs are g = first, first + step, ...: query takes them all, each
// invocation of query_wide every 64th, sharing the bound through wg_best
// when `in_workgroup`.
fn rss_nearest(p: vec3f, bound2: f32, first: u32, step: u32, in_workgroup: bool) -> Found {
    var best = bound2;
    var found = Found(bound2, NONE, vec3u(0u));
    var stack_node: array<u32, STACK>;
    var stack_d2: array<f32, STACK>;
    let groups = atomicLoad(&state[GROUP_COUNT]);
    for (var g = first; g < groups; g += step) {
        if (in_workgroup) {
            best = min(best, bitcast<f32>(atomicLoad(&wg_best)));
        }
        let x = group_x[g];
        let u = sqrt(best);
        if (p.x + u < x.x || p.x - u > x.y) {
            continue;
        }
        found.counts.y += 1u;
        let d_root = rss_distance2(p, rss[g]);
        if (d_root >= best) {
            continue;
        }
        found.counts.x += 1u;
        stack_node[0] = g;
        stack_d2[0] = d_root;
        var sp = 1u;
        while (sp > 0u) {
            sp -= 1u;
            if (in_workgroup) {
                best = min(best, bitcast<f32>(atomicLoad(&wg_best)));
            }
            if (stack_d2[sp] >= best) {
                continue;
            }
            let n = rss[stack_node[sp]];
            if (n.left == NONE) {
                for (var k = n.first; k < n.first + n.count; k++) {
                    let t = rss_order[k];
                    let a = tri_pos[3u * t].xyz;
                    let b = tri_pos[3u * t + 1u].xyz;
                    let c = tri_pos[3u * t + 2u].xyz;
                    // The triangle's box is a cheap lower bound, as in
                    // bvh_nearest: most leaf triangles stop here.
                    if (box_distance2(p, min(min(a, b), c), max(max(a, b), c)) >= best) {
                        continue;
                    }
                    found.counts.z += 1u;
                    let q = closest_on_triangle(p, a, b, c).q;
                    let d2 = dot(p - q, p - q);
                    if (d2 < best) {
                        best = d2;
                        found.d2 = d2;
                        found.tri = t;
                        if (in_workgroup) {
                            atomicMin(&wg_best, bitcast<u32>(d2));
                        }
                    }
                }
                continue;
            }
            let dl = rss_distance2(p, rss[n.left]);
            let dr = rss_distance2(p, rss[n.left + 1u]);
            found.counts.y += 2u;
            let near = select(n.left + 1u, n.left, dl <= dr);
            let far = select(n.left, n.left + 1u, dl <= dr);
            let d_far = max(dl, dr);
            let d_near = min(dl, dr);
            // The build bounds the depth below STACK (rss_bvh.rs RSS_STACK).
            if (d_far < best) {
                stack_node[sp] = far;
                stack_d2[sp] = d_far;
                sp += 1u;
            }
            if (d_near < best) {
                stack_node[sp] = near;
                stack_d2[sp] = d_near;
                sp += 1u;
            }
        }
    }
    return found;
}

// Adds a workgroup's total to a 64-bit counter of two words.
fn add_wide(index: u32, x: u32) {
    let old = atomicAdd(&state[index], x);
    if (old + x < old) {
        atomicAdd(&state[index + 1u], 1u);
    }
}

// The initial upper bound of node n's query (§5.1): the parent's closest
// triangle (a root: the first triangle at or after its place on the Morton
// curve), or with the bound switched off the mesh's first triangle.
fn seed_of(n: OctreeNode) -> u32 {
    if (params.parent_bound == 0u) {
        return slot_of[0];
    }
    if (n.parent != NONE) {
        return closest[n.parent] >> 3u;
    }
    return slot_of[vals[min(n.tri_first, params.num_tris - 1u)]];
}

// Sums the workgroup's counts into depth's table 1 totals.
fn add_counts(depth: u32, lid: u32, counts: vec3u) {
    for (var k = 0u; k < 3u; k++) {
        atomicAdd(&wg_counts[k], counts[k]);
    }
    workgroupBarrier();
    if (lid < 3u) {
        add_wide(STATS + 6u * depth + 2u * lid, atomicLoad(&wg_counts[lid]));
    }
}

@compute @workgroup_size(64)
fn query(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let depth = atomicLoad(&state[QUERY_CURSOR]);
    let range = level_range(depth);
    let start = range.x;
    let end = range.y;
    let i = start + flat_index(wid, nwg, lid);
    var counts = vec3u(0u);
    if (i < end) {
        let n = octree[i];
        let seed = seed_of(n);
        let seed_d2 = distance2_to_triangle(n.center, seed);
        var found: Found;
        if (params.use_rss == 1u) {
            found = rss_nearest(n.center, seed_d2, 0u, 1u, false);
        } else {
            let near = bvh_nearest(n.center, seed_d2);
            found = Found(near.d2, near.tri, vec3u(1u, 0u, near.evals));
        }
        counts = found.counts + vec3u(0u, 0u, 1u);
        if (found.tri != NONE) {
            write_node(i, n.center, found.d2, found.tri);
        } else {
            write_node(i, n.center, seed_d2, seed);
        }
    }
    add_counts(depth, lid, counts);
}

@compute @workgroup_size(64)
fn query_wide(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let depth = atomicLoad(&state[QUERY_CURSOR]);
    let range = level_range(depth);
    let start = range.x;
    let end = range.y;
    // One node per workgroup: `valid` is the same for every invocation.
    let i = start + wid.y * nwg.x + wid.x;
    let valid = i < end;
    var n: OctreeNode;
    var seed = 0u;
    var seed_d2 = 0.0;
    if (valid) {
        n = octree[i];
        seed = seed_of(n);
        seed_d2 = distance2_to_triangle(n.center, seed);
    }
    if (lid == 0u) {
        atomicStore(&wg_best, bitcast<u32>(seed_d2));
        atomicStore(&wg_tri, NONE);
    }
    workgroupBarrier();
    var found = Found(seed_d2, NONE, vec3u(0u));
    if (valid) {
        found = rss_nearest(n.center, seed_d2, lid, 64u, true);
    }
    workgroupBarrier();
    // Of the invocations that reached the workgroup's best, the smallest slot.
    if (found.tri != NONE && found.d2 == bitcast<f32>(atomicLoad(&wg_best))) {
        atomicMin(&wg_tri, found.tri);
    }
    workgroupBarrier();
    if (valid && lid == 0u) {
        let tri = atomicLoad(&wg_tri);
        if (tri != NONE) {
            write_node(i, n.center, bitcast<f32>(atomicLoad(&wg_best)), tri);
        } else {
            write_node(i, n.center, seed_d2, seed);
        }
        found.counts.z += 1u;
    }
    add_counts(depth, lid, found.counts);
}

@compute @workgroup_size(1)
fn next_query() {
    atomicAdd(&state[QUERY_CURSOR], 1u);
}
