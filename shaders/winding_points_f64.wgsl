//!include shared/winding_points.wgsl
//!include shared/winding_f64_leaf.wgsl

// The winding-number sign at a list of points (shared/winding_points.wgsl)
// on devices with f64: both passes evaluate each triangle they open in f64
// at the point as stored (shared/winding_f64_leaf.wgsl). In the first pass
// too: near a dense surface the float32 leaves' bounds leave most points to
// the refining steps, which cost far more than f64 leaves in the first pass.

// The first pass's leaves in f64.
fn first_pass_leaf(i: u32) -> u32 {
    return i;
}

// Point i in the tree's frame: a float32 minus a float32, rounded in f64
// at most once (by 2^-53 of the difference, which the leaf's bound counts).
fn winding_exact_point(i: u32) -> vec3<f64> {
    return vec3<f64>(points[wparams.stride * i].xyz) - vec3<f64>(wparams.frame);
}
