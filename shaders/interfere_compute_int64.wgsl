//!include shared/interfere_compute.wgsl

// Pass 1 of the compute interference backend in one pass, on adapters
// with 64-bit atomic min/max (wgpu SHADER_INT64_ATOMIC_MIN_MAX): per
// covered pixel one atomic max of (depth key << 32) | (NO_ID − id), so
// the nearest depth wins and, at equal depths, the smallest edge id —
// what `edge_depth` then `edge_ids` of interfere_compute.wgsl leave in
// the same words (src/stages/interfere/compute/).

@group(0) @binding(5) var<storage, read_write> pixels: array<atomic<u64>>;

fn cover_edge(pixel: u32, key: u32, id: u32, resolve: u32) {
    atomicMax(&pixels[pixel], (u64(key) << 32u) | u64(NO_ID - id));
}

@compute @workgroup_size(WORKGROUP)
fn edge_nearest(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let k = flat_id(wid, groups, lid, WORKGROUP);
    if k < p.edges {
        walk_edge(k, 0u);
    }
}
