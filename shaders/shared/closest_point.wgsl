// Closest point on a triangle and the Voronoi feature it lies on; included
// by sdf.wgsl and shared/bvh_nearest.wgsl.
//
// Mirrors src/geom/closest_point.rs: tests/it/shader_layouts.rs checks the
// feature ids and thresholds, tests/it/sdf.rs the two backends' fields.

const FEATURE_FACE: u32 = 0u;
const FEATURE_EDGE01: u32 = 1u;
const FEATURE_EDGE12: u32 = 2u;
const FEATURE_EDGE20: u32 = 3u;
const FEATURE_V0: u32 = 4u;
const FEATURE_V1: u32 = 5u;
const FEATURE_V2: u32 = 6u;

struct Closest {
    q: vec3f,
    feature: u32,
}

// SNAP_WEIGHT, SLIVER and FEATURE_BY_MASK of src/geom/closest_point.rs.
const SNAP_WEIGHT: f32 = 1e-6;
const SLIVER: f32 = 1e-4;

// The feature spanned by the corners whose barycentric weight exceeds
// SNAP_WEIGHT, by mask w0 | w1 << 1 | w2 << 2 (a rounding misclassification
// between a face and its edge must name the edge, whose pseudo-normal the
// sign needs).
fn snapped_feature(w0: f32, w1: f32, w2: f32) -> u32 {
    let mask = select(0u, 1u, w0 > SNAP_WEIGHT) | select(0u, 2u, w1 > SNAP_WEIGHT) | select(0u, 4u, w2 > SNAP_WEIGHT);
    switch mask {
        case 1u: { return FEATURE_V0; }
        case 2u: { return FEATURE_V1; }
        case 3u: { return FEATURE_EDGE01; }
        case 4u: { return FEATURE_V2; }
        case 5u: { return FEATURE_EDGE20; }
        case 6u: { return FEATURE_EDGE12; }
        default: { return FEATURE_FACE; }
    }
}

fn result(q: vec3f, w0: f32, w1: f32, w2: f32) -> Closest {
    return Closest(q, snapped_feature(w0, w1, w2));
}

// Ericson, Real-Time Collision Detection §5.1.5, mirroring
// closest_point_triangle in src/geom/closest_point.rs (same expressions, so
// the same values, including its sliver fallback). Written with one exit:
// the kernels inline it, and the seven returns of the textbook form made
// the compiled traversal loops several times larger.
fn closest_on_triangle(p: vec3f, a: vec3f, b: vec3f, c: vec3f) -> Closest {
    let ab = b - a;
    let ac = c - a;
    let n = cross(ab, ac);
    let n2 = dot(n, n);
    let longest2 = max(max(dot(ab, ab), dot(ac, ac)), dot(c - b, c - b));
    var sliver = !(n2 > SLIVER * longest2 * longest2);
    var q = a;
    var w = vec3f(1.0, 0.0, 0.0);
    if (!sliver) {
        let ap = p - a;
        let d1 = dot(ab, ap);
        let d2 = dot(ac, ap);
        let bp = p - b;
        let d3 = dot(ab, bp);
        let d4 = dot(ac, bp);
        let cp = p - c;
        let d5 = dot(ab, cp);
        let d6 = dot(ac, cp);
        let vc = d1 * d4 - d3 * d2;
        let vb = d5 * d2 - d1 * d6;
        let va = d3 * d6 - d5 * d4;
        if (d1 <= 0.0 && d2 <= 0.0) {
            // Vertex a: q and w as initialised.
        } else if (d3 >= 0.0 && d4 <= d3) {
            q = b;
            w = vec3f(0.0, 1.0, 0.0);
        } else if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
            let denom = d1 - d3;
            sliver = !(denom > 0.0);
            let v = d1 / denom;
            q = a + v * ab;
            w = vec3f(1.0 - v, v, 0.0);
        } else if (d6 >= 0.0 && d5 <= d6) {
            q = c;
            w = vec3f(0.0, 0.0, 1.0);
        } else if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
            let denom = d2 - d6;
            sliver = !(denom > 0.0);
            let t = d2 / denom;
            q = a + t * ac;
            w = vec3f(1.0 - t, 0.0, t);
        } else if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
            let denom = (d4 - d3) + (d5 - d6);
            sliver = !(denom > 0.0);
            let t = (d4 - d3) / denom;
            q = b + t * (c - b);
            w = vec3f(0.0, 1.0 - t, t);
        } else {
            let denom = va + vb + vc;
            sliver = !(denom > 0.0);
            let inv = 1.0 / denom;
            let v = vb * inv;
            let t = vc * inv;
            q = a + ab * v + ac * t;
            w = vec3f(1.0 - v - t, v, t);
        }
    }
    if (sliver) {
        return closest_on_sliver(p, a, b, c);
    }
    return result(q, w.x, w.y, w.z);
}

// One edge of the sliver fallback: corner i to corner j as weights.
fn sliver_edge(p: vec3f, start: vec3f, end: vec3f, i: u32, j: u32) -> Closest {
    let e = end - start;
    let ee = dot(e, e);
    var t = 0.0;
    if (ee > 0.0) {
        t = clamp(dot(p - start, e) / ee, 0.0, 1.0);
    }
    var w = array<f32, 3>(0.0, 0.0, 0.0);
    w[i] = 1.0 - t;
    w[j] = t;
    return result(start + t * e, w[0], w[1], w[2]);
}

fn dist2(p: vec3f, c: Closest) -> f32 {
    let d = p - c.q;
    return dot(d, d);
}

// Slivers and degenerate triangles: the closest of the three edges and, when
// it falls inside, the projection onto the plane (closest_point_triangle_sliver).
fn closest_on_sliver(p: vec3f, a: vec3f, b: vec3f, c: vec3f) -> Closest {
    var best = sliver_edge(p, a, b, 0u, 1u);
    let e12 = sliver_edge(p, b, c, 1u, 2u);
    if (dist2(p, e12) < dist2(p, best)) {
        best = e12;
    }
    let e20 = sliver_edge(p, c, a, 2u, 0u);
    if (dist2(p, e20) < dist2(p, best)) {
        best = e20;
    }
    let n = cross(b - a, c - a);
    let nn = dot(n, n);
    if (nn > 0.0) {
        let q = p - n * (dot(n, p - a) / nn);
        let w0 = dot(cross(b - q, c - q), n) / nn;
        let w1 = dot(cross(c - q, a - q), n) / nn;
        let w2 = dot(cross(a - q, b - q), n) / nn;
        if (w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0) {
            let face = result(q, w0, w1, w2);
            if (dist2(p, face) < dist2(p, best)) {
                best = face;
            }
        }
    }
    return best;
}


// Squared distance from p to triangle abc without branches: to the plane
// when p projects inside the triangle, else to the nearest of its three
// edges. The traversals use it to find the nearest triangle, whose
// feature and exact value then come from closest_on_triangle: the same
// distance as Ericson's up to rounding, without the divergent region
// tests and sliver fallback that make that one costly inside a loop. A
// degenerate triangle (zero normal) is never "inside".
fn segment_distance2(ap: vec3f, ab: vec3f) -> f32 {
    let t = clamp(dot(ap, ab) / max(dot(ab, ab), 1e-30), 0.0, 1.0);
    let d = ap - t * ab;
    return dot(d, d);
}

fn triangle_distance2(p: vec3f, a: vec3f, b: vec3f, c: vec3f) -> f32 {
    let ab = b - a;
    let bc = c - b;
    let ca = a - c;
    let n = cross(ab, bc);
    let nn = dot(n, n);
    let ap = p - a;
    let bp = p - b;
    let cp = p - c;
    // Each edge's outward side is cross(edge, n).
    let inside = nn > 0.0 && dot(cross(ab, n), ap) <= 0.0 && dot(cross(bc, n), bp) <= 0.0 && dot(cross(ca, n), cp) <= 0.0;
    let dn = dot(n, ap);
    let plane = dn * dn / max(nn, 1e-30);
    let edges = min(min(segment_distance2(ap, ab), segment_distance2(bp, bc)), segment_distance2(cp, ca));
    return select(edges, plane, inside);
}
