// What every BVH traversal shares: the flat AABB node (src/geom/bvh.rs),
// its leaf flag and "no index" marker, the traversal stack depth, and the
// squared distance from a point to a box, the lower bound that prunes
// subtrees. Included by shared/bvh_nearest.wgsl, the SDF shaders and
// tritri.wgsl.

struct BvhNode {
    min: vec3f,
    a: u32,             // inner: left child; leaf: first triangle
    max: vec3f,
    b: u32,             // inner: right child; leaf: LEAF_BIT | count
}

const LEAF_BIT: u32 = 0x80000000u;
const NONE: u32 = 0xffffffffu;
const STACK: u32 = 64u;

fn box_distance2(p: vec3f, lo: vec3f, hi: vec3f) -> f32 {
    let d = max(max(lo - p, p - hi), vec3f(0.0));
    return dot(d, d);
}
