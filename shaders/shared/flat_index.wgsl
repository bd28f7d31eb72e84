// The flat index of a workgroup, and of an invocation of a 64-wide
// workgroup, in a dispatch split over x and y (gpu::dispatch_dims on the
// host, or a shader's own indirect arguments): the includer skips the
// excess past its count.

fn flat_group(wid: vec3u, nwg: vec3u) -> u32 {
    return wid.y * nwg.x + wid.x;
}

fn flat_index(wid: vec3u, nwg: vec3u, lid: u32) -> u32 {
    return flat_group(wid, nwg) * 64u + lid;
}
