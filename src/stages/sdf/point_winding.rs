//! The winding-number sign at a list of points on the GPU
//! (`shaders/shared/winding_points.wgsl`; the module
//! `shaders/winding_points_f64.wgsl` on devices with f64,
//! `shaders/winding_points.wgsl` elsewhere): the adaptive field's octree
//! node centres and `collidoscope check`'s point sets
//! ([`super::points_gpu`]).
//!
//! # Method
//!
//! The same two passes as the grid's ([`super::winding_gpu`]), in one
//! submission. First one invocation per point walks [`FastWinding`]'s tree
//! with the order-1 and -2 expansions of Barill et al. 2018 §3 (β = 5), in
//! float32, with the error bound of [`crate::geom::FastWinding`]'s module
//! docs plus the float32 rounding (`shaders/shared/winding.wgsl`); where
//! `||w| − ½|` exceeds the bound it signs the point, else lists it. Points
//! share no bricks, so each walks the whole tree. On a device with f64 the
//! leaves this walk opens are evaluated in f64 at the point as stored, as
//! the refining steps' are: near a dense surface the float32 leaves'
//! bounds left most points open. The f64 leaves make the first pass a
//! little dearer and leave the refining steps a small fraction of the
//! points, which costs far less in all (`docs/bench/design-measurements.md`).
//! Then the grid's refining
//! steps (`shaders/shared/winding_refine.wgsl`) decide the listed points,
//! each step spread over the whole device: walks with β = 12 and 32, then
//! the exact sum of every triangle's solid angle — in f64 at the point as stored where the
//! device has f64, so that only the corners' float32 storage enters the
//! bound. Only the points still open after the exact sum (within its
//! rounding of the `|w| = ½` sheet or of the surface) are read back, and the
//! CPU decides each with [`FastWinding::is_inside_after_strict_walk`]
//! ([`sign_exactly`]): the
//! sign is the exact winding number's, point for point the CPU's.
//!
//! The tree goes to the GPU in the exact frame of
//! [`super::winding_tree`] (shared with the grid's pass), so the f64
//! leaves' corners are the CPU's; a point's own float32 rounding when
//! moved into that frame is the `slack` the float32 bounds carry.

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use rayon::prelude::*;
use wgpu::util::DeviceExt;

pub use super::winding_tree::TreeError as PointWindingError;
use super::winding_tree::{
    EXACT_DIRECT_BUDGET, Kept, OpenCells, RefineLists, RefinePasses, Resident, winding_bindings,
};
use crate::geom::{BETA, FastWinding};
use crate::gpu::{GpuContext, GpuError, GpuRun, Kernels, dispatch_dims, shader_source};
use crate::mesh::PreparedMesh;

/// Uniform parameters: `struct PointWindingParams` of
/// shaders/shared/winding_points.wgsl (checked by tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PointWindingParams {
    pub frame: [f32; 3],
    pub count: u32,
    pub stride: u32,
    pub capacity: u32,
    pub beta: f32,
    pub slack: f32,
    /// `super::winding_tree::EXACT_DIRECT_BUDGET`.
    pub direct_budget: u32,
    pub _pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<PointWindingParams>() == 48);

pub const WORKGROUP: u32 = 64;
/// Points left to the CPU read back with the run; more take a second read.
const READ_WITH_RUN: usize = 1 << 12;

/// The points a pass signs.
#[derive(Clone, Copy)]
pub struct PointBuffers<'a> {
    /// The points, one every `stride` vec4s, xyz first.
    pub points: &'a wgpu::Buffer,
    pub stride: u32,
    /// One value per point, signed in place.
    pub values: &'a wgpu::Buffer,
    /// Points: the first `count` of both.
    pub count: usize,
    /// Largest magnitude of a point's coordinates.
    pub largest: f32,
}

/// The pass's pipelines, the resident tree of the last mesh, and the last
/// run's lists.
pub struct PointWindingGpu {
    kernels: Kernels,
    first: wgpu::ComputePipeline,
    refine: RefinePasses,
    resident: Resident<()>,
    /// The last run's lists (a point each), taken by the next run they fit
    /// and given back after its read ([`super::winding_tree`]'s kept lists).
    kept: Kept<RefineLists>,
}

/// A recorded pass: what [`PointWindingGpu::finish`] reads back.
pub struct Recorded {
    lists: RefineLists,
}

impl Recorded {
    /// Asks for the read-back of the counts and the points left to the
    /// CPU; call it once the run's passes are submitted, before its wait.
    pub fn request_read(&mut self) {
        self.lists.request_read();
    }
}

impl PointWindingGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let f64 = gpu.device.features().contains(wgpu::Features::SHADER_F64);
        let kernels = Kernels::new(
            gpu,
            "WindingPoints",
            shader_source(if f64 {
                "winding_points_f64.wgsl"
            } else {
                "winding_points.wgsl"
            }),
        );
        PointWindingGpu {
            first: kernels.pipeline(gpu, "winding_points"),
            refine: RefinePasses::new(gpu, &kernels),
            kernels,
            resident: Resident::new("WindingPoints"),
            kept: Kept::new(),
        }
    }

    /// Records the passes over `points` into `run` (phases "winding", then
    /// the refining steps' of [`RefineLists::record_refine`]), with the copy
    /// of the counts and the first points left to the CPU to read back.
    pub fn record(
        &self,
        gpu: &GpuContext,
        mesh: &PreparedMesh,
        points: &PointBuffers<'_>,
        run: &mut GpuRun<'_>,
    ) -> Result<Recorded, PointWindingError> {
        let n = points.count;
        let resident = self
            .resident
            .get(gpu, mesh, |_| Ok::<_, PointWindingError>(()))?;
        let tree = &resident.0;
        let lists = match self.kept.take_if(|lists| lists.fits(n, tree)) {
            Some(kept) => kept,
            None => RefineLists::new(gpu, "WindingPoints", n, tree, READ_WITH_RUN)?,
        };
        let uniform = PointWindingParams {
            frame: tree.frame.to_array(),
            count: n as u32,
            stride: points.stride,
            capacity: n as u32,
            beta: BETA as f32,
            slack: 4.0 * f32::EPSILON * points.largest.max(tree.frame.abs().max_element()),
            direct_budget: EXACT_DIRECT_BUDGET,
            _pad: [0; 3],
        };
        let uniform_buf = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("WindingPoints::params"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let bind_group = self.kernels.bind(
            gpu,
            &[
                &[
                    ("wparams", &uniform_buf),
                    ("points", points.points),
                    ("values", points.values),
                ][..],
                &winding_bindings(tree, &lists),
            ]
            .concat(),
        );
        lists.record_clear(run, "winding");
        run.compute_pass("winding", |pass| {
            pass.set_pipeline(&self.first);
            pass.set_bind_group(0, &bind_group, &[]);
            let (x, y) = dispatch_dims((n as u32).div_ceil(WORKGROUP));
            pass.dispatch_workgroups(x, y, 1);
        });
        lists.record_refine(run, &self.refine, &bind_group);
        lists.copy_out(run, None);
        Ok(Recorded { lists })
    }

    /// After the run: the points the GPU left open (for [`sign_exactly`])
    /// and how many points the refining pass and the CPU decide. Keeps the
    /// run's lists for the next run.
    pub fn finish(
        &self,
        gpu: &GpuContext,
        mut recorded: Recorded,
    ) -> Result<(Vec<u32>, OpenCells), GpuError> {
        let refined = recorded.lists.read(gpu, "the undecided points")?;
        self.kept.put(recorded.lists);
        let cpu = refined.leftover.len();
        let counts = OpenCells {
            // The first pass here is the tree walk, not the crossing count.
            counted: 0,
            walked: 0,
            refined: refined.open - cpu,
            by_step: refined.by_step,
            cpu,
        };
        let points = refined.leftover;
        Ok((points, counts))
    }
}

/// Signs `listed` of `values` (points `points`) by
/// [`FastWinding::is_inside_after_strict_walk`]: the points the GPU's
/// β = 32 walk and exact sum left open.
pub fn sign_exactly(winding: &FastWinding, points: &[Vec3], listed: &[u32], values: &mut [f32]) {
    let inside: Vec<bool> = listed
        .par_iter()
        .map(|&i| winding.is_inside_after_strict_walk(points[i as usize]))
        .collect();
    for (&i, inside) in listed.iter().zip(inside) {
        let v = &mut values[i as usize];
        *v = if inside { -v.abs() } else { v.abs() };
    }
}
