//! The GPU backend's tree: the prepared mesh's BVH ([`Bvh`], leaves of up
//! to 4 triangles for the CPU backends) with every subtree of at most
//! [`GPU_LEAF`] triangles collapsed into one leaf, each node carrying a
//! slab besides its box.
//!
//! # Why bigger leaves
//! The GPU walks the tree with a packet of cells per subgroup
//! (`shaders/sdf_packet.wgsl`); every step waits for one round trip to
//! memory, and a leaf's triangles are tested in step by all its cells. On
//! the H100, 16 triangles per leaf beat 4 and 8: fewer, cheaper steps.
//!
//! # Slabs
//! A node's slab is the band `lo ≤ n·x ≤ hi` that holds all its corners,
//! for the unit `n` along the area-weighted mean of its triangles' normals
//! (each flipped to agree with the running sum, so inconsistent winding
//! does not cancel it). Since `|p − q| ≥ |n·p − n·q|`, the distance from a
//! cell centre `p` to the slab bounds the distance to every triangle in
//! the node from below, as the box does; the traversal takes the larger
//! bound. Near a smooth surface a small node is a thin slab, and a point
//! above the surface is farther from its neighbouring patches' slabs than
//! from their boxes, so fewer of them pass for a point whose nearest
//! triangle is already known. Nodes of more than [`SLAB_MAX`] triangles
//! (whose mean normal says little) get no slab: `n = 0` and an unbounded
//! band. Slabs need subtrees to be contiguous slot ranges, which the build
//! guarantees (`Bvh::build` partitions the order in place).
//!
//! # Layout
//! Depth-first, root first, as [`Bvh`]; 48 bytes of payload, 64 with
//! padding (std430):
//!
//! ```text
//! | min.xyz | a | max.xyz | b | normal.xyz | lo | hi | pad ×3 |
//! inner: a, b = children; leaf: a = first slot, b = LEAF_BIT | count
//! ```

use glam::Vec3;
use rayon::prelude::*;

use crate::geom::{Bvh, BvhNode, LEAF_BIT};

/// Largest subtree that becomes one leaf.
pub const GPU_LEAF: usize = 16;
/// Largest node that gets a slab.
pub const SLAB_MAX: usize = 256;

/// One node: `struct SlabNode` of shaders/sdf_packet.wgsl (the layout is
/// checked by tests/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SlabNode {
    pub min: [f32; 3],
    pub a: u32,
    pub max: [f32; 3],
    pub b: u32,
    pub normal: [f32; 3],
    pub lo: f32,
    pub hi: f32,
    pub _pad: [u32; 3],
}

const _: () = assert!(std::mem::size_of::<SlabNode>() == 64);

impl SlabNode {
    pub fn is_leaf(&self) -> bool {
        self.b & LEAF_BIT != 0
    }

    /// The lower bound the GPU computes (without its rounding margin): the
    /// larger of the distances to the box and to the slab.
    #[cfg(test)]
    fn distance(&self, p: Vec3) -> f32 {
        let lo = Vec3::from(self.min);
        let hi = Vec3::from(self.max);
        let box_d = (lo - p).max(p - hi).max(Vec3::ZERO).length();
        let np = Vec3::from(self.normal).dot(p);
        box_d.max((np - self.hi).max(self.lo - np).max(0.0))
    }
}

/// The collapsed tree with slabs over `corners` (3 per triangle, in BVH
/// slot order, as uploaded).
pub fn build(bvh: &Bvh, corners: &[[f32; 4]]) -> Vec<SlabNode> {
    let Some(root) = bvh.nodes.first() else {
        return Vec::new();
    };
    // Slot range of every subtree, children before parents (children
    // always follow their parent in the layout).
    let mut ranges = vec![(0u32, 0u32); bvh.nodes.len()];
    for (k, n) in bvh.nodes.iter().enumerate().rev() {
        ranges[k] = if n.b & LEAF_BIT != 0 {
            (n.a, n.a + (n.b & !LEAF_BIT))
        } else {
            (ranges[n.a as usize].0, ranges[n.b as usize].1)
        };
    }
    let mut out: Vec<(BvhNode, (u32, u32))> = Vec::with_capacity(bvh.nodes.len());
    collapse(bvh, &ranges, 0, root, &mut out);
    out.par_iter()
        .map(|&(node, range)| with_slab(node, range, corners))
        .collect()
}

/// Appends the collapsed subtree of node `k` in depth-first order; returns
/// its index.
fn collapse(
    bvh: &Bvh,
    ranges: &[(u32, u32)],
    k: usize,
    node: &BvhNode,
    out: &mut Vec<(BvhNode, (u32, u32))>,
) -> u32 {
    let index = out.len() as u32;
    let (first, end) = ranges[k];
    let count = (end - first) as usize;
    if node.b & LEAF_BIT != 0 || count <= GPU_LEAF {
        let leaf = BvhNode {
            a: first,
            b: LEAF_BIT | count as u32,
            ..*node
        };
        out.push((leaf, (first, end)));
        return index;
    }
    out.push((*node, (first, end)));
    let (l, r) = (node.a as usize, node.b as usize);
    let a = collapse(bvh, ranges, l, &bvh.nodes[l], out);
    let b = collapse(bvh, ranges, r, &bvh.nodes[r], out);
    out[index as usize].0.a = a;
    out[index as usize].0.b = b;
    index
}

fn with_slab(node: BvhNode, (first, end): (u32, u32), corners: &[[f32; 4]]) -> SlabNode {
    let mut out = SlabNode {
        min: node.min,
        a: node.a,
        max: node.max,
        b: node.b,
        normal: [0.0; 3],
        lo: f32::MIN,
        hi: f32::MAX,
        _pad: [0; 3],
    };
    if (end - first) as usize > SLAB_MAX {
        return out;
    }
    let triangle = |s: u32| -> [Vec3; 3] {
        std::array::from_fn(|i| Vec3::from_slice(&corners[3 * s as usize + i][..3]))
    };
    let sum = (first..end).fold(Vec3::ZERO, |sum, s| {
        let [a, b, c] = triangle(s);
        let n = (b - a).cross(c - a);
        if n.dot(sum) < 0.0 { sum - n } else { sum + n }
    });
    let Some(normal) = sum.try_normalize() else {
        return out;
    };
    let (lo, hi) = (first..end)
        .flat_map(|s| triangle(s).map(|v| normal.dot(v)))
        .fold((f32::MAX, f32::MIN), |(lo, hi), d| (lo.min(d), hi.max(d)));
    out.normal = normal.to_array();
    out.lo = lo;
    out.hi = hi;
    out
}

/// Depth of the collapsed tree (1 for a single leaf, 0 when empty).
pub fn depth(nodes: &[SlabNode]) -> usize {
    let mut depth = vec![1usize; nodes.len()];
    for (k, n) in nodes.iter().enumerate().rev() {
        if !n.is_leaf() {
            depth[k] = 1 + depth[n.a as usize].max(depth[n.b as usize]);
        }
    }
    depth.first().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::{Aabb, closest_point_triangle};
    use proptest::prelude::*;

    /// A bumpy open sheet of `n × n` quads, corners in slot order.
    fn sheet(n: usize, bump: f32) -> (Bvh, Vec<[f32; 4]>) {
        let h = |i: usize, j: usize| (i as f32 * 0.7).sin() * (j as f32 * 0.4).cos() * bump;
        let v = |i: usize, j: usize| Vec3::new(i as f32, j as f32, h(i, j));
        let mut tris = Vec::new();
        for i in 0..n {
            for j in 0..n {
                tris.push([v(i, j), v(i + 1, j), v(i + 1, j + 1)]);
                tris.push([v(i, j), v(i + 1, j + 1), v(i, j + 1)]);
            }
        }
        let bounds: Vec<Aabb> = tris.iter().map(Aabb::from_points).collect();
        let centroids: Vec<Vec3> = tris.iter().map(|t| (t[0] + t[1] + t[2]) / 3.0).collect();
        let bvh = Bvh::build(&bounds, &centroids, 4);
        let corners = bvh
            .order
            .iter()
            .flat_map(|&t| tris[t as usize].map(|v| v.extend(0.0).to_array()))
            .collect();
        (bvh, corners)
    }

    fn slot_triangle(corners: &[[f32; 4]], s: u32) -> [Vec3; 3] {
        std::array::from_fn(|i| Vec3::from_slice(&corners[3 * s as usize + i][..3]))
    }

    #[test]
    fn collapsed_leaves_cover_every_slot_once_within_the_leaf_size() {
        let (bvh, corners) = sheet(20, 1.5);
        let nodes = build(&bvh, &corners);
        let mut seen = vec![0; bvh.order.len()];
        for n in nodes.iter().filter(|n| n.is_leaf()) {
            let count = (n.b & !LEAF_BIT) as usize;
            assert!((1..=GPU_LEAF).contains(&count), "leaf of {count}");
            for s in n.a..n.a + count as u32 {
                seen[s as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c == 1), "slots covered {seen:?}");
        assert!(depth(&nodes) < bvh.depth(), "collapsing shortens the tree");
        // Children follow their parent, as the traversal's layout expects.
        for (k, n) in nodes.iter().enumerate().filter(|(_, n)| !n.is_leaf()) {
            assert!(n.a as usize > k && n.b as usize > k);
        }
    }

    #[test]
    fn small_nodes_of_a_flat_patch_are_thin_slabs() {
        let (bvh, corners) = sheet(16, 0.0);
        let nodes = build(&bvh, &corners);
        let slabbed: Vec<&SlabNode> = nodes.iter().filter(|n| n.normal != [0.0; 3]).collect();
        assert!(!slabbed.is_empty());
        for n in slabbed {
            assert!(n.hi - n.lo < 1e-5, "flat patch, slab {}..{}", n.lo, n.hi);
        }
        // The root (512 triangles) is over SLAB_MAX: no slab.
        assert_eq!(nodes[0].normal, [0.0; 3]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Every node's bound is at most the true distance (brute force in
        /// f64) to each of its triangles, for points anywhere around.
        #[test]
        fn node_bound_never_exceeds_the_distance_to_its_triangles(
            bump in 0.0f32..3.0,
            px in -5.0f32..25.0, py in -5.0f32..25.0, pz in -8.0f32..8.0,
        ) {
            let (bvh, corners) = sheet(12, bump);
            let nodes = build(&bvh, &corners);
            let p = Vec3::new(px, py, pz);
            let mut ranges = vec![(0u32, 0u32); nodes.len()];
            for (k, n) in nodes.iter().enumerate().rev() {
                ranges[k] = if n.is_leaf() {
                    (n.a, n.a + (n.b & !LEAF_BIT))
                } else {
                    (ranges[n.a as usize].0, ranges[n.b as usize].1)
                };
            }
            for (k, n) in nodes.iter().enumerate() {
                let bound = n.distance(p) as f64;
                for s in ranges[k].0..ranges[k].1 {
                    let [a, b, c] = slot_triangle(&corners, s);
                    let q = closest_point_triangle(p, [a, b, c]).point;
                    let d = (p.as_dvec3() - q.as_dvec3()).length();
                    prop_assert!(bound <= d * (1.0 + 1e-5) + 1e-6,
                        "node {k} bound {bound} > distance {d} to slot {s}");
                }
            }
        }
    }
}
