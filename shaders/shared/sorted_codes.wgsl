//!include shared/flat_index.wgsl

// Shared by the octree (adaptive.wgsl) and the BVH build
// (adaptive_rss_bvh.wgsl), which include it: the range of sorted Morton
// codes under a prefix (octree.rs prefix_range) and indirect dispatch
// sizes. The including shader declares `params.num_tris`, the sorted
// `keys` and the `dispatch` arguments (3 u32 per slot).

const MAX_GROUPS_X: u32 = 65535u;

fn prefix(code: u32, depth: u32) -> u32 {
    return code >> (3u * (10u - depth));
}

// First sorted index whose prefix at `depth` is not below `code`.
fn lower_bound(code: u32, depth: u32) -> u32 {
    return lower_bound_in(code, depth, 0u, params.num_tris);
}

// lower_bound searching only [lo, hi), which must hold every index whose
// prefix at `depth` is `code` (a parent's range for its children's codes).
fn lower_bound_in(code: u32, depth: u32, first: u32, end: u32) -> u32 {
    var lo = first;
    var hi = end;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (prefix(keys[mid], depth) < code) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// `groups` workgroups at dispatch slot `slot`, split over x and y (each at
// most 65535; shaders rebuild the flat index as wid.y * nwg.x + wid.x).
fn write_args(slot: u32, groups: u32) {
    let x = min(groups, MAX_GROUPS_X);
    dispatch[3u * slot] = x;
    dispatch[3u * slot + 1u] = select(1u, (groups + x - 1u) / max(x, 1u), x > 0u);
    dispatch[3u * slot + 2u] = 1u;
}
