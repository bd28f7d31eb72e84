//!include shared/bvh_nearest.wgsl

// The exact distance at arbitrary points (`collidoscope check` on a point
// set, src/stages/sdf/points_gpu.rs): the nearest triangle by the
// flat AABB BVH (shared/bvh_nearest.wgsl), one invocation per point. The
// winding-number sign follows in the same submission
// (shared/winding_points.wgsl).
//
// Entry point:
//   exact_points  one invocation per point
//
// Rust side: src/stages/sdf/points_gpu.rs (PointsParams, bindings;
// checked by tests/it/shader_layouts.rs).

struct PointsParams {
    count: u32,
    _pad: u32,
    _pad2: vec2u,
}

const POINTS_WORKGROUP: u32 = 64u;

@group(0) @binding(0) var<uniform> params: PointsParams;
// 3 corners per triangle (w unused), BVH order.
@group(0) @binding(1) var<storage, read> tri_pos: array<vec4f>;
@group(0) @binding(2) var<storage, read> nodes: array<BvhNode>;
// World xyz per point (w unused).
@group(0) @binding(3) var<storage, read> points: array<vec4f>;
// The unsigned distance per point.
@group(0) @binding(4) var<storage, read_write> values: array<f32>;

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
    let near = bvh_nearest(points[i].xyz, 3.0e38);
    values[i] = sqrt(near.d2);
}
