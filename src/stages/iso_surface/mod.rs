//! An iso-surface of a uniform field by marching cubes (Lorensen & Cline
//! 1987), on the CPU (the reference) and on the GPU.
//!
//! # How it works
//!
//! The field's samples sit at cell centres; marching cubes walks the dual
//! grid, one cube per 2×2×2 block of neighbouring centres
//! (`(nx−1)(ny−1)(nz−1)` cubes). A cube's case is the set of its corners
//! below the level; [`table`] gives the case's triangles as triples of
//! cube edges (the table is derived from the cube's geometry, with the
//! ambiguous faces resolved alike in the two cubes sharing them, so a
//! closed level set gives a closed surface). A triangle vertex on the edge
//! from corner `p0` (value `v0`) to `p1` (value `v1`) lies at
//! `p0 + t·h·axis` with `t = (level − v0) / (v1 − v0)`, `h` the cell size —
//! always from the edge's lower corner, so the two cubes that share an
//! edge place its vertex at the same bits.
//!
//! Triangles come out in cube order (x fastest), and within a cube in the
//! table's order, on both backends, so their outputs compare triangle by
//! triangle.
//!
//! # GPU (`shaders/iso_surface.wgsl`)
//!
//! Reduce, scan, emit — a stream compaction in three dispatches, no
//! atomics, so the output order is the CPU's:
//!
//! 1. `count`: one invocation per cube, 256 cubes per workgroup; each
//!    classifies its cube and the workgroup sums its triangles into
//!    `blocks[b]`.
//! 2. `scan_blocks`: one workgroup turns `blocks` into exclusive offsets,
//!    256 at a time with a running carry, and writes the total.
//! 3. `emit` (after the total is read back and the vertex buffer sized):
//!    each workgroup classifies its cubes again, scans their counts in
//!    workgroup memory (the same Kogge–Stone scan as the radix sort,
//!    `shared/workgroup_scan.wgsl`) and writes each cube's triangles at its
//!    block's offset plus its own, as the viewer's mesh vertices (position,
//!    face normal, colour) — the buffer the 3D view draws.
//!
//! ```text
//! values    f32 per cell, the field's order
//! table     256 × CASE_WORDS u32: triangle count, then 3 edges per triangle
//! blocks    u32 per 256 cubes: triangles, then their exclusive offset
//! total     u32: triangles in all
//! vertices  [pos.xyz normal.xyz rgba] f32 × 10 per vertex, 3 per triangle
//! ```

mod cpu;
mod gpu;
pub mod table;

pub use cpu::extract_cpu;
pub use gpu::{GpuSurface, IsoSurfaceGpu, Params as GpuParams, WORKGROUP};

use glam::{UVec3, Vec3};

use crate::gpu::{GpuContext, GpuError};
use crate::progress::Progress;
use crate::stages::sdf::{GridSpec, SdfField};
use crate::timing::Timings;

/// The field an iso-surface is extracted from: a grid and one value per
/// cell, index `i + nx·(j + ny·k)`.
#[derive(Clone, Copy, Debug)]
pub struct FieldGrid<'a> {
    pub grid: GridSpec,
    pub values: &'a [f32],
}

impl<'a> From<&'a SdfField> for FieldGrid<'a> {
    fn from(field: &'a SdfField) -> Self {
        FieldGrid {
            grid: field.grid,
            values: &field.values,
        }
    }
}

impl FieldGrid<'_> {
    /// Cubes per axis: one less than the cells.
    pub(crate) fn cube_dims(&self) -> UVec3 {
        self.grid.dims.saturating_sub(UVec3::ONE)
    }

    pub(crate) fn cube_count(&self) -> u64 {
        let d = self.cube_dims();
        d.x as u64 * d.y as u64 * d.z as u64
    }

    fn check(&self, level: f32) -> Result<(), IsoError> {
        if !level.is_finite() {
            return Err(IsoError::Level(level));
        }
        let cells = self.grid.num_cells();
        if self.values.len() != cells {
            return Err(IsoError::Shape {
                values: self.values.len(),
                cells,
            });
        }
        Ok(())
    }
}

/// The level of the surface (field units).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IsoParams {
    pub level: f32,
}

crate::stages::backend::backends! {
    /// Which implementation meshes the field.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Backend {
        Cpu { name: "cpu", gpu: false },
        Gpu { name: "gpu", gpu: true },
    }
}

/// The surface: triangles (counter-clockwise seen from larger values).
#[derive(Clone, Debug)]
pub struct IsoSurface {
    pub triangles: Vec<[Vec3; 3]>,
    pub backend: Backend,
    pub timings: Timings,
}

#[derive(Debug, thiserror::Error)]
pub enum IsoError {
    #[error("the iso level must be a finite number, not {0}")]
    Level(f32),
    #[error("the field has {values} values for a grid of {cells} cells")]
    Shape { values: usize, cells: usize },
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

/// The marching-cubes stage.
pub struct IsoSurfaceStage;

impl IsoSurfaceStage {
    /// The stage's GPU state on this device (create it once).
    pub fn gpu(gpu: &GpuContext) -> Result<IsoSurfaceGpu, IsoError> {
        Ok(IsoSurfaceGpu::new(gpu))
    }

    pub fn run(
        input: FieldGrid<'_>,
        params: &IsoParams,
        backend: Backend,
        gpu: Option<&IsoSurfaceGpu>,
        _progress: &Progress,
    ) -> Result<IsoSurface, IsoError> {
        input.check(params.level)?;
        match backend {
            Backend::Cpu => {
                let started = std::time::Instant::now();
                let triangles = extract_cpu(input, params.level);
                let mut timings = Timings::default();
                timings.push(
                    "marching cubes",
                    started.elapsed().as_secs_f64() * 1e3,
                    None,
                );
                Ok(IsoSurface {
                    triangles,
                    backend,
                    timings,
                })
            }
            Backend::Gpu => {
                let gpu = gpu.ok_or_else(crate::stages::no_gpu)?;
                let surface = gpu.extract(input, params.level, [1.0; 4])?;
                let triangles = gpu.read_triangles(&surface)?;
                Ok(IsoSurface {
                    triangles,
                    backend,
                    timings: surface.timings,
                })
            }
        }
    }
}

/// Where the vertex on cube edge `edge` of the cube at `cube` lies, given
/// the two corner values; the CPU's and the GPU's formula.
fn edge_vertex(grid: &GridSpec, cube: UVec3, edge: usize, v0: f32, v1: f32, level: f32) -> Vec3 {
    let (c0, _) = table::edge_corners(edge);
    let corner = cube + UVec3::new(c0 as u32 & 1, c0 as u32 >> 1 & 1, c0 as u32 >> 2 & 1);
    let mut p = grid.origin + grid.cell_size * corner.as_vec3();
    let t = (level - v0) / (v1 - v0);
    p[edge / 4] += t * grid.cell_size;
    p
}
