//!include shared/winding_grid.wgsl

// The winding-number sign of the uniform SDF on devices without f64
// (shared/winding_grid.wgsl): every triangle in float32.

fn winding_leaf(p: vec3f, t: u32, slack: f32, cell: u32) -> vec2f {
    return winding_triangle(p, winding_tris[3u * t].xyz, winding_tris[3u * t + 1u].xyz, winding_tris[3u * t + 2u].xyz, slack);
}
