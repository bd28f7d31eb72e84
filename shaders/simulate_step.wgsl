//!include shared/field_contact.wgsl
//!include shared/flat_index.wgsl

// The whole rigid-body step on the GPU with the body state resident
// (Rust side and method: src/sim/simulate/resident/mod.rs). Per substep:
// `begin_main` (gravity, swept world boxes, counters cleared), the broad
// phase of broad_phase.wgsl on `boxes`, `narrow_args_main` and
// `narrow_main` (one workgroup per candidate pair and side: the side's
// sampling points against the other body's field or the ground plane,
// contacts appended), `rows_args_main` and `prepare_main` (each contact's
// effective mass with the bodies' masses split over their contacts),
// `iterations` × (`solve_main`, `apply_main`) — Jacobi impulses summed per
// body in fixed point — `integrate_main`, then `iterations` × (`relax_main`,
// `apply_main`), the relaxing sweeps aiming at the restitution alone (as
// src/sim/rigid/mod.rs); per frame `summary_main`. Every contact tolerance
// is relative to the smaller body's size, as `contact_targets` there.

// The structs mirror src/sim/simulate/resident/layout.rs; tests/it/shader_layouts.rs
// checks them.
struct Params {
    gravity: vec3<f32>,
    dt: f32,
    plane: vec4<f32>,        // ground: unit normal, offset (n·x = w)
    bodies: u32,             // bodies with a box (the ground not counted)
    ground: u32,             // 1 when the ground is body `bodies`
    flags: u32,              // bit 0: interpolated depth, bit 1: reject flipped
    pair_capacity: u32,
    contact_capacity: u32,
    contact_threshold: f32,  // contact threshold ε: distances below it are contacts
    recovery_speed: f32,     // fastest push-out, body sizes per second
    gravity_steps: f32,      // resting speed, in steps of gravity (|g|·dt)
    restitution: f32,
    friction: f32,
    baumgarte: f32,
    slop: f32,               // per unit of body size
    margin: f32,
    damping: f32,            // angular velocity kept per step
    _pad3: u32,
    _pad4: u32,
}

struct Body {
    position: vec3<f32>,     // of the centre of mass
    inverse_mass: f32,       // 0: static
    rotation: vec4<f32>,     // quaternion x, y, z, w
    velocity: vec3<f32>,
    shape: u32,              // mesh index
    angular_velocity: vec3<f32>,
    _pad0: u32,
    inverse_inertia: vec3<f32>,  // principal, object frame
    size: f32,               // length scale of the tolerances (static: f32 max)
}

struct Shape {
    lo: vec3<f32>,           // object-frame bounds of the centred mesh
    sample_start: u32,
    hi: vec3<f32>,
    sample_count: u32,
}

// Box of broad_phase.wgsl.
struct Box {
    lo: vec3<f32>,
    flags: u32,
    hi: vec3<f32>,
    body: u32,
}

struct Sample {
    position: vec3<f32>,
    kind_sub: u32,
    normal: vec3<f32>,
    feature: u32,
}

// One contact and its solver row.
struct Row {
    position: vec3<f32>,
    depth: f32,
    normal: vec3<f32>,       // pushes `body` out of `other`
    mass_n: f32,
    ra: vec3<f32>,
    target_speed: f32,
    rb: vec3<f32>,
    acc_n: f32,
    acc_t: vec3<f32>,
    body: u32,
    other: u32,
    bounce_speed: f32,       // what the relaxing sweeps aim at
    _pad0: u32,
    _pad1: u32,
}

struct Summary {
    pairs: u32,
    contacts: u32,
    max_depth: f32,
    energy: f32,
    pair_capacity: u32,
    contact_capacity: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> bodies: array<Body>;
@group(0) @binding(2) var<storage, read> shapes: array<Shape>;
@group(0) @binding(3) var<storage, read_write> boxes: array<Box>;
@group(0) @binding(4) var<storage, read> pairs: array<vec2<u32>>;
// [0] pairs (the sweep's counter), [1] contacts, [2] max depth (f32 bits),
// [3] the substep's speed bound (f32 bits; see SCALE).
@group(0) @binding(5) var<storage, read_write> counters: array<atomic<u32>, 4>;
@group(0) @binding(6) var<storage, read> samples: array<Sample>;
@group(0) @binding(7) var<storage, read> fields: array<FieldInfo>;
@group(0) @binding(8) var<storage, read> values: array<f32>;
@group(0) @binding(9) var<storage, read_write> rows: array<Row>;
// Per body: velocity change (3), angular velocity change times the body's
// size (3), in fixed point (see SCALE), then the number of contact rows
// touching it.
@group(0) @binding(10) var<storage, read_write> accum: array<atomic<i32>>;
// Indirect dispatch sizes: narrow (x, y, z), rows (x, y, z).
@group(0) @binding(11) var<storage, read_write> args: array<u32>;
@group(0) @binding(12) var<storage, read_write> summary: Summary;

const STATIC: u32 = 1u;
const ACCUM: u32 = 8u;
const COUNT: u32 = 6u;
// Fixed point of the summed velocity changes: SCALE units per the
// substep's speed bound V (the largest relative speed plus target speed of
// any row, `prepare_main`), so the sums keep 27 bits of resolution and 16×
// headroom at any speed — a body hitting the ground at 10 km/s is summed
// as exactly as one at rest (each contribution is clamped to ±2^30 units).
const SCALE: f32 = 134217728.0;
const MAX_GROUPS: u32 = 65535u;

fn rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

fn unrotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    return rotate(vec4<f32>(-q.xyz, q.w), v);
}

// The world inverse inertia R·diag(I⁻¹)·Rᵀ applied to `v`.
fn inverse_inertia_times(b: Body, v: vec3<f32>) -> vec3<f32> {
    return rotate(b.rotation, b.inverse_inertia * unrotate(b.rotation, v));
}

fn velocity_at(b: Body, r: vec3<f32>) -> vec3<f32> {
    return b.velocity + cross(b.angular_velocity, r);
}

fn write_args(at: u32, groups: u32) {
    let x = min(groups, MAX_GROUPS);
    args[at] = x;
    args[at + 1u] = (groups + x - 1u) / max(x, 1u);
    args[at + 2u] = 1u;
}

// Gravity, the swept world box, the body's accumulators cleared.
@compute @workgroup_size(64)
fn begin_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i == 0u {
        for (var k = 0u; k < 4u; k++) {
            atomicStore(&counters[k], 0u);
        }
    }
    if i >= arrayLength(&bodies) {
        return;
    }
    for (var k = 0u; k < ACCUM; k++) {
        atomicStore(&accum[i * ACCUM + k], 0);
    }
    var b = bodies[i];
    if b.inverse_mass > 0.0 {
        b.velocity += params.gravity * params.dt;
        bodies[i].velocity = b.velocity;
    }
    if i >= params.bodies {
        return;
    }
    let s = shapes[b.shape];
    // The posed box's half extents: |R| times the local ones (as
    // Pipeline::boxes), grown by the margin and the step's motion.
    let centre_local = 0.5 * (s.lo + s.hi);
    let half_local = 0.5 * (s.hi - s.lo);
    let ex = rotate(b.rotation, vec3<f32>(1.0, 0.0, 0.0));
    let ey = rotate(b.rotation, vec3<f32>(0.0, 1.0, 0.0));
    let ez = rotate(b.rotation, vec3<f32>(0.0, 0.0, 1.0));
    let half = abs(ex) * half_local.x + abs(ey) * half_local.y + abs(ez) * half_local.z
        + vec3<f32>(params.margin) + abs(b.velocity) * params.dt;
    let centre = b.position + rotate(b.rotation, centre_local);
    boxes[i] = Box(centre - half, select(0u, STATIC, b.inverse_mass == 0.0), centre + half, i);
}

@compute @workgroup_size(1)
fn narrow_args_main() {
    let n = min(atomicLoad(&counters[0]), params.pair_capacity);
    write_args(0u, 2u * n);
}

fn emit(a: u32, b: u32, p: vec3<f32>, n: vec3<f32>, depth: f32) {
    let at = atomicAdd(&counters[1], 1u);
    atomicMax(&counters[2], bitcast<u32>(depth));
    if at >= params.contact_capacity {
        return;
    }
    rows[at] = Row(p, depth, n, 0.0, vec3<f32>(0.0), 0.0, vec3<f32>(0.0), 0.0,
                   vec3<f32>(0.0), a, b, 0.0, 0u, 0u);
    atomicAdd(&accum[a * ACCUM + COUNT], 1);
    atomicAdd(&accum[b * ACCUM + COUNT], 1);
}

// Sample `s` of body `a` against body `b`'s field (field_contact, as
// collide.wgsl's TASK_SAMPLES_FIELD) or, with `plane`, against the
// ground.
fn sample_against(a: u32, ba: Body, b: u32, bb: Body, s: Sample, plane: bool) {
    let p_w = ba.position + rotate(ba.rotation, s.position);
    if plane {
        let d = dot(params.plane.xyz, p_w) - params.plane.w - params.contact_threshold;
        if d < 0.0 {
            emit(a, b, p_w, params.plane.xyz, -d);
        }
        return;
    }
    let p_b = unrotate(bb.rotation, p_w - bb.position);
    let interpolated = (params.flags & 1u) != 0u;
    let fc = field_contact(fields[bb.shape], p_b, params.contact_threshold, interpolated);
    if !fc.hit {
        return;
    }
    let n = normalize(rotate(bb.rotation, fc.normal));
    if (params.flags & 2u) != 0u && dot(n, rotate(ba.rotation, s.normal)) > 0.0 {
        return;
    }
    emit(a, b, p_w, n, fc.depth);
}

// One workgroup per candidate pair and side: side 0 tests the first body's
// samples against the second (or the ground), side 1 the reverse.
@compute @workgroup_size(64)
fn narrow_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let task = flat_group(wid, nwg);
    let n_pairs = min(atomicLoad(&counters[0]), params.pair_capacity);
    if task >= 2u * n_pairs {
        return;
    }
    let pair = pairs[task / 2u];
    let side = task % 2u;
    let plane = params.ground != 0u && pair.y == params.bodies;
    if plane && side == 1u {
        return;
    }
    let a = select(pair.y, pair.x, side == 0u);
    let b = select(pair.x, pair.y, side == 0u);
    let ba = bodies[a];
    let bb = bodies[b];
    let s = shapes[ba.shape];
    for (var k = lid; k < s.sample_count; k += 64u) {
        sample_against(a, ba, b, bb, samples[s.sample_start + k], plane);
    }
}

@compute @workgroup_size(1)
fn rows_args_main() {
    let n = min(atomicLoad(&counters[1]), params.contact_capacity);
    write_args(3u, (n + 63u) / 64u);
}

fn contact_count() -> u32 {
    return min(atomicLoad(&counters[1]), params.contact_capacity);
}

// Mass splitting (Tonge et al. 2012): each body's mass is shared equally
// among the rows touching it, so a row sees the body's inverse mass and
// inertia times that count.
@compute @workgroup_size(64)
fn prepare_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let r = flat_index(wid, nwg, lid);
    if r >= contact_count() {
        return;
    }
    var row = rows[r];
    let a = bodies[row.body];
    let b = bodies[row.other];
    let na = f32(max(atomicLoad(&accum[row.body * ACCUM + COUNT]), 1));
    let nb = f32(max(atomicLoad(&accum[row.other * ACCUM + COUNT]), 1));
    let n = row.normal;
    row.ra = row.position - a.position;
    row.rb = row.position - b.position;
    let k = na * a.inverse_mass + nb * b.inverse_mass
        + na * dot(n, cross(inverse_inertia_times(a, cross(row.ra, n)), row.ra))
        + nb * dot(n, cross(inverse_inertia_times(b, cross(row.rb, n)), row.rb));
    row.mass_n = select(0.0, 1.0 / k, k > 0.0);
    let rel = velocity_at(a, row.ra) - velocity_at(b, row.rb);
    let vn = dot(rel, n);
    let size = min(a.size, b.size);
    let resting = params.gravity_steps * length(params.gravity) * params.dt;
    let bounce = select(0.0, -params.restitution * vn, vn < -resting);
    let correction = min(params.baumgarte / params.dt * max(row.depth - params.slop * size, 0.0),
                         max(params.recovery_speed * size, resting));
    row.target_speed = max(bounce, correction);
    row.bounce_speed = bounce;
    atomicMax(&counters[3], bitcast<u32>(length(rel) + row.target_speed));
    row.acc_n = 0.0;
    row.acc_t = vec3<f32>(0.0);
    rows[r] = row;
}

// Fixed-point units per m/s this substep.
fn units() -> f32 {
    return SCALE / max(bitcast<f32>(atomicLoad(&counters[3])), 1e-12);
}

fn add_fixed(at: u32, v: vec3<f32>, unit: f32) {
    for (var k = 0u; k < 3u; k++) {
        let x = clamp(v[k] * unit, -1073741824.0, 1073741824.0);
        atomicAdd(&accum[at + k], i32(round(x)));
    }
}

fn push(i: u32, body: Body, r: vec3<f32>, impulse: vec3<f32>, unit: f32) {
    if body.inverse_mass == 0.0 {
        return;
    }
    add_fixed(i * ACCUM, impulse * body.inverse_mass, unit);
    add_fixed(i * ACCUM + 3u, inverse_inertia_times(body, cross(r, impulse)) * body.size, unit);
}

// One Jacobi sweep: every row's clamped normal and friction impulse from
// the velocities at the sweep's start, summed per body; aiming at the
// biased target or, relaxing, at the restitution alone.
fn sweep_row(r: u32, relax: bool) {
    if r >= contact_count() {
        return;
    }
    var row = rows[r];
    if row.mass_n == 0.0 {
        return;
    }
    let target_speed = select(row.target_speed, row.bounce_speed, relax);
    let a = bodies[row.body];
    let b = bodies[row.other];
    let n = row.normal;
    let rel = velocity_at(a, row.ra) - velocity_at(b, row.rb);
    let vn = dot(rel, n);
    let acc_n = max(row.acc_n + (target_speed - vn) * row.mass_n, 0.0);
    // Friction against the tangential slip, clamped to the cone.
    let vt = rel - n * vn;
    let wanted = row.acc_t - vt * row.mass_n;
    let limit = params.friction * acc_n;
    var acc_t = wanted;
    let len = length(wanted);
    if len > limit {
        acc_t = select(vec3<f32>(0.0), wanted * (limit / len), len > 0.0);
    }
    let impulse = n * (acc_n - row.acc_n) + (acc_t - row.acc_t);
    rows[r].acc_n = acc_n;
    rows[r].acc_t = acc_t;
    let unit = units();
    push(row.body, a, row.ra, impulse, unit);
    push(row.other, b, row.rb, -impulse, unit);
}

@compute @workgroup_size(64)
fn solve_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    sweep_row(flat_index(wid, nwg, lid), false);
}

@compute @workgroup_size(64)
fn relax_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    sweep_row(flat_index(wid, nwg, lid), true);
}

fn take_fixed(at: u32, unit: f32) -> vec3<f32> {
    var v = vec3<f32>(0.0);
    for (var k = 0u; k < 3u; k++) {
        v[k] = f32(atomicExchange(&accum[at + k], 0)) / unit;
    }
    return v;
}

// The sweep's summed changes onto each body's velocities.
@compute @workgroup_size(64)
fn apply_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= arrayLength(&bodies) || bodies[i].inverse_mass == 0.0 {
        return;
    }
    let unit = units();
    bodies[i].velocity += take_fixed(i * ACCUM, unit);
    bodies[i].angular_velocity += take_fixed(i * ACCUM + 3u, unit) / bodies[i].size;
}

// Semi-implicit Euler, with the CPU path's angular damping.
@compute @workgroup_size(64)
fn integrate_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= arrayLength(&bodies) {
        return;
    }
    var b = bodies[i];
    if b.inverse_mass == 0.0 {
        return;
    }
    b.position += b.velocity * params.dt;
    let w = b.angular_velocity;
    let q = b.rotation;
    // (w, 0) ⊗ q
    let dq = vec4<f32>(w * q.w + cross(w, q.xyz), -dot(w, q.xyz));
    b.rotation = normalize(q + 0.5 * params.dt * dq);
    b.angular_velocity = w * params.damping;
    bodies[i] = b;
}

var<workgroup> partial: array<f32, 64>;

// Kinetic plus potential energy (as Pipeline::energy) and the counters of
// the frame's last substep.
@compute @workgroup_size(64)
fn summary_main(@builtin(local_invocation_index) lid: u32) {
    var e = 0.0;
    for (var i = lid; i < arrayLength(&bodies); i += 64u) {
        let b = bodies[i];
        if b.inverse_mass == 0.0 {
            continue;
        }
        let m = 1.0 / b.inverse_mass;
        let w = unrotate(b.rotation, b.angular_velocity);
        e += 0.5 * m * dot(b.velocity, b.velocity)
            + 0.5 * dot(w * w, 1.0 / b.inverse_inertia)
            - m * dot(params.gravity, b.position);
    }
    partial[lid] = e;
    workgroupBarrier();
    for (var stride = 32u; stride > 0u; stride /= 2u) {
        if lid < stride {
            partial[lid] += partial[lid + stride];
        }
        workgroupBarrier();
    }
    if lid == 0u {
        summary = Summary(atomicLoad(&counters[0]), atomicLoad(&counters[1]),
                          bitcast<f32>(atomicLoad(&counters[2])), partial[0],
                          params.pair_capacity, params.contact_capacity, 0u, 0u);
    }
}
