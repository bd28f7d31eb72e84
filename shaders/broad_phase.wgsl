// Broad phase by sort-and-sweep over world-space bounding boxes (Rust side
// and CPU reference: src/sim/simulate/broad.rs). `keys_main` writes each
// box's sortable min-x key; the radix sort (radix_sort.wgsl) orders the
// bodies by it; `sweep_main` walks forward from each body in that order
// until a box starts past its max-x, appending overlapping pairs (and the
// body–ground pair) through an atomic counter.

// The structs mirror src/sim/simulate/broad.rs; tests/it/shader_layouts.rs
// checks them.
struct Params {
    n: u32,
    capacity: u32,
    ground: u32,         // 1 when there is a ground plane
    ground_index: u32,   // the ground's body index
    plane: vec4<f32>,    // ground: unit normal, offset (n·x = w)
}

struct Box {
    lo: vec3<f32>,
    flags: u32,          // bit 0: static
    hi: vec3<f32>,
    body: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> boxes: array<Box>;
@group(0) @binding(2) var<storage, read_write> keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> order: array<u32>;
@group(0) @binding(4) var<storage, read_write> pairs: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> counter: array<atomic<u32>>;

const STATIC: u32 = 1u;

fn index_of(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}

// Order-preserving map of an f32 to a u32 (negative floats reversed).
fn sortable(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    if (b & 0x80000000u) != 0u {
        return ~b;
    }
    return b | 0x80000000u;
}

fn emit(a: u32, b: u32) {
    let slot = atomicAdd(&counter[0], 1u);
    if slot < params.capacity {
        pairs[slot] = vec2<u32>(min(a, b), max(a, b));
    }
}

@compute @workgroup_size(64)
fn keys_main(@builtin(global_invocation_id) gid: vec3<u32>,
             @builtin(num_workgroups) groups: vec3<u32>) {
    let i = index_of(gid, groups);
    if i >= params.n {
        return;
    }
    keys[i] = sortable(boxes[i].lo.x);
    order[i] = i;
}

@compute @workgroup_size(64)
fn sweep_main(@builtin(global_invocation_id) gid: vec3<u32>,
              @builtin(num_workgroups) groups: vec3<u32>) {
    let k = index_of(gid, groups);
    if k >= params.n {
        return;
    }
    let a = boxes[order[k]];
    if params.ground != 0u && (a.flags & STATIC) == 0u {
        // The box reaches the solid half-space below the plane.
        let c = 0.5 * (a.lo + a.hi);
        let h = 0.5 * (a.hi - a.lo);
        let n = params.plane.xyz;
        if dot(n, c) - dot(abs(n), h) <= params.plane.w {
            emit(a.body, params.ground_index);
        }
    }
    for (var m = k + 1u; m < params.n; m++) {
        let b = boxes[order[m]];
        if b.lo.x > a.hi.x {
            break;
        }
        if (a.flags & b.flags & STATIC) != 0u {
            continue;
        }
        if all(a.lo.yz <= b.hi.yz) && all(b.lo.yz <= a.hi.yz) {
            emit(a.body, b.body);
        }
    }
}
