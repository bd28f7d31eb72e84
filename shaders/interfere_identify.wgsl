//!include shared/interfere_solve.wgsl

// Identification from the weighted sums of the counting pass (src/stages/
// interference/identify.rs): per pixel whose ray hit an edge of object i
// (pass 1's ids), the sums S = Σ s·(1, j + 1, (j + 1)², open) of the faces
// in front of that edge point name the objects it is inside — none, one
// (S1 = j + 1) or two (the roots of a quadratic) — or the pixel is
// ambiguous (three or more, a non-closed count, an open mesh crossed).
// Writes the penetrated image, counts pixels per (i, j), j ≠ i, and
// ambiguous pixels per i.
//
// `Params` mirrors src/stages/interfere/identify.rs (checked by
// tests/it/shader_layouts.rs).

struct Params {
    objects: u32,
    width: u32,
    height: u32,
    pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var sums: texture_2d<f32>;
@group(0) @binding(2) var ids: texture_2d<u32>;
@group(0) @binding(3) var penetrated: texture_storage_2d<r32uint, write>;
// objects × objects: pixels of i's edges inside j at [i · objects + j].
@group(0) @binding(4) var<storage, read_write> pair_pixels: array<atomic<u32>>;
// Per object: pixels of its edges the sums cannot decode.
@group(0) @binding(5) var<storage, read_write> ambiguous: array<atomic<u32>>;

// solve_sums on the sums as the counting pass left them in floats: exact
// integers (below 2^24) or ambiguous; `w` counts open meshes crossed.
fn solve(s: vec4<f32>) -> vec3<u32> {
    if any(s != round(s)) {
        return vec3(0u, 0u, 0u);
    }
    return solve_sums(i32(s.x), i32(s.y), i32(s.z), s.w != 0.0, p.objects);
}

@compute @workgroup_size(8, 8)
fn identify(@builtin(global_invocation_id) g: vec3<u32>) {
    if g.x >= p.width || g.y >= p.height {
        return;
    }
    let at = vec2<i32>(g.xy);
    let edge = textureLoad(ids, at, 0).x;
    var into = 0u;
    if edge != 0u {
        let i = edge - 1u;
        let solved = solve(textureLoad(sums, at, 0));
        if solved.x == 0u {
            atomicAdd(&ambiguous[i], 1u);
        } else {
            // The edge's own object among them: spurious self-interference
            // (§4.5.8), filtered by identity.
            for (var k = 1u; k < 3u; k++) {
                let o = solved[k];
                if o != 0u && o != edge {
                    atomicAdd(&pair_pixels[i * p.objects + o - 1u], 1u);
                    // Two: the larger, as the pair passes (ascending j,
                    // the last one tested) write it.
                    into = max(into, o);
                }
            }
        }
    }
    textureStore(penetrated, at, vec4(into, 0u, 0u, 0u));
}
