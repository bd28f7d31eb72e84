//!include shared/field_lookup.wgsl
// Contacts of many body pairs in one dispatch (Sundholm 2010, §5.1–5.4,
// §6.3, §8.1–8.2). Rust side: src/stages/colliders/{mod,gpu}.rs; the CPU
// reference src/stages/colliders/cpu.rs mirrors every function here.

// The structs and TASK_* mirror src/stages/colliders/{mod,gpu}.rs and
// src/stages/sampling/mod.rs (GpuSample); tests/shader_layouts.rs checks
// them.
struct Params {
    num_tasks: u32,
    total_threads: u32,
    capacity: u32,
    flags: u32,          // bit 0: interpolated depth, bit 1: reject flipped
}

struct Task {
    world_from_a: mat4x4<f32>,
    b_from_world: mat4x4<f32>,
    world_from_b: mat4x4<f32>,
    prim: vec4<f32>,
    prim2: vec4<f32>,
    kind: u32,
    body: u32,
    other: u32,
    field: u32,
    sample_start: u32,
    sample_count: u32,
    thread_start: u32,
    extra: u32,
}

struct Sample {
    position: vec3<f32>,
    kind_sub: u32,
    normal: vec3<f32>,
    feature: u32,
}


// GpuContact in Rust.
struct Contact {
    position: vec3<f32>,
    depth: f32,
    normal: vec3<f32>,
    depth_cell: f32,
    body: u32,
    other: u32,
    kind: u32,
    sample: u32,
    task: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

const TASK_SAMPLES_FIELD: u32 = 0u;
const TASK_SAMPLES_PLANE: u32 = 1u;
const TASK_SAMPLES_SPHERE: u32 = 2u;
const TASK_SAMPLES_BOX: u32 = 3u;
const TASK_SEGMENT_FIELD: u32 = 4u;
const KIND_CELL: u32 = 4u;
const BIG: f32 = 1e30;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> tasks: array<Task>;
@group(0) @binding(2) var<storage, read> samples: array<Sample>;
@group(0) @binding(3) var<storage, read> extra: array<Sample>;
@group(0) @binding(4) var<storage, read> fields: array<FieldInfo>;
@group(0) @binding(5) var<storage, read> values: array<f32>;
@group(0) @binding(6) var<storage, read_write> contacts: array<Contact>;
@group(0) @binding(7) var<storage, read_write> counter: array<atomic<u32>, 4>;

fn emit(c: Contact) {
    let at = atomicAdd(&counter[0], 1u);
    if at < params.capacity {
        contacts[at] = c;
    }
}

fn make(t: Task, p: vec3<f32>, n: vec3<f32>, depth: f32, depth_cell: f32, kind: u32,
        sample: u32, task: u32) -> Contact {
    return Contact(p, depth, n, depth_cell, t.body, t.other, kind, sample, task, 0u, 0u, 0u);
}

fn sample_against_target(ti: u32, t: Task, s: Sample, k: u32) {
    let p_w = (t.world_from_a * vec4<f32>(s.position, 1.0)).xyz;
    let kind = s.kind_sub & 7u;
    switch t.kind {
        case TASK_SAMPLES_FIELD: {
            let f = fields[t.field];
            let p_b = (t.b_from_world * vec4<f32>(p_w, 1.0)).xyz;
            let c = cell_of(f, p_b);
            if !in_range(f, c) {
                return;
            }
            let v = value(f, c);
            var inside = v < 0.0;
            var depth = -v;
            if (params.flags & 1u) != 0u {
                let vi = trilinear(f, p_b);
                inside = vi < 0.0;
                depth = -vi;
            }
            if !inside {
                return;
            }
            let g = gradient(f, c, p_b);
            if dot(g, g) <= 1e-30 {
                return;
            }
            let n = normalize((t.world_from_b * vec4<f32>(normalize(g), 0.0)).xyz);
            let sn = (t.world_from_a * vec4<f32>(s.normal, 0.0)).xyz;
            if (params.flags & 2u) != 0u && dot(n, sn) > 0.0 {
                return;
            }
            emit(make(t, p_w, n, max(depth, 0.0), max(-v, 0.0), kind, k, ti));
        }
        case TASK_SAMPLES_PLANE: {
            let n = t.prim.xyz;
            let d = dot(n, p_w) - t.prim.w;
            if d < 0.0 {
                emit(make(t, p_w, n, -d, -d, kind, k, ti));
            }
        }
        case TASK_SAMPLES_SPHERE: {
            let r = p_w - t.prim.xyz;
            let d = length(r);
            if d >= t.prim.w {
                return;
            }
            var n = vec3<f32>(0.0, 1.0, 0.0);
            if d > 1e-12 {
                n = r / d;
            }
            emit(make(t, p_w, n, t.prim.w - d, t.prim.w - d, kind, k, ti));
        }
        case TASK_SAMPLES_BOX: {
            let p_l = (t.b_from_world * vec4<f32>(p_w, 1.0)).xyz;
            let gap = t.prim.xyz - abs(p_l);
            if min(gap.x, min(gap.y, gap.z)) <= 0.0 {
                return;
            }
            var axis = 2;
            if gap.x <= gap.y && gap.x <= gap.z {
                axis = 0;
            } else if gap.y <= gap.z {
                axis = 1;
            }
            var n_l = vec3<f32>(0.0);
            n_l[axis] = select(-1.0, 1.0, p_l[axis] >= 0.0);
            let n = normalize((t.world_from_b * vec4<f32>(n_l, 0.0)).xyz);
            emit(make(t, p_w, n, gap[axis], gap[axis], kind, k, ti));
        }
        default: {}
    }
}

fn outcode(p: vec3<f32>, lo: vec3<f32>, hi: vec3<f32>) -> u32 {
    var code = 0u;
    for (var axis = 0u; axis < 3u; axis++) {
        if p[axis] < lo[axis] {
            code |= 1u << (2u * axis);
        } else if p[axis] > hi[axis] {
            code |= 2u << (2u * axis);
        }
    }
    return code;
}

fn segment_against_field(ti: u32, t: Task) {
    let f = fields[t.field];
    let p0_w = t.prim.xyz;
    let p1_w = t.prim2.xyz;
    var p0 = (t.b_from_world * vec4<f32>(p0_w, 1.0)).xyz;
    var p1 = (t.b_from_world * vec4<f32>(p1_w, 1.0)).xyz;
    let h = f.cell_size;
    let lo = f.origin - vec3<f32>(0.5 * h);
    let hi = lo + vec3<f32>(f.dims) * h;
    // Cohen–Sutherland.
    var c0 = outcode(p0, lo, hi);
    var c1 = outcode(p1, lo, hi);
    var accepted = false;
    for (var iter = 0; iter < 8; iter++) {
        if (c0 | c1) == 0u {
            accepted = true;
            break;
        }
        if (c0 & c1) != 0u {
            break;
        }
        var c = c1;
        if c0 != 0u {
            c = c0;
        }
        let bit = countTrailingZeros(c);
        let axis = bit / 2u;
        var bound = hi[axis];
        if bit % 2u == 0u {
            bound = lo[axis];
        }
        let d = p1 - p0;
        let tt = (bound - p0[axis]) / d[axis];
        var p = p0 + d * tt;
        p[axis] = bound;
        if c == c0 {
            p0 = p;
            c0 = outcode(p0, lo, hi);
        } else {
            p1 = p;
            c1 = outcode(p1, lo, hi);
        }
    }
    if !accepted {
        return;
    }
    // Amanatides–Woo walk.
    let dims = vec3<i32>(f.dims);
    var cell = clamp(vec3<i32>(floor((p0 - lo) / h)), vec3<i32>(0), dims - vec3<i32>(1));
    let end = clamp(vec3<i32>(floor((p1 - lo) / h)), vec3<i32>(0), dims - vec3<i32>(1));
    let d = p1 - p0;
    var step = vec3<i32>(0);
    var t_max = vec3<f32>(BIG);
    var t_delta = vec3<f32>(BIG);
    for (var axis = 0; axis < 3; axis++) {
        if d[axis] > 0.0 {
            step[axis] = 1;
            t_delta[axis] = h / d[axis];
            t_max[axis] = (lo[axis] + f32(cell[axis] + 1) * h - p0[axis]) / d[axis];
        } else if d[axis] < 0.0 {
            step[axis] = -1;
            t_delta[axis] = -h / d[axis];
            t_max[axis] = (lo[axis] + f32(cell[axis]) * h - p0[axis]) / d[axis];
        }
    }
    let limit = dims.x + dims.y + dims.z + 3;
    for (var iter = 0; iter < limit; iter++) {
        let v = value(f, cell);
        if v < 0.0 {
            let position = (t.world_from_b * vec4<f32>(f.origin + vec3<f32>(cell) * h, 1.0)).xyz;
            let dir = position - p0_w;
            var n = vec3<f32>(0.0);
            if dot(dir, dir) > 1e-30 {
                n = normalize(dir);
            } else if dot(p1_w - p0_w, p1_w - p0_w) > 0.0 {
                n = normalize(p1_w - p0_w);
            }
            emit(make(t, position, n, -v, -v, KIND_CELL, 0u, ti));
            return;
        }
        if all(cell == end) {
            return;
        }
        var axis = 2;
        if t_max.x <= t_max.y && t_max.x <= t_max.z {
            axis = 0;
        } else if t_max.y <= t_max.z {
            axis = 1;
        }
        if t_max[axis] > 1.0 {
            return;
        }
        cell[axis] += step[axis];
        if cell[axis] < 0 || cell[axis] >= dims[axis] {
            return;
        }
        t_max[axis] += t_delta[axis];
    }
}

// One invocation per point of every task; the task is found by binary
// search over the tasks' running point totals.
@compute @workgroup_size(64)
fn contacts_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let gid = (wid.y * nwg.x + wid.x) * 64u + lid;
    if gid >= params.total_threads {
        return;
    }
    var lo = 0u;
    var hi = params.num_tasks;
    while hi - lo > 1u {
        let mid = (lo + hi) / 2u;
        if tasks[mid].thread_start <= gid {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let t = tasks[lo];
    let k = gid - t.thread_start;
    if k >= t.sample_count {
        return;
    }
    if t.kind == TASK_SEGMENT_FIELD {
        segment_against_field(lo, t);
        return;
    }
    var s: Sample;
    if t.extra == 1u {
        s = extra[t.sample_start + k];
    } else {
        s = samples[t.sample_start + k];
    }
    sample_against_target(lo, t, s, k);
}
