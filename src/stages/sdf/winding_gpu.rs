//! The winding-number sign on the GPU, for the `gpu` and `gpu-brute`
//! backends (`shaders/shared/winding_grid.wgsl`, `shaders/shared/winding.wgsl`;
//! the module `shaders/sdf_winding_f64.wgsl` on devices with f64,
//! `shaders/sdf_winding.wgsl` elsewhere).
//!
//! # Method
//!
//! After the distance kernels, [`super::winding_cap_gpu`] signs almost
//! every cell with the mesh closed by a cap: an integer crossing count per
//! grid column minus the cap's winding number (its module docs derive it
//! and say exactly when a cell is left open). The cells it leaves open —
//! within rounding of the surface, of a projected edge or a crossing, or
//! near the `|w| = ½` sheet of a hole to within the cap walk's bound — are
//! appended to a list.
//!
//! A second pass, in the same submission, decides the listed cells on the
//! GPU, each step spread over the whole device ([`super::winding_tree`]'s
//! load balance): a workgroup per (cell, chunk of a
//! [`super::winding_tree::frontier`] of the mesh's [`FastWinding`] tree),
//! each invocation walking one subtree (the order-1 and -2 expansions of
//! Barill et al. 2018 §3 with the error bound of
//! [`crate::geom::FastWinding`]'s module docs, in float32 with its rounding
//! in the bound), then a workgroup per cell summing its chunks and deciding
//! it; first with β = 12, then β = 32 over the cells still open; then, for
//! the cells both walks leave open, every triangle's exact solid angle,
//! a workgroup per (cell, block of triangles), then one per cell deciding
//! it. The Taylor remainder `3 A r² / (|c − p| − r)⁴` of a
//! node the walk expands is at most `3β²/(β − 1)⁴` of its contribution
//! `A / |c − p|²` (0.030 at β = 12, 0.0033 at 32), so the stricter walks
//! decide the cells whose `||w| − ½|` is that much smaller. On devices with
//! f64 every triangle the walks reach is evaluated in f64 at the cell
//! centre placed exactly as the CPU places it, against corners stored
//! exactly (the tree's frame is [`crate::geom::exact_frame`],
//! [`super::winding_tree`]): a cell within a hair of the surface is then
//! decided by the β = 12 walk's nearby f64 leaves, and only a cell within
//! f64 rounding of a triangle's plane (on the surface) or within the
//! atan2 allowance of the `|w| = ½` sheet reaches the exact sum or the
//! CPU. Only the cells still open after the exact sum are read back, and
//! the CPU decides each with
//! [`FastWinding::is_inside_after_strict_walk`] — the expansion in f64,
//! then the exact sum. The sign is therefore the exact
//! winding number's sign, the CPU backends' sign, cell for cell. The cells
//! each step decided are counted ([`OpenCells::by_step`]).
//!
//! The world cell centre's own float32 rounding (a device may fuse its
//! multiply-add) is the `slack` the float32 bounds carry.

use eframe::egui_wgpu::wgpu;
use rayon::prelude::*;
use wgpu::util::DeviceExt;

use super::winding_cap_gpu::{CapBuffers, CapGpu, CapInputs, CapTree};
use super::winding_tree::{
    EXACT_DIRECT_BUDGET, Kept, OpenCells, RefineLists, RefinePasses, Resident, WINDING_STACK,
    winding_bindings,
};
use super::{GridSpec, SdfError};
use crate::geom::FastWinding;
use crate::gpu::{GpuContext, GpuRun, Kernels, shader_source};
use crate::mesh::PreparedMesh;

/// Uniform parameters: `struct WindingParams` of shaders/shared/winding_grid.wgsl
/// (checked by tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct WindingParams {
    pub origin: [f32; 3],
    pub cell_size: f32,
    pub dims: [u32; 3],
    pub capacity: u32,
    pub frame: [f32; 3],
    pub slack: f32,
    /// `super::winding_tree::EXACT_DIRECT_BUDGET`.
    pub direct_budget: u32,
    pub _pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<WindingParams>() == 64);

/// Cells left to the CPU read back with the run; more take a second read.
const READ_WITH_RUN: usize = 1 << 14;

/// The pass's pipeline, the resident tree and cap of the last mesh, and
/// the last run's per-cell buffers.
pub(crate) struct WindingGpu {
    kernels: Kernels,
    cap: CapGpu,
    refine: RefinePasses,
    /// Whether the refining pass's exact step runs in f64.
    f64: bool,
    /// The most solid angles for which the open cells skip the walks
    /// ([`EXACT_DIRECT_BUDGET`] unless set).
    direct_budget: u32,
    resident: Resident<CapTree>,
    /// The last run's per-cell buffers, for the next run they fit
    /// ([`CellBuffers`]).
    kept: Kept<CellBuffers>,
}

/// A run's per-cell buffers (field-sized: 4 (n + 1) bytes each, 67 MB at
/// 256³): the refining pass's lists and the cap passes' counts. Kept from
/// run to run, sized for the largest grid so far: a run takes them in
/// [`WindingGpu::record`] where they fit its grid and mesh, and gives them
/// back in [`WindingGpu::finish`] (after its read), so repeated runs create
/// and free none and no run waits for a buffer's freeing; each run clears
/// what its passes read before writing ([`RefineLists::record_clear`],
/// the cap's counts in [`CapGpu::record`]).
struct CellBuffers {
    lists: RefineLists,
    cap: CapBuffers,
}

/// A recorded pass: what [`WindingGpu::finish`] reads back.
pub struct Recorded {
    buffers: CellBuffers,
    cells: usize,
}

impl Recorded {
    /// Asks for the read-back of the counts and the cells left to the
    /// CPU; call it once the run's passes are submitted, before its wait.
    pub fn request_read(&mut self) {
        self.buffers.lists.request_read();
    }
}

impl WindingGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let f64 = gpu.device.features().contains(wgpu::Features::SHADER_F64);
        let kernels = Kernels::new(
            gpu,
            "SdfWinding",
            shader_source(if f64 {
                "sdf_winding_f64.wgsl"
            } else {
                "sdf_winding.wgsl"
            }),
        );
        WindingGpu {
            cap: CapGpu::new(gpu),
            refine: RefinePasses::new(gpu, &kernels),
            f64,
            direct_budget: EXACT_DIRECT_BUDGET,
            kernels,
            resident: Resident::new("SdfWinding"),
            kept: Kept::new(),
        }
    }

    /// Frees the kept per-cell buffers: the next run creates them again,
    /// as a first run does.
    pub(crate) fn release(&self) {
        self.kept.release();
    }

    /// Whether the refining pass's exact step runs in f64 (the device has
    /// it) rather than float32.
    pub(crate) fn exact_in_f64(&self) -> bool {
        self.f64
    }

    /// Sets the most solid angles (open cells × triangles) for which the
    /// open cells skip the walks for the exact sum ([`EXACT_DIRECT_BUDGET`]
    /// by default; 0: they always take the walks).
    pub(crate) fn set_direct_budget(&mut self, solid_angles: u32) {
        self.direct_budget = solid_angles;
    }

    /// Records the passes over `values` (the distance kernels' output) into
    /// `run`, with the copy of the counts and the first cells left to the
    /// CPU to read back.
    pub fn record(
        &self,
        gpu: &GpuContext,
        mesh: &PreparedMesh,
        grid: &GridSpec,
        values: &wgpu::Buffer,
        run: &mut GpuRun<'_>,
    ) -> Result<Recorded, SdfError> {
        let n = grid.num_cells();
        let resident = self.resident.get(gpu, mesh, |tree| {
            CapTree::new(gpu, mesh, tree.frame.as_dvec3(), WINDING_STACK)
        })?;
        let (tree, cap) = (&resident.0, &resident.1);
        let buffers = match self
            .kept
            .take_if(|b| b.lists.fits(n, tree) && b.cap.fits(grid))
        {
            Some(kept) => kept,
            None => CellBuffers {
                lists: RefineLists::new(gpu, "SdfWinding", n, tree, READ_WITH_RUN)?,
                cap: CapBuffers::new(gpu, grid)?,
            },
        };
        let CellBuffers { lists, cap: cells } = &buffers;
        let far = grid.bounds();
        let largest = far.min.abs().max(far.max.abs()).max_element();
        let uniform = WindingParams {
            origin: grid.origin.to_array(),
            cell_size: grid.cell_size,
            dims: grid.dims.to_array(),
            capacity: n as u32,
            frame: tree.frame.to_array(),
            slack: 4.0 * f32::EPSILON * largest,
            direct_budget: self.direct_budget,
            _pad: [0; 3],
        };
        let uniform_buf = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("SdfWinding::params"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let bind_group = self.kernels.bind(
            gpu,
            &[
                &[("wparams", &uniform_buf), ("values", values)][..],
                &winding_bindings(tree, lists),
            ]
            .concat(),
        );
        lists.record_clear(run, "cap crossings");
        self.cap.record(
            gpu,
            grid,
            CapInputs {
                cap,
                mesh_corners: &tree.corners,
                mesh_triangles: tree.triangles,
                frame: tree.frame,
                values,
                undecided: &lists.undecided,
                slack: uniform.slack,
            },
            cells,
            run,
        );
        lists.record_refine(run, &self.refine, &bind_group);
        lists.copy_out(run, Some(cells.walked()));
        Ok(Recorded { buffers, cells: n })
    }

    /// After the run: the cells the GPU left undecided, each decided on the
    /// CPU by the exact winding number's side and signed so in `values`
    /// (`None`: a timed run that reads no field decides them all the same).
    /// Returns how many cells each stage after the first pass decided.
    /// Keeps the run's buffers for the next run.
    pub fn finish(
        &self,
        gpu: &GpuContext,
        mut recorded: Recorded,
        mesh: &PreparedMesh,
        grid: &GridSpec,
        values: Option<&mut [f32]>,
    ) -> Result<OpenCells, SdfError> {
        let refined = recorded.buffers.lists.read(gpu, "the undecided cells")?;
        self.kept.put(recorded.buffers);
        sign_exactly(mesh.winding(), grid, &refined.leftover, values);
        let cpu = refined.leftover.len();
        Ok(OpenCells {
            counted: recorded.cells - refined.open,
            walked: refined.walked,
            refined: refined.open - cpu,
            by_step: refined.by_step,
            cpu,
        })
    }
}

/// Signs `cells` of `values` (if any) by the exact winding number's side
/// ([`FastWinding::is_inside_after_strict_walk`]: the GPU's β = 32 walk
/// left them open, so only the cheap fast pass is tried before the exact
/// sum, which runs in parallel over parts of the triangles).
fn sign_exactly(winding: &FastWinding, grid: &GridSpec, cells: &[u32], values: Option<&mut [f32]>) {
    let inside: Vec<bool> = cells
        .par_iter()
        .map(|&c| winding.is_inside_after_strict_walk(grid.center_of(c as usize)))
        .collect();
    let Some(values) = values else { return };
    for (&c, inside) in cells.iter().zip(inside) {
        let v = &mut values[c as usize];
        *v = if inside { -v.abs() } else { v.abs() };
    }
}
