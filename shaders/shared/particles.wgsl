// Closed-form particles against implicit colliders (Knott 2003, ch. 3):
// the f32 twin of src/stages/particles/{flight,collider,poly}.rs, line for
// line (see their docs for the method). Needs the includer's bindings
// `emitters` and `colliders` and its uniform `frame`.

struct Frame {
    // The window [t_begin, t_begin + dt).
    t_begin: f32,
    dt: f32,
    _pad: f32,
    restitution: f32,
    num_particles: u32,
    num_emitters: u32,
    num_colliders: u32,
    bounces: u32,
    capacity: u32,
    flight_capacity: u32,
    record_flights: u32,
    map_res: u32,
}

struct Emitter {
    position: vec3<f32>,
    position_jitter: f32,
    velocity: vec3<f32>,
    velocity_jitter: f32,
    acc: vec3<f32>,
    lifetime: f32,
    first: u32,
    count: u32,
    seed: u32,
    _pad: u32,
}

// f(p) = [p,1]ᵀ·q·[p,1]; constraint i: kind 1 slab |con.xyz·p − con.w| <
// half[i], kind 2 ball |p − con.xyz| < con.w. kinds.w: the map kind.
struct Collider {
    q: mat4x4<f32>,
    con: array<vec4<f32>, 3>,
    half: vec4<f32>,
    kinds: vec4<u32>,
    map_origin: vec4<f32>,
    // axis.xyz, w = 1 / scale
    map_axes: array<vec4<f32>, 3>,
}

struct Impact {
    p: vec3<f32>,
    // Impact time − frame.t_begin.
    t: f32,
    n: vec3<f32>,
    speed: f32,
    p0: vec3<f32>,
    // Flight start − frame.t_begin.
    t0: f32,
    v0: vec3<f32>,
    collider: u32,
    particle: u32,
    generation: u32,
    flight: u32,
    _pad: u32,
}

struct FlightRecord {
    p0: vec3<f32>,
    t0: f32,
    v0: vec3<f32>,
    hit: i32,
    particle: u32,
    generation: u32,
    flight: u32,
    _pad: u32,
}

const CON_SLAB: u32 = 1u;
const CON_BALL: u32 = 2u;
const MAP_LINEAR: u32 = 0u;
const MAP_ANGLE_HEIGHT: u32 = 1u;
const MAP_SPHERICAL: u32 = 2u;
const NO_COLLIDER: u32 = 0xffffffffu;
const TAU: f32 = 6.283185307179586;
const PI: f32 = 3.141592653589793;

fn pcg(v: u32) -> u32 {
    let state = v * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

fn unit(h: u32) -> f32 {
    return f32(h >> 8u) * (1.0 / 16777216.0);
}

// ---- polynomials of degree ≤ 4 (poly.rs) ----

struct Roots {
    n: u32,
    t: array<f32, 4>,
}

fn peval(c: array<f32, 5>, t: f32) -> f32 {
    return (((c[4] * t + c[3]) * t + c[2]) * t + c[1]) * t + c[0];
}

fn psign(c: array<f32, 5>, t: f32) -> i32 {
    let h = peval(c, t);
    let a = abs(t);
    let size = (((abs(c[4]) * a + abs(c[3])) * a + abs(c[2])) * a + abs(c[1])) * a + abs(c[0]);
    if abs(h) <= 16.0 * 1.1920929e-7 * size {
        return 0;
    }
    return select(-1, 1, h > 0.0);
}

fn deriv(c: array<f32, 5>) -> array<f32, 5> {
    return array<f32, 5>(c[1], 2.0 * c[2], 3.0 * c[3], 4.0 * c[4], 0.0);
}

fn degree(c: array<f32, 5>) -> u32 {
    for (var i = 4; i > 0; i--) {
        if c[i] != 0.0 {
            return u32(i);
        }
    }
    return 0u;
}

fn push(r: ptr<function, Roots>, t: f32) {
    (*r).t[(*r).n] = t;
    (*r).n += 1u;
}

// Roots in (lo, hi), sorted, of a polynomial of degree ≤ 2.
fn roots_le2(c: array<f32, 5>, lo: f32, hi: f32) -> Roots {
    var out: Roots;
    let d = degree(c);
    if d == 1u {
        let t = -c[0] / c[1];
        if t > lo && t < hi {
            push(&out, t);
        }
    } else if d == 2u {
        let disc = c[1] * c[1] - 4.0 * c[2] * c[0];
        if disc >= 0.0 {
            let sgn = select(-1.0, 1.0, c[1] >= 0.0);
            let q = -0.5 * (c[1] + sgn * sqrt(disc));
            var r0 = q / c[2];
            var r1 = select(q / c[2], c[0] / q, q != 0.0);
            if r1 < r0 {
                let s = r0;
                r0 = r1;
                r1 = s;
            }
            if r0 > lo && r0 < hi {
                push(&out, r0);
            }
            if r1 > lo && r1 < hi && (out.n == 0u || r1 != r0) {
                push(&out, r1);
            }
        }
    }
    return out;
}

fn root_in(c: array<f32, 5>, a0: f32, b0: f32, neg_at_a: bool) -> f32 {
    var a = a0;
    var b = b0;
    if degree(c) <= 2u {
        let r = roots_le2(c, -3.0e38, 3.0e38);
        if r.n > 0u {
            let mid = 0.5 * (a + b);
            var best = r.t[0];
            if r.n > 1u && abs(r.t[1] - mid) < abs(best - mid) {
                best = r.t[1];
            }
            return clamp(best, a, b);
        }
    }
    let d = deriv(c);
    var t = 0.5 * (a + b);
    for (var i = 0; i < 60; i++) {
        let h = peval(c, t);
        if h == 0.0 {
            return t;
        }
        if (h <= 0.0) == neg_at_a {
            a = t;
        } else {
            b = t;
        }
        if b - a <= 1.1920929e-7 * max(max(abs(a), abs(b)), 1.0e-30) {
            break;
        }
        let step = t - h / peval(d, t);
        t = select(0.5 * (a + b), step, step > a && step < b);
    }
    return clamp(t, a, b);
}

// The sign changes of c in (lo, hi), given its critical points.
fn crossings_given(c: array<f32, 5>, lo: f32, hi: f32, crit: Roots) -> Roots {
    var out: Roots;
    var a = lo;
    var sa = psign(c, lo);
    var zero_at = 0.0;
    var has_zero = false;
    for (var i = 0u; i <= crit.n; i++) {
        let b = select(hi, crit.t[min(i, 3u)], i < crit.n);
        let sb = psign(c, b);
        if sb == 0 {
            if !has_zero {
                zero_at = b;
                has_zero = true;
            }
            continue;
        }
        if sa != 0 && sb != sa {
            push(&out, select(root_in(c, a, b, sa < 0), zero_at, has_zero));
        }
        a = b;
        sa = sb;
        has_zero = false;
    }
    return out;
}

fn critical_points(c: array<f32, 5>, lo: f32, hi: f32) -> Roots {
    let d = deriv(c);
    if degree(d) <= 2u {
        return roots_le2(d, lo, hi);
    }
    return crossings_given(d, lo, hi, roots_le2(deriv(d), lo, hi));
}

// ---- colliders (collider.rs) ----

fn hom(p: vec3<f32>) -> vec4<f32> {
    return vec4<f32>(p, 1.0);
}

fn gradient(c: Collider, p: vec3<f32>) -> vec3<f32> {
    return 2.0 * (c.q * hom(p)).xyz;
}

fn accepts(c: Collider, p: vec3<f32>) -> bool {
    for (var i = 0u; i < 3u; i++) {
        let k = c.kinds[i];
        let con = c.con[i];
        if k == CON_SLAB && !(abs(dot(con.xyz, p) - con.w) < c.half[i]) {
            return false;
        }
        if k == CON_BALL && !(dot(p - con.xyz, p - con.xyz) < con.w * con.w) {
            return false;
        }
    }
    return true;
}

fn hit_poly(c: Collider, p0: vec3<f32>, v0: vec3<f32>, acc: vec3<f32>) -> array<f32, 5> {
    let a = hom(p0);
    let b = vec4<f32>(v0, 0.0);
    let g = vec4<f32>(0.5 * acc, 0.0);
    let qa = c.q * a;
    let qb = c.q * b;
    let qg = c.q * g;
    return array<f32, 5>(dot(a, qa), 2.0 * dot(a, qb), dot(b, qb) + 2.0 * dot(a, qg), 2.0 * dot(b, qg), dot(g, qg));
}

fn map_uv(c: Collider, p: vec3<f32>) -> vec2<f32> {
    let d = p - c.map_origin.xyz;
    let q = vec3<f32>(
        dot(c.map_axes[0].xyz, d) * c.map_axes[0].w,
        dot(c.map_axes[1].xyz, d) * c.map_axes[1].w,
        dot(c.map_axes[2].xyz, d) * c.map_axes[2].w,
    );
    let azimuth = atan2(q.y, q.x) / TAU + 0.5;
    var uv: vec2<f32>;
    switch c.kinds.w {
        case MAP_LINEAR: {
            uv = 0.5 * (q.xy + vec2<f32>(1.0));
        }
        case MAP_ANGLE_HEIGHT: {
            uv = vec2<f32>(azimuth, q.z);
        }
        default: {
            let len = length(q);
            let polar = select(0.0, acos(clamp(q.z / len, -1.0, 1.0)), len > 0.0);
            uv = vec2<f32>(azimuth, polar / PI);
        }
    }
    return clamp(uv, vec2<f32>(0.0), vec2<f32>(0.99999994));
}

// ---- flights (flight.rs) ----

struct Flight {
    t0: f32,
    p0: vec3<f32>,
    v0: vec3<f32>,
    acc: vec3<f32>,
    end: f32,
    index: u32,
    start_on: u32,
}

struct Hit {
    found: bool,
    collider: u32,
    // Global impact time f.t0 + tau.
    t: f32,
    tau: f32,
    p: vec3<f32>,
    n: vec3<f32>,
    v: vec3<f32>,
}

fn position(f: Flight, tau: f32) -> vec3<f32> {
    return f.p0 + f.v0 * tau + 0.5 * f.acc * tau * tau;
}

fn earliest_hit(f: Flight) -> Hit {
    var best_id = NO_COLLIDER;
    var best_tau = 3.0e38;
    let span = f.end - f.t0;
    for (var id = 0u; id < frame.num_colliders; id++) {
        let c = colliders[id];
        var h = hit_poly(c, f.p0, f.v0, f.acc);
        if f.start_on == id {
            h = array<f32, 5>(h[1], h[2], h[3], h[4], 0.0);
        }
        let r = crossings_given(h, 0.0, span, critical_points(h, 0.0, span));
        for (var i = 0u; i < r.n; i++) {
            let tau = r.t[i];
            if accepts(c, position(f, tau)) {
                if tau < best_tau {
                    best_tau = tau;
                    best_id = id;
                }
                break;
            }
        }
    }
    return hit_at(f, best_id, best_tau);
}

// The hit of flight `f` on collider `id` (NO_COLLIDER: none) after `tau`:
// what `earliest_hit` returns, rebuilt from the two numbers it found.
fn hit_at(f: Flight, id: u32, tau: f32) -> Hit {
    var best = Hit(false, NO_COLLIDER, 0.0, 0.0, vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    if id != NO_COLLIDER {
        let p = position(f, tau);
        let v = f.v0 + f.acc * tau;
        let g = gradient(colliders[id], p);
        var n = select(-normalize(v), normalize(g), dot(g, g) > 0.0);
        if dot(n, v) > 0.0 {
            n = -n;
        }
        best = Hit(true, id, f.t0 + tau, tau, p, n, v);
    }
    return best;
}

fn bounce(f: Flight, h: Hit) -> Flight {
    let vn = dot(h.v, h.n);
    return Flight(h.t, h.p, h.v - (1.0 + frame.restitution) * vn * h.n, f.acc, f.end, f.index + 1u, h.collider);
}

struct Particle {
    emitter: u32,
    local: u32,
    key: u32,
    phase: f32,
}

fn particle_of(pid: u32) -> Particle {
    var e = 0u;
    for (var i = 0u; i < frame.num_emitters; i++) {
        if pid >= emitters[i].first {
            e = i;
        }
    }
    let local = pid - emitters[e].first;
    let key = pcg(pcg(emitters[e].seed) ^ local);
    return Particle(e, local, key, unit(key));
}

fn generation_at(t: f32, e: Emitter, phase: f32) -> i32 {
    return i32(floor(t / e.lifetime + phase));
}

fn first_flight(pt: Particle, g: u32) -> Flight {
    let e = emitters[pt.emitter];
    let gk = pcg(pt.key ^ pcg(g));
    var r: array<f32, 6>;
    for (var k = 0u; k < 6u; k++) {
        r[k] = 2.0 * unit(pcg(gk + k)) - 1.0;
    }
    let p = e.position + e.position_jitter * vec3<f32>(r[0], r[1], r[2]);
    let v = e.velocity + e.velocity_jitter * vec3<f32>(r[3], r[4], r[5]);
    let t0 = (f32(g) - pt.phase) * e.lifetime;
    return Flight(t0, p, v, e.acc, t0 + e.lifetime, 0u, NO_COLLIDER);
}

// ---- the window's lives and the per-particle state (particles_scan.wgsl,
// particles_eval.wgsl) ----

// Most lives one window may overlap (a window longer than a life).
const MAX_LIVES: i32 = 64;

// The generations whose lives overlap the window [a, b).
fn lives_in(a: f32, b: f32, e: Emitter, phase: f32) -> vec2<i32> {
    let g_a = max(generation_at(a, e, phase), 0);
    return vec2<i32>(g_a, min(generation_at(b, e, phase), g_a + MAX_LIVES));
}

// A particle's state, kept by the evaluation between windows: the flight
// its last evaluated window ended in, and that flight's end.
//   check = [generation + 1 (0: none yet), bits of t0, bits of the hit's
//            global time (+inf: no hit), bounce index]
//   flight = [p0, tau], [v0, bits of hit collider | start_on << 16]
// Every earlier flight of the chain ends at or before t0, so a window
// starting after t0 may resume from it (see `resumes`).
const NO_HIT_TIME: u32 = 0x7f800000u;
const NO_ID16: u32 = 0xffffu;

// The kept flight of particle `pt` from its state: check `s` and the two
// vec4 of its flight (of life s.x − 1).
fn kept_flight_of(pt: Particle, s: vec4<u32>, start: vec4<f32>, ends: vec4<f32>) -> Flight {
    let e = emitters[pt.emitter];
    let t_birth = (f32(s.x - 1u) - pt.phase) * e.lifetime;
    return Flight(bitcast<f32>(s.y), start.xyz, ends.xyz, e.acc, t_birth + e.lifetime, s.w, id32(bitcast<u32>(ends.w) >> 16u));
}

fn resumes(check: vec4<u32>, g: i32, a: f32) -> bool {
    return check.x == u32(g) + 1u && bitcast<f32>(check.y) < a;
}

// True when the window [a, b) cannot change the particle: one life, the
// kept flight started before the window and it neither ends inside the
// window nor, having ended before it, goes on to a bounce.
fn unchanged(check: vec4<u32>, lives: vec2<i32>, a: f32, b: f32) -> bool {
    if lives.x != lives.y || !resumes(check, lives.x, a) {
        return false;
    }
    let t_hit = bitcast<f32>(check.z);
    return t_hit >= b || (t_hit < a && check.w >= frame.bounces);
}

fn id16(id: u32) -> u32 {
    return select(id, NO_ID16, id == NO_COLLIDER);
}

fn id32(id: u32) -> u32 {
    return select(id, NO_COLLIDER, id == NO_ID16);
}
