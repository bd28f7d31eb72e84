//!include shared/interfere_compute.wgsl
//!include shared/interfere_solve.wgsl

// Interference by ray counting on the compute units (src/stages/
// interference/compute/): Knott's passes 1–4 without the rasteriser.
//
// * `edge_depth`, `edge_ids`: pass 1. One thread per edge, offset along its
//   vertex pseudo-normals as vs_edge does, covers the pixel centres of its
//   one-pixel-wide rectangle (within ½ of the line, between its ends: the
//   rasteriser's lines), each at the depth of the segment at the
//   projection of the pixel centre. The nearest depth per pixel is an atomic max of
//   `DEPTH_ONE − bits(depth)` (0 = no edge), then the edge of that depth
//   (the smallest id on a tie) an atomic max of `NO_ID − id` among the
//   edges at exactly that depth (the two-pass resolve; `edge_nearest` in
//   interfere_compute_int64.wgsl does both at once where the adapter
//   has 64-bit atomics).
// * `count_faces`, `count_large_faces`: passes 2–3. Per face (one thread, or a
//   workgroup for faces covering more than SMALL_FACE pixel centres), per
//   covered pixel centre (the CPU reference's coverage, exact ties by a
//   top-left rule) in front of the pixel's edge point: atomically add
//   s·(2^24 + j + 1) and s·(j + 1)² (s = +1 front, −1 back, j its object),
//   and mark open meshes. Integer sums are exact; the first one packs the
//   count (top 8 bits, wrapping like an 8-bit stencil) over Σ s·(j + 1).
// * `decode`: pass 4 and the weighted-sum identification per pixel.
// * `pair_counts`: Alg. 4 for the pixels the sums cannot decode: each
//   candidate object's faces alone counted at the pixel's edge point.
//
// The constants mirror src/stages/interfere/compute/ (checked by
// tests/it/shader_layouts.rs).

@group(0) @binding(5) var<storage, read_write> pixels: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> images: array<u32>;
@group(0) @binding(7) var<storage, read_write> tallies: array<atomic<u32>>;
// Large faces (up to `faces`), then fallback pixels (up to width · height).
@group(0) @binding(8) var<storage, read_write> work: array<u32>;

fn depth_word(pixel: u32) -> u32 {
    return 2u * pixel + 1u;
}

fn id_word(pixel: u32) -> u32 {
    return 2u * pixel;
}

fn edge_depth_at(pixel: u32) -> f32 {
    return bitcast<f32>(DEPTH_ONE - atomicLoad(&pixels[depth_word(pixel)]));
}

// Pass 1's two-pass resolve: `resolve` 0 keeps the nearest depth, 1 the
// smallest id among the edges at exactly that depth.
fn cover_edge(pixel: u32, key: u32, id: u32, resolve: u32) {
    if resolve == 0u {
        atomicMax(&pixels[depth_word(pixel)], key);
    } else if atomicLoad(&pixels[depth_word(pixel)]) == key {
        atomicMax(&pixels[id_word(pixel)], NO_ID - id);
    }
}

@compute @workgroup_size(WORKGROUP)
fn edge_depth(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let k = flat_id(wid, groups, lid, WORKGROUP);
    if k < p.edges {
        walk_edge(k, 0u);
    }
}

@compute @workgroup_size(WORKGROUP)
fn edge_ids(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let k = flat_id(wid, groups, lid, WORKGROUP);
    if k < p.edges {
        walk_edge(k, 1u);
    }
}

// ---- passes 2–3: faces ----

struct Tri {
    c0: vec2<f32>,
    c1: vec2<f32>,
    c2: vec2<f32>,
    depths: vec3<f32>,
    area2: f32,
    // +1 front-facing, −1 back-facing.
    sign: i32,
    // Its object (without OPEN_BIT) and whether that is an open mesh.
    object: u32,
    open: bool,
    // The pixels whose centres its screen box holds, within its object's
    // scissor: x0, y0, x1, y1 inclusive (empty when x1 < x0 or y1 < y0).
    box: vec4<i32>,
}

fn cross2(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return a.x * b.y - a.y * b.x;
}

fn setup(t: u32) -> Tri {
    let f = faces[t];
    let s0 = screen(positions[f.x].xyz);
    let s1 = screen(positions[f.y].xyz);
    let s2 = screen(positions[f.z].xyz);
    let object = f.w & ~OPEN_BIT;
    let area2 = cross2(s1.xy - s0.xy, s2.xy - s0.xy);
    let r = region(object);
    let lo = min(s0.xy, min(s1.xy, s2.xy));
    let hi = max(s0.xy, max(s1.xy, s2.xy));
    var box = vec4(
        max(vec2<i32>(ceil(lo - 0.5)), vec2<i32>(r.scissor.xy)),
        min(vec2<i32>(floor(hi - 0.5)), vec2<i32>(r.scissor.zw) - 1),
    );
    // Seen edge-on (§4.5.7) or its object not drawn: nothing.
    if area2 == 0.0 || !r.drawn {
        box = vec4(0, 0, -1, -1);
    }
    // y points down: counter-clockwise in NDC is a negative area here.
    return Tri(s0.xy, s1.xy, s2.xy, vec3(s0.z, s1.z, s2.z), area2,
        select(-1, 1, area2 < 0.0), object, (f.w & OPEN_BIT) != 0u, box);
}

// Whether an exact tie on the edge from `a` to `b` covers: the edges are
// oriented so the face lies to their positive side, and of two faces
// sharing an edge (traversing it in opposite directions) exactly one owns it.
fn owns(a: vec2<f32>, b: vec2<f32>, orient: f32) -> bool {
    let d = (b - a) * orient;
    return d.y > 0.0 || (d.y == 0.0 && d.x < 0.0);
}

// The face's depth at pixel centre `q`, or 2 (behind everything) where it
// does not cover `q`.
fn depth_at(f: Tri, q: vec2<f32>) -> f32 {
    let e0 = cross2(f.c2 - f.c1, q - f.c1);
    let e1 = cross2(f.c0 - f.c2, q - f.c2);
    let e2 = cross2(f.c1 - f.c0, q - f.c0);
    let o = sign(f.area2);
    let w = vec3(e0, e1, e2) * o;
    let inside = (w.x > 0.0 || (w.x == 0.0 && owns(f.c1, f.c2, o)))
        && (w.y > 0.0 || (w.y == 0.0 && owns(f.c2, f.c0, o)))
        && (w.z > 0.0 || (w.z == 0.0 && owns(f.c0, f.c1, o)));
    if !inside {
        return 2.0;
    }
    return (e0 * f.depths.x + e1 * f.depths.y + e2 * f.depths.z) / f.area2;
}

// Adds face `f` at pixel (x, y) if it covers the centre in front of the
// edge point there.
fn count_at(f: Tri, x: i32, y: i32) {
    let pixel = u32(y) * p.width + u32(x);
    let edge = edge_depth_at(pixel);
    // Without images only the edge points' counts are read.
    if (edge >= 1.0 && p.images == 0u) || depth_at(f, vec2(f32(x), f32(y)) + 0.5) >= edge {
        return;
    }
    let plane = pixel_count();
    let j1 = f.object + 1u;
    atomicAdd(&pixels[PLANE_SUM * plane + pixel], u32(f.sign * (1 << 24u) + f.sign * i32(j1)));
    atomicAdd(&pixels[PLANE_SQUARES * plane + pixel], u32(f.sign * i32(j1 * j1)));
    if f.open {
        atomicOr(&pixels[PLANE_OPEN * plane + pixel], 1u);
    }
}

@compute @workgroup_size(WORKGROUP)
fn count_faces(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let t = flat_id(wid, groups, lid, WORKGROUP);
    if t >= p.faces {
        return;
    }
    let f = setup(t);
    let size = f.box.zw - f.box.xy + 1;
    if any(size <= vec2(0)) {
        return;
    }
    if u32(size.x) * u32(size.y) > SMALL_FACE {
        work[atomicAdd(&tallies[TALLY_LARGE], 1u)] = t;
        return;
    }
    for (var y = f.box.y; y <= f.box.w; y++) {
        for (var x = f.box.x; x <= f.box.z; x++) {
            count_at(f, x, y);
        }
    }
}

// One workgroup per large face, its pixels split over the threads.
@compute @workgroup_size(LARGE_GROUP)
fn count_large_faces(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let k = wid.y * groups.x + wid.x;
    if k >= atomicLoad(&tallies[TALLY_LARGE]) {
        return;
    }
    let f = setup(work[k]);
    let w = u32(f.box.z - f.box.x + 1);
    let n = w * u32(f.box.w - f.box.y + 1);
    for (var i = lid; i < n; i += LARGE_GROUP) {
        count_at(f, f.box.x + i32(i % w), f.box.y + i32(i / w));
    }
}

// ---- pass 4 and identification ----

fn pair_tally(i: u32, j: u32) -> u32 {
    return TALLY_HEAD + 2u * p.objects + i * p.objects + j;
}

// The edge id (global edge + 1, 0 = none) at `pixel`.
fn edge_id_at(pixel: u32) -> u32 {
    let key = atomicLoad(&pixels[id_word(pixel)]);
    return select(0u, NO_ID - key, key != 0u);
}

@compute @workgroup_size(WORKGROUP)
fn decode(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let pixel = flat_id(wid, groups, lid, WORKGROUP);
    let plane = pixel_count();
    if pixel >= plane {
        return;
    }
    let packed = atomicLoad(&pixels[PLANE_SUM * plane + pixel]);
    // Σ s·(j + 1) in the low 24 bits, sign-extended; the count above.
    let s1 = bitcast<i32>(packed << 8u) >> 8u;
    let count = (bitcast<i32>(packed) - s1) >> 24u;
    let s2 = bitcast<i32>(atomicLoad(&pixels[PLANE_SQUARES * plane + pixel]));
    let open = atomicLoad(&pixels[PLANE_OPEN * plane + pixel]) != 0u;
    let id = edge_id_at(pixel);
    var object = 0u;
    var into = 0u;
    if id != 0u {
        object = bitcast<u32>(edges[id - 1u].a.w) + 1u;
        let i = object - 1u;
        if count > 0 {
            atomicAdd(&tallies[TALLY_HEAD + i], 1u);
        }
        let solved = solve_sums(count, s1, s2, open, p.objects);
        if solved.x == 0u {
            atomicAdd(&tallies[TALLY_HEAD + p.objects + i], 1u);
        }
        if solved.x == 0u || (p.pair_passes != 0u && count > 0) {
            work[p.faces + atomicAdd(&tallies[TALLY_FALLBACK], 1u)] = pixel;
        } else {
            // The edge's own object among them: spurious self-interference
            // (§4.5.8), filtered by identity.
            for (var k = 1u; k < 3u; k++) {
                let o = solved[k];
                if o != 0u && o != object {
                    atomicAdd(&tallies[pair_tally(i, o - 1u)], 1u);
                    // Of two, the larger, as the pair passes leave it.
                    into = max(into, o);
                }
            }
        }
    }
    if p.images == 0u {
        return;
    }
    images[IMAGE_COUNT * plane + pixel] = bitcast<u32>(count);
    images[IMAGE_OBJECT * plane + pixel] = object;
    images[IMAGE_EDGE * plane + pixel] = id;
    images[IMAGE_DEPTH * plane + pixel] = bitcast<u32>(edge_depth_at(pixel));
    images[IMAGE_PENETRATED * plane + pixel] = into;
}

// Alg. 4 at one pixel the sums left ambiguous (or every pixel inside
// something, with `pair_passes`), one workgroup per pixel: each candidate
// j ≠ i (the objects whose grown boxes meet the edge's object i's) counts
// its own faces alone in front of the edge point, inside its scissor, the
// faces split over the threads; a count > 0 names a penetrated object.
var<workgroup> wg_pixel: u32;
var<workgroup> wg_object: u32;
var<workgroup> wg_count: atomic<i32>;

@compute @workgroup_size(WORKGROUP)
fn pair_counts(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let k = wid.y * groups.x + wid.x;
    if lid == 0u {
        wg_pixel = NO_ID;
        if k < atomicLoad(&tallies[TALLY_FALLBACK]) {
            wg_pixel = work[p.faces + k];
            wg_object = bitcast<u32>(edges[edge_id_at(wg_pixel) - 1u].a.w);
        }
    }
    let pixel = workgroupUniformLoad(&wg_pixel);
    if pixel == NO_ID {
        return;
    }
    let i = workgroupUniformLoad(&wg_object);
    let x = i32(pixel % p.width);
    let y = i32(pixel / p.width);
    let q = vec2(f32(x), f32(y)) + 0.5;
    let depth = edge_depth_at(pixel);
    var into = 0u;
    for (var at = neighbour_start(i); at < neighbour_start(i + 1u); at++) {
        let j = neighbour(at);
        let r = region(j);
        let inside = vec4(x, y, -x, -y) >= vec4(vec2<i32>(r.scissor.xy), -vec2<i32>(r.scissor.zw) + 1);
        if j == i || !r.drawn || !all(inside) {
            continue;
        }
        if lid == 0u {
            atomicStore(&wg_count, 0);
        }
        workgroupBarrier();
        var count = 0;
        for (var t = face_start(j) + lid; t < face_start(j + 1u); t += WORKGROUP) {
            let f = setup(t);
            if depth_at(f, q) < depth {
                count += f.sign;
            }
        }
        if count != 0 {
            atomicAdd(&wg_count, count);
        }
        workgroupBarrier();
        if lid == 0u && atomicLoad(&wg_count) > 0 {
            atomicAdd(&tallies[pair_tally(i, j)], 1u);
            into = max(into, j + 1u);
        }
    }
    if lid == 0u && p.images != 0u {
        images[IMAGE_PENETRATED * pixel_count() + pixel] = into;
    }
}
