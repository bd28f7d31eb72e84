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
//! GPU: one workgroup per cell, its invocations sharing out the subtrees
//! under a [`frontier`] of the mesh's [`FastWinding`] tree (the order-1 and
//! -2 expansions of Barill et al. 2018 §3 with the error bound of
//! [`crate::geom::FastWinding`]'s module docs, in float32 with its rounding
//! in the bound), first with β = 12, then β = 32, then
//! every triangle's exact solid angle, each step's parts meeting in a
//! workgroup reduction. On devices with f64 the exact step evaluates the
//! solid angles in f64 at the cell centre placed exactly as the CPU places
//! it, so that only the corners' float32 storage enters its bound and the
//! cells near the surface are decided too. The Taylor remainder `3 A r² / (|c − p| − r)⁴` of a
//! node the walk expands is at most `3β²/(β − 1)⁴` of its contribution
//! `A / |c − p|²` (0.030 at β = 12, 0.0033 at 32), so the
//! stricter walks decide the cells whose `||w| − ½|` is that much smaller,
//! and the exact sum's bound is the float32 rounding alone. Only the cells
//! still open after the exact sum (within float32 rounding of the `|w| = ½`
//! sheet or of the surface) are read back, and the CPU decides each with
//! [`FastWinding::is_inside`] — a stricter expansion in f64, then the
//! exact sum. The sign is therefore the exact winding number's sign, the
//! CPU backends' sign, cell for cell.
//!
//! The tree and corners go to the GPU in a frame centred on the mesh's
//! bounding box (subtracted in f64), so a mesh far from the origin keeps
//! its float32 detail; the world cell centre's own rounding is the
//! `slack` the bound carries.

use std::sync::{Arc, Mutex};

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use rayon::prelude::*;
use wgpu::util::DeviceExt;

use super::winding_cap_gpu::{CapGpu, CapInputs, CapTree};
use super::{GridSpec, SdfError};
use crate::geom::{FastWinding, LEAF_BIT, WindingNode};
use crate::gpu::{
    Access, BufferCheck, GpuContext, GpuRun, Kernels, dispatch_dims, map_staging, read_buffer,
    shader_source, storage_buffer_init, storage_buffer_zeroed,
};
use crate::mesh::PreparedMesh;

/// Uniform parameters: `struct WindingParams` of shaders/shared/winding_grid.wgsl
/// (checked by tests/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct WindingParams {
    pub origin: [f32; 3],
    pub cell_size: f32,
    pub dims: [u32; 3],
    pub capacity: u32,
    pub frame: [f32; 3],
    pub slack: f32,
}
const _: () = assert!(std::mem::size_of::<WindingParams>() == 48);

/// Deepest tree the shader's stack holds (`WINDING_STACK`): one node more
/// per level.
pub const WINDING_STACK: usize = 64;
/// Cells left to the CPU read back with the run; more take a second read.
const READ_WITH_RUN: usize = 1 << 14;
/// Subtrees in the refining pass's [`frontier`]: a few per invocation.
pub(super) const FRONTIER_ROOTS: usize = 256;
/// Most workgroups of the refining pass (each loops over the open cells).
pub(super) const REFINE_GROUPS: u32 = 8192;

/// Who decided the winding sign of how many cells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenCells {
    /// Cells the crossing count and the cap's winding number signed (the
    /// grid's first pass; 0 for point sets, whose first pass walks the tree).
    pub counted: usize,
    /// Cells of the first pass that walked the cap's tree (the others were
    /// decided by the crossing count and a bound on the cap alone).
    pub walked: usize,
    /// Cells they left open, decided by the refining pass.
    pub refined: usize,
    /// Cells the refining pass left open too, decided on the CPU.
    pub cpu: usize,
}

/// The pass's pipeline and the resident tree of the last mesh.
pub struct WindingGpu {
    kernels: Kernels,
    cap: CapGpu,
    refine: wgpu::ComputePipeline,
    /// Whether the refining pass's exact step runs in f64.
    f64: bool,
    resident: Mutex<Option<Arc<TreeBuffers>>>,
}

/// A mesh's tree on the GPU.
pub(super) struct TreeBuffers {
    key: (u64, usize),
    pub(super) nodes: wgpu::Buffer,
    pub(super) corners: wgpu::Buffer,
    frontier: wgpu::Buffer,
    /// The mesh's cap, in the same frame.
    cap: CapTree,
    triangles: u32,
    /// The world position the tree's coordinates are relative to.
    pub(super) frame: Vec3,
}

/// A recorded pass: what [`WindingGpu::finish`] reads back.
pub struct Recorded {
    leftover: wgpu::Buffer,
    /// [cells the cap pass left open | cells that walked the cap's tree |
    /// leftover count | leftover cells...]
    staging: wgpu::Buffer,
    cells: usize,
}

impl WindingGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        use Access::{ReadOnly, ReadWrite};
        // Bindings as in shaders/shared/winding_grid.wgsl: nodes, corners,
        // values, undecided, frontier, leftover.
        let f64 = gpu.device.features().contains(wgpu::Features::SHADER_F64);
        let kernels = Kernels::new(
            gpu,
            "SdfWinding",
            shader_source(if f64 {
                "sdf_winding_f64.wgsl"
            } else {
                "sdf_winding.wgsl"
            }),
            &[
                ReadOnly, ReadOnly, ReadWrite, ReadWrite, ReadOnly, ReadWrite,
            ],
        );
        WindingGpu {
            cap: CapGpu::new(gpu),
            refine: kernels.pipeline(gpu, "winding_refine"),
            f64,
            kernels,
            resident: Mutex::new(None),
        }
    }

    /// Whether the refining pass's exact step runs in f64 (the device has
    /// it) rather than float32.
    pub fn exact_in_f64(&self) -> bool {
        self.f64
    }

    /// The mesh's tree on the GPU, uploaded once per mesh (also for
    /// [`super::points_gpu`]).
    pub(super) fn tree(
        &self,
        gpu: &GpuContext,
        mesh: &PreparedMesh,
    ) -> Result<Arc<TreeBuffers>, SdfError> {
        let key = (mesh.source_hash, mesh.triangle_count());
        let mut cache = self.resident.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = cache.as_ref().filter(|t| t.key == key) {
            return Ok(t.clone());
        }
        let frame = mesh.mesh.bounds().center();
        let packed = mesh
            .winding()
            .packed_for_stack(frame.as_dvec3(), WINDING_STACK)
            .map_err(|depth| SdfError::BvhTooDeep {
                depth,
                max: WINDING_STACK - 1,
            })?;
        let tree = Arc::new(TreeBuffers {
            key,
            cap: CapTree::new(gpu, mesh, frame.as_dvec3(), WINDING_STACK)?,
            triangles: (packed.corners.len() / 3) as u32,
            nodes: storage_buffer_init(gpu, "SdfWinding::nodes", &packed.nodes)?,
            corners: storage_buffer_init(gpu, "SdfWinding::corners", &packed.corners)?,
            frontier: storage_buffer_init(
                gpu,
                "SdfWinding::frontier",
                &frontier(&packed.nodes, FRONTIER_ROOTS),
            )?,
            frame,
        });
        *cache = Some(tree.clone());
        Ok(tree)
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
        // The lists' counts, then up to every cell.
        let list_bytes = 4 * (n as u64 + 1);
        let [list, leftover] = ["SdfWinding::undecided", "SdfWinding::leftover"].map(|label| {
            storage_buffer_zeroed(
                gpu,
                BufferCheck {
                    label,
                    bytes: list_bytes,
                },
            )
        });
        let (list, leftover) = (list?, leftover?);
        let tree = self.tree(gpu, mesh)?;
        let far = grid.bounds();
        let largest = far.min.abs().max(far.max.abs()).max_element();
        let uniform = WindingParams {
            origin: grid.origin.to_array(),
            cell_size: grid.cell_size,
            dims: grid.dims.to_array(),
            capacity: n as u32,
            frame: tree.frame.to_array(),
            slack: 4.0 * f32::EPSILON * largest,
        };
        let uniform_buf = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("SdfWinding::params"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let bind_group = self.kernels.bind_group(
            gpu,
            &[
                &uniform_buf,
                &tree.nodes,
                &tree.corners,
                values,
                &list,
                &tree.frontier,
                &leftover,
            ],
        );
        let read_bytes = list_bytes.min(4 * (READ_WITH_RUN as u64 + 1));
        let staging =
            crate::gpu::staging_buffer(&gpu.device, "SdfWinding::staging", 8 + read_bytes);
        let walked = self.cap.record(
            gpu,
            grid,
            CapInputs {
                cap: &tree.cap,
                mesh_corners: &tree.corners,
                mesh_triangles: tree.triangles,
                frame: tree.frame,
                values,
                undecided: &list,
                slack: uniform.slack,
            },
            run,
        )?;
        // The open cells' count is known on the GPU only: enough workgroups
        // for a large share, each looping over the list.
        run.compute_pass("winding refine", |pass| {
            pass.set_pipeline(&self.refine);
            pass.set_bind_group(0, &bind_group, &[]);
            let (x, y) = dispatch_dims((n as u32).div_ceil(64).min(REFINE_GROUPS));
            pass.dispatch_workgroups(x, y, 1);
        });
        run.encoder_work("copy out", |encoder| {
            encoder.copy_buffer_to_buffer(&list, 0, &staging, 0, 4);
            encoder.copy_buffer_to_buffer(&walked, 0, &staging, 4, 4);
            encoder.copy_buffer_to_buffer(&leftover, 0, &staging, 8, read_bytes);
        });
        Ok(Recorded {
            leftover,
            staging,
            cells: n,
        })
    }

    /// After the run: the cells the GPU left undecided, each signed on the
    /// CPU by the exact winding number's side. Returns how many cells each
    /// stage after the first pass decided.
    pub fn finish(
        &self,
        gpu: &GpuContext,
        recorded: Recorded,
        mesh: &PreparedMesh,
        grid: &GridSpec,
        values: &mut [f32],
    ) -> Result<OpenCells, SdfError> {
        let head: Vec<u32> = map_staging(gpu, &recorded.staging, "the undecided cells")?;
        let (open, walked, count) = (head[0] as usize, head[1] as usize, head[2] as usize);
        let cells = if count + 3 <= head.len() {
            head[3..count + 3].to_vec()
        } else {
            read_buffer::<u32>(gpu, &recorded.leftover, count + 1)?.split_off(1)
        };
        sign_exactly(mesh.winding(), grid, &cells, values);
        Ok(OpenCells {
            counted: recorded.cells - open,
            walked,
            refined: open - count,
            cpu: count,
        })
    }
}

/// Roots of subtrees that partition the tree of `nodes` (root first,
/// children after parents): the tree opened level by level until at least
/// `target` roots, or only leaves, remain.
pub(super) fn frontier(nodes: &[WindingNode], target: usize) -> Vec<u32> {
    let is_leaf = |i: u32| nodes[i as usize].b & LEAF_BIT != 0;
    let mut roots = vec![0u32];
    while roots.len() < target && roots.iter().any(|&i| !is_leaf(i)) {
        roots = roots
            .iter()
            .flat_map(|&i| {
                let n = &nodes[i as usize];
                if is_leaf(i) { vec![i] } else { vec![n.a, n.b] }
            })
            .collect();
    }
    roots
}

/// Signs `cells` of `values` by [`FastWinding::is_inside`].
fn sign_exactly(winding: &FastWinding, grid: &GridSpec, cells: &[u32], values: &mut [f32]) {
    let inside: Vec<bool> = cells
        .par_iter()
        .map(|&c| winding.is_inside(grid.center_of(c as usize)))
        .collect();
    for (&c, inside) in cells.iter().zip(inside) {
        let v = &mut values[c as usize];
        *v = if inside { -v.abs() } else { v.abs() };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    /// Every leaf of the tree lies under exactly one root of the frontier,
    /// and no root lies under another: the subtrees partition the tree.
    #[test]
    fn frontier_partitions_the_tree() {
        let mesh = crate::mesh::box_mesh(6);
        let winding = FastWinding::new(&mesh.positions, &mesh.triangles);
        let nodes = winding.packed(DVec3::ZERO).nodes;
        for target in [1, 5, 64, 100_000] {
            let roots = frontier(&nodes, target);
            let mut covered = vec![0usize; nodes.len()];
            for &r in &roots {
                let mut stack = vec![r];
                while let Some(i) = stack.pop() {
                    covered[i as usize] += 1;
                    let n = &nodes[i as usize];
                    if n.b & LEAF_BIT == 0 {
                        stack.extend([n.a, n.b]);
                    }
                }
            }
            let leaves = (0..nodes.len()).filter(|&i| nodes[i].b & LEAF_BIT != 0);
            for leaf in leaves {
                assert_eq!(covered[leaf], 1, "target {target}: leaf {leaf}");
            }
            assert!(
                roots.len() >= target.min(nodes.len().div_ceil(2)),
                "target {target}: {} roots of {} nodes",
                roots.len(),
                nodes.len()
            );
        }
    }
}
