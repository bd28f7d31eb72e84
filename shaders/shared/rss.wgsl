// Rectangle swept spheres (src/geom/rss.rs) and the node of Liu & Kim's
// RSS BVHs (src/stages/adaptive/rss_bvh.rs); shared by adaptive_rss_bvh.wgsl
// (the build) and adaptive.wgsl (the queries), which include it.

// RssNode of src/stages/adaptive/rss_bvh.rs (checked by
// tests/it/shader_layouts.rs).
struct RssNode {
    center: vec3f,
    radius: f32,
    axis_u: vec3f,
    half_u: f32,
    axis_v: vec3f,
    half_v: f32,
    first: u32,         // order[first .. first + count]
    count: u32,
    left: u32,          // first child (NONE: leaf); the second is left + 1
    _pad: u32,
}

// Squared distance from p to the swept volume, 0 inside (RssNode::distance2).
fn rss_distance2(p: vec3f, n: RssNode) -> f32 {
    let d = p - n.center;
    let s = clamp(dot(d, n.axis_u), -n.half_u, n.half_u);
    let t = clamp(dot(d, n.axis_v), -n.half_v, n.half_v);
    let e = max(length(d - s * n.axis_u - t * n.axis_v) - n.radius, 0.0);
    return e * e;
}

// The node's extent along x, the culling axis of Alg. 4 (RssNode::x_interval).
fn rss_x_interval(n: RssNode) -> vec2f {
    let e = n.half_u * abs(n.axis_u.x) + n.half_v * abs(n.axis_v.x) + n.radius;
    return vec2f(n.center.x - e, n.center.x + e);
}
