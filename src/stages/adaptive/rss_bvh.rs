//! RSS multi-BVH (Liu & Kim 2014, §4, Algs. 2–3): the CPU reference build,
//! the culled nearest-triangle query (§5.3, Alg. 4) and the invariant
//! checker run on CPU builds and on GPU builds read back.
//!
//! # How it is built
//!
//! * **Groups** (Alg. 3): the triangles, already sorted along the Morton
//!   curve, are cut where their Morton prefix at `group_level` changes; each
//!   run of equal prefix is one group with its own BVH, whose root is node
//!   `g` of the list (roots first, in Morton order). `group_level` 0 gives
//!   one group: the single BVH.
//! * **Large nodes** (Alg. 2 lines 1–28), level by level: a node of at least
//!   `small_node` triangles gets its OBB axes from the covariance of its
//!   triangle corners, its RSS from the corners' extents along them
//!   ([`crate::geom::rss_from_extents`]), and is split at the spatial median
//!   of its triangle centroids along the OBB's longest axis — the middle of
//!   the centroids' extent — by a stable partition of its range. A split
//!   that leaves one side empty halves the range instead. Children are
//!   appended two by two; each goes on to the next level if still large,
//!   else to the small list. After [`large_levels`] levels whatever is left
//!   goes to the small list, so the number of levels is known before the
//!   build starts (the GPU records them without reading anything back).
//! * **Small nodes** (Alg. 2 lines 29–42, Alg. 3 lines 19–45): each small
//!   node builds its subtree alone, depth first with a stack, into a block
//!   of `2·count − 2` nodes claimed at once. With axis approximation the
//!   subtree root's covariance axes are reused by all its descendants (only
//!   the extents are recomputed); without it each node computes its own.
//!   Small subtrees partition in place with two cursors. A node of at most
//!   [`BVH_LEAF`] triangles, or [`MAX_SMALL_DEPTH`] below its small root,
//!   is a leaf.
//!
//! The GPU build (`shaders/adaptive_rss_bvh.wgsl`) runs the same steps: one
//! workgroup per large node with parallel reductions, one invocation per
//! small node. Floating-point sums run in a different order there, so the
//! two trees may split differently; both are checked by
//! [`RssBvh::assert_bounds_tight`] and both give exact distances. The two
//! lay nodes out differently too: the CPU appends children two by two; the
//! GPU puts the children of a node split at position `m` of `order` at
//! slots `G' + 2m` and `G' + 2m + 1` (`G'` the root slots): every split
//! position belongs to one node, so no counter is needed and the layout
//! follows the Morton order whatever order the GPU split in; the slots no
//! node takes stay empty (count 0).
//!
//! ```text
//! RssNode (64 bytes)
//! | center xyz | radius | axis_u xyz | half_u | axis_v xyz | half_v |
//! | first | count | left (NONE: leaf; right = left + 1) | - |
//! CPU nodes   [group roots 0..G | children, two by two | small blocks ...]
//! GPU nodes   [group roots 0..G, empty to G' | children at G' + 2m ...]
//! order   triangle per slot; a node covers order[first .. first + count]
//! ```

use glam::Vec3;

use super::{AdaptiveParams, NONE};
use crate::geom::{
    Aabb, Rss, closest_point_triangle, covariance_axes, distance_point_rectangle, extents_along,
    morton_prefix, rss_from_extents,
};

/// Largest leaf (triangles).
pub const BVH_LEAF: u32 = 4;
/// Levels of large-node splitting at most.
pub const MAX_LARGE_LEVELS: u32 = 32;
/// Depth of a small subtree at most (below its small root).
pub const MAX_SMALL_DEPTH: u32 = 24;
/// Deepest tree the query's traversal stack holds; the two limits above
/// keep every tree within it.
pub const RSS_STACK: usize = 64;
const _: () = assert!((MAX_LARGE_LEVELS + MAX_SMALL_DEPTH) as usize + 1 < RSS_STACK);

/// One BVH node: `struct RssNode` of shaders/shared/rss.wgsl (the layout is
/// checked by tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RssNode {
    pub center: [f32; 3],
    pub radius: f32,
    pub axis_u: [f32; 3],
    pub half_u: f32,
    pub axis_v: [f32; 3],
    pub half_v: f32,
    /// The node's triangles: `order[first .. first + count]`.
    pub first: u32,
    pub count: u32,
    /// First child ([`NONE`] for a leaf); the second is `left + 1`.
    pub left: u32,
    pub _pad: u32,
}
const _: () = assert!(std::mem::size_of::<RssNode>() == 64);

impl RssNode {
    fn range(first: u32, count: u32) -> Self {
        RssNode {
            first,
            count,
            left: NONE,
            ..Default::default()
        }
    }

    pub fn is_leaf(&self) -> bool {
        self.left == NONE
    }

    pub fn rss(&self) -> Rss {
        Rss {
            center: Vec3::from_array(self.center),
            axes: [Vec3::from_array(self.axis_u), Vec3::from_array(self.axis_v)],
            half: [self.half_u, self.half_v],
            radius: self.radius,
        }
    }

    fn set_rss(&mut self, r: &Rss) {
        self.center = r.center.to_array();
        self.radius = r.radius;
        self.axis_u = r.axes[0].to_array();
        self.half_u = r.half[0];
        self.axis_v = r.axes[1].to_array();
        self.half_v = r.half[1];
    }

    /// The RSS's extent along x (the culling axis of Alg. 4).
    pub(crate) fn x_interval(&self) -> (f32, f32) {
        let e =
            self.half_u * self.axis_u[0].abs() + self.half_v * self.axis_v[0].abs() + self.radius;
        (self.center[0] - e, self.center[0] + e)
    }

    /// Squared distance from `p` to the RSS (0 inside); mirrors
    /// `rss_distance2` in shaders/shared/rss.wgsl.
    pub(crate) fn distance2(&self, p: Vec3) -> f32 {
        let d = (distance_point_rectangle(p, &self.rss()) - self.radius).max(0.0);
        d * d
    }
}

/// Levels of large-node splitting recorded for `triangles` triangles: the
/// depth a balanced split of the whole mesh needs, plus slack for unequal
/// spatial medians. A node still large after them is built by the small
/// phase: the same tree, built by one invocation.
pub fn large_levels(triangles: usize, small_node: u32) -> u32 {
    let ratio = triangles as f64 / small_node.max(1) as f64;
    let balanced = ratio.max(1.0).log2().ceil() as u32;
    (balanced + 4).clamp(1, MAX_LARGE_LEVELS)
}

/// The groups of Alg. 3: runs of equal Morton prefix at `level` in sorted
/// codes, as `(first, count)`.
pub fn group_ranges(sorted_codes: &[u32], level: u32) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for (i, &c) in sorted_codes.iter().enumerate() {
        let starts = i == 0 || morton_prefix(sorted_codes[i - 1], level) != morton_prefix(c, level);
        match out.last_mut() {
            Some(last) if !starts => last.1 += 1,
            _ => out.push((i as u32, 1)),
        }
    }
    out
}

/// What a point query did: candidate BVHs (roots that survive both culling
/// tests), RSS distance tests, exact point–triangle tests.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueryCounts {
    pub bvhs: u64,
    pub bvs: u64,
    pub triangles: u64,
}

/// A multi-BVH over triangles; see the module docs.
#[derive(Clone, Debug, Default)]
pub struct RssBvh {
    pub nodes: Vec<RssNode>,
    /// The triangle of each slot; nodes cover ranges of it.
    pub order: Vec<u32>,
    /// The first `groups` nodes are the roots.
    pub groups: u32,
}

fn centroid(t: &[Vec3; 3]) -> Vec3 {
    (t[0] + t[1] + t[2]) * (1.0 / 3.0)
}

/// A node fitted: its RSS, the axes it used, the split axis and value.
struct Fit {
    rss: Rss,
    axes: [Vec3; 3],
    origin: Vec3,
    split_axis: Vec3,
    split: f32,
}

fn fit(tris: &[[Vec3; 3]], slots: &[u32], axes: Option<[Vec3; 3]>) -> Fit {
    let origin = tris[slots[0] as usize][0];
    let corners = || slots.iter().flat_map(|&t| tris[t as usize]);
    let axes = axes.unwrap_or_else(|| covariance_axes(origin, corners()));
    let e = extents_along(origin, &axes, corners());
    let c = extents_along(
        origin,
        &axes,
        slots.iter().map(|&t| centroid(&tris[t as usize])),
    );
    let size = e.map(|(lo, hi)| hi - lo);
    let s = if size[0] >= size[1] && size[0] >= size[2] {
        0
    } else if size[1] >= size[2] {
        1
    } else {
        2
    };
    Fit {
        rss: rss_from_extents(origin, &axes, &e),
        axes,
        origin,
        split_axis: axes[s],
        split: 0.5 * (c[s].0 + c[s].1),
    }
}

impl Fit {
    fn goes_left(&self, tri: &[Vec3; 3]) -> bool {
        (centroid(tri) - self.origin).dot(self.split_axis) < self.split
    }
}

impl RssBvh {
    /// The CPU reference build over `tris` (indexed by the values of
    /// `order`), `order` sorted along the Morton curve, one BVH per range
    /// of `groups`.
    pub fn build_cpu(
        tris: &[[Vec3; 3]],
        mut order: Vec<u32>,
        groups: &[(u32, u32)],
        params: &AdaptiveParams,
    ) -> RssBvh {
        let large = params.small_node.max(BVH_LEAF + 1);
        let mut nodes: Vec<RssNode> = groups.iter().map(|&(f, c)| RssNode::range(f, c)).collect();
        let (mut active, mut small): (Vec<u32>, Vec<u32>) =
            (0..groups.len() as u32).partition(|&g| nodes[g as usize].count >= large);
        let levels = large_levels(order.len(), params.small_node);
        for level in 0..levels {
            let mut next = Vec::new();
            for &i in &active {
                let n = nodes[i as usize];
                let range = n.first as usize..(n.first + n.count) as usize;
                let f = fit(tris, &order[range.clone()], None);
                // Stable partition, as the workgroup's scan-based scatter.
                let (left, right): (Vec<u32>, Vec<u32>) = order[range.clone()]
                    .iter()
                    .partition(|&&t| f.goes_left(&tris[t as usize]));
                let n_left = if left.is_empty() || right.is_empty() {
                    n.count / 2
                } else {
                    order[range].copy_from_slice(&[left.as_slice(), &right].concat());
                    left.len() as u32
                };
                let child = nodes.len() as u32;
                nodes[i as usize].set_rss(&f.rss);
                nodes[i as usize].left = child;
                nodes.push(RssNode::range(n.first, n_left));
                nodes.push(RssNode::range(n.first + n_left, n.count - n_left));
                for c in [child, child + 1] {
                    if level + 1 < levels && nodes[c as usize].count >= large {
                        next.push(c);
                    } else {
                        small.push(c);
                    }
                }
            }
            active = next;
        }
        for &root in &small {
            build_small(
                tris,
                &mut order,
                &mut nodes,
                root,
                params.axis_approximation,
            );
        }
        RssBvh {
            nodes,
            order,
            groups: groups.len() as u32,
        }
    }

    /// The nearest triangle to `p` strictly closer than `sqrt(bound2)`
    /// (Alg. 4, one invocation per point): each BVH whose root's x extent
    /// meets `[p.x − u, p.x + u]` (u the current bound) and whose RSS is
    /// closer than u is traversed at once, nearer child first, so later
    /// culling tests use the bound improved by earlier BVHs; a leaf's
    /// triangle whose box is not closer than u is skipped before the exact
    /// test. Mirrors `rss_nearest` in shaders/adaptive.wgsl.
    pub fn nearest(
        &self,
        tris: &[[Vec3; 3]],
        p: Vec3,
        bound2: f32,
        counts: &mut QueryCounts,
    ) -> Option<(u32, f32)> {
        let mut best = bound2;
        let mut best_tri = None;
        let mut stack: Vec<(u32, f32)> = Vec::with_capacity(RSS_STACK);
        for g in 0..self.groups {
            let root = &self.nodes[g as usize];
            let (lo, hi) = root.x_interval();
            let u = best.sqrt();
            if p.x + u < lo || p.x - u > hi {
                continue;
            }
            counts.bvs += 1;
            let d = root.distance2(p);
            if d >= best {
                continue;
            }
            counts.bvhs += 1;
            stack.push((g, d));
            while let Some((i, d)) = stack.pop() {
                if d >= best {
                    continue;
                }
                let n = &self.nodes[i as usize];
                if n.is_leaf() {
                    for &t in &self.order[n.first as usize..(n.first + n.count) as usize] {
                        // The triangle's box is a cheap lower bound.
                        if Aabb::of_triangle(tris[t as usize]).distance_squared_to_point(p) >= best
                        {
                            continue;
                        }
                        counts.triangles += 1;
                        let d2 = closest_point_triangle(p, tris[t as usize]).distance_squared;
                        if d2 < best {
                            best = d2;
                            best_tri = Some(t);
                        }
                    }
                    continue;
                }
                let (l, r) = (n.left, n.left + 1);
                let (dl, dr) = (
                    self.nodes[l as usize].distance2(p),
                    self.nodes[r as usize].distance2(p),
                );
                counts.bvs += 2;
                let (near, far) = if dl <= dr {
                    ((l, dl), (r, dr))
                } else {
                    ((r, dr), (l, dl))
                };
                if far.1 < best {
                    stack.push(far);
                }
                if near.1 < best {
                    stack.push(near);
                }
            }
        }
        best_tri.map(|t| (t, best))
    }

    /// Longest root-to-leaf path, in nodes.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack: Vec<(u32, usize)> = (0..self.groups).map(|g| (g, 1)).collect();
        while let Some((i, d)) = stack.pop() {
            deepest = deepest.max(d);
            let n = &self.nodes[i as usize];
            if !n.is_leaf() {
                stack.extend([(n.left, d + 1), (n.left + 1, d + 1)]);
            }
        }
        deepest
    }

    /// Checks every invariant; panics naming the first node that breaks one.
    /// Run after every build, also on GPU builds read back.
    ///
    /// * `order` is a permutation of the triangles; the roots' ranges tile
    ///   it in order; children's ranges tile their parent's; leaves hold at
    ///   least one triangle; every node is reached once from a root, and
    ///   nodes that are not (the unused end of a small block) are empty;
    /// * the rectangle axes are orthonormal;
    /// * every corner of every triangle of a node is inside its RSS (within
    ///   `tol`, relative to the node's size and coordinates);
    /// * tight: some corner lies at the rim of the swept sphere (the radius
    ///   is not larger than the thickness needs) and the corners reach both
    ///   ends of each rectangle axis;
    /// * the tree fits the query's traversal stack.
    pub fn assert_bounds_tight(&self, tris: &[[Vec3; 3]]) {
        let mut seen = vec![false; tris.len()];
        assert_eq!(
            self.order.len(),
            tris.len(),
            "order has one slot per triangle"
        );
        for &t in &self.order {
            assert!(
                !std::mem::replace(&mut seen[t as usize], true),
                "triangle {t} appears twice in order"
            );
        }
        let mut next = 0;
        for g in 0..self.groups as usize {
            let n = &self.nodes[g];
            assert_eq!(
                n.first, next,
                "root {g}: ranges of the roots do not tile order"
            );
            next += n.count;
        }
        assert_eq!(next as usize, tris.len(), "the roots do not cover order");
        let mut reached = vec![false; self.nodes.len()];
        let mut stack: Vec<u32> = (0..self.groups).collect();
        while let Some(i) = stack.pop() {
            assert!(
                !std::mem::replace(&mut reached[i as usize], true),
                "node {i} reached twice"
            );
            let n = &self.nodes[i as usize];
            assert!(n.count > 0, "node {i}: no triangles");
            self.assert_node_tight(i as usize, tris);
            if !n.is_leaf() {
                let (l, r) = (
                    &self.nodes[n.left as usize],
                    &self.nodes[n.left as usize + 1],
                );
                assert!(
                    l.first == n.first
                        && r.first == l.first + l.count
                        && l.count + r.count == n.count,
                    "node {i}: children {} and {} do not tile its range",
                    n.left,
                    n.left + 1
                );
                stack.extend([n.left, n.left + 1]);
            }
        }
        for (i, n) in self.nodes.iter().enumerate() {
            assert!(
                reached[i] || n.count == 0,
                "node {i} is unreachable but holds triangles"
            );
        }
        assert!(
            self.depth() < RSS_STACK,
            "depth {} beyond the stack",
            self.depth()
        );
    }

    fn assert_node_tight(&self, i: usize, tris: &[[Vec3; 3]]) {
        let n = &self.nodes[i];
        let r = n.rss();
        for (k, a) in r.axes.iter().enumerate() {
            assert!(
                (a.length() - 1.0).abs() < 1e-4,
                "node {i}: axis {k} {a:?} is not unit"
            );
        }
        assert!(
            r.axes[0].dot(r.axes[1]).abs() < 1e-4,
            "node {i}: axes not orthogonal"
        );
        let corners: Vec<Vec3> = self.order[n.first as usize..(n.first + n.count) as usize]
            .iter()
            .flat_map(|&t| tris[t as usize])
            .collect();
        let size = r.radius.max(r.half[0]).max(r.half[1]);
        let tol = 1e-4 * size + 1e-5 * r.center.abs().max_element();
        let mut rim = f32::INFINITY;
        let mut reach = [[f32::INFINITY; 2]; 2];
        for q in &corners {
            let d = distance_point_rectangle(*q, &r);
            assert!(
                d <= r.radius + tol,
                "node {i}: corner {q:?} is {} outside its RSS",
                d - r.radius
            );
            rim = rim.min(r.radius - d);
            for (k, ends) in reach.iter_mut().enumerate() {
                let x = (*q - r.center).dot(r.axes[k]);
                *ends = [ends[0].min(r.half[k] - x), ends[1].min(r.half[k] + x)];
            }
        }
        assert!(
            rim <= tol,
            "node {i}: radius {} is {rim} looser than needed",
            r.radius
        );
        for (k, ends) in reach.iter().enumerate() {
            assert!(
                ends[0] <= tol && ends[1] <= tol,
                "node {i}: rectangle axis {k} overshoots its corners by {ends:?}"
            );
        }
    }
}

/// Builds the subtree of small node `root` depth first into a block of
/// `2·count − 2` nodes (Alg. 2 lines 29–42; Alg. 3 lines 19–45 with axis
/// approximation). Mirrors `small_nodes` in shaders/adaptive_rss_bvh.wgsl.
fn build_small(
    tris: &[[Vec3; 3]],
    order: &mut [u32],
    nodes: &mut Vec<RssNode>,
    root: u32,
    axis_approximation: bool,
) {
    let count = nodes[root as usize].count;
    let mut free = nodes.len() as u32;
    nodes.resize(nodes.len() + 2 * count as usize - 2, RssNode::default());
    let mut root_axes = None;
    let mut stack = vec![(root, 0u32)];
    while let Some((i, depth)) = stack.pop() {
        let n = nodes[i as usize];
        let range = n.first as usize..(n.first + n.count) as usize;
        let f = fit(tris, &order[range.clone()], root_axes);
        if axis_approximation && root_axes.is_none() {
            root_axes = Some(f.axes);
        }
        nodes[i as usize].set_rss(&f.rss);
        if n.count <= BVH_LEAF || depth >= MAX_SMALL_DEPTH {
            continue;
        }
        let slots = &mut order[range];
        let (mut lo, mut hi) = (0usize, slots.len());
        while lo < hi {
            if f.goes_left(&tris[slots[lo] as usize]) {
                lo += 1;
            } else {
                hi -= 1;
                slots.swap(lo, hi);
            }
        }
        let n_left = if lo == 0 || lo == slots.len() {
            n.count / 2
        } else {
            lo as u32
        };
        nodes[i as usize].left = free;
        nodes[free as usize] = RssNode::range(n.first, n_left);
        nodes[free as usize + 1] = RssNode::range(n.first + n_left, n.count - n_left);
        stack.push((free + 1, depth + 1));
        stack.push((free, depth + 1));
        free += 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::MortonCube;
    use proptest::prelude::*;

    fn soup() -> impl Strategy<Value = Vec<[Vec3; 3]>> {
        let p = || prop::array::uniform3(-1.0f32..1.0).prop_map(Vec3::from_array);
        let tri = (p(), p(), p(), 0.01f32..0.5).prop_map(|(c, a, b, s)| [c, c + a * s, c + b * s]);
        prop::collection::vec(tri, 1..160)
    }

    /// Sorted like the stage: by the Morton code of the centroid.
    fn sorted(tris: &[[Vec3; 3]]) -> (Vec<u32>, Vec<u32>) {
        let cube = MortonCube {
            origin: Vec3::splat(-2.0),
            size: 4.0,
        };
        let mut pairs: Vec<(u32, u32)> = tris
            .iter()
            .enumerate()
            .map(|(t, c)| (cube.code_of(centroid(c)), t as u32))
            .collect();
        pairs.sort_by_key(|p| p.0);
        pairs.into_iter().unzip()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn built_bvh_is_tight_and_nearest_is_exact(
            tris in soup(),
            level in 0u32..3,
            small_node in 1u32..40,
            axis_approximation in any::<bool>(),
            queries in prop::collection::vec(prop::array::uniform3(-3.0f32..3.0), 8),
            bound in prop::option::of(0.0f32..2.0),
        ) {
            let (codes, order) = sorted(&tris);
            let params = AdaptiveParams { small_node, axis_approximation, ..Default::default() };
            let bvh = RssBvh::build_cpu(&tris, order, &group_ranges(&codes, level), &params);
            bvh.assert_bounds_tight(&tris);
            for q in queries {
                let p = Vec3::from_array(q);
                let bound2 = bound.map_or(f32::INFINITY, |b| b * b);
                let brute = tris
                    .iter()
                    .map(|t| closest_point_triangle(p, *t).distance_squared)
                    .fold(f32::INFINITY, f32::min);
                let got = bvh.nearest(&tris, p, bound2, &mut QueryCounts::default());
                match got {
                    Some((t, d2)) => {
                        prop_assert!(d2 < bound2 && (d2 - brute).abs() <= 1e-5 * (1.0 + brute),
                            "{p:?}: {d2} (triangle {t}) vs brute force {brute}");
                    }
                    None => prop_assert!(brute >= bound2 * (1.0 - 1e-5),
                        "{p:?}: nothing found below {bound2}, brute force {brute}"),
                }
            }
        }
    }

    #[test]
    fn groups_follow_the_morton_prefix() {
        let codes = [0u32, 1, 7 << 27, (7 << 27) + 5, 1 << 29];
        assert_eq!(group_ranges(&codes, 0), vec![(0, 5)]);
        assert_eq!(group_ranges(&codes, 1), vec![(0, 2), (2, 2), (4, 1)]);
    }

    #[test]
    #[should_panic(expected = "outside its RSS")]
    fn checker_catches_a_loose_triangle() {
        let tris: Vec<[Vec3; 3]> = (0..40)
            .map(|i| {
                let c = Vec3::new(i as f32 * 0.1, (i % 3) as f32 * 0.2, 0.0);
                [c, c + Vec3::X * 0.05, c + Vec3::Y * 0.05]
            })
            .collect();
        let (codes, order) = sorted(&tris);
        let mut bvh =
            RssBvh::build_cpu(&tris, order, &group_ranges(&codes, 0), &Default::default());
        bvh.assert_bounds_tight(&tris);
        bvh.nodes[0].half_u *= 0.5;
        bvh.assert_bounds_tight(&tris);
    }

    #[test]
    #[should_panic(expected = "looser than needed")]
    fn checker_catches_a_loose_radius() {
        let tris: Vec<[Vec3; 3]> = (0..40)
            .map(|i| {
                let c = Vec3::new(i as f32 * 0.1, (i % 3) as f32 * 0.2, (i % 2) as f32 * 0.1);
                [c, c + Vec3::X * 0.05, c + Vec3::Y * 0.05]
            })
            .collect();
        let (codes, order) = sorted(&tris);
        let mut bvh =
            RssBvh::build_cpu(&tris, order, &group_ranges(&codes, 0), &Default::default());
        bvh.nodes[0].radius += 1.0;
        bvh.assert_bounds_tight(&tris);
    }
}
