//! The adaptive octree: a flat node list built top-down by comparing Morton
//! prefixes of the sorted triangle centroids (Liu & Kim 2014, §3.2, Alg. 1).
//! The CPU build here is the reference the GPU build is compared with.

use glam::Vec3;

use super::{AdaptiveParams, NONE};
use crate::geom::{MORTON_BITS_PER_AXIS, MortonCube, morton_decode, morton_prefix};

/// One octree node: `struct OctreeNode` of shaders/adaptive.wgsl (the
/// layout is checked by tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct OctreeNode {
    /// Centre of the cell: the node's sample point.
    pub center: [f32; 3],
    pub half_size: f32,
    /// The node's Morton prefix: `3·depth` bits naming its cell.
    pub code: u32,
    pub depth: u32,
    /// Parent index, or [`NONE`] for a root.
    pub parent: u32,
    /// Index of the first of 8 consecutive children, or [`NONE`] for a leaf.
    pub first_child: u32,
    /// The node's triangles: `sorted[tri_first .. tri_first + tri_count]`.
    pub tri_first: u32,
    pub tri_count: u32,
    pub _pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<OctreeNode>() == 48);

impl OctreeNode {
    pub fn is_leaf(&self) -> bool {
        self.first_child == NONE
    }
}

/// A built octree with the triangle order it indexes.
#[derive(Clone, Debug)]
pub struct Octree {
    pub cube: MortonCube,
    pub start_depth: u32,
    pub max_depth: u32,
    pub alpha: u32,
    pub nodes: Vec<OctreeNode>,
    /// 30-bit Morton codes of the triangle centroids, ascending.
    pub sorted_codes: Vec<u32>,
    /// Triangle index (prepared mesh) of each sorted code.
    pub sorted_triangles: Vec<u32>,
}

/// The centroid whose code a triangle gets: `(a + b + c) · ⅓`, written with
/// the shader's operation order so the codes agree bit for bit.
pub fn triangle_centroid(tri: [Vec3; 3]) -> Vec3 {
    (tri[0] + tri[1] + tri[2]) * (1.0 / 3.0)
}

/// The cube the octree divides: the mesh's bounding box made cubic about
/// its centre and grown by `padding` (a fraction of the longest side) on
/// every side.
pub fn octree_cube(min: Vec3, max: Vec3, padding: f32) -> MortonCube {
    let extent = (max - min).max_element().max(f32::MIN_POSITIVE);
    let size = extent * (1.0 + 2.0 * padding);
    MortonCube {
        origin: (min + max) * 0.5 - Vec3::splat(size * 0.5),
        size,
    }
}

/// The centre and half size of the cell of `code` at `depth`; mirrors
/// `node_at` in shaders/adaptive.wgsl.
pub fn cell_center(cube: &MortonCube, code: u32, depth: u32) -> (Vec3, f32) {
    let cell = Vec3::from_array(morton_decode(code).map(|c| c as f32));
    let edge = cube.size / (1u32 << depth) as f32;
    (cube.origin + (cell + 0.5) * edge, edge * 0.5)
}

/// The range of `sorted` (ascending 30-bit codes) whose prefix at `depth` is
/// `code`: `(first, count)`.
pub fn prefix_range(sorted: &[u32], code: u32, depth: u32) -> (u32, u32) {
    let first = sorted.partition_point(|&c| morton_prefix(c, depth) < code);
    let end = sorted.partition_point(|&c| morton_prefix(c, depth) <= code);
    (first as u32, (end - first) as u32)
}

/// Upper bound on the node count of an octree, for allocating the GPU list:
/// the roots, plus 8 children for each split node; a level splits at most
/// `min(8^j, n / (α + 1))` nodes because each holds more than α of the `n`
/// triangles, disjointly.
pub fn node_capacity(params: &AdaptiveParams, triangles: usize) -> u64 {
    let mut total = 8u64.pow(params.start_depth);
    for j in params.start_depth..params.max_depth {
        let splits = 8u64
            .pow(j)
            .min(triangles as u64 / (params.alpha as u64 + 1));
        total += 8 * splits;
    }
    total
}

impl Octree {
    /// Alg. 1 on the CPU: the `8^l` roots in Morton order, then level by
    /// level every node holding more than α triangles gets 8 children,
    /// appended in the order of their parents.
    pub fn build_cpu(corners: &[[Vec3; 3]], cube: MortonCube, params: &AdaptiveParams) -> Octree {
        let mut pairs: Vec<(u32, u32)> = corners
            .iter()
            .enumerate()
            .map(|(t, c)| (cube.code_of(triangle_centroid(*c)), t as u32))
            .collect();
        pairs.sort_by_key(|&(code, _)| code); // stable, like the GPU sort
        let sorted_codes: Vec<u32> = pairs.iter().map(|p| p.0).collect();
        let sorted_triangles: Vec<u32> = pairs.iter().map(|p| p.1).collect();

        let make = |code: u32, depth: u32, parent: u32| {
            let (center, half) = cell_center(&cube, code, depth);
            let (tri_first, tri_count) = prefix_range(&sorted_codes, code, depth);
            OctreeNode {
                center: center.to_array(),
                half_size: half,
                code,
                depth,
                parent,
                first_child: NONE,
                tri_first,
                tri_count,
                _pad: [0; 2],
            }
        };
        let l = params.start_depth;
        let mut nodes: Vec<OctreeNode> = (0..8u32.pow(l)).map(|c| make(c, l, NONE)).collect();
        let mut level = 0..nodes.len();
        for depth in l..params.max_depth {
            let next_start = nodes.len();
            for i in level.clone() {
                if nodes[i].tri_count > params.alpha {
                    nodes[i].first_child = nodes.len() as u32;
                    let code = nodes[i].code;
                    for k in 0..8 {
                        let child = make(code * 8 + k, depth + 1, i as u32);
                        nodes.push(child);
                    }
                }
            }
            level = next_start..nodes.len();
        }
        Octree {
            cube,
            start_depth: l,
            max_depth: params.max_depth,
            alpha: params.alpha,
            nodes,
            sorted_codes,
            sorted_triangles,
        }
    }

    /// Node count per depth, `0..=max_depth`.
    pub fn nodes_per_depth(&self) -> Vec<usize> {
        let mut counts = vec![0; self.max_depth as usize + 1];
        for n in &self.nodes {
            counts[n.depth as usize] += 1;
        }
        counts
    }

    /// The node set in a canonical order — by (depth, code) — with parent
    /// and child links rewritten to that order: two builds of the same tree
    /// that appended children in a different order compare equal.
    pub fn canonical(&self) -> Vec<OctreeNode> {
        let mut order: Vec<u32> = (0..self.nodes.len() as u32).collect();
        order.sort_by_key(|&i| (self.nodes[i as usize].depth, self.nodes[i as usize].code));
        let mut new_index = vec![NONE; self.nodes.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old as usize] = new as u32;
        }
        let remap = |i: u32| {
            if i == NONE {
                NONE
            } else {
                new_index[i as usize]
            }
        };
        order
            .iter()
            .map(|&old| {
                let mut n = self.nodes[old as usize];
                n.parent = remap(n.parent);
                n.first_child = remap(n.first_child);
                n
            })
            .collect()
    }

    /// Checks every structural invariant; panics naming the first node that
    /// breaks one. Run after every build, CPU or GPU.
    ///
    /// * the roots are exactly the `8^l` cells of the start depth;
    /// * children come in 8 consecutive nodes, one level deeper, whose codes
    ///   are the parent's code followed by 0..8, and whose parent is it;
    /// * a node is split exactly when it holds more than α triangles and is
    ///   above the maximum depth;
    /// * a node's triangle range is exactly the triangles whose code has its
    ///   prefix, and its children's ranges tile it;
    /// * centres and sizes are those of the node's cell; every node is
    ///   reached from a root exactly once.
    pub fn assert_well_formed(&self) {
        assert!(
            self.sorted_codes.windows(2).all(|w| w[0] <= w[1]),
            "sorted codes are not ascending"
        );
        assert_eq!(self.sorted_codes.len(), self.sorted_triangles.len());
        let mut seen_triangles = vec![false; self.sorted_triangles.len()];
        for &t in &self.sorted_triangles {
            assert!(
                !std::mem::replace(&mut seen_triangles[t as usize], true),
                "triangle {t} is sorted twice"
            );
        }
        let l = self.start_depth;
        let mut roots: Vec<u32> = Vec::new();
        let mut reached = vec![0u32; self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            assert!(
                n.depth >= l && n.depth <= self.max_depth && n.depth <= MORTON_BITS_PER_AXIS,
                "node {i}: depth {} outside {l}..={}",
                n.depth,
                self.max_depth
            );
            assert!(
                (n.code as u64) < 8u64.pow(n.depth),
                "node {i}: code {} has more than {} bits",
                n.code,
                3 * n.depth
            );
            let (first, count) = prefix_range(&self.sorted_codes, n.code, n.depth);
            assert_eq!(
                (n.tri_first, n.tri_count),
                (first, count),
                "node {i}: triangle range"
            );
            let (center, half) = cell_center(&self.cube, n.code, n.depth);
            let tol = 1e-5 * self.cube.size;
            assert!(
                (Vec3::from_array(n.center) - center).abs().max_element() <= tol
                    && (n.half_size - half).abs() <= tol,
                "node {i}: centre {:?} / half size {} are not those of its cell ({center:?}, {half})",
                n.center,
                n.half_size
            );
            let should_split = n.tri_count > self.alpha && n.depth < self.max_depth;
            assert_eq!(
                !n.is_leaf(),
                should_split,
                "node {i}: holds {} triangles (α = {}) at depth {} of {}, split = {}",
                n.tri_count,
                self.alpha,
                n.depth,
                self.max_depth,
                !n.is_leaf()
            );
            if n.parent == NONE {
                assert_eq!(n.depth, l, "node {i}: a root below the start depth");
                roots.push(n.code);
                reached[i] += 1;
            }
            if !n.is_leaf() {
                let c0 = n.first_child as usize;
                assert!(
                    c0 + 8 <= self.nodes.len(),
                    "node {i}: children {c0}.. out of range"
                );
                let mut next = n.tri_first;
                for k in 0..8 {
                    let c = &self.nodes[c0 + k];
                    assert!(
                        c.parent == i as u32
                            && c.depth == n.depth + 1
                            && c.code == n.code * 8 + k as u32,
                        "node {i}: child {k} (node {}) has parent {}, depth {}, code {}",
                        c0 + k,
                        c.parent,
                        c.depth,
                        c.code
                    );
                    assert_eq!(
                        c.tri_first, next,
                        "node {i}: child {k} range does not follow"
                    );
                    next += c.tri_count;
                    reached[c0 + k] += 1;
                }
                assert_eq!(
                    next,
                    n.tri_first + n.tri_count,
                    "node {i}: children's ranges do not tile it"
                );
            }
        }
        roots.sort_unstable();
        assert_eq!(
            roots,
            (0..8u32.pow(l)).collect::<Vec<_>>(),
            "the roots are not the 8^{l} cells of the start depth"
        );
        if let Some(i) = reached.iter().position(|&r| r != 1) {
            panic!("node {i} is reached {} times", reached[i]);
        }
    }
}
