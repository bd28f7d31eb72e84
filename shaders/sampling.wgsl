//!include shared/flat_index.wgsl

// Sampling points of a mesh (Sundholm 2010, §5.1.1, §6.2.4).
// Rust side: src/stages/sampling/{mod,gpu}.rs; the CPU reference is
// src/stages/sampling/cpu.rs and mirrors these tests.

// Params and Sample mirror src/stages/sampling/gpu.rs and
// src/stages/sampling/mod.rs (GpuSample); tests/it/shader_layouts.rs checks
// them.
struct Params {
    num_vertices: u32,
    num_edges: u32,
    num_faces: u32,
    capacity: u32,
    cos_tol: f32,
    step: f32,
    g_face: u32,     // geometry: first face normal
    g_vnormal: u32,  // geometry: first vertex normal
    g_enormal: u32,  // geometry: first edge normal
    t_vfaces: u32,   // topology: vertex_faces (vertex_face_offsets start at 0)
    t_evert: u32,    // topology: edge vertices, 2 per edge
    t_eoff: u32,     // topology: edge_face_offsets
    t_efaces: u32,   // topology: edge_faces
    t_fedges: u32,   // topology: face_edges, 3 per face
    edges_on: u32,
    flat_vertices: u32, // 1: every vertex is a sample, flat or not
}

struct Sample {
    position: vec3<f32>,
    kind_sub: u32,       // kind | (sub << 3)
    normal: vec3<f32>,
    feature: u32,
}

const KIND_VERTEX: u32 = 0u;
const KIND_EDGE: u32 = 1u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> geometry: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> topology: array<u32>;
@group(0) @binding(3) var<storage, read_write> samples: array<Sample>;
// [0] samples written, [1] labels changed in this round
@group(0) @binding(4) var<storage, read_write> counter: array<atomic<u32>, 4>;
@group(0) @binding(5) var<storage, read_write> labels: array<atomic<u32>>;

fn face_normal(f: u32) -> vec3<f32> {
    return geometry[params.g_face + f].xyz;
}

fn push(s: Sample) {
    let at = atomicAdd(&counter[0], 1u);
    if at < params.capacity {
        samples[at] = s;
    }
}

// One invocation per vertex: flat unless some incident face normal leaves
// the tolerance cone around the vertex pseudo-normal.
@compute @workgroup_size(64)
fn vertices(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let v = flat_index(wid, nwg, lid);
    if v >= params.num_vertices {
        return;
    }
    let n = geometry[params.g_vnormal + v].xyz;
    let begin = topology[v];
    let end = topology[v + 1u];
    if begin == end {
        return;
    }
    var flat = params.flat_vertices == 0u;
    for (var j = begin; j < end; j++) {
        if dot(face_normal(topology[params.t_vfaces + j]), n) < params.cos_tol {
            flat = false;
        }
    }
    if !flat {
        push(Sample(geometry[v].xyz, KIND_VERTEX, n, v));
    }
}

// Interior points of an edge every <= step, as `edge_sample_count` in
// src/stages/sampling/cpu.rs (tests/it/collide_sampling.rs compares the backends).
fn edge_sample_count(len: f32, step: f32) -> u32 {
    if len > step {
        return max(u32(ceil(len / step)), 2u) - 1u;
    }
    return 0u;
}

// One invocation per edge: sampled when not flat (a boundary rim, or a face
// not coplanar with the first).
@compute @workgroup_size(64)
fn edges(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let e = flat_index(wid, nwg, lid);
    if e >= params.num_edges || params.edges_on == 0u {
        return;
    }
    let begin = topology[params.t_eoff + e];
    let end = topology[params.t_eoff + e + 1u];
    var flat = end - begin >= 2u;
    if flat {
        let n0 = face_normal(topology[params.t_efaces + begin]);
        for (var j = begin + 1u; j < end; j++) {
            if dot(face_normal(topology[params.t_efaces + j]), n0) < params.cos_tol {
                flat = false;
            }
        }
    }
    if flat {
        return;
    }
    let a = geometry[topology[params.t_evert + 2u * e]].xyz;
    let b = geometry[topology[params.t_evert + 2u * e + 1u]].xyz;
    let count = edge_sample_count(distance(a, b), params.step);
    let n = geometry[params.g_enormal + e].xyz;
    for (var k = 1u; k <= count; k++) {
        let t = f32(k) / f32(count + 1u);
        push(Sample(a + (b - a) * t, KIND_EDGE | (k << 3u), n, e));
    }
}

@compute @workgroup_size(64)
fn labels_init(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let f = flat_index(wid, nwg, lid);
    if f >= params.num_faces {
        return;
    }
    atomicStore(&labels[f], f);
}

// One round of minimum-label propagation over coplanar edge neighbours,
// with one pointer jump (a label is a face of the same region, whose own
// label is no larger).
@compute @workgroup_size(64)
fn labels_propagate(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let f = flat_index(wid, nwg, lid);
    if f >= params.num_faces {
        return;
    }
    let nf = face_normal(f);
    var l = atomicLoad(&labels[f]);
    for (var k = 0u; k < 3u; k++) {
        let e = topology[params.t_fedges + 3u * f + k];
        let begin = topology[params.t_eoff + e];
        let end = topology[params.t_eoff + e + 1u];
        for (var j = begin; j < end; j++) {
            let g = topology[params.t_efaces + j];
            if dot(face_normal(g), nf) >= params.cos_tol {
                l = min(l, atomicLoad(&labels[g]));
            }
        }
    }
    l = min(l, atomicLoad(&labels[l]));
    let old = atomicMin(&labels[f], l);
    if l < old {
        atomicStore(&counter[1], 1u);
    }
}
