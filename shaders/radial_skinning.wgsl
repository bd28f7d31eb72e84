// Linear blend skinning: one invocation per vertex,
// p' = Σ_k weight_k · (skin[joint_k] · p), skin = world · inverse bind.
// Mirrored by src/sim/radial/character/skinning.rs (`skin_cpu`). The output is
// vec4 per vertex, the layout the radial-field rasteriser reads.
//
// The radial fields' clear (every cell +inf, §5.3) may ride along:
// invocation i also clears clear[i] for i < params.clear, so the frame
// needs no dispatch (and no barrier) of its own for it.

struct Params {
    vertices: u32,
    joints: u32,
    clear: u32,
    _pad: u32,
}

const SKIN_GROUP: u32 = 64u;
const INF_BITS: u32 = 0x7f800000u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> rest: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> joint_ids: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> weights: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> skin: array<mat4x4<f32>>;
@group(0) @binding(5) var<storage, read_write> skinned: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> clear: array<u32>;

@compute @workgroup_size(SKIN_GROUP)
fn skin_vertices(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let v = gid.y * groups.x * SKIN_GROUP + gid.x;
    if v < params.clear {
        clear[v] = INF_BITS;
    }
    if v >= params.vertices {
        return;
    }
    let p = vec4<f32>(rest[v].xyz, 1.0);
    let j = joint_ids[v];
    let w = weights[v];
    var out = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        if w[k] != 0.0 {
            out += w[k] * (skin[j[k]] * p).xyz;
        }
    }
    skinned[v] = vec4<f32>(out, 1.0);
}
