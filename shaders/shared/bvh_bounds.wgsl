// What every BVH traversal shares: the leaf flag and "no index" marker of
// the flat node layouts (src/geom/bvh.rs), the traversal stack depth, and
// the squared distance from a point to a box, the lower bound that prunes
// subtrees. Prepended by src/gpu/mod.rs before shared/bvh_nearest.wgsl and
// the SDF shaders.

const LEAF_BIT: u32 = 0x80000000u;
const NONE: u32 = 0xffffffffu;
const STACK: u32 = 64u;

fn box_distance2(p: vec3f, lo: vec3f, hi: vec3f) -> f32 {
    let d = max(max(lo - p, p - hi), vec3f(0.0));
    return dot(d, d);
}
