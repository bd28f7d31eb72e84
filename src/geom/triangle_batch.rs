//! Point–triangle squared distance for [`LANES`] triangles at once.
//!
//! # Method
//!
//! [`crate::geom::closest_point_triangle`] walks Ericson's Voronoi regions
//! with branches that depend on the data, which keeps a CPU from computing
//! several triangles side by side. This kernel computes the same distance
//! without branches, as the minimum of
//!
//! * the three edge-segment distances `|ap − clamp(ap·e / e·e, 0, 1) e|²`,
//!   and
//! * the plane distance `(ap·n̂)²` when `p` projects into the triangle, i.e.
//!   lies on the inner side of all three edges (`ap·(n × e) ≥ 0` for each
//!   edge `e` starting at corner `a`).
//!
//! Triangles are stored structure-of-arrays, one array of [`LANES`] values
//! per coordinate, so that every operation runs on all lanes with one vector
//! instruction; the loop over lanes is plain Rust that LLVM vectorises.
//! [`with_simd`] runs a computation with the widest vector instructions the
//! CPU has (detected at run time); the code is the same with and without
//! them and fuses no multiply-adds, so results are bit-identical.
//!
//! Edges and plane are the formulation Ericson's sliver fallback uses too,
//! so slivers and degenerate triangles need no special path: a zero-length
//! edge clamps to its start point, and a triangle without a plane normal
//! (collinear corners) has no face term. The result equals the exact distance
//! to float rounding, but not bit for bit the value of
//! `closest_point_triangle`, which stays the one callers report; this kernel
//! is for finding which triangles need that exact test.

use glam::Vec3;

/// Triangles per batch: one AVX-512 register of `f32` (two AVX2 ones).
pub const LANES: usize = 16;

/// One `f32` per lane. Every operation is a loop over the lanes, which LLVM
/// compiles to one AVX-512 instruction (two AVX2 ones, four SSE ones).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Lanes([f32; LANES]);

impl Lanes {
    #[inline(always)]
    fn splat(x: f32) -> Self {
        Lanes([x; LANES])
    }

    #[inline(always)]
    fn map2(self, other: Lanes, f: impl Fn(f32, f32) -> f32) -> Self {
        Lanes(std::array::from_fn(|l| f(self.0[l], other.0[l])))
    }

    /// `a < b ? a : b` per lane: one `minps`, unlike `f32::min`'s NaN rules.
    #[inline(always)]
    fn min(self, other: Lanes) -> Self {
        self.map2(other, |a, b| if a < b { a } else { b })
    }

    #[inline(always)]
    fn clamp01(self) -> Self {
        Lanes(self.0.map(|x| {
            let x = if x > 0.0 { x } else { 0.0 };
            if x < 1.0 { x } else { 1.0 }
        }))
    }
}

impl std::ops::Add for Lanes {
    type Output = Lanes;
    #[inline(always)]
    fn add(self, other: Lanes) -> Lanes {
        self.map2(other, |a, b| a + b)
    }
}

impl std::ops::Sub for Lanes {
    type Output = Lanes;
    #[inline(always)]
    fn sub(self, other: Lanes) -> Lanes {
        self.map2(other, |a, b| a - b)
    }
}

impl std::ops::Mul for Lanes {
    type Output = Lanes;
    #[inline(always)]
    fn mul(self, other: Lanes) -> Lanes {
        self.map2(other, |a, b| a * b)
    }
}

/// A vector per lane, structure-of-arrays.
#[derive(Clone, Copy, Debug)]
struct Lanes3 {
    x: Lanes,
    y: Lanes,
    z: Lanes,
}

impl Lanes3 {
    const ZERO: Lanes3 = Lanes3 {
        x: Lanes([0.0; LANES]),
        y: Lanes([0.0; LANES]),
        z: Lanes([0.0; LANES]),
    };

    #[inline(always)]
    fn splat(v: Vec3) -> Self {
        Lanes3 {
            x: Lanes::splat(v.x),
            y: Lanes::splat(v.y),
            z: Lanes::splat(v.z),
        }
    }

    fn set(&mut self, l: usize, v: Vec3) {
        (self.x.0[l], self.y.0[l], self.z.0[l]) = (v.x, v.y, v.z);
    }

    #[inline(always)]
    fn dot(self, o: Lanes3) -> Lanes {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    #[inline(always)]
    fn sub(self, o: Lanes3) -> Lanes3 {
        Lanes3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }

    #[inline(always)]
    fn scale(self, s: Lanes) -> Lanes3 {
        Lanes3 {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }
}

/// Up to [`LANES`] triangles, structure-of-arrays. Edge `i` runs from corner
/// `i` to corner `(i + 1) % 3`. Unused lanes repeat the first lane's triangle
/// (see [`TriangleBatch::pack`]).
#[derive(Clone, Copy, Debug)]
pub struct TriangleBatch {
    /// Start corner of each edge.
    start: [Lanes3; 3],
    /// Edge vectors.
    edge: [Lanes3; 3],
    /// `1 / |edge|²`, or 0 for a zero-length edge (its start is its closest
    /// point).
    inv_len2: [Lanes; 3],
    /// `n × edge` for the unit normal `n`: points into the triangle.
    inward: [Lanes3; 3],
    /// Unit normal, zero without a plane.
    normal: Lanes3,
    /// 0, or infinity for a triangle without a plane (no face term).
    face_penalty: Lanes,
}

impl TriangleBatch {
    /// Packs up to [`LANES`] triangles (at least one); unused lanes repeat
    /// the first triangle, so they never change a minimum.
    pub fn pack(triangles: &[[Vec3; 3]]) -> Self {
        assert!(
            (1..=LANES).contains(&triangles.len()),
            "1 to {LANES} triangles per batch"
        );
        let mut batch = TriangleBatch {
            start: [Lanes3::ZERO; 3],
            edge: [Lanes3::ZERO; 3],
            inv_len2: [Lanes::splat(0.0); 3],
            inward: [Lanes3::ZERO; 3],
            normal: Lanes3::ZERO,
            face_penalty: Lanes::splat(0.0),
        };
        for l in 0..LANES {
            batch.set(l, triangles.get(l).unwrap_or(&triangles[0]));
        }
        batch
    }

    fn set(&mut self, l: usize, tri: &[Vec3; 3]) {
        let normal = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize_or_zero();
        self.normal.set(l, normal);
        self.face_penalty.0[l] = if normal == Vec3::ZERO {
            f32::INFINITY
        } else {
            0.0
        };
        for i in 0..3 {
            let e = tri[(i + 1) % 3] - tri[i];
            let len2 = e.length_squared();
            self.start[i].set(l, tri[i]);
            self.edge[i].set(l, e);
            self.inward[i].set(l, normal.cross(e));
            self.inv_len2[i].0[l] = if len2 > 0.0 { 1.0 / len2 } else { 0.0 };
        }
    }

    /// Squared distance from `p` to each lane's triangle.
    #[inline(always)]
    pub fn distance_squared(&self, p: Vec3) -> [f32; LANES] {
        let p = Lanes3::splat(p);
        let mut edges = Lanes::splat(f32::INFINITY);
        // The smallest `ap · inward` over the edges: ≥ 0 inside.
        let mut inside = Lanes::splat(f32::INFINITY);
        for i in 0..3 {
            let ap = p.sub(self.start[i]);
            let t = (ap.dot(self.edge[i]) * self.inv_len2[i]).clamp01();
            let d = ap.sub(self.edge[i].scale(t));
            edges = edges.min(d.dot(d));
            inside = inside.min(ap.dot(self.inward[i]));
        }
        let h = p.sub(self.start[0]).dot(self.normal);
        let plane = h * h + self.face_penalty;
        let face = Lanes(std::array::from_fn(|l| {
            if inside.0[l] >= 0.0 {
                plane.0[l]
            } else {
                f32::INFINITY
            }
        }));
        edges.min(face).0
    }
}

/// Runs `f` with the widest vector instructions this CPU has enabled
/// (AVX-512 or AVX2, detected at run time), or as built (SSE2 on x86-64).
/// Mark the closure `#[inline(always)]`: inlined into the dispatching
/// function, it and the batch kernels it calls are compiled for those
/// instructions. Results do not depend on the path taken: the same IEEE
/// operations run, only more at once.
#[inline(always)]
pub fn with_simd<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        fn avx512<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        #[target_feature(enable = "avx2")]
        fn avx2<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: AVX-512F was detected on this CPU just above.
            return unsafe { avx512(f) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected on this CPU just above.
            return unsafe { avx2(f) };
        }
    }
    f()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::closest_point::tests::{query, tolerance, triangle};
    use crate::geom::{closest_point_triangle, distance_squared_point_triangle_f64};
    use proptest::prelude::*;

    /// A triangle for the other lanes, far from every test case.
    const FILLER: [Vec3; 3] = [
        Vec3::new(1e4, 0.0, 0.0),
        Vec3::new(1e4, 1.0, 0.0),
        Vec3::new(1e4, 0.0, 1.0),
    ];

    /// The test shapes of `closest_point_triangle` (general, slivers, nearly
    /// coincident corners) and exactly degenerate ones: collinear corners,
    /// two or three coincident corners.
    fn any_triangle() -> impl Strategy<Value = [Vec3; 3]> {
        let corner = || prop::array::uniform3(-1.0f32..1.0).prop_map(Vec3::from_array);
        let degenerate = (corner(), corner(), -1.0f32..2.0, 0usize..3).prop_map(|(a, b, t, k)| {
            let mut tri = [a, b, a + t * (b - a)];
            if k > 0 {
                tri[k] = tri[(k + 1) % 3];
            }
            tri
        });
        prop_oneof![4 => triangle(), 1 => degenerate]
    }

    /// The batch value of `tri` for `p`, in lane `lane` of a batch whose
    /// other lanes hold [`FILLER`]; also checks that the vector path gives
    /// the very bits of the portable one.
    fn batch_value(tri: [Vec3; 3], p: Vec3, lane: usize) -> f32 {
        let mut triangles = [FILLER; LANES];
        triangles[lane] = tri;
        let batch = TriangleBatch::pack(&triangles);
        let portable = batch.distance_squared(p);
        let vector = with_simd(
            #[inline(always)]
            || batch.distance_squared(p),
        );
        assert_eq!(
            portable.map(f32::to_bits),
            vector.map(f32::to_bits),
            "vector and portable paths differ for {tri:?}, {p}"
        );
        portable[lane]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Within float tolerance of the exact (f64) distance, by the bound
        /// `closest_point_triangle` meets too (`tolerance`: its term for
        /// slivers is the conditioning of the plane normal, which this kernel
        /// shares), and so within twice that of `closest_point_triangle`.
        #[test]
        fn matches_exact_and_scalar_kernels(
            (tri, p) in any_triangle().prop_flat_map(|t| (Just(t), query(t))),
            lane in 0..LANES,
        ) {
            let got = f64::from(batch_value(tri, p, lane)).sqrt();
            let exact =
                distance_squared_point_triangle_f64(p.as_dvec3(), tri.map(Vec3::as_dvec3)).sqrt();
            let scalar = f64::from(closest_point_triangle(p, tri).distance_squared).sqrt();
            let tol = tolerance(tri, p, exact);
            prop_assert!(
                (got - exact).abs() <= tol,
                "triangle {tri:?}, p {p}, lane {lane}: batch {got} vs exact {exact} (tolerance {tol})"
            );
            prop_assert!(
                (got - scalar).abs() <= 2.0 * tol,
                "triangle {tri:?}, p {p}, lane {lane}: batch {got} vs closest_point_triangle {scalar} (tolerance {})",
                2.0 * tol
            );
        }
    }

    /// Degenerate triangles (which `any_triangle` can only approximate in
    /// f32) give the distance to their segment or point.
    #[test]
    fn degenerate_triangles_give_exact_results() {
        let x2 = Vec3::new(2.0, 0.0, 0.0);
        let cases: [[Vec3; 3]; 5] = [
            [Vec3::ZERO, Vec3::ZERO, Vec3::X],
            [Vec3::ZERO, Vec3::X, Vec3::ZERO],
            [Vec3::X, Vec3::ZERO, Vec3::ZERO],
            [Vec3::ZERO, Vec3::X, x2],
            [Vec3::ONE, Vec3::ONE, Vec3::ONE],
        ];
        for p in [Vec3::new(0.5, 1.0, 0.0), Vec3::new(-1.0, 0.5, 2.0), x2] {
            for (i, tri) in cases.into_iter().enumerate() {
                let got = batch_value(tri, p, i);
                let exact =
                    distance_squared_point_triangle_f64(p.as_dvec3(), tri.map(Vec3::as_dvec3));
                assert!(
                    (f64::from(got) - exact).abs() < 1e-6,
                    "case {i} at {p}: {got} vs {exact}"
                );
            }
        }
    }

    #[test]
    fn padding_lanes_repeat_the_first_triangle() {
        let tri = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let batch = TriangleBatch::pack(&[tri, FILLER]);
        let d2 = batch.distance_squared(Vec3::new(0.25, 0.25, 2.0));
        assert_eq!(d2[0], 4.0);
        assert!(d2[1] > 1e7);
        assert!(d2[2..].iter().all(|&d| d == 4.0), "{d2:?}");
    }
}
