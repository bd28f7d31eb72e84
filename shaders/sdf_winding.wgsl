//!include shared/bvh_bounds.wgsl
//!include shared/winding.wgsl

// The winding-number sign of the uniform SDF on the GPU (the `winding`
// SignMode of the gpu and gpu-brute backends), after their distance
// kernels: every cell gets the sign of |w| > ½ where the fast winding
// number's error bound decides it (shared/winding.wgsl), and the others
// are listed for the exact f64 sum on the CPU.
//
// Entry point:
//   winding_sign  one workgroup per 4x4x4 brick, one invocation per cell
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
// W + G·(p − q). Each cell walks the near list's subtrees on its own with
// the usual per-point criterion. A brick whose lists overflow walks the
// whole tree per cell.
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
// [0]: number of undecided cells; [1..]: the first `capacity` of them.
@group(0) @binding(4) var<storage, read_write> undecided: array<atomic<u32>>;

const FAR_LIST: u32 = 1024u;
const NEAR_LIST: u32 = 1024u;

var<workgroup> far_nodes: array<u32, FAR_LIST>;
var<workgroup> near_nodes: array<u32, NEAR_LIST>;
// Each invocation's share of the far field: (Ω, ∇Ω) at q, and its bound.
var<workgroup> far_sums: array<vec4f, 64>;
var<workgroup> far_bounds: array<f32, 64>;

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
    workgroupBarrier();

    let ijk = brick * BRICK + vec3u(lid % BRICK, (lid / BRICK) % BRICK, lid / (BRICK * BRICK));
    let dims = wparams.dims;
    if (any(ijk >= dims)) {
        return;
    }
    // The cell centre as the CPU computes it (a device may fuse the
    // multiply-add: `slack`, a few ulps of the largest world coordinate,
    // covers that), then moved into the nodes' frame.
    let p = (wparams.origin + vec3f(ijk) * h) - wparams.frame;
    var omega = vec2f(0.0);
    if (overflow) {
        omega = winding_subtree(0u, p, wparams.slack, beta);
    } else {
        var far = vec4f(0.0);
        var far_bound = 0.0;
        for (var k = 0u; k < 64u; k++) {
            far += far_sums[k];
            far_bound += far_bounds[k];
        }
        omega = vec2f(far.x + dot(far.yzw, p - q), far_bound);
        for (var k = 0u; k < near_count; k++) {
            omega += winding_subtree(near_nodes[k], p, wparams.slack, beta);
        }
    }
    let w = omega / WINDING_FOUR_PI;
    let margin = abs(w.x) - 0.5;
    let cell = ijk.x + dims.x * (ijk.y + dims.y * ijk.z);
    if (abs(margin) > w.y) {
        values[cell] = select(abs(values[cell]), -abs(values[cell]), margin > 0.0);
    } else {
        let k = atomicAdd(&undecided[0], 1u);
        if (k < wparams.capacity) {
            atomicStore(&undecided[1u + k], cell);
        }
    }
}
