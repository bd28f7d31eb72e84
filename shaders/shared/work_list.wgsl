// A list of particle indices appended workgroup by workgroup, for a pass
// that solves only the listed particles with an indirect dispatch: one
// global atomic per workgroup, through the includer's
// `fn claim(n: u32) -> u32`, which reserves n slots and returns the first
// (and counts the dispatch's workgroups with `list_groups`). Needs the
// includer's `WORKGROUP` (its workgroup size, also the listed pass's).

// Most workgroups of the listed pass; it strides over the rest.
const MAX_WORKGROUPS: u32 = 65535u;

var<workgroup> wl_listed: atomic<u32>;
var<workgroup> wl_base: u32;

// Workgroups of the listed pass for `listed` particles.
fn list_groups(listed: u32) -> u32 {
    return min((listed + WORKGROUP - 1u) / WORKGROUP, MAX_WORKGROUPS);
}

// The list slot of an invocation that `needs` one (meaningless otherwise).
// Every invocation of the workgroup must call it (it has barriers).
fn list_slot(needs: bool, lid: u32) -> u32 {
    var local = 0u;
    if needs {
        local = atomicAdd(&wl_listed, 1u);
    }
    workgroupBarrier();
    if lid == 0u {
        let n = atomicLoad(&wl_listed);
        wl_base = 0u;
        if n > 0u {
            wl_base = claim(n);
        }
    }
    workgroupBarrier();
    return wl_base + local;
}
