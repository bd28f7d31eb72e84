//!include shared/winding_cap.wgsl
//!include shared/winding_f64_leaf.wgsl

// The winding sign's cap passes (shared/winding_cap.wgsl) on devices with
// f64 (wgpu SHADER_F64): a cell the float32 cap walk leaves open is
// walked again with every cap triangle it reaches evaluated in f64 at the
// cell centre exactly as the CPU places it (shared/winding_f64_leaf.wgsl),
// against the cap's stored corners — the cap the crossing count W_Z
// closes the mesh with — so a leaf's bound is f64 rounding, not float32
// atan2's 4096-ULP allowance. Near a hole's |w| = ½ sheet, where W_Z is
// exact and only the bound on w_C straddles the decision, the second walk
// decides the cells the first used to leave to the refining passes
// (measured on lavapipe: about three in four of them). Walking every cell
// with f64 leaves decided the same cells but took the H100 four times as
// long (bunny 128³: 0.30 → 1.15 ms), for the one walked cell in a hundred
// that needs it.

fn cap_leaf_cell(cell: u32) -> u32 {
    return cell;
}

// The cell centre in the cap corners' frame, in f64, exactly as the CPU
// computes it.
fn winding_exact_point(cell: u32) -> vec3<f64> {
    return winding_exact_centre(cparams.origin, cparams.cell_size, cparams.dims, cparams.frame, cell);
}
