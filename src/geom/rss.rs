//! Rectangle swept spheres (Larsen, Gottschalk, Lin & Manocha 2000): the
//! bounding volume of Liu & Kim's BVHs (2014, §4.2).
//!
//! # Method
//!
//! An RSS is a rectangle swept by a sphere of radius `r`: the points within
//! `r` of the rectangle. Its distance to a point is the point's distance to
//! the rectangle minus `r` (zero inside), a lower bound on the distance to
//! anything it encloses.
//!
//! Fitting (§4.2): the axes of an OBB come from the covariance of the
//! node's triangle corners (eigenvectors by cyclic Jacobi rotations); the
//! OBB's thinnest axis is the rectangle's normal and `r` is half the
//! thickness along it; the rectangle spans the corners' whole extent along
//! the two other axes. The paper grows the rectangle "until the RSS
//! encloses all the triangles" from a smaller start; spanning the full
//! extent encloses them at once (every corner projects into the rectangle
//! and lies within `r` of its plane) with one projection pass fewer, at
//! the price of rounded sides `r` beyond the OBB. Axis approximation (§4.3)
//! fits with axes given by the caller instead of the covariance.
//!
//! Every step is mirrored line for line by `shaders/shared/rss.wgsl`.

use glam::Vec3;

/// A rectangle swept sphere: centre, two unit axes with half lengths, and
/// the sphere radius.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rss {
    pub center: Vec3,
    pub axes: [Vec3; 2],
    pub half: [f32; 2],
    pub radius: f32,
}

/// Distance from `p` to the rectangle of `rss` (its axes orthonormal).
pub fn distance_point_rectangle(p: Vec3, rss: &Rss) -> f32 {
    let d = p - rss.center;
    let s = d.dot(rss.axes[0]).clamp(-rss.half[0], rss.half[0]);
    let t = d.dot(rss.axes[1]).clamp(-rss.half[1], rss.half[1]);
    (d - s * rss.axes[0] - t * rss.axes[1]).length()
}

/// Distance from `p` to the swept volume: 0 inside.
pub fn distance_point_rss(p: Vec3, rss: &Rss) -> f32 {
    (distance_point_rectangle(p, rss) - rss.radius).max(0.0)
}

/// Jacobi sweeps; 3×3 symmetric matrices converge to f32 precision in 4–5.
const JACOBI_SWEEPS: usize = 6;

/// Unit eigenvectors of the symmetric matrix `a` (row major), by cyclic
/// Jacobi rotations; orthonormal, in no particular order.
pub fn symmetric_eigenvectors(mut a: [[f32; 3]; 3]) -> [Vec3; 3] {
    let mut v = [[1.0f32, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _ in 0..JACOBI_SWEEPS {
        for (p, q) in [(0usize, 1usize), (0, 2), (1, 2)] {
            let apq = a[p][q];
            if apq.abs() <= 1e-30 {
                continue;
            }
            // Rotation that zeroes a[p][q] (Golub & Van Loan, Alg. 8.4.1).
            let theta = (a[q][q] - a[p][p]) / (2.0 * apq);
            let sign = if theta >= 0.0 { 1.0 } else { -1.0 };
            let t = sign / (theta.abs() + (theta * theta + 1.0).sqrt());
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            for row in a.iter_mut() {
                let (akp, akq) = (row[p], row[q]);
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (row_p, row_q) = (a[p], a[q]);
            for (k, (apk, aqk)) in row_p.into_iter().zip(row_q).enumerate() {
                a[p][k] = c * apk - s * aqk;
                a[q][k] = s * apk + c * aqk;
            }
            for row in v.iter_mut() {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    [0, 1, 2].map(|k| Vec3::new(v[0][k], v[1][k], v[2][k]).normalize_or(Vec3::AXES[k]))
}

/// OBB axes of a set of points: the eigenvectors of their covariance,
/// accumulated relative to `origin` (a point of the set) for precision.
pub fn covariance_axes(origin: Vec3, points: impl Iterator<Item = Vec3>) -> [Vec3; 3] {
    let mut n = 0.0f32;
    let mut s = Vec3::ZERO;
    let mut sq = Vec3::ZERO; // xx yy zz
    let mut cross = Vec3::ZERO; // xy xz yz
    for q in points {
        let d = q - origin;
        n += 1.0;
        s += d;
        sq += d * d;
        cross += Vec3::new(d.x * d.y, d.x * d.z, d.y * d.z);
    }
    let m = s / n.max(1.0);
    let c = sq / n.max(1.0) - m * m;
    let o = cross / n.max(1.0) - Vec3::new(m.x * m.y, m.x * m.z, m.y * m.z);
    symmetric_eigenvectors([[c.x, o.x, o.y], [o.x, c.y, o.z], [o.y, o.z, c.z]])
}

/// Extents of points along three axes, relative to `origin`:
/// `(min, max)` per axis.
pub fn extents_along(
    origin: Vec3,
    axes: &[Vec3; 3],
    points: impl Iterator<Item = Vec3>,
) -> [(f32, f32); 3] {
    let mut e = [(f32::INFINITY, f32::NEG_INFINITY); 3];
    for q in points {
        let d = q - origin;
        for k in 0..3 {
            let x = d.dot(axes[k]);
            e[k] = (e[k].0.min(x), e[k].1.max(x));
        }
    }
    e
}

/// The RSS of corner extents `e` along `axes` (relative to `origin`): the
/// thinnest axis is the normal. The radius gets a relative slack so corners
/// stay inside despite the rounding of later distance tests.
pub fn rss_from_extents(origin: Vec3, axes: &[Vec3; 3], e: &[(f32, f32); 3]) -> Rss {
    let size = e.map(|(lo, hi)| hi - lo);
    let normal = if size[0] <= size[1] && size[0] <= size[2] {
        0
    } else if size[1] <= size[2] {
        1
    } else {
        2
    };
    let (a, b) = ((normal + 1) % 3, (normal + 2) % 3);
    let mid = e.map(|(lo, hi)| 0.5 * (lo + hi));
    let center = origin + mid[0] * axes[0] + mid[1] * axes[1] + mid[2] * axes[2];
    let slack = RSS_SLACK * (size[0].max(size[1]).max(size[2]) + center.abs().max_element());
    Rss {
        center,
        axes: [axes[a], axes[b]],
        half: [0.5 * size[a] + slack, 0.5 * size[b] + slack],
        radius: 0.5 * size[normal] + slack,
    }
}

/// Relative slack added to a fitted RSS (of its size and of the magnitude
/// of its coordinates); mirrored by shaders/shared/rss.wgsl.
pub const RSS_SLACK: f32 = 4e-6;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::closest_point_triangle;
    use proptest::prelude::*;

    fn unit() -> impl Strategy<Value = Vec3> {
        prop::array::uniform3(-1.0f32..1.0).prop_map(Vec3::from_array)
    }

    /// An RSS with random orthonormal axes.
    fn rss() -> impl Strategy<Value = Rss> {
        (
            unit(),
            unit(),
            unit(),
            0.0f32..2.0,
            0.0f32..2.0,
            0.0f32..1.0,
        )
            .prop_filter_map("degenerate axes", |(c, a, b, hu, hv, r)| {
                let u = a.try_normalize()?;
                let v = (b - b.dot(u) * u).try_normalize()?;
                Some(Rss {
                    center: c * 3.0,
                    axes: [u, v],
                    half: [hu, hv],
                    radius: r,
                })
            })
    }

    /// Brute force: the rectangle as two triangles, exact point–triangle
    /// distances.
    fn brute_force(p: Vec3, r: &Rss) -> f32 {
        let (u, v) = (r.axes[0] * r.half[0], r.axes[1] * r.half[1]);
        let c = [
            r.center - u - v,
            r.center + u - v,
            r.center + u + v,
            r.center - u + v,
        ];
        let d2 = closest_point_triangle(p, [c[0], c[1], c[2]])
            .distance_squared
            .min(closest_point_triangle(p, [c[0], c[2], c[3]]).distance_squared);
        (d2.sqrt() - r.radius).max(0.0)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn point_rss_distance_equals_brute_force(r in rss(), p in unit()) {
            let p = p * 5.0;
            let got = distance_point_rss(p, &r);
            let want = brute_force(p, &r);
            prop_assert!((got - want).abs() <= 1e-4, "{p:?} {r:?}: {got} vs {want}");
        }

        #[test]
        fn fitted_rss_encloses_its_triangles_tightly(
            tris in prop::collection::vec(prop::array::uniform3(unit()), 1..12),
            scale in -3i32..3,
            shift in unit(),
        ) {
            let s = 10f32.powi(scale);
            let tris: Vec<[Vec3; 3]> =
                tris.iter().map(|t| t.map(|q| (q + shift * 4.0) * s)).collect();
            let corners = || tris.iter().flatten().copied();
            let origin = tris[0][0];
            let axes = covariance_axes(origin, corners());
            for (i, a) in axes.iter().enumerate() {
                prop_assert!((a.length() - 1.0).abs() < 1e-4, "axis {i} {a:?}");
                for b in &axes[i + 1..] {
                    prop_assert!(a.dot(*b).abs() < 1e-4, "axes {a:?} {b:?}");
                }
            }
            let r = rss_from_extents(origin, &axes, &extents_along(origin, &axes, corners()));
            for q in corners() {
                // Every corner inside; points of the triangle then too (convex).
                prop_assert!(distance_point_rss(q, &r) == 0.0, "{q:?} outside {r:?}");
            }
            // Tight: the farthest corner from the rectangle is about r away,
            // and the corners reach both ends of each rectangle axis.
            let far = corners().map(|q| distance_point_rectangle(q, &r)).fold(0.0, f32::max);
            let tol = 1e-4 * s * 8.0;
            prop_assert!(r.radius - far <= tol, "radius {} vs farthest {far}", r.radius);
            for k in 0..2 {
                let proj = corners().map(|q| (q - r.center).dot(r.axes[k]));
                let hi = proj.clone().fold(f32::NEG_INFINITY, f32::max);
                let lo = proj.fold(f32::INFINITY, f32::min);
                prop_assert!(r.half[k] - hi <= tol && r.half[k] + lo <= tol, "axis {k}");
            }
        }

        #[test]
        fn eigenvectors_diagonalise(m in prop::array::uniform6(-1.0f32..1.0)) {
            let a = [[m[0], m[3], m[4]], [m[3], m[1], m[5]], [m[4], m[5], m[2]]];
            let v = symmetric_eigenvectors(a);
            let mul = |x: Vec3| {
                Vec3::new(
                    a[0][0] * x.x + a[0][1] * x.y + a[0][2] * x.z,
                    a[1][0] * x.x + a[1][1] * x.y + a[1][2] * x.z,
                    a[2][0] * x.x + a[2][1] * x.y + a[2][2] * x.z,
                )
            };
            for (i, x) in v.iter().enumerate() {
                for (j, y) in v.iter().enumerate() {
                    if i != j {
                        prop_assert!(mul(*x).dot(*y).abs() < 1e-4, "{i},{j}: {v:?}");
                    }
                }
            }
        }
    }
}
