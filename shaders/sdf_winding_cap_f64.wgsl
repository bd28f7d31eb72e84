//!include shared/winding_cap.wgsl
//!include shared/winding_f64_leaf.wgsl

// The winding sign's cap passes (shared/winding_cap.wgsl) on devices with
// f64 (wgpu SHADER_F64): every cap triangle the cap walk reaches is
// evaluated in f64 at the cell centre exactly as the CPU places it
// (shared/winding_f64_leaf.wgsl), against the cap's stored corners — the
// cap the crossing count W_Z closes the mesh with — so a leaf's bound is
// f64 rounding, not float32 atan2's 4096-ULP allowance. Near a hole's
// |w| = ½ sheet, where W_Z is exact and only the bound on w_C straddles
// the decision, the walk then decides the cells it used to leave to the
// refining passes (measured on lavapipe: about three in four of them).

fn cap_leaf_cell(cell: u32) -> u32 {
    return cell;
}

// The cell centre in the cap corners' frame, in f64, exactly as the CPU
// computes it.
fn winding_exact_point(cell: u32) -> vec3<f64> {
    return winding_exact_centre(cparams.origin, cparams.cell_size, cparams.dims, cparams.frame, cell);
}
