//!include shared/winding_grid.wgsl
//!include shared/winding_f32_leaf.wgsl

// The winding-number sign of the uniform SDF on devices without f64
// (shared/winding_grid.wgsl): every triangle in float32.
