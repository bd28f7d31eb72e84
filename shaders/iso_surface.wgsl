// Marching cubes on a uniform field: count, scan, emit (a stream
// compaction without atomics, so triangles come out in cube order, as the
// CPU reference makes them). src/stages/iso_surface/mod.rs explains the
// method; Params, WORKGROUP and CASE_WORDS mirror
// src/stages/iso_surface/{gpu,table}.rs (checked by tests/it/shader_layouts.rs).
//
//   count        one invocation per cube, WORKGROUP cubes per workgroup:
//                the workgroup's triangle total -> blocks[b]
//   scan_blocks  one workgroup: blocks become exclusive offsets (SCAN_WG
//                at a time, with a running carry); total[0] = all triangles
//   emit         each workgroup classifies its cubes again, scans their
//                counts in workgroup memory, and writes each cube's
//                triangles at blocks[b] + its offset in the block
//
// Cube corner c is at offset (c & 1, c >> 1 & 1, c >> 2 & 1); edge 4a + k
// runs along axis a from the corner with bit a clear (table.rs).

//!include shared/workgroup_scan.wgsl

struct Params {
    // xyz: centre of cell (0, 0, 0); w: cell size.
    origin: vec4<f32>,
    // Linear RGBA of every emitted vertex.
    color: vec4<f32>,
    // Cells per axis.
    cells: vec4<u32>,
    // Cubes per axis; w: cubes in all.
    cubes: vec4<u32>,
    level: f32,
    blocks: u32,
    _pad: vec2<u32>,
}

const WORKGROUP: u32 = 256u;
const CASE_WORDS: u32 = 16u;
// f32 words per emitted vertex: position, face normal, colour (MeshVertex).
const VERTEX_WORDS: u32 = 10u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> values: array<f32>;
@group(0) @binding(2) var<storage, read> table: array<u32>;
@group(0) @binding(3) var<storage, read_write> blocks: array<u32>;
@group(0) @binding(4) var<storage, read_write> total: array<u32>;
@group(0) @binding(5) var<storage, read_write> vertices: array<f32>;

fn corner_offset(c: u32) -> vec3<u32> {
    return vec3(c & 1u, (c >> 1u) & 1u, (c >> 2u) & 1u);
}

fn value_at(p: vec3<u32>) -> f32 {
    return values[p.x + params.cells.x * (p.y + params.cells.y * p.z)];
}

fn cube_coords(cube: u32) -> vec3<u32> {
    let nx = params.cubes.x;
    let ny = params.cubes.y;
    return vec3(cube % nx, (cube / nx) % ny, cube / (nx * ny));
}

// The cube's case: its corners below the level, as bits.
fn cube_case(p: vec3<u32>) -> u32 {
    var case_bits = 0u;
    for (var c = 0u; c < 8u; c++) {
        if value_at(p + corner_offset(c)) < params.level {
            case_bits |= 1u << c;
        }
    }
    return case_bits;
}

fn block_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

// How many triangles cube `cube` of block `b` emits, and its case (0 for
// the invocations past the last cube).
fn classify(b: u32, cube: u32) -> vec2<u32> {
    if b >= params.blocks || cube >= params.cubes.w {
        return vec2(0u, 0u);
    }
    let case_bits = cube_case(cube_coords(cube));
    return vec2(table[case_bits * CASE_WORDS], case_bits);
}

@compute @workgroup_size(256)
fn count(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let b = block_index(wid, nwg);
    let n = classify(b, b * WORKGROUP + lid).x;
    let s = exclusive_scan(lid, n);
    if lid == 0u && b < params.blocks {
        blocks[b] = s.y;
    }
}

@compute @workgroup_size(256)
fn scan_blocks(@builtin(local_invocation_index) lid: u32) {
    var carry = 0u;
    for (var base = 0u; base < params.blocks; base += SCAN_WG) {
        let i = base + lid;
        var v = 0u;
        if i < params.blocks {
            v = blocks[i];
        }
        let s = exclusive_scan(lid, v);
        if i < params.blocks {
            blocks[i] = carry + s.x;
        }
        carry += s.y;
    }
    if lid == 0u {
        total[0] = carry;
    }
}

// The vertex on edge `edge` of the cube at `p` (iso_surface::edge_vertex):
// from the edge's lower corner, so neighbouring cubes agree to the bit.
fn edge_vertex(p: vec3<u32>, edge: u32) -> vec3<f32> {
    let axis = edge / 4u;
    let k = edge % 4u;
    let u = (axis + 1u) % 3u;
    let v = (axis + 2u) % 3u;
    let c0 = ((k & 1u) << min(u, v)) | ((k >> 1u) << max(u, v));
    let c1 = c0 | (1u << axis);
    let v0 = value_at(p + corner_offset(c0));
    let v1 = value_at(p + corner_offset(c1));
    let h = params.origin.w;
    var q = params.origin.xyz + h * vec3<f32>(p + corner_offset(c0));
    let t = (params.level - v0) / (v1 - v0);
    q[axis] = q[axis] + t * h;
    return q;
}

fn write_vertex(slot: u32, pos: vec3<f32>, normal: vec3<f32>) {
    let w = slot * VERTEX_WORDS;
    vertices[w] = pos.x;
    vertices[w + 1u] = pos.y;
    vertices[w + 2u] = pos.z;
    vertices[w + 3u] = normal.x;
    vertices[w + 4u] = normal.y;
    vertices[w + 5u] = normal.z;
    vertices[w + 6u] = params.color.x;
    vertices[w + 7u] = params.color.y;
    vertices[w + 8u] = params.color.z;
    vertices[w + 9u] = params.color.w;
}

@compute @workgroup_size(256)
fn emit(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let b = block_index(wid, nwg);
    let cube = b * WORKGROUP + lid;
    let kind = classify(b, cube);
    let s = exclusive_scan(lid, kind.x);
    if kind.x == 0u {
        return;
    }
    let p = cube_coords(cube);
    let first = blocks[b] + s.x;
    let row = kind.y * CASE_WORDS;
    for (var t = 0u; t < kind.x; t++) {
        let a = edge_vertex(p, table[row + 1u + 3u * t]);
        let bb = edge_vertex(p, table[row + 2u + 3u * t]);
        let c = edge_vertex(p, table[row + 3u + 3u * t]);
        let normal = cross(bb - a, c - a);
        let slot = 3u * (first + t);
        write_vertex(slot, a, normal);
        write_vertex(slot + 1u, bb, normal);
        write_vertex(slot + 2u, c, normal);
    }
}
