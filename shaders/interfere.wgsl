// Image-space interference detection by stencil ray counting (Knott 2003,
// ch. 4; src/stages/interfere/). Rendering, not compute: these entry
// points feed the rasteriser, and the counting itself is done by the depth
// and stencil tests configured in src/stages/interfere/gpu/.
//
// `Uniforms` and the vertex layouts mirror src/stages/interfere/gpu/mod.rs
// (checked by tests/it/shader_layouts.rs).

struct Uniforms {
    // Orthographic, fitted to the objects: NDC x, y and depth in [0, 1]
    // (0 nearest the viewer).
    clip_from_world: mat4x4<f32>,
    // x: edge offset along the vertex normal (world units); yzw: 0.
    params: vec4<f32>,
}

@group(0) @binding(0) var<uniform> u: Uniforms;

struct EdgeOut {
    // @invariant: pass 4 redraws the edges with depth test "equal", which
    // needs bit-identical depths to pass 1 (§4.5.2).
    @invariant @builtin(position) clip: vec4<f32>,
    // x: object index + 1, y: global edge index + 1 (0 = no edge).
    @location(0) @interpolate(flat) ids: vec2<u32>,
    // The instance index + 1: the penetrated object's id in the pair
    // passes (Alg. 4), which draw the edges as instance j of object j.
    @location(1) @interpolate(flat) into: u32,
}

// Pass 1 (and 4): edges offset outward along their vertex normals (§4.3.3),
// so an edge never counts as inside its own solid.
@vertex
fn vs_edge(
    @location(0) pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) ids: vec2<u32>,
    @builtin(instance_index) instance: u32,
) -> EdgeOut {
    var out: EdgeOut;
    let p = pos + u.params.x * normal;
    out.clip = u.clip_from_world * vec4(p, 1.0);
    out.ids = ids + vec2(1u, 1u);
    out.into = instance + 1u;
    return out;
}

// Pass 1 writes which object and which edge is nearest at each pixel
// (the identification of Alg. 2 and the per-edge colours of §4.5.5); pass 4
// writes the same ids only where the count is > 0 (Alg. 3).
@fragment
fn fs_edge(in: EdgeOut) -> @location(0) vec2<u32> {
    return in.ids;
}

// Passes 2–3: the faces, counted by the stencil operations only.
@vertex
// @invariant: the pair passes draw an object's faces twice, counting and
// then uncounting them, and the two must cover exactly the same pixels.
fn vs_face(@location(0) pos: vec3<f32>) -> @invariant @builtin(position) vec4<f32> {
    return u.clip_from_world * vec4(pos, 1.0);
}

// The pair passes' faces count in the stencil only; the colour target (the
// penetrated-object image) has its writes masked off.
@fragment
fn fs_face() -> @location(0) u32 {
    return 0u;
}

// The pair passes' edges write the penetrated object's id where the count of
// that object's faces alone is > 0 (Alg. 4).
@fragment
fn fs_penetrated(in: EdgeOut) -> @location(0) u32 {
    return in.into;
}

// The weighted counting pass (src/stages/interfere/identify.rs): the
// faces also add s·(1, j + 1, (j + 1)², open) into an additively blended
// Rgba32Float target, s = +1 front, −1 back, j the face's object, open 1
// for a face of an open mesh (counted unsigned: any such face in front of
// the edge point makes the pixel ambiguous).
struct WeightedFace {
    @invariant @builtin(position) clip: vec4<f32>,
    // Object index, the high bit set for an open mesh.
    @location(0) @interpolate(flat) object: u32,
}

@vertex
fn vs_face_weighted(@location(0) pos: vec3<f32>, @location(1) object: u32) -> WeightedFace {
    var out: WeightedFace;
    out.clip = u.clip_from_world * vec4(pos, 1.0);
    out.object = object;
    return out;
}

@fragment
fn fs_face_weighted(in: WeightedFace, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let s = select(-1.0, 1.0, front);
    let w = f32((in.object & 0x7fffffffu) + 1u);
    return vec4(s, s * w, s * w * w, f32(in.object >> 31u));
}
