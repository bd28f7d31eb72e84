//! Table 1's uniform spatial hash on the GPU (`shaders/radial_hash.wgsl`),
//! rebuilt from the skinned triangles every frame: count, scan, fill
//! (Friston & Steed 2019, §9; Teschner et al. 2003's hash of cells into a
//! fixed table, so the moving mesh needs no bounds). Each point then tests
//! the triangles of the 27 cells around its own. The CPU reference is
//! [`super::alternatives::SpatialHash`] (a dense grid over the mesh's box:
//! the same candidates, so the same nearest triangle within reach).
//!
//! The entry buffer holds twice the (triangle, cell) pairs of the mesh
//! it was made for; [`GpuTechnique::check`] reads back whether a later
//! pose needed more.

use eframe::egui_wgpu::wgpu;
use glam::{IVec3, Vec3};
use wgpu::util::DeviceExt;

use super::techniques::{GpuMesh, GpuTechnique, Points};
use crate::geom::Aabb;
use crate::gpu::{
    BufferCheck, GpuContext, GpuError, GpuRun, Kernels, dispatch_dims, read_buffer, shader_source,
    storage_buffer_zeroed,
};

/// Invocations per workgroup of the per-triangle, per-bucket and
/// per-point entry points.
pub const WORKGROUP: u32 = 64;
/// Buckets per workgroup of the scan (SCAN_WG of shared/workgroup_scan.wgsl).
pub const SCAN_GROUP: u32 = 256;

/// `struct HashParams` of shaders/radial_hash.wgsl (layout checked by
/// tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct HashParams {
    pub num_triangles: u32,
    pub num_points: u32,
    pub table_size: u32,
    pub capacity: u32,
    pub cell: f32,
    pub reach: f32,
    pub num_blocks: u32,
    pub _pad: u32,
}

/// The hash's pipelines, made once per context.
pub struct HashKernels {
    kernels: Kernels,
    clear: wgpu::ComputePipeline,
    count: wgpu::ComputePipeline,
    scan_blocks: wgpu::ComputePipeline,
    scan_totals: wgpu::ComputePipeline,
    scan_add: wgpu::ComputePipeline,
    fill: wgpu::ComputePipeline,
    query: wgpu::ComputePipeline,
}

impl HashKernels {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "HashGpu", shader_source("radial_hash.wgsl"));
        let p = |entry| kernels.pipeline(gpu, entry);
        HashKernels {
            clear: p("clear"),
            count: p("count"),
            scan_blocks: p("scan_blocks"),
            scan_totals: p("scan_totals"),
            scan_add: p("scan_add"),
            fill: p("fill"),
            query: p("query"),
            kernels,
        }
    }
}

/// The (triangle, cell) pairs of `positions` with cells of size `cell`.
pub(crate) fn cell_pairs(positions: &[Vec3], triangles: &[[u32; 3]], cell: f32) -> usize {
    triangles
        .iter()
        .map(|t| {
            let b = Aabb::of_triangle(t.map(|v| positions[v as usize]));
            let lo = (b.min / cell).floor().as_ivec3();
            let hi = (b.max / cell).floor().as_ivec3();
            let n = (hi - lo + IVec3::ONE).max(IVec3::ONE);
            (n.x * n.y * n.z) as usize
        })
        .sum()
}

/// A spatial hash of one mesh, queried by one set of points.
pub struct GpuHash<'k> {
    k: &'k HashKernels,
    group: wgpu::BindGroup,
    offsets: wgpu::Buffer,
    distance: wgpu::Buffer,
    params: HashParams,
    bytes: u64,
}

impl<'k> GpuHash<'k> {
    /// A hash of `mesh` (posed as `positions` now, which sizes its table
    /// and entries) with cells of `cell`, answering for `points` within
    /// `reach` (at most `cell`).
    pub fn new(
        k: &'k HashKernels,
        gpu: &GpuContext,
        mesh: &GpuMesh,
        positions: &[Vec3],
        points: Points<'_>,
        cell: f32,
        reach: f32,
    ) -> Result<Self, GpuError> {
        if !(cell > 0.0 && reach > 0.0 && reach <= cell) {
            return Err(GpuError::Validation {
                what: "spatial hash".into(),
                reason: format!("needs 0 < reach ({reach}) ≤ cell ({cell})"),
            });
        }
        let pairs = cell_pairs(positions, &mesh.indices, cell);
        let table_size = (pairs as u32).next_power_of_two().max(SCAN_GROUP);
        let capacity = (2 * pairs as u32).max(1024);
        let num_blocks = table_size.div_ceil(SCAN_GROUP);
        let params = HashParams {
            num_triangles: mesh.num_triangles,
            num_points: points.count,
            table_size,
            capacity,
            cell,
            reach,
            num_blocks,
            _pad: 0,
        };
        let buffer = |label, words: u32| {
            storage_buffer_zeroed(
                gpu,
                BufferCheck {
                    label,
                    bytes: 4 * words as u64,
                },
            )
        };
        let counts = buffer("GpuHash::counts", table_size)?;
        let offsets = buffer("GpuHash::offsets", table_size + 1)?;
        let block_sums = buffer("GpuHash::block_sums", num_blocks)?;
        let entries = buffer("GpuHash::entries", capacity)?;
        let distance = buffer("GpuHash::distance", points.count)?;
        let uniform = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("GpuHash::params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let group = k.kernels.bind(
            gpu,
            &[
                ("params", &uniform),
                ("positions", &mesh.positions),
                ("triangles", &mesh.triangles),
                ("points", points.buffer),
                ("counts", &counts),
                ("offsets", &offsets),
                ("block_sums", &block_sums),
                ("entries", &entries),
                ("distance", &distance),
            ],
        );
        let bytes = 4 * (2 * table_size as u64 + 1 + num_blocks as u64 + capacity as u64);
        Ok(GpuHash {
            k,
            group,
            offsets,
            distance,
            params,
            bytes,
        })
    }

    fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        pipeline: &wgpu::ComputePipeline,
        groups: u32,
    ) {
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        let (x, y) = dispatch_dims(groups);
        pass.dispatch_workgroups(x, y, 1);
    }
}

impl GpuTechnique for GpuHash<'_> {
    fn record_update(&self, run: &mut GpuRun<'_>) {
        let p = &self.params;
        let k = self.k;
        let tris = p.num_triangles.div_ceil(WORKGROUP);
        run.compute_pass("hash build", |pass| {
            self.dispatch(pass, &k.clear, p.table_size.div_ceil(WORKGROUP));
            self.dispatch(pass, &k.count, tris);
            self.dispatch(pass, &k.scan_blocks, p.num_blocks);
            self.dispatch(pass, &k.scan_totals, 1);
            self.dispatch(pass, &k.scan_add, p.num_blocks);
            self.dispatch(pass, &k.fill, tris);
        });
    }

    fn record_query(&self, run: &mut GpuRun<'_>) {
        let groups = self.params.num_points.div_ceil(WORKGROUP);
        run.compute_pass("hash query", |pass| {
            self.dispatch(pass, &self.k.query, groups)
        });
    }

    fn memory_bytes(&self) -> u64 {
        self.bytes
    }

    fn distances(&self) -> &wgpu::Buffer {
        &self.distance
    }

    fn num_points(&self) -> u32 {
        self.params.num_points
    }

    fn check(&self, gpu: &GpuContext) -> Result<(), GpuError> {
        let offsets: Vec<u32> =
            read_buffer(gpu, &self.offsets, self.params.table_size as usize + 1)?;
        let used = offsets[self.params.table_size as usize];
        if used > self.params.capacity {
            return Err(GpuError::Validation {
                what: "spatial hash".into(),
                reason: format!(
                    "{used} (triangle, cell) entries this frame, room for {}: the mesh grew beyond the pose it was sized for",
                    self.params.capacity
                ),
            });
        }
        Ok(())
    }
}
