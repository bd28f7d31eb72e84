// Stable LSD radix sort of (key, value) u32 pairs, 4 bits per pass.
//
// One pass = three dispatches over blocks of 256 elements:
//   histogram  per block, how many keys have each digit -> hist[d * blocks + b]
//   scan       one workgroup: exclusive prefix sum of hist in that order, so
//              hist[d * blocks + b] becomes where block b's digit-d keys start
//   scatter    each key goes to its block's start for its digit plus its rank
//              among the block's earlier keys of that digit (stable)
//
// Keep in sync with src/gpu/radix_sort.rs (Params, bindings).

struct Params {
    n: u32,
    shift: u32,
    blocks: u32,
    blocks_x: u32,      // workgroups along x in the dispatch (2D split)
}

const BLOCK: u32 = 256u;
const RADIX: u32 = 16u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read> vals_in: array<u32>;
@group(0) @binding(3) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(4) var<storage, read_write> vals_out: array<u32>;
@group(0) @binding(5) var<storage, read_write> hist: array<u32>;

var<workgroup> counts: array<atomic<u32>, RADIX>;
var<workgroup> digits: array<u32, BLOCK>;
var<workgroup> sums: array<u32, BLOCK>;

fn digit_of(key: u32) -> u32 {
    return (key >> params.shift) & (RADIX - 1u);
}

@compute @workgroup_size(256)
fn histogram(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let b = wid.y * params.blocks_x + wid.x;
    if (lid < RADIX) {
        atomicStore(&counts[lid], 0u);
    }
    workgroupBarrier();
    let i = b * BLOCK + lid;
    if (b < params.blocks && i < params.n) {
        atomicAdd(&counts[digit_of(keys_in[i])], 1u);
    }
    workgroupBarrier();
    if (b < params.blocks && lid < RADIX) {
        hist[lid * params.blocks + b] = atomicLoad(&counts[lid]);
    }
}

// A single workgroup walks hist in chunks of 256, carrying the running total.
@compute @workgroup_size(256)
fn scan(@builtin(local_invocation_index) lid: u32) {
    let total = params.blocks * RADIX;
    var carry = 0u;
    for (var base = 0u; base < total; base += BLOCK) {
        let i = base + lid;
        var v = 0u;
        if (i < total) {
            v = hist[i];
        }
        sums[lid] = v;
        workgroupBarrier();
        // Hillis–Steele inclusive scan in workgroup memory.
        for (var off = 1u; off < BLOCK; off <<= 1u) {
            var add = 0u;
            if (lid >= off) {
                add = sums[lid - off];
            }
            workgroupBarrier();
            sums[lid] += add;
            workgroupBarrier();
        }
        if (i < total) {
            hist[i] = carry + sums[lid] - v;
        }
        carry += sums[BLOCK - 1u];
        workgroupBarrier();
    }
}

@compute @workgroup_size(256)
fn scatter(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let b = wid.y * params.blocks_x + wid.x;
    let i = b * BLOCK + lid;
    let valid = b < params.blocks && i < params.n;
    var key = 0u;
    var d = RADIX; // matches no real digit
    if (valid) {
        key = keys_in[i];
        d = digit_of(key);
    }
    digits[lid] = d;
    workgroupBarrier();
    if (valid) {
        var rank = 0u;
        for (var j = 0u; j < lid; j++) {
            rank += select(0u, 1u, digits[j] == d);
        }
        let dst = hist[d * params.blocks + b] + rank;
        keys_out[dst] = key;
        vals_out[dst] = vals_in[i];
    }
}
