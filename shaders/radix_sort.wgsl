// Stable LSD radix sort of (key, value) u32 pairs, 8-bit digits
// (params.bits <= 8 of them in the last pass).
//
// Keys are cut into tiles of TILE = 256 invocations x 8 keys. One pass =
// three dispatches:
//   histogram  one workgroup per tile: how many of its keys have each digit
//              -> hist[d * tiles + t]; each count is also added to the
//              pass's digit total, totals[pass * 256 + d] (global atomics)
//   scan       one workgroup per digit d: the exclusive scan of the 256
//              digit totals gives where digit d starts; then the workgroup
//              scans its row hist[d * tiles ..], 2048 tiles per step, so
//              hist[d * tiles + t] becomes where tile t's digit-d keys go
//   scatter    one workgroup per tile: the tile is sorted stably by digit in
//              workgroup memory (one 1-bit split per digit bit, each a
//              workgroup prefix sum), then each key goes to its digit's
//              start for the tile plus its position among the tile's keys
//              of that digit
// An invocation handles at most 8 keys or 8 table entries per step; every
// step across the workgroup is a prefix sum (Kogge–Stone, one barrier per
// doubling), so nothing walks a tile or a table row one entry at a time.
//
// Workgroup memory (scatter, the largest): the tile's packed items
// (digit << 16 | position, padded against bank conflicts) 8.25 KiB, the
// scan's two halves 2 KiB, digit counts and offsets 2 KiB.
//
// Rust side: src/gpu/radix_sort.rs (Params, bindings, TILE; checked by
// tests/it/shader_layouts.rs).
//
// exclusive_scan (and its workgroup buffer) comes from shared/workgroup_scan.wgsl
// (WG must equal its SCAN_WG).

//!include shared/workgroup_scan.wgsl

struct Params {
    n: u32,
    shift: u32,         // the pass's lowest key bit, a multiple of 8
    bits: u32,          // the pass's digit width, 1..=8
    tiles: u32,
}

const WG: u32 = 256u;           // invocations per workgroup
const ITEMS: u32 = 8u;          // keys per invocation in a tile
const TILE: u32 = WG * ITEMS;
const RADIX: u32 = 256u;        // digits per pass
const RADIX_BITS: u32 = 8u;
const INDEX_BITS: u32 = 16u;    // a packed item's position in its tile

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read> vals_in: array<u32>;
@group(0) @binding(3) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(4) var<storage, read_write> vals_out: array<u32>;
@group(0) @binding(5) var<storage, read_write> hist: array<u32>;
@group(0) @binding(6) var<storage, read_write> totals: array<atomic<u32>>;

var<workgroup> counts: array<atomic<u32>, RADIX>;
var<workgroup> offsets: array<u32, RADIX>;
var<workgroup> items: array<u32, 2112>;         // slot(TILE)
var<workgroup> digit_start: u32;

fn digit_of(key: u32) -> u32 {
    return (key >> params.shift) & ((1u << params.bits) - 1u);
}

// This pass's digit totals in `totals`.
fn totals_base() -> u32 {
    return params.shift / RADIX_BITS * RADIX;
}

// One padding word per 32 items, so that an invocation's 8 consecutive items
// and 32 invocations' items of one stride fall in distinct banks.
fn slot(p: u32) -> u32 {
    return p + (p >> 5u);
}


@compute @workgroup_size(256)
fn histogram(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let t = wid.y * nwg.x + wid.x;
    if (t >= params.tiles) {
        return;
    }
    atomicStore(&counts[lid], 0u);
    workgroupBarrier();
    for (var r = 0u; r < ITEMS; r++) {
        let i = t * TILE + r * WG + lid;
        if (i < params.n) {
            atomicAdd(&counts[digit_of(keys_in[i])], 1u);
        }
    }
    workgroupBarrier();
    let c = atomicLoad(&counts[lid]);
    hist[lid * params.tiles + t] = c;
    if (c != 0u) {
        atomicAdd(&totals[totals_base() + lid], c);
    }
}

@compute @workgroup_size(256)
fn scan(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let d = wid.x;
    let starts = exclusive_scan(lid, atomicLoad(&totals[totals_base() + lid]));
    if (lid == d) {
        digit_start = starts.x;
    }
    var carry = workgroupUniformLoad(&digit_start);
    let row = d * params.tiles;
    // TILE entries per step, 8 consecutive ones per invocation.
    for (var first = 0u; first < params.tiles; first += TILE) {
        var c: array<u32, ITEMS>;
        var sum = 0u;
        for (var j = 0u; j < ITEMS; j++) {
            let t = first + lid * ITEMS + j;
            if (t < params.tiles) {
                c[j] = hist[row + t];
            }
            sum += c[j];
        }
        let s = exclusive_scan(lid, sum);
        var at = carry + s.x;
        for (var j = 0u; j < ITEMS; j++) {
            let t = first + lid * ITEMS + j;
            if (t < params.tiles) {
                hist[row + t] = at;
            }
            at += c[j];
        }
        carry += s.y;
    }
}

@compute @workgroup_size(256)
fn scatter(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let t = wid.y * nwg.x + wid.x;
    if (t >= params.tiles) {
        return;
    }
    let base = t * TILE;
    let valid = min(params.n - base, TILE);
    atomicStore(&counts[lid], 0u);
    workgroupBarrier();
    // Load striped (coalesced). Positions past n get the top digit, so the
    // stable local sort keeps them after every key.
    for (var r = 0u; r < ITEMS; r++) {
        let p = r * WG + lid;
        var d = RADIX - 1u;
        if (p < valid) {
            d = digit_of(keys_in[base + p]);
            atomicAdd(&counts[d], 1u);
        }
        items[slot(p)] = (d << INDEX_BITS) | p;
    }
    workgroupBarrier();
    // Where the tile's keys of digit d go: the scanned table's start for
    // (d, t), less the keys of smaller digits before them in the sorted tile.
    let local_start = exclusive_scan(lid, atomicLoad(&counts[lid])).x;
    offsets[lid] = hist[lid * params.tiles + t] - local_start;
    // Stable local sort, one 1-bit split per digit bit: each invocation
    // holds 8 consecutive items; zeros go first, ones after, order kept.
    var mine: array<u32, ITEMS>;
    for (var b = INDEX_BITS; b < INDEX_BITS + params.bits; b++) {
        var zeros = 0u;
        for (var j = 0u; j < ITEMS; j++) {
            mine[j] = items[slot(lid * ITEMS + j)];
            zeros += 1u - ((mine[j] >> b) & 1u);
        }
        let z = exclusive_scan(lid, zeros);
        var zeros_before = z.x;
        for (var j = 0u; j < ITEMS; j++) {
            var dst = z.y + lid * ITEMS + j - zeros_before;
            if (((mine[j] >> b) & 1u) == 0u) {
                dst = zeros_before;
                zeros_before++;
            }
            items[slot(dst)] = mine[j];
        }
        workgroupBarrier();
    }
    // Write out striped: consecutive keys of one digit go to consecutive
    // addresses.
    for (var r = 0u; r < ITEMS; r++) {
        let p = r * WG + lid;
        if (p < valid) {
            let item = items[slot(p)];
            let src = base + (item & ((1u << INDEX_BITS) - 1u));
            let dst = offsets[item >> INDEX_BITS] + p;
            keys_out[dst] = keys_in[src];
            vals_out[dst] = vals_in[src];
        }
    }
}
