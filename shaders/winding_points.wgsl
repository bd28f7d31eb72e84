//!include shared/winding_points.wgsl
//!include shared/winding_f32_leaf.wgsl

// The winding-number sign at a list of points (shared/winding_points.wgsl)
// on devices without f64: every triangle in float32.

// The first pass's leaves in float32.
fn first_pass_leaf(i: u32) -> u32 {
    return WINDING_NO_CELL;
}
