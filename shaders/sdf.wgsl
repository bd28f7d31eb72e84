//!include shared/closest_point.wgsl
//!include shared/bvh_bounds.wgsl

// Exact signed distance field on a uniform grid (Sundholm 2010, §4.4, §6.2.5).
//
// Entry point:
//   brute       one invocation per cell; triangles streamed through workgroup
//               memory in tiles of 64 (Sundholm §6.2.5)
// The BVH backend's kernels, which need subgroup operations, are in
// sdf_packet.wgsl, which includes this file; the stage loads it on devices
// that have them.
//
// Rust side: src/stages/sdf/gpu.rs (Params, bindings; the layout is
// checked by tests/it/shader_layouts.rs) and src/mesh/normals.rs (7 feature
// normals per triangle).
//
// Included: shared/closest_point.wgsl (closest point on a triangle, feature
// ids) and shared/bvh_bounds.wgsl (NONE, box distance).

struct Params {
    origin: vec3f,      // centre of cell (0,0,0)
    cell_size: f32,
    dims: vec3u,
    num_tris: u32,
    bricks: vec3u,      // bricks per axis (ceil(dims / 4))
    band: f32,          // narrow band half-width in world units; < 0: no band
    num_cells: u32,
    // 1: write `closest`; 0: a values-only run binds a 4-byte `closest`,
    // which nothing touches (sdf_packet.wgsl keeps each cell's nearest
    // triangle in `values` between its passes instead).
    write_closest: u32,
    _pad1: u32,
    _pad2: u32,
}

const TILE: u32 = 64u;

@group(0) @binding(0) var<uniform> params: Params;
// 3 corners per triangle (w unused).
@group(0) @binding(1) var<storage, read> tri_pos: array<vec4f>;
// 7 feature normals per triangle, 3 floats each:
// [face, edge01, edge12, edge20, v0, v1, v2].
@group(0) @binding(2) var<storage, read> normals: array<f32>;
// Float bits (bitcast): sdf_packet.wgsl keeps a triangle index here
// between its passes in a values-only run.
@group(0) @binding(3) var<storage, read_write> values: array<u32>;
// (triangle << 3) | feature, or NONE for a far cell.
@group(0) @binding(4) var<storage, read_write> closest: array<u32>;
// Binding 5: the BVH, declared in sdf_packet.wgsl.
// [0]: point–triangle distance evaluations, summed over all invocations.
@group(0) @binding(6) var<storage, read_write> counters: array<atomic<u32>>;

// (i, j, k) of the `index`-th element of a `dims` grid, x fastest.
fn grid_coords(index: u32, dims: vec3u) -> vec3u {
    return vec3u(index % dims.x, (index / dims.x) % dims.y, index / (dims.x * dims.y));
}

fn cell_coords(cell: u32) -> vec3u {
    return grid_coords(cell, params.dims);
}

fn cell_center(ijk: vec3u) -> vec3f {
    return params.origin + vec3f(ijk) * params.cell_size;
}

// Writes the cell's signed distance and closest (triangle, feature); the sign
// is the side of the closest feature's angle-weighted pseudo-normal
// (Bærentzen & Aanæs; Sundholm §4.3.2).
fn write_cell(cell: u32, p: vec3f, best_d2: f32, best_tri: u32, feature: u32) {
    if (best_tri == NONE) {
        // Farther than the band from every triangle: the CPU finishing step
        // gives far cells their sign.
        values[cell] = bitcast<u32>(params.band);
        if (params.write_closest != 0u) {
            closest[cell] = NONE;
        }
        return;
    }
    // The closest point's side of the feature's normal: for a face the
    // plane through a corner, for an edge or a vertex a plane through that
    // feature's corner (corner 0 lies on the face and on edges 01 and 20,
    // corner 1 on edge 12), all equal to the side of the closest point.
    let base = (best_tri * 7u + feature) * 3u;
    let n = vec3f(normals[base], normals[base + 1u], normals[base + 2u]);
    let corner = select(0u, 1u, feature == FEATURE_EDGE12 || feature == FEATURE_V1);
    let on_feature = select(tri_pos[3u * best_tri + corner].xyz, tri_pos[3u * best_tri + 2u].xyz, feature == FEATURE_V2);
    var sign = 1.0;
    if (dot(p - on_feature, n) < 0.0) {
        sign = -1.0;
    }
    values[cell] = bitcast<u32>(sign * sqrt(best_d2));
    if (params.write_closest != 0u) {
        closest[cell] = (best_tri << 3u) | feature;
    }
}

fn band2() -> f32 {
    if (params.band < 0.0) {
        return 3.0e38;
    }
    return params.band * params.band;
}

var<workgroup> tile: array<vec3f, 192>;

@compute @workgroup_size(64)
fn brute(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let cell = (wid.y * nwg.x + wid.x) * 64u + lid;
    let valid = cell < params.num_cells;
    let p = cell_center(cell_coords(min(cell, params.num_cells - 1u)));
    var best = band2();
    var best_tri = NONE;
    var best_feature = FEATURE_FACE;
    for (var base = 0u; base < params.num_tris; base += TILE) {
        let t = base + lid;
        if (t < params.num_tris) {
            tile[3u * lid] = tri_pos[3u * t].xyz;
            tile[3u * lid + 1u] = tri_pos[3u * t + 1u].xyz;
            tile[3u * lid + 2u] = tri_pos[3u * t + 2u].xyz;
        }
        workgroupBarrier();
        let n = min(TILE, params.num_tris - base);
        for (var k = 0u; k < n; k++) {
            let c = closest_on_triangle(p, tile[3u * k], tile[3u * k + 1u], tile[3u * k + 2u]);
            let d = p - c.q;
            let d2 = dot(d, d);
            // Strict: the first of equally close triangles wins, as on the CPU.
            if (d2 < best) {
                best = d2;
                best_tri = base + k;
                best_feature = c.feature;
            }
        }
        workgroupBarrier();
    }
    if (valid) {
        write_cell(cell, p, best, best_tri, best_feature);
    }
}
