//!include shared/winding_grid.wgsl
//!include shared/winding_f64_leaf.wgsl

// The winding-number sign of the uniform SDF on devices with f64 (wgpu
// SHADER_F64; shared/winding_grid.wgsl): the refining pass evaluates each
// triangle it reaches (in its tree walks and its exact sum) in f64 at the
// cell centre exactly as the CPU places it, so that the bound is the
// corners' float32 storage alone, not the float32 rounding of the point and
// of the evaluation (shared/winding_f64_leaf.wgsl). The cells near the
// surface that float32 cannot decide (within a fraction of a percent of a
// triangle's size from its plane) are then decided on the GPU, and only
// those within about 1e-4 of it go to the CPU. The first pass stays in
// float32.

// The cell centre in the nodes' frame, in f64, exactly as the CPU computes
// it (shared/winding_f64_leaf.wgsl, winding_exact_centre).
fn winding_exact_point(cell: u32) -> vec3<f64> {
    return winding_exact_centre(wparams.origin, wparams.cell_size, wparams.dims, wparams.frame, cell);
}
