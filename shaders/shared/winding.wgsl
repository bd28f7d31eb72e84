// Generalised winding number with an error bound, in float32: the GPU twin
// of FastWinding::bounded (src/geom/winding.rs, whose module docs derive
// the method): Barill, Dickson, Schmidt, Levin & Jacobson, "Fast Winding
// Numbers for Soups and Clouds" (SIGGRAPH 2018) §3, the order-1 and -2
// expansion of every node farther than beta radii, exact solid angles
// (Van Oosterom & Strackee 1983) in the leaves reached, and a bound on the
// error: the expansion's Taylor remainder 3 A r² / (|c − p| − r)⁴ plus the
// float32 rounding of every term, which the f64 CPU version need not
// count. A caller decides |w| > ½ only where ||w| − ½| exceeds the bound and
// leaves the rest to the exact f64 sum.
//
// Uses the includer's bindings, both in a frame centred on the mesh (p too):
//   winding_nodes  array<WindingNode>  the tree, root first (src/geom/winding.rs)
//   winding_tris   array<vec4f>        3 corners per triangle, leaf slot order
// LEAF_BIT of shared/bvh_bounds.wgsl, and the includer's leaf evaluation:
//   fn winding_leaf(p: vec3f, t: u32, slack: f32, cell: u32) -> vec2f
// triangle t's solid angle at p and its bound: winding_triangle, or for a
// grid cell's index `cell` (not WINDING_NO_CELL) a more precise evaluation
// where the device allows it.

struct WindingNode {
    centroid: vec3f,    // area-weighted centroid c
    radius: f32,        // every corner of the node lies within radius of c
    normal_sum: vec3f,  // N = Σ area · n
    area: f32,          // A = Σ area (unsigned)
    m0: vec3f,          // columns of M = Σ area · n ⊗ (x̄ − c)
    a: u32,             // inner: left child; leaf: first slot
    m1: vec3f,
    b: u32,             // inner: right child; leaf: LEAF_BIT | count
    m2: vec3f,
    _pad: u32,
}

const WINDING_FOUR_PI: f32 = 12.566371;
// Relative rounding of a stored or computed coordinate (about 8 ulps).
const WINDING_EPS: f32 = 1e-6;
// Relative rounding of one node's or one triangle's evaluation, far above
// the few dozen ulps its operations can cost.
const WINDING_EVAL: f32 = 2e-5;
// atan2's relative error: WGSL allows 4096 ULP (4.9e-4 relative) where
// its arguments are in range (winding_atan2 puts them there).
const WINDING_ATAN: f32 = 1e-3;
const WINDING_STACK: u32 = 64u;
// A bound that leaves every decision to the exact sum.
const WINDING_HUGE: f32 = 1e30;
// winding_subtree's `cell` for a point that is no grid cell.
const WINDING_NO_CELL: u32 = 0xffffffffu;

// The signed solid angle of triangle (a0, b0, c0) seen from p and a bound
// on its error, with every coordinate off by up to `slack` besides its own
// rounding. Near the triangle's edges the bound grows without limit.
fn winding_triangle(p: vec3f, a0: vec3f, b0: vec3f, c0: vec3f, slack: f32) -> vec2f {
    let a = a0 - p;
    let b = b0 - p;
    let c = c0 - p;
    let la = length(a);
    let lb = length(b);
    let lc = length(c);
    let num = dot(a, cross(b, c));
    let den = la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb;
    let omega = 2.0 * winding_atan2(num, den);
    // Each of a, b, c is off by s; moving one of them changes the numerator
    // and each of the denominator's four terms by at most s times the
    // product of the other two lengths, and each is rounded: relative to
    // la·lb·lc (so that nothing overflows) the pair (num, den) is off by
    // err (counted with a factor 3 to spare).
    let s = slack + WINDING_EPS * (max(max(length(a0), length(b0)), length(c0)) + length(p));
    let l3 = la * lb * lc;
    let h = length(vec2f(num, den)) / l3;
    let err = 5.0 * (3.0 * s * (1.0 / la + 1.0 / lb + 1.0 / lc) + WINDING_EVAL);
    // Undecided: p at a corner, too close to an edge for the bound, or in
    // the triangle's plane inside it, where Ω jumps between ±2π.
    let on_cut = den <= 0.0 && abs(num) / l3 <= err;
    if (!(l3 > 0.0) || !(2.0 * err < h) || on_cut) {
        return vec2f(0.0, WINDING_FOUR_PI);
    }
    // atan2 moves by at most (π/2)·err/h when its arguments move by err < h/2;
    // Ω = 2 atan2.
    return vec2f(omega, 4.0 * err / h + WINDING_ATAN * abs(omega) + 1e-6);
}

const WINDING_HALF_PI: f32 = 1.5707964;
const WINDING_PI: f32 = 3.1415927;
// 2^-100: an argument this much smaller than the other moves the angle by
// less than it.
const WINDING_TINY: f32 = 7.888609e-31;

// atan2(y, x) within WINDING_ATAN of its value, relative, plus 2^-99
// absolute: WGSL bounds atan2's error (4096 ULP) only for |x| in
// [2^-126, 2^126] and y finite and normal. Both arguments are scaled by one
// power of two (exact) so that the larger lies in [½, 1); a smaller one
// under 2^-100 is replaced by its limit (the angle moves by less than
// 2^-99), except that y → 0 with x < 0 gives π whatever y's sign, which
// the callers leave undecided (their `on_cut`: such a y is far inside the
// cut's margin). Both zero (or NaN) gives 0; the callers' checks leave
// that triangle undecided too (h = 0).
fn winding_atan2(y: f32, x: f32) -> f32 {
    let big = max(abs(y), abs(x));
    if (!(big > 0.0)) {
        return 0.0;
    }
    let e = frexp(big).exp;
    let ys = ldexp(y, -e);
    let xs = ldexp(x, -e);
    if (abs(xs) < WINDING_TINY) {
        return select(-WINDING_HALF_PI, WINDING_HALF_PI, ys > 0.0);
    }
    if (abs(ys) < WINDING_TINY) {
        return select(WINDING_PI, 0.0, xs > 0.0);
    }
    return atan2(ys, xs);
}

// The order-1 and -2 expansion of node n at p (|c − p| = d > beta · r) and
// its error bound.
fn winding_expansion(n: WindingNode, p: vec3f, y: vec3f, d: f32, slack: f32) -> vec2f {
    let u = y / d;
    let d2 = d * d;
    let mu = n.m0 * u.x + n.m1 * u.y + n.m2 * u.z;
    let trace = n.m0.x + n.m1.y + n.m2.z;
    let omega = dot(u, n.normal_sum) / d2 + (trace - 3.0 * dot(u, mu)) / d2 / d;
    // The remainder (module docs of src/geom/winding.rs) with d shrunk by
    // its own rounding, and the expansion's change when y moves by s: its
    // gradient is at most 3|N|/d³ + 24|M|/d⁴, |N| ≤ A, |M| ≤ A r.
    let s = slack + WINDING_EPS * (length(n.centroid) + length(p));
    let gap = d * (1.0 - WINDING_EVAL) - s - n.radius;
    if (!(gap > 0.0)) {
        // The point's own rounding reaches the node: undecidable here.
        return vec2f(0.0, WINDING_HUGE);
    }
    let ag = n.area / (gap * gap);
    let rg = n.radius / gap;
    let remainder = 3.0 * ag * rg * rg;
    let moved = s / gap * ag * (3.0 + 24.0 * rg);
    let rounding = WINDING_EVAL * n.area / d2 * (1.0 + 4.0 * n.radius / d);
    return vec2f(omega, remainder + moved + rounding);
}

// (Ω, bound): the solid angle at p of the subtree under node `root`, the
// exact value within bound of Ω. Nodes farther than beta radii are
// expanded, the others opened; the leaves' triangles go to winding_leaf
// with `cell`. The bound counts the float32 sums too: each of the n
// additions of Ω rounds by 2^-24 of the magnitudes so far, at most
// n·2^-24·Σ|Ωᵢ| in all (counted as 9e-8, which also covers the rounding of
// Σ|Ωᵢ| itself while n·2^-24 < 0.2), and the bounds' own sum, rounded down
// by as much relatively, is scaled up by that. 192 more additions are
// allowed for the callers' sums after the walk (shared/winding_refine.wgsl
// counts its 142 at most).
var<workgroup> winding_parts: array<vec2f, 64>;
var<workgroup> winding_total: vec2f;

// The sum of every invocation's `part` (Ω, bound) in a workgroup of 64, the
// same value in every invocation: 6 additions on each part's way, which
// the callers' bounds count (winding_subtree's allowance, the exact sums').
fn winding_reduce(part: vec2f, lid: u32) -> vec2f {
    winding_parts[lid] = part;
    for (var stride = 32u; stride > 0u; stride >>= 1u) {
        workgroupBarrier();
        if (lid < stride) {
            winding_parts[lid] += winding_parts[lid + stride];
        }
    }
    workgroupBarrier();
    if (lid == 0u) {
        winding_total = winding_parts[0];
    }
    return workgroupUniformLoad(&winding_total);
}

fn winding_subtree(root: u32, p: vec3f, slack: f32, beta: f32, cell: u32) -> vec2f {
    var sum = vec2f(0.0);
    var magnitude = 0.0;
    var terms = 192.0;
    var stack: array<u32, WINDING_STACK>;
    stack[0] = root;
    var sp = 1u;
    // The host checks that the tree is shallower than WINDING_STACK - 1:
    // popping one node and pushing two grows the stack by one per level.
    while (sp > 0u) {
        sp -= 1u;
        let n = winding_nodes[stack[sp]];
        let y = n.centroid - p;
        let d = length(y);
        if (d > beta * n.radius) {
            let o = winding_expansion(n, p, y, d, slack);
            sum += o;
            magnitude += abs(o.x);
            terms += 1.0;
        } else if ((n.b & LEAF_BIT) != 0u) {
            let end = n.a + (n.b & ~LEAF_BIT);
            for (var t = n.a; t < end; t++) {
                let o = winding_leaf(p, t, slack, cell);
                sum += o;
                magnitude += abs(o.x);
                terms += 1.0;
            }
        } else if (sp + 2u <= WINDING_STACK) {
            stack[sp] = n.a;
            stack[sp + 1u] = n.b;
            sp += 2u;
        }
    }
    return vec2f(sum.x, sum.y * (1.0 + terms * 1.2e-7) + terms * 9e-8 * magnitude);
}
