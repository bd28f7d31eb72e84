//! Exact adaptive signed distance field on an octree (Liu & Kim 2014).
//!
//! # How it works
//!
//! 1. **Morton codes** (§3.2): each triangle's centroid `(a + b + c)·⅓` is
//!    quantised to 10 bits per axis in the octree cube — the mesh's bounding
//!    box made cubic and grown by `padding` — and the 30-bit codes are sorted
//!    with their triangle indices ([`crate::gpu::RadixSort`] on the GPU, a
//!    stable sort on the CPU; both are stable, so equal codes keep mesh
//!    order and the two builds agree exactly).
//! 2. **Octree, top down** (§3.2, Alg. 1): the `8^l` cells of the start
//!    depth `l` are the roots. Level by level, a node whose Morton prefix
//!    (the first `3·depth` bits) is shared by more than `α` sorted codes gets
//!    8 children, until the maximum depth `m`. A node's triangles are a
//!    contiguous range of the sorted list, found by binary search on the
//!    prefix; the paper marks the first index of each prefix instead, which
//!    gives the same ranges. On the GPU a split node claims 8 slots with one
//!    atomic add, so children blocks are appended in no fixed order;
//!    [`Octree::canonical`] sorts by (depth, code) to compare builds.
//!    Each level's node range and indirect dispatch size are written by the
//!    GPU itself: the build never waits on the CPU.
//! 3. **Queries** (§5.1): every node centre gets its exact distance to the
//!    mesh, level by level from the roots down. The upper bound starts at
//!    the distance to the parent's closest triangle (a root takes a triangle
//!    of its own range, the first one at or after its place on the Morton
//!    curve); a BVH traversal then only visits what could be closer, so the
//!    result is exact whatever the bound. The sign is the side of the
//!    closest feature's angle-weighted pseudo-normal, as in
//!    [`crate::stages::sdf_grid`]. This increment traverses the mesh's AABB
//!    BVH ([`crate::geom::Bvh`], shared WGSL in `shaders/shared/`); the
//!    paper's RSS multi-BVH with culling (§4, §5.3) is not built yet.
//!
//! Paper choices written down: the sample point of a node is its centre
//! (§3.1); `α` counts triangle centroids, so a triangle belongs to exactly
//! one node per level; nodes at the maximum depth are never split.
//!
//! # Buffer layout (GPU)
//!
//! ```text
//! keys, vals  [code | triangle] per triangle, sorted by code in place
//! octree      [roots (8^l, Morton order) | 8 children | 8 children | ...]
//!             OctreeNode, 48 bytes; capacity from node_capacity()
//! values      f32 per node          closest  (BVH slot << 3) | feature
//! state       [count evals cursor qcursor overflow - - - | start,end per depth]
//! dispatch    [x y z] per depth (indirect)
//! ```

mod cpu;
pub mod export;
mod gpu;
mod octree;

pub use cpu::compute_cpu;
pub use gpu::AdaptiveGpu;
pub use octree::{
    Octree, OctreeNode, cell_center, node_capacity, octree_cube, prefix_range, triangle_centroid,
};

use crate::geom::{MORTON_BITS_PER_AXIS, TriangleFeature};
use crate::stages::sdf_grid::PreparedMesh;
use crate::timing::Timings;

/// "No node": a root's parent, a leaf's first child.
pub const NONE: u32 = u32::MAX;

/// Deepest start depth accepted: `8^6` roots.
pub const MAX_START_DEPTH: u32 = 6;

/// Parameters of the octree and its queries (paper: l = 3, m = 10, α = 1).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AdaptiveParams {
    /// Start depth `l`: the `8^l` cells of this depth are the roots.
    pub start_depth: u32,
    /// Maximum depth `m` (at most 10: the Morton codes have 10 bits per axis).
    pub max_depth: u32,
    /// A node holding more than `alpha` triangles is subdivided.
    pub alpha: u32,
    /// Octree cube padding on every side, a fraction of the longest side.
    pub padding: f32,
    /// Start each query from the parent's closest triangle (§5.1); off: from
    /// a triangle of the node's own (the paper's "arbitrary" bound).
    pub parent_bound: bool,
}

impl Default for AdaptiveParams {
    fn default() -> Self {
        AdaptiveParams {
            start_depth: 3,
            max_depth: 10,
            alpha: 1,
            padding: 0.05,
            parent_bound: true,
        }
    }
}

/// Errors of the adaptive stage. Each message is one readable line.
#[derive(Debug, thiserror::Error)]
pub enum AdaptiveError {
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    #[error(
        "depths must satisfy start ≤ max ≤ {MORTON_BITS_PER_AXIS} and start ≤ {MAX_START_DEPTH} (got start {start}, max {max})"
    )]
    Depth { start: u32, max: u32 },
    #[error("padding {0} must be a finite number ≥ 0")]
    Padding(f32),
    #[error("the mesh's BVH is {depth} levels deep, beyond the GPU traversal stack of {max}")]
    BvhTooDeep { depth: usize, max: usize },
    #[error("the octree outgrew its GPU buffer of {capacity} nodes")]
    Overflow { capacity: u64 },
}

impl AdaptiveParams {
    pub fn validate(&self) -> Result<(), AdaptiveError> {
        if self.start_depth > self.max_depth
            || self.max_depth > MORTON_BITS_PER_AXIS
            || self.start_depth > MAX_START_DEPTH
        {
            return Err(AdaptiveError::Depth {
                start: self.start_depth,
                max: self.max_depth,
            });
        }
        if !(self.padding.is_finite() && self.padding >= 0.0) {
            return Err(AdaptiveError::Padding(self.padding));
        }
        Ok(())
    }
}

/// The product: the octree and a signed distance per node centre.
#[derive(Clone, Debug)]
pub struct AdaptiveField {
    pub octree: Octree,
    pub params: AdaptiveParams,
    /// Signed distance at each node centre, negative inside.
    pub values: Vec<f32>,
    /// `(triangle << 3) | feature` of each node's closest triangle
    /// (prepared-mesh index).
    pub closest: Vec<u32>,
    /// Point–triangle distance evaluations made.
    pub distance_evaluations: u64,
    pub timings: Timings,
}

impl AdaptiveField {
    pub fn closest_feature(&self, node: usize) -> Option<(u32, TriangleFeature)> {
        let c = self.closest[node];
        TriangleFeature::from_index(c & 7).map(|f| (c >> 3, f))
    }
}

/// The cube of a prepared mesh's octree.
pub fn mesh_cube(mesh: &PreparedMesh, params: &AdaptiveParams) -> crate::geom::MortonCube {
    let b = mesh.mesh.bounds();
    octree_cube(b.min, b.max, params.padding)
}
