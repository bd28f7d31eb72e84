//!include shared/bvh_bounds.wgsl
//!include shared/winding.wgsl

// The winding-number sign of the uniform SDF on the GPU, first passes: the
// mesh M closed by its cap C (src/geom/cap.rs) is a closed cycle Z, so
// w_M = W_Z − w_C with W_Z an integer crossing count
// (src/stages/sdf/winding_cap_gpu.rs derives it).
//
// Entry points:
//   cap_crossings  one invocation per triangle of M and C: for each grid
//                  column whose centre its xy-projection covers, its sign
//                  added at the first cell above its crossing
//   cap_prefix     one workgroup per 8 columns, 8 segments of each a
//                  invocation: the running sums along z
//   cap_bricks     one invocation per brick of 4³ cells: whether the cheap
//                  bound on |w_C| (cap_bound) is below ½ at every cell of
//                  the brick at once (src/geom/cap.rs, cap_brick_bound)
//   cap_sign       one invocation per cell: W_Z alone where its brick's
//                  bound, or else its own, is below ½; the others (near
//                  the cap, about 2% of an open scan's cells) are listed in
//                  `walk_list`
//   cap_walk       one invocation per listed cell (looping over the
//                  list): W_Z − w_C, w_C by the fast winding walk of the
//                  cap's tree with its bound. Listed first and walked
//                  densely, so that a warp's walks are all busy instead
//                  of one walking cell in 32 holding the warp.
//   cap_exact      (sdf_winding_cap_f64.wgsl) one workgroup per cell the
//                  walk left open: w_C by the exact sum over the cap in f64.
// The cells cap_sign and cap_walk cannot decide go to `undecided` for
// the refining passes (shared/winding_refine.wgsl).
//
// Most of those are cap_walk's: not ambiguous, not near M, so W_Z is exact
// and only w_C's bound straddles ½. Summing w_C over all the cap's
// triangles in float32 instead of walking (winding_triangle's float32
// bounds, the sum's rounding counted) decides almost none of them: each
// float32 term's bound is dominated by WGSL's atan2 allowance (4096 ULP, 1e-3 of |Ωᵢ|, about
// 5e-4 in w), while the refining β = 12 walk's f64 leaves
// (shared/winding_f64_leaf.wgsl) decide them. Deciding them here needs
// f64 leaves (or an atan-free side test) in this pass.
//
// The coverage test is watertight: each edge function is evaluated with
// the corners moved into the column's frame (u = corner − q, rounded once
// per corner, the same for every triangle sharing it) and the edge's ends
// in lexicographic order, negated for the reverse. Where its two products
// are exact (few significant bits: meshes on a lattice) it is exact, with
// the tie rule of a column moved by (ε, ε²) for a column exactly through
// an edge or vertex; elsewhere it is decided only where it exceeds its
// rounding. So the decided sides are the exact sides for the corners u,
// and the count is the exact crossing count of the cycle Z' with those
// corners. A column within rounding (not exactly on) of a projected edge
// or vertex marks the cells from the triangle's lowest corner up as
// ambiguous; a cell centre within rounding
// of a crossing is ambiguous too. Z' differs from Z by the corners'
// rounding, so a cell farther than `near` from M (its distance, computed
// before) has the same W; nearer cells, ambiguous cells and cells the
// cap's bound leaves open go to `undecided`.
//
// Included by the modules sdf_winding_cap.wgsl (devices without f64: a
// cell the cap walk leaves open goes to the refining passes) and
// sdf_winding_cap_f64.wgsl (devices with f64: such a cell gets the cap's
// exact sum in f64 first, in a pass of its own), which define winding_leaf
// and
//   fn cap_walk_open(cell: u32)   what becomes of a cell the walk leaves
//                                 open.
//
// Rust side: src/stages/sdf/winding_cap_gpu.rs (CapParams, bindings;
// checked by tests/it/shader_layouts.rs).

struct CapParams {
    origin: vec3f,      // world centre of cell (0,0,0), as sdf.wgsl's
    cell_size: f32,
    dims: vec3u,
    capacity: u32,      // entries of `undecided` after its two counts
    frame: vec3f,       // world position of the corners' frame origin
    slack: f32,         // rounding of a world cell centre
    mesh_tris: u32,     // triangles in mesh_tris
    cap_tris: u32,      // triangles in winding_tris (the cap)
    near: f32,          // cells nearer M than this are left undecided
    beta: f32,          // the cap walk's β
}

@group(0) @binding(0) var<uniform> cparams: CapParams;
// The cap's winding tree and corners (shared/winding.wgsl's names).
@group(0) @binding(1) var<storage, read> winding_nodes: array<WindingNode>;
@group(0) @binding(2) var<storage, read> winding_tris: array<vec4f>;
// The mesh's corners, 3 per triangle, in the same frame.
@group(0) @binding(3) var<storage, read> mesh_tris: array<vec4f>;
// The distance kernels' values; cap_sign signs them.
@group(0) @binding(4) var<storage, read_write> values: array<f32>;
// Per cell: crossings added at it, then (cap_prefix) W_Z.
@group(0) @binding(5) var<storage, read_write> crossings: array<atomic<i32>>;
// Per cell: ambiguity opened (+1) and closed (−1) at it, then the running
// count: > 0 where ambiguous.
@group(0) @binding(6) var<storage, read_write> ambiguous: array<atomic<i32>>;
// [0]: number of undecided cells; [1..]: the first `capacity` of them
// (the refining passes' list).
@group(0) @binding(7) var<storage, read_write> undecided: array<atomic<u32>>;
// [0]: cells whose sign needs the cap's tree walk (the bound below did
// not decide them); [1..]: those cells (room for every cell).
@group(0) @binding(8) var<storage, read_write> walk_list: array<atomic<u32>>;
// Per brick of CAP_BRICK³ cells (x fastest): 1 where cap_bricks bounded
// |w_C| below ½ at all its cells, 0 where each cell needs its own bound.
@group(0) @binding(9) var<storage, read_write> bricks: array<u32>;
// [0]: cells the cap walk left open for the cap's exact sum (the f64
// module's cap_exact); [1..]: the first CAP_RETRY_CAPACITY of them.
@group(0) @binding(10) var<storage, read_write> retry: array<atomic<u32>>;

// Relative rounding of a product and of a difference of two, with room for
// a fused multiply-add (2^-23 is float32's ulp of 1).
const CAP_ROUND: f32 = 4.8e-7;

fn corner(t: u32, k: u32) -> vec3f {
    if (t < cparams.mesh_tris) {
        return mesh_tris[3u * t + k].xyz;
    }
    return winding_tris[3u * (t - cparams.mesh_tris) + k].xyz;
}

// Whether the float32 product x·y is exact: both factors' significant
// bits (24 less the significand's trailing zeros; a subnormal counts too
// many) fit in 24, and the product is a normal number.
fn product_exact(x: f32, y: f32) -> bool {
    if (x == 0.0 || y == 0.0) {
        return true;
    }
    let bits = countTrailingZeros((bitcast<u32>(x) & 0x7fffffu) | 0x800000u)
        + countTrailingZeros((bitcast<u32>(y) & 0x7fffffu) | 0x800000u);
    let p = abs(x * y);
    return bits >= 24u && p >= 1.1754944e-38 && p <= 3.4e38;
}

// The side of the origin of the projected edge u→v: 1 left, −1 right, 0
// within rounding, FLAT where u and v project to one point (the triangle
// has no projected area). The ends in lexicographic order, so that an edge
// and its reverse compute the same products. Where both products are
// exact the comparison is exact, and an exact tie (the origin on the
// edge's line; also a float tie of the same two magnitudes) is decided as
// if the origin were moved by (ε, ε²):
// u × v − ε d.y + ε² d.x, d = v − u.
const FLAT: i32 = 2;
fn edge_side(u: vec2f, v: vec2f) -> i32 {
    let swap = v.x < u.x || (v.x == u.x && v.y < u.y);
    let s = select(u, v, swap);
    let e = select(v, u, swap);
    if (all(s == e)) {
        return FLAT;
    }
    let p1 = s.x * e.y;
    let p2 = s.y * e.x;
    var side = 0;
    // The products' magnitudes are of the same two numbers (a column on a
    // diagonal of a mesh on a lattice, the grid symmetric): a float tie is
    // an exact one.
    let same = (abs(s.x) == abs(s.y) && abs(e.x) == abs(e.y))
        || (abs(s.x) == abs(e.x) && abs(s.y) == abs(e.y));
    if ((product_exact(s.x, e.y) && product_exact(s.y, e.x)) || (same && p1 == p2)) {
        if (p1 != p2) {
            side = select(-1, 1, p1 > p2);
        } else if (e.y != s.y) {
            side = select(-1, 1, e.y < s.y);
        } else {
            side = select(-1, 1, e.x > s.x);
        }
    } else {
        let tol = CAP_ROUND * (abs(p1) + abs(p2));
        if (p1 - p2 > tol) {
            side = 1;
        } else if (p2 - p1 > tol) {
            side = -1;
        }
    }
    return select(side, -side, swap);
}

// The cell coordinate (in cells, along z) of frame height z.
fn cell_z(z: f32) -> f32 {
    return (z - (cparams.origin.z - cparams.frame.z)) / cparams.cell_size;
}

fn column_cell(i: u32, j: u32, k: i32) -> u32 {
    let dims = cparams.dims;
    return i + dims.x * (j + dims.y * u32(k));
}

@compute @workgroup_size(64)
fn cap_crossings(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let t = (wid.y * nwg.x + wid.x) * 64u + lid;
    if (t >= cparams.mesh_tris + cparams.cap_tris) {
        return;
    }
    let a = corner(t, 0u);
    let b = corner(t, 1u);
    let c = corner(t, 2u);
    let h = cparams.cell_size;
    let dims = cparams.dims;
    let base = cparams.origin.xy - cparams.frame.xy;
    // The columns near the projection's bounds (one more each side for
    // rounding); the test below decides.
    let top = vec2f(dims.xy) - 1.0;
    let lo = clamp(floor((min(min(a.xy, b.xy), c.xy) - base) / h) - 1.0, vec2f(0.0), top);
    let hi = clamp(ceil((max(max(a.xy, b.xy), c.xy) - base) / h) + 1.0, vec2f(0.0), top);
    let zmin = min(min(a.z, b.z), c.z);
    let zmax = max(max(a.z, b.z), c.z);
    let zabs = max(max(abs(a.z), abs(b.z)), abs(c.z));
    let nz = i32(dims.z);
    let last = f32(nz) + 1.0;
    for (var j = u32(lo.y); j <= u32(hi.y); j++) {
        for (var i = u32(lo.x); i <= u32(hi.x); i++) {
            // The column's centre as every triangle computes it.
            let q = (cparams.origin.xy + vec2f(f32(i), f32(j)) * h) - cparams.frame.xy;
            let ua = a.xy - q;
            let ub = b.xy - q;
            let uc = c.xy - q;
            // The column outside the box of the corners u (all strictly on
            // one side along x or y): the triangle u does not reach it,
            // whatever the tie rule, so it crosses nothing here — exactly,
            // and without the edge functions (most columns of a small
            // triangle's window; flagging them as ambiguous would be
            // needless too).
            if (any(min(min(ua, ub), uc) > vec2f(0.0)) || any(max(max(ua, ub), uc) < vec2f(0.0))) {
                continue;
            }
            let s0 = edge_side(ua, ub);
            let s1 = edge_side(ub, uc);
            let s2 = edge_side(uc, ua);
            if (s0 == FLAT || s1 == FLAT || s2 == FLAT) {
                // No projected area in this column's frame: crossed by
                // no column there.
                continue;
            }
            let pos = s0 > 0 || s1 > 0 || s2 > 0;
            let neg = s0 < 0 || s1 < 0 || s2 < 0;
            if (pos && neg) {
                continue;
            }
            if (s0 == 0 || s1 == 0 || s2 == 0) {
                // Counted or not: ambiguous from the lowest corner up.
                let k = i32(clamp(floor(cell_z(zmin) - 1.0), 0.0, last));
                if (k < nz) {
                    atomicAdd(&ambiguous[column_cell(i, j, k)], 1);
                }
                continue;
            }
            // The crossing's height from the barycentric weights (all of
            // one sign), and its rounding: each weight is off by CAP_ROUND
            // of its products' magnitudes.
            let la = ub.x * uc.y - ub.y * uc.x;
            let lb = uc.x * ua.y - uc.y * ua.x;
            let lc = ua.x * ub.y - ua.y * ub.x;
            let sum = la + lb + lc;
            let z = a.z + (lb * (b.z - a.z) + lc * (c.z - a.z)) / sum;
            let err_l = abs(ub.x * uc.y) + abs(ub.y * uc.x) + abs(uc.x * ua.y) + abs(uc.y * ua.x)
                + abs(ua.x * ub.y) + abs(ua.y * ub.x);
            let tol = 4.0 * CAP_ROUND * err_l / abs(sum) * (zmax - zmin)
                + 8.0 * CAP_ROUND * zabs + 2.0 * cparams.slack;
            let tc = cell_z(z);
            let tau = tol / h + 4.0 * CAP_ROUND * (abs(tc) + 1.0);
            let k_lo = i32(clamp(ceil(tc - tau), -1.0, last));
            let k_hi = i32(clamp(floor(tc + tau), -1.0, last));
            // Cells above k_hi are above the crossing: +1 where the normal
            // points down (clockwise seen from above), the ray from the
            // cell going down through it.
            let k0 = max(k_hi + 1, 0);
            if (k0 < nz) {
                atomicAdd(&crossings[column_cell(i, j, k0)], -s0);
            }
            if (k_lo <= k_hi) {
                let first = max(k_lo, 0);
                if (first < nz) {
                    atomicAdd(&ambiguous[column_cell(i, j, first)], 1);
                }
                if (k0 < nz) {
                    atomicAdd(&ambiguous[column_cell(i, j, k0)], -1);
                }
            }
        }
    }
}

// Columns of a cap_prefix workgroup (adjacent: their cells share memory
// sectors), each cut into 64 / PREFIX_COLUMNS segments along z.
const PREFIX_COLUMNS: u32 = 8u;
const PREFIX_SEGMENTS: u32 = 8u;

var<workgroup> prefix_parts: array<vec2i, 64>;

// The running sums along z of PREFIX_COLUMNS columns: each invocation sums
// its segment of a column, the segments below it are added from workgroup
// memory, and it walks its segment again writing the running sums (two
// walks of an eighth of a column each: a quarter of the sequential steps
// of one invocation per column).
// Integer sums: exact in any order.
@compute @workgroup_size(64)
fn cap_prefix(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let dims = cparams.dims;
    let layer = dims.x * dims.y;
    let lane = lid % PREFIX_COLUMNS;
    let segment = lid / PREFIX_COLUMNS;
    let column = (wid.y * nwg.x + wid.x) * PREFIX_COLUMNS + lane;
    let span = (dims.z + PREFIX_SEGMENTS - 1u) / PREFIX_SEGMENTS;
    let first = min(segment * span, dims.z);
    let end = select(first, min(first + span, dims.z), column < layer);
    var part = vec2i(0);
    for (var k = first; k < end; k++) {
        let cell = column + k * layer;
        part += vec2i(atomicLoad(&crossings[cell]), atomicLoad(&ambiguous[cell]));
    }
    prefix_parts[lid] = part;
    workgroupBarrier();
    var running = vec2i(0);
    for (var below = 0u; below < segment; below++) {
        running += prefix_parts[lane + below * PREFIX_COLUMNS];
    }
    for (var k = first; k < end; k++) {
        let cell = column + k * layer;
        running += vec2i(atomicLoad(&crossings[cell]), atomicLoad(&ambiguous[cell]));
        atomicStore(&crossings[cell], running.x);
        atomicStore(&ambiguous[cell], running.y);
    }
}

// The cap bound's budget in solid angle: 2π (|w_C| = ½) less room for the
// float32 rounding of its sum (a few hundred positive terms, each off by
// an ulp).
const CAP_BUDGET: f32 = 6.2769;
// A node's bound is taken whole when it is at most this share of the
// budget; larger ones are opened.
const CAP_NODE_SHARE: f32 = 0.125;

// The area bound of a ball of triangles: every point x of total
// (unsigned) area `area` lies within `radius` of `centre`, so
// |Ω| ≤ ∫ |n·(x − p)|/|x − p|³ dA ≤ area / (|centre − p| − radius)²,
// whatever the triangles' orientation or folding. With p off by s
// and the evaluation's rounding; WINDING_HUGE where p may be in the ball.
fn cap_ball_bound(centre: vec3f, radius: f32, area: f32, p: vec3f, s: f32) -> f32 {
    let gap = length(centre - p) * (1.0 - WINDING_EVAL) - s - radius;
    if (!(gap > 0.0)) {
        return WINDING_HUGE;
    }
    return area / (gap * gap) * (1.0 + WINDING_EVAL);
}

// An upper bound on |Ω_C(p)|, the cap's solid angle at p (src/geom/cap.rs,
// cap_solid_angle_bound, is its CPU twin and derives it): the cap's tree
// walked with cap_ball_bound for every node whose bound is a small share
// of the budget, opened otherwise, a leaf's triangles each bounded by the
// smaller of its own ball bound and 2π (a plane triangle is seen within a
// half sphere). Stops as soon as the sum reaches CAP_BUDGET: the returned
// value is then no bound, only "at least the budget".
fn cap_bound(p: vec3f, slack: f32) -> f32 {
    var sum = 0.0;
    var stack: array<u32, WINDING_STACK>;
    stack[0] = 0u;
    var sp = 1u;
    while (sp > 0u && sum < CAP_BUDGET) {
        sp -= 1u;
        let n = winding_nodes[stack[sp]];
        let s = slack + WINDING_EPS * (length(n.centroid) + length(p));
        let whole = cap_ball_bound(n.centroid, n.radius, n.area, p, s);
        if (whole <= CAP_NODE_SHARE * CAP_BUDGET) {
            sum += whole;
        } else if ((n.b & LEAF_BIT) != 0u) {
            let end = n.a + (n.b & ~LEAF_BIT);
            for (var t = n.a; t < end; t++) {
                let a = winding_tris[3u * t].xyz;
                let b = winding_tris[3u * t + 1u].xyz;
                let c = winding_tris[3u * t + 2u].xyz;
                let m = (a + b + c) / 3.0;
                // Grown by the centre's rounding, as the packed nodes' radii.
                let r = max(max(length(a - m), length(b - m)), length(c - m)) * (1.0 + WINDING_EVAL)
                    + WINDING_EPS * length(m);
                // The cross product's cancellation is at most a few ulps
                // of |u||v|.
                let u = b - a;
                let v = c - a;
                let area = 0.5 * (length(cross(u, v)) + WINDING_EVAL * length(u) * length(v));
                sum += min(cap_ball_bound(m, r, area, p, s), 0.5 * WINDING_FOUR_PI);
            }
        } else if (sp + 2u <= WINDING_STACK) {
            stack[sp] = n.a;
            stack[sp + 1u] = n.b;
            sp += 2u;
        } else {
            return WINDING_HUGE;
        }
    }
    return sum;
}

fn cell_ijk(cell: u32) -> vec3u {
    let dims = cparams.dims;
    return vec3u(cell % dims.x, (cell / dims.x) % dims.y, cell / (dims.x * dims.y));
}

// The centre of the cell at `ijk` as the refining passes', in the corners'
// frame.
fn ijk_point(ijk: vec3u) -> vec3f {
    return (cparams.origin + vec3f(ijk) * cparams.cell_size) - cparams.frame;
}

fn cell_point(cell: u32) -> vec3f {
    return ijk_point(cell_ijk(cell));
}

// Cells a brick side.
const CAP_BRICK: u32 = 4u;

fn brick_dims() -> vec3u {
    return (cparams.dims + CAP_BRICK - 1u) / CAP_BRICK;
}

// The brick of the cell at `ijk`.
fn brick_of(ijk: vec3u) -> u32 {
    let bd = brick_dims();
    let b = ijk / CAP_BRICK;
    return b.x + bd.x * (b.y + bd.y * b.z);
}

// One cap_bound for a whole brick (src/geom/cap.rs, cap_brick_bound, is
// its CPU twin and proves it): the computed cell centres are monotone in
// each index, so they all lie in the box of the brick's first and last
// ones, within the ball around its midpoint of half its diagonal (grown
// by its rounding and the midpoint's); cap_bound's ball bounds hold for
// every point within its slack of the midpoint, so grown by that radius
// the walk bounds |Ω_C| within the original slack of every cell centre.
@compute @workgroup_size(64)
fn cap_bricks(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let bd = brick_dims();
    let brick = (wid.y * nwg.x + wid.x) * 64u + lid;
    if (brick >= bd.x * bd.y * bd.z) {
        return;
    }
    let lo = vec3u(brick % bd.x, (brick / bd.x) % bd.y, brick / (bd.x * bd.y)) * CAP_BRICK;
    let hi = min(lo + CAP_BRICK - 1u, cparams.dims - 1u);
    let first = ijk_point(lo);
    let last = ijk_point(hi);
    let centre = 0.5 * (first + last);
    let radius = 0.5 * length(last - first) * (1.0 + WINDING_EVAL)
        + WINDING_EPS * (length(first) + length(last));
    bricks[brick] = select(0u, 1u, cap_bound(centre, cparams.slack + radius) < CAP_BUDGET);
}

// Lists `cell` for the refining passes.
fn leave_open(cell: u32) {
    let k = atomicAdd(&undecided[0], 1u);
    if (k < cparams.capacity) {
        atomicStore(&undecided[1u + k], cell);
    }
}

@compute @workgroup_size(64)
fn cap_sign(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let dims = cparams.dims;
    let cell = (wid.y * nwg.x + wid.x) * 64u + lid;
    if (cell >= dims.x * dims.y * dims.z) {
        return;
    }
    let v = values[cell];
    if (atomicLoad(&ambiguous[cell]) != 0 || !(abs(v) > cparams.near)) {
        leave_open(cell);
        return;
    }
    // |w_C| < ½ by the brick's bound or the cell's own: W_Z alone decides
    // (W_Z = 0 gives |w| < ½, |W_Z| ≥ 1 gives |w| > 1 − ½).
    let ijk = cell_ijk(cell);
    if (cparams.cap_tris > 0u && bricks[brick_of(ijk)] == 0u
        && !(cap_bound(ijk_point(ijk), cparams.slack) < CAP_BUDGET)) {
        let k = atomicAdd(&walk_list[0], 1u);
        atomicStore(&walk_list[1u + k], cell);
        return;
    }
    values[cell] = select(abs(v), -abs(v), atomicLoad(&crossings[cell]) != 0);
}

@compute @workgroup_size(64)
fn cap_walk(
    @builtin(global_invocation_id) gid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
) {
    let count = atomicLoad(&walk_list[0]);
    let threads = nwg.x * nwg.y * 64u;
    for (var k = gid.y * nwg.x * 64u + gid.x; k < count; k += threads) {
        let cell = atomicLoad(&walk_list[1u + k]);
        let omega = winding_subtree(0u, cell_point(cell), cparams.slack, cparams.beta, WINDING_NO_CELL);
        if (!cap_decide(cell, omega)) {
            cap_walk_open(cell);
        }
    }
}

// Signs `cell` by w = W_Z − w_C, from its crossing count and the cap's
// solid angle `omega` (Ω_C, its bound), where ||w| − ½| exceeds the bound
// on its error; returns whether it did.
fn cap_decide(cell: u32, omega: vec2f) -> bool {
    let crossed = f32(atomicLoad(&crossings[cell]));
    let w = crossed - omega.x / WINDING_FOUR_PI;
    let bound = omega.y / WINDING_FOUR_PI + WINDING_EPS * (abs(crossed) + 1.0);
    let margin = abs(w) - 0.5;
    if (!(abs(margin) > bound)) {
        return false;
    }
    let v = values[cell];
    values[cell] = select(abs(v), -abs(v), margin > 0.0);
    return true;
}
