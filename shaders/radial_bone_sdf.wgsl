//!include shared/closest_point.wgsl

// Table 1's per-bone distance fields (Friston & Steed 2019, §9): res³
// signed distances per bone in its bind-pose frame, rebuilt every frame
// from the skinned triangles of that bone, and the points' query.
//
// Entry points, in order every frame:
//   build  one invocation per cell of every bone: the cell centre carried
//          into the world by the bone's skin matrix, its nearest triangle
//          among the bone's (brute force, branch-free distance first, the
//          exact closest point for the winner), signed by that triangle's
//          plane
//   query  per point: into each bone's frame by the inverse matrix,
//          trilinear between the cell centres; the answer of least
//          magnitude over the bones within `reach` (FAR beyond)
//
// Rust side: src/sim/radial/bone_sdf_gpu.rs (SdfParams, BoneBox, layouts
// checked by tests/it/shader_layouts.rs); CPU reference:
// src/sim/radial/bone_sdf.rs.

struct SdfParams {
    num_bones: u32,
    res: u32,
    num_points: u32,
    reach: f32,
}

struct BoneBox {
    lo: vec3f,
    first: u32,         // first of its triangles in bone_tris
    hi: vec3f,
    count: u32,         // its triangles
}

const WG: u32 = 64u;
// The "no triangle within reach" distance.
const FAR: f32 = 3.0e38;

@group(0) @binding(0) var<uniform> params: SdfParams;
@group(0) @binding(1) var<storage, read> positions: array<vec4f>;
@group(0) @binding(2) var<storage, read> triangles: array<u32>;
@group(0) @binding(3) var<storage, read> bone_tris: array<u32>;
@group(0) @binding(4) var<storage, read> bones: array<BoneBox>;
// Per bone: the skin matrix, then its inverse.
@group(0) @binding(5) var<storage, read> matrices: array<mat4x4f>;
@group(0) @binding(6) var<storage, read> points: array<vec4f>;
@group(0) @binding(7) var<storage, read_write> cells: array<f32>;
@group(0) @binding(8) var<storage, read_write> distance: array<f32>;

fn flat(wid: vec3u, nwg: vec3u, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * WG + lid;
}

fn corner(t: u32, c: u32) -> vec3f {
    return positions[triangles[3u * t + c]].xyz;
}

fn spacing(g: BoneBox) -> vec3f {
    return (g.hi - g.lo) / f32(params.res);
}

@compute @workgroup_size(WG)
fn build(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
    let idx = flat(wid, nwg, lid);
    let n = params.res;
    let per_bone = n * n * n;
    if idx >= per_bone * params.num_bones {
        return;
    }
    let b = idx / per_bone;
    let c = idx % per_bone;
    let g = bones[b];
    let cell = vec3f(f32(c % n), f32((c / n) % n), f32(c / (n * n)));
    let local = g.lo + (cell + 0.5) * spacing(g);
    let p = (matrices[2u * b] * vec4f(local, 1.0)).xyz;
    var best = FAR;
    var best_t = 0xffffffffu;
    for (var k = g.first; k < g.first + g.count; k++) {
        let t = bone_tris[k];
        let d2 = triangle_distance2(p, corner(t, 0u), corner(t, 1u), corner(t, 2u));
        if d2 < best {
            best = d2;
            best_t = t;
        }
    }
    var d = FAR;
    if best_t != 0xffffffffu {
        let a = corner(best_t, 0u);
        let bb = corner(best_t, 1u);
        let cc = corner(best_t, 2u);
        let q = closest_on_triangle(p, a, bb, cc).q;
        let len = length(p - q);
        d = select(len, -len, dot(p - q, cross(bb - a, cc - a)) < 0.0);
    }
    cells[idx] = d;
}

fn cell_value(b: u32, c: vec3u) -> f32 {
    let n = params.res;
    return cells[b * n * n * n + (c.z * n + c.y) * n + c.x];
}

@compute @workgroup_size(WG)
fn query(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
    let i = flat(wid, nwg, lid);
    if i >= params.num_points {
        return;
    }
    let p = points[i].xyz;
    let n = params.res;
    let last = f32(n - 1u);
    var answer = FAR;
    for (var b = 0u; b < params.num_bones; b++) {
        let g = bones[b];
        let local = (matrices[2u * b + 1u] * vec4f(p, 1.0)).xyz;
        let at = (local - g.lo) / spacing(g) - 0.5;
        if any(at < vec3f(0.0)) || any(at > vec3f(last)) {
            continue;
        }
        let i0 = min(vec3u(floor(at)), vec3u(n - 2u));
        let f = at - vec3f(i0);
        let x00 = mix(cell_value(b, i0), cell_value(b, i0 + vec3u(1u, 0u, 0u)), f.x);
        let x10 = mix(cell_value(b, i0 + vec3u(0u, 1u, 0u)), cell_value(b, i0 + vec3u(1u, 1u, 0u)), f.x);
        let x01 = mix(cell_value(b, i0 + vec3u(0u, 0u, 1u)), cell_value(b, i0 + vec3u(1u, 0u, 1u)), f.x);
        let x11 = mix(cell_value(b, i0 + vec3u(0u, 1u, 1u)), cell_value(b, i0 + vec3u(1u, 1u, 1u)), f.x);
        let d = mix(mix(x00, x10, f.y), mix(x01, x11, f.y), f.z);
        if abs(d) < abs(answer) {
            answer = d;
        }
    }
    distance[i] = select(FAR, answer, abs(answer) <= params.reach);
}
