//!include shared/particles.wgsl
// The evaluation's solve (Knott 2003 §3.2–3.4): one invocation per
// particle the scan (particles_scan.wgsl) listed. It walks the flight
// chains of the lives overlapping the window [a, b) and appends every
// impact in it (and, when asked, every flight started in it), then keeps
// the flight the window ends in as the particle's state.
//
// A life whose kept flight started before `a` resumes from that flight
// and its known hit: every earlier flight of the chain ends at or before
// the kept flight's start, so it has no impact and no start in the window.
// Otherwise the chain starts from birth. A chain stops at the first flight
// whose hit is at or after `b` (the next flight starts there, after the
// window). Both give the same flights, hits and records as solving every
// life from birth each window, with the same f32 arithmetic.

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> emitters: array<Emitter>;
@group(0) @binding(2) var<storage, read> colliders: array<Collider>;
@group(0) @binding(3) var<storage, read_write> impacts: array<Impact>;
@group(0) @binding(4) var<storage, read_write> flights: array<FlightRecord>;
// [impact count (the draw's vertex count), 1, 0, 0, flight count, listed particles]
@group(0) @binding(5) var<storage, read_write> counters: array<atomic<u32>, 6>;
@group(0) @binding(6) var<storage, read_write> check: array<vec4<u32>>;
// Two vec4 per particle: [p0, tau], [v0, hit collider | start_on << 16].
@group(0) @binding(7) var<storage, read_write> kept: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read> work: array<u32>;

const WORKGROUP: u32 = 64u;

// The kept flight of particle `pid` (of life s.x − 1).
fn kept_flight(pid: u32, pt: Particle, s: vec4<u32>) -> Flight {
    return kept_flight_of(pt, s, kept[2u * pid], kept[2u * pid + 1u]);
}

// Its hit, as `earliest_hit` found it when the flight was kept.
fn kept_hit(pid: u32, f: Flight) -> Hit {
    return hit_at(f, id32(bitcast<u32>(kept[2u * pid + 1u].w) & NO_ID16), kept[2u * pid].w);
}

fn keep(pid: u32, g: i32, f: Flight, h: Hit) {
    check[pid] = vec4<u32>(u32(g) + 1u, bitcast<u32>(f.t0), select(NO_HIT_TIME, bitcast<u32>(h.t), h.found), f.index);
    let ids = id16(select(NO_COLLIDER, h.collider, h.found)) | (id16(f.start_on) << 16u);
    kept[2u * pid] = vec4<f32>(f.p0, h.tau);
    kept[2u * pid + 1u] = vec4<f32>(f.v0, bitcast<f32>(ids));
}

fn solve(pid: u32) {
    let pt = particle_of(pid);
    let a = frame.t_begin;
    let b = frame.t_begin + frame.dt;
    let lives = lives_in(a, b, emitters[pt.emitter], pt.phase);
    let s = check[pid];
    for (var g = lives.x; g <= lives.y; g++) {
        var f: Flight;
        var h: Hit;
        if resumes(s, g, a) {
            f = kept_flight(pid, pt, s);
            h = kept_hit(pid, f);
        } else {
            f = first_flight(pt, u32(g));
            h = earliest_hit(f);
        }
        loop {
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
            if !h.found || f.index >= frame.bounces || h.t >= b {
                break;
            }
            f = bounce(f, h);
            h = earliest_hit(f);
        }
        if g == lives.y {
            keep(pid, g, f, h);
        }
    }
}

@compute @workgroup_size(WORKGROUP)
fn solve_main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let listed = atomicLoad(&counters[5]);
    for (var i = gid.x; i < listed; i += groups.x * WORKGROUP) {
        solve(work[i]);
    }
}
