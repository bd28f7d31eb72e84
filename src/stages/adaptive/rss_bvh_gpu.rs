//! The RSS multi-BVH built on the GPU (Algs. 2–3; the method and layout
//! are in [`super::rss_bvh`]). Shader: `shaders/adaptive_rss_bvh.wgsl`.
//!
//! Recorded into the stage's run after the sort, with no read-back: the
//! groups kernel writes the first large level's dispatch size, each
//! `large_next` the next one's and the small phase's, and the number of
//! large levels is fixed beforehand by [`large_levels`] (the last one sends
//! every child to the small phase).

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::{AdaptiveError, AdaptiveParams, BVH_LEAF, MAX_SMALL_DEPTH, RssNode, large_levels};
use crate::gpu::{BufferCheck, GpuContext, GpuRun, Kernels, dispatch_dims, shader_source};

/// Uniform parameters: `struct BuildParams` of shaders/adaptive_rss_bvh.wgsl (the
/// layout is checked by tests/it/shader_layouts.rs, like the slots below).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BuildParams {
    pub num_tris: u32,
    pub group_level: u32,
    pub large: u32,
    pub axis_approximation: u32,
    pub levels: u32,
    pub leaf: u32,
    pub max_small_depth: u32,
    pub children: u32,
}
const _: () = assert!(std::mem::size_of::<BuildParams>() == 32);

/// Slots of the shared `dispatch` buffer (3 u32 each) the build writes
/// (shaders/adaptive_rss_bvh.wgsl).
pub const LARGE_ARGS: u64 = 11;
pub const SMALL_ARGS: u64 = 12;
/// Dispatch slots in all: the octree's depths 0..=10, the build's, then
/// the queries' (narrow and wide for each depth, adaptive.wgsl).
pub(super) const DISPATCH_SLOTS: u64 = 35;

/// Slots for the roots of a build over `n` triangles grouped at
/// `group_level`: at most one per occupied cell.
fn root_slots(n: u64, group_level: u32) -> u64 {
    8u64.pow(group_level).min(n).max(1)
}

/// Node slots of a build: the roots, then two per position of `order`
/// where a node may split (`child_slot` in shaders/adaptive_rss_bvh.wgsl).
pub(super) fn node_slots(n: u64, group_level: u32) -> u64 {
    root_slots(n, group_level) + 2 * n
}

/// The build's pipelines, created once per context.
pub(super) struct RssBuildGpu {
    kernels: Kernels,
    init_order: wgpu::ComputePipeline,
    groups: wgpu::ComputePipeline,
    large_split: wgpu::ComputePipeline,
    large_next: wgpu::ComputePipeline,
    small_nodes: wgpu::ComputePipeline,
}

/// One run's BVH buffers; the queries bind `order`, `nodes`, `group_x`.
pub(super) struct RssBuffers {
    /// `[order | partition scratch]`, `2n` u32: the slot of each entry.
    pub order: wgpu::Buffer,
    /// [`node_slots`]: the roots, then children by split position.
    pub nodes: wgpu::Buffer,
    pub group_x: wgpu::Buffer,
    lists: wgpu::Buffer,
}

/// Buffers of the stage the build reads or updates.
pub(super) struct StageBuffers<'a> {
    pub tri_pos: &'a wgpu::Buffer,
    pub keys: &'a wgpu::Buffer,
    pub vals: &'a wgpu::Buffer,
    pub slot_of: &'a wgpu::Buffer,
    pub state: &'a wgpu::Buffer,
    /// Dispatch sizes the kernels write and later dispatches read.
    pub dispatch: &'a wgpu::Buffer,
    /// Bound in `dispatch`'s place for the dispatches sized from it.
    pub no_args: &'a wgpu::Buffer,
}

impl RssBuildGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "RssBuildGpu", shader_source("adaptive_rss_bvh.wgsl"));
        RssBuildGpu {
            init_order: kernels.pipeline(gpu, "init_order"),
            groups: kernels.pipeline(gpu, "groups"),
            large_split: kernels.pipeline(gpu, "large_split"),
            large_next: kernels.pipeline(gpu, "large_next"),
            small_nodes: kernels.pipeline(gpu, "small_nodes"),
            kernels,
        }
    }

    /// Zeroed buffers for `n` triangles (`n` 0: minimal buffers that a run
    /// querying the AABB BVH binds but never reads).
    pub fn buffers(
        gpu: &GpuContext,
        n: u64,
        group_level: u32,
    ) -> Result<RssBuffers, AdaptiveError> {
        let groups = root_slots(n, group_level);
        let zeroed = |label: &str, bytes: u64| {
            crate::gpu::storage_buffer_zeroed(gpu, BufferCheck { label, bytes })
        };
        Ok(RssBuffers {
            order: zeroed("RssBuildGpu::order", 8 * n)?,
            nodes: zeroed(
                "RssBuildGpu::nodes",
                node_slots(n, group_level) * size_of::<RssNode>() as u64,
            )?,
            group_x: zeroed("RssBuildGpu::group_x", 8 * groups)?,
            lists: zeroed("RssBuildGpu::lists", 12 * n)?,
        })
    }

    /// Records the build of the multi-BVH over the sorted triangles into
    /// `run` (phases "bvh build: groups", "…: large nodes", "…: small
    /// nodes").
    pub fn encode(
        &self,
        gpu: &GpuContext,
        run: &mut GpuRun<'_>,
        rss: &RssBuffers,
        stage: &StageBuffers<'_>,
        n_tris: u32,
        params: &AdaptiveParams,
    ) -> [wgpu::BindGroup; 2] {
        let levels = large_levels(n_tris as usize, params.small_node);
        let uniform = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("RssBuildGpu::params"),
                contents: bytemuck::bytes_of(&BuildParams {
                    num_tris: n_tris,
                    group_level: params.effective_group_level(),
                    large: params.small_node.max(BVH_LEAF + 1),
                    axis_approximation: params.axis_approximation as u32,
                    levels,
                    leaf: BVH_LEAF,
                    max_small_depth: MAX_SMALL_DEPTH,
                    children: root_slots(n_tris as u64, params.effective_group_level()) as u32,
                }),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        // As in the stage: `bind_group` for the kernels that write dispatch
        // sizes, `sized` for those dispatched from them.
        let [bind_group, sized] = [stage.dispatch, stage.no_args].map(|args| {
            self.kernels.bind(
                gpu,
                &[
                    ("params", &uniform),
                    ("tri_pos", stage.tri_pos),
                    ("keys", stage.keys),
                    ("vals", stage.vals),
                    ("slot_of", stage.slot_of),
                    ("order", &rss.order),
                    ("rss", &rss.nodes),
                    ("group_x", &rss.group_x),
                    ("lists", &rss.lists),
                    ("state", stage.state),
                    ("dispatch", args),
                ],
            )
        });
        // Three phases, "bvh build: …", that add up to the "bvh build" of
        // the benchmark tables.
        run.compute_pass("bvh build: groups", |pass| {
            pass.set_bind_group(0, &bind_group, &[]);
            pass.set_pipeline(&self.init_order);
            let (x, y) = dispatch_dims(n_tris.div_ceil(64));
            pass.dispatch_workgroups(x, y, 1);
            pass.set_pipeline(&self.groups);
            pass.dispatch_workgroups(1, 1, 1);
        });
        run.compute_pass("bvh build: large nodes", |pass| {
            for _ in 0..levels {
                pass.set_bind_group(0, &sized, &[]);
                pass.set_pipeline(&self.large_split);
                pass.dispatch_workgroups_indirect(stage.dispatch, 12 * LARGE_ARGS);
                pass.set_bind_group(0, &bind_group, &[]);
                pass.set_pipeline(&self.large_next);
                pass.dispatch_workgroups(1, 1, 1);
            }
        });
        run.compute_pass("bvh build: small nodes", |pass| {
            pass.set_bind_group(0, &sized, &[]);
            pass.set_pipeline(&self.small_nodes);
            pass.dispatch_workgroups_indirect(stage.dispatch, 12 * SMALL_ARGS);
        });
        [bind_group, sized]
    }
}
