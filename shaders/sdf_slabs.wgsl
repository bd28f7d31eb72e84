// The slabs of the uniform SDF's tree (src/stages/sdf/slab_bvh.rs,
// "Slabs"), computed on the GPU from the corners already uploaded for the
// distance kernels: one invocation per node.
//
// Entry point:
//   slab_nodes  for a node of at most SLAB_MAX triangles, the unit normal
//               along the sum of its triangles' area-weighted normals (in
//               slot order, each flipped to agree with the running sum),
//               and the band lo <= dot(normal, x) <= hi holding all its
//               corners; larger nodes, and nodes whose normals sum to
//               nothing, keep the host's "no slab" (normal 0, unbounded)
//
// Any normal gives a valid bound as long as lo and hi hold every corner
// for it, which they do by construction; sdf_packet.wgsl's traversal
// shrinks the slab distance to cover the rounding of its own dot product.
// Rust side: src/stages/sdf/slab_gpu.rs (Params, bindings) and
// slab_bvh::slab, the CPU reference.

struct Params {
    num_nodes: u32,
    slab_max: u32,
    _pad1: u32,
    _pad2: u32,
}

// SlabNode of slab_bvh.rs with the slot range that sdf_packet.wgsl leaves
// out.
struct SlabNode {
    min: vec3f,
    a: u32,
    max: vec3f,
    b: u32,
    normal: vec3f,
    lo: f32,
    hi: f32,
    first: u32,
    end: u32,
}

const SLABS_WORKGROUP: u32 = 64u;
const F32_MAX: f32 = 3.40282347e38;

@group(0) @binding(0) var<uniform> params: Params;
// 3 corners per triangle in slot order (w unused).
@group(0) @binding(1) var<storage, read> tri_pos: array<vec4f>;
@group(0) @binding(2) var<storage, read_write> nodes: array<SlabNode>;

@compute @workgroup_size(SLABS_WORKGROUP)
fn slab_nodes(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let k = (wid.y * nwg.x + wid.x) * SLABS_WORKGROUP + lid;
    if (k >= params.num_nodes) {
        return;
    }
    let first = nodes[k].first;
    let end = nodes[k].end;
    if (end - first > params.slab_max) {
        return;
    }
    var sum = vec3f(0.0);
    for (var s = first; s < end; s++) {
        let a = tri_pos[3u * s].xyz;
        let n = cross(tri_pos[3u * s + 1u].xyz - a, tri_pos[3u * s + 2u].xyz - a);
        if (dot(n, sum) < 0.0) {
            sum -= n;
        } else {
            sum += n;
        }
    }
    // As glam's try_normalize: no slab for a zero, overflowing or NaN sum
    // (tested on its squared length, with no division by zero).
    let len2 = dot(sum, sum);
    if (!(len2 > 0.0 && len2 <= F32_MAX)) {
        return;
    }
    let normal = sum / sqrt(len2);
    var lo = F32_MAX;
    var hi = -F32_MAX;
    for (var i = 3u * first; i < 3u * end; i++) {
        let d = dot(normal, tri_pos[i].xyz);
        lo = min(lo, d);
        hi = max(hi, d);
    }
    nodes[k].normal = normal;
    nodes[k].lo = lo;
    nodes[k].hi = hi;
}
