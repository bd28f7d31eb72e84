// Exact signed distance field on a uniform grid (Sundholm 2010, §4.4, §6.2.5).
//
// Entry points:
//   brute       one invocation per cell; triangles streamed through workgroup
//               memory in tiles of 64 (Sundholm §6.2.5)
//   packet_cells  one workgroup per 4x4x4 brick, one invocation per cell:
//               the brick's cells walk the BVH together (below)
//
// Keep in sync with src/stages/sdf_grid/gpu.rs (Params, bindings) and
// src/mesh/normals.rs (7 feature normals per triangle).
//
// Prepended by src/gpu/mod.rs: shared/closest_point.wgsl (closest point on a
// triangle, feature ids) and shared/bvh_nearest.wgsl (BVH nodes, box
// distance).

struct Params {
    origin: vec3f,      // centre of cell (0,0,0)
    cell_size: f32,
    dims: vec3u,
    num_tris: u32,
    bricks: vec3u,      // bricks per axis (ceil(dims / 4))
    band: f32,          // narrow band half-width in world units; < 0: no band
    num_cells: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

const TILE: u32 = 64u;

@group(0) @binding(0) var<uniform> params: Params;
// 3 corners per triangle (w unused).
@group(0) @binding(1) var<storage, read> tri_pos: array<vec4f>;
// 7 feature normals per triangle, 3 floats each:
// [face, edge01, edge12, edge20, v0, v1, v2].
@group(0) @binding(2) var<storage, read> normals: array<f32>;
@group(0) @binding(3) var<storage, read_write> values: array<f32>;
// (triangle << 3) | feature, or NONE for a far cell.
@group(0) @binding(4) var<storage, read_write> closest: array<u32>;
@group(0) @binding(5) var<storage, read> nodes: array<BvhNode>;
// [0]: point–triangle distance evaluations, summed over all invocations.
@group(0) @binding(6) var<storage, read_write> counters: array<atomic<u32>>;

fn cell_coords(cell: u32) -> vec3u {
    let i = cell % params.dims.x;
    let j = (cell / params.dims.x) % params.dims.y;
    let k = cell / (params.dims.x * params.dims.y);
    return vec3u(i, j, k);
}

fn cell_center(ijk: vec3u) -> vec3f {
    return params.origin + vec3f(ijk) * params.cell_size;
}

// Writes the cell's signed distance and closest (triangle, feature); the sign
// is the side of the closest feature's angle-weighted pseudo-normal
// (Bærentzen & Aanæs; Sundholm §4.3.2).
fn write_cell(cell: u32, p: vec3f, best_d2: f32, best_tri: u32, feature: u32) {
    if (best_tri == NONE) {
        // Farther than the band from every triangle: the CPU finishing step
        // gives far cells their sign.
        values[cell] = params.band;
        closest[cell] = NONE;
        return;
    }
    // The closest point's side of the feature's normal: for a face the
    // plane through a corner, for an edge or a vertex a plane through that
    // feature's corner (corner 0 lies on the face and on edges 01 and 20,
    // corner 1 on edge 12), all equal to the side of the closest point.
    let base = (best_tri * 7u + feature) * 3u;
    let n = vec3f(normals[base], normals[base + 1u], normals[base + 2u]);
    let corner = select(0u, 1u, feature == FEATURE_EDGE12 || feature == FEATURE_V1);
    let on_feature = select(tri_pos[3u * best_tri + corner].xyz, tri_pos[3u * best_tri + 2u].xyz, feature == FEATURE_V2);
    var sign = 1.0;
    if (dot(p - on_feature, n) < 0.0) {
        sign = -1.0;
    }
    values[cell] = sign * sqrt(best_d2);
    closest[cell] = (best_tri << 3u) | feature;
}

fn band2() -> f32 {
    if (params.band < 0.0) {
        return 3.0e38;
    }
    return params.band * params.band;
}

var<workgroup> tile: array<vec3f, 192>;
var<workgroup> wg_evals: atomic<u32>;

@compute @workgroup_size(64)
fn brute(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let cell = (wid.y * nwg.x + wid.x) * 64u + lid;
    let valid = cell < params.num_cells;
    let p = cell_center(cell_coords(min(cell, params.num_cells - 1u)));
    var best = band2();
    var best_tri = NONE;
    var best_feature = FEATURE_FACE;
    for (var base = 0u; base < params.num_tris; base += TILE) {
        let t = base + lid;
        if (t < params.num_tris) {
            tile[3u * lid] = tri_pos[3u * t].xyz;
            tile[3u * lid + 1u] = tri_pos[3u * t + 1u].xyz;
            tile[3u * lid + 2u] = tri_pos[3u * t + 2u].xyz;
        }
        workgroupBarrier();
        let n = min(TILE, params.num_tris - base);
        for (var k = 0u; k < n; k++) {
            let c = closest_on_triangle(p, tile[3u * k], tile[3u * k + 1u], tile[3u * k + 2u]);
            let d = p - c.q;
            let d2 = dot(d, d);
            // Strict: the first of equally close triangles wins, as on the CPU.
            if (d2 < best) {
                best = d2;
                best_tri = base + k;
                best_feature = c.feature;
            }
        }
        workgroupBarrier();
    }
    if (valid) {
        write_cell(cell, p, best, best_tri, best_feature);
    }
}

fn flush_evals(lid: u32, evals: u32) {
    atomicAdd(&wg_evals, evals);
    workgroupBarrier();
    if (lid == 0u) {
        atomicAdd(&counters[0], atomicLoad(&wg_evals));
    }
}

fn brick_coords(b: u32) -> vec3u {
    let i = b % params.bricks.x;
    let j = (b / params.bricks.x) % params.bricks.y;
    let k = b / (params.bricks.x * params.bricks.y);
    return vec3u(i, j, k);
}

// packet_cells: one workgroup per brick walks the BVH once for all its 64
// cells — a node is visited if it could hold a closer triangle for any cell
// of the brick, and each cell tests only what could be closer for itself —
// so the invocations of a brick read the same nodes and triangles at the
// same time instead of each walking its own path (packet traversal; the
// stack lives in workgroup memory, the first invocation pushes the children
// the cells voted for, the one nearer to most of them on top). It replaced
// a seed pass (each brick centre's nearest triangle) and a per-cell
// traversal bounded by it: on the H100 the bunny at 128³ went from 8.0 to
// 6.7 ms, 256³ from 38 to 33 ms.
// The nodes still to visit, whole: a popped node is read from workgroup
// memory, so each step waits for one round trip to memory (its children).
var<workgroup> wg_stack: array<BvhNode, STACK>;
var<workgroup> wg_sp: u32;
// [any cell wants the left child, ... the right one, cells nearer the left,
// cells voting]
var<workgroup> wg_votes: array<atomic<u32>, 4>;

@compute @workgroup_size(64)
fn packet_cells(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let b = wid.y * nwg.x + wid.x;
    let num_bricks = params.bricks.x * params.bricks.y * params.bricks.z;
    let brick = brick_coords(min(b, num_bricks - 1u));
    let ijk = brick * 4u + vec3u(lid % 4u, (lid / 4u) % 4u, lid / 16u);
    let valid = b < num_bricks && all(ijk < params.dims);
    let p = cell_center(min(ijk, params.dims - 1u));
    var best = band2();
    var best_tri = NONE;
    var best_feature = FEATURE_FACE;
    var evals = 0u;
    if (lid == 0u) {
        wg_stack[0] = nodes[0];
        wg_sp = 1u;
    }
    loop {
        let sp = workgroupUniformLoad(&wg_sp);
        if (sp == 0u) {
            break;
        }
        let n = wg_stack[sp - 1u];
        let live = valid && box_distance2(p, n.min, n.max) < best;
        let leaf = (n.b & LEAF_BIT) != 0u;
        // The leaf's triangles, in step: each invocation tests those that
        // could be closer for its cell.
        let end = select(n.a, n.a + (n.b & ~LEAF_BIT), leaf);
        for (var t = n.a; t < end; t++) {
            let a = tri_pos[3u * t].xyz;
            let bb = tri_pos[3u * t + 1u].xyz;
            let c = tri_pos[3u * t + 2u].xyz;
            if (!live || box_distance2(p, min(min(a, bb), c), max(max(a, bb), c)) >= best) {
                continue;
            }
            evals += 1u;
            let r = closest_on_triangle(p, a, bb, c);
            let d2 = dot(p - r.q, p - r.q);
            if (d2 < best) {
                best = d2;
                best_tri = t;
                best_feature = r.feature;
            }
        }
        // Every invocation loads the children (the same two nodes), so that
        // the first can push them without another round trip.
        var l = n;
        var r = n;
        if (!leaf) {
            l = nodes[n.a];
            r = nodes[n.b];
        }
        if (!leaf && live) {
            let dl = box_distance2(p, l.min, l.max);
            let dr = box_distance2(p, r.min, r.max);
            if (dl < best) {
                atomicStore(&wg_votes[0], 1u);
            }
            if (dr < best) {
                atomicStore(&wg_votes[1], 1u);
            }
            atomicAdd(&wg_votes[2], select(0u, 1u, dl <= dr));
            atomicAdd(&wg_votes[3], 1u);
        }
        workgroupBarrier();
        if (lid == 0u) {
            var top = sp - 1u;
            if (!leaf) {
                // The child nearer to most cells is visited first.
                let left_near = 2u * atomicLoad(&wg_votes[2]) >= atomicLoad(&wg_votes[3]);
                var near = r;
                var far = l;
                if (left_near) {
                    near = l;
                    far = r;
                }
                let want_near = atomicLoad(&wg_votes[select(1u, 0u, left_near)]) != 0u;
                let want_far = atomicLoad(&wg_votes[select(0u, 1u, left_near)]) != 0u;
                if (want_far) {
                    wg_stack[top] = far;
                    top += 1u;
                }
                if (want_near) {
                    wg_stack[top] = near;
                    top += 1u;
                }
            }
            wg_sp = top;
            for (var k = 0u; k < 4u; k++) {
                atomicStore(&wg_votes[k], 0u);
            }
        }
    }
    if (valid) {
        let cell = ijk.x + params.dims.x * (ijk.y + params.dims.y * ijk.z);
        write_cell(cell, p, best, best_tri, best_feature);
    }
    flush_evals(lid, evals);
}
