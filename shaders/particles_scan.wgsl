//!include shared/particles.wgsl
//!include shared/work_list.wgsl
// The evaluation's scan (Knott 2003 §3.2, §3.4): one invocation per
// particle reads the 16-byte check of its kept state and lists the
// particle for the solve (particles_eval.wgsl) only when the window can
// change it: a flight of it ends or starts inside the window, or it has no
// usable state (its first window, a new life, a jump back in time). Most
// particles of a 60 Hz window are in mid-flight and cost one read here.
// The list is appended workgroup by workgroup (shared/work_list.wgsl: one
// global atomic per workgroup), and the solve's indirect dispatch counts a
// workgroup per WORKGROUP listed particles (the solve's workgroup size),
// at most MAX_WORKGROUPS (the solve strides over the rest).

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> emitters: array<Emitter>;
@group(0) @binding(2) var<storage, read> colliders: array<Collider>;
@group(0) @binding(3) var<storage, read> check: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> work: array<u32>;
// [impact count, 1, 0, 0, flight count, listed particles]
@group(0) @binding(5) var<storage, read_write> counters: array<atomic<u32>, 6>;
// The solve's indirect dispatch: [workgroups, 1, 1].
@group(0) @binding(6) var<storage, read_write> solve_args: array<atomic<u32>, 3>;

const WORKGROUP: u32 = 64u;

fn claim(n: u32) -> u32 {
    let base = atomicAdd(&counters[5], n);
    atomicAdd(&solve_args[0], list_groups(base + n) - list_groups(base));
    return base;
}

@compute @workgroup_size(WORKGROUP)
fn scan_main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let pid = gid.x + gid.y * groups.x * WORKGROUP;
    var needs = false;
    if pid < frame.num_particles {
        let pt = particle_of(pid);
        let a = frame.t_begin;
        let b = frame.t_begin + frame.dt;
        needs = !unchanged(check[pid], lives_in(a, b, emitters[pt.emitter], pt.phase), a, b);
    }
    let slot = list_slot(needs, lid);
    if needs {
        work[slot] = pid;
    }
}
