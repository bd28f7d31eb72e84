//! The GPU backend's tree: the prepared mesh's BVH ([`Bvh`], leaves of up
//! to 4 triangles for the CPU backends) with every subtree of at most
//! [`GPU_LEAF`] triangles collapsed into one leaf, each node carrying a
//! slab besides its box.
//!
//! # Why bigger leaves
//! The GPU walks the tree with a packet of cells per subgroup
//! (`shaders/sdf_packet.wgsl`); every step waits for one round trip to
//! memory, and a leaf's triangles are tested in step by all its cells, so
//! larger leaves (16 triangles rather than 4 or 8) mean fewer, cheaper
//! steps.
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
//! Depth-first, root first, as [`Bvh`]; 60 bytes of payload, 64 with
//! padding (std430):
//!
//! ```text
//! | min.xyz | a | max.xyz | b | normal.xyz | lo | hi | first | end | pad |
//! inner: a, b = children; leaf: a = first slot, b = LEAF_BIT | count
//! first..end: the node's slots (read by the slab pass, not the traversal)
//! ```
//!
//! # Where it is built
//! The host collapses the tree ([`Shape`]: boxes, children and slot
//! ranges, no slabs, written straight into the upload's staging memory;
//! [`collapse`] into a vector) and the GPU computes the slabs from the uploaded
//! corners, a node an invocation ([`super::slab_gpu`]); [`build`] is the
//! CPU reference of both. A node's slab needs every corner under it, so on
//! the host each corner was read again for every level up to [`SLAB_MAX`]
//! triangles, in the mesh's order through the BVH's: for the 1.1 M-triangle
//! bunny most of the host's tree time in a cold call, which the GPU does
//! in a fraction of a millisecond.
//!
//! The tree is uploaded whole (64 bytes a node), not compact with the slab
//! pass filling in the rest: the bytes of the tree are not what bounds the
//! host's tree phase, so the compact upload was tried and dropped
//! (`docs/bench/design-measurements.md`).

use eframe::egui_wgpu::wgpu::WriteOnly;

use crate::geom::{Bvh, BvhNode, LEAF_BIT};
use crate::gpu::SendSlice;
#[cfg(test)]
use glam::Vec3;

/// Largest subtree that becomes one leaf.
pub const GPU_LEAF: usize = 16;
/// Largest node that gets a slab.
pub const SLAB_MAX: usize = 256;

/// One node: `struct SlabNode` of shaders/sdf_packet.wgsl (the layout is
/// checked by tests/it/shader_layouts.rs).
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
    /// The node's slots, `first..end`.
    pub first: u32,
    pub end: u32,
    pub _pad: u32,
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

/// Collapsed subtrees of at least this many nodes are built in parallel.
const PARALLEL_NODES: u32 = 512;

/// The collapsed tree with slabs, on the CPU: [`collapse`], then every
/// node's slab ([`slab`]); `triangle(s)` gives the corners of the triangle
/// in BVH slot `s` (as uploaded). The reference of the GPU's slab pass,
/// which the tests compare it with.
#[cfg(test)]
pub fn build(bvh: &Bvh, triangle: impl Fn(u32) -> [Vec3; 3] + Sync) -> Vec<SlabNode> {
    use rayon::prelude::*;
    let mut nodes = collapse(bvh).nodes;
    nodes.par_iter_mut().for_each(|n| {
        if let Some((normal, lo, hi)) = slab(n.first..n.end, &triangle) {
            n.normal = normal.to_array();
            n.lo = lo;
            n.hi = hi;
        }
    });
    nodes
}

/// A collapsed tree ([`collapse`]) and its depth (1 for a single leaf, 0
/// when empty).
#[cfg(test)]
pub struct Collapsed {
    pub nodes: Vec<SlabNode>,
    pub depth: usize,
}

/// The bytes of one [`SlabNode`], as [`Shape::write`] writes them.
pub type NodeBytes = [u8; std::mem::size_of::<SlabNode>()];

/// BVH subtrees of at least this many nodes are measured in parallel.
const PARALLEL_MEASURE: usize = 4096;

/// The collapsed tree without slabs (each node's normal zero, its band
/// unbounded), each node with its slot range, in a vector: [`Shape::of`]
/// and [`Shape::write`]. The GPU backend writes the tree straight into its
/// upload's staging memory instead; this is the tests' and the CPU
/// reference's ([`build`]).
#[cfg(test)]
pub fn collapse(bvh: &Bvh) -> Collapsed {
    if bvh.nodes.is_empty() {
        return Collapsed {
            nodes: Vec::new(),
            depth: 0,
        };
    }
    let shape = Shape::of(bvh);
    // Zeroed by the allocator, not written twice: `write` writes each node.
    let mut nodes = bytemuck::zeroed_vec::<SlabNode>(shape.node_count());
    let out: &mut [NodeBytes] = bytemuck::cast_slice_mut(&mut nodes);
    let depth = shape.write(bvh, out.into());
    Collapsed { nodes, depth }
}

/// Per BVH node: its subtree's number of slots and its collapsed node
/// count, which fix each collapsed subtree's place in the depth-first
/// output.
///
/// Both are computed in parallel, the two subtrees of a node at the same
/// time (`rayon::join`), and so is the output, the two subtrees of a node
/// written into disjoint parts of it. Memory fresh from the allocator
/// faults in page by page on first write, about as dear as the walks
/// themselves: the measures are 8 bytes a BVH node (5 MB
/// for the 1.1 M-triangle bunny), the output is written where it is going
/// (the upload's staging memory, which wgpu's allocator reuses).
pub struct Shape {
    /// `[slots, collapsed nodes]` of each BVH node's subtree.
    measures: Vec<[u32; 2]>,
    /// The root's first slot.
    first: u32,
}

impl Shape {
    /// The measures of `bvh`, which has at least one node.
    pub fn of(bvh: &Bvh) -> Shape {
        // Zeroed by the allocator (pages mapped at first write): every
        // entry is written by `measure`.
        let mut measures = vec![[0u32; 2]; bvh.nodes.len()];
        measure(bvh, 0, &mut measures);
        let mut k = 0;
        while bvh.nodes[k].b & LEAF_BIT == 0 {
            k = bvh.nodes[k].a as usize;
        }
        Shape {
            measures,
            first: bvh.nodes[k].a,
        }
    }

    /// Nodes of the collapsed tree.
    pub fn node_count(&self) -> usize {
        self.measures[0][1] as usize
    }

    /// Writes the collapsed tree of `bvh` (whose shape this is) into `out`,
    /// [`Shape::node_count`] nodes; returns its depth.
    pub fn write(&self, bvh: &Bvh, out: WriteOnly<'_, [NodeBytes]>) -> usize {
        assert_eq!(out.len(), self.node_count(), "room for the collapsed tree");
        self.fill(bvh, 0, 0, self.first, SendSlice(out))
    }

    /// Writes the collapsed subtree of BVH node `k`, whose first slot is
    /// `first`, into `out`, its root at index `at` of the whole tree;
    /// returns its depth.
    fn fill(
        &self,
        bvh: &Bvh,
        k: usize,
        at: u32,
        first: u32,
        out: SendSlice<'_, NodeBytes>,
    ) -> usize {
        let node = &bvh.nodes[k];
        let [slots, size] = self.measures[k];
        let range = (first, first + slots);
        let (mut head, rest) = out.0.split_at(1);
        if size == 1 {
            let leaf = unslabbed(node, first, LEAF_BIT | slots, range);
            head.copy_from_slice(&[bytemuck::cast(leaf)]);
            return 1;
        }
        let (l, r) = (node.a as usize, node.b as usize);
        let [left_slots, left_size] = self.measures[l];
        let (at_l, at_r) = (at + 1, at + 1 + left_size);
        head.copy_from_slice(&[bytemuck::cast(unslabbed(node, at_l, at_r, range))]);
        let (left, right) = rest.split_at(left_size as usize);
        let (left, right) = (SendSlice(left), SendSlice(right));
        let first_r = first + left_slots;
        let (dl, dr) = if size >= PARALLEL_NODES {
            rayon::join(
                || self.fill(bvh, l, at_l, first, left),
                || self.fill(bvh, r, at_r, first_r, right),
            )
        } else {
            (
                self.fill(bvh, l, at_l, first, left),
                self.fill(bvh, r, at_r, first_r, right),
            )
        };
        1 + dl.max(dr)
    }
}

/// Writes the measures ([`Shape`]) of BVH node `k`'s subtree and of every
/// node under it into `measures`, which starts at node `k` and holds
/// exactly its subtree: [`Bvh`]'s layout is depth-first, so a subtree is a
/// run of nodes, its root first, then its left subtree, then its right
/// one. Returns node `k`'s.
fn measure(bvh: &Bvh, k: usize, measures: &mut [[u32; 2]]) -> [u32; 2] {
    let node = &bvh.nodes[k];
    if node.b & LEAF_BIT != 0 {
        measures[0] = [node.b & !LEAF_BIT, 1];
        return measures[0];
    }
    let (l, r) = (node.a as usize, node.b as usize);
    assert!(
        l == k + 1 && r > l && r - k < measures.len(),
        "BVH node {k}: children {l}, {r} not in depth-first order"
    );
    let (head, rest) = measures
        .split_first_mut()
        .expect("a subtree holds its root");
    let parallel = rest.len() >= PARALLEL_MEASURE;
    let (left, right) = rest.split_at_mut(r - l);
    let ([ls, ln], [rs, rn]) = if parallel {
        rayon::join(|| measure(bvh, l, left), || measure(bvh, r, right))
    } else {
        (measure(bvh, l, left), measure(bvh, r, right))
    };
    let slots = ls + rs;
    let size = if slots as usize > GPU_LEAF {
        1 + ln + rn
    } else {
        1
    };
    *head = [slots, size];
    *head
}

/// The node over slots `first..end` with children (or first slot and
/// count) `a`, `b`, and no slab.
fn unslabbed(node: &BvhNode, a: u32, b: u32, (first, end): (u32, u32)) -> SlabNode {
    SlabNode {
        min: node.min,
        a,
        max: node.max,
        b,
        normal: [0.0; 3],
        lo: f32::MIN,
        hi: f32::MAX,
        first,
        end,
        _pad: 0,
    }
}

/// The slab of the triangles in `slots` (unit normal, lo, hi), or `None`
/// for a node of more than [`SLAB_MAX`] triangles or whose normals sum to
/// nothing. The sum runs in slot order, each triangle's normal flipped to
/// agree with the running sum; `shaders/sdf_slabs.wgsl` does the same.
#[cfg(test)]
pub fn slab(
    slots: std::ops::Range<u32>,
    triangle: &impl Fn(u32) -> [Vec3; 3],
) -> Option<(Vec3, f32, f32)> {
    if slots.len() > SLAB_MAX {
        return None;
    }
    let sum = slots.clone().fold(Vec3::ZERO, |sum, s| {
        let [a, b, c] = triangle(s);
        let n = (b - a).cross(c - a);
        if n.dot(sum) < 0.0 { sum - n } else { sum + n }
    });
    let normal = sum.try_normalize()?;
    let (lo, hi) = slots
        .flat_map(|s| triangle(s).map(|v| normal.dot(v)))
        .fold((f32::MAX, f32::MIN), |(lo, hi), d| (lo.min(d), hi.max(d)));
    Some((normal, lo, hi))
}

/// The CPU build's tests, and trees for the GPU pass's ([`super::slab_gpu`]).
#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::geom::{Aabb, closest_point_triangle};
    use proptest::prelude::*;

    /// A bumpy open sheet of `n × n` quads, corners in slot order.
    pub(in crate::stages::sdf) fn sheet(n: usize, bump: f32) -> (Bvh, Vec<[f32; 4]>) {
        let h = |i: usize, j: usize| (i as f32 * 0.7).sin() * (j as f32 * 0.4).cos() * bump;
        let v = |i: usize, j: usize| Vec3::new(i as f32, j as f32, h(i, j));
        let mut tris = Vec::new();
        for i in 0..n {
            for j in 0..n {
                tris.push([v(i, j), v(i + 1, j), v(i + 1, j + 1)]);
                tris.push([v(i, j), v(i + 1, j + 1), v(i, j + 1)]);
            }
        }
        slotted(&tris)
    }

    pub(in crate::stages::sdf) fn slot_triangle(corners: &[[f32; 4]], s: u32) -> [Vec3; 3] {
        std::array::from_fn(|i| Vec3::from_slice(&corners[3 * s as usize + i][..3]))
    }

    fn built(bvh: &Bvh, corners: &[[f32; 4]]) -> Vec<SlabNode> {
        build(bvh, |s| slot_triangle(corners, s))
    }

    /// Depth of a collapsed tree, one backward pass over its nodes (the
    /// reference of [`Collapsed::depth`]).
    fn depth(nodes: &[SlabNode]) -> usize {
        let mut depth = vec![1usize; nodes.len()];
        for (k, n) in nodes.iter().enumerate().rev() {
            if !n.is_leaf() {
                depth[k] = 1 + depth[n.a as usize].max(depth[n.b as usize]);
            }
        }
        depth.first().copied().unwrap_or(0)
    }

    /// The obviously right build: one serial depth-first walk collapsing
    /// small subtrees, then every node's slab.
    fn serial_build(bvh: &Bvh, corners: &[[f32; 4]]) -> Vec<SlabNode> {
        fn walk(bvh: &Bvh, k: usize, out: &mut Vec<(BvhNode, (u32, u32))>) -> (u32, (u32, u32)) {
            let index = out.len() as u32;
            let node = bvh.nodes[k];
            if node.b & LEAF_BIT != 0 {
                let range = (node.a, node.a + (node.b & !LEAF_BIT));
                out.push((node, range));
                return (index, range);
            }
            out.push((node, (0, 0)));
            let (a, left) = walk(bvh, node.a as usize, out);
            let (b, right) = walk(bvh, node.b as usize, out);
            let range = (left.0, right.1);
            if (range.1 - range.0) as usize <= GPU_LEAF {
                out.truncate(index as usize);
                let leaf = BvhNode {
                    a: range.0,
                    b: LEAF_BIT | (range.1 - range.0),
                    ..node
                };
                out.push((leaf, range));
            } else {
                out[index as usize] = (BvhNode { a, b, ..node }, range);
            }
            (index, range)
        }
        let mut out = Vec::new();
        walk(bvh, 0, &mut out);
        let triangle = |s: u32| slot_triangle(corners, s);
        out.iter()
            .map(|(n, range)| {
                let mut node = unslabbed(n, n.a, n.b, *range);
                if let Some((normal, lo, hi)) = slab(range.0..range.1, &triangle) {
                    (node.normal, node.lo, node.hi) = (normal.to_array(), lo, hi);
                }
                node
            })
            .collect()
    }

    /// The BVH of `tris` and their corners in its slot order.
    pub(in crate::stages::sdf) fn slotted(tris: &[[Vec3; 3]]) -> (Bvh, Vec<[f32; 4]>) {
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

    /// A random triangle soup, corners in slot order of its BVH.
    fn soup(points: &[[f32; 9]]) -> (Bvh, Vec<[f32; 4]>) {
        let tris: Vec<[Vec3; 3]> = points
            .iter()
            .map(|p| std::array::from_fn(|i| Vec3::from_slice(&p[3 * i..3 * i + 3])))
            .collect();
        slotted(&tris)
    }

    #[test]
    fn parallel_build_equals_the_serial_one_on_a_large_sheet() {
        // Over PARALLEL_NODES collapsed nodes and PARALLEL_MEASURE BVH
        // nodes: the joins of both walks run.
        let (bvh, corners) = sheet(120, 2.0);
        assert!(
            bvh.nodes.len() > 2 * PARALLEL_MEASURE,
            "{} BVH nodes",
            bvh.nodes.len()
        );
        let nodes = built(&bvh, &corners);
        assert!(
            nodes.len() as u32 > 4 * PARALLEL_NODES,
            "{} nodes",
            nodes.len()
        );
        assert_eq!(nodes, serial_build(&bvh, &corners));
        assert_eq!(collapse(&bvh).depth, depth(&nodes));
    }

    #[test]
    fn collapsed_leaves_cover_every_slot_once_within_the_leaf_size() {
        let (bvh, corners) = sheet(20, 1.5);
        let nodes = built(&bvh, &corners);
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
        let nodes = built(&bvh, &corners);
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
        /// The parallel build writes the serial build's nodes, slabs and
        /// layout, on random soups of up to 3000 triangles.
        #[test]
        fn parallel_build_equals_the_serial_one(
            points in prop::collection::vec(prop::array::uniform9(-10.0f32..10.0), 1..3000),
        ) {
            let (bvh, corners) = soup(&points);
            prop_assert_eq!(built(&bvh, &corners), serial_build(&bvh, &corners));
        }

        /// Every node's bound is at most the true distance (brute force in
        /// f64) to each of its triangles, for points anywhere around.
        #[test]
        fn node_bound_never_exceeds_the_distance_to_its_triangles(
            bump in 0.0f32..3.0,
            px in -5.0f32..25.0, py in -5.0f32..25.0, pz in -8.0f32..8.0,
        ) {
            let (bvh, corners) = sheet(12, bump);
            let nodes = built(&bvh, &corners);
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
                prop_assert_eq!((n.first, n.end), ranges[k], "node {}'s slots", k);
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
