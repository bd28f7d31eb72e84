//!include shared/bvh_bounds.wgsl
//!include shared/winding.wgsl

// The winding-number sign of the uniform SDF on the GPU (the `winding`
// SignMode of the gpu and gpu-brute backends), after the cap passes
// (sdf_winding_cap.wgsl), which sign almost every cell by a crossing count
// and list the others in `undecided`. Included by the modules
// sdf_winding.wgsl (float32 only) and sdf_winding_f64.wgsl (devices with
// f64), which define winding_leaf (shared/winding.wgsl): the exact step
// passes the cell so that a device with f64 evaluates its triangles more
// precisely.
//
// Entry point:
//   winding_refine  one workgroup per listed cell
//
// winding_refine takes the listed cells (within rounding of the surface or
// of a projected edge, or near the |w| = ½ sheet over a hole) one per
// workgroup, the 64 invocations sharing the work of one point: with the
// stricter β of refine_beta, each invocation walks the subtrees of its
// share of `frontier` (nodes whose subtrees partition the tree), then, if
// the bound still leaves the cell open, sums its share of every triangle's
// exact solid angle; after each step the parts (Ω, bound) meet in a
// workgroup reduction and the cell is signed where ||w| − ½| exceeds the
// bound. The remainder shrinks as (r / |c − p|)² (src/geom/winding.rs), so
// each step decides all but the cells nearer the sheet; the exact sum's
// bound is the float32 rounding alone. Cells still open (on the sheet or on
// the surface to float32 precision) go to `leftover`, for the CPU's f64
// sum.
//
// Rust side: src/stages/sdf_grid/winding_gpu.rs (WindingParams, bindings;
// checked by tests/shader_layouts.rs).

struct WindingParams {
    origin: vec3f,      // world centre of cell (0,0,0), as sdf_grid.wgsl's
    cell_size: f32,
    dims: vec3u,
    capacity: u32,      // entries of `undecided` after its count
    frame: vec3f,       // world position of the nodes' frame origin
    slack: f32,         // rounding of a world cell centre
}

@group(0) @binding(0) var<uniform> wparams: WindingParams;
@group(0) @binding(1) var<storage, read> winding_nodes: array<WindingNode>;
@group(0) @binding(2) var<storage, read> winding_tris: array<vec4f>;
// The distance kernels' values, signed by the cap passes but for the
// undecided cells.
@group(0) @binding(3) var<storage, read_write> values: array<f32>;
// [0]: number of undecided cells; [1..]: the first `capacity` of them.
@group(0) @binding(4) var<storage, read_write> undecided: array<atomic<u32>>;
// Roots of subtrees that partition the tree (winding_refine's shares).
@group(0) @binding(5) var<storage, read> frontier: array<u32>;
// [0]: number of cells winding_refine leaves to the CPU; [1..]: the first
// `capacity` of them.
@group(0) @binding(6) var<storage, read_write> leftover: array<atomic<u32>>;

// winding_refine's steps: two tree walks with a stricter β, 12 then 32
// (the remainder bound relative to a node's contribution A/|c − p|² is
// 3β²/(β − 1)⁴: 0.030 at 12, 0.0033 at 32), then the exact
// sum.
const REFINE_STEPS: u32 = 3u;
fn refine_beta(step: u32) -> f32 {
    return select(32.0, 12.0, step == 0u);
}

var<workgroup> refine_count: u32;
var<workgroup> refine_parts: array<vec2f, 64>;
var<workgroup> refine_total: vec2f;

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
    let roots = arrayLength(&frontier);
    let dims = wparams.dims;
    for (var k = wid.y * nwg.x + wid.x; k < count; k += groups) {
        let cell = atomicLoad(&undecided[1u + k]);
        let ijk = vec3u(cell % dims.x, (cell / dims.x) % dims.y, cell / (dims.x * dims.y));
        // The cell centre as the CPU computes it (a device may fuse the
        // multiply-add: `slack`, a few ulps of the largest world coordinate,
        // covers that), then moved into the nodes' frame.
        let p = (wparams.origin + vec3f(ijk) * wparams.cell_size) - wparams.frame;
        var decided = false;
        for (var step = 0u; step < REFINE_STEPS; step++) {
            var part = vec2f(0.0);
            if (step < REFINE_STEPS - 1u) {
                for (var f = lid; f < roots; f += 64u) {
                    part += winding_subtree(frontier[f], p, wparams.slack, refine_beta(step), cell);
                }
            } else {
                part = winding_exact_part(p, cell, lid);
            }
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
            let w = workgroupUniformLoad(&refine_total) / WINDING_FOUR_PI;
            let margin = abs(w.x) - 0.5;
            if (abs(margin) > w.y) {
                if (lid == 0u) {
                    values[cell] = select(abs(values[cell]), -abs(values[cell]), margin > 0.0);
                }
                decided = true;
                break;
            }
        }
        if (!decided && lid == 0u) {
            let j = atomicAdd(&leftover[0], 1u);
            if (j < wparams.capacity) {
                atomicStore(&leftover[1u + j], cell);
            }
        }
    }
}

// This invocation's share (triangles lid, lid + 64, ...) of the exact sum
// of solid angles at cell `cell` (centre p), with its bound. Each addition
// of the float32 sum is off by at most 2^-24 of the sum of magnitudes so
// far: the count of terms times 2^-24 (6e-8) times that sum covers them.
fn winding_exact_part(p: vec3f, cell: u32, lid: u32) -> vec2f {
    var part = vec2f(0.0);
    var magnitude = 0.0;
    var terms = 0.0;
    for (var t = lid; t < arrayLength(&winding_tris) / 3u; t += 64u) {
        let o = winding_leaf(p, t, wparams.slack, cell);
        part += o;
        magnitude += abs(o.x);
        terms += 1.0;
    }
    return part + vec2f(0.0, (terms + 64.0) * 6e-8 * magnitude * (1.0 + WINDING_EPS));
}
