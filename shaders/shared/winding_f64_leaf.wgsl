// The includer's leaf evaluation of shared/winding.wgsl on devices with f64
// (wgpu SHADER_F64): the refining pass (shared/winding_refine.wgsl) passes
// its point's `cell` (a grid cell or a point index; the first pass passes
// WINDING_NO_CELL and stays in float32), and every triangle is evaluated in
// f64 at that point exactly as the CPU places it, so that the bound is the
// corners' float32 storage alone, not the float32 rounding of the point
// and of the evaluation. Needs the includer's
//   fn winding_exact_point(cell: u32) -> vec3<f64>
// the point in the tree's frame, exactly (the grid's cell centre as the
// CPU computes it, or a point as stored, minus the frame in f64).
//
// What the bound assumes of the device: f64 addition, subtraction and
// multiplication correctly rounded (IEEE-754 hardware), float32 atan2 and
// inverseSqrt within WGSL's accuracy (4096 and 2 ULP, in their domains),
// float32 conversion within one ULP. It does not use f64 division or
// square root: Vulkan promises those only single precision, which the
// 1e-12 rounding allowance below would not cover. Square roots and
// quotients are Newton-refined reciprocal square roots instead
// (winding_rsqrt64), and the angle's atan2 takes arguments scaled into its
// accurate domain (winding_atan2, shared/winding.wgsl).

// 1/√x in f64 with multiplications and additions only: float32's
// inverseSqrt (2 ULP, 2.4e-7) and two Newton steps r ← r(3 − x r²)/2, each
// taking a relative error e to 1.5 e² (9e-14, then 1e-26): the result is
// within f64 rounding (a few 1e-16). 0 or a value float32 cannot hold gives
// inf or 0, and the callers' checks then leave the triangle undecided.
fn winding_rsqrt64(x: f64) -> f64 {
    var r = f64(inverseSqrt(f32(x)));
    r = r * (1.5 - 0.5 * x * r * r);
    r = r * (1.5 - 0.5 * x * r * r);
    return r;
}

// winding_triangle in f64 from the exact point p: the stored corners are
// the exact ones (world minus frame, in f64) rounded to float32, each off
// by at most 2^-24·√3 of its length, the only perturbation besides f64
// rounding (1e-12 relative, far above its few ulps). The angle itself is
// float32's atan2 of the normalised pair (its relative error WINDING_ATAN,
// and 1e-6 for the normalisation's and the conversion's rounding).
fn winding_triangle_f64(p: vec3<f64>, t: u32) -> vec2f {
    let a0 = winding_tris[3u * t].xyz;
    let b0 = winding_tris[3u * t + 1u].xyz;
    let c0 = winding_tris[3u * t + 2u].xyz;
    let a = vec3<f64>(a0) - p;
    let b = vec3<f64>(b0) - p;
    let c = vec3<f64>(c0) - p;
    // Reciprocal lengths, then the lengths.
    let ra = winding_rsqrt64(dot(a, a));
    let rb = winding_rsqrt64(dot(b, b));
    let rc = winding_rsqrt64(dot(c, c));
    let la = dot(a, a) * ra;
    let lb = dot(b, b) * rb;
    let lc = dot(c, c) * rc;
    let num = dot(a, cross(b, c));
    let den = la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb;
    let s = f64(1.2e-7 * max(max(length(a0), length(b0)), length(c0)));
    // 1/l3 and 1/|(num, den)|: h = |(num, den)| / l3.
    let r3 = ra * rb * rc;
    let sq = num * num + den * den;
    let rh = winding_rsqrt64(sq);
    let h = sq * rh * r3;
    // As in winding_triangle: the pair (num, den) relative to l3 is off by
    // err when each corner moves by s.
    let err = 5.0 * (3.0 * s * (ra + rb + rc) + 1e-12);
    let on_cut = den <= 0.0 && abs(num) * r3 <= err;
    if (!(la * lb * lc > 0.0) || !(2.0 * err < h) || on_cut) {
        return vec2f(0.0, WINDING_FOUR_PI);
    }
    let omega = 2.0 * winding_atan2(f32(num * rh), f32(den * rh));
    // 4 err / h, with 1/h = l3 / |(num, den)|.
    let moved = f32(4.0 * err * la * lb * lc * rh);
    return vec2f(omega, moved * (1.0 + WINDING_EPS) + WINDING_ATAN * abs(omega) + 1e-6);
}

fn winding_leaf(p: vec3f, t: u32, slack: f32, cell: u32) -> vec2f {
    if (cell == WINDING_NO_CELL) {
        return winding_triangle(p, winding_tris[3u * t].xyz, winding_tris[3u * t + 1u].xyz, winding_tris[3u * t + 2u].xyz, slack);
    }
    return winding_triangle_f64(winding_exact_point(cell), t);
}
