//!include shared/closest_point.wgsl
//!include shared/bvh_bounds.wgsl

// Nearest-triangle query over the flat AABB BVH (src/geom/bvh.rs), one
// point per invocation; used by adaptive.wgsl. The including shader
// declares the bindings
//   tri_pos: array<vec4f>    3 corners per triangle, BVH order
//   nodes:   array<BvhNode>  the BVH

fn distance2_to_triangle(p: vec3f, t: u32) -> f32 {
    let c = closest_on_triangle(p, tri_pos[3u * t].xyz, tri_pos[3u * t + 1u].xyz, tri_pos[3u * t + 2u].xyz);
    let d = p - c.q;
    return dot(d, d);
}

struct Nearest {
    d2: f32,
    tri: u32,
    evals: u32,
    // The Voronoi feature of `tri` nearest to the point (FEATURE_*).
    feature: u32,
}

// Nearest triangle closer than sqrt(bound2), nearest child first, with an
// explicit stack; subtrees whose box is not closer than the best so far are
// skipped.
//
// One loop step either tests one triangle of the current leaf or reads one
// node, so the exact closest-point code appears once in the compiled
// kernel: inlining the leaf scan several times makes the kernel larger and
// markedly slower. The CPU mirror is
// Bvh::nearest in src/geom/bvh.rs.
fn bvh_nearest(p: vec3f, bound2: f32) -> Nearest {
    var best = bound2;
    var best_tri = NONE;
    var best_feature = FEATURE_FACE;
    var evals = 0u;
    var stack_node: array<u32, STACK>;
    var stack_d2: array<f32, STACK>;
    var sp = 0u;
    // Triangles [t, t_end) wait to be tested; then `node` is read.
    var t = 0u;
    var t_end = 0u;
    var node = select(0u, NONE, box_distance2(p, nodes[0].min, nodes[0].max) >= best);
    loop {
        if (t < t_end) {
            let a = tri_pos[3u * t].xyz;
            let b = tri_pos[3u * t + 1u].xyz;
            let c = tri_pos[3u * t + 2u].xyz;
            // The triangle's own box is a cheap lower bound: most triangles
            // of a visited leaf are rejected without the exact test (mirrors
            // nearest_triangle in src/stages/sdf/cpu.rs).
            if (box_distance2(p, min(min(a, b), c), max(max(a, b), c)) < best) {
                let q = closest_on_triangle(p, a, b, c);
                let d2 = dot(p - q.q, p - q.q);
                evals += 1u;
                if (d2 < best) {
                    best = d2;
                    best_tri = t;
                    best_feature = q.feature;
                }
            }
            t += 1u;
            continue;
        }
        if (node == NONE) {
            // Pop the next subtree that can still hold something closer.
            loop {
                if (sp == 0u) {
                    break;
                }
                sp -= 1u;
                if (stack_d2[sp] < best) {
                    node = stack_node[sp];
                    break;
                }
            }
            if (node == NONE) {
                break;
            }
        }
        let n = nodes[node];
        node = NONE;
        if ((n.b & LEAF_BIT) != 0u) {
            t = n.a;
            t_end = n.a + (n.b & ~LEAF_BIT);
        } else {
            let l = nodes[n.a];
            let r = nodes[n.b];
            let dl = box_distance2(p, l.min, l.max);
            let dr = box_distance2(p, r.min, r.max);
            let d_near = min(dl, dr);
            let d_far = max(dl, dr);
            if (d_near < best) {
                node = select(n.b, n.a, dl <= dr);
                if (d_far < best && sp < STACK) {
                    stack_node[sp] = select(n.a, n.b, dl <= dr);
                    stack_d2[sp] = d_far;
                    sp += 1u;
                }
            }
        }
    }
    return Nearest(best, best_tri, evals, best_feature);
}

