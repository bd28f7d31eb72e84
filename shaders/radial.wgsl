// Radial-field rasterisation (Friston & Steed 2019, §5) with the render
// pipeline, mirrored by src/stages/radial/setup.rs (per-triangle set-up,
// shared with radial_compute.wgsl in shared/radial_setup.wgsl) and cpu.rs
// (coverage).
//
// One draw of 3 vertices per (field, triangle) pair. wgpu has no geometry
// shader, so each vertex invocation pulls its whole triangle from the
// storage buffers, transforms it into field space, culls it (axis
// crossing, back-facing, nearly perpendicular), wraps it across the seam
// (eq. 4) and emits its own corner at (θ₁, z) with the triangle's plane as
// flat attributes. A culled triangle collapses to a point off screen. The
// fragment stage intersects the ray through its cell centre with the plane
// (§5.2), clamps by the vertex distances (§5.2.2) and keeps the nearest
// with atomicMin on the f32 bits (positive floats order as their bits).
// `clear` fills the values with +inf before each update (§5.3).

//!include shared/radial_setup.wgsl

const CLEAR_GROUP: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> frames: array<FieldFrame>;
@group(0) @binding(2) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> triangles: array<u32>;
@group(0) @binding(4) var<storage, read> pairs: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> values: array<atomic<u32>>;

struct Corner {
    @builtin(position) position: vec4<f32>,
    @location(0) @interpolate(flat) field: u32,
    @location(1) @interpolate(flat) wrapped: u32,
    // Unit normal (xyz) and offset (w) of the plane, in field space.
    @location(2) @interpolate(flat) plane: vec4<f32>,
    @location(3) @interpolate(flat) r_max: f32,
}

fn culled(field: u32) -> Corner {
    var out: Corner;
    out.position = vec4<f32>(-2.0, -2.0, 0.5, 1.0);
    out.field = field;
    out.wrapped = 0u;
    out.plane = vec4<f32>(0.0);
    out.r_max = 0.0;
    return out;
}

@vertex
fn vs_main(@builtin(vertex_index) vertex: u32) -> Corner {
    let pair = pairs[vertex / 3u];
    let corner = vertex % 3u;
    let f = frames[pair.x];
    var p: array<vec3<f32>, 3>;
    for (var j = 0u; j < 3u; j++) {
        p[j] = positions[triangles[3u * pair.y + j]].xyz;
    }
    let s = radial_setup(f, p, params.min_facing);
    if !s.ok {
        return culled(pair.x);
    }
    var out: Corner;
    out.position = vec4<f32>(2.0 * s.theta[corner] - 1.0, 1.0 - 2.0 * s.z[corner], 0.5, 1.0);
    out.field = pair.x;
    out.wrapped = select(0u, 1u, s.wrapped);
    out.plane = s.plane;
    out.r_max = s.r_max;
    return out;
}

@fragment
fn fs_main(c: Corner) -> @location(0) vec4<f32> {
    let f = frames[c.field];
    let k = u32(c.position.y);
    let i = field_column(f, u32(c.position.x), c.wrapped == 1u);
    let d = cell_distance(f, c.plane, c.r_max, i, k, params.clamp_far == 1u);
    if d >= 0.0 {
        atomicMin(&values[f.offset + k * f.n_theta + i], bitcast<u32>(d));
    }
    return vec4<f32>(0.0);
}

@compute @workgroup_size(CLEAR_GROUP)
fn clear(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let index = gid.y * groups.x * CLEAR_GROUP + gid.x;
    if index < params.cells {
        atomicStore(&values[index], INF_BITS);
    }
}
