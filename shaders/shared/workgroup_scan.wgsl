// A workgroup-wide exclusive prefix sum of one u32 per invocation, for
// workgroups of SCAN_WG invocations (radix_sort.wgsl, iso_surface.wgsl).

const SCAN_WG: u32 = 256u;

var<workgroup> scan_buf: array<u32, 512>;       // 2 * SCAN_WG

// Exclusive prefix sum of one value per invocation: (sum over the earlier
// invocations, the workgroup's total). Kogge–Stone, ping-ponging between the
// halves of scan_buf. Call from uniform control flow.
fn exclusive_scan(lid: u32, v: u32) -> vec2u {
    scan_buf[lid] = v;
    workgroupBarrier();
    var cur = 0u;
    for (var off = 1u; off < SCAN_WG; off <<= 1u) {
        var x = scan_buf[cur + lid];
        if (lid >= off) {
            x += scan_buf[cur + lid - off];
        }
        cur = SCAN_WG - cur;
        scan_buf[cur + lid] = x;
        workgroupBarrier();
    }
    let inclusive = scan_buf[cur + lid];
    let total = scan_buf[cur + SCAN_WG - 1u];
    workgroupBarrier(); // scan_buf is free for the next call
    return vec2u(inclusive - v, total);
}
