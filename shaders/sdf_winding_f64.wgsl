//!include shared/winding_grid.wgsl
//!include shared/winding_f64_leaf.wgsl

// The winding-number sign of the uniform SDF on devices with f64 (wgpu
// SHADER_F64; shared/winding_grid.wgsl): the refining pass evaluates each
// triangle it reaches (in its tree walks and its exact sum) in f64 at the
// cell centre exactly as the CPU places it, so that the bound is the
// corners' float32 storage alone, not the float32 rounding of the point and
// of the evaluation (shared/winding_f64_leaf.wgsl). The cells near the
// surface that float32 cannot decide (within a fraction of a percent of a
// triangle's size from its plane) are then decided on the GPU, and only
// those within about 1e-4 of it go to the CPU. The first pass stays in
// float32.

// The cell centre in the nodes' frame, in f64, exactly as the CPU computes
// it (GridSpec::center: a float32 product, then a float32 sum). The
// product of two float32 values is exact in f64, and so is the sum of two
// float32 values unless one is below 2^-29 of the other (and then it
// cannot reach the other's rounding boundary): rounding each to the
// nearest float32 gives the CPU's two correctly rounded results, whatever
// the device fuses. The frame's subtraction is exact in f64 too.
fn winding_exact_point(cell: u32) -> vec3<f64> {
    let dims = wparams.dims;
    let ijk = vec3u(cell % dims.x, (cell / dims.x) % dims.y, cell / (dims.x * dims.y));
    let product = winding_nearest_f32(vec3<f64>(vec3f(ijk)) * f64(wparams.cell_size));
    let world = winding_nearest_f32(vec3<f64>(wparams.origin) + vec3<f64>(product));
    return vec3<f64>(world) - vec3<f64>(wparams.frame);
}

// The float32 nearest to x (ties to even, as the CPU rounds), from a
// conversion that may be off by one ULP: Vulkan does not promise that
// f64 → f32 rounds to nearest. Of the conversion and its two neighbours in
// magnitude, the one nearest |x| (differences exact in f64: each lies
// within a factor 2 of |x|), with x's sign.
fn winding_nearest_f32(x: vec3<f64>) -> vec3f {
    var out = vec3f(0.0);
    for (var k = 0u; k < 3u; k++) {
        let m = abs(x[k]);
        var best = f32(m);
        let bits = bitcast<u32>(best);
        for (var step = 0u; step < 2u; step++) {
            // bits ± 1: the next float32 up and down (none below 0).
            if (step == 1u && bits == 0u) {
                continue;
            }
            let c = bitcast<f32>(select(bits - 1u, bits + 1u, step == 0u));
            let dc = abs(f64(c) - m);
            let db = abs(f64(best) - m);
            if (dc < db || (dc == db && (bitcast<u32>(c) & 1u) == 0u)) {
                best = c;
            }
        }
        out[k] = select(best, -best, x[k] < 0.0);
    }
    return out;
}

