// The uniform SDF's corners in the backend's triangle order
// (src/stages/sdf/corners_gpu.rs), expanded on the GPU from the
// indexed mesh the host uploads: one invocation per triangle copies its
// three vertices' positions into tri_pos, a vec4 a corner (w = 0), the
// layout of sdf.wgsl and sdf_packet.wgsl. Pure copies: the corners
// are bit for bit the host's.
//
// Entry point:
//   expand_corners  tri_pos[3t + k] = positions[vertices[3t + k]], k < 3
//
// Rust side: src/stages/sdf/corners_gpu.rs (Params, bindings).

struct Params {
    num_tris: u32,
    _pad1: u32,
    _pad2: u32,
    _pad3: u32,
}

const CORNERS_WORKGROUP: u32 = 64u;

@group(0) @binding(0) var<uniform> params: Params;
// 3 floats a vertex, the mesh's positions.
@group(0) @binding(1) var<storage, read> positions: array<f32>;
// 3 vertex indices a triangle, in the backend's order.
@group(0) @binding(2) var<storage, read> vertices: array<u32>;
@group(0) @binding(3) var<storage, read_write> tri_pos: array<vec4f>;

@compute @workgroup_size(CORNERS_WORKGROUP)
fn expand_corners(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let t = (wid.y * nwg.x + wid.x) * CORNERS_WORKGROUP + lid;
    if (t >= params.num_tris) {
        return;
    }
    for (var k = 0u; k < 3u; k++) {
        let v = vertices[3u * t + k];
        tri_pos[3u * t + k] = vec4f(positions[3u * v], positions[3u * v + 1u], positions[3u * v + 2u], 0.0);
    }
}
