//!include shared/bvh_bounds.wgsl

// Exact triangle–triangle collision of two models (see src/stages/tritri).
//
// Model A's triangles are moved into model B's object frame by the query's
// pose (B_from_A, a 3×4 matrix); B's triangles and BVH are used as stored.
// Both entry points test pairs with the same function `collide`, so brute
// force and the BVH traversal give the same answers.
//
// tri_a, tri_b: 3 vec4 per triangle (BVH order); corner 0's w is 1 for a
//               zero-area triangle (skipped), 0 otherwise.
// hits:         [query 0 flag, query 1 flag, ..., pair count]
// pairs:        (a slot, b slot) per colliding pair, up to params.capacity
// segments:     2 vec4 per pair: the intersection segment in B's frame

// Params, QueryPose and the constants mirror src/stages/tritri/gpu.rs
// (checked by tests/it/shader_layouts.rs).
struct Params {
    num_a: u32,
    num_b: u32,
    num_queries: u32,
    // bit 0: all pairs (no early exit); bit 1: the tutorial's 5-edge test.
    mode: u32,
    capacity: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// Rows of B_from_A.
struct QueryPose {
    r0: vec4<f32>,
    r1: vec4<f32>,
    r2: vec4<f32>,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> tri_a: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> tri_b: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> nodes_b: array<BvhNode>;
@group(0) @binding(4) var<storage, read> poses: array<QueryPose>;
@group(0) @binding(5) var<storage, read_write> hits: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> pairs: array<vec2<u32>>;
@group(0) @binding(7) var<storage, read_write> segments: array<vec4<f32>>;

const WG: u32 = 64u;
// B triangles per brute-force workgroup (streamed through `tile` in WG-sized chunks).
const B_PER_GROUP: u32 = 256u;
const MODE_ALL_PAIRS: u32 = 1u;
const MODE_TUTORIAL: u32 = 2u;

struct Tri {
    p: vec3<f32>,
    q: vec3<f32>,
    r: vec3<f32>,
    lo: vec3<f32>,
    hi: vec3<f32>,
    skip: bool,
}

fn make_tri(p: vec3<f32>, q: vec3<f32>, r: vec3<f32>, flag: f32) -> Tri {
    return Tri(p, q, r, min(p, min(q, r)), max(p, max(q, r)), flag != 0.0);
}

fn apply(m: QueryPose, p: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(
        dot(m.r0.xyz, p) + m.r0.w,
        dot(m.r1.xyz, p) + m.r1.w,
        dot(m.r2.xyz, p) + m.r2.w,
    );
}

fn load_a(query: u32, i: u32) -> Tri {
    let m = poses[query];
    let c0 = tri_a[3u * i];
    return make_tri(apply(m, c0.xyz), apply(m, tri_a[3u * i + 1u].xyz), apply(m, tri_a[3u * i + 2u].xyz), c0.w);
}

fn load_b(j: u32) -> Tri {
    let c0 = tri_b[3u * j];
    return make_tri(c0.xyz, tri_b[3u * j + 1u].xyz, tri_b[3u * j + 2u].xyz, c0.w);
}

// ---------------------------------------------------------------- predicates

// Sign of det[a-d, b-d, c-d] (f32).
fn s3(a: vec3<f32>, b: vec3<f32>, c: vec3<f32>, d: vec3<f32>) -> i32 {
    let v = dot(a - d, cross(b - d, c - d));
    return i32(v > 0.0) - i32(v < 0.0);
}

fn s2(a: vec2<f32>, b: vec2<f32>, c: vec2<f32>) -> i32 {
    let v = (a.x - c.x) * (b.y - c.y) - (a.y - c.y) * (b.x - c.x);
    return i32(v > 0.0) - i32(v < 0.0);
}

fn project(p: vec3<f32>, axis: u32) -> vec2<f32> {
    if axis == 0u {
        return p.yz;
    }
    if axis == 1u {
        return p.zx;
    }
    return p.xy;
}

fn point_in_tri2(p: vec2<f32>, a: vec2<f32>, b: vec2<f32>, c: vec2<f32>) -> bool {
    let o0 = s2(a, b, p);
    let o1 = s2(b, c, p);
    let o2 = s2(c, a, p);
    let pos = o0 > 0 || o1 > 0 || o2 > 0;
    let neg = o0 < 0 || o1 < 0 || o2 < 0;
    return !(pos && neg);
}

fn within2(a: vec2<f32>, b: vec2<f32>, x: vec2<f32>) -> bool {
    return all(min(a, b) <= x) && all(x <= max(a, b));
}

fn seg_seg2(p: vec2<f32>, q: vec2<f32>, r: vec2<f32>, s: vec2<f32>) -> bool {
    let o1 = s2(p, q, r);
    let o2 = s2(p, q, s);
    let o3 = s2(r, s, p);
    let o4 = s2(r, s, q);
    if o1 * o2 < 0 && o3 * o4 < 0 {
        return true;
    }
    return (o1 == 0 && within2(p, q, r)) || (o2 == 0 && within2(p, q, s))
        || (o3 == 0 && within2(r, s, p)) || (o4 == 0 && within2(r, s, q));
}

// Closed 2D overlap of two coplanar triangles, projected away from the
// largest axis of t1's normal.
fn coplanar(t1: Tri, t2: Tri) -> bool {
    let n = abs(cross(t1.q - t1.p, t1.r - t1.p));
    var axis = 2u;
    if n.x >= n.y && n.x >= n.z {
        axis = 0u;
    } else if n.y >= n.z {
        axis = 1u;
    }
    var a = array<vec2<f32>, 3>(project(t1.p, axis), project(t1.q, axis), project(t1.r, axis));
    var b = array<vec2<f32>, 3>(project(t2.p, axis), project(t2.q, axis), project(t2.r, axis));
    for (var i = 0u; i < 3u; i++) {
        for (var j = 0u; j < 3u; j++) {
            if seg_seg2(a[i], a[(i + 1u) % 3u], b[j], b[(j + 1u) % 3u]) {
                return true;
            }
        }
    }
    return point_in_tri2(a[0], b[0], b[1], b[2]) || point_in_tri2(b[0], a[0], a[1], a[2]);
}

fn check_min_max(p1: vec3<f32>, q1: vec3<f32>, r1: vec3<f32>, p2: vec3<f32>, q2: vec3<f32>, r2: vec3<f32>) -> i32 {
    return i32(s3(p2, p1, q2, q1) <= 0 && s3(p2, r1, r2, p1) <= 0);
}

// Guigue–Devillers TRI_TRI_3D; 2 means "coplanar, decide in 2D".
fn gd3(p1: vec3<f32>, q1: vec3<f32>, r1: vec3<f32>, p2: vec3<f32>, q2: vec3<f32>, r2: vec3<f32>, dp2: i32, dq2: i32, dr2: i32) -> i32 {
    if dp2 > 0 {
        if dq2 > 0 {
            return check_min_max(p1, r1, q1, r2, p2, q2);
        } else if dr2 > 0 {
            return check_min_max(p1, r1, q1, q2, r2, p2);
        }
        return check_min_max(p1, q1, r1, p2, q2, r2);
    } else if dp2 < 0 {
        if dq2 < 0 {
            return check_min_max(p1, q1, r1, r2, p2, q2);
        } else if dr2 < 0 {
            return check_min_max(p1, q1, r1, q2, r2, p2);
        }
        return check_min_max(p1, r1, q1, p2, q2, r2);
    } else if dq2 < 0 {
        if dr2 >= 0 {
            return check_min_max(p1, r1, q1, q2, r2, p2);
        }
        return check_min_max(p1, q1, r1, p2, q2, r2);
    } else if dq2 > 0 {
        if dr2 > 0 {
            return check_min_max(p1, r1, q1, p2, q2, r2);
        }
        return check_min_max(p1, q1, r1, q2, r2, p2);
    } else if dr2 > 0 {
        return check_min_max(p1, q1, r1, r2, p2, q2);
    } else if dr2 < 0 {
        return check_min_max(p1, r1, q1, r2, p2, q2);
    }
    return 2;
}

// Guigue–Devillers triangle–triangle overlap, mirrored from
// geom::intersect_triangle_triangle (there with exact signs).
fn gd(t1: Tri, t2: Tri) -> bool {
    let p1 = t1.p;
    let q1 = t1.q;
    let r1 = t1.r;
    let p2 = t2.p;
    let q2 = t2.q;
    let r2 = t2.r;
    let dp1 = s3(p2, q2, p1, r2);
    let dq1 = s3(p2, q2, q1, r2);
    let dr1 = s3(p2, q2, r1, r2);
    if dp1 * dq1 > 0 && dp1 * dr1 > 0 {
        return false;
    }
    let dp2 = s3(q1, r1, p2, p1);
    let dq2 = s3(q1, r1, q2, p1);
    let dr2 = s3(q1, r1, r2, p1);
    if dp2 * dq2 > 0 && dp2 * dr2 > 0 {
        return false;
    }
    var res = 2;
    if dp1 > 0 {
        if dq1 > 0 {
            res = gd3(r1, p1, q1, p2, r2, q2, dp2, dr2, dq2);
        } else if dr1 > 0 {
            res = gd3(q1, r1, p1, p2, r2, q2, dp2, dr2, dq2);
        } else {
            res = gd3(p1, q1, r1, p2, q2, r2, dp2, dq2, dr2);
        }
    } else if dp1 < 0 {
        if dq1 < 0 {
            res = gd3(r1, p1, q1, p2, q2, r2, dp2, dq2, dr2);
        } else if dr1 < 0 {
            res = gd3(q1, r1, p1, p2, q2, r2, dp2, dq2, dr2);
        } else {
            res = gd3(p1, q1, r1, p2, r2, q2, dp2, dr2, dq2);
        }
    } else if dq1 < 0 {
        if dr1 >= 0 {
            res = gd3(q1, r1, p1, p2, r2, q2, dp2, dr2, dq2);
        } else {
            res = gd3(p1, q1, r1, p2, q2, r2, dp2, dq2, dr2);
        }
    } else if dq1 > 0 {
        if dr1 > 0 {
            res = gd3(p1, q1, r1, p2, r2, q2, dp2, dr2, dq2);
        } else {
            res = gd3(q1, r1, p1, p2, q2, r2, dp2, dq2, dr2);
        }
    } else if dr1 > 0 {
        res = gd3(r1, p1, q1, p2, q2, r2, dp2, dq2, dr2);
    } else if dr1 < 0 {
        res = gd3(r1, p1, q1, p2, r2, q2, dp2, dr2, dq2);
    }
    if res == 2 {
        return coplanar(t1, t2);
    }
    return res == 1;
}

// The tutorial's RetaCruzaTriangulo: does segment AB cross triangle CDE?
fn tutorial_segment(a: vec3<f32>, b: vec3<f32>, c: vec3<f32>, d: vec3<f32>, e: vec3<f32>) -> bool {
    let ab = b - a;
    let cd = d - c;
    let ce = e - c;
    let det = cd.x * (ce.y * ab.z - ab.y * ce.z) + cd.y * (ab.x * ce.z - ce.x * ab.z) + cd.z * (ce.x * ab.y - ab.x * ce.y);
    if det == 0.0 {
        return false;
    }
    let invdet = -1.0 / det;
    let ca = a - c;
    let alpha = ((-ce.y * ab.z + ce.z * ab.y) * ca.x + (-ce.z * ab.x + ab.z * ce.x) * ca.y + (ce.y * ab.x - ce.x * ab.y) * ca.z) * invdet;
    let beta = ((cd.y * ab.z - cd.z * ab.y) * ca.x + (cd.z * ab.x - ab.z * cd.x) * ca.y + (-cd.y * ab.x + cd.x * ab.y) * ca.z) * invdet;
    let delta = ((cd.y * ce.z - cd.z * ce.y) * ca.x + (cd.z * ce.x - ce.z * cd.x) * ca.y + (-cd.y * ce.x + cd.x * ce.y) * ca.z) * invdet;
    return 0.0 <= delta && delta <= 1.0 && alpha >= 0.0 && beta >= 0.0 && alpha + beta <= 1.0;
}

fn tutorial(a: Tri, b: Tri) -> bool {
    return tutorial_segment(a.p, a.q, b.p, b.q, b.r) || tutorial_segment(a.p, a.r, b.p, b.q, b.r)
        || tutorial_segment(a.q, a.r, b.p, b.q, b.r) || tutorial_segment(b.p, b.q, a.p, a.q, a.r)
        || tutorial_segment(b.p, b.r, a.p, a.q, a.r);
}

// The one pair test both entry points use: zero-area and box rejects, then
// the chosen predicate.
fn collide(a: Tri, b: Tri) -> bool {
    if a.skip || b.skip || any(a.hi < b.lo) || any(b.hi < a.lo) {
        return false;
    }
    if (params.mode & MODE_TUTORIAL) != 0u {
        return tutorial(a, b);
    }
    return gd(a, b);
}

// ------------------------------------------------------- intersection segment

struct Extent {
    lo: f32,
    hi: f32,
    plo: vec3<f32>,
    phi: vec3<f32>,
}

fn extend(e: ptr<function, Extent>, x: vec3<f32>, dir: vec3<f32>) {
    let t = dot(x, dir);
    if t < (*e).lo {
        (*e).lo = t;
        (*e).plo = x;
    }
    if t > (*e).hi {
        (*e).hi = t;
        (*e).phi = x;
    }
}

// x in triangle (c0, c1, c2) with normal n, with a small tolerance: the
// predicate already decided the pair collides, this only places points.
fn inside(x: vec3<f32>, c0: vec3<f32>, c1: vec3<f32>, c2: vec3<f32>, n: vec3<f32>) -> bool {
    let tol = -1e-5 * dot(n, n);
    return dot(cross(c1 - c0, x - c0), n) >= tol && dot(cross(c2 - c1, x - c1), n) >= tol
        && dot(cross(c0 - c2, x - c2), n) >= tol;
}

// Where edge pq crosses triangle t's plane inside t, folded into `e`.
fn edge_crossing(e: ptr<function, Extent>, p: vec3<f32>, q: vec3<f32>, t: Tri, n: vec3<f32>, dir: vec3<f32>) {
    let sp = dot(p - t.p, n);
    let sq = dot(q - t.p, n);
    if sp * sq > 0.0 || sp == sq {
        return;
    }
    let x = p + (sp / (sp - sq)) * (q - p);
    if inside(x, t.p, t.q, t.r, n) {
        extend(e, x, dir);
    }
}

fn coplanar_edges(e: ptr<function, Extent>, p: vec3<f32>, q: vec3<f32>, r: vec3<f32>, s: vec3<f32>, dir: vec3<f32>) {
    let u = q - p;
    let w = s - r;
    let nn = cross(u, w);
    let den = dot(nn, nn);
    if den <= 0.0 {
        return;
    }
    let t = dot(cross(r - p, w), nn) / den;
    let v = dot(cross(r - p, u), nn) / den;
    if t >= 0.0 && t <= 1.0 && v >= 0.0 && v <= 1.0 {
        extend(e, p + t * u, dir);
    }
}

// The intersection segment of two colliding triangles: the extreme edge
// crossings along the planes' common line; for a coplanar overlap, the
// overlap region's extremes along A's first edge.
fn intersection_segment(a: Tri, b: Tri) -> array<vec3<f32>, 2> {
    let na = cross(a.q - a.p, a.r - a.p);
    let nb = cross(b.q - b.p, b.r - b.p);
    var dir = cross(na, nb);
    var e = Extent(1e30, -1e30, a.p, a.p);
    if dot(dir, dir) > 1e-12 * dot(na, na) * dot(nb, nb) {
        edge_crossing(&e, a.p, a.q, b, nb, dir);
        edge_crossing(&e, a.q, a.r, b, nb, dir);
        edge_crossing(&e, a.r, a.p, b, nb, dir);
        edge_crossing(&e, b.p, b.q, a, na, dir);
        edge_crossing(&e, b.q, b.r, a, na, dir);
        edge_crossing(&e, b.r, b.p, a, na, dir);
    }
    if e.hi < e.lo {
        dir = a.q - a.p;
        var ca = array<vec3<f32>, 3>(a.p, a.q, a.r);
        var cb = array<vec3<f32>, 3>(b.p, b.q, b.r);
        for (var i = 0u; i < 3u; i++) {
            if inside(ca[i], b.p, b.q, b.r, nb) {
                extend(&e, ca[i], dir);
            }
            if inside(cb[i], a.p, a.q, a.r, na) {
                extend(&e, cb[i], dir);
            }
            for (var j = 0u; j < 3u; j++) {
                coplanar_edges(&e, ca[i], ca[(i + 1u) % 3u], cb[j], cb[(j + 1u) % 3u], dir);
            }
        }
    }
    if e.hi < e.lo {
        let c = (a.p + a.q + a.r) / 3.0;
        return array<vec3<f32>, 2>(c, c);
    }
    return array<vec3<f32>, 2>(e.plo, e.phi);
}

// Appends a colliding pair; its segment is computed afterwards by the
// `segments` entry point, which keeps that code out of the pair loops.
fn emit(query: u32, ia: u32, ib: u32) {
    atomicStore(&hits[query], 1u);
    let slot = atomicAdd(&hits[params.num_queries], 1u);
    if slot < params.capacity {
        pairs[slot] = vec2<u32>(ia, ib);
    }
}

// ---------------------------------------------------------------- entry points

var<workgroup> tile: array<vec4<f32>, 192>;
var<workgroup> stop: u32;

// Brute force: workgroup (x, y, z) tests A triangles [64x, 64x + 64) against
// B triangles [256y, 256y + 256) for query z. Each invocation keeps its A
// triangle in registers; B comes through workgroup memory 64 at a time.
@compute @workgroup_size(64)
fn brute(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let query = wid.z;
    let all_pairs = (params.mode & MODE_ALL_PAIRS) != 0u;
    if lid == 0u {
        stop = select(atomicLoad(&hits[query]), 0u, all_pairs);
    }
    if workgroupUniformLoad(&stop) != 0u {
        return;
    }
    let ia = wid.x * WG + lid;
    let has_a = ia < params.num_a;
    var a = make_tri(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), 1.0);
    if has_a {
        a = load_a(query, ia);
    }
    var done = a.skip;
    let b_start = wid.y * B_PER_GROUP;
    for (var chunk = 0u; chunk < B_PER_GROUP; chunk += WG) {
        let base = b_start + chunk;
        if base >= params.num_b {
            break;
        }
        let jb = base + lid;
        if jb < params.num_b {
            tile[3u * lid] = tri_b[3u * jb];
            tile[3u * lid + 1u] = tri_b[3u * jb + 1u];
            tile[3u * lid + 2u] = tri_b[3u * jb + 2u];
        }
        workgroupBarrier();
        let count = min(WG, params.num_b - base);
        if !done {
            for (var k = 0u; k < count; k++) {
                let b = make_tri(tile[3u * k].xyz, tile[3u * k + 1u].xyz, tile[3u * k + 2u].xyz, tile[3u * k].w);
                if collide(a, b) {
                    if all_pairs {
                        emit(query, ia, base + k);
                    } else {
                        atomicStore(&hits[query], 1u);
                        done = true;
                        break;
                    }
                }
            }
        }
        if !all_pairs && lid == 0u {
            stop = atomicLoad(&hits[query]);
        }
        // Also the barrier that protects `tile` before the next chunk.
        if workgroupUniformLoad(&stop) != 0u {
            return;
        }
    }
}

// Pruned: one invocation per (query, A triangle) traverses B's BVH with the
// moved triangle's box; leaves test their triangles with `collide`.
@compute @workgroup_size(64)
fn pruned(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let flat = (wid.y * nwg.x + wid.x) * WG + lid;
    if flat >= params.num_a * params.num_queries {
        return;
    }
    let query = flat / params.num_a;
    let ia = flat % params.num_a;
    let all_pairs = (params.mode & MODE_ALL_PAIRS) != 0u;
    if !all_pairs && atomicLoad(&hits[query]) != 0u {
        return;
    }
    let a = load_a(query, ia);
    if a.skip {
        return;
    }
    var stack: array<u32, STACK>;
    var sp = 1u;
    stack[0] = 0u;
    while sp > 0u {
        sp -= 1u;
        let node = nodes_b[stack[sp]];
        if any(a.hi < node.min) || any(node.max < a.lo) {
            continue;
        }
        if (node.b & LEAF_BIT) != 0u {
            let count = node.b & ~LEAF_BIT;
            for (var k = 0u; k < count; k++) {
                let j = node.a + k;
                let b = load_b(j);
                if collide(a, b) {
                    if all_pairs {
                        emit(query, ia, j);
                    } else {
                        atomicStore(&hits[query], 1u);
                        return;
                    }
                }
            }
            if !all_pairs && atomicLoad(&hits[query]) != 0u {
                return;
            }
        } else if sp + 2u <= STACK {
            stack[sp] = node.a;
            stack[sp + 1u] = node.b;
            sp += 2u;
        }
    }
}

// All pairs, after `brute` or `pruned`: one invocation per emitted pair
// (query 0) computes its intersection segment.
@compute @workgroup_size(64)
fn segments_of_pairs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let slot = (wid.y * nwg.x + wid.x) * WG + lid;
    if slot >= min(atomicLoad(&hits[params.num_queries]), params.capacity) {
        return;
    }
    let pair = pairs[slot];
    let s = intersection_segment(load_a(0u, pair.x), load_b(pair.y));
    segments[2u * slot] = vec4<f32>(s[0], 0.0);
    segments[2u * slot + 1u] = vec4<f32>(s[1], 0.0);
}
