//! Where a mesh is sampled: its normalisation and the sample points
//! (the method is in the [module docs of `dataset`](super)).

use glam::{DVec3, Vec3};
use serde::{Deserialize, Serialize};

use super::rng::SampleRng;
use super::{Normalization, SampleParams};
use crate::mesh::Mesh;

/// The map from the mesh as loaded to the frame it is sampled in:
/// `normalized = (world − center) · scale`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Normalized {
    pub mode: Normalization,
    pub center: [f64; 3],
    pub scale: f64,
}

impl Normalized {
    /// The normalisation `mode` gives `mesh` (whose coordinates are finite).
    pub fn of(mesh: &Mesh, mode: Normalization) -> Normalized {
        let bounds = mesh.bounds();
        let lo = bounds.min.as_dvec3();
        let hi = bounds.max.as_dvec3();
        let center = (lo + hi) * 0.5;
        let scale = match mode {
            Normalization::None => return Self::identity(),
            Normalization::UnitSphere => mesh
                .positions
                .iter()
                .map(|p| p.as_dvec3().distance(center))
                .fold(0.0, f64::max),
            Normalization::UnitCube => (hi - lo).max_element(),
        };
        Normalized {
            mode,
            center: center.to_array(),
            scale: if scale > 0.0 { 1.0 / scale } else { 1.0 },
        }
    }

    fn identity() -> Normalized {
        Normalized {
            mode: Normalization::None,
            center: [0.0; 3],
            scale: 1.0,
        }
    }

    /// `mesh` in the normalised frame.
    pub fn apply(&self, mesh: &Mesh) -> Mesh {
        let center = DVec3::from_array(self.center);
        let positions = mesh
            .positions
            .iter()
            .map(|p| ((p.as_dvec3() - center) * self.scale).as_vec3())
            .collect();
        Mesh::new(mesh.name.clone(), positions, mesh.triangles.clone())
    }
}

/// The sample points of `mesh` (already normalised): `params.near` near the
/// surface, then `params.uniform` in the padded box, drawn from `seed`.
pub fn sample_points(mesh: &Mesh, params: &SampleParams, seed: u64) -> Vec<Vec3> {
    let mut rng = SampleRng::new(seed);
    let mut out = Vec::with_capacity(params.near + params.uniform);
    // Cumulative areas in f64: the last is the total.
    let mut cumulative = Vec::with_capacity(mesh.triangles.len());
    let mut total = 0.0f64;
    for t in 0..mesh.triangles.len() {
        let [a, b, c] = mesh.corners(t).map(|p| p.as_dvec3());
        total += 0.5 * (b - a).cross(c - a).length();
        cumulative.push(total);
    }
    let groups = params.variances.len().max(1);
    for i in 0..params.near {
        let variance = params.variances[i * groups / params.near.max(1)];
        let target = rng.uniform() * total;
        let t = cumulative
            .partition_point(|&c| c <= target)
            .min(cumulative.len() - 1);
        let [a, b, c] = mesh.corners(t).map(|p| p.as_dvec3());
        // A uniform point of the triangle (Osada et al. 2002).
        let r1 = rng.uniform().sqrt();
        let r2 = rng.uniform();
        let on_surface = a * (1.0 - r1) + b * (r1 * (1.0 - r2)) + c * (r1 * r2);
        let sigma = variance.sqrt();
        let noise = DVec3::new(rng.gaussian(), rng.gaussian(), rng.gaussian()) * sigma;
        out.push((on_surface + noise).as_vec3());
    }
    let bounds = mesh.bounds();
    let lo = bounds.min.as_dvec3();
    let hi = bounds.max.as_dvec3();
    let margin = (hi - lo).max_element() * params.pad;
    let lo = lo - DVec3::splat(margin);
    let size = hi - lo + DVec3::splat(margin);
    for _ in 0..params.uniform {
        let u = DVec3::new(rng.uniform(), rng.uniform(), rng.uniform());
        out.push((lo + u * size).as_vec3());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(near: usize, uniform: usize) -> SampleParams {
        SampleParams {
            near,
            uniform,
            ..SampleParams::default()
        }
    }

    #[test]
    fn the_unit_sphere_holds_the_mesh_and_touches_it() {
        let mesh =
            crate::mesh::box_mesh(1).transformed(glam::Mat4::from_scale_rotation_translation(
                Vec3::new(3.0, 1.0, 2.0),
                glam::Quat::IDENTITY,
                Vec3::new(10.0, -4.0, 7.0),
            ));
        let n = Normalized::of(&mesh, Normalization::UnitSphere);
        let moved = n.apply(&mesh);
        let far = moved
            .positions
            .iter()
            .map(|p| p.length())
            .fold(0.0, f32::max);
        assert!((far - 1.0).abs() < 1e-5, "farthest vertex at {far}");
        let cube = Normalized::of(&mesh, Normalization::UnitCube).apply(&mesh);
        let b = cube.bounds();
        assert!(((b.max - b.min).max_element() - 1.0).abs() < 1e-5);
        assert!((b.max + b.min).abs().max_element() < 1e-5);
    }

    #[test]
    fn near_points_spread_by_their_variance_and_uniform_ones_fill_the_box() {
        // One large flat square at z = 0: a near point's z is its noise.
        let square = Mesh::new(
            "square",
            vec![
                Vec3::new(-1.0, -1.0, 0.0),
                Vec3::new(1.0, -1.0, 0.0),
                Vec3::new(1.0, 1.0, 0.0),
                Vec3::new(-1.0, 1.0, 0.0),
            ],
            vec![[0, 1, 2], [0, 2, 3]],
        );
        let mut p = params(40_000, 1_000);
        p.variances = vec![0.01, 0.0001];
        let points = sample_points(&square, &p, 3);
        assert_eq!(points.len(), 41_000);
        let variance =
            |s: &[Vec3]| s.iter().map(|q| (q.z as f64).powi(2)).sum::<f64>() / s.len() as f64;
        let first = variance(&points[..20_000]);
        let second = variance(&points[20_000..40_000]);
        assert!(
            (first / 0.01 - 1.0).abs() < 0.05,
            "first group variance {first}"
        );
        assert!(
            (second / 0.0001 - 1.0).abs() < 0.05,
            "second group variance {second}"
        );
        // Both triangles are hit in proportion to their (equal) areas.
        let left = points[..40_000].iter().filter(|q| q.y > q.x).count();
        assert!((left as f64 / 40_000.0 - 0.5).abs() < 0.02, "{left}");
        let margin = 2.0 * p.pad as f32;
        for q in &points[40_000..] {
            assert!(q.x.abs() <= 1.0 + margin && q.y.abs() <= 1.0 + margin);
            assert!(q.z.abs() <= margin);
        }
        assert_eq!(points, sample_points(&square, &p, 3));
        assert_ne!(points, sample_points(&square, &p, 4));
    }
}
