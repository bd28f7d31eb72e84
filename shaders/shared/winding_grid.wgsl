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
// Entry points (shared/winding_refine.wgsl, each step spread over the
// device, a workgroup per (cell, column) and then one per cell):
//   winding_walk12_parts, winding_walk12_decide   tree walks with β = 12
//   winding_walk32_parts, winding_walk32_decide   β = 32, cells still open
//   winding_exact_parts, winding_exact_decide     the exact sum, cells both
//                                                 walks leave open
// over the listed cells (within rounding of the surface or of a projected
// edge, or near the |w| = ½ sheet over a hole). Cells still open (on the
// sheet or on the surface to the exact sum's precision) go to `leftover`,
// for the CPU's f64 sum.
//
// Rust side: src/stages/sdf/winding_gpu.rs (WindingParams, bindings;
// checked by tests/it/shader_layouts.rs).

struct WindingParams {
    origin: vec3f,      // world centre of cell (0,0,0), as sdf.wgsl's
    cell_size: f32,
    dims: vec3u,
    capacity: u32,      // entries of `undecided` after its count
    frame: vec3f,       // world position of the nodes' frame origin
    slack: f32,         // rounding of a world cell centre
    direct_budget: u32, // see winding_refine_first_args
}

@group(0) @binding(0) var<uniform> wparams: WindingParams;
@group(0) @binding(1) var<storage, read> winding_nodes: array<WindingNode>;
@group(0) @binding(2) var<storage, read> winding_tris: array<vec4f>;
// The distance kernels' values, signed by the cap passes but for the
// undecided cells.
@group(0) @binding(3) var<storage, read_write> values: array<f32>;
// [0]: number of undecided cells; [1..]: the first `capacity` of them.
@group(0) @binding(4) var<storage, read_write> undecided: array<atomic<u32>>;
// Roots of subtrees that partition the tree (the walks' shares).
@group(0) @binding(5) var<storage, read> frontier: array<u32>;
// [0]: number of cells the refining steps leave to the CPU; [1..]: the first
// `capacity` of them.
@group(0) @binding(6) var<storage, read_write> leftover: array<atomic<u32>>;
// The cells each refining step decided (shared/winding_refine.wgsl).
@group(0) @binding(7) var<storage, read_write> refine_steps: array<atomic<u32>>;
// The lists of the β = 32 walk and of the exact sum
// (shared/winding_refine.wgsl).
@group(0) @binding(8) var<storage, read_write> refine_items: array<atomic<u32>>;
// The running step's partial sums, one per (listed cell, column).
@group(0) @binding(9) var<storage, read_write> refine_sums: array<vec2f>;

// The centre of `cell` as the CPU computes it (a device may fuse the
// multiply-add: `slack`, a few ulps of the largest world coordinate,
// covers that), then moved into the nodes' frame.
fn winding_item_point(cell: u32) -> vec3f {
    let dims = wparams.dims;
    let ijk = vec3u(cell % dims.x, (cell / dims.x) % dims.y, cell / (dims.x * dims.y));
    return (wparams.origin + vec3f(ijk) * wparams.cell_size) - wparams.frame;
}
