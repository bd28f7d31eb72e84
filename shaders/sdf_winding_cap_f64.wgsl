//!include shared/winding_cap.wgsl
//!include shared/winding_f64_leaf.wgsl

// The winding sign's cap passes (shared/winding_cap.wgsl) on devices with
// f64 (wgpu SHADER_F64). A cell the float32 cap walk leaves open is listed
// in `retry`, and cap_exact sums the solid angles of all the cap's
// triangles at it, each in f64 at the cell centre exactly as the CPU
// places it (shared/winding_f64_leaf.wgsl), against the cap's stored
// corners — the cap the crossing count W_Z closes the mesh with. A term's
// bound is then f64 rounding, not float32 atan2's 4096-ULP allowance, and
// the sum has no expansion remainder. Near a hole's |w| = ½ sheet, where
// W_Z is exact and only the bound on w_C straddles the decision, that
// decides most of the cells the float32 walk leaves open, which would
// otherwise go to the refining passes.
//
// The cap has about one triangle per boundary edge of the mesh (the
// bunny's 223), so a cell's sum is a few f64 solid angles per invocation
// of its workgroup. A list whose sums would cost more than
// CAP_EXACT_BUDGET solid angles in all (a mesh with huge holes) goes to
// the refining passes whole instead.
//
// Why a separate pass rather than a second walk of the cap's tree with f64
// leaves in cap_walk itself: such a walk decides the same cells, but one
// walking lane holds its whole warp, which made the cap walk several times
// slower (docs/bench/design-measurements.md).
//
// Rust side: src/stages/sdf/winding_cap_gpu.rs (CapParams, bindings;
// checked by tests/it/shader_layouts.rs).

// Cells `retry` holds (the host sizes it); more go to the refining passes.
const CAP_RETRY_CAPACITY: u32 = 16384u;
// Most solid angles cap_exact evaluates in one run (listed cells × cap
// triangles): about a millisecond on a large device.
const CAP_EXACT_BUDGET: u32 = 33554432u;

// The cell centre in the cap corners' frame, in f64, exactly as the CPU
// computes it.
fn winding_exact_point(cell: u32) -> vec3<f64> {
    return winding_exact_centre(cparams.origin, cparams.cell_size, cparams.dims, cparams.frame, cell);
}

// Lists `cell` for cap_exact, or beyond its capacity for the refining
// passes.
fn cap_walk_open(cell: u32) {
    let k = atomicAdd(&retry[0], 1u);
    if (k < CAP_RETRY_CAPACITY) {
        atomicStore(&retry[1u + k], cell);
    } else {
        leave_open(cell);
    }
}

var<workgroup> cap_listed: u32;

// One workgroup per listed cell (looping): the exact sum of the cap's
// solid angles at the cell, its invocations taking every 64th triangle.
// Each float32 addition on a term's way into the total is counted in the
// bound as in winding_refine.wgsl's winding_exact_part: the invocation's
// own (one per term), the workgroup reduction's 6, and 8 for the division
// by 4π; cap_decide adds W_Z's part. A cell still open goes to the
// refining passes.
@compute @workgroup_size(64)
fn cap_exact(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) nwg: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    if (lid == 0u) {
        cap_listed = atomicLoad(&retry[0]);
    }
    let listed = workgroupUniformLoad(&cap_listed);
    let count = min(listed, CAP_RETRY_CAPACITY);
    // Too costly: every listed cell to the refining passes (the cells
    // beyond the capacity went there already).
    let over_budget = count > CAP_EXACT_BUDGET / max(cparams.cap_tris, 1u);
    for (var k = wid.y * nwg.x + wid.x; k < count; k += nwg.x * nwg.y) {
        let cell = atomicLoad(&retry[1u + k]);
        if (over_budget) {
            if (lid == 0u) {
                leave_open(cell);
            }
            continue;
        }
        let p = cell_point(cell);
        var part = vec2f(0.0);
        var magnitude = 0.0;
        var terms = 14.0;
        for (var t = lid; t < cparams.cap_tris; t += 64u) {
            let o = winding_leaf(p, t, cparams.slack, cell);
            part += o;
            magnitude += abs(o.x);
            terms += 1.0;
        }
        let bounded = vec2f(part.x, part.y * (1.0 + terms * 1.2e-7) + terms * 9e-8 * magnitude);
        let omega = winding_reduce(bounded, lid);
        if (lid == 0u && !cap_decide(cell, omega)) {
            leave_open(cell);
        }
    }
}
