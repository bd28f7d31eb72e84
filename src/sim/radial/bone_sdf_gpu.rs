//! Table 1's per-bone distance fields on the GPU
//! (`shaders/radial_bone_sdf.wgsl`): every bone's res³ grid rebuilt each
//! frame from its skinned triangles, then the points' trilinear query;
//! the method, grids and CPU reference are [`super::bone_sdf`].
//!
//! A dedicated compact kernel, not the project's SDF stage
//! ([`crate::stages::sdf`]): the stage builds one grid per run with
//! its own BVH, sign pass and buffers, so 21 bones a frame would be 21
//! runs of set-up and read-back; here one dispatch fills every bone's
//! cells by brute force over that bone's few thousand triangles, which
//! is what a per-frame rebuild of a deforming bone can afford (no tree to
//! build first).

use eframe::egui_wgpu::wgpu;
use glam::Mat4;
use wgpu::util::DeviceExt;

use super::bone_sdf::BoneSdfs;
use super::techniques::{GpuMesh, GpuTechnique, Points};
use crate::gpu::{
    BufferCheck, GpuContext, GpuError, GpuRun, Kernels, dispatch_dims, read_buffer, shader_source,
    storage_buffer_init, storage_buffer_zeroed,
};

/// Invocations per workgroup of both entry points.
pub const WORKGROUP: u32 = 64;

/// `struct SdfParams` of shaders/radial_bone_sdf.wgsl (layout checked by
/// tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SdfParams {
    pub num_bones: u32,
    pub res: u32,
    pub num_points: u32,
    pub reach: f32,
}

/// `struct BoneBox` of shaders/radial_bone_sdf.wgsl: a bone's box at rest
/// and its range of the triangle list.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BoneBox {
    pub lo: [f32; 3],
    pub first: u32,
    pub hi: [f32; 3],
    pub count: u32,
}

/// The pipelines, made once per context.
pub struct BoneSdfKernels {
    kernels: Kernels,
    build: wgpu::ComputePipeline,
    query: wgpu::ComputePipeline,
}

impl BoneSdfKernels {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "BoneSdfGpu", shader_source("radial_bone_sdf.wgsl"));
        BoneSdfKernels {
            build: kernels.pipeline(gpu, "build"),
            query: kernels.pipeline(gpu, "query"),
            kernels,
        }
    }
}

/// Every bone's grid of one mesh, queried by one set of points.
pub struct GpuBoneSdfs<'k> {
    k: &'k BoneSdfKernels,
    grids: BoneSdfs,
    group: wgpu::BindGroup,
    matrices: wgpu::Buffer,
    cells: wgpu::Buffer,
    distance: wgpu::Buffer,
    params: SdfParams,
}

impl<'k> GpuBoneSdfs<'k> {
    /// `grids` over `mesh`, answering for `points` within `reach`.
    pub fn new(
        k: &'k BoneSdfKernels,
        gpu: &GpuContext,
        mesh: &GpuMesh,
        grids: BoneSdfs,
        points: Points<'_>,
        reach: f32,
    ) -> Result<Self, GpuError> {
        let mut list = Vec::new();
        let boxes: Vec<BoneBox> = (grids.bones.iter())
            .map(|g| {
                let first = list.len() as u32;
                list.extend_from_slice(&g.triangles);
                BoneBox {
                    lo: g.lo.to_array(),
                    first,
                    hi: g.hi.to_array(),
                    count: g.triangles.len() as u32,
                }
            })
            .collect();
        let params = SdfParams {
            num_bones: boxes.len() as u32,
            res: grids.res,
            num_points: points.count,
            reach,
        };
        let bone_tris = storage_buffer_init(gpu, "GpuBoneSdfs::bone_tris", &list)?;
        let bones = storage_buffer_init(gpu, "GpuBoneSdfs::bones", &boxes)?;
        let matrices = storage_buffer_init(
            gpu,
            "GpuBoneSdfs::matrices",
            &vec![Mat4::IDENTITY; 2 * boxes.len()],
        )?;
        let zeroed = |label, bytes| storage_buffer_zeroed(gpu, BufferCheck { label, bytes });
        let cells = zeroed(
            "GpuBoneSdfs::cells",
            4 * (grids.cells_per_bone() * boxes.len()) as u64,
        )?;
        let distance = zeroed("GpuBoneSdfs::distance", 4 * points.count as u64)?;
        let uniform = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("GpuBoneSdfs::params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let group = k.kernels.bind(
            gpu,
            &[
                ("params", &uniform),
                ("positions", &mesh.positions),
                ("triangles", &mesh.triangles),
                ("bone_tris", &bone_tris),
                ("bones", &bones),
                ("matrices", &matrices),
                ("points", points.buffer),
                ("cells", &cells),
                ("distance", &distance),
            ],
        );
        Ok(GpuBoneSdfs {
            k,
            grids,
            group,
            matrices,
            cells,
            distance,
            params,
        })
    }

    /// The grids' cells as the last update left them (tests).
    pub fn read_cells(&self, gpu: &GpuContext) -> Result<Vec<f32>, GpuError> {
        read_buffer(
            gpu,
            &self.cells,
            self.grids.cells_per_bone() * self.grids.bones.len(),
        )
    }

    fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, pipeline: &wgpu::ComputePipeline, n: u32) {
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        let (x, y) = dispatch_dims(n.div_ceil(WORKGROUP));
        pass.dispatch_workgroups(x, y, 1);
    }
}

impl GpuTechnique for GpuBoneSdfs<'_> {
    fn write_pose(&self, gpu: &GpuContext, skin_matrices: &[Mat4]) {
        let m: Vec<Mat4> = (self.grids.bones.iter())
            .flat_map(|g| {
                let m = skin_matrices[g.joint];
                [m, m.inverse()]
            })
            .collect();
        gpu.queue
            .write_buffer(&self.matrices, 0, bytemuck::cast_slice(&m));
    }

    fn record_update(&self, run: &mut GpuRun<'_>) {
        let cells = (self.grids.cells_per_bone() * self.grids.bones.len()) as u32;
        run.compute_pass("sdf build", |pass| {
            self.dispatch(pass, &self.k.build, cells)
        });
    }

    fn record_query(&self, run: &mut GpuRun<'_>) {
        run.compute_pass("sdf query", |pass| {
            self.dispatch(pass, &self.k.query, self.params.num_points)
        });
    }

    fn memory_bytes(&self) -> u64 {
        let bones = self.grids.bones.len();
        (self.grids.memory_bytes() + bones * (size_of::<BoneBox>() + 2 * 64)) as u64
    }

    fn distances(&self) -> &wgpu::Buffer {
        &self.distance
    }

    fn num_points(&self) -> u32 {
        self.params.num_points
    }

    fn check(&self, _gpu: &GpuContext) -> Result<(), GpuError> {
        // Fixed sizes: a rebuild always fits.
        Ok(())
    }
}
