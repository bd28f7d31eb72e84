//!include shared/radial_collide.wgsl

// Position-based particles colliding with radial fields (Friston & Steed
// 2019, §6, §8): the free particle stream and the cloth's particles.
//
// Entry points, one invocation per particle:
//   predict  q1 = q + (v + g dt) dt; pinned particles (w = 0) stay
//   collide  q1 moved out of the fields (shared/radial_collide.wgsl)
//   update   v = damping (q1 − q) / dt, q = q1; a particle below `floor`
//            goes back to its spawn point at rest
//
// Rust side: src/sim/radial/gpu.rs (Params, bindings; the layout is
// checked by tests/shader_layouts.rs); CPU reference:
// src/sim/radial/particles.rs.

struct Params {
    gravity: vec3f,
    dt: f32,
    num_particles: u32,
    num_fields: u32,
    substeps: u32,
    friction: f32,
    floor: f32,
    damping: f32,
    _pad0: u32,
    _pad1: u32,
}

const WG: u32 = 64u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> frames: array<FieldFrame>;
@group(0) @binding(2) var<storage, read> prev_frames: array<FieldFrame>;
@group(0) @binding(3) var<storage, read> radius: array<f32>;
@group(0) @binding(4) var<storage, read> values: array<f32>;
// xyz position, w inverse mass (0 = pinned).
@group(0) @binding(5) var<storage, read_write> pos: array<vec4f>;
@group(0) @binding(6) var<storage, read_write> pred: array<vec4f>;
@group(0) @binding(7) var<storage, read_write> vel: array<vec4f>;
@group(0) @binding(8) var<storage, read> spawn: array<vec4f>;
@group(0) @binding(9) var<storage, read_write> contacts: array<u32>;

fn particle(wid: vec3u, nwg: vec3u, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * WG + lid;
}

@compute @workgroup_size(WG)
fn predict(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
           @builtin(local_invocation_index) lid: u32) {
    let i = particle(wid, nwg, lid);
    if i >= params.num_particles {
        return;
    }
    let p = pos[i];
    if p.w == 0.0 {
        pred[i] = p;
        return;
    }
    let v = vel[i].xyz + params.gravity * params.dt;
    vel[i] = vec4f(v, 0.0);
    pred[i] = vec4f(p.xyz + v * params.dt, p.w);
}

@compute @workgroup_size(WG)
fn collide(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
           @builtin(local_invocation_index) lid: u32) {
    let i = particle(wid, nwg, lid);
    if i >= params.num_particles {
        return;
    }
    let q = pos[i];
    let q1 = pred[i];
    if q.w == 0.0 {
        contacts[i] = NO_CONTACT;
        return;
    }
    let c = collide_particle(q.xyz, q1.xyz, params.num_fields, params.substeps, params.friction);
    pred[i] = vec4f(c.predicted, q1.w);
    contacts[i] = c.field;
}

@compute @workgroup_size(WG)
fn update(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
          @builtin(local_invocation_index) lid: u32) {
    let i = particle(wid, nwg, lid);
    if i >= params.num_particles {
        return;
    }
    let q = pos[i];
    let q1 = pred[i];
    if q1.y < params.floor {
        pos[i] = spawn[i];
        pred[i] = spawn[i];
        vel[i] = vec4f(0.0);
        return;
    }
    vel[i] = vec4f((q1.xyz - q.xyz) / params.dt * params.damping, 0.0);
    pos[i] = q1;
}
