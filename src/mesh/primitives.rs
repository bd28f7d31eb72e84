//! Closed test meshes generated in code, centred at the origin.
//!
//! Every generator returns a closed, consistently oriented mesh whose faces
//! are counter-clockwise seen from outside (so face normals point out), with
//! shared vertices along every seam. Sizes fit the unit cube `[-0.5, 0.5]³`
//! unless parameters say otherwise; the axis of revolution is +y.
//!
//! | generator                 | triangles             |
//! |---------------------------|-----------------------|
//! | `box_mesh(k)`             | 12·k²                 |
//! | `cone(n)`                 | 2·n                   |
//! | `cylinder(n)`             | 4·n                   |
//! | `torus(M, m, R, r)`       | 2·M·m                 |
//! | `uv_sphere(stacks, sl)`   | 2·sl·(stacks − 1)     |
//!
//! [`primitive_with_triangles`] picks parameters whose count is closest to a
//! target, e.g. for the sizes of Sundholm 2010, table 7.1 (box 12, cone 64,
//! cylinder 127, torus 399, box 768, sphere 2499).

use std::f32::consts::TAU;

use glam::Vec3;

use super::Mesh;
use super::fast_hash::FastMap;

/// The generated shapes, for [`primitive_with_triangles`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrimitiveKind {
    Box,
    Cone,
    Cylinder,
    Torus,
    Sphere,
}

impl PrimitiveKind {
    pub const ALL: [PrimitiveKind; 5] = [
        PrimitiveKind::Box,
        PrimitiveKind::Cone,
        PrimitiveKind::Cylinder,
        PrimitiveKind::Torus,
        PrimitiveKind::Sphere,
    ];

    /// Lower-case name used in mesh names ("box-768").
    pub fn name(self) -> &'static str {
        match self {
            PrimitiveKind::Box => "box",
            PrimitiveKind::Cone => "cone",
            PrimitiveKind::Cylinder => "cylinder",
            PrimitiveKind::Torus => "torus",
            PrimitiveKind::Sphere => "sphere",
        }
    }
}

fn named(kind: PrimitiveKind, positions: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Mesh {
    let name = format!("{}-{}", kind.name(), triangles.len());
    Mesh::new(name, positions, triangles)
}

/// Point on a circle of `radius` in the xz plane at height `y`; angle `i/n` turns.
fn ring_point(i: u32, n: u32, radius: f32, y: f32) -> Vec3 {
    let angle = TAU * (i % n) as f32 / n as f32;
    Vec3::new(radius * angle.cos(), y, radius * angle.sin())
}

/// Cube of side 1 with each side split into `k × k` quads (two triangles
/// each): `12·k²` triangles. `k` is at least 1.
pub fn box_mesh(k: u32) -> Mesh {
    let k = k.max(1);
    // Vertices are keyed by integer lattice coordinates, so the sides share
    // their rim vertices exactly.
    let mut index: FastMap<[u32; 3], u32> = FastMap::default();
    let mut positions = Vec::new();
    let mut vertex = |lattice: [u32; 3]| -> u32 {
        *index.entry(lattice).or_insert_with(|| {
            positions.push(Vec3::from(lattice.map(|c| c as f32 / k as f32 - 0.5)));
            (positions.len() - 1) as u32
        })
    };
    // (normal axis, on the max side?, u axis, v axis) with u × v = outward normal.
    let sides = [
        (0, true, 1, 2),
        (0, false, 2, 1),
        (1, true, 2, 0),
        (1, false, 0, 2),
        (2, true, 0, 1),
        (2, false, 1, 0),
    ];
    let mut triangles = Vec::with_capacity(12 * (k * k) as usize);
    for (axis, max_side, u, v) in sides {
        let mut at = |i: u32, j: u32| {
            let mut lattice = [0; 3];
            lattice[axis] = if max_side { k } else { 0 };
            lattice[u] = i;
            lattice[v] = j;
            vertex(lattice)
        };
        for i in 0..k {
            for j in 0..k {
                let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
                triangles.push([a, b, c]);
                triangles.push([a, c, d]);
            }
        }
    }
    named(PrimitiveKind::Box, positions, triangles)
}

/// Cone of height 1 and base radius 0.5, apex up: `2·segments` triangles
/// (side fan and base fan). At least 3 segments.
pub fn cone(segments: u32) -> Mesh {
    let n = segments.max(3);
    // 0: apex, 1: base centre, 2..: base ring.
    let mut positions = vec![Vec3::new(0.0, 0.5, 0.0), Vec3::new(0.0, -0.5, 0.0)];
    positions.extend((0..n).map(|i| ring_point(i, n, 0.5, -0.5)));
    let ring = |i: u32| 2 + i % n;
    let mut triangles = Vec::with_capacity(2 * n as usize);
    for i in 0..n {
        triangles.push([ring(i), 0, ring(i + 1)]);
        triangles.push([1, ring(i), ring(i + 1)]);
    }
    named(PrimitiveKind::Cone, positions, triangles)
}

/// Cylinder of height 1 and radius 0.5: `4·segments` triangles (two per side
/// quad, one per cap fan). At least 3 segments.
pub fn cylinder(segments: u32) -> Mesh {
    let n = segments.max(3);
    // 0: bottom centre, 1: top centre, 2..2+n: bottom ring, 2+n..: top ring.
    let mut positions = vec![Vec3::new(0.0, -0.5, 0.0), Vec3::new(0.0, 0.5, 0.0)];
    positions.extend((0..n).map(|i| ring_point(i, n, 0.5, -0.5)));
    positions.extend((0..n).map(|i| ring_point(i, n, 0.5, 0.5)));
    let bottom = |i: u32| 2 + i % n;
    let top = |i: u32| 2 + n + i % n;
    let mut triangles = Vec::with_capacity(4 * n as usize);
    for i in 0..n {
        triangles.push([bottom(i), top(i), top(i + 1)]);
        triangles.push([bottom(i), top(i + 1), bottom(i + 1)]);
        triangles.push([1, top(i + 1), top(i)]);
        triangles.push([0, bottom(i), bottom(i + 1)]);
    }
    named(PrimitiveKind::Cylinder, positions, triangles)
}

/// Torus around the y axis: `major` segments around the ring of radius
/// `big_r`, `minor` around the tube of radius `small_r`; `2·major·minor`
/// triangles. Segment counts are at least 3.
pub fn torus(major: u32, minor: u32, big_r: f32, small_r: f32) -> Mesh {
    let (nu, nv) = (major.max(3), minor.max(3));
    let mut positions = Vec::with_capacity((nu * nv) as usize);
    for i in 0..nu {
        let theta = TAU * i as f32 / nu as f32;
        for j in 0..nv {
            let phi = TAU * j as f32 / nv as f32;
            let rho = big_r + small_r * phi.cos();
            positions.push(Vec3::new(
                rho * theta.cos(),
                small_r * phi.sin(),
                rho * theta.sin(),
            ));
        }
    }
    let at = |i: u32, j: u32| (i % nu) * nv + j % nv;
    let mut triangles = Vec::with_capacity(2 * (nu * nv) as usize);
    for i in 0..nu {
        for j in 0..nv {
            triangles.push([at(i, j), at(i, j + 1), at(i + 1, j + 1)]);
            triangles.push([at(i, j), at(i + 1, j + 1), at(i + 1, j)]);
        }
    }
    named(PrimitiveKind::Torus, positions, triangles)
}

/// Sphere of radius 0.5 from `stacks` latitude bands and `slices` longitude
/// segments; the bands at the poles are triangle fans, so there are
/// `2·slices·(stacks − 1)` triangles. At least 2 stacks and 3 slices.
pub fn uv_sphere(stacks: u32, slices: u32) -> Mesh {
    let (stacks, n) = (stacks.max(2), slices.max(3));
    // 0: north pole, 1: south pole, then rings 1..stacks from north to south.
    let mut positions = vec![Vec3::new(0.0, 0.5, 0.0), Vec3::new(0.0, -0.5, 0.0)];
    for ring in 1..stacks {
        let polar = std::f32::consts::PI * ring as f32 / stacks as f32;
        positions.extend((0..n).map(|i| ring_point(i, n, 0.5 * polar.sin(), 0.5 * polar.cos())));
    }
    let at = |ring: u32, i: u32| 2 + (ring - 1) * n + i % n;
    let last = stacks - 1;
    let mut triangles = Vec::with_capacity((2 * n * last) as usize);
    for i in 0..n {
        triangles.push([at(1, i), 0, at(1, i + 1)]);
        triangles.push([1, at(last, i), at(last, i + 1)]);
        for ring in 1..last {
            // `ring` is the upper one of the band, `ring + 1` the lower.
            let (upper, lower) = (ring, ring + 1);
            triangles.push([at(lower, i), at(upper, i), at(upper, i + 1)]);
            triangles.push([at(lower, i), at(upper, i + 1), at(lower, i + 1)]);
        }
    }
    named(PrimitiveKind::Sphere, positions, triangles)
}

/// Best `(a, b)` with `a·b` closest to `product`, `lo ≤ a`, `3 ≤ b` and
/// `ratio_min·a ≤ b ≤ ratio_max·a` (well-shaped faces); ties go to the pair
/// with `b` closest to `ratio_goal·a`.
fn closest_pair(product: f64, lo: u32, ratio: (f64, f64, f64)) -> (u32, u32) {
    let (ratio_min, ratio_goal, ratio_max) = ratio;
    let mut best = (lo, 3u32);
    let mut best_score = (f64::INFINITY, f64::INFINITY);
    let a_max = (product / ratio_min)
        .sqrt()
        .ceil()
        .clamp(f64::from(lo), 1e6) as u32;
    for a in lo..=a_max.max(lo) {
        let fa = f64::from(a);
        let b_lo = (ratio_min * fa).ceil().max(3.0);
        let b_hi = (ratio_max * fa).floor();
        if b_lo > b_hi {
            continue;
        }
        let b = (product / fa).round().clamp(b_lo, b_hi);
        let score = ((fa * b - product).abs(), (b - ratio_goal * fa).abs());
        if score < best_score {
            best_score = score;
            best = (a, b as u32);
        }
    }
    best
}

/// A primitive of `kind` whose triangle count is as close to `target` as
/// its family allows (boxes give 12·k², cylinders multiples of 4, ...).
pub fn primitive_with_triangles(kind: PrimitiveKind, target: usize) -> Mesh {
    let target = target as f64;
    let round_at_least = |x: f64, lo: f64| x.round().clamp(lo, 1e9) as u32;
    match kind {
        PrimitiveKind::Box => {
            let k = (target / 12.0).sqrt().floor().clamp(1.0, 1e5) as u32;
            let count = |k: u32| 12.0 * f64::from(k) * f64::from(k);
            let better_up = (count(k + 1) - target).abs() < (count(k) - target).abs();
            box_mesh(if better_up { k + 1 } else { k })
        }
        PrimitiveKind::Cone => cone(round_at_least(target / 2.0, 3.0)),
        PrimitiveKind::Cylinder => cylinder(round_at_least(target / 4.0, 3.0)),
        PrimitiveKind::Torus => {
            // minor × major with major between 1 and 4 times minor.
            let (minor, major) = closest_pair(target / 2.0, 3, (1.0, 2.0, 4.0));
            torus(major, minor, 0.35, 0.15)
        }
        PrimitiveKind::Sphere => {
            // (stacks − 1) × slices with slices about twice the stacks.
            let (bands, slices) = closest_pair(target / 2.0, 1, (1.5, 2.0, 4.0));
            uv_sphere(bands + 1, slices)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::MeshReport;
    use std::f64::consts::PI;

    /// Enclosed volume by the divergence theorem: Σ a · (b × c) / 6.
    fn volume(mesh: &Mesh) -> f64 {
        (0..mesh.triangles.len())
            .map(|t| {
                let [a, b, c] = mesh.corners(t).map(|p| p.as_dvec3());
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    #[test]
    fn primitives_are_closed_oriented_with_analytic_volume() {
        let cases = [
            (box_mesh(3), 1.0, 12 * 9),
            (cone(64), PI * 0.25 / 3.0, 128),
            (cylinder(64), PI * 0.25, 256),
            (
                torus(64, 32, 0.35, 0.15),
                2.0 * PI * PI * 0.35 * 0.15 * 0.15,
                2 * 64 * 32,
            ),
            (uv_sphere(32, 64), 4.0 / 3.0 * PI * 0.125, 2 * 64 * 31),
        ];
        for (mesh, analytic, triangles) in cases {
            assert_eq!(mesh.triangles.len(), triangles, "{}", mesh.name);
            mesh.validate().expect("valid");
            let report = MeshReport::analyze(&mesh);
            assert!(report.closed, "{} open", mesh.name);
            assert!(report.consistently_oriented, "{} not oriented", mesh.name);
            assert!(report.pseudo_normal_sign_trusted, "{}", mesh.name);
            assert_eq!(report.connected_components, 1, "{}", mesh.name);
            assert_eq!(
                report.vertices_before_weld, report.vertices_after_weld,
                "{}: unshared seam",
                mesh.name
            );
            let v = volume(&mesh);
            assert!(
                (v / analytic - 1.0).abs() < 0.02,
                "{}: volume {v} vs {analytic}",
                mesh.name
            );
            let b = mesh.bounds();
            assert!((b.center()).length() < 1e-5, "{} not centred", mesh.name);
        }
    }

    #[test]
    fn coarsest_primitives_are_valid() {
        for mesh in [
            box_mesh(0),
            cone(0),
            cylinder(1),
            torus(0, 0, 0.3, 0.1),
            uv_sphere(0, 0),
        ] {
            mesh.validate().expect("valid");
            let report = MeshReport::analyze(&mesh);
            assert!(report.pseudo_normal_sign_trusted, "{}", mesh.name);
            assert!(volume(&mesh) > 0.0, "{}", mesh.name);
        }
    }

    #[test]
    fn sundholm_table_sizes() {
        let table = [
            (PrimitiveKind::Box, 12, 12),
            (PrimitiveKind::Cone, 64, 64),
            (PrimitiveKind::Cylinder, 127, 128),
            (PrimitiveKind::Torus, 399, 400),
            (PrimitiveKind::Box, 768, 768),
            (PrimitiveKind::Sphere, 2499, 2500),
        ];
        for (kind, target, expected) in table {
            let mesh = primitive_with_triangles(kind, target);
            println!(
                "{kind:?} target {target}: {} ({} triangles)",
                mesh.name,
                mesh.triangles.len()
            );
            assert_eq!(mesh.triangles.len(), expected, "{kind:?} {target}");
            assert_eq!(mesh.name, format!("{}-{expected}", kind.name()));
        }
        for kind in PrimitiveKind::ALL {
            for target in [0, 1, 13, 100, 1000, 5000] {
                let mesh = primitive_with_triangles(kind, target);
                mesh.validate().expect("valid");
                assert!(MeshReport::analyze(&mesh).closed, "{}", mesh.name);
            }
        }
    }
}
