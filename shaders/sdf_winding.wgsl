//!include shared/bvh_bounds.wgsl
//!include shared/winding.wgsl

// The winding-number sign of the uniform SDF on the GPU (the `winding`
// SignMode of the gpu and gpu-brute backends), after their distance
// kernels: every cell gets the sign of |w| > ½ where the fast winding
// number's error bound decides it (shared/winding.wgsl), and the others
// are listed for the exact f64 sum on the CPU.
//
// Entry point:
//   winding_sign  one workgroup per 4x4x4 brick, one invocation per cell, so
//                 that the invocations of a subgroup are neighbouring cells
//                 that open nearly the same nodes
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
    let ijk = brick * BRICK + vec3u(lid % BRICK, (lid / BRICK) % BRICK, lid / (BRICK * BRICK));
    let dims = wparams.dims;
    if (any(ijk >= dims)) {
        return;
    }
    // The cell centre as the CPU computes it (a device may fuse the
    // multiply-add: `slack`, a few ulps of the largest world coordinate,
    // covers that), then moved into the nodes' frame.
    let p = (wparams.origin + vec3f(ijk) * wparams.cell_size) - wparams.frame;
    let w = winding_bounded(p, wparams.slack, wparams.beta);
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
