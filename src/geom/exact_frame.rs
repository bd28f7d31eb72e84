//! A frame in which a float32 mesh's corners are stored exactly.
//!
//! The GPU's winding sign ([`super::FastWinding::packed`]) stores the
//! triangle corners relative to a frame point `f`, rounded to float32 once:
//! `corner − f`. Its most precise step (f64 solid angles at the CPU's exact
//! query point, shaders/shared/winding_f64_leaf.wgsl) can be no more exact
//! than those stored corners. If the subtraction rounds, every corner is
//! off by up to 2⁻²⁴ of its length, and every query point within that of a
//! triangle's plane stays undecided and goes to slower steps.
//! [`exact_frame`] picks `f` so that the subtraction never rounds: the
//! stored corners *are* the CPU's corners, moved.
//!
//! # The rule, per axis, and why it is exact
//!
//! Let the corners' coordinates on an axis lie in `[lo, hi]`, `m` and `M`
//! the smallest and largest magnitude there, and for a positive float32
//! `x` let `q(x) = 2^(⌊log₂ x⌋ − 23)` (its spacing; `2⁻¹⁴⁹` below the
//! normal range), so every float32 of magnitude at least `2^⌊log₂ x⌋` is a
//! multiple of `q(x)`.
//!
//! * If `[lo, hi]` holds 0 (or a corner is 0), `f = 0`: `x − 0 = x`.
//! * Otherwise all corners have one sign and magnitude ≥ `m`, so each is a
//!   multiple of `q = q(m)`. With `Q = q(M)` (a multiple of `q`) let `f` be
//!   the box centre rounded to a multiple of `Q`. `M` is a multiple of `Q`
//!   and the centre lies within `M` of 0, so `|f| ≤ M < 2²⁴ Q`: `f` is a
//!   float32. Every `x − f` is a multiple of `q` with
//!   `|x − f| ≤ (hi − lo)/2 + Q/2`; a multiple `k q` with `|k| ≤ 2²⁴` is a
//!   float32, so when `(hi − lo)/2 + Q/2 ≤ 2²⁴ q` every `x − f` is exact.
//!   That holds when the mesh lies about its own extent away from the
//!   plane `x = 0` (`2²⁴ q > m`); otherwise `f = 0`.
//!
//! The stages compute on the mesh in its local frame
//! ([`crate::mesh::Frame`]), which is centred near the origin, so most axes
//! take `f = 0`; a mesh given in the world far from the origin keeps a
//! centred frame.

use glam::{DVec3, Vec3};

use super::Aabb;

/// The frame point for corners within `bounds` (module docs): every
/// float32 coordinate `x` inside `bounds` gives an `x − f` that float32
/// holds exactly, and `f` is itself a float32.
pub fn exact_frame(bounds: Aabb) -> DVec3 {
    DVec3::from_array(std::array::from_fn(|axis| {
        exact_axis(bounds.min[axis], bounds.max[axis])
    }))
}

/// [`exact_frame`] along one axis whose coordinates lie in `[lo, hi]`.
fn exact_axis(lo: f32, hi: f32) -> f64 {
    if lo <= 0.0 && hi >= 0.0 || !(lo.is_finite() && hi.is_finite()) {
        return 0.0;
    }
    let (m, big) = (lo.abs().min(hi.abs()), lo.abs().max(hi.abs()));
    let (q, big_q) = (spacing_below(m), spacing_below(big));
    let centre = (f64::from(lo) + f64::from(hi)) / 2.0;
    let f = (centre / big_q).round() * big_q;
    let reach = (f64::from(hi) - f64::from(lo)) / 2.0 + big_q / 2.0;
    if reach <= q * 2f64.powi(24) { f } else { 0.0 }
}

/// `q(x)` of the module docs: the spacing of float32 numbers at the power
/// of two at or below `x > 0`, of which every float32 at least that large
/// is a multiple.
fn spacing_below(x: f32) -> f64 {
    let exponent = (x.to_bits() >> 23) as i32;
    if exponent == 0 {
        2f64.powi(-149)
    } else {
        2f64.powi(exponent - 127 - 23)
    }
}

/// Whether every coordinate of `points` minus `frame` is a float32, exactly
/// (what [`exact_frame`] promises; for the tests and debug checks).
pub fn is_exact_frame(points: &[Vec3], frame: DVec3) -> bool {
    let exact = |x: f64| f64::from(x as f32) == x;
    frame.to_array().into_iter().all(exact)
        && points
            .iter()
            .all(|p| (p.as_dvec3() - frame).to_array().into_iter().all(exact))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(points: &[Vec3]) -> DVec3 {
        let frame = exact_frame(Aabb::from_points(points));
        assert!(is_exact_frame(points, frame), "{frame} for {points:?}");
        frame
    }

    /// Axes that straddle 0 or lie nearer to 0 than about their extent
    /// keep 0; an axis its extent away from 0 is centred.
    #[test]
    fn an_axis_near_the_origin_keeps_the_origin() {
        let points = [Vec3::new(-0.3, 0.1, -1e-30), Vec3::new(0.7, 0.9, 1.0)];
        assert_eq!(check(&points), DVec3::ZERO);
        let points = [Vec3::new(-0.3, 10.0, 0.0), Vec3::new(0.7, 11.0, 1.0)];
        assert_eq!(check(&points), DVec3::new(0.0, 10.5, 0.0));
    }

    #[test]
    fn a_far_mesh_gets_a_centred_frame() {
        let points = [
            Vec3::splat(1e6),
            Vec3::splat(1e6 + 1.0),
            Vec3::splat(1e6 + 0.3),
        ];
        let frame = check(&points);
        assert!(
            (frame - DVec3::splat(1e6 + 0.5)).abs().max_element() <= 0.0625,
            "{frame}"
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// Random clouds, moved anywhere up to 1e7 of their size and scaled
        /// from 1e-6 to 1e6: every coordinate minus the frame is exact, and
        /// a cloud much farther from the origin than its size gets a frame
        /// inside its box.
        #[test]
        fn every_corner_minus_the_frame_is_exact(
            unit in proptest::collection::vec(proptest::array::uniform3(-1.0f32..1.0), 1..40),
            offset in proptest::array::uniform3(-1e7f64..1e7),
            scale_exp in -20i32..20,
        ) {
            let scale = 2f64.powi(scale_exp);
            let at = |u: [f32; 3], k: usize| ((f64::from(u[k]) + offset[k]) * scale) as f32;
            let points: Vec<Vec3> = unit.iter().map(|&u| Vec3::new(at(u, 0), at(u, 1), at(u, 2))).collect();
            let bounds = Aabb::from_points(&points);
            let frame = exact_frame(bounds);
            proptest::prop_assert!(is_exact_frame(&points, frame), "frame {} for bounds {:?}", frame, bounds);
            for k in 0..3 {
                if offset[k].abs() > 8.0 {
                    let (lo, hi) = (f64::from(bounds.min[k]), f64::from(bounds.max[k]));
                    proptest::prop_assert!(frame[k] >= lo && frame[k] <= hi, "axis {}: {} not in [{}, {}]", k, frame[k], lo, hi);
                }
            }
        }
    }
}
