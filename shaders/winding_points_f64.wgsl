//!include shared/winding_points.wgsl
//!include shared/winding_f64_leaf.wgsl

// The winding-number sign at a list of points (shared/winding_points.wgsl)
// on devices with f64: the refining pass evaluates each triangle in f64 at
// the point as stored (shared/winding_f64_leaf.wgsl).

// Point i in the tree's frame: a float32 minus a float32, rounded in f64
// at most once (by 2^-53 of the difference, which the leaf's bound counts).
fn winding_exact_point(i: u32) -> vec3<f64> {
    return vec3<f64>(points[wparams.stride * i].xyz) - vec3<f64>(wparams.frame);
}
