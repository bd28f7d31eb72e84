//!include shared/bvh_bounds.wgsl
//!include shared/winding.wgsl
//!include shared/winding_refine.wgsl

// The winding-number sign at a list of points (the adaptive field's octree
// node centres, `collidoscope check`'s point sets), after their distance
// queries, in two passes of one submission, as the grid's
// (shared/winding_grid.wgsl):
//
//   winding_points         one invocation per point: the fast winding
//                          number with its error bound (shared/winding.wgsl,
//                          β = 5; its leaves as the includer's
//                          first_pass_leaf says) signs the point
//                          where ||w| − ½| exceeds the bound; the others
//                          are listed in `undecided`.
//   winding_walk12_*,      the refining steps over the listed points
//   winding_walk32_*,      (shared/winding_refine.wgsl, each spread over
//   winding_exact_*        the device; leaves in f64 on devices that have
//                          it): tree walks with β = 12 and 32, then the
//                          exact sum; the points still open go to
//                          `leftover`, for the CPU's f64 sum.
//
// Included by winding_points.wgsl (float32 leaves) and
// winding_points_f64.wgsl (f64 leaves in both passes), which define
//   fn first_pass_leaf(i: u32) -> u32   the item winding_leaf gets in the
//                                       first pass (WINDING_NO_CELL: float32)
//
// The points are read with a stride (in vec4s) so that a struct holding a
// vec3 centre first can be bound as it is: an OctreeNode is 3 vec4s, a
// point of a point set 1.
//
// Rust side: src/stages/sdf/point_winding.rs (PointWindingParams,
// bindings; checked by tests/it/shader_layouts.rs).

struct PointWindingParams {
    frame: vec3f,       // world position of the tree's frame origin
    count: u32,         // points
    stride: u32,        // vec4s from one point to the next
    capacity: u32,      // entries of `undecided` and `leftover` after their count
    beta: f32,
    slack: f32,         // rounding of a point moved into the frame
    direct_budget: u32, // see winding_refine_first_args
}

@group(0) @binding(0) var<uniform> wparams: PointWindingParams;
@group(0) @binding(1) var<storage, read> winding_nodes: array<WindingNode>;
@group(0) @binding(2) var<storage, read> winding_tris: array<vec4f>;
@group(0) @binding(3) var<storage, read> points: array<vec4f>;
// The distance queries' values, signed here.
@group(0) @binding(4) var<storage, read_write> values: array<f32>;
// [0]: number of points the first pass left open; [1..]: the first
// `capacity` of them.
@group(0) @binding(5) var<storage, read_write> undecided: array<atomic<u32>>;
// Roots of subtrees that partition the tree (the refining pass's shares).
@group(0) @binding(6) var<storage, read> frontier: array<u32>;
// [0]: number of points the refining pass leaves to the CPU; [1..]: the
// first `capacity` of them.
@group(0) @binding(7) var<storage, read_write> leftover: array<atomic<u32>>;
// The points each refining step decided (shared/winding_refine.wgsl).
@group(0) @binding(8) var<storage, read_write> refine_steps: array<atomic<u32>>;
// The lists of the β = 32 walk and of the exact sum
// (shared/winding_refine.wgsl).
@group(0) @binding(9) var<storage, read_write> refine_items: array<atomic<u32>>;
// The running step's partial sums, one per (listed point, column).
@group(0) @binding(10) var<storage, read_write> refine_sums: array<vec2f>;

// Point i in the tree's frame (float32; off by up to `slack`).
fn winding_item_point(i: u32) -> vec3f {
    return points[wparams.stride * i].xyz - wparams.frame;
}

@compute @workgroup_size(64)
fn winding_points(
    @builtin(global_invocation_id) gid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
) {
    let i = gid.y * nwg.x * 64u + gid.x;
    if (i >= wparams.count) {
        return;
    }
    let omega = winding_subtree(0u, winding_item_point(i), wparams.slack, wparams.beta, first_pass_leaf(i));
    let w = omega / WINDING_FOUR_PI;
    let margin = abs(w.x) - 0.5;
    if (abs(margin) > w.y) {
        refine_sign(i, margin > 0.0);
    } else {
        let k = atomicAdd(&undecided[0], 1u);
        if (k < wparams.capacity) {
            atomicStore(&undecided[1u + k], i);
        }
    }
}
