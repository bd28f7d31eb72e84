//! Bounding volume hierarchy over triangles, in a flat layout for the GPU.
//!
//! # Build
//!
//! Top-down binned SAH (Wald, "On fast Construction of SAH-based Bounding
//! Volume Hierarchies", RT 2007): the centroids of a node are binned into
//! [`BINS`] slots along each axis of their bounding box, and the split plane
//! minimising `area(L)·|L| + area(R)·|R|` is taken. When all centroids
//! coincide there is no plane to bin on, so the node is split at the median
//! of its index range instead; any split is as good as another there, and
//! halving keeps the depth logarithmic. Nodes with at most `max_leaf_size`
//! triangles become leaves, so every leaf holds at least one triangle and
//! there are at most `2n - 1` nodes. Subtrees larger than [`PARALLEL_MIN`]
//! triangles are built with `rayon::join` into their own node vectors that are
//! then spliced behind their parent.
//!
//! # Layout
//!
//! Depth-first, root at `nodes[0]`, children always after their parent:
//!
//! ```text
//! BvhNode (32 bytes, std430-compatible)
//! +---------+---------+---------+---------+---------+---------+---------+---------+
//! | min.x   | min.y   | min.z   | a       | max.x   | max.y   | max.z   | b       |
//! +---------+---------+---------+---------+---------+---------+---------+---------+
//! inner: a = left child index,  b = right child index        (b < LEAF_BIT)
//! leaf:  a = first slot in order, b = LEAF_BIT | triangle count
//!
//! order: [ t7 t2 t9 | t0 t4 | ... ]   triangle indices, one leaf = one range
//! ```

use std::ops::Range;

use glam::Vec3;

use super::Aabb;

/// One BVH node: `struct BvhNode` of shaders/shared/bvh_bounds.wgsl (the
/// layout is checked by tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BvhNode {
    pub min: [f32; 3],
    /// Inner: left child index. Leaf: first slot in [`Bvh::order`].
    pub a: u32,
    pub max: [f32; 3],
    /// Inner: right child index. Leaf: `LEAF_BIT | count`.
    pub b: u32,
}

const _: () = assert!(std::mem::size_of::<BvhNode>() == 32);

/// Set in [`BvhNode::b`] for leaves.
pub const LEAF_BIT: u32 = 0x8000_0000;

/// Number of SAH bins per axis.
pub const BINS: usize = 16;

/// Subtrees with more triangles than this are built in parallel.
const PARALLEL_MIN: usize = 16 * 1024;

impl BvhNode {
    pub fn aabb(&self) -> Aabb {
        Aabb {
            min: Vec3::from_array(self.min),
            max: Vec3::from_array(self.max),
        }
    }

    fn new(bounds: Aabb, a: u32, b: u32) -> Self {
        BvhNode {
            min: bounds.min.to_array(),
            a,
            max: bounds.max.to_array(),
            b,
        }
    }
}

/// A BVH over triangles; see the module docs for the layout.
#[derive(Clone, Debug, Default)]
pub struct Bvh {
    /// Root is `nodes[0]`; empty only when built over no triangles.
    pub nodes: Vec<BvhNode>,
    /// Triangle indices permuted so each leaf is a contiguous range.
    pub order: Vec<u32>,
}

/// Read-only inputs shared by the recursive build.
struct Input<'a> {
    bounds: &'a [Aabb],
    centroids: &'a [Vec3],
    max_leaf_size: usize,
}

impl Bvh {
    /// Builds the tree over triangles with the given boxes and centroids
    /// (same length; the centroid need not be the box centre).
    pub fn build(bounds: &[Aabb], centroids: &[Vec3], max_leaf_size: usize) -> Bvh {
        assert_eq!(bounds.len(), centroids.len(), "one centroid per box");
        // Up to 2n - 1 nodes, and child indices must stay below LEAF_BIT.
        assert!(
            bounds.len() <= (LEAF_BIT / 2) as usize,
            "at most 2^30 triangles"
        );
        let mut order: Vec<u32> = (0..bounds.len() as u32).collect();
        if order.is_empty() {
            return Bvh::default();
        }
        let input = Input {
            bounds,
            centroids,
            max_leaf_size: max_leaf_size.max(1),
        };
        let nodes = build_parallel(&input, &mut order, 0);
        Bvh { nodes, order }
    }

    pub fn is_leaf(node: &BvhNode) -> bool {
        node.b & LEAF_BIT != 0
    }

    /// Slots of [`Bvh::order`] covered by a leaf.
    pub fn leaf_range(node: &BvhNode) -> Range<usize> {
        let start = node.a as usize;
        start..start + (node.b & !LEAF_BIT) as usize
    }

    /// Number of nodes on the longest root-to-leaf path (0 when empty).
    pub fn depth(&self) -> usize {
        if self.nodes.is_empty() {
            return 0;
        }
        // Children come after parents, so one backward pass suffices.
        let mut depth = vec![1usize; self.nodes.len()];
        for i in (0..self.nodes.len()).rev() {
            let n = &self.nodes[i];
            if !Self::is_leaf(n) {
                depth[i] = 1 + depth[n.a as usize].max(depth[n.b as usize]);
            }
        }
        depth[0]
    }

    /// Checks the invariants, panicking with the offending node index: every
    /// node is reached exactly once from the root, children come after their
    /// parent, every box is exactly the union of its children's boxes (or of
    /// its triangles' boxes), and every triangle appears exactly once in
    /// `order`.
    pub fn assert_bounds_tight(&self, bounds: &[Aabb]) {
        assert_eq!(
            self.order.len(),
            bounds.len(),
            "order has one slot per triangle"
        );
        let mut seen_triangle = vec![false; bounds.len()];
        for &t in &self.order {
            let slot = seen_triangle
                .get_mut(t as usize)
                .unwrap_or_else(|| panic!("triangle index {t} out of range"));
            assert!(!*slot, "triangle {t} appears twice in order");
            *slot = true;
        }
        if bounds.is_empty() {
            assert!(self.nodes.is_empty(), "no triangles but nodes");
            return;
        }
        let mut reached = vec![false; self.nodes.len()];
        let mut leaf_slots = 0;
        let mut stack = vec![0usize];
        while let Some(i) = stack.pop() {
            assert!(!reached[i], "node {i} reached twice");
            reached[i] = true;
            let node = &self.nodes[i];
            let union = if Self::is_leaf(node) {
                let range = Self::leaf_range(node);
                assert!(
                    !range.is_empty() && range.end <= self.order.len(),
                    "node {i}: bad leaf range {range:?}"
                );
                leaf_slots += range.len();
                self.order[range]
                    .iter()
                    .fold(Aabb::EMPTY, |b, &t| b.union(bounds[t as usize]))
            } else {
                let (l, r) = (node.a as usize, node.b as usize);
                assert!(
                    l > i && r > i && l < self.nodes.len() && r < self.nodes.len(),
                    "node {i}: bad children {l}, {r}"
                );
                stack.extend([l, r]);
                self.nodes[l].aabb().union(self.nodes[r].aabb())
            };
            assert_eq!(node.aabb(), union, "node {i}: box is not tight");
        }
        assert_eq!(leaf_slots, self.order.len(), "leaves do not cover order");
        if let Some(i) = reached.iter().position(|r| !r) {
            panic!("node {i} is unreachable");
        }
    }

    /// Nearest primitive: traverses nearest-child-first with a stack,
    /// pruning nodes whose box distance² > best. `dist2(i)` returns the
    /// squared distance to primitive `order[..]` value i (the original
    /// triangle index). Returns (triangle index, dist²) or None if nothing is
    /// closer than `initial_best_d2`.
    pub fn nearest(
        &self,
        p: Vec3,
        initial_best_d2: f32,
        mut dist2: impl FnMut(u32) -> f32,
    ) -> Option<(u32, f32)> {
        let mut best_d2 = initial_best_d2;
        let mut best = None;
        if self.nodes.is_empty() {
            return None;
        }
        // (node, box distance²): the distance is kept so that entries made
        // stale by a later, better hit are skipped without touching the box.
        // The stack lives on the call stack (no allocation per query) and
        // holds at most one entry per level.
        let mut stack = QueryStack::default();
        stack.push((0u32, self.nodes[0].aabb().distance_squared_to_point(p)));
        while let Some((i, box_d2)) = stack.pop() {
            if box_d2 > best_d2 {
                continue;
            }
            let node = &self.nodes[i as usize];
            if Self::is_leaf(node) {
                for &t in &self.order[Self::leaf_range(node)] {
                    let d2 = dist2(t);
                    if d2 < best_d2 {
                        best_d2 = d2;
                        best = Some((t, d2));
                    }
                }
                continue;
            }
            let dl = self.nodes[node.a as usize]
                .aabb()
                .distance_squared_to_point(p);
            let dr = self.nodes[node.b as usize]
                .aabb()
                .distance_squared_to_point(p);
            // Push the farther child first so the nearer one is popped next.
            let (near, far) = if dl <= dr {
                ((node.a, dl), (node.b, dr))
            } else {
                ((node.b, dr), (node.a, dl))
            };
            if far.1 <= best_d2 {
                stack.push(far);
            }
            if near.1 <= best_d2 {
                stack.push(near);
            }
        }
        best
    }
}

impl Bvh {
    /// Calls `f` with every primitive (original index) whose box in
    /// `bounds` overlaps `region` (touching counts).
    pub fn for_each_overlapping(&self, region: &Aabb, bounds: &[Aabb], mut f: impl FnMut(u32)) {
        self.for_each_leaf(
            |b| b.overlaps(region),
            |slots| {
                for &t in &self.order[slots] {
                    if bounds[t as usize].overlaps(region) {
                        f(t);
                    }
                }
            },
        );
    }

    /// Calls `f` with the [`Bvh::order`] slots of every leaf whose box is
    /// within squared distance `reach2` of `p`, in ascending slot order.
    pub fn for_each_leaf_within(&self, p: Vec3, reach2: f32, f: impl FnMut(Range<usize>)) {
        self.for_each_leaf(|b| b.distance_squared_to_point(p) <= reach2, f);
    }

    /// Calls `f` with the slots of every leaf whose box and whose
    /// ancestors' boxes pass `keep`, in ascending slot order.
    fn for_each_leaf(&self, keep: impl Fn(&Aabb) -> bool, mut f: impl FnMut(Range<usize>)) {
        if self.nodes.is_empty() {
            return;
        }
        let mut stack = QueryStack::default();
        stack.push((0, 0.0));
        while let Some((i, _)) = stack.pop() {
            let node = &self.nodes[i as usize];
            if !keep(&node.aabb()) {
                continue;
            }
            if Self::is_leaf(node) {
                f(Self::leaf_range(node));
            } else {
                // The left subtree's slots come first: visit it first.
                stack.push((node.b, 0.0));
                stack.push((node.a, 0.0));
            }
        }
    }
}

/// The traversal stack of [`Bvh::nearest`]: a fixed array for the usual
/// depths, spilling to the heap only for pathological trees.
struct QueryStack {
    inline: [(u32, f32); 64],
    len: usize,
    spill: Vec<(u32, f32)>,
}

impl Default for QueryStack {
    fn default() -> Self {
        QueryStack {
            inline: [(0, 0.0); 64],
            len: 0,
            spill: Vec::new(),
        }
    }
}

impl QueryStack {
    fn push(&mut self, entry: (u32, f32)) {
        if self.len < self.inline.len() {
            self.inline[self.len] = entry;
            self.len += 1;
        } else {
            self.spill.push(entry);
        }
    }

    fn pop(&mut self) -> Option<(u32, f32)> {
        if let Some(e) = self.spill.pop() {
            return Some(e);
        }
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.inline[self.len])
    }
}

/// Builds the subtree over `order` (whose first slot is `offset` in the
/// whole order array), splitting large ranges across rayon tasks. The
/// returned nodes are indexed from 0 = this subtree's root.
fn build_parallel(input: &Input, order: &mut [u32], offset: usize) -> Vec<BvhNode> {
    if order.len() <= PARALLEL_MIN {
        let mut nodes = Vec::with_capacity(2 * order.len());
        build_sequential(input, order, offset, &mut nodes);
        return nodes;
    }
    let bounds = range_bounds(input, order);
    let mid = split(input, order);
    let (left, right) = order.split_at_mut(mid);
    let (l, r) = rayon::join(
        || build_parallel(input, left, offset),
        || build_parallel(input, right, offset + mid),
    );
    let mut nodes = Vec::with_capacity(1 + l.len() + r.len());
    let right_root = 1 + l.len() as u32;
    nodes.push(BvhNode::new(bounds, 1, right_root));
    nodes.extend(l.iter().map(|n| shifted(*n, 1)));
    nodes.extend(r.iter().map(|n| shifted(*n, right_root)));
    nodes
}

/// `node` with its child indices moved by `by` (leaves index `order`, which
/// does not move).
fn shifted(mut node: BvhNode, by: u32) -> BvhNode {
    if !Bvh::is_leaf(&node) {
        node.a += by;
        node.b += by;
    }
    node
}

/// Appends the subtree over `order` to `nodes`; returns its root index.
fn build_sequential(
    input: &Input,
    order: &mut [u32],
    offset: usize,
    nodes: &mut Vec<BvhNode>,
) -> u32 {
    let bounds = range_bounds(input, order);
    let index = nodes.len() as u32;
    if order.len() <= input.max_leaf_size {
        nodes.push(BvhNode::new(
            bounds,
            offset as u32,
            LEAF_BIT | order.len() as u32,
        ));
        return index;
    }
    // Placeholder, patched once the children's indices are known.
    nodes.push(BvhNode::new(bounds, 0, 0));
    let mid = split(input, order);
    let (left, right) = order.split_at_mut(mid);
    let l = build_sequential(input, left, offset, nodes);
    let r = build_sequential(input, right, offset + mid, nodes);
    nodes[index as usize].a = l;
    nodes[index as usize].b = r;
    index
}

fn range_bounds(input: &Input, order: &[u32]) -> Aabb {
    order
        .iter()
        .fold(Aabb::EMPTY, |b, &t| b.union(input.bounds[t as usize]))
}

/// Partitions `order` (more than one triangle) and returns the size of the
/// left part, which is in `1..order.len()`.
fn split(input: &Input, order: &mut [u32]) -> usize {
    let centroid_box = order.iter().fold(Aabb::EMPTY, |b, &t| {
        b.including(input.centroids[t as usize])
    });
    let extent = centroid_box.size();
    let bin_of = |axis: usize, c: Vec3| -> usize {
        let f = (c[axis] - centroid_box.min[axis]) / extent[axis] * BINS as f32;
        // `as` saturates, and `min` keeps the maximum centroid in the last bin.
        (f as usize).min(BINS - 1)
    };

    let mut bins = [[(Aabb::EMPTY, 0usize); BINS]; 3];
    for &t in order.iter() {
        let c = input.centroids[t as usize];
        for (axis, axis_bins) in bins.iter_mut().enumerate() {
            if extent[axis] > 0.0 {
                let bin = &mut axis_bins[bin_of(axis, c)];
                bin.0 = bin.0.union(input.bounds[t as usize]);
                bin.1 += 1;
            }
        }
    }

    // Best (cost, axis, first bin of the right side).
    let mut best: Option<(f32, usize, usize)> = None;
    // Axes without extent have empty bins and no split.
    for (axis, axis_bins) in bins
        .iter()
        .enumerate()
        .filter(|(axis, _)| extent[*axis] > 0.0)
    {
        // Right-to-left sweep: suffix areas and counts.
        let mut right_cost = [0.0f32; BINS];
        let (mut acc, mut count) = (Aabb::EMPTY, 0);
        for k in (1..BINS).rev() {
            acc = acc.union(axis_bins[k].0);
            count += axis_bins[k].1;
            right_cost[k] = acc.surface_area() * count as f32;
        }
        let (mut acc, mut count) = (Aabb::EMPTY, 0);
        for k in 1..BINS {
            acc = acc.union(axis_bins[k - 1].0);
            count += axis_bins[k - 1].1;
            if count == 0 || count == order.len() {
                continue;
            }
            let cost = acc.surface_area() * count as f32 + right_cost[k];
            if best.is_none_or(|b| cost < b.0) {
                best = Some((cost, axis, k));
            }
        }
    }

    match best {
        Some((_, axis, k)) => partition(order, |t| bin_of(axis, input.centroids[t as usize]) < k),
        // All centroids coincide: nothing to bin, halve the range.
        None => order.len() / 2,
    }
}

/// Moves the triangles satisfying `left` to the front; returns their count.
fn partition(order: &mut [u32], left: impl Fn(u32) -> bool) -> usize {
    let mut first_right = 0;
    for i in 0..order.len() {
        if left(order[i]) {
            order.swap(i, first_right);
            first_right += 1;
        }
    }
    first_right
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::closest_point_triangle;
    use crate::geom::test_rng::Rng;

    fn soup(n: usize, seed: u64) -> Vec<[Vec3; 3]> {
        let mut rng = Rng::new(seed);
        (0..n)
            .map(|_| {
                let c = rng.vec3(-10.0, 10.0);
                [
                    c + rng.vec3(-1.0, 1.0),
                    c + rng.vec3(-1.0, 1.0),
                    c + rng.vec3(-1.0, 1.0),
                ]
            })
            .collect()
    }

    fn build(tris: &[[Vec3; 3]], max_leaf: usize) -> (Bvh, Vec<Aabb>) {
        let bounds: Vec<Aabb> = tris.iter().map(|t| Aabb::of_triangle(*t)).collect();
        let centroids: Vec<Vec3> = tris.iter().map(|t| (t[0] + t[1] + t[2]) / 3.0).collect();
        let bvh = Bvh::build(&bounds, &centroids, max_leaf);
        bvh.assert_bounds_tight(&bounds);
        assert!(bvh.nodes.len() < 2 * tris.len().max(1));
        (bvh, bounds)
    }

    #[test]
    fn random_soups_are_tight() {
        for (n, leaf) in [(1, 4), (2, 1), (3, 1), (100, 4), (5000, 8), (40_000, 4)] {
            let (bvh, _) = build(&soup(n, n as u64), leaf);
            for node in &bvh.nodes {
                if Bvh::is_leaf(node) {
                    assert!(Bvh::leaf_range(node).len() <= leaf);
                }
            }
        }
    }

    #[test]
    fn coincident_centroids_split_at_the_median() {
        let tri = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let (bvh, _) = build(&vec![tri; 1000], 2);
        // Halving 1000 down to leaves of 2 is 9 levels deep.
        assert!(bvh.depth() <= 10, "depth {}", bvh.depth());
    }

    #[test]
    fn empty_input_gives_empty_tree() {
        let bvh = Bvh::build(&[], &[], 4);
        bvh.assert_bounds_tight(&[]);
        assert_eq!(bvh.depth(), 0);
        assert_eq!(bvh.nearest(Vec3::ZERO, f32::INFINITY, |_| 0.0), None);
    }

    #[test]
    #[should_panic(expected = "node 0: box is not tight")]
    fn loose_box_is_reported() {
        let tris = soup(10, 1);
        let (mut bvh, bounds) = build(&tris, 4);
        bvh.nodes[0].max[0] += 1.0;
        bvh.assert_bounds_tight(&bounds);
    }

    #[test]
    fn overlapping_boxes_match_brute_force() {
        let tris = soup(500, 7);
        let bounds: Vec<Aabb> = tris.iter().map(|t| Aabb::of_triangle(*t)).collect();
        let centroids: Vec<Vec3> = tris.iter().map(|t| (t[0] + t[1] + t[2]) / 3.0).collect();
        let bvh = Bvh::build(&bounds, &centroids, 4);
        for (q, region) in bounds.iter().enumerate().take(100) {
            let mut got = Vec::new();
            bvh.for_each_overlapping(region, &bounds, |t| got.push(t));
            got.sort_unstable();
            let want: Vec<u32> = (0..tris.len() as u32)
                .filter(|&t| bounds[t as usize].overlaps(region))
                .collect();
            assert_eq!(got, want, "query {q}");
        }
    }

    #[test]
    fn leaves_within_reach_cover_the_boxes_within_reach() {
        let tris = soup(500, 7);
        let (bvh, bounds) = build(&tris, 4);
        let mut rng = Rng::new(5);
        for q in 0..200 {
            let p = rng.vec3(-15.0, 15.0);
            let reach2 = rng.f32() * 50.0;
            let mut slots = Vec::new();
            bvh.for_each_leaf_within(p, reach2, |range| slots.extend(range));
            assert!(
                slots.windows(2).all(|w| w[0] < w[1]),
                "query {q}: slots not ascending"
            );
            let got: Vec<u32> = slots.iter().map(|&s| bvh.order[s]).collect();
            for (t, b) in bounds.iter().enumerate() {
                if b.distance_squared_to_point(p) <= reach2 {
                    assert!(
                        got.contains(&(t as u32)),
                        "query {q} at {p}, reach² {reach2}: triangle {t} missed"
                    );
                }
            }
            // Every leaf found is within reach.
            let leaves = bvh.nodes.iter().filter(|n| Bvh::is_leaf(n));
            for leaf in leaves.filter(|n| slots.contains(&(n.a as usize))) {
                assert!(
                    leaf.aabb().distance_squared_to_point(p) <= reach2,
                    "query {q}"
                );
            }
        }
    }

    #[test]
    fn nearest_matches_brute_force() {
        let tris = soup(500, 7);
        let (bvh, _) = build(&tris, 4);
        let mut rng = Rng::new(99);
        for q in 0..2000 {
            let p = rng.vec3(-15.0, 15.0);
            let d2 = |t: u32| closest_point_triangle(p, tris[t as usize]).distance_squared;
            let brute = (0..tris.len() as u32).map(d2).fold(f32::INFINITY, f32::min);
            let (t, got) = bvh
                .nearest(p, f32::INFINITY, d2)
                .expect("soup is not empty");
            assert_eq!(got, brute, "query {q} at {p}");
            assert_eq!(
                d2(t),
                got,
                "query {q}: returned triangle has another distance"
            );
            // A bound below the true distance prunes everything.
            assert_eq!(bvh.nearest(p, 0.999 * brute, d2), None, "query {q}");
        }
    }
}
