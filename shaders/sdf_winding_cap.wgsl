//!include shared/winding_cap.wgsl
//!include shared/winding_f32_leaf.wgsl

// The winding sign's cap passes (shared/winding_cap.wgsl) with the cap
// walk's leaves in float32: devices without f64.
//
// Rust side: src/stages/sdf_grid/winding_cap_gpu.rs (CapParams, bindings;
// checked by tests/shader_layouts.rs).

fn cap_leaf_cell(cell: u32) -> u32 {
    return WINDING_NO_CELL;
}
