//!include shared/bvh_bounds.wgsl
//!include shared/winding_f32_leaf.wgsl

// The winding-number sign at a list of points (the adaptive field's octree
// node centres), after the distance queries: each point gets the sign of
// |w| > ½ where the fast winding number's float32 error bound decides it
// (shared/winding.wgsl, the same code and bound as the grid's
// sdf_winding.wgsl), and the others are listed for the CPU, which decides
// them with the f64 expansion and then the exact sum.
//
// Entry point:
//   winding_points  one invocation per point
//
// The points are read with a stride (in vec4s) so that a struct holding a
// vec3 centre first can be bound as it is: an OctreeNode is 3 vec4s.
//
// Rust side: src/stages/sdf_adaptive/winding_gpu.rs (PointWindingParams,
// bindings; checked by tests/shader_layouts.rs).

struct PointWindingParams {
    frame: vec3f,       // position of the nodes' frame origin (points' frame)
    count: u32,         // points
    stride: u32,        // vec4s from one point to the next
    capacity: u32,      // entries of `undecided` after its count
    beta: f32,
    slack: f32,         // rounding of a point's coordinates
}

@group(0) @binding(0) var<uniform> wparams: PointWindingParams;
@group(0) @binding(1) var<storage, read> winding_nodes: array<WindingNode>;
@group(0) @binding(2) var<storage, read> winding_tris: array<vec4f>;
@group(0) @binding(3) var<storage, read> points: array<vec4f>;
// The distance queries' values, signed here.
@group(0) @binding(4) var<storage, read_write> values: array<f32>;
// [0]: number of undecided points; [1..]: the first `capacity` of them.
@group(0) @binding(5) var<storage, read_write> undecided: array<atomic<u32>>;

@compute @workgroup_size(64)
fn winding_points(
    @builtin(global_invocation_id) gid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
) {
    let i = gid.y * nwg.x * 64u + gid.x;
    if (i >= wparams.count) {
        return;
    }
    let p = points[wparams.stride * i].xyz - wparams.frame;
    let omega = winding_subtree(0u, p, wparams.slack, wparams.beta, WINDING_NO_CELL);
    let w = omega / WINDING_FOUR_PI;
    let margin = abs(w.x) - 0.5;
    if (abs(margin) > w.y) {
        values[i] = select(abs(values[i]), -abs(values[i]), margin > 0.0);
    } else {
        let k = atomicAdd(&undecided[0], 1u);
        if (k < wparams.capacity) {
            atomicStore(&undecided[1u + k], i);
        }
    }
}
