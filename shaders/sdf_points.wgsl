//!include shared/bvh_nearest.wgsl
//!include shared/winding_f32_leaf.wgsl

// The exact signed distance at arbitrary points (`collidoscope check` on a
// point set, src/stages/sdf_grid/points_gpu.rs): the nearest triangle by
// the flat AABB BVH (shared/bvh_nearest.wgsl) and the winding number's
// sign with its error bound (shared/winding.wgsl), one invocation per
// point. A point whose ||w| − ½| the bound does not decide keeps its
// unsigned distance and is listed for the exact f64 sum on the CPU.
//
// Entry point:
//   exact_points  one invocation per point
//
// Rust side: src/stages/sdf_grid/points_gpu.rs (PointsParams, bindings;
// checked by tests/shader_layouts.rs).

struct PointsParams {
    frame: vec3f,       // world position of the winding tree's frame origin
    slack: f32,         // rounding of a point moved into that frame
    count: u32,
    beta: f32,
    _pad: vec2u,
}

const POINTS_WORKGROUP: u32 = 64u;

@group(0) @binding(0) var<uniform> params: PointsParams;
// 3 corners per triangle (w unused), BVH order.
@group(0) @binding(1) var<storage, read> tri_pos: array<vec4f>;
@group(0) @binding(2) var<storage, read> nodes: array<BvhNode>;
@group(0) @binding(3) var<storage, read> winding_nodes: array<WindingNode>;
@group(0) @binding(4) var<storage, read> winding_tris: array<vec4f>;
// World xyz per point (w unused).
@group(0) @binding(5) var<storage, read> points: array<vec4f>;
@group(0) @binding(6) var<storage, read_write> values: array<f32>;
// [0]: number of undecided points; [1..]: their indices.
@group(0) @binding(7) var<storage, read_write> undecided: array<atomic<u32>>;

@compute @workgroup_size(64)
fn exact_points(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let i = (wid.y * nwg.x + wid.x) * POINTS_WORKGROUP + lid;
    if (i >= params.count) {
        return;
    }
    let p = points[i].xyz;
    let near = bvh_nearest(p, 3.0e38);
    let d = sqrt(near.d2);
    let omega = winding_subtree(0u, p - params.frame, params.slack, params.beta, WINDING_NO_CELL);
    let w = omega / WINDING_FOUR_PI;
    let margin = abs(w.x) - 0.5;
    if (abs(margin) > w.y) {
        values[i] = select(d, -d, margin > 0.0);
    } else {
        values[i] = d;
        let k = atomicAdd(&undecided[0], 1u);
        atomicStore(&undecided[1u + k], i);
    }
}
