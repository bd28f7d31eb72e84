//! Generalised winding number of a triangle soup, exact and fast.
//!
//! # Method
//!
//! The generalised winding number (Jacobson, Kavan & Sorkine-Hornung,
//! "Robust Inside-Outside Segmentation using Generalized Winding Numbers",
//! SIGGRAPH 2013) of a point `p` is the sum of the signed solid angles of
//! all triangles seen from `p`, divided by 4π. For a closed, outward-oriented
//! mesh it is 1 inside and 0 outside; for open or broken meshes it degrades
//! smoothly (about 0.5 in the plane of a hole), which is why it is our inside
//! test. Each solid angle is Van Oosterom & Strackee's (1983) formula, in f64:
//!
//! ```text
//! tan(Ω/2) = a·(b × c) / (|a||b||c| + (a·b)|c| + (b·c)|a| + (c·a)|b|),  a, b, c = corners − p
//! ```
//!
//! # Fast approximation
//!
//! Barill, Dickson, Schmidt, Levin & Jacobson, "Fast Winding Numbers for
//! Soups and Clouds" (SIGGRAPH 2018) §3: far from a cluster of triangles,
//! its solid angle is well approximated by a truncated expansion. With
//! `y = c − p` and `g(y) = y/|y|³` (minus the gradient of `1/|y|`), a
//! triangle of area `a`, unit normal `n` and centroid `x̄` subtends
//! `∫ n·g(x − p) dA`; Taylor-expanding `g` about the node's area-weighted
//! centroid `c` and integrating exactly (`∫ (x − c) dA = a (x̄ − c)`) gives,
//! per BVH node,
//!
//! ```text
//! Ω ≈ N·g(y) + Σᵢⱼ Mᵢⱼ ∂ⱼgᵢ(y),   N = Σ a n,   M = Σ a n ⊗ (x̄ − c)
//!   = N·y/|y|³ + tr M/|y|³ − 3 yᵀM y/|y|⁵
//! ```
//!
//! (orders 1 and 2 of the paper's expansion; positive when `p` is behind the
//! outward normals, i.e. inside). A node is approximated when
//! `|y| > β·r`, `r` bounding all its corners around `c`; otherwise we
//! recurse, and leaves sum exact solid angles.
//!
//! β is 5 ([`BETA`]), not the paper's 2: at β = 4 this expansion still
//! erred by 0.015 inside a closed sphere (the sphere test asks for 0.01),
//! and at β = 5 the error bound below is at most 0.29 of a node's
//! `A/|y|²`, so points whose exact w is an integer (inside or outside a
//! closed shell) are decided in the first pass.
//!
//! # Error bound and exact fallback
//!
//! The remainder of the expansion is bounded by Taylor's theorem: every
//! point `x` of the node lies within `r` of `c`, and the second derivatives
//! of `n·g` are third derivatives of `1/|y|`, whose largest value over
//! directions is `3!/|y|⁴` (the Legendre expansion of `1/|y − u|` has
//! coefficients `|P₃| ≤ 1`). Along the segment from `c` to `x`,
//! `|y| ≥ |c − p| − r`, so a node of total (unsigned) area `A` is off by at
//! most
//!
//! ```text
//! ε = 3 A r² / (|c − p| − r)⁴          (solid angle; w is off by ε / 4π)
//! ```
//!
//! plus the float32 rounding of the node's data and of the evaluation,
//! bounded by [`ROUNDING`] × `(|N| + tr|M|/|y|)/|y|²`. The traversal adds up
//! these bounds into `B`. The inside test `|w| > ½` (see below) is then
//! certain when `||w| − ½| > B`; otherwise the point is evaluated again
//! with the stricter [`REFINE_BETA`] and then [`STRICT_BETA`] (the
//! remainder shrinks as `(r/|y|)²`), and if that is still undecided, by the
//! exact O(n) sum. Every point that reaches the exact sum costs O(n), so
//! the more steps decide before it, the fewer do: a few thousand such
//! points on a 1.1M-triangle mesh cost minutes. The exact sum itself runs
//! in parallel over fixed parts of the triangles ([`winding_number_exact`]),
//! bit for bit the same on any number of threads. The
//! sign of
//! [`FastWinding::is_inside`] is therefore the exact winding number's sign
//! everywhere, while most points only take the fast pass.
//!
//! # Inside
//!
//! Inside means `|w| > ½`: a closed mesh whose faces point inward has
//! `w = −1` inside, and nested shells give `w = 2`; both are inside.

use std::f64::consts::PI;

use glam::{DMat3, DVec3, Vec3};
use rayon::prelude::*;

use super::solid_angle::{solid_angle_triangle, winding_number_exact};
use super::{Aabb, Bvh};

/// Accuracy parameter β of Barill et al. for the fast pass: a node is
/// approximated when the query is farther than β times its radius from its
/// centroid.
pub const BETA: f64 = 5.0;

/// β of the second pass, for points the fast pass leaves undecided: its
/// remainder bound is (5/8)² ≈ 2.6 times smaller relative to a node's
/// contribution, and (4/5 / 7/8)⁴ ≈ 1.4 once more.
pub const REFINE_BETA: f64 = 8.0;

/// β of the third pass (as the GPU's last tree walk): its remainder bound
/// is 0.0033 of a node's contribution (3β²/(β − 1)⁴), so that only points
/// within rounding of `|w| = ½` (or of the surface) reach the exact sum.
pub const STRICT_BETA: f64 = 32.0;

/// Relative rounding allowance of one f64 term (node or triangle), far
/// above the few ulps each evaluation costs.
const ROUNDING: f64 = 1e-9;

/// Triangles per BVH leaf: small, so that few exact solid angles are needed
/// near the surface.
const LEAF_SIZE: usize = 4;

/// Per-node expansion data, parallel to `Bvh::nodes`, in f64 so that the
/// evaluation adds no float32 rounding to the bound.
#[derive(Clone, Copy, Debug)]
struct Dipole {
    /// Area-weighted centroid `c`.
    centroid: DVec3,
    /// Distance from `centroid` to the farthest corner of the node's box.
    radius: f64,
    /// `N = Σ area · unit normal` = `Σ ½ (b − a) × (c − a)`.
    normal_sum: DVec3,
    /// `M = Σ area · n ⊗ (x̄ − c)`, `M[j][i] = Mᵢⱼ` (glam's column-major).
    moment: DMat3,
    /// `Σ area` (unsigned), for the error bound.
    area: f64,
}

impl Dipole {
    /// The order-1 and -2 solid angle seen from `p` and its error bound, or
    /// `None` when `p` is within `beta · radius`.
    fn approximate(&self, p: DVec3, beta: f64) -> Option<(f64, f64)> {
        let y = self.centroid - p;
        let d = y.length();
        if d <= beta * self.radius {
            return None;
        }
        let (d2, d3) = (d * d, d * d * d);
        let order1 = y.dot(self.normal_sum) / d3;
        let order2 = (self.moment.col(0).x + self.moment.col(1).y + self.moment.col(2).z) / d3
            - 3.0 * y.dot(self.moment * y) / (d3 * d2);
        let gap = d - self.radius;
        let remainder = 3.0 * self.area * self.radius * self.radius / (gap * gap * gap * gap);
        let rounding = ROUNDING * self.area * (1.0 / d2 + 4.0 * self.radius / d3);
        Some((order1 + order2, remainder + rounding))
    }
}

/// Area-weighted sums over a node's triangles, in f64 so that large meshes
/// do not lose small triangles in the sums.
#[derive(Clone, Copy)]
struct Sums {
    /// Σ a·x̄
    weighted_centroid: DVec3,
    /// Σ a
    area: f64,
    /// Σ a·n
    normal: DVec3,
    /// Σ a·n ⊗ x̄ (about the origin; moved to the centroid at the end)
    moment: DMat3,
}

impl Default for Sums {
    fn default() -> Self {
        Sums {
            weighted_centroid: DVec3::ZERO,
            area: 0.0,
            normal: DVec3::ZERO,
            moment: DMat3::ZERO,
        }
    }
}

impl std::ops::Add for Sums {
    type Output = Sums;
    fn add(self, o: Sums) -> Sums {
        Sums {
            weighted_centroid: self.weighted_centroid + o.weighted_centroid,
            area: self.area + o.area,
            normal: self.normal + o.normal,
            moment: self.moment + o.moment,
        }
    }
}

/// `u ⊗ v` (entry `ij` = `uᵢ vⱼ`).
fn outer(u: DVec3, v: DVec3) -> DMat3 {
    DMat3::from_cols(u * v.x, u * v.y, u * v.z)
}

/// A winding number with a bound on its error: the exact value lies in
/// `[w − bound, w + bound]`.
#[derive(Clone, Copy, Debug)]
pub struct BoundedWinding {
    pub w: f64,
    pub bound: f64,
}

impl BoundedWinding {
    /// `Some(|w| > ½)` when the whole interval agrees, else `None`.
    pub fn inside(self) -> Option<bool> {
        let margin = self.w.abs() - 0.5;
        (margin.abs() > self.bound).then_some(margin > 0.0)
    }
}

/// Winding-number evaluator for one triangle soup.
pub struct FastWinding {
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    bvh: Bvh,
    dipoles: Vec<Dipole>,
}

impl FastWinding {
    /// Builds the BVH and the expansion data. Triangle indices must be in
    /// range of `positions` (checked by the mesh loader, asserted here).
    pub fn new(positions: &[Vec3], triangles: &[[u32; 3]]) -> Self {
        let corners = |t: &[u32; 3]| t.map(|i| positions[i as usize]);
        let bounds: Vec<Aabb> = triangles
            .iter()
            .map(|t| Aabb::of_triangle(corners(t)))
            .collect();
        let centroids: Vec<Vec3> = triangles
            .iter()
            .map(|t| corners(t).iter().sum::<Vec3>() / 3.0)
            .collect();
        let bvh = Bvh::build(&bounds, &centroids, LEAF_SIZE);

        // Children follow their parents, so a backward pass sees children
        // first.
        let mut sums = vec![Sums::default(); bvh.nodes.len()];
        for i in (0..bvh.nodes.len()).rev() {
            let node = &bvh.nodes[i];
            sums[i] = if Bvh::is_leaf(node) {
                bvh.order[Bvh::leaf_range(node)]
                    .iter()
                    .map(|&t| {
                        let [a, b, c] = corners(&triangles[t as usize]).map(Vec3::as_dvec3);
                        let normal = 0.5 * (b - a).cross(c - a);
                        let area = normal.length();
                        let x = (a + b + c) / 3.0;
                        Sums {
                            weighted_centroid: area * x,
                            area,
                            normal,
                            moment: outer(normal, x),
                        }
                    })
                    .fold(Sums::default(), |acc, s| acc + s)
            } else {
                sums[node.a as usize] + sums[node.b as usize]
            };
        }
        let dipoles = bvh
            .nodes
            .iter()
            .zip(&sums)
            .map(|(node, s)| {
                let aabb = node.aabb();
                let (lo, hi) = (aabb.min.as_dvec3(), aabb.max.as_dvec3());
                // Zero-area nodes have no meaningful weighted centroid.
                let centroid = if s.area > 0.0 {
                    s.weighted_centroid / s.area
                } else {
                    0.5 * (lo + hi)
                };
                Dipole {
                    centroid,
                    radius: (centroid - lo).max(hi - centroid).length(),
                    normal_sum: s.normal,
                    moment: s.moment - outer(s.normal, centroid),
                    area: s.area,
                }
            })
            .collect();
        FastWinding {
            positions: positions.to_vec(),
            triangles: triangles.to_vec(),
            bvh,
            dipoles,
        }
    }

    /// Winding number at `p` with its error bound, approximating nodes
    /// farther than `beta` radii (module docs).
    pub fn bounded(&self, p: Vec3, beta: f64) -> BoundedWinding {
        let mut solid_angle = 0.0f64;
        let mut bound = 0.0f64;
        if self.bvh.nodes.is_empty() {
            return BoundedWinding { w: 0.0, bound };
        }
        let p = p.as_dvec3();
        let mut stack = vec![0u32];
        while let Some(i) = stack.pop() {
            if let Some((omega, err)) = self.dipoles[i as usize].approximate(p, beta) {
                solid_angle += omega;
                bound += err;
                continue;
            }
            let node = &self.bvh.nodes[i as usize];
            if Bvh::is_leaf(node) {
                for &t in &self.bvh.order[Bvh::leaf_range(node)] {
                    let tri = self.triangles[t as usize].map(|v| self.positions[v as usize]);
                    solid_angle += solid_angle_triangle(p, tri.map(Vec3::as_dvec3));
                    bound += ROUNDING;
                }
            } else {
                stack.extend([node.a, node.b]);
            }
        }
        BoundedWinding {
            w: solid_angle / (4.0 * PI),
            bound: bound / (4.0 * PI),
        }
    }

    /// Approximate winding number at `p` (Barill et al. 2018, orders 1–2).
    pub fn winding_number(&self, p: Vec3) -> f32 {
        self.bounded(p, BETA).w as f32
    }

    /// [`FastWinding::winding_number`] for many points, in parallel.
    pub fn winding_numbers(&self, points: &[Vec3]) -> Vec<f32> {
        points.par_iter().map(|&p| self.winding_number(p)).collect()
    }

    /// Whether `|w| > ½` at `p` for the exact winding number: the fast pass,
    /// then [`REFINE_BETA`] and `STRICT_BETA`, then the exact sum where
    /// the bounds leave it open (module docs).
    pub fn is_inside(&self, p: Vec3) -> bool {
        [BETA, REFINE_BETA, STRICT_BETA]
            .into_iter()
            .find_map(|beta| self.bounded(p, beta).inside())
            .unwrap_or_else(|| self.exact(p).abs() > 0.5)
    }

    /// The exact winding number at `p` ([`winding_number_exact`]).
    pub fn exact(&self, p: Vec3) -> f64 {
        winding_number_exact(&self.positions, &self.triangles, p)
    }

    /// [`FastWinding::is_inside`] for points a β = 32 walk has already left
    /// open (the GPU's leftover cells): the fast pass, which decides points
    /// that only float32 rounding kept open (near the surface, `w` far from
    /// ½), then the exact sum straight away. The stricter walks would cost
    /// about a third of the exact sum, serially, and cannot decide the
    /// points within about 1e-4 of `|w| = ½` that such a walk leaves: their
    /// bound stops at `STRICT_BETA`'s 1e-3 and, at any β, at the exact
    /// leaves' rounding allowance. The sign is the same as
    /// [`FastWinding::is_inside`]'s: the exact winding number's.
    pub fn is_inside_after_strict_walk(&self, p: Vec3) -> bool {
        self.bounded(p, BETA)
            .inside()
            .unwrap_or_else(|| self.exact(p).abs() > 0.5)
    }

    /// [`FastWinding::is_inside`] for many points, in parallel.
    pub fn inside_flags(&self, points: &[Vec3]) -> Vec<bool> {
        points.par_iter().map(|&p| self.is_inside(p)).collect()
    }

    /// The tree for the GPU evaluation, relative to `frame` (rounded to
    /// float32 after the subtraction, in f64, so that a mesh far from the
    /// origin keeps its detail).
    pub fn packed(&self, frame: DVec3) -> PackedWinding {
        let local = |v: DVec3| (v - frame).as_vec3().to_array();
        let nodes = self
            .bvh
            .nodes
            .iter()
            .zip(&self.dipoles)
            .map(|(node, d)| WindingNode {
                centroid: local(d.centroid),
                // Rounded up, and grown by the centroid's own rounding, so
                // that the float32 ball still holds every corner.
                radius: (d.radius as f32 + f32::EPSILON * (d.centroid - frame).length() as f32)
                    .next_up(),
                normal_sum: d.normal_sum.as_vec3().to_array(),
                area: d.area as f32,
                m0: d.moment.col(0).as_vec3().to_array(),
                a: node.a,
                m1: d.moment.col(1).as_vec3().to_array(),
                b: node.b,
                m2: d.moment.col(2).as_vec3().to_array(),
                _pad: 0,
            })
            .collect();
        let corners = self
            .bvh
            .order
            .iter()
            .flat_map(|&t| {
                self.triangles[t as usize].map(|v| {
                    let [x, y, z] = local(self.positions[v as usize].as_dvec3());
                    [x, y, z, 0.0]
                })
            })
            .collect();
        PackedWinding {
            nodes,
            corners,
            depth: self.bvh.depth(),
        }
    }

    /// [`Self::packed`] for a GPU walk whose stack holds `stack` nodes:
    /// `Err(depth)` when the tree is too deep for it (a walk pops one node
    /// and pushes two, so it needs depth < `stack`), and a mesh without
    /// triangles gets one empty leaf (w = 0 everywhere).
    pub fn packed_for_stack(&self, frame: DVec3, stack: usize) -> Result<PackedWinding, usize> {
        let mut packed = self.packed(frame);
        if packed.depth >= stack {
            return Err(packed.depth);
        }
        if packed.nodes.is_empty() {
            packed.nodes.push(WindingNode {
                b: super::LEAF_BIT,
                ..bytemuck::Zeroable::zeroed()
            });
        }
        Ok(packed)
    }
}

/// One node of [`FastWinding`]'s tree as the GPU reads it
/// (`struct WindingNode` of shaders/shared/winding.wgsl, checked by
/// tests/it/shader_layouts.rs): the expansion data in float32, relative to a
/// frame centre, and the tree links (`a`, `b` as in [`crate::geom::BvhNode`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct WindingNode {
    pub centroid: [f32; 3],
    pub radius: f32,
    pub normal_sum: [f32; 3],
    pub area: f32,
    /// Columns of `M` (as [`glam::DMat3`]), each followed by a link.
    pub m0: [f32; 3],
    pub a: u32,
    pub m1: [f32; 3],
    pub b: u32,
    pub m2: [f32; 3],
    pub _pad: u32,
}

/// The tree and triangle corners of a [`FastWinding`] for the GPU, in a
/// frame centred on `frame` (world = local + frame).
pub struct PackedWinding {
    pub nodes: Vec<WindingNode>,
    /// 3 corners per triangle in tree order (leaf slots index them), w = 0.
    pub corners: Vec<[f32; 4]>,
    /// Nodes on the longest root-to-leaf path.
    pub depth: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::closest_point_triangle;

    use crate::geom::test_rng::Rng;

    /// The cube [-1, 1]³ with each face an `n`×`n` grid of quads, outward
    /// oriented; face `skip` (index `2·axis + (sign > 0)`) is left out.
    fn cube(n: u32, skip: Option<usize>) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let (mut positions, mut triangles) = (Vec::new(), Vec::new());
        for face in (0..6).filter(|f| Some(*f) != skip) {
            let axis = face / 2;
            let sign = if face % 2 == 1 { 1.0 } else { -1.0 };
            let normal = Vec3::AXES[axis] * sign;
            // (u, v, normal) right-handed, so grid quads wind outward.
            let (mut u, mut v) = (Vec3::AXES[(axis + 1) % 3], Vec3::AXES[(axis + 2) % 3]);
            if sign < 0.0 {
                std::mem::swap(&mut u, &mut v);
            }
            let base = positions.len() as u32;
            for j in 0..=n {
                for i in 0..=n {
                    let (s, t) = (
                        2.0 * i as f32 / n as f32 - 1.0,
                        2.0 * j as f32 / n as f32 - 1.0,
                    );
                    positions.push(normal + s * u + t * v);
                }
            }
            let at = |i: u32, j: u32| base + j * (n + 1) + i;
            for j in 0..n {
                for i in 0..n {
                    triangles.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
                    triangles.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
                }
            }
        }
        (positions, triangles)
    }

    fn distance_to_mesh(positions: &[Vec3], triangles: &[[u32; 3]], p: Vec3) -> f32 {
        triangles
            .iter()
            .map(|t| closest_point_triangle(p, t.map(|i| positions[i as usize])).distance_squared)
            .fold(f32::INFINITY, f32::min)
            .sqrt()
    }

    /// Points 1e-3 inside and outside a dense closed surface:
    /// [`STRICT_BETA`] decides every one of them on its own, with the exact
    /// side, so that [`FastWinding::is_inside`] need not give them the
    /// exact O(n) sum.
    #[test]
    fn strict_beta_decides_points_near_a_dense_surface() {
        let (positions, triangles) = cube(48, None);
        let winding = FastWinding::new(&positions, &triangles);
        let mut rng = Rng(0x5eed);
        let mut open = [0usize; 2];
        for _ in 0..400 {
            // A point 1e-3 inside or outside a random face.
            let mut p = rng.vec3(-0.99, 0.99);
            let axis = (rng.f32() * 3.0) as usize % 3;
            let side = if rng.f32() < 0.5 { -1.0 } else { 1.0 };
            let depth = if rng.f32() < 0.5 { -1e-3 } else { 1e-3 };
            p[axis] = side * (1.0 + depth);
            let inside = depth < 0.0;
            for (k, beta) in [BETA, REFINE_BETA].into_iter().enumerate() {
                open[k] += usize::from(winding.bounded(p, beta).inside().is_none());
            }
            assert_eq!(
                winding.bounded(p, STRICT_BETA).inside(),
                Some(inside),
                "{p}: β = 32 leaves it open or on the wrong side"
            );
            assert_eq!(winding.is_inside(p), inside, "{p}");
        }
        eprintln!(
            "of 400 points, {} open at β = 5, {} at β = 8",
            open[0], open[1]
        );
    }

    #[test]
    fn closed_sphere_is_one_inside_zero_outside() {
        // A cube-sphere: the subdivided cube pushed onto the unit sphere.
        let (mut positions, triangles) = cube(12, None);
        for p in &mut positions {
            *p = p.normalize();
        }
        let fast = FastWinding::new(&positions, &triangles);
        let mut rng = Rng(0x1234_5678_9abc_def1);
        for q in 0..2000 {
            let p = rng.vec3(-2.5, 2.5);
            let r = p.length();
            // The polyhedron lies between radius ~0.99 and 1.
            if (0.9..1.1).contains(&r) {
                continue;
            }
            let expected = if r < 0.9 { 1.0 } else { 0.0 };
            let w = fast.winding_number(p);
            assert!((w - expected).abs() < 0.01, "query {q} at {p}: w = {w}");
        }
    }

    #[test]
    fn fast_matches_exact_away_from_an_open_surface() {
        let (positions, triangles) = cube(8, Some(5)); // no +z face
        let fast = FastWinding::new(&positions, &triangles);
        let size = 2.0;
        let mut rng = Rng(0x0dd_ba11);
        let points: Vec<Vec3> = (0..3000)
            .map(|_| rng.vec3(-3.0, 3.0))
            .filter(|&p| distance_to_mesh(&positions, &triangles, p) >= 0.1 * size)
            .take(1000)
            .collect();
        assert_eq!(points.len(), 1000);
        let batch = fast.winding_numbers(&points);
        for (q, (&p, &w)) in points.iter().zip(&batch).enumerate() {
            let exact = winding_number_exact(&positions, &triangles, p);
            assert_eq!(w, fast.winding_number(p), "query {q}: batch differs");
            assert!(
                (f64::from(w) - exact).abs() < 0.02,
                "query {q} at {p}: {w} vs {exact}"
            );
        }
    }

    #[test]
    fn hole_gives_a_half() {
        let (positions, triangles) = cube(8, Some(5));
        let fast = FastWinding::new(&positions, &triangles);
        // The centre of the missing face, and points in its plane.
        for p in [Vec3::Z, Vec3::new(0.3, -0.2, 1.0), Vec3::new(0.0, 0.5, 1.0)] {
            let w = fast.winding_number(p);
            let exact = winding_number_exact(&positions, &triangles, p);
            assert!(w.is_finite() && (0.3..0.7).contains(&w), "{p}: w = {w}");
            assert!((f64::from(w) - exact).abs() < 0.02, "{p}: {w} vs {exact}");
        }
    }

    /// The open cube of `cube(3, Some(5))` with every vertex moved by up to
    /// `jitter` (faces keep their own vertices, so the seams tear too).
    fn random_open_mesh(seed: u64, jitter: f32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let (mut positions, triangles) = cube(3, Some(5));
        let mut rng = Rng(seed | 1);
        for p in &mut positions {
            *p += rng.vec3(-jitter, jitter);
        }
        (positions, triangles)
    }

    /// Bisects the segment `a`–`b` (exact `w` above ½ at `a`, below at `b`)
    /// down to two neighbouring float32 points on either side of w = ½.
    fn straddle_half(positions: &[Vec3], triangles: &[[u32; 3]], a: Vec3, b: Vec3) -> [Vec3; 2] {
        let exact = |p| winding_number_exact(positions, triangles, p);
        let (mut a, mut b) = (a, b);
        for _ in 0..64 {
            let m = 0.5 * (a + b);
            if m == a || m == b {
                break;
            }
            if exact(m) > 0.5 { a = m } else { b = m }
        }
        [a, b]
    }

    #[test]
    fn bound_holds_and_sign_is_exact_where_w_is_a_half() {
        let mut fast_only_wrong = 0;
        for seed in 1..=8u64 {
            let (positions, triangles) = random_open_mesh(seed * 0x9e37_79b9, 0.15);
            let fast = FastWinding::new(&positions, &triangles);
            let mut rng = Rng(seed);
            for _ in 0..8 {
                let inner = rng.vec3(-0.3, 0.3) - 0.2 * Vec3::Z;
                let outer = rng.vec3(-0.6, 0.6) + 2.0 * Vec3::Z;
                for p in straddle_half(&positions, &triangles, inner, outer) {
                    let exact = winding_number_exact(&positions, &triangles, p);
                    for beta in [BETA, REFINE_BETA] {
                        let b = fast.bounded(p, beta);
                        assert!((b.w - exact).abs() <= b.bound, "{p}: {b:?} vs {exact}");
                    }
                    assert_eq!(fast.is_inside(p), exact.abs() > 0.5, "{p}: w = {exact}");
                    assert_eq!(
                        fast.is_inside_after_strict_walk(p),
                        exact.abs() > 0.5,
                        "{p}: w = {exact}"
                    );
                    fast_only_wrong +=
                        usize::from((fast.bounded(p, BETA).w > 0.5) != (exact > 0.5));
                }
            }
        }
        // Without the exact fallback these points would have the wrong sign.
        assert!(fast_only_wrong > 0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        #[test]
        fn sign_equals_exact_near_a_half(
            seed in 1u64..u64::MAX,
            jitter in 0.0f32..0.3,
            inner in proptest::array::uniform3(-0.4f32..0.4),
            outer in proptest::array::uniform3(-1.0f32..1.0),
        ) {
            let (positions, triangles) = random_open_mesh(seed, jitter);
            let fast = FastWinding::new(&positions, &triangles);
            let (a, b) = (Vec3::from(inner) - 0.3 * Vec3::Z, Vec3::from(outer) + 2.5 * Vec3::Z);
            let exact = |p| winding_number_exact(&positions, &triangles, p);
            proptest::prop_assume!(exact(a) > 0.5 && exact(b) < 0.5);
            for p in straddle_half(&positions, &triangles, a, b) {
                let w = exact(p);
                let fast_w = fast.bounded(p, BETA);
                proptest::prop_assert!((fast_w.w - w).abs() <= fast_w.bound, "{:?} vs {}", fast_w, w);
                proptest::prop_assert_eq!(fast.is_inside(p), w.abs() > 0.5);
                proptest::prop_assert_eq!(fast.is_inside_after_strict_walk(p), w.abs() > 0.5);
            }
        }
    }

    #[test]
    fn inward_facing_surfaces_are_inside_where_w_is_minus_one() {
        // An open cube wound inward: w ≈ −5/6 at its centre.
        let (positions, mut triangles) = cube(8, Some(5));
        for t in &mut triangles {
            t.swap(1, 2);
        }
        let fast = FastWinding::new(&positions, &triangles);
        let w = winding_number_exact(&positions, &triangles, Vec3::ZERO);
        assert!(w < -0.8, "{w}");
        assert!(fast.is_inside(Vec3::ZERO));
        assert!(fast.is_inside(Vec3::new(0.5, -0.5, -0.5)));
        assert!(!fast.is_inside(Vec3::new(0.0, 0.0, -1.5)));
    }

    #[test]
    fn empty_soups_are_everywhere_outside() {
        assert_eq!(FastWinding::new(&[], &[]).winding_number(Vec3::ZERO), 0.0);
    }
}
