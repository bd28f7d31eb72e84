//!include sdf.wgsl

// The BVH backend of the uniform SDF: packet traversal by subgroups, then a
// per-cell finishing pass. Includes sdf.wgsl (Params, bindings,
// write_cell); loaded on devices with subgroup operations.
//
// Entry points:
//   packet_cells  one workgroup per 4x4x4 brick, one invocation per cell;
//                 each subgroup (a warp on NVIDIA: 32 cells, 4x4x2) walks
//                 the BVH as one packet and writes each cell's nearest
//                 triangle
//   finish_cells  one invocation per cell: the nearest triangle's exact
//                 closest point (Ericson), feature, signed distance
//
// A grid is a coherent set of queries: the cells of a packet need nearly
// the same nodes and triangles. A node is visited when it could hold a
// closer triangle for any cell of the packet; every invocation then tests
// what could be closer for its own cell. The decisions are subgroup votes
// (subgroupAny, subgroupAdd), so every invocation of the subgroup computes
// the same ones and keeps an identical copy of the stack; there is no
// workgroup memory and no barrier. Each cell's own traversal is complete
// whatever the others do (it visits every node its own bound admits), so
// the result does not depend on the subgroup size or on how the device
// groups invocations; other cells only add visits.
//
// The nodes (src/stages/sdf/slab_bvh.rs) carry a slab besides their
// box: the band between two parallel planes that holds the node's
// triangles. The lower bound on the distance to a node is the larger of
// the two, which prunes the neighbouring patches of a smooth surface that
// boxes let through.

// SlabNode of src/stages/sdf/slab_bvh.rs; BRICK is the brick edge of
// src/stages/sdf/grid.rs (both checked by tests/it/shader_layouts.rs).
struct SlabNode {
    min: vec3f,
    a: u32,             // inner: left child; leaf: first triangle
    max: vec3f,
    b: u32,             // inner: right child; leaf: LEAF_BIT | count
    normal: vec3f,      // unit, or zero: no slab
    lo: f32,            // the triangles lie in lo <= dot(normal, x) <= hi
    hi: f32,
}

@group(0) @binding(5) var<storage, read> nodes: array<SlabNode>;

const BRICK: u32 = 4u;

var<workgroup> wg_evals: atomic<u32>;

// Lower bound on the squared distance from p to a node's triangles. The
// slab distance is shrunk by a relative 1e-5 so that rounding in the dot
// product never lifts it above the true distance.
fn node_distance2(p: vec3f, n: SlabNode) -> f32 {
    let np = dot(n.normal, p);
    let s = max(0.0, max(np - n.hi, n.lo - np)) * (1.0 - 1e-5);
    return max(box_distance2(p, n.min, n.max), s * s);
}

fn flush_evals(lid: u32, evals: u32) {
    atomicAdd(&wg_evals, evals);
    workgroupBarrier();
    if (lid == 0u) {
        atomicAdd(&counters[0], atomicLoad(&wg_evals));
    }
}

@compute @workgroup_size(64)
fn packet_cells(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let b = wid.y * nwg.x + wid.x;
    let num_bricks = params.bricks.x * params.bricks.y * params.bricks.z;
    let brick = grid_coords(min(b, num_bricks - 1u), params.bricks);
    let ijk = brick * BRICK + vec3u(lid % BRICK, (lid / BRICK) % BRICK, lid / (BRICK * BRICK));
    let valid = b < num_bricks && all(ijk < params.dims);
    let p = cell_center(min(ijk, params.dims - 1u));
    var best = band2();
    var best_tri = NONE;
    var evals = 0u;
    // The node being visited, as its (a, b) fields, and whether this cell
    // still wants it; the stack holds the same for nodes left for later,
    // with this cell's bound on each.
    var cur_a = nodes[0].a;
    var cur_b = nodes[0].b;
    var cur_live = valid && node_distance2(p, nodes[0]) < best;
    var stack_a: array<u32, STACK>;
    var stack_b: array<u32, STACK>;
    var stack_d2: array<f32, STACK>;
    var sp = 0u;
    var have = subgroupAny(cur_live);
    loop {
        if (!have) {
            if (sp == 0u) {
                break;
            }
            sp -= 1u;
            cur_a = stack_a[sp];
            cur_b = stack_b[sp];
            cur_live = valid && stack_d2[sp] < best;
            have = subgroupAny(cur_live);
            continue;
        }
        have = false;
        if ((cur_b & LEAF_BIT) != 0u) {
            // The leaf's triangles, in step: each invocation tests those
            // that could be closer for its cell.
            let end = cur_a + (cur_b & ~LEAF_BIT);
            for (var t = cur_a; t < end; t++) {
                let a = tri_pos[3u * t].xyz;
                let bb = tri_pos[3u * t + 1u].xyz;
                let c = tri_pos[3u * t + 2u].xyz;
                if (!cur_live || box_distance2(p, min(min(a, bb), c), max(max(a, bb), c)) >= best) {
                    continue;
                }
                evals += 1u;
                let d2 = triangle_distance2(p, a, bb, c);
                if (d2 < best) {
                    best = d2;
                    best_tri = t;
                }
            }
            continue;
        }
        let l = nodes[cur_a];
        let r = nodes[cur_b];
        var dl = 3.0e38;
        var dr = 3.0e38;
        if (cur_live) {
            dl = node_distance2(p, l);
            dr = node_distance2(p, r);
        }
        let want_l = subgroupAny(dl < best);
        let want_r = subgroupAny(dr < best);
        // The child nearer to most cells is visited next, the other kept.
        let left_votes = subgroupAdd(select(0u, 1u, cur_live && dl <= dr));
        let voters = subgroupAdd(select(0u, 1u, cur_live));
        let left_near = 2u * left_votes >= voters;
        var near = l;
        var near_d = dl;
        var want_near = want_l;
        var far = r;
        var far_d = dr;
        var want_far = want_r;
        if (!left_near) {
            near = r;
            near_d = dr;
            want_near = want_r;
            far = l;
            far_d = dl;
            want_far = want_l;
        }
        // The host checks that the tree is shallower than STACK: at most
        // one node is pushed per level.
        if (want_far && sp < STACK) {
            stack_a[sp] = far.a;
            stack_b[sp] = far.b;
            stack_d2[sp] = far_d;
            sp += 1u;
        }
        if (want_near) {
            cur_a = near.a;
            cur_b = near.b;
            cur_live = near_d < best;
            have = true;
        }
    }
    if (valid) {
        let cell = ijk.x + params.dims.x * (ijk.y + params.dims.y * ijk.z);
        if (params.write_closest != 0u) {
            closest[cell] = best_tri;
        } else {
            values[cell] = best_tri;
        }
    }
    flush_evals(lid, evals);
}

// The nearest triangle's exact closest point, feature and sign, in a pass
// of its own so that Ericson's branches do not weigh on the traversal's
// registers.
@compute @workgroup_size(64)
fn finish_cells(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let cell = (wid.y * nwg.x + wid.x) * 64u + lid;
    if (cell >= params.num_cells) {
        return;
    }
    let p = cell_center(cell_coords(cell));
    // Read by the invocation that overwrites it (write_cell).
    var t: u32;
    if (params.write_closest != 0u) {
        t = closest[cell];
    } else {
        t = values[cell];
    }
    var d2 = band2();
    var feature = FEATURE_FACE;
    if (t != NONE) {
        let r = closest_on_triangle(p, tri_pos[3u * t].xyz, tri_pos[3u * t + 1u].xyz, tri_pos[3u * t + 2u].xyz);
        d2 = dot(p - r.q, p - r.q);
        feature = r.feature;
    }
    write_cell(cell, p, d2, t, feature);
}
