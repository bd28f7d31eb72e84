// The viewer's render pipelines (src/view/renderer.rs): flat-shaded mesh,
// wireframe and debug lines, instanced point sprites for field cells.
//
// `ViewUniforms`, the vertex inputs and the colour-map stops mirror
// src/view/renderer.rs and src/view/colormap.rs (checked by
// tests/it/shader_layouts.rs).
//
// Colours arrive as linear RGBA (mesh, lines) or are computed as sRGB by the
// colour map and linearised here: the target is Rgba8UnormSrgb, so the
// hardware encodes back to sRGB on write.

struct ViewUniforms {
    clip_from_world: mat4x4<f32>,
    view_from_world: mat4x4<f32>,
    // xyz: eye position in world space.
    eye: vec4<f32>,
    // x, y: viewport size in pixels; z: point size in pixels;
    // w: wireframe depth offset, a fraction of the eye distance.
    viewport: vec4<f32>,
    // xyz: clip-plane normal; w: offset. Cells with dot(n, p) > offset are cut.
    clip_plane: vec4<f32>,
    // x: colour range low end; y: band (keep |value| < band); z: high end;
    // w: the mesh's opacity (1: opaque; below, the translucent pipelines).
    cell_params: vec4<f32>,
    // x: colour map id (0 sundholm, 1 diverging, 2 viridis, 3 turbo); y: FILTER_* bits.
    cell_flags: vec4<u32>,
}

const FILTER_INSIDE: u32 = 1u;
const FILTER_OUTSIDE: u32 = 2u;
const FILTER_BAND: u32 = 4u;
const FILTER_CLIP: u32 = 8u;

@group(0) @binding(0) var<uniform> u: ViewUniforms;

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let lo = c / 12.92;
    let hi = pow((c + vec3(0.055)) / 1.055, vec3(2.4));
    return select(hi, lo, c <= vec3(0.04045));
}

// ---- colour maps (src/view/colormap.rs) ----------------------------------

// Stop i (0..5) of a ramp: side 0 inside, 1 outside; sRGB 0..255. A switch,
// not an array: function-local arrays go to local memory on some GPUs, and
// this runs for every sprite vertex.
fn ramp_stop(map: u32, side: u32, i: u32) -> vec3<f32> {
    switch map * 10u + side * 5u + i {
        // sundholm inside: pink → yellow → cyan
        case 0u: { return vec3(255.0, 105.0, 180.0); }
        case 1u: { return vec3(255.0, 180.0, 90.0); }
        case 2u: { return vec3(255.0, 255.0, 0.0); }
        case 3u: { return vec3(128.0, 255.0, 128.0); }
        case 4u: { return vec3(0.0, 255.0, 255.0); }
        // sundholm outside: blue → green → red
        case 5u: { return vec3(0.0, 0.0, 255.0); }
        case 6u: { return vec3(0.0, 128.0, 128.0); }
        case 7u: { return vec3(0.0, 255.0, 0.0); }
        case 8u: { return vec3(128.0, 128.0, 0.0); }
        case 9u: { return vec3(255.0, 0.0, 0.0); }
        // diverging inside (cool)
        case 10u: { return vec3(213.0, 219.0, 230.0); }
        case 11u: { return vec3(184.0, 208.0, 249.0); }
        case 12u: { return vec3(141.0, 176.0, 254.0); }
        case 13u: { return vec3(98.0, 130.0, 234.0); }
        case 14u: { return vec3(59.0, 76.0, 192.0); }
        // diverging outside (warm)
        case 15u: { return vec3(229.0, 216.0, 209.0); }
        case 16u: { return vec3(245.0, 196.0, 173.0); }
        case 17u: { return vec3(244.0, 154.0, 123.0); }
        case 18u: { return vec3(222.0, 96.0, 77.0); }
        case 19u: { return vec3(180.0, 4.0, 38.0); }
        // viridis from the middle down
        case 20u: { return vec3(33.0, 145.0, 140.0); }
        case 21u: { return vec3(44.0, 114.0, 142.0); }
        case 22u: { return vec3(59.0, 82.0, 139.0); }
        case 23u: { return vec3(71.0, 45.0, 123.0); }
        case 24u: { return vec3(68.0, 1.0, 84.0); }
        // viridis from the middle up
        case 25u: { return vec3(33.0, 145.0, 140.0); }
        case 26u: { return vec3(40.0, 174.0, 128.0); }
        case 27u: { return vec3(94.0, 201.0, 98.0); }
        case 28u: { return vec3(173.0, 220.0, 48.0); }
        case 29u: { return vec3(253.0, 231.0, 37.0); }
        // turbo from the middle down
        case 30u: { return vec3(164.0, 252.0, 60.0); }
        case 31u: { return vec3(38.0, 236.0, 161.0); }
        case 32u: { return vec3(41.0, 187.0, 236.0); }
        case 33u: { return vec3(70.0, 107.0, 227.0); }
        case 34u: { return vec3(48.0, 18.0, 59.0); }
        // turbo from the middle up
        case 35u: { return vec3(164.0, 252.0, 60.0); }
        case 36u: { return vec3(232.0, 212.0, 58.0); }
        case 37u: { return vec3(251.0, 129.0, 34.0); }
        case 38u: { return vec3(208.0, 47.0, 5.0); }
        default: { return vec3(122.0, 4.0, 3.0); }
    }
}

// The first map id of a sequential map (nine stops from lo to hi, stored as
// two ramps split at the middle stop).
const SEQUENTIAL_FROM: u32 = 2u;

// sRGB colour (0..1) at u (0..1) along ramp `side` of `map`.
fn ramp(map: u32, side: u32, u: f32) -> vec3<f32> {
    let x = u * 4.0;
    let i = min(u32(floor(x)), 3u);
    let f = x - f32(i);
    let c = mix(ramp_stop(map, side, i), ramp_stop(map, side, i + 1u), f);
    return round(c) / 255.0;
}

// |v| / span clamped to 0..1 (NaN: 1); mirrors ColorMap::color_between.
fn fraction(v: f32, span: f32) -> f32 {
    let u = clamp(v / max(span, 1.0e-38), 0.0, 1.0);
    return select(1.0, u, u == u);
}

// sRGB colour (0..1) of `value` on the range lo..hi; mirrors
// ColorMap::color_between.
fn colormap(map: u32, value: f32, lo: f32, hi: f32) -> vec3<f32> {
    if map >= SEQUENTIAL_FROM {
        let t = 2.0 * fraction(value - lo, hi - lo) - 1.0;
        return ramp(map, select(0u, 1u, t >= 0.0), abs(t));
    }
    if lo < 0.0 && hi > 0.0 {
        if value < 0.0 {
            return ramp(map, 0u, fraction(-value, -lo));
        }
        return ramp(map, 1u, fraction(value, hi));
    }
    if lo >= 0.0 {
        return ramp(map, 1u, fraction(value - lo, hi - lo));
    }
    return ramp(map, 0u, fraction(hi - value, hi - lo));
}

// ---- mesh: flat shading with a headlight ---------------------------------

struct MeshIn {
    @location(0) pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec4<f32>,
}

struct MeshOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec4<f32>,
}

@vertex
fn vs_mesh(v: MeshIn) -> MeshOut {
    var out: MeshOut;
    out.clip = u.clip_from_world * vec4(v.pos, 1.0);
    out.world = v.pos;
    out.normal = v.normal;
    out.color = v.color;
    return out;
}

@fragment
fn fs_mesh(in: MeshOut) -> @location(0) vec4<f32> {
    let to_eye = normalize(u.eye.xyz - in.world);
    // Two-sided: open meshes show their back faces lit too.
    let n = in.normal;
    let lambert = abs(dot(n, to_eye)) / max(length(n), 1.0e-20);
    let shade = 0.18 + 0.82 * lambert;
    return vec4(in.color.rgb * shade, in.color.a * u.cell_params.w);
}

// ---- lines and wireframe -------------------------------------------------

struct LineIn {
    @location(0) pos: vec3<f32>,
    @location(1) color: vec4<f32>,
}

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
}

@vertex
fn vs_lines(v: LineIn) -> LineOut {
    var out: LineOut;
    out.clip = u.clip_from_world * vec4(v.pos, 1.0);
    out.color = v.color;
    return out;
}

// The wireframe is pulled towards the eye along the view ray: it projects to
// the same pixels but wins the depth test against its own faces (depth bias
// does not apply to line primitives).
@vertex
fn vs_wire(v: LineIn) -> LineOut {
    var out: LineOut;
    let p = u.eye.xyz + (v.pos - u.eye.xyz) * (1.0 - u.viewport.w);
    out.clip = u.clip_from_world * vec4(p, 1.0);
    out.color = v.color;
    return out;
}

@fragment
fn fs_lines(in: LineOut) -> @location(0) vec4<f32> {
    return in.color;
}

// ---- cells: instanced round point sprites --------------------------------

struct PointIn {
    @builtin(vertex_index) vertex: u32,
    // xyz: cell centre; w: signed distance.
    @location(0) cell: vec4<f32>,
}

struct PointOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) corner: vec2<f32>,
    @location(1) @interpolate(flat) color: vec3<f32>,
}

fn keep_cell(p: vec3<f32>, value: f32) -> bool {
    let bits = u.cell_flags.y;
    if (bits & FILTER_INSIDE) != 0u && !(value < 0.0) {
        return false;
    }
    if (bits & FILTER_OUTSIDE) != 0u && value < 0.0 {
        return false;
    }
    if (bits & FILTER_BAND) != 0u && !(abs(value) < u.cell_params.y) {
        return false;
    }
    if (bits & FILTER_CLIP) != 0u && dot(u.clip_plane.xyz, p) > u.clip_plane.w {
        return false;
    }
    return true;
}

@vertex
fn vs_points(v: PointIn) -> PointOut {
    // A triangle strip (-1,-1) (1,-1) (-1,1) (1,1) from the bits of
    // vertex_index (no array: see ramp_stop).
    let k = v.vertex & 3u;
    let corner = vec2(f32(k & 1u), f32(k >> 1u)) * 2.0 - 1.0;
    var out: PointOut;
    out.corner = corner;
    if !keep_cell(v.cell.xyz, v.cell.w) {
        // Outside the clip volume (z > w): the whole quad is culled.
        out.clip = vec4(0.0, 0.0, 2.0, 1.0);
        out.color = vec3(0.0);
        return out;
    }
    out.color = srgb_to_linear(colormap(u.cell_flags.x, v.cell.w, u.cell_params.x, u.cell_params.z));
    let c = u.clip_from_world * vec4(v.cell.xyz, 1.0);
    // corner is ±1, so the quad spans point_size pixels: NDC spans 2 per viewport.
    let offset = corner * u.viewport.z / u.viewport.xy;
    out.clip = vec4(c.xy + offset * c.w, c.z, c.w);
    return out;
}

@fragment
fn fs_points(in: PointOut) -> @location(0) vec4<f32> {
    if dot(in.corner, in.corner) > 1.0 {
        discard;
    }
    return vec4(in.color, 1.0);
}
