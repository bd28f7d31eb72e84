//!include shared/bvh_bounds.wgsl
//!include shared/winding.wgsl
//!include shared/winding_refine.wgsl

// The winding-number sign of the uniform SDF on the GPU (the `winding`
// SignMode of the gpu and gpu-brute backends), after their distance
// kernels: every cell gets the sign of |w| > ½ where the fast winding
// number's error bound decides it (shared/winding.wgsl), and the others
// are listed for the exact f64 sum on the CPU. Included by the modules
// sdf_winding.wgsl (float32 only) and sdf_winding_f64.wgsl (devices with
// f64), which define winding_leaf (shared/winding.wgsl): the first pass
// evaluates every triangle in float32, the refining pass passes the cell
// so that a device with f64 evaluates its triangles more precisely.
//
// Entry points:
//   winding_sign    one workgroup per 4x4x4 brick, one invocation per cell
//   winding_refine  one workgroup per cell that winding_sign left open
//
// The cells of a brick share the far field. The workgroup walks the tree
// once for the brick's bounding ball (centre q, radius rho), all
// invocations in step (the decisions depend on the brick only): a node
// farther than beta·(r + rho) from q is far for every cell of the brick and
// goes to the far list; a leaf, or a node no larger than the ball, that is
// not goes to the near list; other nodes are opened. The invocations then
// share out the far list, each expanding its nodes about q as a value and
// a gradient (shared/winding.wgsl, winding_local) and the sums meet in
// workgroup memory: the whole far field of a cell is then one dot product,
// W + G·(p − q).
//
// Then the brick is decided whole where it can be (Barill et al. 2018 §3
// for the expansions; w is harmonic off the surface): the invocations share
// out the near list, evaluating each near subtree at q alone (winding_near_
// block), and the value at q, W(q), meets a bound on how far w can be from
// it anywhere in the ball: the far field's bound, its spread |G|·rho, and
// for each near node its bound at q plus rho times the largest gradient
// its triangles can have in the ball. A triangle's solid angle at x is
// ∫ n·(y − x)/|y − x|³ dA, whose gradient in x is ∫ (3(n·u)u − n)/|y − x|³ dA
// (u the unit direction), of length at most 2/|y − x|³ per unit area; a
// node of area A whose ball (c, r) is `gap` from the brick's ball therefore
// moves by at most 2 A rho / gap³ over it. Where ||W(q)|/4π − ½| exceeds the
// whole bound (over 4π), every cell of the brick gets that side at no cost
// of its own: the bricks away from the surface and from the |w| = ½ sheet.
// Only the other bricks' cells walk the near list's subtrees on their own
// with the usual per-point criterion. A brick whose lists overflow walks the
// whole tree per cell.
//
// winding_refine takes the open cells (near the |w| = ½ sheet over a hole,
// where β = 5's remainder bound is too wide) one per workgroup and decides
// each with shared/winding_refine.wgsl: tree walks with β = 12 and 32, then
// the exact sum. Cells still open (on the sheet or on the surface to the
// exact step's precision) go to `leftover`, for the CPU's f64 sum.
//
// Rust side: src/stages/sdf_grid/winding_gpu.rs (WindingParams, bindings;
// checked by tests/shader_layouts.rs).

struct WindingParams {
    origin: vec3f,      // world centre of cell (0,0,0), as sdf_grid.wgsl's
    cell_size: f32,
    dims: vec3u,
    capacity: u32,      // entries of `undecided` after its count
    bricks: vec3u,      // bricks per axis (ceil(dims / 4))
    beta: f32,
    frame: vec3f,       // world position of the nodes' frame origin
    slack: f32,         // rounding of a world cell centre (see below)
}

const BRICK: u32 = 4u;

@group(0) @binding(0) var<uniform> wparams: WindingParams;
@group(0) @binding(1) var<storage, read> winding_nodes: array<WindingNode>;
@group(0) @binding(2) var<storage, read> winding_tris: array<vec4f>;
// The distance kernels' unsigned (or pseudo-normal signed) values.
@group(0) @binding(3) var<storage, read_write> values: array<f32>;
// [0]: number of undecided cells; [1]: number of cells signed with their
// whole brick; [2..]: the first `capacity` undecided cells.
@group(0) @binding(4) var<storage, read_write> undecided: array<atomic<u32>>;
// Roots of subtrees that partition the tree (winding_refine's shares).
@group(0) @binding(5) var<storage, read> frontier: array<u32>;
// [0]: number of cells winding_refine leaves to the CPU; [1..]: the first
// `capacity` of them.
@group(0) @binding(6) var<storage, read_write> leftover: array<atomic<u32>>;

const FAR_LIST: u32 = 1024u;
const NEAR_LIST: u32 = 1024u;

var<workgroup> far_nodes: array<u32, FAR_LIST>;
var<workgroup> near_nodes: array<u32, NEAR_LIST>;
// Each invocation's share of the far field: (Ω, ∇Ω) at q, and its bound.
var<workgroup> far_sums: array<vec4f, 64>;
var<workgroup> far_bounds: array<f32, 64>;
// Each invocation's share of the near subtrees at q: (Ω, bound + spread).
var<workgroup> near_sums: array<vec2f, 64>;

@compute @workgroup_size(64)
fn winding_sign(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let b = wid.y * nwg.x + wid.x;
    let bricks = wparams.bricks;
    if (b >= bricks.x * bricks.y * bricks.z) {
        return;
    }
    let brick = vec3u(b % bricks.x, (b / bricks.x) % bricks.y, b / (bricks.x * bricks.y));
    let h = wparams.cell_size;
    let q = (wparams.origin + (vec3f(brick * BRICK) + vec3f(1.5)) * h) - wparams.frame;
    // Half the diagonal of the brick's cell centres, grown by their rounding.
    let rho = 1.5 * sqrt(3.0) * h * (1.0 + 4.0 * WINDING_EPS) + wparams.slack;
    let beta = wparams.beta;

    // The brick's walk: every invocation takes the same steps; the first
    // writes the lists.
    var far_count = 0u;
    var near_count = 0u;
    var overflow = false;
    var stack: array<u32, WINDING_STACK>;
    stack[0] = 0u;
    var sp = 1u;
    while (sp > 0u) {
        sp -= 1u;
        let index = stack[sp];
        let n = winding_nodes[index];
        let d = length(n.centroid - q);
        if (d > beta * (n.radius + rho)) {
            if (far_count < FAR_LIST) {
                if (lid == 0u) {
                    far_nodes[far_count] = index;
                }
                far_count += 1u;
            } else {
                overflow = true;
            }
        } else if ((n.b & LEAF_BIT) != 0u || n.radius <= rho) {
            if (near_count < NEAR_LIST) {
                if (lid == 0u) {
                    near_nodes[near_count] = index;
                }
                near_count += 1u;
            } else {
                overflow = true;
            }
        } else if (sp + 2u <= WINDING_STACK) {
            stack[sp] = n.a;
            stack[sp + 1u] = n.b;
            sp += 2u;
        }
    }
    workgroupBarrier();

    // The far field, shared out.
    var mine = vec4f(0.0);
    var mine_bound = 0.0;
    for (var k = lid; k < far_count; k += 64u) {
        mine += winding_local(winding_nodes[far_nodes[k]], q, rho, wparams.slack, &mine_bound);
    }
    far_sums[lid] = mine;
    far_bounds[lid] = mine_bound;
    // The near subtrees at q, shared out.
    var near = vec2f(0.0);
    for (var k = lid; k < near_count; k += 64u) {
        near += winding_near_block(near_nodes[k], q, rho, wparams.slack, beta);
    }
    near_sums[lid] = near;
    workgroupBarrier();
    var far = vec4f(0.0);
    var far_bound = 0.0;
    var near_total = vec2f(0.0);
    for (var k = 0u; k < 64u; k++) {
        far += far_sums[k];
        far_bound += far_bounds[k];
        near_total += near_sums[k];
    }
    // Every invocation adds the same numbers in the same order: the
    // brick's decision is the same for all its cells.
    let block = vec2f(
        far.x + near_total.x,
        far_bound + length(far.yzw) * rho * (1.0 + WINDING_EVAL) + near_total.y,
    ) / WINDING_FOUR_PI;
    let block_margin = abs(block.x) - 0.5;
    let whole = !overflow && abs(block_margin) > block.y;

    let ijk = brick * BRICK + vec3u(lid % BRICK, (lid / BRICK) % BRICK, lid / (BRICK * BRICK));
    let dims = wparams.dims;
    if (any(ijk >= dims)) {
        return;
    }
    // The cell centre as the CPU computes it (a device may fuse the
    // multiply-add: `slack`, a few ulps of the largest world coordinate,
    // covers that), then moved into the nodes' frame.
    let p = (wparams.origin + vec3f(ijk) * h) - wparams.frame;
    let cell = ijk.x + dims.x * (ijk.y + dims.y * ijk.z);
    if (whole) {
        values[cell] = select(abs(values[cell]), -abs(values[cell]), block_margin > 0.0);
        if (lid == 0u) {
            let cells = min(vec3u(BRICK), dims - brick * BRICK);
            atomicAdd(&undecided[1], cells.x * cells.y * cells.z);
        }
        return;
    }
    var omega = vec2f(0.0);
    if (overflow) {
        omega = winding_subtree(0u, p, wparams.slack, beta, WINDING_NO_CELL);
    } else {
        omega = vec2f(far.x + dot(far.yzw, p - q), far_bound);
        for (var k = 0u; k < near_count; k++) {
            omega += winding_subtree(near_nodes[k], p, wparams.slack, beta, WINDING_NO_CELL);
        }
    }
    let w = omega / WINDING_FOUR_PI;
    let margin = abs(w.x) - 0.5;
    if (abs(margin) > w.y) {
        values[cell] = select(abs(values[cell]), -abs(values[cell]), margin > 0.0);
    } else {
        let k = atomicAdd(&undecided[0], 1u);
        if (k < wparams.capacity) {
            atomicStore(&undecided[2u + k], cell);
        }
    }
}

var<workgroup> refine_count: u32;

@compute @workgroup_size(64)
fn winding_refine(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    if (lid == 0u) {
        refine_count = min(atomicLoad(&undecided[0]), wparams.capacity);
    }
    let count = workgroupUniformLoad(&refine_count);
    let groups = nwg.x * nwg.y;
    let dims = wparams.dims;
    for (var k = wid.y * nwg.x + wid.x; k < count; k += groups) {
        let cell = atomicLoad(&undecided[2u + k]);
        let ijk = vec3u(cell % dims.x, (cell / dims.x) % dims.y, cell / (dims.x * dims.y));
        // As winding_sign's cell centre.
        let p = (wparams.origin + vec3f(ijk) * wparams.cell_size) - wparams.frame;
        let side = winding_refine_point(p, cell, wparams.slack, lid);
        if (side >= 0 && lid == 0u) {
            values[cell] = select(abs(values[cell]), -abs(values[cell]), side == 1);
        }
        if (side < 0 && lid == 0u) {
            let j = atomicAdd(&leftover[0], 1u);
            if (j < wparams.capacity) {
                atomicStore(&leftover[1u + j], cell);
            }
        }
    }
}

// A near node's subtree at the brick centre q, with its bound there plus
// its spread over the ball (q, rho): 2 A rho / gap³ (the header's
// derivation), gap the distance between the node's ball and the brick's,
// shrunk by the rounding of both centres. No bound where the balls meet.
fn winding_near_block(root: u32, q: vec3f, rho: f32, slack: f32, beta: f32) -> vec2f {
    let n = winding_nodes[root];
    let s = slack + WINDING_EPS * (length(n.centroid) + length(q) + rho);
    let gap = length(n.centroid - q) * (1.0 - WINDING_EVAL) - s - n.radius - rho;
    if (!(gap > 0.0)) {
        return vec2f(0.0, WINDING_HUGE);
    }
    let spread = 2.0 * n.area * (rho / gap) / (gap * gap) * (1.0 + 4.0 * WINDING_EVAL);
    return winding_subtree(root, q, slack, beta, WINDING_NO_CELL) + vec2f(0.0, spread);
}
