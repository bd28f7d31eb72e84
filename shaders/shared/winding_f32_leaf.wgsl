//!include shared/winding.wgsl

// The includer's leaf evaluation of shared/winding.wgsl in float32: every
// triangle's solid angle by winding_triangle, whatever the cell. Included by
// the modules that have no f64 step (sdf_winding.wgsl, winding_points.wgsl,
// sdf_points.wgsl).

fn winding_leaf(p: vec3f, t: u32, slack: f32, cell: u32) -> vec2f {
    return winding_triangle(p, winding_tris[3u * t].xyz, winding_tris[3u * t + 1u].xyz, winding_tris[3u * t + 2u].xyz, slack);
}
