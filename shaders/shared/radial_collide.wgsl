// Particles against radial fields (Friston & Steed 2019, §6): cylinder
// broad phase, pseudo-continuous detection in n substeps, the cell split
// into two triangles, response with friction (equations 5–11).
//
// The CPU reference it mirrors operation for operation, with the method:
// src/sim/radial/fields.rs (surface) and src/sim/radial/collide.rs.
//
// The includer declares the bindings read here:
//   frames:      array<FieldFrame>  each field's current frame
//   prev_frames: array<FieldFrame>  its frame at the start of the step
//   radius:      array<f32>         broad-phase cylinder radius per field
//   values:      array<f32>         every field's cells, +inf = empty

// One field (src/stages/radial/frame.rs, FieldFrameGpu): cell (i, k) at
// values[offset + k * n_theta + i].
struct FieldFrame {
    a: vec3f,
    length: f32,
    u: vec3f,
    n_theta: u32,
    v: vec3f,
    n_z: u32,
    w: vec3f,
    offset: u32,
}

const NO_CONTACT: u32 = 0xffffffffu;
const EPS: f32 = 1e-7;
const TAU: f32 = 6.2831855;

fn to_field(f: FieldFrame, p: vec3f) -> vec3f {
    let d = p - f.a;
    return vec3f(dot(d, f.u), dot(d, f.v), dot(d, f.w));
}

fn from_field(f: FieldFrame, s: vec3f) -> vec3f {
    return f.a + f.u * s.x + f.v * s.y + f.w * s.z;
}

// The field-space position of sample (column i, row k), i wrapping, k in
// [-1, n_z] (the end rows extended half a cell); w = 0 when the sample is
// empty, zero or negative (bits: +inf and the sign bit are ≥ 0x7f800000).
fn corner(f: FieldFrame, i: i32, k: i32) -> vec4f {
    let nt = i32(f.n_theta);
    let nz = i32(f.n_z);
    let col = ((i % nt) + nt) % nt;
    let row = clamp(k, 0, nz - 1);
    let d = values[u32(i32(f.offset) + row * nt + col)];
    let bits = bitcast<u32>(d);
    if bits == 0u || bits >= 0x7f800000u {
        return vec4f(0.0);
    }
    let angle = TAU * (f32(col) + 0.5) / f32(nt);
    let z = (f32(k) + 0.5) / f32(nz) * f.length;
    return vec4f(d * cos(angle), d * sin(angle), z, 1.0);
}

struct Plane {
    origin: vec3f,
    normal: vec3f,
    ok: bool,
}

// The plane of the cell triangle under field-space point s (§6.3.1).
fn surface(f: FieldFrame, s: vec3f) -> Plane {
    let none = Plane(vec3f(0.0), vec3f(0.0), false);
    let zn = s.z / f.length;
    if !(zn >= 0.0 && zn <= 1.0) {
        return none;
    }
    let turns = atan2(s.y, s.x) / TAU;
    let theta = turns - floor(turns);
    let gx = theta * f32(f.n_theta) - 0.5;
    let gz = zn * f32(f.n_z) - 0.5;
    let i0f = floor(gx);
    let k0f = floor(gz);
    let fx = gx - i0f;
    let fz = gz - k0f;
    let i0 = i32(i0f);
    let k0 = i32(k0f);
    let c00 = corner(f, i0, k0);
    let c10 = corner(f, i0 + 1, k0);
    let c01 = corner(f, i0, k0 + 1);
    let c11 = corner(f, i0 + 1, k0 + 1);
    if c00.w == 0.0 || c10.w == 0.0 || c01.w == 0.0 || c11.w == 0.0 {
        return none;
    }
    let a = c00.xyz;
    var b = c11.xyz;
    var c = c01.xyz;
    if fx >= fz {
        b = c10.xyz;
        c = c11.xyz;
    }
    let n = cross(b - a, c - a);
    let centroid = (a + b + c) / 3.0;
    let outward = vec3f(centroid.x, centroid.y, 0.0);
    let len = length(n);
    if !(len > 0.0) {
        return none;
    }
    var nn = n;
    if dot(n, outward) < 0.0 {
        nn = -n;
    }
    return Plane(a, nn / len, true);
}

fn plane_distance(p: Plane, s: vec3f) -> f32 {
    return dot(p.normal, s - p.origin);
}

// Whether the field-space segment s0→s1 can touch the cylinder (§6.1).
fn broad_phase(s0: vec3f, s1: vec3f, len: f32, r: f32) -> bool {
    if max(s0.z, s1.z) < 0.0 || min(s0.z, s1.z) > len {
        return false;
    }
    let a = s0.xy;
    let d = (s1 - s0).xy;
    let dd = dot(d, d);
    var t = 0.0;
    if dd > 0.0 {
        t = clamp(-dot(a, d) / dd, 0.0, 1.0);
    }
    return length(a + d * t) <= r;
}

// Equations 5–11 in field space; returns the new q1.
fn respond(q: vec3f, q1: vec3f, hit: vec3f, plane: Plane, friction: f32) -> vec3f {
    let n = plane.normal;
    let p = hit - n * plane_distance(plane, hit);
    let vp = q1 - p;
    let vn = -n * dot(vp, n);
    let vq = q1 - q;
    let lq = length(vq);
    var p_true = q;
    if lq > EPS {
        let dir = vq / lq;
        let den = dot(n, dir);
        var dp = lq;
        if abs(den) > EPS {
            dp = dot(n, plane.origin - q) / den;
        }
        p_true = q + dir * max(min(dp, lq), 0.0);
    }
    let below = q1 - p_true;
    let below_t = length(below - n * dot(below, n));
    let tangent = vp + vn;
    let lt = length(tangent);
    var vt = vec3f(0.0);
    if lt > EPS {
        vt = -tangent / lt * (friction * below_t);
    }
    return q1 + vn + vt;
}

// Whether substep point j of n on the field-space segment s0→s1 lies
// under its cell's surface (§6.2).
fn penetrates(f: FieldFrame, s0: vec3f, s1: vec3f, j: u32, n: u32) -> bool {
    let s = substep_point(s0, s1, j, n);
    let plane = surface(f, s);
    return plane.ok && plane_distance(plane, s) < 0.0;
}

fn substep_point(s0: vec3f, s1: vec3f, j: u32, n: u32) -> vec3f {
    return s0 + (s1 - s0) * (f32(j) / f32(n));
}

// The response to the penetration found at substep j (the first under the
// surface): q1 (world) moved back onto the field's surface, in world space.
fn respond_at(f: FieldFrame, q: vec3f, s0: vec3f, s1: vec3f, j: u32, n: u32, friction: f32) -> vec3f {
    let s = substep_point(s0, s1, j, n);
    let moved = respond(to_field(f, q), s1, s, surface(f, s), friction);
    return from_field(f, moved);
}
