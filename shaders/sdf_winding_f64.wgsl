//!include shared/winding_grid.wgsl

// The winding-number sign of the uniform SDF on devices with f64 (wgpu
// SHADER_F64; shared/winding_grid.wgsl): the refining pass evaluates each
// triangle it reaches (in its tree walks and its exact sum) in f64 at the
// cell centre exactly as the CPU places it, so that the bound is the
// corners' float32 storage alone, not the float32 rounding of the point and
// of the evaluation. The cells near the surface that float32 cannot decide
// (within a fraction of a percent of a triangle's size from its plane) are
// then decided on the GPU, and only those within about 1e-4 of it go to
// the CPU. The first pass stays in float32.

// The cell centre in the nodes' frame, in f64, exactly as the CPU computes
// it (GridSpec::center: a float32 product, then a float32 sum). The
// product of two float32 values is exact in f64, and so is the sum of two
// float32 values unless one is below 2^-29 of the other (and then it
// cannot reach the other's rounding boundary): rounding each to float32
// gives the CPU's two correctly rounded results, whatever the device
// fuses. The frame's subtraction is exact in f64 too.
fn winding_exact_point(ijk: vec3u) -> vec3<f64> {
    let product = vec3f(vec3<f64>(vec3f(ijk)) * f64(wparams.cell_size));
    let world = vec3f(vec3<f64>(wparams.origin) + vec3<f64>(product));
    return vec3<f64>(world) - vec3<f64>(wparams.frame);
}

// winding_triangle in f64 from the exact point p: the stored corners are
// the exact ones (world minus frame, in f64) rounded to float32, each off
// by at most 2^-24·√3 of its length, the only perturbation besides f64
// rounding (1e-12 relative, far above its few ulps). The angle itself is
// float32's atan2 of the normalised pair (its relative error
// WINDING_ATAN, and 1e-6 for the normalisation's rounding).
fn winding_triangle_f64(p: vec3<f64>, t: u32) -> vec2f {
    let a0 = winding_tris[3u * t].xyz;
    let b0 = winding_tris[3u * t + 1u].xyz;
    let c0 = winding_tris[3u * t + 2u].xyz;
    let a = vec3<f64>(a0) - p;
    let b = vec3<f64>(b0) - p;
    let c = vec3<f64>(c0) - p;
    let la = length(a);
    let lb = length(b);
    let lc = length(c);
    let num = dot(a, cross(b, c));
    let den = la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb;
    let s = f64(1.2e-7 * max(max(length(a0), length(b0)), length(c0)));
    let l3 = la * lb * lc;
    let hyp = length(vec2<f64>(num, den));
    let h = hyp / l3;
    // As in winding_triangle: the pair (num, den) relative to l3 is off by
    // err when each corner moves by s.
    let err = 5.0 * (3.0 * s * (1.0 / la + 1.0 / lb + 1.0 / lc) + 1e-12);
    let on_cut = den <= 0.0 && abs(num) / l3 <= err;
    if (!(l3 > 0.0) || !(2.0 * err < h) || on_cut) {
        return vec2f(0.0, WINDING_FOUR_PI);
    }
    let omega = 2.0 * atan2(f32(num / hyp), f32(den / hyp));
    return vec2f(omega, f32(4.0 * err / h) * (1.0 + WINDING_EPS) + WINDING_ATAN * abs(omega) + 1e-6);
}

fn winding_leaf(p: vec3f, t: u32, slack: f32, cell: u32) -> vec2f {
    if (cell == WINDING_NO_CELL) {
        return winding_triangle(p, winding_tris[3u * t].xyz, winding_tris[3u * t + 1u].xyz, winding_tris[3u * t + 2u].xyz, slack);
    }
    let dims = wparams.dims;
    let ijk = vec3u(cell % dims.x, (cell / dims.x) % dims.y, cell / (dims.x * dims.y));
    return winding_triangle_f64(winding_exact_point(ijk), t);
}
