//!include shared/closest_point.wgsl
//!include shared/workgroup_scan.wgsl

// Table 1's uniform spatial hash (Friston & Steed 2019, §9) of a skinned
// mesh, rebuilt every frame, and the points' nearest-triangle query
// through it. Cells of size `cell` are hashed (Teschner et al. 2003) into
// `table_size` buckets, so the table needs no bounds of the moving mesh;
// a bucket lists every triangle whose box overlaps a cell hashed to it.
//
// Entry points, in order every frame:
//   clear        counts = 0                       one invocation per bucket
//   count        counts[h] += 1 per (triangle, overlapped cell)
//   scan_blocks  offsets = exclusive scan within blocks of SCAN_WG buckets,
//                block_sums = each block's total
//   scan_totals  block_sums scanned in one workgroup; offsets[table_size] =
//                the entry count
//   scan_add     offsets += the block's start; counts = 0 (the fill cursor)
//   fill         entries[offsets[h] + counts[h]++] = t (dropped beyond
//                `capacity`: the Rust side reads offsets[table_size])
//   query        per point: the nearest triangle of the 27 cells around it
//                within `reach`, as a signed distance (FAR beyond)
//
// Rust side: src/sim/radial/hash_gpu.rs (HashParams, layout checked by
// tests/it/shader_layouts.rs); CPU reference: SpatialHash in
// src/sim/radial/alternatives.rs.

struct HashParams {
    num_triangles: u32,
    num_points: u32,
    table_size: u32,
    capacity: u32,
    cell: f32,
    reach: f32,
    num_blocks: u32,
    _pad: u32,
}

const WG: u32 = 64u;
// The "no triangle within reach" distance.
const FAR: f32 = 3.0e38;

@group(0) @binding(0) var<uniform> params: HashParams;
@group(0) @binding(1) var<storage, read> positions: array<vec4f>;
@group(0) @binding(2) var<storage, read> triangles: array<u32>;
@group(0) @binding(3) var<storage, read> points: array<vec4f>;
@group(0) @binding(4) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> offsets: array<u32>;
@group(0) @binding(6) var<storage, read_write> block_sums: array<u32>;
@group(0) @binding(7) var<storage, read_write> entries: array<u32>;
@group(0) @binding(8) var<storage, read_write> distance: array<f32>;

fn flat(wid: vec3u, nwg: vec3u, lid: u32, size: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * size + lid;
}

fn corner(t: u32, c: u32) -> vec3f {
    return positions[triangles[3u * t + c]].xyz;
}

fn cell_of(p: vec3f) -> vec3i {
    return vec3i(floor(p / params.cell));
}

fn bucket(c: vec3i) -> u32 {
    let h = (u32(c.x) * 73856093u) ^ (u32(c.y) * 19349663u) ^ (u32(c.z) * 83492791u);
    return h % params.table_size;
}

@compute @workgroup_size(WG)
fn clear(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
    let i = flat(wid, nwg, lid, WG);
    if i < params.table_size {
        atomicStore(&counts[i], 0u);
    }
}

// The cells a triangle's box overlaps: lo..=hi.
fn cell_range(t: u32) -> array<vec3i, 2> {
    let a = corner(t, 0u);
    let b = corner(t, 1u);
    let c = corner(t, 2u);
    return array<vec3i, 2>(cell_of(min(min(a, b), c)), cell_of(max(max(a, b), c)));
}

@compute @workgroup_size(WG)
fn count(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
    let t = flat(wid, nwg, lid, WG);
    if t >= params.num_triangles {
        return;
    }
    let r = cell_range(t);
    for (var z = r[0].z; z <= r[1].z; z++) {
        for (var y = r[0].y; y <= r[1].y; y++) {
            for (var x = r[0].x; x <= r[1].x; x++) {
                atomicAdd(&counts[bucket(vec3i(x, y, z))], 1u);
            }
        }
    }
}

@compute @workgroup_size(SCAN_WG)
fn scan_blocks(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
               @builtin(local_invocation_index) lid: u32) {
    let block = wid.y * nwg.x + wid.x;
    let i = block * SCAN_WG + lid;
    var v = 0u;
    if i < params.table_size {
        v = atomicLoad(&counts[i]);
    }
    let s = exclusive_scan(lid, v);
    if i < params.table_size {
        offsets[i] = s.x;
    }
    if lid == 0u && block < params.num_blocks {
        block_sums[block] = s.y;
    }
}

@compute @workgroup_size(SCAN_WG)
fn scan_totals(@builtin(local_invocation_index) lid: u32) {
    var carry = 0u;
    for (var start = 0u; start < params.num_blocks; start += SCAN_WG) {
        let i = start + lid;
        var v = 0u;
        if i < params.num_blocks {
            v = block_sums[i];
        }
        let s = exclusive_scan(lid, v);
        if i < params.num_blocks {
            block_sums[i] = carry + s.x;
        }
        carry += s.y;
    }
    if lid == 0u {
        offsets[params.table_size] = carry;
    }
}

@compute @workgroup_size(SCAN_WG)
fn scan_add(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
            @builtin(local_invocation_index) lid: u32) {
    let block = wid.y * nwg.x + wid.x;
    let i = block * SCAN_WG + lid;
    if i < params.table_size {
        offsets[i] += block_sums[block];
        atomicStore(&counts[i], 0u);
    }
}

@compute @workgroup_size(WG)
fn fill(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
    let t = flat(wid, nwg, lid, WG);
    if t >= params.num_triangles {
        return;
    }
    let r = cell_range(t);
    for (var z = r[0].z; z <= r[1].z; z++) {
        for (var y = r[0].y; y <= r[1].y; y++) {
            for (var x = r[0].x; x <= r[1].x; x++) {
                let h = bucket(vec3i(x, y, z));
                let slot = offsets[h] + atomicAdd(&counts[h], 1u);
                if slot < params.capacity {
                    entries[slot] = t;
                }
            }
        }
    }
}

// The signed distance from p to triangle t: negative behind its plane
// (counter-clockwise winding facing out), as signed_distance in
// src/sim/radial/alternatives.rs.
fn signed_distance(p: vec3f, t: u32) -> f32 {
    let a = corner(t, 0u);
    let b = corner(t, 1u);
    let c = corner(t, 2u);
    let q = closest_on_triangle(p, a, b, c).q;
    let d = length(p - q);
    return select(d, -d, dot(p - q, cross(b - a, c - a)) < 0.0);
}

@compute @workgroup_size(WG)
fn query(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
    let i = flat(wid, nwg, lid, WG);
    if i >= params.num_points {
        return;
    }
    let p = points[i].xyz;
    let c = cell_of(p);
    var best = params.reach * params.reach;
    var best_t = 0xffffffffu;
    for (var dz = -1; dz <= 1; dz++) {
        for (var dy = -1; dy <= 1; dy++) {
            for (var dx = -1; dx <= 1; dx++) {
                let h = bucket(c + vec3i(dx, dy, dz));
                let end = min(offsets[h + 1u], params.capacity);
                for (var e = offsets[h]; e < end; e++) {
                    let t = entries[e];
                    let q = closest_on_triangle(p, corner(t, 0u), corner(t, 1u), corner(t, 2u)).q;
                    let d2 = dot(p - q, p - q);
                    // The lowest index among equals, as the CPU reference.
                    if d2 < best || (d2 == best && t < best_t) {
                        best = d2;
                        best_t = t;
                    }
                }
            }
        }
    }
    distance[i] = select(FAR, signed_distance(p, best_t), best_t != 0xffffffffu);
}
