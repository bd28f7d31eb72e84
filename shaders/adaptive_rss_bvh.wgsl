//!include shared/rss.wgsl
//!include shared/sorted_codes.wgsl

// RSS multi-BVH built top-down on the GPU (Liu & Kim 2014, §4, Algs. 2–3).
// The CPU reference and the layout are in
// src/stages/adaptive/rss_bvh.rs; every fitting step mirrors
// src/geom/rss.rs.
//
// Entry points, in the order src/stages/adaptive/rss_bvh_gpu.rs records
// them:
//   init_order   one invocation per sorted triangle: order[i] = its slot
//   groups       one workgroup: the occupied cells of the group level, in
//                Morton order, become the roots 0..G (Alg. 3 lines 1–10);
//                large roots -> active list 0, the others -> small list
//   large_split  one workgroup per node of the active list (indirect):
//                covariance, OBB extents and centroid extents by parallel
//                reductions, the RSS, a stable partition of the range at the
//                spatial median (one scan of per-invocation counts), two
//                children (Alg. 2 lines 3–28)
//   large_next   one invocation: swaps the active lists, writes the next
//                level's and the small phase's dispatch sizes
//   small_nodes  one invocation per small node (indirect): its whole
//                subtree, depth first (Alg. 2 lines 29–42, Alg. 3 19–45)
//
// Included: shared/rss.wgsl, shared/sorted_codes.wgsl. Rust side:
// src/stages/adaptive/rss_bvh_gpu.rs (BuildParams, bindings); the
// state/dispatch slots are shared with shaders/adaptive.wgsl
// (tests/it/shader_layouts.rs checks the layout and the slots).

struct BuildParams {
    num_tris: u32,
    group_level: u32,
    large: u32,             // a node of at least this many triangles is large
    axis_approximation: u32,
    levels: u32,            // large levels recorded; the last sends all to small
    leaf: u32,              // a node of at most this many triangles is a leaf
    max_small_depth: u32,
    children: u32,          // first child slot: node i's split at order
                            // position m puts its children at
                            // children + 2m, children + 2m + 1
}

const NONE: u32 = 0xffffffffu;
const RSS_SLACK: f32 = 4e-6;
// state[] (shared with adaptive.wgsl)
const RSS_NODE_COUNT: u32 = 32u;
const GROUP_COUNT: u32 = 33u;
const ACTIVE: u32 = 34u;    // two counters: the active lists
const SMALL_COUNT: u32 = 36u;
const LEVEL: u32 = 37u;
// dispatch[] slots of 3 u32 (0..=10: octree depths)
const LARGE_ARGS: u32 = 11u;
const SMALL_ARGS: u32 = 12u;
const LARGE_WG: u32 = 128u;

@group(0) @binding(0) var<uniform> params: BuildParams;
// 3 corners per triangle slot (w unused).
@group(0) @binding(1) var<storage, read> tri_pos: array<vec4f>;
// Sorted Morton codes and the mesh triangle of each.
@group(0) @binding(2) var<storage, read> keys: array<u32>;
@group(0) @binding(3) var<storage, read> vals: array<u32>;
@group(0) @binding(4) var<storage, read> slot_of: array<u32>;
// [order (num_tris) | scratch for the stable partition (num_tris)]
@group(0) @binding(5) var<storage, read_write> order: array<u32>;
@group(0) @binding(6) var<storage, read_write> rss: array<RssNode>;
@group(0) @binding(7) var<storage, read_write> group_x: array<vec2f>;
// [active list 0 | active list 1 | small list], num_tris entries each
@group(0) @binding(8) var<storage, read_write> lists: array<u32>;
@group(0) @binding(9) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(10) var<storage, read_write> dispatch: array<u32>;

fn corner(slot: u32, k: u32) -> vec3f {
    return tri_pos[3u * slot + k].xyz;
}

fn centroid(slot: u32) -> vec3f {
    return (corner(slot, 0u) + corner(slot, 1u) + corner(slot, 2u)) * (1.0 / 3.0);
}

// symmetric_eigenvectors in src/geom/rss.rs: cyclic Jacobi, 6 sweeps.
fn symmetric_eigenvectors(m: array<array<f32, 3>, 3>) -> array<vec3f, 3> {
    var a = m;
    var v = array<array<f32, 3>, 3>(
        array<f32, 3>(1.0, 0.0, 0.0),
        array<f32, 3>(0.0, 1.0, 0.0),
        array<f32, 3>(0.0, 0.0, 1.0),
    );
    for (var sweep = 0u; sweep < 6u; sweep++) {
        for (var k = 0u; k < 3u; k++) {
            let p = select(1u, 0u, k < 2u);
            let q = select(2u, 1u, k == 0u);
            let apq = a[p][q];
            if (abs(apq) <= 1e-30) {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * apq);
            let sgn = select(-1.0, 1.0, theta >= 0.0);
            let t = sgn / (abs(theta) + sqrt(theta * theta + 1.0));
            let c = 1.0 / sqrt(t * t + 1.0);
            let s = t * c;
            for (var r = 0u; r < 3u; r++) {
                let akp = a[r][p];
                let akq = a[r][q];
                a[r][p] = c * akp - s * akq;
                a[r][q] = s * akp + c * akq;
            }
            for (var r = 0u; r < 3u; r++) {
                let apk = a[p][r];
                let aqk = a[q][r];
                a[p][r] = c * apk - s * aqk;
                a[q][r] = s * apk + c * aqk;
            }
            for (var r = 0u; r < 3u; r++) {
                let vp = v[r][p];
                let vq = v[r][q];
                v[r][p] = c * vp - s * vq;
                v[r][q] = s * vp + c * vq;
            }
        }
    }
    var out: array<vec3f, 3>;
    for (var k = 0u; k < 3u; k++) {
        let x = vec3f(v[0][k], v[1][k], v[2][k]);
        let l = length(x);
        var unit = vec3f(0.0);
        unit[k] = 1.0;
        out[k] = select(unit, x / l, l > 0.0 && l < 1e30);
    }
    return out;
}

// covariance_axes in src/geom/rss.rs, from sums of d, d*d and the cross
// terms (xy, xz, yz) over n corners.
fn axes_from_moments(s: vec3f, sq: vec3f, cr: vec3f, n: f32) -> array<vec3f, 3> {
    let m = s / max(n, 1.0);
    let c = sq / max(n, 1.0) - m * m;
    let o = cr / max(n, 1.0) - vec3f(m.x * m.y, m.x * m.z, m.y * m.z);
    return symmetric_eigenvectors(array<array<f32, 3>, 3>(
        array<f32, 3>(c.x, o.x, o.y),
        array<f32, 3>(o.x, c.y, o.z),
        array<f32, 3>(o.y, o.z, c.z),
    ));
}

fn project3(d: vec3f, axes: array<vec3f, 3>) -> vec3f {
    return vec3f(dot(d, axes[0]), dot(d, axes[1]), dot(d, axes[2]));
}

// Sums of d, d*d and (xy, xz, yz) over the corners of order[i] for
// i = start, start + step, ... < end; d relative to `origin`.
struct Moments {
    s: vec3f,
    sq: vec3f,
    cr: vec3f,
}

fn moments(start: u32, end: u32, step: u32, origin: vec3f) -> Moments {
    var m = Moments(vec3f(0.0), vec3f(0.0), vec3f(0.0));
    for (var i = start; i < end; i += step) {
        let slot = order[i];
        for (var c = 0u; c < 3u; c++) {
            let d = corner(slot, c) - origin;
            m.s += d;
            m.sq += d * d;
            m.cr += vec3f(d.x * d.y, d.x * d.z, d.y * d.z);
        }
    }
    return m;
}

// Extents of the corners (lo, hi) and of the centroids (clo, chi) along
// `axes`, over the same strided range.
struct Extents {
    lo: vec3f,
    hi: vec3f,
    clo: vec3f,
    chi: vec3f,
}

fn extents(start: u32, end: u32, step: u32, origin: vec3f, axes: array<vec3f, 3>) -> Extents {
    var e = Extents(vec3f(3.4e38), vec3f(-3.4e38), vec3f(3.4e38), vec3f(-3.4e38));
    for (var i = start; i < end; i += step) {
        let slot = order[i];
        for (var c = 0u; c < 3u; c++) {
            let x = project3(corner(slot, c) - origin, axes);
            e.lo = min(e.lo, x);
            e.hi = max(e.hi, x);
        }
        let x = project3(centroid(slot) - origin, axes);
        e.clo = min(e.clo, x);
        e.chi = max(e.chi, x);
    }
    return e;
}

// A fitted node: rss_from_extents in src/geom/rss.rs and the split of
// fit in src/stages/adaptive/rss_bvh.rs.
struct Fit {
    node: RssNode,
    split_axis: vec3f,
    split: f32,
}

fn fit_from_extents(
    origin: vec3f,
    given_axes: array<vec3f, 3>,
    lo: vec3f,
    hi: vec3f,
    clo: vec3f,
    chi: vec3f,
    first: u32,
    count: u32,
) -> Fit {
    var axes = given_axes; // indexed at run time below
    let size = hi - lo;
    var normal = 2u;
    if (size.x <= size.y && size.x <= size.z) {
        normal = 0u;
    } else if (size.y <= size.z) {
        normal = 1u;
    }
    let a = (normal + 1u) % 3u;
    let b = (normal + 2u) % 3u;
    let mid = 0.5 * (lo + hi);
    let center = origin + mid.x * axes[0] + mid.y * axes[1] + mid.z * axes[2];
    let c = abs(center);
    let slack = RSS_SLACK * (max(max(size.x, size.y), size.z) + max(max(c.x, c.y), c.z));
    var s = 2u;
    if (size.x >= size.y && size.x >= size.z) {
        s = 0u;
    } else if (size.y >= size.z) {
        s = 1u;
    }
    let node = RssNode(center, 0.5 * size[normal] + slack, axes[a], 0.5 * size[a] + slack,
                       axes[b], 0.5 * size[b] + slack, first, count, NONE, 0u);
    return Fit(node, axes[s], 0.5 * (clo[s] + chi[s]));
}

fn goes_left(f: Fit, origin: vec3f, slot: u32) -> bool {
    return dot(centroid(slot) - origin, f.split_axis) < f.split;
}

// A node of order[first .. first + count], not fitted yet, no children.
fn range_node(first: u32, count: u32) -> RssNode {
    return RssNode(vec3f(0.0), 0.0, vec3f(0.0), 0.0, vec3f(0.0), 0.0, first, count, NONE, 0u);
}


// A new node of the range goes on to the next large level or to the small
// list.
fn classify(node: u32, count: u32, last_level: bool, next_list: u32) {
    if (count >= params.large && !last_level) {
        let k = atomicAdd(&state[ACTIVE + next_list], 1u);
        lists[next_list * params.num_tris + k] = node;
    } else {
        let k = atomicAdd(&state[SMALL_COUNT], 1u);
        lists[2u * params.num_tris + k] = node;
    }
}

@compute @workgroup_size(64)
fn init_order(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let i = flat_index(wid, nwg, lid);
    if (i < params.num_tris) {
        order[i] = slot_of[vals[i]];
    }
}

var<workgroup> wg_scan: array<u32, 256>;

// Inclusive scan of wg_scan[0..n] (Hillis–Steele); every invocation calls it.
fn scan_workgroup(lid: u32, n: u32) {
    for (var stride = 1u; stride < n; stride *= 2u) {
        var add = 0u;
        if (lid >= stride && lid < n) {
            add = wg_scan[lid - stride];
        }
        workgroupBarrier();
        if (lid < n) {
            wg_scan[lid] += add;
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(256)
fn groups(@builtin(local_invocation_index) lid: u32) {
    let cells = 1u << (3u * params.group_level);
    var total = 0u;
    for (var base = 0u; base < cells; base += 256u) {
        let cell = base + lid;
        var first = 0u;
        var count = 0u;
        if (cell < cells) {
            first = lower_bound(cell, params.group_level);
            count = lower_bound(cell + 1u, params.group_level) - first;
        }
        wg_scan[lid] = select(0u, 1u, count > 0u);
        workgroupBarrier();
        scan_workgroup(lid, 256u);
        let g = total + wg_scan[lid] - 1u;
        if (count > 0u) {
            rss[g] = range_node(first, count);
            classify(g, count, params.levels == 0u, 0u);
        }
        total += wg_scan[255];
        workgroupBarrier();
    }
    storageBarrier();
    if (lid == 0u) {
        atomicStore(&state[RSS_NODE_COUNT], total);
        atomicStore(&state[GROUP_COUNT], total);
        write_args(LARGE_ARGS, atomicLoad(&state[ACTIVE]));
        write_args(SMALL_ARGS, (atomicLoad(&state[SMALL_COUNT]) + 63u) / 64u);
    }
}

var<workgroup> wg_node: u32;
var<workgroup> wg_range: vec2u;
var<workgroup> wg_n_left: u32;
var<workgroup> wg_axes: array<vec3f, 3>;
var<workgroup> wg_fit: Fit;
var<workgroup> red_a: array<vec3f, LARGE_WG>;
var<workgroup> red_b: array<vec3f, LARGE_WG>;
var<workgroup> red_c: array<vec3f, LARGE_WG>;
var<workgroup> red_d: array<vec3f, LARGE_WG>;

// Tree reduction of red_a..red_d: sums (min_max false) or min of a, c and
// max of b, d.
fn reduce(lid: u32, min_max: bool) {
    for (var stride = LARGE_WG / 2u; stride > 0u; stride /= 2u) {
        if (lid < stride) {
            let o = lid + stride;
            if (min_max) {
                red_a[lid] = min(red_a[lid], red_a[o]);
                red_b[lid] = max(red_b[lid], red_b[o]);
                red_c[lid] = min(red_c[lid], red_c[o]);
                red_d[lid] = max(red_d[lid], red_d[o]);
            } else {
                red_a[lid] += red_a[o];
                red_b[lid] += red_b[o];
                red_c[lid] += red_c[o];
            }
        }
        workgroupBarrier();
    }
}

// The slots of the two children of a node split at order position m
// (first + n_left): every split position belongs to one node, so the pairs
// never collide and lie in Morton order like the triangles — a node's
// neighbours in space are its neighbours in memory, whichever phase or level
// made them. Counted for the memory report.
fn child_slot(m: u32) -> u32 {
    atomicAdd(&state[RSS_NODE_COUNT], 2u);
    return params.children + 2u * m;
}

@compute @workgroup_size(128)
fn large_split(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let level = atomicLoad(&state[LEVEL]);
    let cur = level & 1u;
    let k = wid.y * nwg.x + wid.x;
    if (lid == 0u) {
        wg_node = NONE;
        if (k < atomicLoad(&state[ACTIVE + cur])) {
            wg_node = lists[cur * params.num_tris + k];
            wg_range = vec2u(rss[wg_node].first, rss[wg_node].count);
        }
    }
    let node_index = workgroupUniformLoad(&wg_node);
    if (node_index == NONE) {
        return;
    }
    // Uniform copies: the chunked scatter below loops with barriers.
    let range = workgroupUniformLoad(&wg_range);
    let first = range.x;
    let count = range.y;
    let end = first + count;
    let origin = corner(order[first], 0u);

    // Covariance of the corners (relative to the first one).
    let m = moments(first + lid, end, LARGE_WG, origin);
    red_a[lid] = m.s;
    red_b[lid] = m.sq;
    red_c[lid] = m.cr;
    workgroupBarrier();
    reduce(lid, false);
    if (lid == 0u) {
        wg_axes = axes_from_moments(red_a[0], red_b[0], red_c[0], 3.0 * f32(count));
    }
    let axes = workgroupUniformLoad(&wg_axes);

    // Extents of the corners and of the centroids along the axes.
    let e = extents(first + lid, end, LARGE_WG, origin, axes);
    red_a[lid] = e.lo;
    red_b[lid] = e.hi;
    red_c[lid] = e.clo;
    red_d[lid] = e.chi;
    workgroupBarrier();
    reduce(lid, true);
    if (lid == 0u) {
        wg_fit = fit_from_extents(origin, axes, red_a[0], red_b[0], red_c[0], red_d[0], first, count);
    }
    let f = workgroupUniformLoad(&wg_fit);

    // Split at the spatial median by a stable partition: each invocation
    // counts the lefts of its own contiguous piece of the range, one scan
    // gives every piece its place, and the pieces are scattered through the
    // scratch half of `order` and copied back.
    let piece = (count + LARGE_WG - 1u) / LARGE_WG;
    let p0 = min(first + lid * piece, end);
    let p1 = min(p0 + piece, end);
    var lefts = 0u;
    for (var i = p0; i < p1; i++) {
        lefts += select(0u, 1u, goes_left(f, origin, order[i]));
    }
    wg_scan[lid] = lefts;
    workgroupBarrier();
    scan_workgroup(lid, LARGE_WG);
    if (lid == 0u) {
        wg_n_left = wg_scan[LARGE_WG - 1u];
    }
    var n_left = workgroupUniformLoad(&wg_n_left);
    if (n_left == 0u || n_left == count) {
        n_left = count / 2u;
    } else {
        var to_left = first + wg_scan[lid] - lefts;
        var to_right = first + n_left + (p0 - first) - (wg_scan[lid] - lefts);
        for (var i = p0; i < p1; i++) {
            let slot = order[i];
            if (goes_left(f, origin, slot)) {
                order[params.num_tris + to_left] = slot;
                to_left += 1u;
            } else {
                order[params.num_tris + to_right] = slot;
                to_right += 1u;
            }
        }
        storageBarrier();
        for (var i = first + lid; i < end; i += LARGE_WG) {
            order[i] = order[params.num_tris + i];
        }
    }
    if (lid == 0u) {
        let child = child_slot(first + n_left);
        var n = f.node;
        n.left = child;
        rss[node_index] = n;
        if (node_index < atomicLoad(&state[GROUP_COUNT])) {
            group_x[node_index] = rss_x_interval(n);
        }
        rss[child] = range_node(first, n_left);
        rss[child + 1u] = range_node(first + n_left, count - n_left);
        let last = level + 1u >= params.levels;
        classify(child, n_left, last, 1u - cur);
        classify(child + 1u, count - n_left, last, 1u - cur);
    }
}

@compute @workgroup_size(1)
fn large_next() {
    let level = atomicLoad(&state[LEVEL]);
    let cur = level & 1u;
    atomicStore(&state[ACTIVE + cur], 0u);
    atomicStore(&state[LEVEL], level + 1u);
    write_args(LARGE_ARGS, atomicLoad(&state[ACTIVE + 1u - cur]));
    write_args(SMALL_ARGS, (atomicLoad(&state[SMALL_COUNT]) + 63u) / 64u);
}

@compute @workgroup_size(64)
fn small_nodes(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let k = flat_index(wid, nwg, lid);
    if (k >= atomicLoad(&state[SMALL_COUNT])) {
        return;
    }
    let root = lists[2u * params.num_tris + k];

    var stack_node: array<u32, 32>;
    var stack_depth: array<u32, 32>;
    stack_node[0] = root;
    stack_depth[0] = 0u;
    var sp = 1u;
    var have_axes = false;
    var root_axes: array<vec3f, 3>;
    while (sp > 0u) {
        sp -= 1u;
        let i = stack_node[sp];
        let depth = stack_depth[sp];
        let n = rss[i];
        let end = n.first + n.count;
        let origin = corner(order[n.first], 0u);
        var axes = root_axes;
        if (!have_axes) {
            let m = moments(n.first, end, 1u, origin);
            axes = axes_from_moments(m.s, m.sq, m.cr, 3.0 * f32(n.count));
            if (params.axis_approximation == 1u) {
                root_axes = axes;
                have_axes = true;
            }
        }
        let e = extents(n.first, end, 1u, origin, axes);
        let f = fit_from_extents(origin, axes, e.lo, e.hi, e.clo, e.chi, n.first, n.count);
        var out = f.node;
        if (n.count > params.leaf && depth < params.max_small_depth) {
            // In-place partition with two cursors, as build_small.
            var lo = n.first;
            var hi = n.first + n.count;
            while (lo < hi) {
                let slot = order[lo];
                if (goes_left(f, origin, slot)) {
                    lo += 1u;
                } else {
                    hi -= 1u;
                    order[lo] = order[hi];
                    order[hi] = slot;
                }
            }
            var n_left = lo - n.first;
            if (n_left == 0u || n_left == n.count) {
                n_left = n.count / 2u;
            }
            let child = child_slot(n.first + n_left);
            out.left = child;
            rss[child] = range_node(n.first, n_left);
            rss[child + 1u] = range_node(n.first + n_left, n.count - n_left);
            stack_node[sp] = child + 1u;
            stack_depth[sp] = depth + 1u;
            stack_node[sp + 1u] = child;
            stack_depth[sp + 1u] = depth + 1u;
            sp += 2u;
        }
        rss[i] = out;
        if (i < atomicLoad(&state[GROUP_COUNT])) {
            group_x[i] = rss_x_interval(out);
        }
    }
}
