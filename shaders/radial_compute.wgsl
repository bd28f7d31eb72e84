// Radial-field rasterisation (Friston & Steed 2019, §5) without the
// render pipeline: the same set-up (shared/radial_setup.wgsl), coverage
// and distances as radial.wgsl, rasterised in compute shaders, so the work
// runs on every SM rather than through the graphics slice.
//
// Coverage is src/stages/radial/cpu.rs's, written out: corners snapped to
// 1/256 cell (Rust's round, half away from zero), a cell covered when its
// centre is inside by integer edge functions, the top-left rule on edges.
// WGSL has no 64-bit integers, so edge functions compare their two
// products as 64-bit values made of two 32-bit words (`mul_wide`).
//
// `clear` fills the values with +inf. `raster` runs one invocation per
// (field, triangle) pair: set-up, the bounding box of cell centres, and
// either every covered cell of a small box (at most SMALL_CELLS) with
// atomicMin on the f32 bits, or the footprint queued in workgroup memory;
// then the whole workgroup strides over each queued footprint's box, so a
// large footprint is shared by RASTER_GROUP invocations without a second
// (indirect) dispatch and its barrier. Corners beyond ±2²⁹ / 256 cells
// (far off the field) would overflow the 32-bit words: such a triangle is
// left out, where the CPU reference would fill cells.

//!include shared/radial_setup.wgsl

const CLEAR_GROUP: u32 = 256u;
const RASTER_GROUP: u32 = 64u;
const SMALL_CELLS: u32 = 16u;
const SUBPIXEL: i32 = 256;
const HALF: i32 = 128;
const LIMIT: f32 = 536870912.0;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> frames: array<FieldFrame>;
@group(0) @binding(2) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> triangles: array<u32>;
@group(0) @binding(4) var<storage, read> pairs: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> values: array<atomic<u32>>;

// x rounded half away from zero, as Rust's f32::round.
fn round_away(x: f32) -> i32 {
    let t = trunc(x);
    let up = abs(x - t) >= 0.5;
    return i32(t) + select(0, select(-1, 1, x > 0.0), up);
}

// a·b as a 64-bit two's complement value (high word signed, low word).
fn mul_wide(a: i32, b: i32) -> vec2<u32> {
    let ua = u32(abs(a));
    let ub = u32(abs(b));
    let a0 = ua & 0xffffu;
    let a1 = ua >> 16u;
    let b0 = ub & 0xffffu;
    let b1 = ub >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    var lo = (p00 & 0xffffu) | (mid << 16u);
    var hi = a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
    if (a < 0) != (b < 0) {
        lo = ~lo + 1u;
        hi = ~hi + select(0u, 1u, lo == 0u);
    }
    return vec2<u32>(lo, hi);
}

// -1, 0 or 1: the sign of x − y for 64-bit values.
fn compare_wide(x: vec2<u32>, y: vec2<u32>) -> i32 {
    let hx = bitcast<i32>(x.y);
    let hy = bitcast<i32>(y.y);
    if hx != hy {
        return select(-1, 1, hx > hy);
    }
    if x.x != y.x {
        return select(-1, 1, x.x > y.x);
    }
    return 0;
}

// The sign of the edge function of a → b at c: dx·(c.y − a.y) − dy·(c.x − a.x).
fn edge_sign(a: vec2<i32>, b: vec2<i32>, c: vec2<i32>) -> i32 {
    let d = b - a;
    return compare_wide(mul_wide(d.x, c.y - a.y), mul_wide(d.y, c.x - a.x));
}

// Whether c is on the inner side of a → b (cpu.rs `inside`).
fn inside(a: vec2<i32>, b: vec2<i32>, c: vec2<i32>) -> bool {
    let d = b - a;
    let e = edge_sign(a, b, c);
    return e > 0 || (e == 0 && ((d.y == 0 && d.x > 0) || d.y < 0));
}

// A triangle set up and snapped, positively oriented, with its box of
// cell centres (empty when `ok` is false).
struct Footprint {
    ok: bool,
    s: Setup,
    p: array<vec2<i32>, 3>,
    lo: vec2<i32>,
    hi: vec2<i32>,
}

fn footprint(pair: vec2<u32>) -> Footprint {
    var fp: Footprint;
    fp.ok = false;
    let f = frames[pair.x];
    var corners: array<vec3<f32>, 3>;
    for (var j = 0u; j < 3u; j++) {
        corners[j] = positions[triangles[3u * pair.y + j]].xyz;
    }
    fp.s = radial_setup(f, corners, params.min_facing);
    if !fp.s.ok {
        return fp;
    }
    for (var j = 0u; j < 3u; j++) {
        let x = fp.s.theta[j] * f32(f.n_theta) * f32(SUBPIXEL);
        let y = fp.s.z[j] * f32(f.n_z) * f32(SUBPIXEL);
        if !(abs(x) < LIMIT && abs(y) < LIMIT) {
            return fp;
        }
        fp.p[j] = vec2<i32>(round_away(x), round_away(y));
    }
    let area = compare_wide(
        mul_wide(fp.p[1].x - fp.p[0].x, fp.p[2].y - fp.p[0].y),
        mul_wide(fp.p[1].y - fp.p[0].y, fp.p[2].x - fp.p[0].x),
    );
    if area == 0 {
        return fp;
    }
    if area < 0 {
        let t = fp.p[1];
        fp.p[1] = fp.p[2];
        fp.p[2] = t;
    }
    let size = vec2<i32>(i32(f.n_theta), i32(f.n_z));
    let lo = min(min(fp.p[0], fp.p[1]), fp.p[2]);
    let hi = max(max(fp.p[0], fp.p[1]), fp.p[2]);
    // Floor division by the cell size (arithmetic shift).
    fp.lo = max((lo - vec2<i32>(HALF)) >> vec2<u32>(8u), vec2<i32>(0));
    fp.hi = min((hi - vec2<i32>(HALF)) >> vec2<u32>(8u), size - vec2<i32>(1));
    fp.ok = all(fp.lo <= fp.hi);
    return fp;
}

// Cells in the footprint's box.
fn box_cells(fp: Footprint) -> u32 {
    let n = fp.hi - fp.lo + vec2<i32>(1);
    return u32(n.x) * u32(n.y);
}

// Cell `j` of the footprint's box (row-major) if covered: the distance
// kept by atomicMin.
fn raster_cell(fp: Footprint, field: u32, j: u32) {
    let f = frames[field];
    let width = u32(fp.hi.x - fp.lo.x + 1);
    let x = fp.lo.x + i32(j % width);
    let y = fp.lo.y + i32(j / width);
    let centre = vec2<i32>(x * SUBPIXEL + HALF, y * SUBPIXEL + HALF);
    if !(inside(fp.p[0], fp.p[1], centre) && inside(fp.p[1], fp.p[2], centre)
        && inside(fp.p[2], fp.p[0], centre)) {
        return;
    }
    let k = u32(y);
    let i = field_column(f, u32(x), fp.s.wrapped);
    let d = cell_distance(f, fp.s.plane, fp.s.r_max, i, k, params.clamp_far == 1u);
    if d >= 0.0 {
        atomicMin(&values[f.offset + k * f.n_theta + i], bitcast<u32>(d));
    }
}

@compute @workgroup_size(CLEAR_GROUP)
fn clear(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let index = gid.y * groups.x * CLEAR_GROUP + gid.x;
    if index < params.cells {
        atomicStore(&values[index], INF_BITS);
    }
}

// `raster`'s large footprints (more than SMALL_CELLS box cells) with their
// fields, `queued` of them, filled by the whole workgroup.
var<workgroup> queue: array<Footprint, RASTER_GROUP>;
var<workgroup> queue_field: array<u32, RASTER_GROUP>;
var<workgroup> queued: atomic<u32>;
var<workgroup> queue_len: u32;

@compute @workgroup_size(RASTER_GROUP)
fn raster(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
          @builtin(local_invocation_index) lane: u32) {
    if lane == 0u {
        atomicStore(&queued, 0u);
    }
    workgroupBarrier();
    // No early return: every invocation reaches the barriers.
    let index = gid.y * groups.x * RASTER_GROUP + gid.x;
    if index < params.pairs {
        let pair = pairs[index];
        let fp = footprint(pair);
        let cells = box_cells(fp);
        if fp.ok && cells > SMALL_CELLS {
            let slot = atomicAdd(&queued, 1u);
            queue[slot] = fp;
            queue_field[slot] = pair.x;
        } else if fp.ok {
            for (var j = 0u; j < cells; j++) {
                raster_cell(fp, pair.x, j);
            }
        }
    }
    workgroupBarrier();
    if lane == 0u {
        queue_len = atomicLoad(&queued);
    }
    let n = workgroupUniformLoad(&queue_len);
    for (var q = 0u; q < n; q++) {
        let fp = queue[q];
        let field = queue_field[q];
        let cells = box_cells(fp);
        for (var j = lane; j < cells; j += RASTER_GROUP) {
            raster_cell(fp, field, j);
        }
    }
}
