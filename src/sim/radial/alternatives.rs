//! Two of the alternatives Friston & Steed compare radial fields with
//! (§9, table 1), on the same skinned mesh and particles: a uniform
//! spatial hash of the triangles and a BVH of them, each answering per
//! particle the signed distance to the nearest triangle within `reach`
//! (`None` beyond). The sign is the side of the nearest triangle's plane
//! (negative: inside the skin).
//!
//! * [`SpatialHash`]: a uniform grid of cell size `reach` over the mesh's
//!   box, each triangle listed in every cell its box overlaps (counting
//!   sort: cell offsets, then entries). A particle tests the triangles of
//!   the 27 cells around it.
//! * [`bvh_query`]: [`crate::geom::Bvh`] over the triangles' boxes,
//!   nearest-first traversal pruned at `reach²`.
//!
//! Both rebuild from the skinned positions every frame (the mesh
//! deforms), run on the CPU (rayon) and report their memory. Both
//! compute the same point–triangle distance
//! ([`crate::geom::closest_point_triangle`]), so within
//! `reach` they give the same answers; the radial fields answer the
//! same question (inside or outside the skin) from their cells
//! ([`radial_inside`]).

use glam::{IVec3, Vec3};
use rayon::prelude::*;

use crate::geom::{Aabb, Bvh, closest_point_triangle};
use crate::stages::radial::{BoneFrame, RadialProduct};

/// Triangles per BVH leaf.
pub const BVH_LEAF: usize = 4;

fn corners(positions: &[Vec3], t: [u32; 3]) -> [Vec3; 3] {
    t.map(|v| positions[v as usize])
}

/// The signed distance from `p` to triangle `tri` (negative behind its
/// plane, counter-clockwise winding facing out).
fn signed_distance(p: Vec3, tri: [Vec3; 3]) -> f32 {
    let c = closest_point_triangle(p, tri);
    let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
    let d = c.distance_squared.sqrt();
    if (p - c.point).dot(n) < 0.0 { -d } else { d }
}

/// The nearest of `candidates` within `reach²` by `d2`: (index, d²), the
/// lowest index among equals.
fn nearest_of(
    reach2: f32,
    candidates: impl Iterator<Item = u32>,
    d2: impl Fn(u32) -> f32,
) -> Option<(u32, f32)> {
    candidates
        .map(|t| (t, d2(t)))
        .filter(|&(_, d)| d <= reach2)
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
}

/// A uniform spatial hash of a triangle mesh (see the module docs).
pub struct SpatialHash {
    origin: Vec3,
    cell: f32,
    dims: IVec3,
    /// Entries of cell c: `entries[offsets[c]..offsets[c + 1]]`.
    offsets: Vec<u32>,
    entries: Vec<u32>,
}

impl SpatialHash {
    /// Bins every triangle of `positions` into cells of size `cell`.
    pub fn build(positions: &[Vec3], triangles: &[[u32; 3]], cell: f32) -> SpatialHash {
        let bounds = Aabb::from_points(positions);
        let dims = ((bounds.size() / cell).floor().as_ivec3() + 1).max(IVec3::ONE);
        let mut hash = SpatialHash {
            origin: bounds.min,
            cell,
            dims,
            offsets: vec![0; (dims.x * dims.y * dims.z) as usize + 1],
            entries: Vec::new(),
        };
        let ranges: Vec<(IVec3, IVec3)> = (triangles.par_iter())
            .map(|&t| {
                let b = Aabb::of_triangle(corners(positions, t));
                (hash.cell_of(b.min), hash.cell_of(b.max))
            })
            .collect();
        let each = |f: &mut dyn FnMut(usize, u32)| {
            for (t, (lo, hi)) in ranges.iter().enumerate() {
                for z in lo.z..=hi.z {
                    for y in lo.y..=hi.y {
                        for x in lo.x..=hi.x {
                            f(hash.index(IVec3::new(x, y, z)), t as u32);
                        }
                    }
                }
            }
        };
        let mut counts = vec![0u32; hash.offsets.len()];
        each(&mut |c, _| counts[c + 1] += 1);
        for c in 1..counts.len() {
            counts[c] += counts[c - 1];
        }
        let mut fill = counts.clone();
        let mut entries = vec![0u32; counts.last().map_or(0, |&n| n as usize)];
        each(&mut |c, t| {
            entries[fill[c] as usize] = t;
            fill[c] += 1;
        });
        hash.offsets = counts;
        hash.entries = entries;
        hash
    }

    fn cell_of(&self, p: Vec3) -> IVec3 {
        ((p - self.origin) / self.cell)
            .floor()
            .as_ivec3()
            .clamp(IVec3::ZERO, self.dims - 1)
    }

    fn index(&self, c: IVec3) -> usize {
        ((c.z * self.dims.y + c.y) * self.dims.x + c.x) as usize
    }

    /// Bytes of the cell table and the entries.
    pub fn memory_bytes(&self) -> usize {
        4 * (self.offsets.len() + self.entries.len())
    }

    /// Each particle's signed distance to the mesh within `reach` (at
    /// most the cell size).
    pub fn query(
        &self,
        positions: &[Vec3],
        triangles: &[[u32; 3]],
        particles: &[Vec3],
        reach: f32,
    ) -> Vec<Option<f32>> {
        let reach2 = reach * reach;
        particles
            .par_iter()
            .map(|&p| {
                let c = ((p - self.origin) / self.cell).floor().as_ivec3();
                let lo = (c - 1).max(IVec3::ZERO);
                let hi = (c + 1).min(self.dims - 1);
                let mut cells = Vec::new();
                for z in lo.z..=hi.z {
                    for y in lo.y..=hi.y {
                        for x in lo.x..=hi.x {
                            let i = self.index(IVec3::new(x, y, z));
                            let range = self.offsets[i] as usize..self.offsets[i + 1] as usize;
                            cells.extend_from_slice(&self.entries[range]);
                        }
                    }
                }
                let tri = |t: u32| corners(positions, triangles[t as usize]);
                nearest_of(reach2, cells.into_iter(), |t| {
                    closest_point_triangle(p, tri(t)).distance_squared
                })
                .map(|(t, _)| signed_distance(p, tri(t)))
            })
            .collect()
    }
}

/// A BVH over the mesh's triangles and its memory in bytes.
pub fn bvh_build(positions: &[Vec3], triangles: &[[u32; 3]]) -> (Bvh, usize) {
    let (bounds, centroids): (Vec<Aabb>, Vec<Vec3>) = triangles
        .par_iter()
        .map(|&t| {
            let c = corners(positions, t);
            (Aabb::of_triangle(c), (c[0] + c[1] + c[2]) / 3.0)
        })
        .unzip();
    let bvh = Bvh::build(&bounds, &centroids, BVH_LEAF);
    let bytes = std::mem::size_of_val(bvh.nodes.as_slice()) + 4 * bvh.order.len();
    (bvh, bytes)
}

/// Each particle's signed distance to the mesh within `reach`, by `bvh`.
pub fn bvh_query(
    bvh: &Bvh,
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    particles: &[Vec3],
    reach: f32,
) -> Vec<Option<f32>> {
    particles
        .par_iter()
        .map(|&p| {
            let tri = |t: u32| corners(positions, triangles[t as usize]);
            let d2 = |t: u32| closest_point_triangle(p, tri(t)).distance_squared;
            let (t, _) = bvh.nearest(p, reach * reach, d2)?;
            Some(signed_distance(p, tri(t)))
        })
        .collect()
}

/// Whether `p` is inside the skin by the radial fields of `product` in
/// `frames` (one per field): inside a field's cylinder (z in [0, 1]) and
/// nearer the axis than its cell's surface; `None` when no field's
/// cylinder holds it or the cells there are empty.
pub fn radial_inside(product: &RadialProduct, frames: &[BoneFrame], p: Vec3) -> Option<bool> {
    let mut answer = None;
    for (f, frame) in frames.iter().enumerate() {
        let c = frame.to_cylindrical(p);
        if !(0.0..1.0).contains(&c.z) {
            continue;
        }
        let i = ((c.theta * product.n_theta as f32) as u32).min(product.n_theta - 1);
        let k = ((c.z * product.n_z as f32) as u32).min(product.n_z - 1);
        let d = product.field(f)[(k * product.n_theta + i) as usize];
        if d.is_finite() {
            let inside = c.r < d;
            answer = Some(answer.unwrap_or(false) || inside);
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Progress;
    use crate::stages::radial::{Backend, FieldSpec, Radial, RadialInput, RadialParams};

    /// Points spread over a box (a fixed low-discrepancy sequence).
    fn points(n: usize, half: f32) -> Vec<Vec3> {
        let frac = |x: f32| x - x.floor();
        (0..n)
            .map(|i| {
                let i = i as f32 + 1.0;
                Vec3::new(
                    frac(i * 0.754_877_7),
                    frac(i * 0.569_840_3),
                    frac(i * 0.362_4),
                ) * (2.0 * half)
                    - half
            })
            .collect()
    }

    #[test]
    fn hash_and_bvh_agree_with_brute_force_and_the_radial_field() {
        // A closed cylinder of radius 0.5 from y = −0.5 to 0.5.
        let mesh = crate::mesh::cylinder(48);
        let (pos, tris) = (&mesh.positions, &mesh.triangles);
        let particles = points(4000, 0.8);
        let reach = 0.2;
        let hash = SpatialHash::build(pos, tris, reach);
        let by_hash = hash.query(pos, tris, &particles, reach);
        let (bvh, bvh_bytes) = bvh_build(pos, tris);
        let by_bvh = bvh_query(&bvh, pos, tris, &particles, reach);
        assert!(hash.memory_bytes() > 4 * tris.len() && bvh_bytes > 4 * tris.len());
        let mut near = 0;
        for (j, &p) in particles.iter().enumerate() {
            let brute = (0..tris.len() as u32)
                .map(|t| closest_point_triangle(p, corners(pos, tris[t as usize])).distance_squared)
                .fold(f32::INFINITY, f32::min)
                .sqrt();
            let expected = (brute <= reach).then_some(brute);
            let (h, b) = (by_hash[j], by_bvh[j]);
            assert_eq!(h.map(f32::abs), expected, "hash, particle {j} at {p}");
            assert_eq!(b.map(f32::abs), expected, "bvh, particle {j} at {p}");
            assert_eq!(h, b, "hash and bvh signs, particle {j} at {p}");
            if let Some(d) = h {
                near += 1;
                // A convex solid: inside exactly when within every face plane.
                let inside = p.y.abs() < 0.5 && p.x.hypot(p.z) < 0.49;
                if inside || p.x.hypot(p.z) > 0.5 || p.y.abs() > 0.5 {
                    assert_eq!(d < 0.0, inside, "sign of particle {j} at {p}: {d}");
                }
            }
        }
        assert!(near > 400, "only {near} particles within reach");

        // The radial field around the axis answers inside/outside the same
        // way wherever it holds the side wall, for particles within reach
        // and farther from the surface than the facets' and cells' error.
        let frame =
            BoneFrame::new(Vec3::new(0.0, -0.6, 0.0), Vec3::new(0.0, 0.6, 0.0), Vec3::X).unwrap();
        let fields = [FieldSpec { frame, faces: None }];
        let input = RadialInput {
            positions: pos,
            triangles: tris,
            fields: &fields,
        };
        let params = RadialParams::new(128, 64);
        let product =
            Radial::run(input, &params, Backend::Cpu, None, &Progress::default()).unwrap();
        let mut compared = 0;
        for (j, &p) in particles.iter().enumerate() {
            let Some(inside) = radial_inside(&product, &[frame], p) else {
                continue;
            };
            // Beyond reach the alternatives do not answer.
            let Some(distance) = by_bvh[j] else {
                continue;
            };
            if distance.abs() < 0.01 || p.y.abs() > 0.45 {
                continue;
            }
            compared += 1;
            assert_eq!(inside, distance < 0.0, "particle {j} at {p}: {distance}");
        }
        assert!(compared > 300, "only {compared} particles compared");
    }
}
