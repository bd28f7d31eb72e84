// PBD cloth constraints (Friston & Steed 2019, §8): one Jacobi projection
// of every distance and bending constraint, one invocation per particle,
// each averaging the moves its constraints ask for ("smart averaging").
// Prediction, collision and update are radial_particles.wgsl's.
//
// Rust side: src/sim/radial/cloth_gpu.rs (Params, bindings; layouts
// checked by tests/it/shader_layouts.rs); CPU reference and method:
// src/sim/radial/cloth.rs.

struct Params {
    num_particles: u32,
    stretch: f32,
    bend: f32,
    _pad: u32,
}

// One end of a constraint (src/sim/radial/cloth.rs, Link).
struct Link {
    other: u32,
    rest: f32,
    kind: u32,
    _pad: u32,
}

const WG: u32 = 64u;
const LINK_BEND: u32 = 1u;

@group(0) @binding(0) var<uniform> params: Params;
// xyz position, w inverse mass (0 = pinned).
@group(0) @binding(1) var<storage, read> src: array<vec4f>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4f>;
// Particle i's links: links[offsets[i] .. offsets[i + 1]].
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read> links: array<Link>;

@compute @workgroup_size(WG)
fn project(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
           @builtin(local_invocation_index) lid: u32) {
    let i = (wid.y * nwg.x + wid.x) * WG + lid;
    if i >= params.num_particles {
        return;
    }
    let p = src[i];
    let start = offsets[i];
    let end = offsets[i + 1u];
    if p.w == 0.0 || end == start {
        dst[i] = p;
        return;
    }
    var sum = vec3f(0.0);
    for (var l = start; l < end; l++) {
        let link = links[l];
        let o = src[link.other];
        let total = p.w + o.w;
        let d = o.xyz - p.xyz;
        let len = length(d);
        if len > 0.0 {
            var k = params.stretch;
            if link.kind == LINK_BEND {
                k = params.bend;
            }
            sum += d / len * (k * (p.w / total) * (len - link.rest));
        }
    }
    dst[i] = vec4f(p.xyz + sum / f32(end - start), p.w);
}
