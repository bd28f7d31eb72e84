//! Table 1's BVH point–triangle tests on the GPU (`shaders/radial_bvh.wgsl`):
//! the topology is built once over the mesh as first posed (binned SAH,
//! [`crate::geom::Bvh`], the CPU reference's tree) and every frame the
//! skinned triangles are gathered into BVH order and the boxes refitted
//! bottom-up, one dispatch per depth; each point then finds the nearest
//! triangle within reach (`shared/bvh_nearest.wgsl`). A refitted tree
//! answers exactly (boxes stay tight around their triangles) but prunes
//! worse as the pose moves away from the one it was built for: what §9
//! expects of BVHs on deforming meshes. The CPU reference is
//! [`super::alternatives::bvh_query`].

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use wgpu::util::DeviceExt;

use super::alternatives::bvh_build;
use super::techniques::{GpuMesh, GpuTechnique, Points};
use crate::geom::Bvh;
use crate::gpu::{
    BufferCheck, GpuContext, GpuError, GpuRun, Kernels, dispatch_dims, shader_source,
    storage_buffer_init, storage_buffer_zeroed,
};

/// Invocations per workgroup of every entry point.
pub const WORKGROUP: u32 = 64;

/// `struct BvhParams` of shaders/radial_bvh.wgsl (layout checked by
/// tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BvhParams {
    pub num_triangles: u32,
    pub num_points: u32,
    pub level_start: u32,
    pub level_end: u32,
    pub reach: f32,
    pub _pad: [u32; 3],
}

/// The BVH's pipelines, made once per context.
pub struct BvhKernels {
    kernels: Kernels,
    gather: wgpu::ComputePipeline,
    refit: wgpu::ComputePipeline,
    query: wgpu::ComputePipeline,
}

impl BvhKernels {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "BvhGpu", shader_source("radial_bvh.wgsl"));
        BvhKernels {
            gather: kernels.pipeline(gpu, "gather"),
            refit: kernels.pipeline(gpu, "refit"),
            query: kernels.pipeline(gpu, "query"),
            kernels,
        }
    }
}

/// The nodes of `bvh` by depth, deepest first, and each depth's range in
/// that list.
pub fn levels(bvh: &Bvh) -> (Vec<u32>, Vec<(u32, u32)>) {
    let mut depth = vec![0usize; bvh.nodes.len()];
    // Children come after their parent.
    for (i, n) in bvh.nodes.iter().enumerate() {
        if !Bvh::is_leaf(n) {
            depth[n.a as usize] = depth[i] + 1;
            depth[n.b as usize] = depth[i] + 1;
        }
    }
    let deepest = depth.iter().copied().max().unwrap_or(0);
    let mut list = Vec::with_capacity(bvh.nodes.len());
    let mut ranges = Vec::new();
    for d in (0..=deepest).rev() {
        let start = list.len() as u32;
        list.extend((0..bvh.nodes.len() as u32).filter(|&i| depth[i as usize] == d));
        ranges.push((start, list.len() as u32));
    }
    (list, ranges)
}

/// A refitted BVH of one mesh, queried by one set of points.
pub struct GpuBvh<'k> {
    k: &'k BvhKernels,
    /// The gather and query passes' group, then one per depth.
    group: wgpu::BindGroup,
    level_groups: Vec<(wgpu::BindGroup, u32)>,
    distance: wgpu::Buffer,
    params: BvhParams,
    bytes: u64,
}

impl<'k> GpuBvh<'k> {
    /// A BVH over `mesh` built at `positions` (its first pose), answering
    /// for `points` within `reach`.
    pub fn new(
        k: &'k BvhKernels,
        gpu: &GpuContext,
        mesh: &GpuMesh,
        positions: &[Vec3],
        points: Points<'_>,
        reach: f32,
    ) -> Result<Self, GpuError> {
        if reach.is_nan() || reach <= 0.0 {
            return Err(GpuError::Validation {
                what: "BVH".into(),
                reason: format!("needs reach > 0, got {reach}"),
            });
        }
        let (bvh, _) = bvh_build(positions, &mesh.indices);
        let (list, ranges) = levels(&bvh);
        let nodes = storage_buffer_init(gpu, "GpuBvh::nodes", &bvh.nodes)?;
        let order = storage_buffer_init(gpu, "GpuBvh::order", &bvh.order)?;
        let level_nodes = storage_buffer_init(gpu, "GpuBvh::level_nodes", &list)?;
        let tri_pos = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "GpuBvh::tri_pos",
                bytes: 48 * mesh.num_triangles as u64,
            },
        )?;
        let distance = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "GpuBvh::distance",
                bytes: 4 * points.count as u64,
            },
        )?;
        let params = BvhParams {
            num_triangles: mesh.num_triangles,
            num_points: points.count,
            level_start: 0,
            level_end: 0,
            reach,
            _pad: [0; 3],
        };
        let bind = |p: &BvhParams| {
            let uniform = gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("GpuBvh::params"),
                    contents: bytemuck::bytes_of(p),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            k.kernels.bind(
                gpu,
                &[
                    ("params", &uniform),
                    ("positions", &mesh.positions),
                    ("triangles", &mesh.triangles),
                    ("order", &order),
                    ("level_nodes", &level_nodes),
                    ("points", points.buffer),
                    ("nodes", &nodes),
                    ("tri_pos", &tri_pos),
                    ("distance", &distance),
                ],
            )
        };
        let level_groups = (ranges.iter())
            .map(|&(start, end)| {
                let p = BvhParams {
                    level_start: start,
                    level_end: end,
                    ..params
                };
                (bind(&p), end - start)
            })
            .collect();
        let bytes = (std::mem::size_of_val(bvh.nodes.as_slice())
            + 4 * (bvh.order.len() + list.len())) as u64
            + tri_pos.size();
        Ok(GpuBvh {
            k,
            group: bind(&params),
            level_groups,
            distance,
            params,
            bytes,
        })
    }
}

fn dispatch(
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    group: &wgpu::BindGroup,
    items: u32,
) {
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, group, &[]);
    let (x, y) = dispatch_dims(items.div_ceil(WORKGROUP));
    pass.dispatch_workgroups(x, y, 1);
}

impl GpuTechnique for GpuBvh<'_> {
    fn record_update(&self, run: &mut GpuRun<'_>) {
        run.compute_pass("bvh refit", |pass| {
            dispatch(pass, &self.k.gather, &self.group, self.params.num_triangles);
            for (group, count) in &self.level_groups {
                dispatch(pass, &self.k.refit, group, *count);
            }
        });
    }

    fn record_query(&self, run: &mut GpuRun<'_>) {
        run.compute_pass("bvh query", |pass| {
            dispatch(pass, &self.k.query, &self.group, self.params.num_points)
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

    fn check(&self, _gpu: &GpuContext) -> Result<(), GpuError> {
        // Fixed sizes: a refit always fits.
        Ok(())
    }
}
