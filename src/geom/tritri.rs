//! Triangle–triangle and segment–triangle intersection: exact predicates on
//! f32 coordinates, and the OpenCL tutorial's float test for comparison.
//!
//! # Exact predicates
//!
//! Every decision is the sign of an orientation determinant
//! ([`orient3d`], [`orient2d`]) of input points. Inputs are f32 (mesh
//! coordinates, or world coordinates rounded once to f32), so the
//! determinants are first evaluated in f64 with Shewchuk's static error
//! bound; when the bound cannot certify the sign the determinant is
//! re-evaluated exactly in 128-bit integers (the coordinates scaled by a
//! power of two). That works whenever the coordinates of the four points span
//! at most [`EXACT_SPAN_BITS`] bits (from the largest magnitude down to the
//! smallest ulp) — every mesh we handle; beyond that the f64 sign is used and
//! [`inexact_fallbacks`] counts it.
//!
//! Triangles are closed sets: touching at a vertex or along an edge counts as
//! intersecting, as do coplanar overlaps.
//!
//! * [`intersect_triangle_triangle`] — Guigue & Devillers, "Fast and robust
//!   triangle-triangle overlap test using orientation predicates" (JGT 2003):
//!   vertex-vs-plane signs, a canonical permutation, then two edge-vs-edge
//!   orientations. Coplanar pairs go to a 2D test in the projection that
//!   drops the normal's largest axis.
//! * [`intersect_triangle_triangle_edges`] — the obviously right baseline:
//!   two closed triangles intersect iff one of the six edges meets the other
//!   triangle, or (coplanar) the 2D triangles overlap. Each edge test is exact
//!   ([`intersect_segment_triangle`]), including edges lying in the other
//!   triangle's plane.
//!
//! Zero-area triangles are not handled by either (they report no
//! intersection): the stage skips them, since their points lie on the edges
//! of their neighbours in a closed mesh.
//!
//! # The tutorial's test
//!
//! [`intersect_segment_triangle_tutorial`] is the tutorial's
//! `RetaCruzaTriangulo` in f32: solve `A + δ·AB = C + α·CD + β·CE` by
//! Cramer's rule and accept `α, β ≥ 0, α + β ≤ 1, 0 ≤ δ ≤ 1`; a zero
//! determinant (segment parallel to the plane) is "no crossing".
//! [`intersect_triangle_triangle_tutorial`] tests five edges (or six). Its
//! claim that the sixth edge is redundant holds in general position — the
//! intersection segment of two non-coplanar triangles has two end points on
//! two *different* edges — but the test misses every coplanar overlap (all
//! determinants are zero) and decides touching contacts by rounding; the
//! tests in this module and `tests/it/tritri.rs` measure both.

use glam::{DVec3, Vec3};

/// A triangle's three corners.
pub type Triangle = [Vec3; 3];

/// Widest coordinate span (bits) the exact integer fallback handles.
pub const EXACT_SPAN_BITS: i32 = 40;

static INEXACT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many determinants were too wide for the exact fallback (their f64
/// sign was used) since the process started.
pub fn inexact_fallbacks() -> u64 {
    INEXACT.load(std::sync::atomic::Ordering::Relaxed)
}

const EPS64: f64 = f64::EPSILON * 0.5;

/// Sign (−1, 0, 1) of `det[a−d, b−d, c−d]`: positive when `d` lies on the
/// side of plane `abc` opposite to its normal `(b−a)×(c−a)`, 0 exactly on
/// the plane (Shewchuk's convention).
pub fn orient3d(a: Vec3, b: Vec3, c: Vec3, d: Vec3) -> i32 {
    let (det, permanent) = orient3d_f64(a, b, c, d);
    let bound = (7.0 + 56.0 * EPS64) * EPS64 * permanent;
    if det > bound {
        return 1;
    }
    if det < -bound {
        return -1;
    }
    match exact_ints(&[a, b, c, d]) {
        Some(p) => {
            let [a, b, c, d] = [p[0], p[1], p[2], p[3]];
            let ad = [a[0] - d[0], a[1] - d[1], a[2] - d[2]];
            let bd = [b[0] - d[0], b[1] - d[1], b[2] - d[2]];
            let cd = [c[0] - d[0], c[1] - d[1], c[2] - d[2]];
            let det = ad[0] * (bd[1] * cd[2] - bd[2] * cd[1])
                + ad[1] * (bd[2] * cd[0] - bd[0] * cd[2])
                + ad[2] * (bd[0] * cd[1] - bd[1] * cd[0]);
            det.signum() as i32
        }
        None => {
            INEXACT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            sign(det)
        }
    }
}

/// `det[a−d, b−d, c−d]` in f64 and its permanent (the error-bound scale).
pub fn orient3d_f64(a: Vec3, b: Vec3, c: Vec3, d: Vec3) -> (f64, f64) {
    let (a, b, c, d) = (a.as_dvec3(), b.as_dvec3(), c.as_dvec3(), d.as_dvec3());
    let (ad, bd, cd) = (a - d, b - d, c - d);
    let det = ad.dot(bd.cross(cd));
    let (aa, ba, ca) = (ad.abs(), bd.abs(), cd.abs());
    let permanent = aa.x * (ba.y * ca.z + ba.z * ca.y)
        + aa.y * (ba.z * ca.x + ba.x * ca.z)
        + aa.z * (ba.x * ca.y + ba.y * ca.x);
    (det, permanent)
}

/// Sign (−1, 0, 1) of `(a−c) × (b−c)`: positive when `a, b, c` turn
/// counter-clockwise.
pub fn orient2d(a: [f32; 2], b: [f32; 2], c: [f32; 2]) -> i32 {
    let f = |p: [f32; 2]| [f64::from(p[0]), f64::from(p[1])];
    let (a64, b64, c64) = (f(a), f(b), f(c));
    let left = (a64[0] - c64[0]) * (b64[1] - c64[1]);
    let right = (a64[1] - c64[1]) * (b64[0] - c64[0]);
    let det = left - right;
    let bound = (3.0 + 16.0 * EPS64) * EPS64 * (left.abs() + right.abs());
    if det > bound {
        return 1;
    }
    if det < -bound {
        return -1;
    }
    let to3 = |p: [f32; 2]| Vec3::new(p[0], p[1], 0.0);
    match exact_ints(&[to3(a), to3(b), to3(c)]) {
        Some(p) => {
            let det = (p[0][0] - p[2][0]) * (p[1][1] - p[2][1])
                - (p[0][1] - p[2][1]) * (p[1][0] - p[2][0]);
            det.signum() as i32
        }
        None => {
            INEXACT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            sign(det)
        }
    }
}

fn sign(x: f64) -> i32 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

/// The points' coordinates as integers (all scaled by one power of two), or
/// `None` when they span more than [`EXACT_SPAN_BITS`] bits.
fn exact_ints(points: &[Vec3]) -> Option<Vec<[i128; 3]>> {
    let mut lowest = i32::MAX; // exponent of the smallest ulp
    let mut highest = i32::MIN; // exponent just above the largest magnitude
    for c in points.iter().flat_map(|p| p.to_array()) {
        if c == 0.0 {
            continue;
        }
        if !c.is_finite() {
            return None;
        }
        let field = ((c.to_bits() >> 23) & 0xff) as i32;
        let (ulp, top) = if field == 0 {
            (-149, -126)
        } else {
            (field - 150, field - 126)
        };
        lowest = lowest.min(ulp);
        highest = highest.max(top);
    }
    if lowest == i32::MAX {
        return Some(vec![[0; 3]; points.len()]);
    }
    if highest - lowest > EXACT_SPAN_BITS {
        return None;
    }
    let scale = (-lowest) as f64;
    Some(
        points
            .iter()
            .map(|p| {
                // Exact: each value is an integer below 2^41 after scaling.
                p.to_array()
                    .map(|c| (f64::from(c) * scale.exp2()) as i64 as i128)
            })
            .collect(),
    )
}

/// Index of the largest-magnitude component of the normal of `t` (the axis a
/// coplanar test projects away), computed in f64.
fn drop_axis(t: Triangle) -> usize {
    let [a, b, c] = t.map(Vec3::as_dvec3);
    let n = (b - a).cross(c - a).abs();
    if n.x >= n.y && n.x >= n.z {
        0
    } else if n.y >= n.z {
        1
    } else {
        2
    }
}

fn project(p: Vec3, axis: usize) -> [f32; 2] {
    match axis {
        0 => [p.y, p.z],
        1 => [p.z, p.x],
        _ => [p.x, p.y],
    }
}

/// True when the triangle has exactly zero area.
pub fn is_degenerate(t: Triangle) -> bool {
    let [a, b, c] = t.map(Vec3::as_dvec3);
    (b - a).cross(c - a) == DVec3::ZERO
}

/// Closed 2D point-in-triangle (either winding).
pub fn point_in_triangle_2d(p: [f32; 2], t: [[f32; 2]; 3]) -> bool {
    let o = [
        orient2d(t[0], t[1], p),
        orient2d(t[1], t[2], p),
        orient2d(t[2], t[0], p),
    ];
    !(o.contains(&1) && o.contains(&-1))
}

/// Closed 2D segment–segment intersection, collinear overlaps included.
pub fn intersect_segment_segment_2d(p: [f32; 2], q: [f32; 2], r: [f32; 2], s: [f32; 2]) -> bool {
    let o1 = orient2d(p, q, r);
    let o2 = orient2d(p, q, s);
    let o3 = orient2d(r, s, p);
    let o4 = orient2d(r, s, q);
    if o1 * o2 < 0 && o3 * o4 < 0 {
        return true;
    }
    let within = |a: [f32; 2], b: [f32; 2], x: [f32; 2]| {
        a[0].min(b[0]) <= x[0]
            && x[0] <= a[0].max(b[0])
            && a[1].min(b[1]) <= x[1]
            && x[1] <= a[1].max(b[1])
    };
    (o1 == 0 && within(p, q, r))
        || (o2 == 0 && within(p, q, s))
        || (o3 == 0 && within(r, s, p))
        || (o4 == 0 && within(r, s, q))
}

/// Closed 2D triangle overlap: an edge pair crosses, or a corner of one
/// lies in the other.
pub fn intersect_triangle_triangle_2d(t1: [[f32; 2]; 3], t2: [[f32; 2]; 3]) -> bool {
    for i in 0..3 {
        for j in 0..3 {
            if intersect_segment_segment_2d(t1[i], t1[(i + 1) % 3], t2[j], t2[(j + 1) % 3]) {
                return true;
            }
        }
    }
    point_in_triangle_2d(t1[0], t2) || point_in_triangle_2d(t2[0], t1)
}

/// Exact closed segment–triangle intersection (the triangle must have
/// non-zero area), including segments lying in the triangle's plane.
pub fn intersect_segment_triangle(p: Vec3, q: Vec3, t: Triangle) -> bool {
    let [a, b, c] = t;
    let sp = orient3d(a, b, c, p);
    let sq = orient3d(a, b, c, q);
    if sp * sq > 0 {
        return false;
    }
    if sp == 0 && sq == 0 {
        let axis = drop_axis(t);
        let t2 = t.map(|v| project(v, axis));
        let (p2, q2) = (project(p, axis), project(q, axis));
        return point_in_triangle_2d(p2, t2)
            || point_in_triangle_2d(q2, t2)
            || (0..3).any(|i| intersect_segment_segment_2d(p2, q2, t2[i], t2[(i + 1) % 3]));
    }
    // The line pq crosses the plane inside [p, q]; the crossing is in the
    // triangle iff the line passes on the same side of all three edges.
    let o = [
        orient3d(p, q, a, b),
        orient3d(p, q, b, c),
        orient3d(p, q, c, a),
    ];
    !(o.contains(&1) && o.contains(&-1))
}

/// The baseline: six exact edge tests, or the 2D test when coplanar.
pub fn intersect_triangle_triangle_edges(t1: Triangle, t2: Triangle) -> bool {
    if is_degenerate(t1) || is_degenerate(t2) {
        return false;
    }
    let coplanar = t1.iter().all(|&p| orient3d(t2[0], t2[1], t2[2], p) == 0);
    if coplanar {
        let axis = drop_axis(t2);
        return intersect_triangle_triangle_2d(
            t1.map(|v| project(v, axis)),
            t2.map(|v| project(v, axis)),
        );
    }
    (0..3).any(|i| intersect_segment_triangle(t1[i], t1[(i + 1) % 3], t2))
        || (0..3).any(|i| intersect_segment_triangle(t2[i], t2[(i + 1) % 3], t1))
}

/// Guigue–Devillers exact triangle–triangle overlap (closed triangles).
pub fn intersect_triangle_triangle(t1: Triangle, t2: Triangle) -> bool {
    if is_degenerate(t1) || is_degenerate(t2) {
        return false;
    }
    let [p1, q1, r1] = t1;
    let [p2, q2, r2] = t2;
    // Signs of T1's corners against T2's plane.
    let dp1 = orient3d(p2, q2, p1, r2);
    let dq1 = orient3d(p2, q2, q1, r2);
    let dr1 = orient3d(p2, q2, r1, r2);
    if dp1 * dq1 > 0 && dp1 * dr1 > 0 {
        return false;
    }
    // Signs of T2's corners against T1's plane.
    let dp2 = orient3d(q1, r1, p2, p1);
    let dq2 = orient3d(q1, r1, q2, p1);
    let dr2 = orient3d(q1, r1, r2, p1);
    if dp2 * dq2 > 0 && dp2 * dr2 > 0 {
        return false;
    }
    let s2 = [dp2, dq2, dr2];
    let t = |a: [Vec3; 3], b: [Vec3; 3], s: [i32; 3]| gd_tri_tri_3d(a, b, s, t1, t2);
    if dp1 > 0 {
        if dq1 > 0 {
            t([r1, p1, q1], [p2, r2, q2], [dp2, dr2, dq2])
        } else if dr1 > 0 {
            t([q1, r1, p1], [p2, r2, q2], [dp2, dr2, dq2])
        } else {
            t([p1, q1, r1], [p2, q2, r2], s2)
        }
    } else if dp1 < 0 {
        if dq1 < 0 {
            t([r1, p1, q1], [p2, q2, r2], s2)
        } else if dr1 < 0 {
            t([q1, r1, p1], [p2, q2, r2], s2)
        } else {
            t([p1, q1, r1], [p2, r2, q2], [dp2, dr2, dq2])
        }
    } else if dq1 < 0 {
        if dr1 >= 0 {
            t([q1, r1, p1], [p2, r2, q2], [dp2, dr2, dq2])
        } else {
            t([p1, q1, r1], [p2, q2, r2], s2)
        }
    } else if dq1 > 0 {
        if dr1 > 0 {
            t([p1, q1, r1], [p2, r2, q2], [dp2, dr2, dq2])
        } else {
            t([q1, r1, p1], [p2, q2, r2], s2)
        }
    } else if dr1 > 0 {
        t([r1, p1, q1], [p2, q2, r2], s2)
    } else if dr1 < 0 {
        t([r1, p1, q1], [p2, r2, q2], [dp2, dr2, dq2])
    } else {
        coplanar(t1, t2)
    }
}

fn coplanar(t1: Triangle, t2: Triangle) -> bool {
    let axis = drop_axis(t1);
    intersect_triangle_triangle_2d(t1.map(|v| project(v, axis)), t2.map(|v| project(v, axis)))
}

/// GD's `TRI_TRI_3D`: T1 is permuted so `p1` is alone on its side of T2's
/// plane; now permute T2 the same way and check the interval overlap.
fn gd_tri_tri_3d(a: [Vec3; 3], b: [Vec3; 3], s: [i32; 3], t1: Triangle, t2: Triangle) -> bool {
    let [p1, q1, r1] = a;
    let [p2, q2, r2] = b;
    let [dp2, dq2, dr2] = s;
    let c = check_min_max;
    if dp2 > 0 {
        if dq2 > 0 {
            c([p1, r1, q1], [r2, p2, q2])
        } else if dr2 > 0 {
            c([p1, r1, q1], [q2, r2, p2])
        } else {
            c([p1, q1, r1], [p2, q2, r2])
        }
    } else if dp2 < 0 {
        if dq2 < 0 {
            c([p1, q1, r1], [r2, p2, q2])
        } else if dr2 < 0 {
            c([p1, q1, r1], [q2, r2, p2])
        } else {
            c([p1, r1, q1], [p2, q2, r2])
        }
    } else if dq2 < 0 {
        if dr2 >= 0 {
            c([p1, r1, q1], [q2, r2, p2])
        } else {
            c([p1, q1, r1], [p2, q2, r2])
        }
    } else if dq2 > 0 {
        if dr2 > 0 {
            c([p1, r1, q1], [p2, q2, r2])
        } else {
            c([p1, q1, r1], [q2, r2, p2])
        }
    } else if dr2 > 0 {
        c([p1, q1, r1], [r2, p2, q2])
    } else if dr2 < 0 {
        c([p1, r1, q1], [r2, p2, q2])
    } else {
        coplanar(t1, t2)
    }
}

fn check_min_max(a: [Vec3; 3], b: [Vec3; 3]) -> bool {
    let [p1, q1, r1] = a;
    let [p2, q2, r2] = b;
    orient3d(p2, p1, q2, q1) <= 0 && orient3d(p2, r1, r2, p1) <= 0
}

/// The tutorial's `RetaCruzaTriangulo` in f32: does segment `AB` cross
/// triangle `CDE`?
pub fn intersect_segment_triangle_tutorial(a: Vec3, b: Vec3, c: Vec3, d: Vec3, e: Vec3) -> bool {
    let ab = b - a;
    let cd = d - c;
    let ce = e - c;
    let det = cd.x * (ce.y * ab.z - ab.y * ce.z)
        + cd.y * (ab.x * ce.z - ce.x * ab.z)
        + cd.z * (ce.x * ab.y - ab.x * ce.y);
    if det == 0.0 {
        return false;
    }
    let invdet = -1.0 / det;
    let m = [
        -ce.y * ab.z + ce.z * ab.y,
        cd.y * ab.z - cd.z * ab.y,
        cd.y * ce.z - cd.z * ce.y,
        -ce.z * ab.x + ab.z * ce.x,
        cd.z * ab.x - ab.z * cd.x,
        cd.z * ce.x - ce.z * cd.x,
        ce.y * ab.x - ce.x * ab.y,
        -cd.y * ab.x + cd.x * ab.y,
        -cd.y * ce.x + cd.x * ce.y,
    ];
    let ca = a - c;
    let alpha = (m[0] * ca.x + m[3] * ca.y + m[6] * ca.z) * invdet;
    let beta = (m[1] * ca.x + m[4] * ca.y + m[7] * ca.z) * invdet;
    let delta = (m[2] * ca.x + m[5] * ca.y + m[8] * ca.z) * invdet;
    (0.0..=1.0).contains(&delta) && alpha >= 0.0 && beta >= 0.0 && alpha + beta <= 1.0
}

/// The tutorial's triangle test: edges A0A1, A0A2, A1A2 against B, then
/// B0B1, B0B2 against A; `six_edges` adds B1B2 (the one it calls redundant).
pub fn intersect_triangle_triangle_tutorial(a: Triangle, b: Triangle, six_edges: bool) -> bool {
    let s = intersect_segment_triangle_tutorial;
    s(a[0], a[1], b[0], b[1], b[2])
        || s(a[0], a[2], b[0], b[1], b[2])
        || s(a[1], a[2], b[0], b[1], b[2])
        || s(b[0], b[1], a[0], a[1], a[2])
        || s(b[0], b[2], a[0], a[1], a[2])
        || (six_edges && s(b[1], b[2], a[0], a[1], a[2]))
}

/// Separating-axis test in f64 (17 axes: both normals, nine edge cross
/// products and six in-plane edge normals). Not exact — rounding decides
/// touching pairs — but independent of the orientation predicates, so the
/// property tests use it as a third opinion on pairs in general position.
pub fn intersect_triangle_triangle_sat_f64(t1: Triangle, t2: Triangle) -> bool {
    let a = t1.map(Vec3::as_dvec3);
    let b = t2.map(Vec3::as_dvec3);
    let ea = [a[1] - a[0], a[2] - a[1], a[0] - a[2]];
    let eb = [b[1] - b[0], b[2] - b[1], b[0] - b[2]];
    let na = ea[0].cross(ea[1]);
    let nb = eb[0].cross(eb[1]);
    let mut axes = vec![na, nb];
    for x in ea {
        for y in eb {
            axes.push(x.cross(y));
        }
    }
    for x in ea {
        axes.push(na.cross(x));
    }
    for y in eb {
        axes.push(nb.cross(y));
    }
    let range = |t: &[DVec3; 3], axis: DVec3| {
        let d = t.map(|p| p.dot(axis));
        (d[0].min(d[1]).min(d[2]), d[0].max(d[1]).max(d[2]))
    };
    !axes.into_iter().any(|axis| {
        let (lo1, hi1) = range(&a, axis);
        let (lo2, hi2) = range(&b, axis);
        hi1 < lo2 || hi2 < lo1
    })
}

/// The 15 orientation determinants the predicates' decisions depend on (six
/// corner-vs-plane, nine edge-vs-edge), each divided by `scale` so the
/// caller can compare them with a rounding bound. Returns the smallest
/// `|det| / bound`, where `bound` is an estimate of the f32 evaluation error
/// of that determinant when every coordinate carries an absolute error of
/// `coord_error` (rounding of a pose applied in f32). Below 1, f32 and exact
/// evaluations may disagree: the pair is "within rounding of touching".
pub fn f32_decision_margin(t1: Triangle, t2: Triangle, coord_error: f64) -> f64 {
    let eps32 = f64::from(f32::EPSILON);
    let mut margin = f64::INFINITY;
    let mut check = |a: Vec3, b: Vec3, c: Vec3, d: Vec3| {
        let (det, permanent) = orient3d_f64(a, b, c, d);
        let (a, b, c, d) = (a.as_dvec3(), b.as_dvec3(), c.as_dvec3(), d.as_dvec3());
        let l = (a - d).length().max((b - d).length()).max((c - d).length());
        let bound = 16.0 * eps32 * permanent + 12.0 * coord_error * l * l;
        margin = margin.min(det.abs() / bound.max(f64::MIN_POSITIVE));
    };
    for p in t1 {
        check(t2[0], t2[1], t2[2], p);
    }
    for p in t2 {
        check(t1[0], t1[1], t1[2], p);
    }
    for i in 0..3 {
        for j in 0..3 {
            check(t1[i], t1[(i + 1) % 3], t2[j], t2[(j + 1) % 3]);
        }
    }
    margin
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn v(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3::new(x, y, z)
    }

    const T: Triangle = [Vec3::ZERO, Vec3::X, Vec3::Y];

    fn all_agree(a: Triangle, b: Triangle) -> bool {
        let gd = intersect_triangle_triangle(a, b);
        assert_eq!(gd, intersect_triangle_triangle_edges(a, b), "{a:?} {b:?}");
        assert_eq!(gd, intersect_triangle_triangle(b, a), "swapped {a:?} {b:?}");
        gd
    }

    #[test]
    fn hand_made_cases() {
        // Crossing: a vertical triangle through the middle.
        assert!(all_agree(
            T,
            [v(0.2, 0.2, -1.0), v(0.3, 0.2, 1.0), v(0.2, 0.3, 1.0)]
        ));
        // Touching at an edge: a vertical triangle standing on the x axis.
        assert!(all_agree(
            T,
            [v(0.2, 0.0, 0.0), v(0.6, 0.0, 0.0), v(0.4, 0.0, 1.0)]
        ));
        // Touching at a vertex: a corner on the interior from above.
        assert!(all_agree(
            T,
            [v(0.25, 0.25, 0.0), v(1.0, 1.0, 1.0), v(0.0, 1.0, 1.0)]
        ));
        // Vertex on vertex.
        assert!(all_agree(
            T,
            [v(1.0, 0.0, 0.0), v(2.0, 0.0, 1.0), v(2.0, 1.0, 1.0)]
        ));
        // Coplanar overlapping.
        assert!(all_agree(
            T,
            [v(0.2, 0.2, 0.0), v(1.2, 0.2, 0.0), v(0.2, 1.2, 0.0)]
        ));
        // Coplanar, one inside the other.
        assert!(all_agree(
            T,
            [v(0.1, 0.1, 0.0), v(0.2, 0.1, 0.0), v(0.1, 0.2, 0.0)]
        ));
        // Coplanar disjoint.
        assert!(!all_agree(
            T,
            [v(0.6, 0.6, 0.0), v(1.6, 0.6, 0.0), v(0.6, 1.6, 0.0)]
        ));
        // Parallel, a hair apart.
        assert!(!all_agree(T, T.map(|p| p + v(0.0, 0.0, 1e-6))));
        // Not coplanar, disjoint but close: just below the hypotenuse.
        assert!(!all_agree(
            T,
            [v(0.6, 0.6, -1.0), v(0.6, 0.6, 1.0), v(2.0, 2.0, 0.0)]
        ));
    }

    #[test]
    fn tutorial_misses_coplanar_and_edge_cases() {
        let coplanar = [v(0.2, 0.2, 0.0), v(1.2, 0.2, 0.0), v(0.2, 1.2, 0.0)];
        assert!(intersect_triangle_triangle(T, coplanar));
        assert!(!intersect_triangle_triangle_tutorial(T, coplanar, false));
        assert!(!intersect_triangle_triangle_tutorial(T, coplanar, true));
        // B lies on A's plane with only edge B1B2 inside it... an edge lying
        // in the plane gives a zero determinant, so only A's edges can see it.
        let edge_in_plane = [v(0.3, 0.3, 1.0), v(-0.5, 0.25, 0.0), v(1.5, 0.25, 0.0)];
        assert!(intersect_triangle_triangle(T, edge_in_plane));
        // A crossing found by the sixth edge only is impossible in general
        // position (see the property test below).
        let crossing = [v(0.2, 0.2, -1.0), v(0.3, 0.2, 1.0), v(0.2, 0.3, 1.0)];
        assert!(intersect_triangle_triangle_tutorial(T, crossing, false));
    }

    #[test]
    fn orientation_is_exact_near_zero() {
        // Four nearly coplanar points: the f64 filter is unsure, the integer
        // fallback decides.
        let a = v(0.1, 0.2, 0.3);
        let b = v(1.7, 0.3, 0.9);
        let c = v(0.5, 2.1, 0.7);
        for k in -3..=3 {
            // d = a + (b - a) + (c - a) rounded, nudged by k ulps in z.
            let mut d = b + c - a;
            d.z = f32::from_bits((d.z.to_bits() as i32 + k) as u32);
            let s = orient3d(a, b, c, d);
            assert_eq!(s, orient3d(b, c, a, d), "cyclic {k}");
            assert_eq!(s, -orient3d(b, a, c, d), "swap {k}");
        }
        assert_eq!(orient3d(T[0], T[1], T[2], v(0.3, 0.3, 0.0)), 0);
        assert_eq!(orient2d([0.0, 0.0], [1.0, 0.0], [0.5, 0.0]), 0);
        assert_eq!(orient2d([0.0, 0.0], [1.0, 0.0], [0.5, 1e-30]), 1);
    }

    fn coord() -> impl Strategy<Value = f32> {
        (-8i32..=8).prop_map(|i| i as f32 * 0.125)
    }

    fn point() -> impl Strategy<Value = Vec3> {
        prop_oneof![
            (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_map(|(x, y, z)| v(x, y, z)),
            // Grid points: many exact touches and coplanar pairs.
            (coord(), coord(), coord()).prop_map(|(x, y, z)| v(x, y, z)),
        ]
    }

    fn triangle() -> impl Strategy<Value = Triangle> {
        [point(), point(), point()].prop_filter("non-degenerate", |t| !is_degenerate(*t))
    }

    /// Coplanar pairs on z = k/8 with random in-plane corners.
    fn coplanar_pair() -> impl Strategy<Value = (Triangle, Triangle)> {
        let p2 = || (coord(), coord());
        (coord(), [p2(), p2(), p2()], [p2(), p2(), p2()])
            .prop_map(|(z, a, b)| (a.map(|(x, y)| v(x, y, z)), b.map(|(x, y)| v(x, y, z))))
            .prop_filter("non-degenerate", |(a, b)| {
                !is_degenerate(*a) && !is_degenerate(*b)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12_000))]

        #[test]
        fn guigue_devillers_matches_edge_baseline(a in triangle(), b in triangle()) {
            let gd = intersect_triangle_triangle(a, b);
            prop_assert_eq!(gd, intersect_triangle_triangle_edges(a, b));
            prop_assert_eq!(gd, intersect_triangle_triangle(b, a));
            prop_assert_eq!(gd, intersect_triangle_triangle([a[1], a[2], a[0]], [b[0], b[2], b[1]]));
            // Away from touching, the inexact SAT and the tutorial's five
            // edges agree too.
            if f32_decision_margin(a, b, 0.0) > 1.0 {
                prop_assert_eq!(gd, intersect_triangle_triangle_sat_f64(a, b));
                prop_assert_eq!(gd, intersect_triangle_triangle_tutorial(a, b, false));
            }
        }

        #[test]
        fn coplanar_pairs_match_baseline((a, b) in coplanar_pair()) {
            let gd = intersect_triangle_triangle(a, b);
            prop_assert_eq!(gd, intersect_triangle_triangle_edges(a, b));
            prop_assert_eq!(gd, intersect_triangle_triangle(b, a));
            // The tutorial never sees a coplanar overlap.
            prop_assert!(!intersect_triangle_triangle_tutorial(a, b, true));
        }
    }
}
