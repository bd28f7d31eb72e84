// The refining steps of the winding-number sign, shared by the grid
// (shared/winding_grid.wgsl) and the points (shared/winding_points.wgsl),
// for the points (grid cells or point indices: `items`) that the first
// pass left open, in `undecided`. Every step is spread over the whole
// device: work items (listed item, column), a workgroup each, write
// partial sums (Ω, bound) into `refine_sums`, and a decide pass gives each
// listed item one workgroup that sums its columns and decides it or passes
// it on to the next step's list.
//
// The walks (winding_walk12_parts/_decide, then winding_walk32_parts/
// _decide over the items the first left open): the columns deal out
// `frontier` (nodes whose subtrees partition the tree, ~4096 of them,
// adjacent ones near each other in space). Root f goes to column
// f % columns, invocation (f / columns) % 64, so the roots around the item
// — adjacent in the frontier, the ones the walk opens down to the leaves —
// land in different workgroups and invocations. The number of columns
// adapts to the open count (walk_spread: about WALK_TARGET_GROUPS
// workgroups in all, up to one root per invocation): a few hundred open
// items get dozens of short workgroups each, thousands get a few, each
// invocation walking several roots. The Taylor remainder of a node the walk
// expands is at most 3β²/(β − 1)⁴ of its contribution A/|c − p|²
// (src/geom/winding.rs): 0.29 at β = 5, 0.030 at 12, 0.0033 at 32, so
// each step decides all but the items nearer the |w| = ½ sheet.
//
// The exact sum (winding_exact_parts/_decide, over the items both walks
// leave open): the columns are blocks of EXACT_BLOCK triangles, whose
// invocations sum EXACT_BLOCK/64 solid angles each. The items still open
// go to the CPU (`leftover`). The bound is the rounding of the terms
// alone, with every float32 addition on a term's way into the total
// counted (winding_exact_part).
//
// Every float32 addition on a walk term's way into an item's total is
// within winding_subtree's allowance of 192: at most 128 into the
// invocation's part (a frontier has fewer than 2 × 4096 roots, dealt over
// at least 64 invocations), a workgroup reduction's 6, the decide pass's
// sum of at most ceil(columns / 64) ≤ 2 columns and its reduction's 6.
//
// Few open items on a small mesh skip the walks for the exact sum
// (winding_refine_first_args).
//
// The counts are known on the GPU only: before each step a one-invocation
// pass (winding_refine_args) writes the dispatch arguments of the passes
// from the counts into refine_items, and the host copies them into an
// indirect-argument buffer (a buffer bound for storage cannot be read as
// indirect arguments in the same dispatch), so each pass has exactly one
// workgroup per (listed item, column) — rows over items, columns over
// chunks or blocks — and the passes loop only past the dispatch limit. A
// fixed grid sized for the largest list would launch tens of thousands
// of empty workgroups for a list of a few dozen items.
//
// Uses the includer's shared/winding.wgsl (winding_subtree, winding_leaf
// with the item, which a device with f64 evaluates more precisely), its
// `wparams` (fields `capacity`: the entries of `undecided` and `leftover`,
// `slack`: the rounding of a point in the tree's frame, and
// `direct_budget`: winding_refine_first_args'), its
//   fn winding_item_point(item: u32) -> vec3f   the item's point, tree frame
// and its bindings
//   values        array<f32>          one per item, signed here
//   undecided     array<atomic<u32>>  [count | items the first pass left open]
//   frontier      array<u32>          roots of subtrees that partition the tree
//   leftover      array<atomic<u32>>  [count | items left to the CPU]
//   refine_steps  array<atomic<u32>>  REFINE_STEPS counters: the items each
//                                     step decided (β = 12, β = 32, exact)
//   refine_items  array<atomic<u32>>  [β = 32 list's count | exact list's
//                                     count | the 6 passes' dispatch
//                                     arguments (3 each) | β = 32 list
//                                     (wparams.capacity) | exact list
//                                     (EXACT_CAPACITY)]
//   refine_sums   array<vec2f>        partial sums, one per (listed item,
//                                     column) of the running step: room
//                                     for max(WALK_TARGET_GROUPS, capacity)
//                                     of a walk's (walk_spread) and
//                                     EXACT_CAPACITY × blocks of the exact
//                                     sum's

const REFINE_STEPS: u32 = 3u;
// Items the exact sum takes; more are left to the CPU.
const EXACT_CAPACITY: u32 = 256u;
// Triangles per workgroup of winding_exact_parts (16 per invocation).
const EXACT_BLOCK: u32 = 1024u;
// Where the dispatch arguments and the lists of refine_items start.
const REFINE_ARGS: u32 = 2u;
const WALK_LIST: u32 = 20u;
// Workgroups a walk's parts pass aims at (walk_spread). Every listed item
// is walked, however many, so that none is left to the CPU to sign one
// by one (an octree has tens of thousands of open nodes).
const WALK_TARGET_GROUPS: u32 = 16384u;
// The most workgroups a dispatch dimension takes (WebGPU's default limit).
const REFINE_MAX_GROUPS: u32 = 65535u;

fn refine_beta(step: u32) -> f32 {
    return select(32.0, 12.0, step == 0u);
}

var<workgroup> refine_count: u32;

// The number of items listed for step `step` (0: `undecided`, 1: the
// β = 32 list, 2: the exact list), the same in every invocation.
fn refine_listed(step: u32, lid: u32) -> u32 {
    if (lid == 0u) {
        if (step == 0u) {
            refine_count = min(atomicLoad(&undecided[0]), wparams.capacity);
        } else {
            let capacity = select(EXACT_CAPACITY, wparams.capacity, step == 1u);
            refine_count = min(atomicLoad(&refine_items[step - 1u]), capacity);
        }
    }
    return workgroupUniformLoad(&refine_count);
}

// The k-th item listed for step `step`.
fn refine_item(step: u32, k: u32) -> u32 {
    if (step == 0u) {
        return atomicLoad(&undecided[1u + k]);
    }
    return atomicLoad(&refine_items[select(exact_list(), WALK_LIST, step == 1u) + k]);
}

// Where the exact sum's list starts in refine_items: after the β = 32
// walk's, which has room for every item.
fn exact_list() -> u32 {
    return WALK_LIST + wparams.capacity;
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

// Lists item `item` for step `step` (1 or 2), or, beyond that list's
// capacity, leaves it to the CPU.
fn refine_push(step: u32, item: u32) {
    let k = atomicAdd(&refine_items[step - 1u], 1u);
    if (k < select(EXACT_CAPACITY, wparams.capacity, step == 1u)) {
        atomicStore(&refine_items[select(exact_list(), WALK_LIST, step == 1u) + k], item);
    } else {
        refine_leave(item);
    }
}

// The most columns of a walk step: one per 64 frontier roots.
fn walk_chunks() -> u32 {
    return (arrayLength(&frontier) + 63u) / 64u;
}

// The columns of walk step `step` (written by winding_refine_args as its
// parts pass's width): between 1 and walk_chunks().
fn walk_columns(step: u32) -> u32 {
    return atomicLoad(&refine_items[REFINE_ARGS + 6u * step]);
}

// Walk step `step`'s parts: one workgroup per (listed item, column),
// looping over both; with `columns` columns, root f goes to column
// f % columns and invocation (f / columns) % 64, so adjacent roots (near
// each other in space) go to different workgroups, and each invocation
// walks every (64 · columns)-th root from its first. An item's parts are
// a row of `columns` in refine_sums.
fn walk_parts(step: u32, wid: vec3u, nwg: vec3u, lid: u32) {
    let count = refine_listed(step, lid);
    let roots = arrayLength(&frontier);
    let columns = nwg.x;
    for (var k = wid.y; k < count; k += nwg.y) {
        let item = refine_item(step, k);
        let p = winding_item_point(item);
        let c = wid.x;
        var part = vec2f(0.0);
        for (var f = c + lid * columns; f < roots; f += 64u * columns) {
            part += winding_subtree(frontier[f], p, wparams.slack, refine_beta(step), item);
        }
        let total = winding_reduce(part, lid);
        if (lid == 0u) {
            refine_sums[k * columns + c] = total;
        }
    }
}

// Walk step `step`'s decisions: one workgroup per listed item (looping)
// sums its columns and decides it where ||w| − ½| exceeds the bound, else
// lists it for the next step.
fn walk_decide(step: u32, wid: vec3u, nwg: vec3u, lid: u32) {
    let count = refine_listed(step, lid);
    let columns = walk_columns(step);
    for (var k = wid.y * nwg.x + wid.x; k < count; k += nwg.x * nwg.y) {
        var part = vec2f(0.0);
        for (var c = lid; c < columns; c += 64u) {
            part += refine_sums[k * columns + c];
        }
        let w = winding_reduce(part, lid) / WINDING_FOUR_PI;
        if (lid == 0u) {
            let item = refine_item(step, k);
            let margin = abs(w.x) - 0.5;
            if (abs(margin) > w.y) {
                atomicAdd(&refine_steps[step], 1u);
                refine_sign(item, margin > 0.0);
            } else {
                refine_push(step + 1u, item);
            }
        }
    }
}

// The columns a walk of `count` items is spread over: about
// WALK_TARGET_GROUPS workgroups in all, at most one column per 64 roots
// (one root an invocation), at least one. Few open items get many short
// workgroups each; many open items (a device already full) get few, each
// invocation walking several roots, so that no workgroup waits for its
// slowest root with its other lanes idle. Items × columns is then at most
// max(WALK_TARGET_GROUPS, items): the rows of refine_sums.
fn walk_spread(count: u32) -> u32 {
    return clamp(WALK_TARGET_GROUPS / max(count, 1u), 1u, walk_chunks());
}

// The dispatch arguments of the six refining passes from the lists'
// counts so far (those of later steps are rewritten before their step):
// each walk's parts (chunks × items) and decide (items), the exact sum's
// parts (blocks × items) and decide (items). `first`: the items of the
// β = 12 walk.
fn refine_args(first: u32) {
    let walk = min(atomicLoad(&refine_items[0]), wparams.capacity);
    let exact = min(atomicLoad(&refine_items[1]), EXACT_CAPACITY);
    // Past REFINE_MAX_GROUPS items the passes loop.
    var grids = array<vec3u, 6>(
        vec3u(walk_spread(first), min(first, REFINE_MAX_GROUPS), 1u),
        vec3u(min(first, REFINE_MAX_GROUPS), 1u, 1u),
        vec3u(walk_spread(walk), min(walk, REFINE_MAX_GROUPS), 1u),
        vec3u(min(walk, REFINE_MAX_GROUPS), 1u, 1u),
        vec3u(min(exact_blocks(), REFINE_MAX_GROUPS), exact, 1u),
        vec3u(exact, 1u, 1u),
    );
    for (var j = 0u; j < 6u; j++) {
        for (var a = 0u; a < 3u; a++) {
            atomicStore(&refine_items[REFINE_ARGS + 3u * j + a], grids[j][a]);
        }
    }
}

// Before the later steps.
@compute @workgroup_size(1)
fn winding_refine_args() {
    refine_args(min(atomicLoad(&undecided[0]), wparams.capacity));
}

// Before the first step. Where the open items' exact sums cost at most
// wparams.direct_budget solid angles in all (few items, a small mesh), the
// items go straight to the exact sum's list and both walks get no
// workgroups: a walk is latency-bound (each lane walks its roots one
// after another), while the exact sum is as wide as the device, so for
// few items it is the quicker of the two. The decisions are the exact
// sum's, a tighter bound than a walk's.
@compute @workgroup_size(64)
fn winding_refine_first_args(@builtin(local_invocation_index) lid: u32) {
    let first = min(atomicLoad(&undecided[0]), wparams.capacity);
    let tris = max(arrayLength(&winding_tris) / 3u, 1u);
    let direct = first <= EXACT_CAPACITY && first <= wparams.direct_budget / tris;
    if (direct) {
        for (var k = lid; k < first; k += 64u) {
            atomicStore(&refine_items[exact_list() + k], atomicLoad(&undecided[1u + k]));
        }
    }
    if (lid == 0u) {
        if (direct) {
            atomicStore(&refine_items[1], first);
        }
        refine_args(select(first, 0u, direct));
    }
}

@compute @workgroup_size(64)
fn winding_walk12_parts(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    walk_parts(0u, wid, nwg, lid);
}

@compute @workgroup_size(64)
fn winding_walk12_decide(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    walk_decide(0u, wid, nwg, lid);
}

@compute @workgroup_size(64)
fn winding_walk32_parts(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    walk_parts(1u, wid, nwg, lid);
}

@compute @workgroup_size(64)
fn winding_walk32_decide(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    walk_decide(1u, wid, nwg, lid);
}

// Blocks of EXACT_BLOCK triangles (the exact sum's columns).
fn exact_blocks() -> u32 {
    return (arrayLength(&winding_tris) / 3u + EXACT_BLOCK - 1u) / EXACT_BLOCK;
}

// This invocation's share (triangles first, first + 64, ... below end) of
// the exact sum of solid angles at item `item` (p), with its bound. Each
// addition of the float32 sum is off by at most 2^-24 of the sum of
// magnitudes so far, so each term is off by at most 2^-24 |term| times the
// additions on its way into the total (to first order; 9e-8 per addition
// covers the higher orders while the count times 2^-24 stays under 0.2,
// as in winding_subtree). Those additions, counted exactly: its share's
// (terms, at most EXACT_BLOCK / 64), this pass's workgroup reduction (6:
// a tree of 64), winding_exact_decide's sum of the item's columns (at
// most `columns` = ceil(blocks / 64) per invocation) and its reduction
// (6). Then w = Ω / 4π: float32 division (2.5 ULP in Vulkan) by the
// rounded 4π (½ ULP) moves w by at most 3 · 2^-23 of |Ω| / 4π, counted as
// 8 more additions (7.2e-7 of the magnitudes). The count starts from
// those 20 and `columns`. The bound's own float32 sums (as many additions)
// and division round it down by less than the count times 1.2e-7,
// relative, which scales it up. The count is kept this tight because a
// looser one sends the cells nearest the |w| = ½ sheet to the CPU.
fn winding_exact_part(p: vec3f, item: u32, first: u32, end: u32, columns: u32) -> vec2f {
    var part = vec2f(0.0);
    var magnitude = 0.0;
    var terms = 20.0 + f32(columns);
    for (var t = first; t < end; t += 64u) {
        let o = winding_leaf(p, t, wparams.slack, item);
        part += o;
        magnitude += abs(o.x);
        terms += 1.0;
    }
    return vec2f(part.x, part.y * (1.0 + terms * 1.2e-7) + terms * 9e-8 * magnitude);
}

// One workgroup per (listed item, block of triangles), looping over both:
// the block's part of the item's exact sum into refine_sums.
@compute @workgroup_size(64)
fn winding_exact_parts(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let count = refine_listed(2u, lid);
    let blocks = exact_blocks();
    let tris = arrayLength(&winding_tris) / 3u;
    for (var k = wid.y; k < count; k += nwg.y) {
        let item = refine_item(2u, k);
        let p = winding_item_point(item);
        for (var b = wid.x; b < blocks; b += nwg.x) {
            let first = b * EXACT_BLOCK;
            let end = min(first + EXACT_BLOCK, tris);
            let part = winding_exact_part(p, item, first + lid, end, (blocks + 63u) / 64u);
            let total = winding_reduce(part, lid);
            if (lid == 0u) {
                refine_sums[k * blocks + b] = total;
            }
        }
    }
}

// One workgroup per listed item (looping): the sum of its blocks' parts
// (at most ceil(blocks / 64) additions, then a workgroup reduction's 6, on
// each part's way: winding_exact_part counted them) decides it where
// ||w| − ½| exceeds the bound; else it goes to the CPU (on the sheet or on
// the surface to the sum's precision).
@compute @workgroup_size(64)
fn winding_exact_decide(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let count = refine_listed(2u, lid);
    let blocks = exact_blocks();
    for (var k = wid.y * nwg.x + wid.x; k < count; k += nwg.x * nwg.y) {
        var part = vec2f(0.0);
        for (var b = lid; b < blocks; b += 64u) {
            part += refine_sums[k * blocks + b];
        }
        let w = winding_reduce(part, lid) / WINDING_FOUR_PI;
        if (lid == 0u) {
            let item = refine_item(2u, k);
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
