// Nearest-triangle query over the flat AABB BVH (src/geom/bvh.rs); shared
// by sdf_grid.wgsl and sdf_adaptive.wgsl (src/gpu/mod.rs prepends it after
// shared/closest_point.wgsl). The including shader declares the bindings
//   tri_pos: array<vec4f>    3 corners per triangle, BVH order
//   nodes:   array<PairNode> the BVH's inner nodes, root first (Bvh::child_pair_nodes)

// Keep in sync with src/geom/bvh.rs (ChildPairNode): an inner node holding
// both children's boxes, so each level costs one load. count 0: the child is
// the inner node `index`; otherwise a leaf of `count` triangles from slot
// `index`.
struct PairNode {
    left_min: vec3f,
    left_index: u32,
    left_max: vec3f,
    left_count: u32,
    right_min: vec3f,
    right_index: u32,
    right_max: vec3f,
    right_count: u32,
}

const NONE: u32 = 0xffffffffu;
const STACK: u32 = 64u;

fn distance2_to_triangle(p: vec3f, t: u32) -> f32 {
    let c = closest_on_triangle(p, tri_pos[3u * t].xyz, tri_pos[3u * t + 1u].xyz, tri_pos[3u * t + 2u].xyz);
    let d = p - c.q;
    return dot(d, d);
}

fn box_distance2(p: vec3f, lo: vec3f, hi: vec3f) -> f32 {
    let d = max(max(lo - p, p - hi), vec3f(0.0));
    return dot(d, d);
}

struct Nearest {
    d2: f32,
    tri: u32,
    evals: u32,
}

// Folds the triangles of a leaf into the best (distance², triangle) so far.
// The triangle's own box is a cheap lower bound: most triangles of a visited
// leaf are rejected without the exact test (mirrors nearest_triangle in
// src/stages/sdf_grid/cpu.rs).
fn scan_leaf(p: vec3f, first: u32, count: u32, best: ptr<function, f32>, best_tri: ptr<function, u32>, evals: ptr<function, u32>) {
    for (var t = first; t < first + count; t++) {
        let a = tri_pos[3u * t].xyz;
        let b = tri_pos[3u * t + 1u].xyz;
        let c = tri_pos[3u * t + 2u].xyz;
        if (box_distance2(p, min(min(a, b), c), max(max(a, b), c)) >= *best) {
            continue;
        }
        let q = closest_on_triangle(p, a, b, c).q;
        let d2 = dot(p - q, p - q);
        *evals += 1u;
        if (d2 < *best) {
            *best = d2;
            *best_tri = t;
        }
    }
}

// Nearest triangle closer than sqrt(bound2), nearest child first, with an
// explicit stack of (inner node, box distance²); subtrees whose box is not
// closer than the best so far are skipped. Leaf children are scanned as soon
// as their parent is read, nearer one first. The CPU mirror is Bvh::nearest
// in src/geom/bvh.rs.
fn bvh_nearest(p: vec3f, bound2: f32) -> Nearest {
    var best = bound2;
    var best_tri = NONE;
    var evals = 0u;
    var stack_node: array<u32, STACK>;
    var stack_d2: array<f32, STACK>;
    var sp = 0u;
    var node = 0u;
    loop {
        let n = nodes[node];
        let dl = box_distance2(p, n.left_min, n.left_max);
        let dr = box_distance2(p, n.right_min, n.right_max);
        let left_first = dl <= dr;
        // Leaves, nearer first.
        if (left_first) {
            if (n.left_count != 0u && dl < best) {
                scan_leaf(p, n.left_index, n.left_count, &best, &best_tri, &evals);
            }
            if (n.right_count != 0u && dr < best) {
                scan_leaf(p, n.right_index, n.right_count, &best, &best_tri, &evals);
            }
        } else {
            if (n.right_count != 0u && dr < best) {
                scan_leaf(p, n.right_index, n.right_count, &best, &best_tri, &evals);
            }
            if (n.left_count != 0u && dl < best) {
                scan_leaf(p, n.left_index, n.left_count, &best, &best_tri, &evals);
            }
        }
        // Inner children: the nearer is next, the farther waits on the stack.
        let go_left = n.left_count == 0u && dl < best;
        let go_right = n.right_count == 0u && dr < best;
        var next = NONE;
        if (go_left && go_right) {
            next = select(n.right_index, n.left_index, left_first);
            if (sp < STACK) {
                stack_node[sp] = select(n.left_index, n.right_index, left_first);
                stack_d2[sp] = max(dl, dr);
                sp += 1u;
            }
        } else if (go_left) {
            next = n.left_index;
        } else if (go_right) {
            next = n.right_index;
        }
        if (next == NONE) {
            // Pop the next subtree that can still hold something closer.
            loop {
                if (sp == 0u) {
                    break;
                }
                sp -= 1u;
                if (stack_d2[sp] < best) {
                    next = stack_node[sp];
                    break;
                }
            }
            if (next == NONE) {
                break;
            }
        }
        node = next;
    }
    return Nearest(best, best_tri, evals);
}
