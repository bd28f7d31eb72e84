//!include shared/radial_collide.wgsl

// Position-based particles colliding with radial fields (Friston & Steed
// 2019, §6, §8): the free particle stream and the cloth's particles.
//
// Entry points, one invocation per particle:
//   predict  q1 = q + (v + g dt) dt; pinned particles (w = 0) stay
//   collide  q1 moved out of the fields (shared/radial_collide.wgsl),
//            LANES invocations per particle
//   update   v = damping (q1 − q) / dt, q = q1; a particle below `floor`
//            goes back to its spawn point at rest
//
// Rust side: src/sim/radial/gpu.rs (Params, bindings; the layout is
// checked by tests/it/shader_layouts.rs); CPU reference:
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
// Invocations per particle in `collide`.
const LANES: u32 = 8u;

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

// `collide`: per field parity and particle of the workgroup, the first
// penetrating substep its lanes found (NO_CONTACT: none yet).
var<workgroup> first_hit: array<array<atomic<u32>, WG / LANES>, 2>;

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

// A particle's substeps are tested by LANES invocations at once (lane l
// takes substeps l + 1, l + 1 + LANES, …), so the latency a particle waits
// per field is one surface look-up per LANES substeps, not one per
// substep; the first penetrating substep is the smallest index the lanes
// report. Fields stay in order (a response moves q1 for the next field),
// each lane keeping the same copy of the particle's state.
@compute @workgroup_size(WG)
fn collide(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
           @builtin(local_invocation_index) lid: u32) {
    let slot = lid / LANES;
    let lane = lid % LANES;
    let i = (wid.y * nwg.x + wid.x) * (WG / LANES) + slot;
    // No early return: every invocation reaches the barriers.
    let live = i < params.num_particles;
    var q = vec4f(0.0);
    var q1 = vec4f(0.0);
    if live {
        q = pos[i];
        q1 = pred[i];
    }
    let moving = live && q.w != 0.0;
    var predicted = q1.xyz;
    var contact = NO_CONTACT;
    let n = params.substeps;
    let rounds = (n + LANES - 1u) / LANES;
    for (var field = 0u; field < params.num_fields; field++) {
        let f = frames[field];
        let s0 = to_field(prev_frames[field], q.xyz);
        let s1 = to_field(f, predicted);
        let tested = moving && broad_phase(s0, s1, f.length, radius[field]);
        // Alternate slots by field: the previous field's slot may still be
        // read while this one is reset.
        let hit = &first_hit[field % 2u][slot];
        if lane == 0u {
            atomicStore(hit, NO_CONTACT);
        }
        for (var r = 0u; r < rounds; r++) {
            workgroupBarrier();
            let j = r * LANES + lane + 1u;
            // A hit of an earlier round ends the march; this round's own
            // hits (all above r·LANES) do not skip a smaller substep.
            if tested && j <= n && atomicLoad(hit) > r * LANES && penetrates(f, s0, s1, j, n) {
                atomicMin(hit, j);
            }
        }
        workgroupBarrier();
        let j = atomicLoad(hit);
        if j != NO_CONTACT {
            predicted = respond_at(f, q.xyz, s0, s1, j, n, params.friction);
            contact = field;
        }
    }
    if live && lane == 0u {
        contacts[i] = contact;
        if moving {
            pred[i] = vec4f(predicted, q1.w);
        }
    }
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
