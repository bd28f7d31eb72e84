//!include shared/particles.wgsl
// Particles evaluated from time alone (Knott 2003 §3.2, §3.4): one
// invocation per particle. `impacts_main` walks the flight chains of the
// lives overlapping the frame window and appends every impact in it (and,
// when asked, every flight started in it).

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> emitters: array<Emitter>;
@group(0) @binding(2) var<storage, read> colliders: array<Collider>;
@group(0) @binding(3) var<storage, read_write> impacts: array<Impact>;
@group(0) @binding(4) var<storage, read_write> flights: array<FlightRecord>;
// [impact count (the draw's vertex count), 1, 0, 0, flight count]
@group(0) @binding(5) var<storage, read_write> counters: array<atomic<u32>, 5>;

const WORKGROUP: u32 = 64u;
// Most lives one window may overlap (a window longer than a life).
const MAX_LIVES: i32 = 64;

fn particle_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * WORKGROUP;
}

@compute @workgroup_size(WORKGROUP)
fn impacts_main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let pid = particle_index(gid, groups);
    if pid >= frame.num_particles {
        return;
    }
    let pt = particle_of(pid);
    let e = emitters[pt.emitter];
    let a = frame.t_begin;
    let b = frame.t_begin + frame.dt;
    let g_a = max(generation_at(a, e, pt.phase), 0);
    let g_b = min(generation_at(b, e, pt.phase), g_a + MAX_LIVES);
    for (var g = g_a; g <= g_b; g++) {
        var f = first_flight(pt, u32(g));
        loop {
            let h = earliest_hit(f);
            if frame.record_flights != 0u && f.t0 >= a && f.t0 < b {
                let slot = atomicAdd(&counters[4], 1u);
                if slot < frame.flight_capacity {
                    flights[slot] = FlightRecord(f.p0, f.t0 - a, f.v0, select(-1, i32(h.collider), h.found), pid, u32(g), f.index, 0u);
                }
            }
            if h.found && h.t >= a && h.t < b {
                let slot = atomicAdd(&counters[0], 1u);
                if slot < frame.capacity {
                    impacts[slot] = Impact(h.p, h.t - a, h.n, length(h.v), f.p0, f.t0 - a, f.v0, h.collider, pid, u32(g), f.index, 0u);
                }
            }
            if !h.found || f.index >= frame.bounces {
                break;
            }
            f = bounce(f, h);
        }
    }
}
