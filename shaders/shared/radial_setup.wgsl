// The per-triangle set-up and per-cell distance of radial-field
// rasterisation (Friston & Steed 2019, §5.1–5.2), shared by the render
// pipeline (radial.wgsl) and the compute rasteriser
// (radial_compute.wgsl). Mirrors src/stages/radial/setup.rs line by line.
// Uses no bindings.

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
const MAX_DISTANCE: f32 = 3.4e38;
const NEAR_AXIS: f32 = 1e-3;
const TAU: f32 = 6.283185307179586;

// One triangle set up in one field; `ok` false: culled.
struct Setup {
    ok: bool,
    // Rasteriser θ (shifted by ½ when wrapped) and z of each corner.
    theta: vec3<f32>,
    z: vec3<f32>,
    wrapped: bool,
    // Unit normal (xyz) and offset (w) of the plane, in field space.
    plane: vec4<f32>,
    r_max: f32,
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

// The set-up of the triangle with world corners `p` in field `f`.
fn radial_setup(f: FieldFrame, p: array<vec3<f32>, 3>, min_facing: f32) -> Setup {
    var s: Setup;
    s.ok = false;
    var q: array<vec3<f32>, 3>;
    for (var j = 0u; j < 3u; j++) {
        q[j] = to_field(f, p[j]);
    }
    // Axis crossing: the constant terms of the edge functions at the origin.
    let e0 = perp_dot(q[0].xy, q[1].xy);
    let e1 = perp_dot(q[1].xy, q[2].xy);
    let e2 = perp_dot(q[2].xy, q[0].xy);
    if (e0 >= 0.0 && e1 >= 0.0 && e2 >= 0.0) || (e0 <= 0.0 && e1 <= 0.0 && e2 <= 0.0) {
        return s;
    }
    // Nearly on the axis: culled on a well-conditioned distance.
    var near = 3.4e38;
    var longest = 0.0;
    for (var j = 0u; j < 3u; j++) {
        let a = q[j].xy;
        let ab = q[(j + 1u) % 3u].xy - a;
        let len2 = dot(ab, ab);
        var t = 0.0;
        if len2 > 0.0 {
            t = clamp(-dot(a, ab) / len2, 0.0, 1.0);
        }
        near = min(near, length(a + ab * t));
        longest = max(longest, sqrt(len2));
    }
    if near < NEAR_AXIS * longest {
        return s;
    }
    // (u, v, w) is left-handed: swapped edges give the world normal.
    let n = cross(q[2] - q[0], q[1] - q[0]);
    let centroid = (q[0] + q[1] + q[2]) / 3.0;
    let radial = centroid.xy;
    let n_len = length(n);
    let radial_len = length(radial);
    if !(n_len > 0.0 && radial_len > 0.0) {
        return s;
    }
    let normal = n / n_len;
    let facing = (normal.x * radial.x + normal.y * radial.y) / radial_len;
    if !(facing >= min_facing) {
        return s;
    }
    let theta = vec3<f32>(theta_of(q[0]), theta_of(q[1]), theta_of(q[2]));
    let span = max(max(theta.x, theta.y), theta.z) - min(min(theta.x, theta.y), theta.z);
    s.ok = true;
    s.wrapped = span > 0.5;
    s.theta = theta;
    if s.wrapped {
        let shifted = theta + 0.5;
        s.theta = shifted - floor(shifted);
    }
    s.z = vec3<f32>(q[0].z, q[1].z, q[2].z) / f.length;
    s.plane = vec4<f32>(normal, dot(normal, q[0]));
    s.r_max = max(max(length(q[0].xy), length(q[1].xy)), length(q[2].xy));
    return s;
}

// The field column of rasteriser column x: the seam shift undone.
fn field_column(f: FieldFrame, x: u32, wrapped: bool) -> u32 {
    return select(x, (x + f.n_theta / 2u) % f.n_theta, wrapped);
}

// The distance along the ray through the centre of cell (i, k) to the
// plane, clamped to r_max when `clamp_far`; negative when the ray meets
// the back of the plane or misses it. (`t < MAX_DISTANCE` also drops +inf:
// WGSL has no isinf.)
fn cell_distance(f: FieldFrame, plane: vec4<f32>, r_max: f32, i: u32, k: u32, clamp_far: bool) -> f32 {
    let theta = (f32(i) + 0.5) / f32(f.n_theta);
    let z = (f32(k) + 0.5) / f32(f.n_z) * f.length;
    let angle = theta * TAU;
    let denom = plane.x * cos(angle) + plane.y * sin(angle);
    let t = (plane.w - plane.z * z) / denom;
    if denom > 0.0 && t > 0.0 && t < MAX_DISTANCE {
        return select(t, min(t, r_max), clamp_far);
    }
    return -1.0;
}
