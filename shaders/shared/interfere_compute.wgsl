// The shared part of the compute interference backend's modules
// (interfere_compute.wgsl, interfere_compute_int64.wgsl): the
// parameters, the scene's and the view's buffers (bindings 0–4), the
// regions, and pass 1's walk along an edge, which calls the includer's
// `cover_edge` per covered pixel. Pixel p's depth key is word 2p + 1 of
// `pixels` and its id key word 2p (one u64 per pixel, high word the depth,
// for the 64-bit atomics), then the other planes.
//
// `Params`, `Edge` and the constants mirror src/stages/interfere/
// compute/ (checked by tests/it/shader_layouts.rs).

struct Params {
    // Framebuffer x, y (pixels, y down) and depth of a world point: the
    // rows of OrthoView::to_screen.
    screen_x: vec4<f32>,
    screen_y: vec4<f32>,
    screen_z: vec4<f32>,
    width: u32,
    height: u32,
    objects: u32,
    faces: u32,
    edges: u32,
    // 1: the pair passes for every pixel inside something (Alg. 4).
    pair_passes: u32,
    edge_offset: f32,
    // 1: write the images (read pixels); 0: only the tallies, and pixels
    // without an edge point count nothing.
    images: u32,
}

struct Edge {
    // xyz: end points; a.w: object (bits), b.w: global edge + 1 (bits).
    a: vec4<f32>,
    b: vec4<f32>,
    // xyz: vertex pseudo-normals.
    na: vec4<f32>,
    nb: vec4<f32>,
}

const WORKGROUP: u32 = 64u;
const LARGE_GROUP: u32 = 256u;
// Faces covering more pixel centres than this go to `large_faces`.
const SMALL_FACE: u32 = 256u;
const OPEN_BIT: u32 = 0x80000000u;
// bits(1.0): the depth key of "no edge".
const DEPTH_ONE: u32 = 0x3f800000u;
const NO_ID: u32 = 0xffffffffu;
// Planes of `pixels` (each width · height words; the first two hold the
// interleaved depth and id keys).
const PLANE_SUM: u32 = 2u;
const PLANE_SQUARES: u32 = 3u;
const PLANE_OPEN: u32 = 4u;
// Planes of `images`.
const IMAGE_COUNT: u32 = 0u;
const IMAGE_OBJECT: u32 = 1u;
const IMAGE_EDGE: u32 = 2u;
const IMAGE_DEPTH: u32 = 3u;
const IMAGE_PENETRATED: u32 = 4u;
// `tallies`: counters, then per object its pixels inside something and
// its pixels the sums cannot decode, then objects × objects pair pixels.
const TALLY_LARGE: u32 = 0u;
const TALLY_FALLBACK: u32 = 1u;
const TALLY_HEAD: u32 = 2u;
// `view` (u32 words): per object a region of REGION_WORDS, then face
// starts (objects + 1), then neighbour starts (objects + 1), then the
// neighbour lists.
const REGION_WORDS: u32 = 12u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;
// i0, i1, i2, object (| OPEN_BIT for an open mesh).
@group(0) @binding(2) var<storage, read> faces: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> edges: array<Edge>;
@group(0) @binding(4) var<storage, read> view: array<u32>;

fn pixel_count() -> u32 {
    return p.width * p.height;
}

fn flat_id(wid: vec3<u32>, groups: vec3<u32>, lid: u32, size: u32) -> u32 {
    return (wid.y * groups.x + wid.x) * size + lid;
}

fn screen(q: vec3<f32>) -> vec3<f32> {
    let h = vec4(q, 1.0);
    return vec3(dot(p.screen_x, h), dot(p.screen_y, h), dot(p.screen_z, h));
}

// Object k's region: x0, y0, x1, y1 (its faces count only there), the
// screen box its edges must meet, active (1) or not drawn at all (0).
struct Region {
    scissor: vec4<u32>,
    edge_min: vec3<f32>,
    edge_max: vec3<f32>,
    drawn: bool,
}

fn region(k: u32) -> Region {
    let o = REGION_WORDS * k;
    let s = vec4(view[o], view[o + 1u], view[o + 2u], view[o + 3u]);
    let lo = bitcast<vec4<f32>>(vec4(view[o + 4u], view[o + 5u], view[o + 6u], view[o + 7u]));
    let hi = bitcast<vec4<f32>>(vec4(view[o + 8u], view[o + 9u], view[o + 10u], view[o + 11u]));
    return Region(s, lo.xyz, hi.xyz, lo.w != 0.0);
}

fn face_start(k: u32) -> u32 {
    return view[REGION_WORDS * p.objects + k];
}

fn neighbour_start(k: u32) -> u32 {
    return view[REGION_WORDS * p.objects + p.objects + 1u + k];
}

fn neighbour(at: u32) -> u32 {
    return view[REGION_WORDS * p.objects + 2u * (p.objects + 1u) + at];
}

// ---- pass 1: edges ----

fn depth_key(depth: f32) -> u32 {
    // Positive floats order as their bits; −0 and below are the near plane.
    return DEPTH_ONE - bitcast<u32>(select(min(depth, 1.0), 0.0, depth <= 0.0));
}

// The covered pixels of edge `k` (culled edges none), each given to the
// including module's `cover_edge(pixel, depth key, edge id, resolve)`.
fn walk_edge(k: u32, resolve: u32) {
    let e = edges[k];
    let object = bitcast<u32>(e.a.w);
    let id = bitcast<u32>(e.b.w);
    let r = region(object);
    if !r.drawn {
        return;
    }
    let a = screen(e.a.xyz + p.edge_offset * e.na.xyz);
    let b = screen(e.b.xyz + p.edge_offset * e.nb.xyz);
    if any(max(a, b) < r.edge_min) || any(min(a, b) > r.edge_max) {
        return;
    }
    let d = b.xy - a.xy;
    let len2 = dot(d, d);
    if len2 < 1e-12 {
        return;
    }
    // The covered centres are those of the one-pixel-wide rectangle about
    // the segment, between its ends (Vulkan's line rasterisation, which the
    // stencil path's pass 1 gets from the rasteriser): within ½ of the line
    // and projecting onto the segment. Walk the columns of the major axis m
    // (n is the other) that the rectangle spans; in each, its minor-axis
    // extent is ½·len/|d_m| either side of the line, so one or two centres.
    let x_major = abs(d.x) >= abs(d.y);
    let m = select(1u, 0u, x_major);
    let n = 1u - m;
    let size = vec2(i32(p.width), i32(p.height));
    let len = sqrt(len2);
    let beyond = 0.5 * abs(d[n]) / len;
    let half = 0.5 * len / abs(d[m]);
    let first = max(i32(ceil(min(a[m], b[m]) - beyond - 0.5)), 0);
    let last = min(i32(floor(max(a[m], b[m]) + beyond - 0.5)), size[m] - 1);
    for (var c = first; c <= last; c++) {
        let centre_m = f32(c) + 0.5;
        let minor = a[n] + (centre_m - a[m]) / d[m] * d[n];
        let lo = max(i32(ceil(minor - half - 0.5)), 0);
        let hi = min(i32(floor(minor + half - 0.5)), size[n] - 1);
        for (var row = lo; row <= hi; row++) {
            var at = vec2(c, row);
            if !x_major {
                at = vec2(row, c);
            }
            let centre = vec2<f32>(at) + 0.5;
            let along = dot(centre - a.xy, d);
            let off = d.x * (centre.y - a.y) - d.y * (centre.x - a.x);
            if along < 0.0 || along > len2 || abs(off) > 0.5 * len {
                continue;
            }
            let key = depth_key(a.z + along / len2 * (b.z - a.z));
            cover_edge(u32(at.y) * p.width + u32(at.x), key, id, resolve);
        }
    }
}
