// The refining steps of the winding-number sign for one point, shared by
// the grid's winding_refine (shared/winding_grid.wgsl) and the points'
// winding_points_refine (shared/winding_points.wgsl): a whole workgroup
// (64 invocations) decides one point that the first pass (β = 5) left
// open. With the stricter β of refine_beta, each invocation walks the
// subtrees of its share of `frontier` (nodes whose subtrees partition the
// tree), then, if the bound still leaves the point open, sums its share of
// every triangle's exact solid angle; after each step the parts (Ω, bound)
// meet in a workgroup reduction and the point is decided where
// ||w| − ½| exceeds the bound. The Taylor remainder of a node the walk
// expands is at most 3β²/(β − 1)⁴ of its contribution A/|c − p|²
// (src/geom/winding.rs): 0.29 at β = 5, 0.030 at 12, 0.0033 at 32, so each
// step decides all but the points nearer the |w| = ½ sheet; the exact sum's
// bound is the rounding of its terms alone.
//
// Uses the includer's shared/winding.wgsl (winding_subtree, winding_leaf
// with the point's `item`: a grid cell or a point index, which a device
// with f64 evaluates more precisely) and its bindings
//   frontier      array<u32>          roots of subtrees that partition the tree
//   refine_steps  array<atomic<u32>>  REFINE_STEPS counters: the points each
//                                     step decided (β = 12, β = 32, exact)
// Call winding_refine_point in workgroup-uniform control flow.

const REFINE_STEPS: u32 = 3u;
fn refine_beta(step: u32) -> f32 {
    return select(32.0, 12.0, step == 0u);
}

var<workgroup> refine_parts: array<vec2f, 64>;
var<workgroup> refine_total: vec2f;

// The side of |w| = ½ of point `item` at p (in the tree's frame, off by
// up to `slack`): 1 inside, 0 outside, -1 still open after the exact sum
// (within its rounding of the sheet or of the surface). The same value in
// every invocation; the step that decided is counted in refine_steps.
fn winding_refine_point(p: vec3f, item: u32, slack: f32, lid: u32) -> i32 {
    let roots = arrayLength(&frontier);
    for (var step = 0u; step < REFINE_STEPS; step++) {
        var part = vec2f(0.0);
        if (step < REFINE_STEPS - 1u) {
            for (var f = lid; f < roots; f += 64u) {
                part += winding_subtree(frontier[f], p, slack, refine_beta(step), item);
            }
        } else {
            part = winding_exact_part(p, item, slack, lid);
        }
        refine_parts[lid] = part;
        for (var stride = 32u; stride > 0u; stride >>= 1u) {
            workgroupBarrier();
            if (lid < stride) {
                refine_parts[lid] += refine_parts[lid + stride];
            }
        }
        workgroupBarrier();
        if (lid == 0u) {
            refine_total = refine_parts[0];
        }
        let w = workgroupUniformLoad(&refine_total) / WINDING_FOUR_PI;
        let margin = abs(w.x) - 0.5;
        if (abs(margin) > w.y) {
            if (lid == 0u) {
                atomicAdd(&refine_steps[step], 1u);
            }
            return select(0, 1, margin > 0.0);
        }
    }
    return -1;
}

// This invocation's share (triangles lid, lid + 64, ...) of the exact sum
// of solid angles at point `item` (p), with its bound. Each addition of
// the float32 sum is off by at most 2^-24 of the sum of magnitudes so far:
// the count of terms (plus 64 for the workgroup reduction) times 9e-8
// times that sum covers them, as in winding_subtree.
fn winding_exact_part(p: vec3f, item: u32, slack: f32, lid: u32) -> vec2f {
    var part = vec2f(0.0);
    var magnitude = 0.0;
    var terms = 64.0;
    for (var t = lid; t < arrayLength(&winding_tris) / 3u; t += 64u) {
        let o = winding_leaf(p, t, slack, item);
        part += o;
        magnitude += abs(o.x);
        terms += 1.0;
    }
    return vec2f(part.x, part.y * (1.0 + terms * 1.2e-7) + terms * 9e-8 * magnitude);
}
