//!include shared/particles.wgsl
// The viewer's live particles (Knott 2003 §3.2, §3.3.2): one invocation
// per particle evaluates it at the frame's time `frame.t_begin` from time
// alone — its generation, then its chain of closed-form flights up to that
// time — and appends [position, speed] to the point list the viewport
// draws. The instance count of the indirect draw is counted here, so
// nothing goes through the CPU. A particle whose last allowed flight has
// already ended on a collider (eliminated, §3.3.1) is left out until its
// next life.

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> emitters: array<Emitter>;
@group(0) @binding(2) var<storage, read> colliders: array<Collider>;
@group(0) @binding(3) var<storage, read_write> points: array<vec4<f32>>;
// The indirect draw's arguments: [vertices per sprite (4), instance count, 0, 0].
@group(0) @binding(4) var<storage, read_write> draw: array<atomic<u32>, 4>;

const WORKGROUP: u32 = 64u;

@compute @workgroup_size(WORKGROUP)
fn points_main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let pid = gid.x + gid.y * groups.x * WORKGROUP;
    if pid >= frame.num_particles {
        return;
    }
    let pt = particle_of(pid);
    let e = emitters[pt.emitter];
    let t = frame.t_begin;
    var f = first_flight(pt, u32(max(generation_at(t, e, pt.phase), 0)));
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
    let tau = max(t - f.t0, 0.0);
    let v = f.v0 + f.acc * tau;
    let slot = atomicAdd(&draw[1], 1u);
    points[slot] = vec4<f32>(position(f, tau), length(v));
}
