// The includer's leaf evaluation of shared/winding.wgsl on devices with f64
// (wgpu SHADER_F64): the refining pass (shared/winding_refine.wgsl) passes
// its point's `cell` (a grid cell or a point index; the first pass passes
// WINDING_NO_CELL and stays in float32), and every triangle is evaluated in
// f64 at that point exactly as the CPU places it. The host stores the
// corners in a frame whose subtraction float32 holds exactly
// (src/geom/exact_frame.rs), so the stored corners ARE the CPU's corners:
// the bound is f64 rounding alone (the angle too is taken in f64, by
// winding_atan64), and only points within about 1e-11 (relative) of a
// triangle's plane, edge or corner stay undecided. Needs the includer's
//   fn winding_exact_point(cell: u32) -> vec3<f64>
// the point in the tree's frame (the grid's cell centre as the CPU
// computes it, or a point as stored, minus the frame in f64: rounded at
// most once, by 2^-53 of its length).
//
// What the bound assumes of the device: f64 addition, subtraction and
// multiplication correctly rounded or fused (IEEE-754 hardware; a fused
// multiply-add rounds once instead of twice, which only shrinks each
// operation's error, so the 1e-12 allowance below covers either), float32
// atan2 and inverseSqrt within WGSL's accuracy (4096 and 2 ULP, in their
// domains), float32 division within 2.5 ULP, f64 → float32 conversion
// within one ULP. It does not use f64 division, square root or atan2:
// Vulkan promises the first two only single precision and has no f64
// atan2. Square roots and quotients are Newton-refined float32 estimates
// instead (winding_rsqrt64, winding_recip64), and the angle is a
// polynomial in f64 (winding_atan64).

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

// 1/m in f64 for m in [½, 4], with multiplications and additions only:
// float32's 1/m (2.5 ULP, 3e-7) and two Newton steps r ← r(2 − m r), each
// taking a relative error e to e² (9e-14, then 1e-26).
fn winding_recip64(m: f64) -> f64 {
    var r = f64(1.0 / f32(m));
    r = r * (2.0 - m * r);
    r = r * (2.0 - m * r);
    return r;
}

const WINDING_PI64: f64 = 3.141592653589793lf;
const WINDING_SQRT3: f64 = 1.7320508075688772lf;
const WINDING_TAN_PI_12: f64 = 0.2679491924311227lf;

// atan2(y, x) in f64 for a pair of length about 1 (|(x, y)| in [½, 2]),
// with multiplications and additions only, within a few f64 ulps of the
// angle (relative: every step below is relative to the angle it yields).
// t = min/max(|x|, |y|) ∈ [0, 1]; above tan(π/12), atan t = π/6 + atan u
// with u = (√3 t − 1)/(√3 + t) ∈ (−tan(π/12), tan(π/12)]; atan u is its
// odd Taylor series to u²⁷ (the next term, |u|²⁹/29 < 1e-18, is below
// f64 rounding); then the octant and the quadrant. Both zero gives 0; the
// callers leave that triangle undecided.
fn winding_atan64(y: f64, x: f64) -> f64 {
    let ax = abs(x);
    let ay = abs(y);
    let big = max(ax, ay);
    if (!(big > 0.0)) {
        return 0.0;
    }
    let t = min(ax, ay) * winding_recip64(big);
    let reduced = t > WINDING_TAN_PI_12;
    var u = t;
    if (reduced) {
        u = (WINDING_SQRT3 * t - 1.0) * winding_recip64(WINDING_SQRT3 + t);
    }
    let u2 = u * u;
    // Σ (−1)^k u^(2k+1) / (2k + 1), k = 0 … 13, by Horner in u².
    var q = -0.037037037037037035lf;
    q = q * u2 + 0.04lf;
    q = q * u2 - 0.043478260869565216lf;
    q = q * u2 + 0.047619047619047616lf;
    q = q * u2 - 0.05263157894736842lf;
    q = q * u2 + 0.058823529411764705lf;
    q = q * u2 - 0.06666666666666667lf;
    q = q * u2 + 0.07692307692307693lf;
    q = q * u2 - 0.09090909090909091lf;
    q = q * u2 + 0.1111111111111111lf;
    q = q * u2 - 0.14285714285714285lf;
    q = q * u2 + 0.2lf;
    q = q * u2 - 0.3333333333333333lf;
    q = q * u2 + 1.0lf;
    var a = u * q;
    if (reduced) {
        a += 0.5235987755982988lf; // π/6
    }
    if (ay > ax) {
        a = 1.5707963267948966lf - a; // π/2
    }
    if (x < 0.0) {
        a = WINDING_PI64 - a;
    }
    return select(a, -a, y < 0.0);
}

// winding_triangle in f64 from the point p: the stored corners are the
// exact ones (geom::exact_frame), p is off by at most 2^-52·|p| (its
// frame subtraction), the only perturbation besides f64 rounding (1e-12
// relative to |a||b||c|, far above the few ulps each of num and den costs,
// fused or not). Bound on the angle Ω = 2θ, θ = atan2(num, den):
//   * p moved by s: (num, den)/l3 moves by at most err, and θ by at most
//     (π/2)·err/h while err < h/2 (as winding_triangle), so Ω by 4 err/h;
//   * the unit pair (x, y) = (den, num)/|(num, den)| and its angle in f64
//     (winding_atan64): a few f64 ulps of θ, far inside the allowance below;
//   * Ω = 2θ converted to float32: one ULP (2^-23, 1.2e-7 relative; counted
//     with the f64 steps as 3e-7), or flushed to 0 below 2^-126 (1e-37
//     absolute).
// No absolute allowance per triangle beyond that: an exact sum over n
// triangles no longer carries n times a fixed error.
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
    // p's rounding (2^-52 |p|, counted as 2^-51).
    let s = 4.5e-16 * sqrt(f32(dot(p, p)));
    // 1/l3 and 1/|(num, den)|: h = |(num, den)| / l3.
    let r3 = ra * rb * rc;
    let sq = num * num + den * den;
    let rh = winding_rsqrt64(sq);
    let h = sq * rh * r3;
    // As in winding_triangle: the pair (num, den) relative to l3 is off by
    // err when each corner moves by s, with f64 rounding; the factor 5
    // spares the products' rounding of the bound itself.
    let err = 5.0 * (3.0 * f64(s) * (ra + rb + rc) + 1e-12);
    let on_cut = den <= 0.0 && abs(num) * r3 <= err;
    if (!(la * lb * lc > 0.0) || !(2.0 * err < h) || on_cut || !(err > 0.0)) {
        return vec2f(0.0, WINDING_FOUR_PI);
    }
    let omega = f32(2.0 * winding_atan64(num * rh, den * rh));
    // 4 err / h, with 1/h = l3 / |(num, den)|.
    let moved = f32(4.0 * err * la * lb * lc * rh);
    return vec2f(omega, moved * (1.0 + WINDING_EPS) + 3e-7 * abs(omega) + 1e-37);
}

fn winding_leaf(p: vec3f, t: u32, slack: f32, cell: u32) -> vec2f {
    if (cell == WINDING_NO_CELL) {
        return winding_triangle(p, winding_tris[3u * t].xyz, winding_tris[3u * t + 1u].xyz, winding_tris[3u * t + 2u].xyz, slack);
    }
    return winding_triangle_f64(winding_exact_point(cell), t);
}

// The centre of grid cell `cell` (grid origin, cell size, dims) in the frame
// at `frame`, in f64, exactly as the CPU computes it (GridSpec::center: a
// float32 product, then a float32 sum). The product of two float32 values is exact in f64, and so is the sum of two
// float32 values unless one is below 2^-29 of the other (and then it
// cannot reach the other's rounding boundary): rounding each to the
// nearest float32 gives the CPU's two correctly rounded results, whatever
// the device fuses. The frame's subtraction is exact in f64 too.
fn winding_exact_centre(origin: vec3f, cell_size: f32, dims: vec3u, frame: vec3f, cell: u32) -> vec3<f64> {
    let ijk = vec3u(cell % dims.x, (cell / dims.x) % dims.y, cell / (dims.x * dims.y));
    let product = winding_nearest_f32(vec3<f64>(vec3f(ijk)) * f64(cell_size));
    let world = winding_nearest_f32(vec3<f64>(origin) + vec3<f64>(product));
    return vec3<f64>(world) - vec3<f64>(frame);
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

