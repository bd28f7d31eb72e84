//!include shared/bvh_bounds.wgsl
//!include shared/winding.wgsl
//!include shared/winding_refine.wgsl

// The winding-number sign of the uniform SDF on the GPU (the `winding`
// SignMode of the gpu and gpu-brute backends), after the cap passes
// (sdf_winding_cap.wgsl), which sign almost every cell by a crossing count
// and list the others in `undecided`. Included by the modules
// sdf_winding.wgsl (float32 only) and sdf_winding_f64.wgsl (devices with
// f64), which define winding_leaf (shared/winding.wgsl): the exact step
// passes the cell so that a device with f64 evaluates its triangles more
// precisely.
//
// Entry points:
//   winding_refine        one workgroup per listed cell
//   winding_exact_parts   one per (cell the walks leave open, block of
//                         triangles): shared/winding_refine.wgsl
//   winding_exact_decide  one per cell the walks leave open
//
// winding_refine takes the listed cells (within rounding of the surface or
// of a projected edge, or near the |w| = ½ sheet over a hole) one per
// workgroup and decides each with shared/winding_refine.wgsl: tree walks
// with β = 12 and 32 over the shares of `frontier`, each step's parts
// meeting in a workgroup reduction. The cells both walks leave open go to
// that file's exact sum, spread over the device (winding_exact_parts, one
// workgroup per cell and block of triangles; winding_exact_decide, one per
// cell). Cells still open (on the sheet or on the surface to the exact
// sum's precision) go to `leftover`, for the CPU's f64 sum.
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
// The cells each refining step decided (shared/winding_refine.wgsl).
@group(0) @binding(7) var<storage, read_write> refine_steps: array<atomic<u32>>;
// [0]: number of cells for the exact sum; [1..]: the first EXACT_CAPACITY
// of them.
@group(0) @binding(8) var<storage, read_write> exact_items: array<atomic<u32>>;
// The exact sum's part of each (listed cell, block of triangles).
@group(0) @binding(9) var<storage, read_write> exact_parts: array<vec2f>;

// The centre of `cell` as the CPU computes it (a device may fuse the
// multiply-add: `slack`, a few ulps of the largest world coordinate,
// covers that), then moved into the nodes' frame.
fn winding_item_point(cell: u32) -> vec3f {
    let dims = wparams.dims;
    let ijk = vec3u(cell % dims.x, (cell / dims.x) % dims.y, cell / (dims.x * dims.y));
    return (wparams.origin + vec3f(ijk) * wparams.cell_size) - wparams.frame;
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
    for (var k = wid.y * nwg.x + wid.x; k < count; k += groups) {
        let cell = atomicLoad(&undecided[1u + k]);
        let side = winding_refine_point(winding_item_point(cell), cell, wparams.slack, lid);
        if (lid == 0u) {
            if (side >= 0) {
                refine_sign(cell, side == 1);
            } else {
                refine_defer(cell);
            }
        }
    }
}
