//! Exact signed distance field on a uniform grid (Sundholm 2010, ch. 4 and
//! §6.2.5–6.2.6).
//!
//! # How it works
//!
//! The grid is the mesh's bounding box grown by a padding ("grid thickness",
//! a fraction of the longest side), divided into cubic cells; `resolution`
//! cells span the longest axis and values live at cell centres. A cell's
//! value is the exact distance to the closest point on any triangle
//! (Ericson's Voronoi-region closest point, [`crate::geom::closest_point_triangle`]),
//! signed by one of two [`SignMode`]s:
//!
//! * **pseudo-normal** — the side of the closest feature's angle-weighted
//!   pseudo-normal (Bærentzen & Aanæs; Sundholm §4.3.2). Exact for closed,
//!   consistently oriented meshes; on open meshes the sign near holes is
//!   arbitrary.
//! * **winding** — the generalised winding number w (Jacobson 2013) with the
//!   fast hierarchical evaluation of Barill 2018: inside where |w| > ½, exact
//!   wherever the evaluation's error bound leaves that open. Robust
//!   on open and broken meshes. Only the sign changes: magnitudes stay exact.
//!   The GPU backends evaluate it on the GPU, the cells of a brick sharing
//!   their far field, decide the cells that bound leaves open with stricter
//!   walks and the exact sum, one workgroup per cell, and leave only the
//!   cells their float32 bounds cannot decide to the CPU (`winding_gpu`);
//!   the signs are the CPU's.
//!
//! Four backends produce the same [`SdfField`]:
//!
//! | backend | method |
//! |---|---|
//! | `cpu-ref` | every cell against every triangle, one thread — obviously right |
//! | `cpu` | rayon over 4³ bricks: per-brick candidate triangles, brute-forced 16 at a time with SIMD (below) |
//! | `gpu-brute` | one invocation per cell, triangles streamed through workgroup memory in tiles of 64 (Sundholm §6.2.5) |
//! | `gpu` | BVH on the GPU, one workgroup per 4³ brick walking it together (below) |
//!
//! The accelerated backends exploit the grid's coherence: neighbouring cells
//! have neighbouring closest triangles, and a brick's cells can share the
//! work of finding them. Results stay exact: every bound only prunes what
//! cannot be closest.
//!
//! **The GPU backend** walks the BVH once per brick (a packet traversal):
//! the 64 cells of a 4³ brick are one workgroup, the stack of nodes to visit
//! is shared, a node is visited if its box is nearer than the best distance
//! so far of any cell, and each cell tests a visited leaf's triangles only if
//! they could be closer for it. The children the cells voted for are pushed
//! with the one nearer to most cells on top, so the first leaves reached are
//! near the brick and every cell's bound tightens at once. The invocations of
//! a workgroup read the same nodes and triangles at the same moment instead
//! of each walking its own path.
//!
//! **The CPU backend** finds the exact distance `d(c)` of every brick centre
//! `c` first; for each cell `p` of the brick, `d(p) ≤ d(c) + |p − c|`, and it
//! turns that bound into a candidate set. A cell `p`
//! of a brick with centre `c` and radius `r` (its farthest cell centre) has
//! its closest triangle within `R = min(d(c) + r, band)` of itself, hence
//! within `R + r` of `c`; one BVH range query per brick collects the leaves
//! whose boxes reach that ball. Each cell then runs Sundholm's brute force
//! (every cell against every triangle, §6.2.5) over the brick's candidates
//! only, and vectorised: the mesh is stored in batches of 16 triangles that
//! are consecutive in BVH order (so neighbours in space), structure of
//! arrays, and [`crate::geom::TriangleBatch`] computes a point's squared
//! distance to all 16 with branchless vector code (AVX-512 or AVX2, detected
//! at run time; identical results without). A batch whose box is farther
//! than the best distance so far is skipped; the search starts from the
//! previous cell's closest triangle, usually this cell's too. The batch
//! kernel only selects: every triangle whose batch value comes within 1e-4
//! (relative, of the squared distance) of the smallest one seen gets the
//! exact [`crate::geom::closest_point_triangle`], the batch values differing
//! from it by rounding only, and the exact test decides the value, the
//! closest triangle and its feature — so the field is the one the exact
//! kernel gives, equally close triangles aside.
//!
//! **Narrow band** ("field thickness", Sundholm §6.2.6): with `band = Some(w)`
//! (in cells), only cells whose exact distance is ≤ w cell sizes get their
//! distance; the rest are *far*: value `±w·cell_size`, closest triangle
//! [`FAR`]. (We test the exact distance rather than Sundholm's grown triangle
//! boxes, so the band is a true distance shell.) A far cell's sign comes from
//! the finishing step (`far_sign`): far cells are grouped into 6-connected
//! components — a component cannot cross the surface because the band is at
//! least one cell wide — and each component takes the sign of one exactly
//! evaluated representative (pseudo-normal mode) or every far cell its own
//! winding number (winding mode).
//!
//! Degenerate (zero-area) triangles are left out of the field: their points
//! lie on their edges, which neighbouring triangles carry. The count is
//! reported.
//!
//! # Buffer layout (GPU)
//!
//! ```text
//! tri_pos   [a0 b0 c0 | a1 b1 c1 | ...]          vec4 per corner, BVH order
//!           (expanded on the GPU from the positions and indices: corners_gpu)
//! normals   [f e01 e12 e20 v0 v1 v2 | ...]       3 f32 per normal, 7 per triangle
//! values    [cell (i,j,k) at i + nx*(j + ny*k)]  f32
//! closest   [(triangle << 3) | feature]          u32, FAR = 0xffffffff
//! read-back counters, values, closest if asked   through a staging ring
//! ```
//!
//! A caller that needs the values only ([`compute_with`],
//! [`FieldOutputs::VALUES`]) gets them without the closest triangles'
//! read-back (half the bytes over PCIe) and their mapping to mesh order,
//! and its run makes no field-sized `closest` buffer: the BVH backend
//! keeps each cell's nearest triangle in `values` between its two passes.

mod cache;
pub(super) mod corners_gpu;
mod cpu;
pub mod export;
mod far_sign;
pub(super) mod gpu;
pub(super) mod grid;
pub(super) mod point_winding;
pub mod points;
pub(super) mod points_gpu;
mod resident;
pub(super) mod slab_bvh;
pub(super) mod slab_gpu;
pub(super) mod winding_cap_gpu;
pub(super) mod winding_gpu;
pub(super) mod winding_tree;

pub use cache::{CacheOutcome, FieldCache};
pub use cpu::reference_cell;
pub(crate) use cpu::{nearest_triangle, signed_cell};
pub use gpu::{FALLBACK_PHASE, SdfGpu};
pub use grid::GridSpec;
pub use points_gpu::PointsRun;
pub use winding_tree::{OpenCells, REFINE_PHASES as WINDING_REFINE_PHASES};

use crate::geom::TriangleFeature;
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::timing::Timings;

/// Closest-triangle value of a far cell (outside the narrow band).
pub const FAR: u32 = u32::MAX;

/// How the inside/outside sign is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum SignMode {
    PseudoNormal,
    Winding,
}

impl SignMode {
    pub const ALL: [SignMode; 2] = [SignMode::PseudoNormal, SignMode::Winding];

    pub fn name(self) -> &'static str {
        match self {
            SignMode::PseudoNormal => "pseudo-normal",
            SignMode::Winding => "winding",
        }
    }
}

/// The sign a mesh gets when none is asked for, and why: pseudo-normal for
/// a closed, consistently oriented, manifold mesh without self-intersections
/// (where it is exact and cheaper), the winding number otherwise. The CLI
/// and the viewer follow this rule, for grids and adaptive fields.
pub fn default_sign_mode(report: &crate::mesh::MeshReport) -> (SignMode, String) {
    match report.pseudo_normal_problem() {
        None => (
            SignMode::PseudoNormal,
            "the mesh is closed and consistently oriented".to_string(),
        ),
        Some(problem) => (
            SignMode::Winding,
            format!("the mesh is {problem}, so the pseudo-normal sign cannot be trusted"),
        ),
    }
}

crate::stages::backend::backends! {
    /// Which implementation computes the field.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum Backend {
        CpuReference { name: "cpu-ref", gpu: false },
        CpuFast { name: "cpu", gpu: false },
        GpuBrute { name: "gpu-brute", gpu: true },
        Gpu { name: "gpu", gpu: true },
    }
}

/// Parameters of a field.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SdfParams {
    /// Cells along the longest axis (8–512).
    pub resolution: u32,
    /// Grid thickness: padding on every side, as a fraction of the mesh's
    /// longest bounding-box side.
    pub padding: f32,
    /// Field thickness: narrow-band half-width in cells (at least 1), or
    /// `None` for exact distances everywhere.
    pub band: Option<f32>,
    pub sign_mode: SignMode,
}

impl Default for SdfParams {
    fn default() -> Self {
        SdfParams {
            resolution: 64,
            padding: 0.1,
            band: None,
            sign_mode: SignMode::PseudoNormal,
        }
    }
}

pub const MIN_RESOLUTION: u32 = 8;
pub const MAX_RESOLUTION: u32 = 512;

/// Errors of the SDF stage. Each message is one readable line.
#[derive(Debug, thiserror::Error)]
pub enum SdfError {
    #[error(transparent)]
    Mesh(#[from] crate::mesh::MeshError),
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    #[error("resolution {0} is outside {MIN_RESOLUTION}..={MAX_RESOLUTION}")]
    Resolution(u32),
    #[error("padding {0} must be a number in [0, {max}] (a fraction of the longest side)", max = crate::stages::MAX_PADDING)]
    Padding(f32),
    #[error("band {0} must be a finite number of cells ≥ 1")]
    Band(f32),
    #[error(
        "cells of {cell_size:e} are no wider than float32's spacing ({spacing:e}) at the grid's coordinates of {coordinate:e}: their centres would collide; lower the resolution or move the mesh nearer the origin"
    )]
    Collide {
        cell_size: f32,
        spacing: f32,
        coordinate: f32,
    },
    #[error("the mesh's BVH is {depth} levels deep, beyond the GPU traversal stack of {max}")]
    BvhTooDeep { depth: usize, max: usize },
    #[error(
        "the gpu backend needs subgroup operations, which {0} does not offer; use gpu-brute or cpu"
    )]
    NoSubgroups(String),
    #[error("cancelled")]
    Cancelled,
}

impl SdfParams {
    pub fn validate(&self) -> Result<(), SdfError> {
        if !(MIN_RESOLUTION..=MAX_RESOLUTION).contains(&self.resolution) {
            return Err(SdfError::Resolution(self.resolution));
        }
        if !(0.0..=crate::stages::MAX_PADDING).contains(&self.padding) {
            return Err(SdfError::Padding(self.padding));
        }
        self.validate_band()
    }

    /// The band alone is valid (all a given grid needs).
    fn validate_band(&self) -> Result<(), SdfError> {
        match self.band {
            Some(b) if !(b.is_finite() && b >= 1.0) => Err(SdfError::Band(b)),
            _ => Ok(()),
        }
    }
}

/// The product: a signed distance per cell, the closest triangle and
/// feature per cell, and how it was made.
#[derive(Clone, Debug)]
pub struct SdfField {
    pub grid: GridSpec,
    pub params: SdfParams,
    pub backend: Backend,
    /// Signed distance at each cell centre, negative inside; index
    /// `i + nx*(j + ny*k)`.
    pub values: Vec<f32>,
    /// `(triangle << 3) | feature` per cell (triangle index into
    /// `PreparedMesh::triangles`), or [`FAR`]; empty when not asked for
    /// ([`FieldOutputs`]) and the field has no band.
    pub closest: Vec<u32>,
    /// Point–triangle distance evaluations made (for the coherence claims).
    pub distance_evaluations: u64,
    pub timings: Timings,
}

impl SdfField {
    /// The closest triangle (prepared-mesh index) and feature of a cell, or
    /// `None` for a far cell or a field read without its closest triangles.
    pub fn closest_feature(&self, cell: usize) -> Option<(u32, TriangleFeature)> {
        let c = *self.closest.get(cell)?;
        if c == FAR {
            return None;
        }
        TriangleFeature::from_index(c & 7).map(|f| (c >> 3, f))
    }

    pub fn far_cells(&self) -> usize {
        self.closest.iter().filter(|&&c| c == FAR).count()
    }

    pub fn inside_cells(&self) -> usize {
        self.values.iter().filter(|&&v| v < 0.0).count()
    }

    /// Narrow-band half-width in world units, if any.
    pub fn band_world(&self) -> Option<f32> {
        self.params.band.map(|b| b * self.grid.cell_size)
    }
}

/// What a caller wants of a field besides its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldOutputs {
    /// The closest triangle and feature of every cell
    /// ([`SdfField::closest`]). Without it `closest` is empty, unless the
    /// field has a narrow band: its far cells are marked there (and the
    /// pseudo-normal sign of far cells needs them). The GPU backends then
    /// read back the values only, half the bytes, and skip mapping the
    /// triangle indices back to mesh order.
    pub closest: bool,
}

impl FieldOutputs {
    /// Values and closest triangles ([`compute`]).
    pub const ALL: FieldOutputs = FieldOutputs { closest: true };
    /// The values (and far cells' marks of a banded field) only.
    pub const VALUES: FieldOutputs = FieldOutputs { closest: false };

    /// Whether a run with `params` needs the closest triangles.
    fn closest_for(self, params: &SdfParams) -> bool {
        self.closest || params.band.is_some()
    }
}

/// Computes a field with the chosen backend. `gpu` is needed for the GPU
/// backends (`None` gives [`crate::gpu::GpuError::NoAdapter`]).
pub fn compute(
    mesh: &PreparedMesh,
    params: &SdfParams,
    backend: Backend,
    gpu: Option<&SdfGpu>,
    progress: &Progress,
) -> Result<SdfField, SdfError> {
    compute_with(mesh, params, backend, gpu, progress, FieldOutputs::ALL)
}

/// [`compute`] of the `outputs` asked for only.
pub fn compute_with(
    mesh: &PreparedMesh,
    params: &SdfParams,
    backend: Backend,
    gpu: Option<&SdfGpu>,
    progress: &Progress,
    outputs: FieldOutputs,
) -> Result<SdfField, SdfError> {
    params.validate()?;
    let local = mesh.local();
    let grid = GridSpec::around(local.bounds(), params.resolution, params.padding);
    let world = grid.to_world(&mesh.frame());
    check_spacing(&world)?;
    let run = Run {
        params,
        backend,
        gpu,
        progress,
        outputs,
    };
    run.on(mesh, grid)
}

/// [`compute`] on a given grid, e.g. one another tool's field was sampled
/// on (`params`' resolution and padding are then unused; its band is
/// checked).
pub fn compute_on_grid(
    mesh: &PreparedMesh,
    grid: GridSpec,
    params: &SdfParams,
    backend: Backend,
    gpu: Option<&SdfGpu>,
    progress: &Progress,
) -> Result<SdfField, SdfError> {
    check_spacing(&grid)?;
    let local = grid.to_local(&mesh.frame());
    let field = compute_on_local_grid(mesh, local, params, backend, gpu, progress)?;
    Ok(SdfField { grid, ..field })
}

/// [`compute_on_grid`] on a grid given in `mesh`'s frame
/// ([`PreparedMesh::local`], e.g. from a world origin known in float64,
/// [`crate::mesh::Frame::to_local_f64`]); the field's grid is returned in
/// the world.
pub fn compute_on_local_grid(
    mesh: &PreparedMesh,
    local: GridSpec,
    params: &SdfParams,
    backend: Backend,
    gpu: Option<&SdfGpu>,
    progress: &Progress,
) -> Result<SdfField, SdfError> {
    params.validate_band()?;
    let run = Run {
        params,
        backend,
        gpu,
        progress,
        outputs: FieldOutputs::ALL,
    };
    run.on(mesh, local)
}

/// Refuses a world grid whose cell centres float32 cannot keep apart.
fn check_spacing(grid: &GridSpec) -> Result<(), SdfError> {
    match grid.collision() {
        Some((spacing, coordinate)) => Err(SdfError::Collide {
            cell_size: grid.cell_size,
            spacing,
            coordinate,
        }),
        None => Ok(()),
    }
}

/// One field's request.
struct Run<'a> {
    params: &'a SdfParams,
    backend: Backend,
    gpu: Option<&'a SdfGpu>,
    progress: &'a Progress,
    outputs: FieldOutputs,
}

impl Run<'_> {
    /// The field on `grid` (in `mesh`'s frame, [`PreparedMesh::local`]),
    /// computed in that frame and returned in the world: values and grid
    /// scaled back (exactly: the scale is a power of two).
    fn on(&self, mesh: &PreparedMesh, grid: GridSpec) -> Result<SdfField, SdfError> {
        let (params, backend) = (self.params, self.backend);
        let frame = mesh.frame();
        let local = mesh.local();
        // The pseudo-normal sign of a cell nearest to a cancelling copy is
        // finished from the closest triangles ([`far_sign`]).
        let closest = self.outputs.closest_for(params)
            || (params.sign_mode == SignMode::PseudoNormal
                && local.oriented_triangles().len() < local.triangle_count());
        let mut field = match backend {
            Backend::CpuReference => cpu::reference_on(local, grid, params, self.progress),
            Backend::CpuFast => cpu::fast_on(local, grid, params, self.progress),
            Backend::GpuBrute | Backend::Gpu => {
                let gpu = self.gpu.ok_or_else(super::no_gpu)?;
                // The GPU backends scale the values while copying them out.
                let accelerated = backend == Backend::Gpu;
                gpu.compute_on(local, grid, params, accelerated, closest, &frame)?
            }
        };
        if self.progress.is_cancelled() {
            return Err(SdfError::Cancelled);
        }
        // The GPU backends sign by winding number themselves. The signs
        // only flip values, so world or local units do not matter.
        if !(backend.is_gpu() && params.sign_mode == SignMode::Winding) {
            far_sign::finish_signs(local, &mut field);
        }
        if !self.outputs.closest_for(params) {
            field.closest = Vec::new();
        }
        if !backend.is_gpu() {
            let start = std::time::Instant::now();
            for v in &mut field.values {
                *v = frame.length_to_world(*v);
            }
            let ms = start.elapsed().as_secs_f64() * 1e3;
            field.timings.push("to world", ms, None);
        }
        field.grid = field.grid.to_world(&frame);
        Ok(field)
    }
}

/// The uniform-grid SDF stage ([`compute`]).
pub struct SdfGrid;

impl SdfGrid {
    /// The stage's GPU state on this device (create it once).
    pub fn gpu(gpu: &crate::gpu::GpuContext) -> Result<SdfGpu, SdfError> {
        Ok(SdfGpu::new(gpu))
    }

    pub fn run(
        mesh: &PreparedMesh,
        params: &SdfParams,
        backend: Backend,
        gpu: Option<&SdfGpu>,
        progress: &Progress,
    ) -> Result<SdfField, SdfError> {
        compute(mesh, params, backend, gpu, progress)
    }
}
