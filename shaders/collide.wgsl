//!include shared/field_contact.wgsl
// Contacts of many body pairs in one dispatch (Sundholm 2010, §5.1–5.4,
// §6.3, §8.1–8.2). Rust side: src/stages/collide/{mod,gpu}.rs; the CPU
// reference src/stages/collide/cpu.rs mirrors every function here.

// The structs and TASK_* mirror src/stages/collide/{mod,gpu}.rs and
// src/stages/sampling/mod.rs (GpuSample); tests/it/shader_layouts.rs checks
// them.
struct Params {
    num_tasks: u32,
    total_threads: u32,
    capacity: u32,
    flags: u32,          // bit 0: interpolated depth, bit 1: reject flipped,
                         // bit 2: per-pair summary in the count pass
    num_groups: u32,     // workgroups dispatched (x * y)
    pass_kind: u32,      // PASS_COUNT or PASS_WRITE
    first_point: u32,    // the dispatch's first point (a chunk's), and where
                         // its contacts start in `contacts`
    contact_threshold: f32, // contact threshold ε: distances below it are contacts
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
    pair: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct Sample {
    position: vec3<f32>,
    kind_sub: u32,
    normal: vec3<f32>,
    feature: u32,
}


// GpuContact in Rust: the compact record the host reads back. The task,
// bodies, sample and position follow on the host from `point` (the global
// point index: task.thread_start + k) and the plan.
struct Contact {
    point: u32,
    depth: f32,
    aux: u32,            // depth_cell's bits; for a segment, the cell's linear index
    normal: u32,         // octahedral, pack2x16snorm (ZERO_NORMAL for a zero normal)
}

const TASK_SAMPLES_FIELD: u32 = 0u;
const TASK_SAMPLES_PLANE: u32 = 1u;
const TASK_SAMPLES_SPHERE: u32 = 2u;
const TASK_SAMPLES_BOX: u32 = 3u;
const TASK_SEGMENT_FIELD: u32 = 4u;
const BIG: f32 = 1e30;
const WORKGROUP: u32 = 256u;
const WORDS: u32 = 8u;         // WORKGROUP / 32: the words of a workgroup ballot
const PASS_COUNT: u32 = 0u;
const PASS_WRITE: u32 = 1u;
const ZERO_NORMAL: u32 = 0x80008000u;
const SUMMARY_START: u32 = 4u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> tasks: array<Task>;
@group(0) @binding(2) var<storage, read> samples: array<Sample>;
@group(0) @binding(3) var<storage, read> extra: array<Sample>;
@group(0) @binding(4) var<storage, read> fields: array<FieldInfo>;
@group(0) @binding(5) var<storage, read> values: array<f32>;
@group(0) @binding(6) var<storage, read_write> contacts: array<Contact>;
// [0] contacts in all, [1] set when the write pass finds a group count
// other than the count pass's; from [SUMMARY_START], per pair (summary
// flag): its contacts and the bits of its deepest depth (depths are ≥ 0,
// so their bits order as the floats do).
@group(0) @binding(7) var<storage, read_write> counter: array<atomic<u32>>;
// [0, num_groups): contacts per workgroup (count pass);
// [num_groups, 2 num_groups): their exclusive prefix sums (scan_groups).
@group(0) @binding(8) var<storage, read_write> groups: array<u32>;

// The invocation's contact, if its point makes one (each point makes at
// most one).
var<private> hit: bool;
var<private> found: Contact;
var<private> found_pair: u32;

// Octahedral encoding (Cigolle et al. 2014) in two 16-bit snorms; the host
// decodes it (src/stages/collide/compact.rs).
fn oct_encode(n: vec3<f32>) -> u32 {
    let l1 = abs(n.x) + abs(n.y) + abs(n.z);
    if l1 <= 0.0 {
        return ZERO_NORMAL;
    }
    var p = n.xy / l1;
    if n.z < 0.0 {
        p = (vec2<f32>(1.0) - abs(p.yx)) * select(vec2<f32>(-1.0), vec2<f32>(1.0), p >= vec2<f32>(0.0));
    }
    return pack2x16snorm(p);
}

fn emit(point: u32, n: vec3<f32>, depth: f32, aux: u32) {
    hit = true;
    found = Contact(point, depth, aux, oct_encode(n));
}

fn sample_against_target(gid: u32, t: Task, s: Sample) {
    let p_w = (t.world_from_a * vec4<f32>(s.position, 1.0)).xyz;
    switch t.kind {
        case TASK_SAMPLES_FIELD: {
            let p_b = (t.b_from_world * vec4<f32>(p_w, 1.0)).xyz;
            let interpolated = (params.flags & 1u) != 0u;
            let fc = field_contact(fields[t.field], p_b, params.contact_threshold, interpolated);
            if !fc.hit {
                return;
            }
            let n = normalize((t.world_from_b * vec4<f32>(fc.normal, 0.0)).xyz);
            let sn = (t.world_from_a * vec4<f32>(s.normal, 0.0)).xyz;
            if (params.flags & 2u) != 0u && dot(n, sn) > 0.0 {
                return;
            }
            emit(gid, n, max(fc.depth, 0.0), bitcast<u32>(max(fc.cell_depth, 0.0)));
        }
        case TASK_SAMPLES_PLANE: {
            let n = t.prim.xyz;
            let d = dot(n, p_w) - t.prim.w - params.contact_threshold;
            if d < 0.0 {
                emit(gid, n, -d, bitcast<u32>(-d));
            }
        }
        case TASK_SAMPLES_SPHERE: {
            let r = p_w - t.prim.xyz;
            let d = length(r);
            let radius = t.prim.w + params.contact_threshold;
            if d >= radius {
                return;
            }
            var n = vec3<f32>(0.0, 1.0, 0.0);
            if d > 1e-12 {
                n = r / d;
            }
            emit(gid, n, radius - d, bitcast<u32>(radius - d));
        }
        case TASK_SAMPLES_BOX: {
            let p_l = (t.b_from_world * vec4<f32>(p_w, 1.0)).xyz;
            let gap = (t.prim.xyz + vec3<f32>(params.contact_threshold)) - abs(p_l);
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
            emit(gid, n, gap[axis], bitcast<u32>(gap[axis]));
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

fn segment_against_field(gid: u32, t: Task) {
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
        let v = value(f, cell) - params.contact_threshold;
        if v < 0.0 {
            let position = (t.world_from_b * vec4<f32>(f.origin + vec3<f32>(cell) * h, 1.0)).xyz;
            let dir = position - p0_w;
            var n = vec3<f32>(0.0);
            if dot(dir, dir) > 1e-30 {
                n = normalize(dir);
            } else if dot(p1_w - p0_w, p1_w - p0_w) > 0.0 {
                n = normalize(p1_w - p0_w);
            }
            emit(gid, n, -v, u32(cell.x) + f.dims.x * (u32(cell.y) + f.dims.y * u32(cell.z)));
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

// The point `gid` of its task (found by binary search over the tasks'
// running point totals): sets `hit` and `found` if it makes a contact.
fn evaluate(gid: u32) {
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
    found_pair = t.pair;
    let k = gid - t.thread_start;
    if k >= t.sample_count {
        return;
    }
    if t.kind == TASK_SEGMENT_FIELD {
        segment_against_field(gid, t);
        return;
    }
    var s: Sample;
    if t.extra == 1u {
        s = extra[t.sample_start + k];
    } else {
        s = samples[t.sample_start + k];
    }
    sample_against_target(gid, t, s);
}

var<workgroup> prefix: array<u32, WORKGROUP>;
// One bit per invocation of the workgroup: whether its point makes a contact.
var<workgroup> hits: array<atomic<u32>, WORDS>;

// Inclusive prefix sum of `prefix` over the workgroup (Hillis–Steele).
fn scan_prefix(lid: u32) {
    for (var d = 1u; d < WORKGROUP; d <<= 1u) {
        var v = prefix[lid];
        if lid >= d {
            v += prefix[lid - d];
        }
        workgroupBarrier();
        prefix[lid] = v;
        workgroupBarrier();
    }
}

// One invocation per point of every task (of the chunk of points from
// `first_point` to `total_threads`), run twice with the same code so
// that both passes see the same contacts. Each invocation sets its bit in
// `hits` (a ballot): its rank among the workgroup's contacts is the number
// of bits below its own, the workgroup's count all the bits. PASS_COUNT
// stores each workgroup's count (and with the summary flag adds each
// contact to its pair's summary); after scan_groups, PASS_WRITE stores
// each contact at its workgroup's offset plus its rank — a stable
// compaction, so the contacts come out in point order, i.e. (task, point):
// the CPU's.
@compute @workgroup_size(256)
fn contacts_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let group = wid.y * nwg.x + wid.x;
    hit = false;
    evaluate(params.first_point + group * WORKGROUP + lid);
    if lid < WORDS {
        atomicStore(&hits[lid], 0u);
    }
    workgroupBarrier();
    let word = lid / 32u;
    let bit = 1u << (lid % 32u);
    if hit {
        atomicOr(&hits[word], bit);
    }
    workgroupBarrier();
    var rank = countOneBits(atomicLoad(&hits[word]) & (bit - 1u));
    var count = 0u;
    for (var w = 0u; w < WORDS; w++) {
        let n = countOneBits(atomicLoad(&hits[w]));
        count += n;
        if w < word {
            rank += n;
        }
    }
    if params.pass_kind == PASS_COUNT {
        if lid == 0u {
            groups[group] = count;
        }
        if hit && (params.flags & 4u) != 0u {
            let at = SUMMARY_START + 2u * found_pair;
            atomicAdd(&counter[at], 1u);
            atomicMax(&counter[at + 1u], select(bitcast<u32>(found.depth), 0u, found.depth <= 0.0));
        }
        return;
    }
    if lid == 0u && count != groups[group] {
        atomicMax(&counter[1], 1u);
    }
    if hit {
        let at = params.first_point + groups[params.num_groups + group] + rank;
        if at < params.capacity {
            contacts[at] = found;
        }
    }
}

// Exclusive prefix sums of the workgroup counts, one workgroup: each
// invocation sums a contiguous run of counts, the runs' totals are scanned
// in shared memory, and each run is written out from its offset.
@compute @workgroup_size(256)
fn scan_groups(@builtin(local_invocation_index) lid: u32) {
    let n = params.num_groups;
    let per = (n + WORKGROUP - 1u) / WORKGROUP;
    let start = min(lid * per, n);
    let end = min(start + per, n);
    var sum = 0u;
    for (var i = start; i < end; i++) {
        sum += groups[i];
    }
    prefix[lid] = sum;
    workgroupBarrier();
    scan_prefix(lid);
    var running = prefix[lid] - sum;
    for (var i = start; i < end; i++) {
        groups[n + i] = running;
        running += groups[i];
    }
    if lid == WORKGROUP - 1u {
        atomicStore(&counter[0], prefix[lid]);
    }
}
