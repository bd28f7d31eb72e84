//!include shared/winding_cap.wgsl
//!include shared/winding_f32_leaf.wgsl

// The winding sign's cap passes (shared/winding_cap.wgsl) on devices
// without f64: the cells the cap walk leaves open go straight to the
// refining passes.
//
// Rust side: src/stages/sdf/winding_cap_gpu.rs (CapParams, bindings;
// checked by tests/it/shader_layouts.rs).

fn cap_walk_open(cell: u32) {
    leave_open(cell);
}
