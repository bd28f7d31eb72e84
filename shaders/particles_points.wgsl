//!include shared/particles.wgsl
//!include shared/work_list.wgsl
// The viewer's live particles (Knott 2003 §3.2, §3.3.2): every particle's
// [position, speed] at the frame's time T = `frame.t_begin`, appended to
// the point list the viewport draws. The instance count of the indirect
// draw is counted here, so nothing goes through the CPU. A particle whose
// last allowed flight has already ended on a collider (eliminated,
// §3.3.1) is left out until its next life. Two passes
// (src/stages/particles/points.rs says why):
//
// 1. `kept_main`, one invocation per particle, reads the state the impact
//    windows keep (particles_eval.wgsl): when the kept flight is of the
//    life at T, started at or before T and hits after T, the particle is
//    in that flight at T (every earlier flight of the life ended at or
//    before its start), and p(T) is its closed form. When it started at or
//    before T, hit at or before T and was the last allowed bounce, the
//    particle is eliminated at T. Any other particle (no state yet, a new
//    life, a kept flight that starts after T — the windows run ahead of
//    the drawn time — or a jump back) is listed.
// 2. `birth_main`, one invocation per listed particle (indirect dispatch):
//    the generation at T, then its chain of closed-form flights up to T.
//
// Both give the point solving every particle from birth gives: the kept
// flight is that chain's flight, computed by the same f32 code (in
// particles_eval.wgsl, so a fused multiply-add may round differently).

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> emitters: array<Emitter>;
@group(0) @binding(2) var<storage, read> colliders: array<Collider>;
@group(0) @binding(3) var<storage, read> check: array<vec4<u32>>;
// Two vec4 per particle: [p0, tau], [v0, hit collider | start_on << 16].
@group(0) @binding(4) var<storage, read> kept: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> points: array<vec4<f32>>;
// The indirect draw's arguments: [vertices per sprite (4), instance count, 0, 0].
@group(0) @binding(6) var<storage, read_write> draw: array<atomic<u32>, 4>;
// The particles `kept_main` listed for `birth_main`, and their count.
@group(0) @binding(7) var<storage, read_write> work: array<u32>;
@group(0) @binding(8) var<storage, read_write> listed: array<atomic<u32>, 1>;
// `birth_main`'s indirect dispatch: [workgroups, 1, 1]. Bound for
// `kept_main` only (its layout ends before this binding).
@group(0) @binding(9) var<storage, read_write> birth_args: array<atomic<u32>, 3>;

const WORKGROUP: u32 = 64u;

fn claim(n: u32) -> u32 {
    let base = atomicAdd(&listed[0], n);
    atomicAdd(&birth_args[0], list_groups(base + n) - list_groups(base));
    return base;
}

// Appends the point of flight `f` at time `t` (its flight at `t`).
fn draw_point(f: Flight, t: f32) {
    let tau = max(t - f.t0, 0.0);
    let v = f.v0 + f.acc * tau;
    let slot = atomicAdd(&draw[1], 1u);
    points[slot] = vec4<f32>(position(f, tau), length(v));
}

fn generation_of(pt: Particle, t: f32) -> u32 {
    return u32(max(generation_at(t, emitters[pt.emitter], pt.phase), 0));
}

@compute @workgroup_size(WORKGROUP)
fn kept_main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let pid = gid.x + gid.y * groups.x * WORKGROUP;
    var needs = false;
    if pid < frame.num_particles {
        let pt = particle_of(pid);
        let t = frame.t_begin;
        let s = check[pid];
        let t0 = bitcast<f32>(s.y);
        let t_hit = bitcast<f32>(s.z);
        if s.x != generation_of(pt, t) + 1u || t0 > t {
            needs = true;
        } else if t_hit > t {
            draw_point(kept_flight_of(pt, s, kept[2u * pid], kept[2u * pid + 1u]), t);
        } else {
            // Hit at or before T: eliminated there, or bounced into a
            // flight the state does not hold.
            needs = s.w < frame.bounces;
        }
    }
    let slot = list_slot(needs, lid);
    if needs {
        work[slot] = pid;
    }
}

fn from_birth(pid: u32) {
    let pt = particle_of(pid);
    let t = frame.t_begin;
    var f = first_flight(pt, generation_of(pt, t));
    loop {
        let h = earliest_hit(f);
        if !h.found || h.t > t {
            break;
        }
        if f.index >= frame.bounces {
            return;
        }
        f = bounce(f, h);
    }
    draw_point(f, t);
}

@compute @workgroup_size(WORKGROUP)
fn birth_main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let n = atomicLoad(&listed[0]);
    for (var i = gid.x; i < n; i += groups.x * WORKGROUP) {
        from_birth(work[i]);
    }
}
