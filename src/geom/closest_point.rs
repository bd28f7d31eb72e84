//! Closest point on a triangle, with the Voronoi feature it lies on.
//!
//! # Method
//!
//! Ericson, *Real-Time Collision Detection* (2005) §5.1.5,
//! `ClosestPtPointTriangle`: the space around a triangle `ABC` splits into
//! seven Voronoi regions (three vertex regions, three edge regions, the face
//! region). The regions are tested with dot products in a fixed order —
//! vertex A, vertex B, edge AB, vertex C, edge AC, edge BC, face — and the
//! query point is projected onto the feature of the first region that
//! contains it. Sundholm (2010), Alg. 1 and appendix A
//! (`shared/papers/sundholm-2010-distance-fields-opencl.txt`) ports the same
//! routine to OpenCL to build signed distance fields; our WGSL shader mirrors
//! [`closest_point_triangle`] line for line, so keep the order and the
//! arithmetic identical when editing either side.
//!
//! Corner naming: Ericson's `A, B, C` are our corners `0, 1, 2`, so his edge
//! AB is [`TriangleFeature::Edge01`], AC is [`TriangleFeature::Edge20`] and
//! BC is [`TriangleFeature::Edge12`].
//!
//! # Additions to Ericson
//!
//! * **Slivers and degenerate triangles.** Ericson's barycentrics `va, vb,
//!   vc` are differences of products of dot products; for a thin triangle
//!   they cancel catastrophically (an error of 8% of the triangle's length
//!   was seen for a sliver 4e-5 as high as long, see
//!   `sliver_face_point_is_accurate`) and for collinear
//!   corners their signs are noise. A triangle whose smallest height is
//!   below 1% of its longest edge (`(2·area)² <= SLIVER·longest⁴`, checked
//!   first) instead takes the minimum over its three edge segments and the
//!   projection onto its plane when that falls inside; the plane normal
//!   `ab × ac` stays accurate for slivers. The same fallback serves when a
//!   denominator in Ericson's branches (squared edge length, or
//!   `va + vb + vc` = `|ab × ac|²` for the face) is not `> 0`, which
//!   underflow at tiny scales or rounding for far points could cause; so no
//!   input gives NaN.
//! * **Precision.** In f32, Ericson's region boundaries carry an error of
//!   about `ε·D²/h` (ε = f32 epsilon, `D` the distance from `p` to the
//!   corners, `h` the smallest triangle height), from the cancellation in
//!   `d1*d4 - d3*d2` and friends. For well-shaped triangles that is far
//!   below the distance; for slivers queried from afar it dominates. The
//!   property tests state this bound explicitly.
//! * **Feature snapping.** The feature picks the normal used for the sign of
//!   the distance (face normal, edge or vertex pseudo-normal, Bærentzen &
//!   Aanæs). Only the pseudo-normal is correct when the closest point is on
//!   an edge or vertex; the face normal of one of the adjacent triangles can
//!   give the wrong sign there. Rounding can put a point that is really on an
//!   edge into the face region (or onto an edge end instead of the vertex), so
//!   after classification every barycentric weight `<= SNAP_WEIGHT` (1e-6,
//!   weights sum to 1 so this is relative to the triangle) is treated as zero
//!   and the feature is named after the corners whose weights remain. The
//!   point itself is left as Ericson computes it; it is within 1e-6 of the
//!   triangle's size of the reported feature.

use glam::{DVec3, Vec3};

/// A Voronoi feature of a triangle.
///
/// The discriminant is the index of the feature's normal among the 7 normals
/// stored per triangle: `[face, edge(0,1), edge(1,2), edge(2,0), v0, v1, v2]`.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum TriangleFeature {
    Face = 0,
    Edge01 = 1,
    Edge12 = 2,
    Edge20 = 3,
    Vertex0 = 4,
    Vertex1 = 5,
    Vertex2 = 6,
}

impl TriangleFeature {
    pub const ALL: [TriangleFeature; 7] = [
        Self::Face,
        Self::Edge01,
        Self::Edge12,
        Self::Edge20,
        Self::Vertex0,
        Self::Vertex1,
        Self::Vertex2,
    ];

    /// The feature with normal index `i`, as read back from the GPU.
    pub fn from_index(i: u32) -> Option<Self> {
        Self::ALL.get(i as usize).copied()
    }

    /// Human-readable name for the UI: `"face"`, `"edge 0-1"`, `"vertex 2"`, ...
    pub fn name(self) -> &'static str {
        match self {
            Self::Face => "face",
            Self::Edge01 => "edge 0-1",
            Self::Edge12 => "edge 1-2",
            Self::Edge20 => "edge 2-0",
            Self::Vertex0 => "vertex 0",
            Self::Vertex1 => "vertex 1",
            Self::Vertex2 => "vertex 2",
        }
    }

    /// `"face"`, `"edge"` or `"vertex"`.
    pub fn kind(self) -> &'static str {
        match self {
            Self::Face => "face",
            Self::Edge01 | Self::Edge12 | Self::Edge20 => "edge",
            Self::Vertex0 | Self::Vertex1 | Self::Vertex2 => "vertex",
        }
    }

    /// The triangle corners (0, 1, 2) that span this feature.
    pub fn corners(self) -> &'static [usize] {
        match self {
            Self::Face => &[0, 1, 2],
            Self::Edge01 => &[0, 1],
            Self::Edge12 => &[1, 2],
            Self::Edge20 => &[2, 0],
            Self::Vertex0 => &[0],
            Self::Vertex1 => &[1],
            Self::Vertex2 => &[2],
        }
    }
}

/// Result of [`closest_point_triangle`].
#[derive(Clone, Copy, Debug)]
pub struct ClosestPoint {
    /// The closest point on the triangle.
    pub point: Vec3,
    /// `|p - point|²`.
    pub distance_squared: f32,
    /// The feature `point` lies on (after snapping, see the module docs).
    pub feature: TriangleFeature,
    /// Barycentric weights of `point` on the triangle's corners (summing
    /// to 1), before the feature snapping.
    pub barycentric: [f32; 3],
}

/// Barycentric weights at or below this count as zero when naming the
/// feature (see the module docs, "Feature snapping").
pub const SNAP_WEIGHT: f32 = 1e-6;

/// A triangle with `(2·area)² <= SLIVER · longest_edge⁴`, i.e. smallest
/// height below 1% of its longest edge, takes the sliver path (module docs).
pub const SLIVER: f32 = 1e-4;

/// Feature spanned by the corners whose weight exceeds [`SNAP_WEIGHT`],
/// indexed by the bit mask `w0 | w1 << 1 | w2 << 2`. Mask 0 cannot occur
/// because the weights sum to 1; it maps to `Face` only to make the table
/// total. The shader holds the same table.
const FEATURE_BY_MASK: [TriangleFeature; 8] = [
    TriangleFeature::Face,
    TriangleFeature::Vertex0,
    TriangleFeature::Vertex1,
    TriangleFeature::Edge01,
    TriangleFeature::Vertex2,
    TriangleFeature::Edge20,
    TriangleFeature::Edge12,
    TriangleFeature::Face,
];

fn snapped_feature(w0: f32, w1: f32, w2: f32) -> TriangleFeature {
    let mask = u32::from(w0 > SNAP_WEIGHT)
        | (u32::from(w1 > SNAP_WEIGHT) << 1)
        | (u32::from(w2 > SNAP_WEIGHT) << 2);
    FEATURE_BY_MASK[mask as usize]
}

fn result(p: Vec3, point: Vec3, w0: f32, w1: f32, w2: f32) -> ClosestPoint {
    ClosestPoint {
        point,
        distance_squared: (p - point).length_squared(),
        feature: snapped_feature(w0, w1, w2),
        barycentric: [w0, w1, w2],
    }
}

/// Closest point to `p` on the triangle `tri` and the feature it lies on.
///
/// Ericson §5.1.5 in his region order; see the module docs for the
/// degenerate-triangle fallback and the feature snapping.
#[expect(
    clippy::neg_cmp_op_on_partial_ord,
    reason = "`!(x > 0.0)` also sends NaN (overflow, inf input) to the fallback"
)]
pub fn closest_point_triangle(p: Vec3, tri: [Vec3; 3]) -> ClosestPoint {
    let [a, b, c] = tri;
    let ab = b - a;
    let ac = c - a;

    // Ericson's barycentrics come from differences of products of dot
    // products, which lose all precision for slivers (and are pure noise
    // for collinear corners); those go to a projection-based fallback.
    // `|ab × ac|² = (2·area)²` is compared with the longest edge to the 4th.
    let n2 = ab.cross(ac).length_squared();
    let longest2 = ab
        .length_squared()
        .max(ac.length_squared())
        .max((c - b).length_squared());
    if !(n2 > SLIVER * longest2 * longest2) {
        return closest_point_triangle_sliver(p, tri);
    }

    // Vertex region A.
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return result(p, a, 1.0, 0.0, 0.0);
    }

    // Vertex region B.
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return result(p, b, 0.0, 1.0, 0.0);
    }

    // Edge region AB. `d1 - d3` is |ab|².
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let denom = d1 - d3;
        if !(denom > 0.0) {
            return closest_point_triangle_sliver(p, tri);
        }
        let v = d1 / denom;
        return result(p, a + v * ab, 1.0 - v, v, 0.0);
    }

    // Vertex region C.
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return result(p, c, 0.0, 0.0, 1.0);
    }

    // Edge region AC. `d2 - d6` is |ac|².
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let denom = d2 - d6;
        if !(denom > 0.0) {
            return closest_point_triangle_sliver(p, tri);
        }
        let w = d2 / denom;
        return result(p, a + w * ac, 1.0 - w, 0.0, w);
    }

    // Edge region BC. The denominator is |bc|².
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let denom = (d4 - d3) + (d5 - d6);
        if !(denom > 0.0) {
            return closest_point_triangle_sliver(p, tri);
        }
        let w = (d4 - d3) / denom;
        return result(p, b + w * (c - b), 0.0, 1.0 - w, w);
    }

    // Face region. `va + vb + vc` is |ab × ac|², zero for a degenerate
    // triangle (and then the tests above are not a partition of space).
    let denom = va + vb + vc;
    if !(denom > 0.0) {
        return closest_point_triangle_sliver(p, tri);
    }
    let inv = 1.0 / denom;
    let v = vb * inv;
    let w = vc * inv;
    result(p, a + ab * v + ac * w, 1.0 - v - w, v, w)
}

/// Closest point for slivers and degenerate triangles, and the fallback
/// wherever a denominator in Ericson's branches is not `> 0`.
///
/// The minimum over the three edge segments and, if the triangle has an
/// area and the projection of `p` onto its plane falls inside it, that
/// projection. The plane normal `n = ab × ac` keeps its direction well even
/// for slivers, unlike Ericson's `va, vb, vc`. The barycentric weights of
/// the projection are the sub-triangle areas `((c_j - q) × (c_k - q))·n / |n|²`.
fn closest_point_triangle_sliver(p: Vec3, tri: [Vec3; 3]) -> ClosestPoint {
    let mut best: Option<ClosestPoint> = None;
    for (i, j) in [(0, 1), (1, 2), (2, 0)] {
        let e = tri[j] - tri[i];
        let ee = e.length_squared();
        // A zero-length edge is its start point.
        let t = if ee > 0.0 {
            ((p - tri[i]).dot(e) / ee).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let mut w = [0.0; 3];
        w[i] = 1.0 - t;
        w[j] = t;
        let candidate = result(p, tri[i] + t * e, w[0], w[1], w[2]);
        if best.is_none_or(|b| candidate.distance_squared < b.distance_squared) {
            best = Some(candidate);
        }
    }
    let [a, b, c] = tri;
    let n = (b - a).cross(c - a);
    let nn = n.length_squared();
    if nn > 0.0 {
        let q = p - n * (n.dot(p - a) / nn);
        let w = [
            (b - q).cross(c - q).dot(n) / nn,
            (c - q).cross(a - q).dot(n) / nn,
            (a - q).cross(b - q).dot(n) / nn,
        ];
        if w.iter().all(|&x| x >= 0.0) {
            let candidate = result(p, q, w[0], w[1], w[2]);
            if best.is_none_or(|b| candidate.distance_squared < b.distance_squared) {
                best = Some(candidate);
            }
        }
    }
    best.expect("three edges were tried")
}

/// Squared distance from `p` to the segment `[a, b]`, in f64.
pub fn distance_squared_point_segment_f64(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let e = b - a;
    let ee = e.length_squared();
    let t = if ee > 0.0 {
        ((p - a).dot(e) / ee).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p - (a + t * e)).length_squared()
}

/// Brute-force squared distance from `p` to a triangle in f64: the baseline
/// the f32 kernel is tested against. It takes the minimum of the plane
/// distance (only if the projection of `p` falls inside the triangle, by the
/// sign of the three sub-triangle normals) and the three segment distances,
/// so it needs no region logic and handles degenerate triangles.
pub fn distance_squared_point_triangle_f64(p: DVec3, tri: [DVec3; 3]) -> f64 {
    let [a, b, c] = tri;
    let mut best = distance_squared_point_segment_f64(p, a, b)
        .min(distance_squared_point_segment_f64(p, b, c))
        .min(distance_squared_point_segment_f64(p, c, a));
    let n = (b - a).cross(c - a);
    let nn = n.length_squared();
    if nn > 0.0 {
        let h = n.dot(p - a);
        let q = p - n * (h / nn);
        let inside = (b - q).cross(c - q).dot(n) >= 0.0
            && (c - q).cross(a - q).dot(n) >= 0.0
            && (a - q).cross(b - q).dot(n) >= 0.0;
        if inside {
            best = best.min(h * h / nn);
        }
    }
    best
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    fn v(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3::new(x, y, z)
    }

    /// Right triangle in the z = 0 plane, corners 0 = origin, 1 = +x, 2 = +y.
    const TRI: [Vec3; 3] = [Vec3::ZERO, Vec3::X, Vec3::Y];

    #[test]
    fn each_voronoi_region_is_classified() {
        let cases = [
            (
                v(0.25, 0.25, 1.0),
                v(0.25, 0.25, 0.0),
                TriangleFeature::Face,
            ),
            (v(0.5, -1.0, 0.3), v(0.5, 0.0, 0.0), TriangleFeature::Edge01),
            (v(1.0, 1.0, -0.5), v(0.5, 0.5, 0.0), TriangleFeature::Edge12),
            (v(-1.0, 0.5, 0.0), v(0.0, 0.5, 0.0), TriangleFeature::Edge20),
            (
                v(-1.0, -1.0, 2.0),
                v(0.0, 0.0, 0.0),
                TriangleFeature::Vertex0,
            ),
            (
                v(2.0, -0.5, 0.0),
                v(1.0, 0.0, 0.0),
                TriangleFeature::Vertex1,
            ),
            (
                v(-0.5, 3.0, 1.0),
                v(0.0, 1.0, 0.0),
                TriangleFeature::Vertex2,
            ),
        ];
        for (i, (p, expected_point, expected_feature)) in cases.into_iter().enumerate() {
            let r = closest_point_triangle(p, TRI);
            assert_eq!(r.feature, expected_feature, "case {i}");
            assert!(r.point.distance(expected_point) < 1e-6, "case {i}: {r:?}");
            let d2 = p.distance_squared(expected_point);
            assert!((r.distance_squared - d2).abs() < 1e-5, "case {i}: {r:?}");
        }
    }

    #[test]
    fn near_edge_face_result_snaps_to_the_edge() {
        // Projection lands 1e-8 inside edge 0-1: Ericson says face, the
        // weight of corner 2 is below SNAP_WEIGHT, so we report the edge.
        let r = closest_point_triangle(v(0.5, 1e-8, 1.0), TRI);
        assert_eq!(r.feature, TriangleFeature::Edge01);
        // And an edge parameter of 1e-8 reports the vertex.
        let r = closest_point_triangle(v(1e-8, -1.0, 0.0), TRI);
        assert_eq!(r.feature, TriangleFeature::Vertex0);
    }

    #[test]
    fn degenerate_triangles_give_finite_exact_results() {
        let p = v(0.5, 1.0, 0.0);
        let cases: [[Vec3; 3]; 5] = [
            [Vec3::ZERO, Vec3::ZERO, Vec3::X],       // corners 0 and 1 coincide
            [Vec3::ZERO, Vec3::X, Vec3::ZERO],       // corners 0 and 2 coincide
            [Vec3::X, Vec3::ZERO, Vec3::ZERO],       // corners 1 and 2 coincide
            [Vec3::ZERO, Vec3::X, v(2.0, 0.0, 0.0)], // collinear
            [Vec3::ONE, Vec3::ONE, Vec3::ONE],       // a point
        ];
        for (i, tri) in cases.into_iter().enumerate() {
            let r = closest_point_triangle(p, tri);
            let exact = distance_squared_point_triangle_f64(p.as_dvec3(), tri.map(Vec3::as_dvec3));
            assert!(
                r.point.is_finite() && r.distance_squared.is_finite(),
                "case {i}"
            );
            assert!(
                (f64::from(r.distance_squared) - exact).abs() < 1e-6,
                "case {i}: {r:?} vs {exact}"
            );
        }
    }

    /// Regression: before the sliver path, Ericson's face branch put the
    /// closest point of this query (which lies inside the triangle) 0.047
    /// away from it, 8% of the triangle's length (proptest-regressions).
    #[test]
    fn sliver_face_point_is_accurate() {
        let tri = [
            v(-0.35804567, -1.4424512, 0.80410004),
            v(-0.35804567, -1.5218916, 0.8040753),
            v(-0.35804567, -0.9174708, 0.8040753),
        ];
        let p = v(-0.35804567, -1.2464694, 0.8040871);
        let r = closest_point_triangle(p, tri);
        assert!(r.distance_squared.sqrt() < 1e-6, "{r:?}");
        assert_eq!(r.feature, TriangleFeature::Face);
    }

    #[test]
    fn feature_index_round_trips() {
        for f in TriangleFeature::ALL {
            assert_eq!(TriangleFeature::from_index(f as u32), Some(f));
            assert!(f.name().starts_with(f.kind()));
        }
        assert_eq!(TriangleFeature::from_index(7), None);
    }

    /// Triangle shapes that stress the f32 kernel; `scale` is a power of ten.
    pub(crate) fn triangle() -> impl Strategy<Value = [Vec3; 3]> {
        let unit = || prop::array::uniform3(-1.0f32..1.0);
        let corner = || unit().prop_map(Vec3::from_array);
        let general = [corner(), corner(), corner()];
        let sliver = (corner(), corner(), 0.0f32..1.0, corner(), -7i32..-1)
            .prop_map(|(a, b, t, off, e)| [a, b, a + t * (b - a) + off * 10f32.powi(e)]);
        let near_coincident = (corner(), corner(), corner(), -7i32..-1)
            .prop_map(|(a, b, off, e)| [a, b, a + off * 10f32.powi(e)]);
        let shape = prop_oneof![general, sliver, near_coincident];
        (shape, -3i32..4, corner(), any::<[bool; 2]>()).prop_map(|(tri, e, shift, rot)| {
            let s = 10f32.powi(e);
            let mut tri = tri.map(|c| c * s + shift * s);
            // Vary which corner plays which role.
            if rot[0] {
                tri.rotate_left(1);
            }
            if rot[1] {
                tri.swap(0, 1);
            }
            tri
        })
    }

    /// A query point: near a corner, an edge or the face, or far away.
    pub(crate) fn query(tri: [Vec3; 3]) -> impl Strategy<Value = Vec3> {
        let scale = (tri[1] - tri[0])
            .length()
            .max((tri[2] - tri[0]).length())
            .max(1e-30);
        (
            0.0f32..1.0,
            0.0f32..1.0,
            prop::array::uniform3(-1.0f32..1.0),
            -6i32..3,
        )
            .prop_map(move |(s, t, dir, e)| {
                let (s, t) = if s + t > 1.0 {
                    (1.0 - s, 1.0 - t)
                } else {
                    (s, t)
                };
                let on = tri[0] + s * (tri[1] - tri[0]) + t * (tri[2] - tri[0]);
                on + Vec3::from_array(dir) * scale * 10f32.powi(e)
            })
    }

    fn scale_of(tri: [Vec3; 3]) -> f64 {
        let d = tri.map(Vec3::as_dvec3);
        (d[1] - d[0])
            .length()
            .max((d[2] - d[1]).length())
            .max((d[0] - d[2]).length())
    }

    /// `1e-4` of (triangle size + distance), plus the f32 conditioning of
    /// Ericson's region tests, `ε·D²/h` (module docs, "Precision"), which
    /// only matters for slivers: `D` is the farthest corner from `p`, `h`
    /// the smallest height. Exactly collinear triangles (h = 0) are covered
    /// by `degenerate_triangles_give_finite_exact_results`.
    pub(crate) fn tolerance(tri: [Vec3; 3], p: Vec3, exact: f64) -> f64 {
        let t = tri.map(Vec3::as_dvec3);
        let scale = scale_of(tri);
        let h = (t[1] - t[0]).cross(t[2] - t[0]).length() / scale.max(f64::MIN_POSITIVE);
        let far = t
            .iter()
            .map(|c| c.distance(p.as_dvec3()))
            .fold(0.0, f64::max);
        1e-4 * (scale + exact) + 16.0 * f64::from(f32::EPSILON) * far * far / h
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn matches_f64_baseline((tri, p) in triangle().prop_flat_map(|t| (Just(t), query(t)))) {
            let r = closest_point_triangle(p, tri);
            let tri64 = tri.map(Vec3::as_dvec3);
            let exact = distance_squared_point_triangle_f64(p.as_dvec3(), tri64).sqrt();
            let tol = tolerance(tri, p, exact);
            let got = f64::from(r.distance_squared).sqrt();
            prop_assert!((got - exact).abs() <= tol, "distance {got} vs {exact}: {r:?}");

            // The point is on the triangle ...
            let point = r.point.as_dvec3();
            let off = distance_squared_point_triangle_f64(point, tri64).sqrt();
            prop_assert!(off <= tol, "point {off} off the triangle: {r:?}");
            // ... and on the reported feature.
            let corners: Vec<DVec3> = r.feature.corners().iter().map(|&i| tri64[i]).collect();
            let off_feature = match corners[..] {
                [c] => point.distance(c),
                [a, b] => distance_squared_point_segment_f64(point, a, b).sqrt(),
                _ => off,
            };
            prop_assert!(off_feature <= tol, "point {off_feature} off {}: {r:?}", r.feature.name());
        }
    }
}
