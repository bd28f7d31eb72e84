// The indirect dispatch arguments of the compute interference backend's
// second-level passes (src/stages/interfere/compute/), from the
// counters of interfere_compute.wgsl: one workgroup per large face
// (`count_large_faces`), one thread per ambiguous pixel (`pair_counts`),
// split over x and y as gpu::dispatch_dims splits them.

// tallies[0]: large faces; tallies[1]: pixels for the pair counts.
@group(0) @binding(0) var<storage, read> tallies: array<u32>;
// x, y, z of the large faces' dispatch, then of the pair counts'.
@group(0) @binding(1) var<storage, read_write> args: array<u32>;

const MAX_GROUPS: u32 = 65535u;

fn write(at: u32, groups: u32) {
    let x = clamp(groups, 1u, MAX_GROUPS);
    args[at] = x;
    args[at + 1u] = max((groups + x - 1u) / x, 1u);
    args[at + 2u] = 1u;
}

@compute @workgroup_size(1)
fn dispatch_args() {
    write(0u, tallies[0]);
    write(3u, tallies[1]);
}
