// Bounding-box culling of the interference passes (src/stages/interfere/
// cull.rs), as a list of jobs: each job keeps one object's triangles whose
// screen box meets a pixel rectangle and one object's edges whose screen
// box meets a screen-space region, compacted into index lists with the
// draw-indirect arguments beside them. The main passes have a job per
// object that overlaps another (S_X, its overlap region); the pair passes
// one per pair (i, j) (i's edges in the pair's region) and one per
// candidate j (j's triangles in U_j).
//
// One workgroup row (workgroup_id.y + 65535·workgroup_id.z) per job, so
// every workgroup serves one job: its survivors are counted in workgroup
// memory and claimed from the job's counter with one global atomic per
// round.
//
// `Uniforms`, `CullJob` and GROUP mirror src/stages/interfere/gpu/mod.rs and plan.rs
// (checked by tests/it/shader_layouts.rs); the argument layout is its
// `args_offset`.

struct Uniforms {
    clip_from_world: mat4x4<f32>,
    // x: edge offset (world units), y: viewport width, z: height (pixels).
    params: vec4<f32>,
}

struct CullJob {
    // Its arguments are at args[10 · slot].
    slot: u32,
    // The triangles (of `indices`) and edges (of `edge_vertices`) tested.
    first_triangle: u32,
    triangles: u32,
    first_edge: u32,
    edges: u32,
    // Where the job's lists start in culled_faces and culled_edges.
    faces_out: u32,
    edges_out: u32,
    pad: u32,
    // The pixel rectangle the triangles must meet: x0, y0, x1, y1.
    scissor: vec4<f32>,
    // The region the edges must meet: screen x, y (pixels), depth.
    region_min: vec4<f32>,
    region_max: vec4<f32>,
}

@group(0) @binding(0) var<uniform> u: Uniforms;
@group(0) @binding(1) var<storage, read> jobs: array<CullJob>;
// Vertex positions, 3 floats each.
@group(0) @binding(2) var<storage, read> positions: array<f32>;
@group(0) @binding(3) var<storage, read> indices: array<u32>;
// Edge vertices, 32 bytes each: position, normal.x | normal.yz, ids.
@group(0) @binding(4) var<storage, read> edge_vertices: array<vec4<f32>>;
// The compacted lists, each job's from its faces_out and edges_out.
@group(0) @binding(5) var<storage, read_write> culled_faces: array<u32>;
@group(0) @binding(6) var<storage, read_write> culled_edges: array<u32>;
// Per job slot: DrawIndexedIndirect of its faces, then of its edges
// (index count, instance count 1, first index, base vertex 0, first
// instance 0); the counts start at 0.
@group(0) @binding(7) var<storage, read_write> args: array<atomic<u32>>;

const GROUP: u32 = 256u;
// Rasteriser vertex snapping (1/256 pixel) with room to spare.
const SNAP: f32 = 1.0 / 64.0;

var<workgroup> round_count: atomic<u32>;
var<workgroup> round_base: u32;

// Framebuffer x, y (pixels, y down) and depth of world point p.
fn to_screen(p: vec3<f32>) -> vec3<f32> {
    let c = u.clip_from_world * vec4(p, 1.0);
    return vec3(
        (c.x + 1.0) * 0.5 * u.params.y,
        (1.0 - c.y) * 0.5 * u.params.z,
        c.z,
    );
}

fn position(i: u32) -> vec3<f32> {
    return vec3(positions[3u * i], positions[3u * i + 1u], positions[3u * i + 2u]);
}

// Offset edge point of edge vertex v, as vs_edge in interfere.wgsl.
fn edge_point(v: u32) -> vec3<f32> {
    let a = edge_vertices[2u * v];
    let b = edge_vertices[2u * v + 1u];
    return a.xyz + u.params.x * vec3(a.w, b.x, b.y);
}

// Claims `size` slots for every thread with `keep` from counter
// args[counter]; returns this thread's first slot. Called by the whole
// workgroup (it holds barriers).
fn claim(keep: bool, size: u32, counter: u32, lid: u32) -> u32 {
    if lid == 0u {
        atomicStore(&round_count, 0u);
    }
    workgroupBarrier();
    var mine = 0u;
    if keep {
        mine = atomicAdd(&round_count, size);
    }
    workgroupBarrier();
    if lid == 0u {
        round_base = atomicAdd(&args[counter], atomicLoad(&round_count));
    }
    return workgroupUniformLoad(&round_base) + mine;
}

@compute @workgroup_size(256)
fn cull(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let row = wid.y + 65535u * wid.z;
    if row >= arrayLength(&jobs) {
        return;
    }
    let o = jobs[row];
    let stride = groups.x * GROUP;
    let first = wid.x * GROUP + lid;
    // Triangles whose screen box meets the scissor rectangle.
    for (var start = 0u; start < o.triangles; start += stride) {
        let t = start + first;
        let base = 3u * (o.first_triangle + t);
        var keep = false;
        if t < o.triangles {
            let a = to_screen(position(indices[base]));
            let b = to_screen(position(indices[base + 1u]));
            let c = to_screen(position(indices[base + 2u]));
            let lo = min(a, min(b, c)).xy;
            let hi = max(a, max(b, c)).xy;
            keep = all(hi >= o.scissor.xy - SNAP) && all(lo <= o.scissor.zw + SNAP);
        }
        let at = claim(keep, 3u, 10u * o.slot, lid);
        if keep {
            let out = o.faces_out + at;
            culled_faces[out] = indices[base];
            culled_faces[out + 1u] = indices[base + 1u];
            culled_faces[out + 2u] = indices[base + 2u];
        }
    }
    // Edges whose screen box (offset ends) meets the overlap region.
    for (var start = 0u; start < o.edges; start += stride) {
        let e = start + first;
        let v = 2u * (o.first_edge + e);
        var keep = false;
        if e < o.edges {
            let p = to_screen(edge_point(v));
            let q = to_screen(edge_point(v + 1u));
            keep = all(max(p, q) >= o.region_min.xyz) && all(min(p, q) <= o.region_max.xyz);
        }
        let at = claim(keep, 2u, 10u * o.slot + 5u, lid);
        if keep {
            let out = o.edges_out + at;
            culled_edges[out] = v;
            culled_edges[out + 1u] = v + 1u;
        }
    }
}

