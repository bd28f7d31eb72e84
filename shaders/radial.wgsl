// Radial-field rasterisation (Friston & Steed 2019, §5), mirrored by
// src/stages/radial/setup.rs (per-triangle set-up) and cpu.rs (coverage).
//
// One draw of 3 vertices per (field, triangle) pair. wgpu has no geometry
// shader, so each vertex invocation pulls its whole triangle from the
// storage buffers, transforms it into field space, culls it (axis
// crossing, back-facing, nearly perpendicular), wraps it across the seam
// (eq. 4) and emits its own corner at (θ₁, z) with the triangle's plane as
// flat attributes. A culled triangle collapses to a point off screen. The
// fragment stage intersects the ray through its cell centre with the plane
// (§5.2), clamps by the vertex distances (§5.2.2) and keeps the nearest
// with atomicMin on the f32 bits (positive floats order as their bits).
// `clear` fills the values with +inf before each update (§5.3).

struct Params {
    n_theta: u32,
    n_z: u32,
    pairs: u32,
    cells: u32,
    min_facing: f32,
    clamp_far: u32,
    _pad0: u32,
    _pad1: u32,
}

struct FieldFrame {
    a: vec3<f32>,
    length: f32,
    u: vec3<f32>,
    n_theta: u32,
    v: vec3<f32>,
    n_z: u32,
    w: vec3<f32>,
    offset: u32,
}

const INF_BITS: u32 = 0x7f800000u;
const CLEAR_GROUP: u32 = 256u;
const MAX_DISTANCE: f32 = 3.4e38;
const TAU: f32 = 6.283185307179586;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> frames: array<FieldFrame>;
@group(0) @binding(2) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> triangles: array<u32>;
@group(0) @binding(4) var<storage, read> pairs: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> values: array<atomic<u32>>;

struct Corner {
    @builtin(position) position: vec4<f32>,
    @location(0) @interpolate(flat) field: u32,
    @location(1) @interpolate(flat) wrapped: u32,
    // Unit normal (xyz) and offset (w) of the plane, in field space.
    @location(2) @interpolate(flat) plane: vec4<f32>,
    @location(3) @interpolate(flat) r_max: f32,
}

fn to_field(f: FieldFrame, p: vec3<f32>) -> vec3<f32> {
    let d = p - f.a;
    return vec3<f32>(dot(d, f.u), dot(d, f.v), dot(d, f.w));
}

fn theta_of(q: vec3<f32>) -> f32 {
    let turns = atan2(q.y, q.x) / TAU;
    let t = turns - floor(turns);
    return select(t, 0.0, t >= 1.0);
}

fn perp_dot(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return a.x * b.y - a.y * b.x;
}

fn culled(field: u32) -> Corner {
    var out: Corner;
    out.position = vec4<f32>(-2.0, -2.0, 0.5, 1.0);
    out.field = field;
    out.wrapped = 0u;
    out.plane = vec4<f32>(0.0);
    out.r_max = 0.0;
    return out;
}

@vertex
fn vs_main(@builtin(vertex_index) vertex: u32) -> Corner {
    let pair = pairs[vertex / 3u];
    let corner = vertex % 3u;
    let f = frames[pair.x];
    var q: array<vec3<f32>, 3>;
    for (var j = 0u; j < 3u; j++) {
        q[j] = to_field(f, positions[triangles[3u * pair.y + j]].xyz);
    }
    // Axis crossing: the constant terms of the edge functions at the origin.
    let e0 = perp_dot(q[0].xy, q[1].xy);
    let e1 = perp_dot(q[1].xy, q[2].xy);
    let e2 = perp_dot(q[2].xy, q[0].xy);
    if (e0 >= 0.0 && e1 >= 0.0 && e2 >= 0.0) || (e0 <= 0.0 && e1 <= 0.0 && e2 <= 0.0) {
        return culled(pair.x);
    }
    // (u, v, w) is left-handed: swapped edges give the world normal.
    let n = cross(q[2] - q[0], q[1] - q[0]);
    let centroid = (q[0] + q[1] + q[2]) / 3.0;
    let radial = centroid.xy;
    let n_len = length(n);
    let radial_len = length(radial);
    if !(n_len > 0.0 && radial_len > 0.0) {
        return culled(pair.x);
    }
    let normal = n / n_len;
    let facing = (normal.x * radial.x + normal.y * radial.y) / radial_len;
    if !(facing >= params.min_facing) {
        return culled(pair.x);
    }
    let t0 = theta_of(q[0]);
    let t1 = theta_of(q[1]);
    let t2 = theta_of(q[2]);
    let span = max(max(t0, t1), t2) - min(min(t0, t1), t2);
    let wrapped = span > 0.5;
    var theta = array<f32, 3>(t0, t1, t2)[corner];
    if wrapped {
        let s = theta + 0.5;
        theta = s - floor(s);
    }
    let z = q[corner].z / f.length;
    var out: Corner;
    out.position = vec4<f32>(2.0 * theta - 1.0, 1.0 - 2.0 * z, 0.5, 1.0);
    out.field = pair.x;
    out.wrapped = select(0u, 1u, wrapped);
    out.plane = vec4<f32>(normal, dot(normal, q[0]));
    out.r_max = max(max(length(q[0].xy), length(q[1].xy)), length(q[2].xy));
    return out;
}

@fragment
fn fs_main(c: Corner) -> @location(0) vec4<f32> {
    let f = frames[c.field];
    let x = u32(c.position.x);
    let k = u32(c.position.y);
    let i = select(x, (x + f.n_theta / 2u) % f.n_theta, c.wrapped == 1u);
    let theta = (f32(i) + 0.5) / f32(f.n_theta);
    let z = (f32(k) + 0.5) / f32(f.n_z) * f.length;
    let angle = theta * TAU;
    let denom = c.plane.x * cos(angle) + c.plane.y * sin(angle);
    let t = (c.plane.w - c.plane.z * z) / denom;
    // `t < MAX_DISTANCE` also drops +inf (WGSL has no isinf).
    if denom > 0.0 && t > 0.0 && t < MAX_DISTANCE {
        let d = select(t, min(t, c.r_max), params.clamp_far == 1u);
        atomicMin(&values[f.offset + k * f.n_theta + i], bitcast<u32>(d));
    }
    return vec4<f32>(0.0);
}

@compute @workgroup_size(CLEAR_GROUP)
fn clear(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let index = gid.y * groups.x * CLEAR_GROUP + gid.x;
    if index < params.cells {
        atomicStore(&values[index], INF_BITS);
    }
}
