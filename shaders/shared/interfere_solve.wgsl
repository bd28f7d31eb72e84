// Decoding the weighted sums of the faces in front of an edge point
// (src/stages/interfere/identify.rs): S0 = Σ s, S1 = Σ s·(j + 1),
// S2 = Σ s·(j + 1)² over `objects` objects name the objects the point is
// inside — none, one (S1 = j + 1) or two (the roots of a quadratic) — or
// the pixel is ambiguous (three or more, a non-closed count, an open mesh
// crossed). Used by interfere_identify.wgsl (sums read from a float
// texture) and interfere_compute.wgsl (exact integer sums).

// x: 1 when decoded, 0 ambiguous; y, z: the objects inside + 1 (0: none).
fn solve_sums(s0: i32, s1: i32, s2: i32, open: bool, objects: u32) -> vec3<u32> {
    let bad = vec3(0u, 0u, 0u);
    let n = i32(objects);
    // Bounds first, so nothing below overflows.
    if open || s1 < 0 || s1 > 2 * n || s2 < 0 || s2 > 2 * n * n {
        return bad;
    }
    if s0 == 0 && s1 == 0 && s2 == 0 {
        return vec3(1u, 0u, 0u);
    }
    if s0 == 1 && s1 >= 1 && s1 <= n && s2 == s1 * s1 {
        return vec3(1u, u32(s1), 0u);
    }
    if s0 == 2 {
        // x + y = S1, x² + y² = S2: (y − x)² = 2·S2 − S1².
        let d = 2 * s2 - s1 * s1;
        let r = i32(round(sqrt(f32(max(d, 0)))));
        let x = (s1 - r) / 2;
        let y = (s1 + r) / 2;
        if d > 0 && r * r == d && (s1 - r) % 2 == 0 && x >= 1 && y <= n {
            return vec3(1u, u32(x), u32(y));
        }
    }
    return bad;
}
