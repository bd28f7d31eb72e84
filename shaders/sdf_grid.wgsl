// Exact signed distance field on a uniform grid (Sundholm 2010, §4.4, §6.2.5).
//
// Entry points:
//   brute       one invocation per cell; triangles streamed through workgroup
//               memory in tiles of 64 (Sundholm §6.2.5)
//   brick_seed  one invocation per 4x4x4 brick: a triangle near the brick
//               centre (greedy BVH descent; exact search within a band)
//   bvh_cells   one workgroup per brick, one invocation per cell: BVH
//               traversal bounded by the distance to the centre's closest
//               triangle
//
// Keep in sync with src/stages/sdf_grid/gpu.rs (Params, bindings) and
// src/geom/bvh.rs (BvhNode), src/geom/closest_point.rs (closest point, feature
// order), src/mesh/normals.rs (7 feature normals per triangle).

struct Params {
    origin: vec3f,      // centre of cell (0,0,0)
    cell_size: f32,
    dims: vec3u,
    num_tris: u32,
    bricks: vec3u,      // bricks per axis (ceil(dims / 4))
    band: f32,          // narrow band half-width in world units; < 0: no band
    num_cells: u32,
    slack: f32,         // relative slack on the band reach of a brick (rounding)
    _pad0: u32,
    _pad1: u32,
}

// Keep in sync with src/geom/bvh.rs.
struct BvhNode {
    min: vec3f,
    a: u32,             // inner: left child; leaf: first triangle
    max: vec3f,
    b: u32,             // inner: right child; leaf: LEAF_BIT | count
}

const LEAF_BIT: u32 = 0x80000000u;
const NONE: u32 = 0xffffffffu;
const TILE: u32 = 64u;
const STACK: u32 = 64u;
const FEATURE_FACE: u32 = 0u;
const FEATURE_EDGE01: u32 = 1u;
const FEATURE_EDGE12: u32 = 2u;
const FEATURE_EDGE20: u32 = 3u;
const FEATURE_V0: u32 = 4u;
const FEATURE_V1: u32 = 5u;
const FEATURE_V2: u32 = 6u;

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
// A triangle near each brick's centre, or NONE when nothing is within the
// band's reach.
@group(0) @binding(6) var<storage, read_write> brick_seed_tri: array<u32>;
// [0]: point–triangle distance evaluations, summed over all invocations.
@group(0) @binding(7) var<storage, read_write> counters: array<atomic<u32>>;

struct Closest {
    q: vec3f,
    feature: u32,
}

// Keep in sync with SNAP_WEIGHT, SLIVER and FEATURE_BY_MASK in
// src/geom/closest_point.rs.
const SNAP_WEIGHT: f32 = 1e-6;
const SLIVER: f32 = 1e-4;

// The feature spanned by the corners whose barycentric weight exceeds
// SNAP_WEIGHT, by mask w0 | w1 << 1 | w2 << 2 (a rounding misclassification
// between a face and its edge must name the edge, whose pseudo-normal the
// sign needs).
fn snapped_feature(w0: f32, w1: f32, w2: f32) -> u32 {
    let mask = select(0u, 1u, w0 > SNAP_WEIGHT) | select(0u, 2u, w1 > SNAP_WEIGHT) | select(0u, 4u, w2 > SNAP_WEIGHT);
    switch mask {
        case 1u: { return FEATURE_V0; }
        case 2u: { return FEATURE_V1; }
        case 3u: { return FEATURE_EDGE01; }
        case 4u: { return FEATURE_V2; }
        case 5u: { return FEATURE_EDGE20; }
        case 6u: { return FEATURE_EDGE12; }
        default: { return FEATURE_FACE; }
    }
}

fn result(q: vec3f, w0: f32, w1: f32, w2: f32) -> Closest {
    return Closest(q, snapped_feature(w0, w1, w2));
}

// Ericson, Real-Time Collision Detection §5.1.5, mirroring
// closest_point_triangle in src/geom/closest_point.rs line for line
// (including its sliver fallback).
fn closest_on_triangle(p: vec3f, a: vec3f, b: vec3f, c: vec3f) -> Closest {
    let ab = b - a;
    let ac = c - a;
    let n = cross(ab, ac);
    let n2 = dot(n, n);
    let longest2 = max(max(dot(ab, ab), dot(ac, ac)), dot(c - b, c - b));
    if (!(n2 > SLIVER * longest2 * longest2)) {
        return closest_on_sliver(p, a, b, c);
    }
    let ap = p - a;
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        return result(a, 1.0, 0.0, 0.0);
    }
    let bp = p - b;
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        return result(b, 0.0, 1.0, 0.0);
    }
    let vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        let denom = d1 - d3;
        if (!(denom > 0.0)) {
            return closest_on_sliver(p, a, b, c);
        }
        let v = d1 / denom;
        return result(a + v * ab, 1.0 - v, v, 0.0);
    }
    let cp = p - c;
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        return result(c, 0.0, 0.0, 1.0);
    }
    let vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        let denom = d2 - d6;
        if (!(denom > 0.0)) {
            return closest_on_sliver(p, a, b, c);
        }
        let w = d2 / denom;
        return result(a + w * ac, 1.0 - w, 0.0, w);
    }
    let va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        let denom = (d4 - d3) + (d5 - d6);
        if (!(denom > 0.0)) {
            return closest_on_sliver(p, a, b, c);
        }
        let w = (d4 - d3) / denom;
        return result(b + w * (c - b), 0.0, 1.0 - w, w);
    }
    let denom = va + vb + vc;
    if (!(denom > 0.0)) {
        return closest_on_sliver(p, a, b, c);
    }
    let inv = 1.0 / denom;
    let v = vb * inv;
    let w = vc * inv;
    return result(a + ab * v + ac * w, 1.0 - v - w, v, w);
}

// One edge of the sliver fallback: corner i to corner j as weights.
fn sliver_edge(p: vec3f, start: vec3f, end: vec3f, i: u32, j: u32) -> Closest {
    let e = end - start;
    let ee = dot(e, e);
    var t = 0.0;
    if (ee > 0.0) {
        t = clamp(dot(p - start, e) / ee, 0.0, 1.0);
    }
    var w = array<f32, 3>(0.0, 0.0, 0.0);
    w[i] = 1.0 - t;
    w[j] = t;
    return result(start + t * e, w[0], w[1], w[2]);
}

fn dist2(p: vec3f, c: Closest) -> f32 {
    let d = p - c.q;
    return dot(d, d);
}

// Slivers and degenerate triangles: the closest of the three edges and, when
// it falls inside, the projection onto the plane (closest_point_triangle_sliver).
fn closest_on_sliver(p: vec3f, a: vec3f, b: vec3f, c: vec3f) -> Closest {
    var best = sliver_edge(p, a, b, 0u, 1u);
    let e12 = sliver_edge(p, b, c, 1u, 2u);
    if (dist2(p, e12) < dist2(p, best)) {
        best = e12;
    }
    let e20 = sliver_edge(p, c, a, 2u, 0u);
    if (dist2(p, e20) < dist2(p, best)) {
        best = e20;
    }
    let n = cross(b - a, c - a);
    let nn = dot(n, n);
    if (nn > 0.0) {
        let q = p - n * (dot(n, p - a) / nn);
        let w0 = dot(cross(b - q, c - q), n) / nn;
        let w1 = dot(cross(c - q, a - q), n) / nn;
        let w2 = dot(cross(a - q, b - q), n) / nn;
        if (w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0) {
            let face = result(q, w0, w1, w2);
            if (dist2(p, face) < dist2(p, best)) {
                best = face;
            }
        }
    }
    return best;
}

fn distance2_to_triangle(p: vec3f, t: u32) -> f32 {
    let c = closest_on_triangle(p, tri_pos[3u * t].xyz, tri_pos[3u * t + 1u].xyz, tri_pos[3u * t + 2u].xyz);
    let d = p - c.q;
    return dot(d, d);
}

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
fn write_cell(cell: u32, p: vec3f, best_d2: f32, best_tri: u32) {
    if (best_tri == NONE) {
        // Farther than the band from every triangle: the CPU finishing step
        // gives far cells their sign.
        values[cell] = params.band;
        closest[cell] = NONE;
        return;
    }
    let c = closest_on_triangle(p, tri_pos[3u * best_tri].xyz, tri_pos[3u * best_tri + 1u].xyz, tri_pos[3u * best_tri + 2u].xyz);
    let base = (best_tri * 7u + c.feature) * 3u;
    let n = vec3f(normals[base], normals[base + 1u], normals[base + 2u]);
    var sign = 1.0;
    if (dot(p - c.q, n) < 0.0) {
        sign = -1.0;
    }
    values[cell] = sign * sqrt(best_d2);
    closest[cell] = (best_tri << 3u) | c.feature;
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
            }
        }
        workgroupBarrier();
    }
    if (valid) {
        write_cell(cell, p, best, best_tri);
    }
}

fn box_distance2(p: vec3f, lo: vec3f, hi: vec3f) -> f32 {
    let d = max(max(lo - p, p - hi), vec3f(0.0));
    return dot(d, d);
}

struct Nearest {
    d2: f32,
    tri: u32,
    evals: u32,
}

// Nearest triangle closer than sqrt(bound2), nearest child first, with an
// explicit stack; subtrees whose box is not closer than the best so far are
// skipped. The CPU mirror is Bvh::nearest in src/geom/bvh.rs.
fn bvh_nearest(p: vec3f, bound2: f32) -> Nearest {
    var best = bound2;
    var best_tri = NONE;
    var evals = 0u;
    var stack_node: array<u32, STACK>;
    var stack_d2: array<f32, STACK>;
    var sp = 0u;
    var node = 0u;
    if (box_distance2(p, nodes[0].min, nodes[0].max) >= best) {
        return Nearest(best, best_tri, evals);
    }
    loop {
        let n = nodes[node];
        var next = NONE;
        if ((n.b & LEAF_BIT) != 0u) {
            let count = n.b & ~LEAF_BIT;
            for (var t = n.a; t < n.a + count; t++) {
                let a = tri_pos[3u * t].xyz;
                let b = tri_pos[3u * t + 1u].xyz;
                let c = tri_pos[3u * t + 2u].xyz;
                // The triangle's own box is a cheap lower bound: most
                // triangles of a visited leaf are rejected without the
                // exact test (mirrors nearest_triangle in cpu.rs).
                if (box_distance2(p, min(min(a, b), c), max(max(a, b), c)) >= best) {
                    continue;
                }
                let q = closest_on_triangle(p, a, b, c).q;
                let d2 = dot(p - q, p - q);
                evals += 1u;
                if (d2 < best) {
                    best = d2;
                    best_tri = t;
                }
            }
        } else {
            let l = nodes[n.a];
            let r = nodes[n.b];
            let dl = box_distance2(p, l.min, l.max);
            let dr = box_distance2(p, r.min, r.max);
            let near = select(n.b, n.a, dl <= dr);
            let far = select(n.a, n.b, dl <= dr);
            let d_near = min(dl, dr);
            let d_far = max(dl, dr);
            if (d_near < best) {
                next = near;
                if (d_far < best && sp < STACK) {
                    stack_node[sp] = far;
                    stack_d2[sp] = d_far;
                    sp += 1u;
                }
            }
        }
        if (next == NONE) {
            // Pop the next subtree that can still hold something closer.
            loop {
                if (sp == 0u) {
                    break;
                }
                sp -= 1u;
                if (stack_d2[sp] < best) {
                    next = stack_node[sp];
                    break;
                }
            }
            if (next == NONE) {
                break;
            }
        }
        node = next;
    }
    return Nearest(best, best_tri, evals);
}

fn flush_evals(lid: u32, evals: u32) {
    atomicAdd(&wg_evals, evals);
    workgroupBarrier();
    if (lid == 0u) {
        atomicAdd(&counters[0], atomicLoad(&wg_evals));
    }
}

fn brick_center(brick: vec3u) -> vec3f {
    return params.origin + (vec3f(brick * 4u) + vec3f(1.5)) * params.cell_size;
}

fn brick_coords(b: u32) -> vec3u {
    let i = b % params.bricks.x;
    let j = (b / params.bricks.x) % params.bricks.y;
    let k = b / (params.bricks.x * params.bricks.y);
    return vec3u(i, j, k);
}

// A triangle near `p`, found by descending into the nearer child only (no
// backtracking): not necessarily the closest, but its distance is an upper
// bound good enough to prune the cells' exact searches.
fn greedy_nearest(p: vec3f) -> Nearest {
    var node = 0u;
    loop {
        let n = nodes[node];
        if ((n.b & LEAF_BIT) != 0u) {
            var best = 3.0e38;
            var best_tri = NONE;
            let count = n.b & ~LEAF_BIT;
            for (var t = n.a; t < n.a + count; t++) {
                let d2 = distance2_to_triangle(p, t);
                if (d2 < best) {
                    best = d2;
                    best_tri = t;
                }
            }
            return Nearest(best, best_tri, count);
        }
        let l = nodes[n.a];
        let r = nodes[n.b];
        node = select(n.b, n.a, box_distance2(p, l.min, l.max) <= box_distance2(p, r.min, r.max));
    }
    // Not reached: every descent ends in a leaf.
    return Nearest(3.0e38, NONE, 0u);
}

@compute @workgroup_size(64)
fn brick_seed(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let b = (wid.y * nwg.x + wid.x) * 64u + lid;
    let num_bricks = params.bricks.x * params.bricks.y * params.bricks.z;
    var evals = 0u;
    if (b < num_bricks) {
        let c = brick_center(brick_coords(b));
        if (params.band >= 0.0) {
            // In a band, a brick whose centre has nothing within band +
            // radius holds only far cells; the exact search decides that.
            let reach = params.band + 1.5 * sqrt(3.0) * params.cell_size;
            let near = bvh_nearest(c, reach * reach * params.slack);
            evals = near.evals;
            brick_seed_tri[b] = near.tri;
        } else {
            let near = greedy_nearest(c);
            evals = near.evals;
            brick_seed_tri[b] = near.tri;
        }
    }
    flush_evals(lid, evals);
}

@compute @workgroup_size(64)
fn bvh_cells(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let b = wid.y * nwg.x + wid.x;
    let num_bricks = params.bricks.x * params.bricks.y * params.bricks.z;
    var evals = 0u;
    if (b < num_bricks) {
        let brick = brick_coords(b);
        let local = vec3u(lid % 4u, (lid / 4u) % 4u, lid / 16u);
        let ijk = brick * 4u + local;
        if (all(ijk < params.dims)) {
            let cell = ijk.x + params.dims.x * (ijk.y + params.dims.y * ijk.z);
            let p = cell_center(ijk);
            let seed = brick_seed_tri[b];
            if (seed == NONE) {
                write_cell(cell, p, 0.0, NONE);
            } else {
                // The centre's closest triangle is near this cell too: its
                // distance bounds the search, which then only visits what
                // could be closer.
                let seed_d2 = distance2_to_triangle(p, seed);
                let near = bvh_nearest(p, min(seed_d2, band2()));
                evals = near.evals + 1u;
                if (near.tri != NONE) {
                    write_cell(cell, p, near.d2, near.tri);
                } else if (seed_d2 < band2()) {
                    write_cell(cell, p, seed_d2, seed);
                } else {
                    write_cell(cell, p, 0.0, NONE);
                }
            }
        }
    }
    flush_evals(lid, evals);
}
