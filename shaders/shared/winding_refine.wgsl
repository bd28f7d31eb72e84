// The refining steps of the winding-number sign, shared by the grid's
// winding_refine (shared/winding_grid.wgsl) and the points'
// winding_points_refine (shared/winding_points.wgsl), for the points
// (grid cells or point indices: `items`) that the first pass left open.
//
// The walks: a whole workgroup (64 invocations) takes one item. With the
// stricter β of refine_beta, each invocation walks the subtrees of its
// share of `frontier` (nodes whose subtrees partition the tree; adjacent
// roots, which lie near each other, go to different invocations, so the
// subtrees around the point that the walk opens down to the leaves are
// spread over the workgroup); the parts (Ω, bound) meet in a workgroup
// reduction and the item is decided where ||w| − ½| exceeds the bound.
// The Taylor remainder of a node the walk expands is at most
// 3β²/(β − 1)⁴ of its contribution A/|c − p|² (src/geom/winding.rs): 0.29
// at β = 5, 0.030 at 12, 0.0033 at 32, so each step decides all but the
// items nearer the |w| = ½ sheet.
//
// The exact sum, for the items both walks leave open (refine_defer lists
// them in `exact_items`): spread over the whole device instead of one
// workgroup per item. winding_exact_parts gives each (item, block of
// EXACT_BLOCK triangles) a workgroup, whose invocations sum EXACT_BLOCK/64
// solid angles each and meet in a workgroup reduction into `exact_parts`;
// winding_exact_decide then sums an item's blocks in one workgroup and
// decides it, or leaves it to the CPU (`leftover`). The bound is the
// rounding of the terms alone, with every float32 addition on a term's way
// into the total counted (winding_exact_part).
//
// Uses the includer's shared/winding.wgsl (winding_subtree, winding_leaf
// with the item, which a device with f64 evaluates more precisely), its
// `wparams` (fields `capacity`: the entries of `leftover`, and `slack`:
// the rounding of a point in the tree's frame), its
//   fn winding_item_point(item: u32) -> vec3f   the item's point, tree frame
// and its bindings
//   values        array<f32>          one per item, signed here
//   frontier      array<u32>          roots of subtrees that partition the tree
//   leftover      array<atomic<u32>>  [count | items left to the CPU]
//   refine_steps  array<atomic<u32>>  REFINE_STEPS counters: the items each
//                                     step decided (β = 12, β = 32, exact)
//   exact_items   array<atomic<u32>>  [count | items for the exact sum]
//   exact_parts   array<vec2f>        EXACT_CAPACITY × blocks partial sums
// Call winding_refine_point in workgroup-uniform control flow.

const REFINE_STEPS: u32 = 3u;
// Items the exact sum takes (the host sizes exact_parts for them); more
// are left to the CPU.
const EXACT_CAPACITY: u32 = 256u;
// Triangles per workgroup of winding_exact_parts (16 per invocation).
const EXACT_BLOCK: u32 = 1024u;

fn refine_beta(step: u32) -> f32 {
    return select(32.0, 12.0, step == 0u);
}

var<workgroup> refine_parts: array<vec2f, 64>;
var<workgroup> refine_total: vec2f;

// The sum of every invocation's `part`, the same value in every invocation
// (6 additions on each part's way, which the parts' bounds allow for:
// winding_subtree's and winding_exact_part's counts).
fn refine_reduce(part: vec2f, lid: u32) -> vec2f {
    refine_parts[lid] = part;
    for (var stride = 32u; stride > 0u; stride >>= 1u) {
        workgroupBarrier();
        if (lid < stride) {
            refine_parts[lid] += refine_parts[lid + stride];
        }
    }
    workgroupBarrier();
    if (lid == 0u) {
        refine_total = refine_parts[0];
    }
    return workgroupUniformLoad(&refine_total);
}

// The side of |w| = ½ of item `item` at p (in the tree's frame, off by up
// to `slack`) by the two walks: 1 inside, 0 outside, -1 still open (for
// refine_defer). The same value in every invocation; the step that decided
// is counted in refine_steps.
fn winding_refine_point(p: vec3f, item: u32, slack: f32, lid: u32) -> i32 {
    let roots = arrayLength(&frontier);
    for (var step = 0u; step < REFINE_STEPS - 1u; step++) {
        var part = vec2f(0.0);
        for (var f = lid; f < roots; f += 64u) {
            part += winding_subtree(frontier[f], p, slack, refine_beta(step), item);
        }
        let w = refine_reduce(part, lid) / WINDING_FOUR_PI;
        let margin = abs(w.x) - 0.5;
        if (abs(margin) > w.y) {
            if (lid == 0u) {
                atomicAdd(&refine_steps[step], 1u);
            }
            return select(0, 1, margin > 0.0);
        }
    }
    return -1;
}

// Signs item `item`'s value: negative inside.
fn refine_sign(item: u32, inside: bool) {
    values[item] = select(abs(values[item]), -abs(values[item]), inside);
}

// Leaves item `item` to the CPU.
fn refine_leave(item: u32) {
    let j = atomicAdd(&leftover[0], 1u);
    if (j < wparams.capacity) {
        atomicStore(&leftover[1u + j], item);
    }
}

// Lists item `item`, which the walks left open, for the exact sum (or,
// beyond EXACT_CAPACITY, for the CPU).
fn refine_defer(item: u32) {
    let k = atomicAdd(&exact_items[0], 1u);
    if (k < EXACT_CAPACITY) {
        atomicStore(&exact_items[1u + k], item);
    } else {
        refine_leave(item);
    }
}

// Blocks of EXACT_BLOCK triangles (the columns of exact_parts).
fn exact_blocks() -> u32 {
    return (arrayLength(&winding_tris) / 3u + EXACT_BLOCK - 1u) / EXACT_BLOCK;
}

var<workgroup> exact_count: u32;

// Items listed for the exact sum (the same in every invocation).
fn exact_listed(lid: u32) -> u32 {
    if (lid == 0u) {
        exact_count = min(atomicLoad(&exact_items[0]), EXACT_CAPACITY);
    }
    return workgroupUniformLoad(&exact_count);
}

// This invocation's share (triangles first, first + 64, ... below end) of
// the exact sum of solid angles at item `item` (p), with its bound. Each
// addition of the float32 sum is off by at most 2^-24 of the sum of
// magnitudes so far, so each term is off by at most that times the
// additions on its way into the total: its share's (terms), the workgroup
// reduction's and winding_exact_decide's (under 64 + `later`, which the
// count starts from); the count times 9e-8 times the magnitudes covers
// them, as in winding_subtree.
fn winding_exact_part(p: vec3f, item: u32, first: u32, end: u32, later: u32) -> vec2f {
    var part = vec2f(0.0);
    var magnitude = 0.0;
    var terms = 64.0 + f32(later);
    for (var t = first; t < end; t += 64u) {
        let o = winding_leaf(p, t, wparams.slack, item);
        part += o;
        magnitude += abs(o.x);
        terms += 1.0;
    }
    return vec2f(part.x, part.y * (1.0 + terms * 1.2e-7) + terms * 9e-8 * magnitude);
}

// One workgroup per (listed item, block of triangles), looping over both:
// the block's part of the item's exact sum into exact_parts.
@compute @workgroup_size(64)
fn winding_exact_parts(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let count = exact_listed(lid);
    let blocks = exact_blocks();
    let tris = arrayLength(&winding_tris) / 3u;
    for (var k = wid.y; k < count; k += nwg.y) {
        let item = atomicLoad(&exact_items[1u + k]);
        let p = winding_item_point(item);
        for (var b = wid.x; b < blocks; b += nwg.x) {
            let first = b * EXACT_BLOCK;
            let part = winding_exact_part(p, item, first + lid, min(first + EXACT_BLOCK, tris), blocks);
            let total = refine_reduce(part, lid);
            if (lid == 0u) {
                exact_parts[k * blocks + b] = total;
            }
        }
    }
}

// One workgroup per listed item (looping): the sum of its blocks' parts
// (at most blocks/64 + 1 additions, then a workgroup reduction's 6, on
// each part's way: winding_exact_part counted them) decides it where
// ||w| − ½| exceeds the bound; else it goes to the CPU (on the sheet or on
// the surface to the sum's precision).
@compute @workgroup_size(64)
fn winding_exact_decide(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let count = exact_listed(lid);
    let blocks = exact_blocks();
    for (var k = wid.y * nwg.x + wid.x; k < count; k += nwg.x * nwg.y) {
        var part = vec2f(0.0);
        for (var b = lid; b < blocks; b += 64u) {
            part += exact_parts[k * blocks + b];
        }
        let w = refine_reduce(part, lid) / WINDING_FOUR_PI;
        if (lid == 0u) {
            let item = atomicLoad(&exact_items[1u + k]);
            let margin = abs(w.x) - 0.5;
            if (abs(margin) > w.y) {
                atomicAdd(&refine_steps[REFINE_STEPS - 1u], 1u);
                refine_sign(item, margin > 0.0);
            } else {
                refine_leave(item);
            }
        }
    }
}
