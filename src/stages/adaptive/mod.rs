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
//! 3. **BVHs** (§4, Algs. 2–3, [`RssBvh`]): the sorted triangles are cut
//!    into groups of equal Morton prefix at `group_level` and an RSS BVH is
//!    built over each, top down on the GPU — one workgroup per large node
//!    (covariance axes, RSS, spatial-median split by parallel reductions
//!    and a scan), one invocation per small node (its whole subtree, with
//!    axis approximation when switched on). The number of large levels is
//!    fixed before the run, so nothing is read back in between.
//! 4. **Queries** (§5.1, §5.3, Alg. 4): every node centre gets its exact
//!    distance to the mesh, level by level from the roots down. The upper
//!    bound starts at the distance to the parent's closest triangle (a root
//!    takes a triangle of its own range, the first one at or after its
//!    place on the Morton curve; with `parent_bound` off every node takes
//!    the mesh's first triangle, the paper's arbitrary bound). A BVH is
//!    skipped when its root's extent along x misses `[x − u, x + u]`, then
//!    when its RSS is not closer than `u`; the survivors are traversed with
//!    a stack, nearer child first. The result is exact whatever the bound.
//!    The sign is the side of the closest feature's angle-weighted
//!    pseudo-normal, as in [`crate::stages::sdf`], or, with
//!    `sign_mode` [`SignMode::Winding`], the generalised winding number's
//!    (inside where |w| > ½, the exact winding number's side everywhere:
//!    [`crate::geom::FastWinding::inside_flags`] on the CPU; on the GPU the
//!    grid's float32 bounded evaluation at every node centre, then the
//!    grid's refining steps for the nodes it leaves open, and the CPU for
//!    the few the exact GPU step leaves open:
//!    `sdf::point_winding`), under
//!    the grid's default rule ([`crate::stages::sdf::default_sign_mode`]). Per depth, the
//!    candidate BVHs, RSS tests and triangle tests are summed
//!    ([`DepthStats`], the paper's table 1). [`AdaptiveBvh::Aabb`] instead
//!    traverses the mesh's AABB BVH ([`crate::geom::Bvh`], built once per
//!    mesh on the CPU; shared WGSL in `shaders/shared/`), for comparison.
//!
//! Paper choices written down: the sample point of a node is its centre
//! (§3.1); `α` counts triangle centroids, so a triangle belongs to exactly
//! one node per level; nodes at the maximum depth are never split. BVH
//! leaves hold at most [`BVH_LEAF`] triangles; the covariance is that of the
//! triangle corners; the RSS rectangle spans the corners' full extent
//! ([`crate::geom::rss_from_extents`]). Alg. 4 lists (point, BVH) pairs and
//! spawns a thread per pair; here one invocation per point culls and
//! traverses the BVHs in turn, so each culling test uses the bound the
//! earlier BVHs tightened, and no lists or min-reduction are needed. Table
//! 1's "BVs per sampling point" is read as the BVHs that survive culling
//! ([`DepthStats::bvhs_per_point`]), the only reading under which it falls
//! to 2–3 at high resolution.
//!
//! # Buffer layout (GPU)
//!
//! ```text
//! keys, vals  [code | triangle] per triangle, sorted by code in place
//! octree      [roots (8^l, Morton order) | 8 children | 8 children | ...]
//!             OctreeNode, 48 bytes; capacity from node_capacity()
//! values      f32 per node          closest  (slot << 3) | feature
//! state       [0 count | 2 cursor | 3 qcursor | 4 overflow | 8.. start,end per depth |
//!              32 rss nodes | 33 groups | 34,35 active | 36 small | 37 level |
//!              48.. per depth: (lo, hi) candidate BVHs, RSS tests, triangle tests]
//! dispatch    [x y z] per depth (indirect) | large level | small nodes
//! rss, order  the multi-BVH and its slot order (layout in rss_bvh.rs)
//! ```

mod cpu;
pub mod export;
pub(super) mod gpu;
mod octree;
mod rss_bvh;
pub(super) mod rss_bvh_gpu;

pub use cpu::compute_cpu;
pub use gpu::AdaptiveGpu;
pub use octree::{Octree, OctreeNode};
pub(crate) use octree::{node_capacity, octree_cube};
pub use rss_bvh::{BVH_LEAF, QueryCounts, RssBvh, RssNode, group_ranges};
pub(crate) use rss_bvh::{MAX_SMALL_DEPTH, large_levels};

use crate::geom::{MORTON_BITS_PER_AXIS, TriangleFeature};
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::stages::sdf::OpenCells;
pub use crate::stages::sdf::SignMode;
use crate::timing::Timings;

/// "No node": a root's parent, a leaf's first child.
pub const NONE: u32 = u32::MAX;

/// Deepest start depth accepted: `8^6` roots.
pub const MAX_START_DEPTH: u32 = 6;

/// Which BVH the queries traverse.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum AdaptiveBvh {
    /// One RSS BVH per Morton group, built on the GPU, culled per query
    /// (§4.3, §5.3): the paper's method.
    #[default]
    RssMulti,
    /// One RSS BVH over the whole mesh, built on the GPU (`group_level` 0).
    RssSingle,
    /// The mesh's AABB BVH (binned SAH), built once per mesh on the CPU and
    /// kept on the GPU: not rebuilt per run, so not for deforming meshes.
    Aabb,
}

impl AdaptiveBvh {
    pub fn name(self) -> &'static str {
        match self {
            AdaptiveBvh::RssMulti => "rss-multi",
            AdaptiveBvh::RssSingle => "rss-single",
            AdaptiveBvh::Aabb => "aabb",
        }
    }
}

crate::stages::backend::backends! {
    /// Which implementation builds the field.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub enum Backend {
        /// The pipeline above on the GPU ([`AdaptiveGpu`]).
        #[default]
        Gpu { name: "gpu", gpu: true },
        /// The CPU reference ([`compute_cpu`]): the same octree, BVHs and
        /// queries, one node after another.
        Cpu { name: "cpu", gpu: false },
    }
}

/// Parameters of the octree, the BVHs and the queries (paper: l = 3,
/// m = 10, α = 1, small nodes below 32 triangles).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct AdaptiveParams {
    /// Start depth `l`: the `8^l` cells of this depth are the roots.
    pub start_depth: u32,
    /// Maximum depth `m` (at most 10: the Morton codes have 10 bits per axis).
    pub max_depth: u32,
    /// A node holding more than `alpha` triangles is subdivided.
    pub alpha: u32,
    /// Octree cube padding on every side, a fraction of the longest side.
    pub padding: f32,
    /// Start each query from the parent's closest triangle (§5.1); off:
    /// from one fixed triangle, the mesh's first (the paper's "arbitrary
    /// triangle" ablation, §6.2).
    pub parent_bound: bool,
    /// The BVH the queries traverse.
    pub bvh: AdaptiveBvh,
    /// Multi-BVH: one BVH per occupied cell of this octree depth (Alg. 3).
    pub group_level: u32,
    /// BVH nodes with fewer triangles are "small": one GPU invocation builds
    /// each one's whole subtree (§4.2; paper: 32).
    pub small_node: u32,
    /// Small nodes reuse the axes of their subtree's root (§4.3).
    pub axis_approximation: bool,
    /// GPU, RSS BVHs: a depth with fewer nodes than this queries each node
    /// with a whole workgroup, its BVHs spread over the invocations (0:
    /// never). A small level otherwise leaves the GPU nearly idle while a
    /// few long queries run one invocation each.
    pub wide_below: u32,
    /// How the inside/outside sign is decided.
    pub sign_mode: SignMode,
}

impl Default for AdaptiveParams {
    fn default() -> Self {
        AdaptiveParams {
            start_depth: 3,
            max_depth: 10,
            alpha: 1,
            padding: 0.05,
            parent_bound: true,
            bvh: AdaptiveBvh::RssMulti,
            group_level: 3,
            small_node: 32,
            axis_approximation: true,
            sign_mode: SignMode::PseudoNormal,
            wide_below: 8_192,
        }
    }
}

impl AdaptiveParams {
    /// This configuration (named after its BVH), then the paper's ablations
    /// of it with one change each: an arbitrary upper bound (§6.2), a single
    /// BVH (fig. 12), no axis approximation (§6.2), and the AABB BVH for
    /// comparison. Named as in `bench adaptive`.
    pub fn ablations(&self) -> Vec<(&'static str, AdaptiveParams)> {
        let base = *self;
        vec![
            (base.bvh.name(), base),
            (
                "arbitrary-bound",
                AdaptiveParams {
                    parent_bound: false,
                    ..base
                },
            ),
            (
                "rss-single",
                AdaptiveParams {
                    bvh: AdaptiveBvh::RssSingle,
                    ..base
                },
            ),
            (
                "no-axis-approx",
                AdaptiveParams {
                    axis_approximation: false,
                    ..base
                },
            ),
            (
                "aabb",
                AdaptiveParams {
                    bvh: AdaptiveBvh::Aabb,
                    ..base
                },
            ),
        ]
    }

    /// The Morton level the triangles are grouped at: 0 (one group) for a
    /// single BVH.
    pub fn effective_group_level(&self) -> u32 {
        match self.bvh {
            AdaptiveBvh::RssMulti => self.group_level,
            AdaptiveBvh::RssSingle | AdaptiveBvh::Aabb => 0,
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
    #[error("padding {0} must be a number in [0, {max}] (a fraction of the longest side)", max = crate::stages::MAX_PADDING)]
    Padding(f32),
    #[error("the group level must be at most {MAX_START_DEPTH} (got {0})")]
    GroupLevel(u32),
    #[error("the small-node size must be at least 1")]
    SmallNode,
    #[error("the mesh's BVH is {depth} levels deep, beyond the GPU traversal stack of {max}")]
    BvhTooDeep { depth: usize, max: usize },
    #[error("the octree outgrew its GPU buffer of {capacity} nodes")]
    Overflow { capacity: u64 },
    #[error(
        "nodes of depth {depth} ({edge:e} wide) are no wider than float32's spacing ({spacing:e}) at the cube's coordinates of {coordinate:e}: their centres would collide; lower the maximum depth or move the mesh nearer the origin"
    )]
    Collide {
        depth: u32,
        edge: f32,
        spacing: f32,
        coordinate: f32,
    },
}

impl From<crate::stages::sdf::point_winding::PointWindingError> for AdaptiveError {
    fn from(e: crate::stages::sdf::point_winding::PointWindingError) -> Self {
        use crate::stages::sdf::point_winding::PointWindingError as E;
        match e {
            E::Gpu(e) => Self::Gpu(e),
            E::TooDeep { depth, max } => Self::BvhTooDeep { depth, max },
        }
    }
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
        if !(0.0..=crate::stages::MAX_PADDING).contains(&self.padding) {
            return Err(AdaptiveError::Padding(self.padding));
        }
        if self.group_level > MAX_START_DEPTH {
            return Err(AdaptiveError::GroupLevel(self.group_level));
        }
        if self.small_node == 0 {
            return Err(AdaptiveError::SmallNode);
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
    /// Per depth: nodes and what their queries tested (the paper's table 1).
    pub stats: Vec<DepthStats>,
    /// Bytes of the octree (nodes, values, closest) and of the BVHs.
    pub memory: AdaptiveMemory,
    pub timings: Timings,
    /// A GPU run in winding mode: how many nodes its first pass left open
    /// and who decided them (the refining pass, the CPU); `None` otherwise.
    pub open: Option<OpenCells>,
}

/// What the queries of one octree depth did, per sample point.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct DepthStats {
    pub depth: u32,
    pub nodes: u64,
    /// BVHs whose root survived both culling tests (table 1's "BVs").
    pub bvhs_per_point: f64,
    /// Bounding volumes whose distance was computed (roots and inner nodes).
    pub bvs_per_point: f64,
    /// Exact point–triangle distances computed (the seed included).
    pub triangles_per_point: f64,
    /// GPU time of this depth's query dispatch, when timestamps were taken.
    pub query_gpu_ms: Option<f64>,
}

impl DepthStats {
    /// Per-depth averages from per-depth totals (indexed by depth).
    pub(crate) fn from_totals(nodes: &[u64], totals: &[QueryCounts]) -> Vec<DepthStats> {
        let per = |x: u64, n: u64| x as f64 / n.max(1) as f64;
        nodes
            .iter()
            .zip(totals)
            .enumerate()
            .filter(|(_, (n, _))| **n > 0)
            .map(|(d, (&n, c))| DepthStats {
                depth: d as u32,
                nodes: n,
                bvhs_per_point: per(c.bvhs, n),
                bvs_per_point: per(c.bvs, n),
                triangles_per_point: per(c.triangles, n),
                query_gpu_ms: None,
            })
            .collect()
    }
}

/// Memory of the structures, bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct AdaptiveMemory {
    pub octree_bytes: u64,
    pub bvh_bytes: u64,
}

impl AdaptiveMemory {
    /// Octree nodes plus a value and a closest triangle per node; BVH nodes
    /// plus the triangle order (and the group x extents for RSS).
    pub fn of(nodes: usize, bvh_nodes: usize, bvh_node_bytes: usize, triangles: usize) -> Self {
        AdaptiveMemory {
            octree_bytes: (nodes * (std::mem::size_of::<OctreeNode>() + 8)) as u64,
            bvh_bytes: (bvh_nodes * bvh_node_bytes + triangles * 4) as u64,
        }
    }
}

impl AdaptiveField {
    /// A field computed in `frame` ([`PreparedMesh::local`]) in the world:
    /// cube, node centres and sizes, and values (sizes and values exactly:
    /// the scale is a power of two).
    fn into_world(mut self, frame: &crate::mesh::Frame) -> AdaptiveField {
        let cube = &mut self.octree.cube;
        cube.origin = frame.to_world(cube.origin);
        cube.size = frame.length_to_world(cube.size);
        for n in &mut self.octree.nodes {
            n.center = frame.to_world(glam::Vec3::from_array(n.center)).to_array();
            n.half_size = frame.length_to_world(n.half_size);
        }
        for v in &mut self.values {
            *v = frame.length_to_world(*v);
        }
        self
    }

    pub fn closest_feature(&self, node: usize) -> Option<(u32, TriangleFeature)> {
        let c = self.closest[node];
        TriangleFeature::from_index(c & 7).map(|f| (c >> 3, f))
    }
}

/// The cube of a prepared mesh's octree.
pub(crate) fn mesh_cube(mesh: &PreparedMesh, params: &AdaptiveParams) -> crate::geom::MortonCube {
    let b = mesh.bounds();
    octree_cube(b.min, b.max, params.padding)
}

/// Builds the field with the chosen backend, in the mesh's frame
/// ([`PreparedMesh::local`], as the grids), refusing an octree whose finest
/// node centres float32 cannot keep apart in the world. `gpu` is needed for
/// [`Backend::Gpu`] (`None` gives [`crate::gpu::GpuError::NoAdapter`]).
pub fn run(
    mesh: &PreparedMesh,
    params: &AdaptiveParams,
    backend: Backend,
    gpu: Option<&AdaptiveGpu>,
) -> Result<AdaptiveField, AdaptiveError> {
    params.validate()?;
    check_spacing(&mesh_cube(mesh, params), params.max_depth)?;
    let local = mesh.local();
    let field = match backend {
        Backend::Cpu => compute_cpu(local, params).map(|mut field| {
            if params.sign_mode == SignMode::Winding {
                sign_by_winding(local, &mut field);
            }
            field
        }),
        // Signs by winding number itself in winding mode.
        Backend::Gpu => gpu.ok_or_else(super::no_gpu)?.compute(local, params),
    }?;
    Ok(field.into_world(&mesh.frame()))
}

/// Refuses a world cube whose nodes of depth `depth` are no wider than
/// float32's spacing at its largest coordinate.
fn check_spacing(cube: &crate::geom::MortonCube, depth: u32) -> Result<(), AdaptiveError> {
    let far = cube.origin + glam::Vec3::splat(cube.size);
    let coordinate = cube.origin.abs().max(far.abs()).max_element();
    let spacing = crate::mesh::f32_spacing(coordinate);
    let edge = cube.size / (1u32 << depth) as f32;
    if edge <= spacing {
        return Err(AdaptiveError::Collide {
            depth,
            edge,
            spacing,
            coordinate,
        });
    }
    Ok(())
}

/// Every node's sign from the winding number at its centre: inside where
/// the exact |w| > ½. Magnitudes stay exact.
fn sign_by_winding(mesh: &PreparedMesh, field: &mut AdaptiveField) {
    let start = std::time::Instant::now();
    let points: Vec<glam::Vec3> = field
        .octree
        .nodes
        .iter()
        .map(|n| glam::Vec3::from_array(n.center))
        .collect();
    let inside = mesh.winding().inside_flags(&points);
    for (v, inside) in field.values.iter_mut().zip(inside) {
        *v = if inside { -v.abs() } else { v.abs() };
    }
    field
        .timings
        .push("sign", start.elapsed().as_secs_f64() * 1e3, None);
}

/// The adaptive SDF stage ([`run`]).
pub struct SdfAdaptive;

impl SdfAdaptive {
    /// The stage's GPU state on this device (create it once).
    pub fn gpu(gpu: &crate::gpu::GpuContext) -> Result<AdaptiveGpu, AdaptiveError> {
        Ok(AdaptiveGpu::new(gpu))
    }

    /// Not interruptible: `progress` is not used.
    pub fn run(
        mesh: &PreparedMesh,
        params: &AdaptiveParams,
        backend: Backend,
        gpu: Option<&AdaptiveGpu>,
        _progress: &Progress,
    ) -> Result<AdaptiveField, AdaptiveError> {
        run(mesh, params, backend, gpu)
    }
}
