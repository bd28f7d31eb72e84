//! The exact generalised winding number: every triangle's signed solid
//! angle (Van Oosterom & Strackee, "The Solid Angle of a Plane
//! Triangle", IEEE Trans. Biomed. Eng. 1983), summed in f64 over the whole
//! soup and divided by 4π (Jacobson et al. 2013). This is the exact sign's
//! reference everywhere: [`super::FastWinding`] falls back to it, the GPU's
//! leftover cells are decided by it, and the tests compare against it.
//! The sum runs in parallel over fixed parts of the triangles, so it is the
//! same bits on any number of threads.

use std::f64::consts::PI;

use glam::{DVec3, Vec3};
use rayon::prelude::*;

/// Signed solid angle of triangle `tri` seen from `p` (Van Oosterom &
/// Strackee 1983); positive when `p` is on the side opposite the normal
/// `(b − a) × (c − a)`.
pub fn solid_angle_triangle(p: DVec3, tri: [DVec3; 3]) -> f64 {
    let [a, b, c] = tri.map(|v| v - p);
    let (la, lb, lc) = (a.length(), b.length(), c.length());
    let numerator = a.dot(b.cross(c));
    let denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    2.0 * numerator.atan2(denominator)
}

/// Triangles per part of [`winding_number_exact`]'s sum: enough that a
/// part outweighs its scheduling (tens of microseconds), few enough that a
/// bunny (70k triangles) spreads over 16 cores.
pub const EXACT_CHUNK: usize = 2048;

/// Exact winding number: the sum of every triangle's solid angle.
///
/// The sum runs in parallel, deterministically: the triangles are cut into
/// fixed parts of [`EXACT_CHUNK`] (whatever the thread count), each part
/// summed in order, then the parts' sums added in order. The result is
/// therefore the same bits on every run and machine, and this one function
/// is the exact sign's reference everywhere (the CPU backends' fallback,
/// the GPU's leftover cells, the tests).
pub fn winding_number_exact(positions: &[Vec3], triangles: &[[u32; 3]], p: Vec3) -> f64 {
    let p = p.as_dvec3();
    let parts: Vec<f64> = triangles
        .par_chunks(EXACT_CHUNK)
        .map(|part| {
            part.iter()
                .map(|t| solid_angle_triangle(p, t.map(|i| positions[i as usize].as_dvec3())))
                .sum::<f64>()
        })
        .collect();
    parts.iter().sum::<f64>() / (4.0 * PI)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::geom::test_rng::Rng;

    /// The serial sum [`winding_number_exact`] replaced, and the bound on
    /// how far two orders of the same sum can differ: each is within
    /// `(n − 1) u Σ|tᵢ|` of the real sum (Higham, "Accuracy and Stability
    /// of Numerical Algorithms", §4.2), `u` = 2⁻⁵³.
    fn serial_exact(positions: &[Vec3], triangles: &[[u32; 3]], p: Vec3) -> (f64, f64) {
        let terms: Vec<f64> = triangles
            .iter()
            .map(|t| {
                solid_angle_triangle(p.as_dvec3(), t.map(|i| positions[i as usize].as_dvec3()))
            })
            .collect();
        let n = terms.len() as f64;
        let magnitude: f64 = terms.iter().map(|t| t.abs()).sum();
        let bound = 2.0 * n * (f64::EPSILON / 2.0) * magnitude;
        (terms.iter().sum::<f64>() / (4.0 * PI), bound / (4.0 * PI))
    }

    /// A random soup of 4,800 triangles in [-1, 1]³: three parts of the
    /// exact sum.
    fn chunked_mesh(seed: u64) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let mut rng = Rng(seed | 1);
        let positions: Vec<Vec3> = (0..3 * 4800).map(|_| rng.vec3(-1.0, 1.0)).collect();
        let triangles: Vec<[u32; 3]> = (0..4800u32)
            .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
            .collect();
        assert!(triangles.len() > 2 * EXACT_CHUNK);
        (positions, triangles)
    }

    /// The parallel sum gives the same bits whatever the thread count.
    #[test]
    fn exact_sum_is_the_same_on_one_thread_and_on_four() {
        let (positions, triangles) = chunked_mesh(7);
        let mut rng = Rng(0xc0ffee);
        let points: Vec<Vec3> = (0..32).map(|_| rng.vec3(-1.5, 1.5)).collect();
        let on = |threads: usize| -> Vec<u64> {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a rayon pool")
                .install(|| {
                    points
                        .iter()
                        .map(|&p| winding_number_exact(&positions, &triangles, p).to_bits())
                        .collect()
                })
        };
        assert_eq!(on(1), on(4));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// The chunked sum equals the serial one within the bound on two
        /// summation orders, near the triangles included.
        #[test]
        fn chunked_exact_sum_brackets_the_serial_one(
            seed in 1u64..u64::MAX,
            p in proptest::array::uniform3(-1.2f32..1.2),
        ) {
            let (positions, triangles) = chunked_mesh(seed);
            let p = Vec3::from(p);
            let chunked = winding_number_exact(&positions, &triangles, p);
            let (serial, bound) = serial_exact(&positions, &triangles, p);
            proptest::prop_assert!(
                (chunked - serial).abs() <= bound,
                "{p}: chunked {chunked} vs serial {serial} (bound {bound})"
            );
        }
    }

    #[test]
    fn single_triangle_solid_angle_sign() {
        // Seen from below its +z normal, a triangle has positive solid angle.
        let tri = [
            DVec3::new(0.0, 0.0, 1.0),
            DVec3::new(1.0, 0.0, 1.0),
            DVec3::new(0.0, 1.0, 1.0),
        ];
        assert!(solid_angle_triangle(DVec3::ZERO, tri) > 0.0);
        assert!(solid_angle_triangle(DVec3::new(0.0, 0.0, 2.0), tri) < 0.0);
    }
}
