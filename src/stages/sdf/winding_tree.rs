//! What the grid's ([`super::winding_gpu`]) and the points'
//! ([`super::point_winding`]) winding sign on the GPU share: the mesh's
//! [`FastWinding`] tree on the GPU, the refining pass's subtree roots
//! ([`frontier`]), and the lists that pass fills and the host reads back
//! ([`RefineLists`]: the open items, the items each refining step decided,
//! the items left to the CPU), and the refining steps' passes over them
//! ([`RefinePasses`]).
//!
//! # Load balance (shaders/shared/winding_refine.wgsl)
//!
//! A refining walk's work sits near its point: the subtrees around it open
//! down to the leaves, the rest are a few expansions. The [`frontier`] has
//! [`FRONTIER_ROOTS`] = 4096 roots (a few dozen triangles each on a 70K
//! bunny). Each step is spread over the whole device: a workgroup per
//! (open item, column), root `f` going to column `f % columns` and
//! invocation `(f / columns) % 64`, so that the opened subtrees around the
//! item, adjacent in the frontier, land in different workgroups; a decide
//! pass (a workgroup per item) sums the item's columns and decides it or
//! lists it for the next step. The columns adapt to the open count, on the
//! GPU (about 16,384 workgroups in all, at most one root per invocation):
//! 283 open cells at β = 12 get 57 columns each instead of one long serial
//! walk (one workgroup each, a couple per multiprocessor), 2,413 get 6,
//! each invocation walking several roots, so that a full device's lanes do
//! not idle waiting for one slow root (one root per invocation was slower,
//! `docs/bench/design-measurements.md`).
//! The exact sum of an item both walks leave open is spread the
//! same way, one workgroup per (item, block of [`EXACT_BLOCK`] triangles),
//! instead of one workgroup summing every triangle (70K f64 solid angles,
//! 1,100 per invocation on the bunny; 17,000 on the 1.1M-triangle bunny).
//! Every pass is a fixed grid looping over its list (the counts are on the
//! GPU only), and each is its own profiler phase.
//!
//! # Kept lists
//!
//! The lists are field-sized (`undecided` and `leftover` 4 (n + 1)
//! bytes: 67 MB each at 256³). A run takes the last run's ([`Kept`]) when
//! they are large enough for its items and the mesh's tree
//! ([`RefineLists::fits`]) and gives them back once read, so that repeated
//! runs create and free nothing (on NVIDIA each is a dedicated allocation,
//! and wgpu zero-fills a new buffer on its first use). Kept buffers hold
//! the last run's data, so each run clears what its passes read before
//! they write it ([`RefineLists::record_clear`]): the counters.
//!
//! # The frame
//!
//! The tree and corners are stored relative to [`exact_frame`] of the
//! mesh's bounds: every corner minus that frame is a float32, so the
//! stored corners are the CPU's corners moved exactly, and the refining
//! pass's f64 solid angles (shaders/shared/winding_f64_leaf.wgsl) carry no
//! storage error in their bound. A point is then left open only within f64
//! rounding (about 1e-11, relative) of a triangle's plane, edge or corner,
//! or within the atan2 allowance of the `|w| = ½` sheet; with a rounded
//! frame (the bounding box's centre) every point within 2⁻²⁴ of the
//! corners' size of a plane stayed open and went on to the exact sum and
//! the CPU.

use std::sync::{Arc, Mutex};

use eframe::egui_wgpu::wgpu;
use glam::Vec3;

use super::SdfError;
use crate::geom::{LEAF_BIT, WindingNode, exact_frame};
use crate::gpu::{
    BufferCheck, GpuContext, GpuError, GpuRun, Kernels, MapRequest, read_buffer,
    storage_buffer_init, storage_buffer_zeroed,
};
use crate::mesh::PreparedMesh;

/// Deepest tree the shader's stack holds (`WINDING_STACK` of
/// shaders/shared/winding.wgsl): one node more per level.
pub const WINDING_STACK: usize = 64;
/// Subtrees in the refining pass's [`frontier`]: 64 per invocation (fewer
/// than twice that, which `winding_subtree`'s bound in
/// shaders/shared/winding.wgsl allows for).
pub(super) const FRONTIER_ROOTS: usize = 4096;
/// The refining pass's steps (`REFINE_STEPS` of
/// shaders/shared/winding_refine.wgsl): the β = 12 walk, the β = 32 walk,
/// the exact sum.
pub const REFINE_STEPS: usize = 3;
/// Invocations of a refining pass's workgroup (`@workgroup_size` of
/// shaders/shared/winding_refine.wgsl): a walk's chunk has one frontier
/// root per invocation.
pub const REFINE_WORKGROUP: usize = 64;
/// Workgroups a walk's parts pass aims at (`WALK_TARGET_GROUPS` of
/// shaders/shared/winding_refine.wgsl): its items × columns is at most
/// the larger of this and the items.
pub const WALK_TARGET_GROUPS: usize = 16384;
/// Where the refining passes' dispatch arguments start in `refine_items`
/// (`REFINE_ARGS`, in u32s): 3 per pass, 2 passes per step.
pub const REFINE_ARGS: usize = 2;
/// Where the β = 32 walk's list starts in `refine_items` (`WALK_LIST`),
/// after the dispatch arguments; it has room for every item, and the exact
/// sum's list follows it.
pub const WALK_LIST: usize = REFINE_ARGS + 3 * 2 * REFINE_STEPS;
/// Items the exact sum takes (`EXACT_CAPACITY` of
/// shaders/shared/winding_refine.wgsl); more go to the CPU.
pub const EXACT_CAPACITY: usize = 256;
/// Triangles per workgroup of the exact sum (`EXACT_BLOCK`).
pub const EXACT_BLOCK: usize = 1024;
/// The most solid angles (open items × triangles) for which the open items
/// skip both walks for the exact sum (`winding_refine_first_args` of
/// shaders/shared/winding_refine.wgsl): a few milliseconds of exact sums
/// on a large device, about what the walks of a few dozen open cells of a
/// million-triangle mesh take (`docs/bench/design-measurements.md`). A walk
/// is latency-bound (each lane walks its roots one after another); the
/// exact sum is as wide as the device.
pub(crate) const EXACT_DIRECT_BUDGET: u32 = 1 << 27;

/// The bytes of the refining passes' dispatch arguments.
const ARGS_BYTES: u64 = 4 * 3 * 2 * REFINE_STEPS as u64;

/// The walks' passes, each its own profiler phase (the benches' "winding
/// refine" is their total): the dispatch arguments' passes and copies
/// (those of the exact sum too), each walk's parts and decide passes.
pub const REFINE_PHASES: [&str; 5] = [
    "winding refine args",
    "winding refine β12 parts",
    "winding refine β12 decide",
    "winding refine β32 parts",
    "winding refine β32 decide",
];
/// The exact sum's passes' phase.
pub(crate) const EXACT_PHASE: &str = "winding refine exact";

/// The refining steps' pipelines of a module including
/// shaders/shared/winding_refine.wgsl: each walk's (parts, decide), then
/// the exact sum's.
pub(super) struct RefinePasses {
    /// The dispatch arguments before the first step (which may send the
    /// items straight to the exact sum), and before the later ones.
    first_args: wgpu::ComputePipeline,
    args: wgpu::ComputePipeline,
    walks: [(wgpu::ComputePipeline, wgpu::ComputePipeline); 2],
    exact: (wgpu::ComputePipeline, wgpu::ComputePipeline),
}

impl RefinePasses {
    pub fn new(gpu: &GpuContext, kernels: &Kernels) -> Self {
        let pair = |parts: &str, decide: &str| {
            (kernels.pipeline(gpu, parts), kernels.pipeline(gpu, decide))
        };
        RefinePasses {
            first_args: kernels.pipeline(gpu, "winding_refine_first_args"),
            args: kernels.pipeline(gpu, "winding_refine_args"),
            walks: [
                pair("winding_walk12_parts", "winding_walk12_decide"),
                pair("winding_walk32_parts", "winding_walk32_decide"),
            ],
            exact: pair("winding_exact_parts", "winding_exact_decide"),
        }
    }
}

/// Who decided the winding sign of how many cells (or points).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenCells {
    /// Cells the crossing count and the cap's winding number signed (the
    /// grid's first pass; 0 for point sets, whose first pass walks the tree).
    pub counted: usize,
    /// Cells of the first pass that walked the cap's tree (the others were
    /// decided by the crossing count and a bound on the cap alone; 0 for
    /// point sets).
    pub walked: usize,
    /// Cells they left open, decided by the refining pass.
    pub refined: usize,
    /// Of `refined`, those the β = 12 walk, the β = 32 walk and the exact
    /// sum decided.
    pub by_step: [usize; REFINE_STEPS],
    /// Cells the refining pass left open too, decided on the CPU.
    pub cpu: usize,
}

/// Why a mesh's tree could not go to the GPU.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error("the winding tree is {depth} levels deep, beyond the GPU traversal stack of {max}")]
    TooDeep { depth: usize, max: usize },
}

impl From<TreeError> for SdfError {
    fn from(e: TreeError) -> Self {
        match e {
            TreeError::Gpu(e) => Self::Gpu(e),
            TreeError::TooDeep { depth, max } => Self::BvhTooDeep { depth, max },
        }
    }
}

/// A mesh's winding tree on the GPU.
pub(super) struct WindingTree {
    key: (u64, usize),
    pub nodes: wgpu::Buffer,
    /// 3 corners per triangle, leaf slot order.
    pub corners: wgpu::Buffer,
    pub frontier: wgpu::Buffer,
    pub triangles: u32,
    /// The world position the tree's coordinates are relative to
    /// ([`exact_frame`]; a float32 exactly).
    pub frame: Vec3,
}

impl WindingTree {
    /// The tree of `mesh` in its exact frame; buffers labelled
    /// `label::nodes` and so on.
    fn upload(gpu: &GpuContext, mesh: &PreparedMesh, label: &str) -> Result<Self, TreeError> {
        let frame = exact_frame(mesh.bounds());
        let packed = mesh
            .winding()
            .packed_for_stack(frame, WINDING_STACK)
            .map_err(|depth| TreeError::TooDeep {
                depth,
                max: WINDING_STACK - 1,
            })?;
        let roots = frontier(&packed.nodes, FRONTIER_ROOTS);
        Ok(WindingTree {
            key: key_of(mesh),
            nodes: storage_buffer_init(gpu, &format!("{label}::nodes"), &packed.nodes)?,
            corners: storage_buffer_init(gpu, &format!("{label}::corners"), &packed.corners)?,
            frontier: storage_buffer_init(gpu, &format!("{label}::frontier"), &roots)?,
            triangles: (packed.corners.len() / 3) as u32,
            frame: frame.as_vec3(),
        })
    }
}

/// The buffers of `tree` and `lists` by the WGSL names the winding passes
/// bind them under (shared/winding_refine.wgsl and its includers).
pub(super) fn winding_bindings<'a>(
    tree: &'a WindingTree,
    lists: &'a RefineLists,
) -> [(&'static str, &'a wgpu::Buffer); 8] {
    [
        ("winding_nodes", &tree.nodes),
        ("winding_tris", &tree.corners),
        ("frontier", &tree.frontier),
        ("undecided", &lists.undecided),
        ("leftover", &lists.leftover),
        ("refine_steps", &lists.steps),
        ("refine_items", &lists.items),
        ("refine_sums", &lists.sums),
    ]
}

pub(super) fn key_of(mesh: &PreparedMesh) -> (u64, usize) {
    (mesh.source_hash, mesh.triangle_count())
}

/// The tree of the last mesh, with what the caller keeps beside it (the
/// grid's cap), uploaded once per mesh.
pub(super) struct Resident<T> {
    label: &'static str,
    last: Mutex<Option<Arc<(WindingTree, T)>>>,
}

impl<T> Resident<T> {
    pub fn new(label: &'static str) -> Self {
        Resident {
            label,
            last: Mutex::new(None),
        }
    }

    /// `mesh`'s tree and `extra` (made in the tree's frame), uploaded unless
    /// they are the last mesh's.
    pub fn get<E: From<TreeError>>(
        &self,
        gpu: &GpuContext,
        mesh: &PreparedMesh,
        extra: impl FnOnce(&WindingTree) -> Result<T, E>,
    ) -> Result<Arc<(WindingTree, T)>, E> {
        let mut cache = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = cache.as_ref().filter(|t| t.0.key == key_of(mesh)) {
            return Ok(t.clone());
        }
        let tree = WindingTree::upload(gpu, mesh, self.label)?;
        let extra = extra(&tree)?;
        let both = Arc::new((tree, extra));
        *cache = Some(both.clone());
        Ok(both)
    }
}

/// A run's buffers kept for the next run: a run takes them
/// ([`Kept::take_if`]) for as long as it uses them and gives them back
/// ([`Kept::put`]), so that runs at the same time never share them.
pub(super) struct Kept<T>(Mutex<Option<T>>);

impl<T> Kept<T> {
    pub fn new() -> Self {
        Kept(Mutex::new(None))
    }

    /// The kept buffers if `fits` them; otherwise `None`, and the kept
    /// ones (too small) are dropped.
    pub fn take_if(&self, fits: impl FnOnce(&T) -> bool) -> Option<T> {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        kept.filter(fits)
    }

    /// Keeps `buffers` for the next run.
    pub(crate) fn put(&self, buffers: T) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(buffers);
    }

    /// Frees the kept buffers.
    pub(crate) fn release(&self) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = None;
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

/// The refining pass's lists for `n` items: `undecided` ([count | items])
/// the first pass fills, `steps` (the counters of `refine_steps`),
/// `leftover` ([count | items] left to the CPU), the later steps' lists
/// `items` (`refine_items`: the β = 32 walk's and the exact sum's) and
/// `sums` (`refine_sums`: a vec2 per listed item and column of the running
/// step), and a staging buffer that reads back the counts
/// and the first `read_with_run` leftover items in one copy: [open |
/// steps... | leftover count | items...].
pub(super) struct RefineLists {
    pub undecided: wgpu::Buffer,
    pub steps: wgpu::Buffer,
    pub leftover: wgpu::Buffer,
    pub items: wgpu::Buffer,
    pub sums: wgpu::Buffer,
    /// The refining passes' dispatch arguments, copied from `items`.
    indirect: wgpu::Buffer,
    staging: wgpu::Buffer,
    read_bytes: u64,
    /// The staging buffer's mapping, asked for once the run copying into
    /// it was submitted ([`RefineLists::request_read`]).
    pending: Option<MapRequest>,
}

/// What [`RefineLists::read`] returns: the items the first pass left
/// open, how many each refining step decided, and the items left to the
/// CPU.
pub(super) struct Refined {
    pub open: usize,
    /// The first pass's count of walks of the cap's tree (0 without one).
    pub walked: usize,
    pub by_step: [usize; REFINE_STEPS],
    pub leftover: Vec<u32>,
}

/// The bytes of `undecided` and `leftover` ([count | items]) and of
/// `refine_items` for `n` items, and of `refine_sums` for `n` items of
/// `tree`: a walk's rows (items × columns, at most the larger of
/// [`WALK_TARGET_GROUPS`] and the items) or the exact sum's (up to
/// [`EXACT_CAPACITY`] items × blocks).
fn list_sizes(n: usize, tree: &WindingTree) -> (u64, u64, u64) {
    let blocks = u64::from(tree.triangles.div_ceil(EXACT_BLOCK as u32).max(1));
    let walk_rows = n.max(WALK_TARGET_GROUPS) as u64;
    let sums = walk_rows.max(EXACT_CAPACITY as u64 * blocks);
    let items = 4 * (WALK_LIST + n + EXACT_CAPACITY) as u64;
    (4 * (n as u64 + 1), items, 8 * sums)
}

impl RefineLists {
    /// Whether these lists hold `n` items of `tree`. The passes read and
    /// write only the run's items (`capacity` = n) and the copies only
    /// the counts and the first leftover items, so a larger buffer's tail
    /// is never seen.
    pub fn fits(&self, n: usize, tree: &WindingTree) -> bool {
        let (list_bytes, items_bytes, sums_bytes) = list_sizes(n, tree);
        self.undecided.size() >= list_bytes
            && self.leftover.size() >= list_bytes
            && self.items.size() >= items_bytes
            && self.sums.size() >= sums_bytes
    }

    /// Lists for `n` items of `tree`.
    pub fn new(
        gpu: &GpuContext,
        label: &str,
        n: usize,
        tree: &WindingTree,
        read_with_run: usize,
    ) -> Result<Self, GpuError> {
        let (list_bytes, items_bytes, sums_bytes) = list_sizes(n, tree);
        let zeroed = |name: &str, bytes| {
            storage_buffer_zeroed(
                gpu,
                BufferCheck {
                    label: &format!("{label}::{name}"),
                    bytes,
                },
            )
        };
        let read_bytes = list_bytes.min(4 * (read_with_run as u64 + 1));
        Ok(RefineLists {
            undecided: zeroed("undecided", list_bytes)?,
            steps: zeroed("steps", 4 * REFINE_STEPS as u64)?,
            leftover: zeroed("leftover", list_bytes)?,
            items: zeroed("refine_items", items_bytes)?,
            sums: zeroed("refine_sums", sums_bytes)?,
            indirect: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&format!("{label}::refine_args")),
                size: ARGS_BYTES,
                usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            staging: crate::gpu::staging_buffer(
                &gpu.device,
                &format!("{label}::staging"),
                4 * (2 + REFINE_STEPS as u64) + read_bytes,
            ),
            read_bytes,
            pending: None,
        })
    }

    /// Records the clearing of what the passes read before they write it
    /// (under phase `phase`, before the first pass): the counts of
    /// `undecided` and `leftover`, the steps' counters, and the head of
    /// `refine_items` (the later lists' counts; the dispatch arguments
    /// after them are written by each step's args pass before they are
    /// read). The items and `refine_sums` are written before they are
    /// read, each below its count.
    pub fn record_clear(&self, run: &mut GpuRun<'_>, phase: &str) {
        run.encoder_work(phase, |encoder| {
            encoder.clear_buffer(&self.undecided, 0, Some(4));
            encoder.clear_buffer(&self.leftover, 0, Some(4));
            encoder.clear_buffer(&self.steps, 0, None);
            encoder.clear_buffer(&self.items, 0, Some(4 * REFINE_ARGS as u64));
        });
    }

    /// Records the refining steps' passes (`passes`, of a module bound by
    /// `bind_group`) over the items the first pass listed: before each
    /// step, the pass writing its dispatch arguments and their copy into
    /// the indirect buffer ("winding refine args"), then each walk's parts
    /// and decide passes ("winding refine β12 parts" …: [`REFINE_PHASES`]),
    /// then the exact sum's ("winding refine exact"), each dispatched
    /// indirectly: one workgroup per (listed item, column).
    pub(crate) fn record_refine(
        &self,
        run: &mut GpuRun<'_>,
        passes: &RefinePasses,
        bind_group: &wgpu::BindGroup,
    ) {
        let steps = [
            (&passes.walks[0], [REFINE_PHASES[1], REFINE_PHASES[2]]),
            (&passes.walks[1], [REFINE_PHASES[3], REFINE_PHASES[4]]),
            (&passes.exact, [EXACT_PHASE; 2]),
        ];
        for (step, ((parts, decide), names)) in steps.into_iter().enumerate() {
            // The step's dispatch arguments from the lists' counts.
            let at = 12 * 2 * step as u64;
            run.compute_pass(REFINE_PHASES[0], |pass| {
                pass.set_pipeline(if step == 0 {
                    &passes.first_args
                } else {
                    &passes.args
                });
                pass.set_bind_group(0, bind_group, &[]);
                pass.dispatch_workgroups(1, 1, 1);
            });
            run.encoder_work(REFINE_PHASES[0], |encoder| {
                let from = 4 * REFINE_ARGS as u64 + at;
                encoder.copy_buffer_to_buffer(&self.items, from, &self.indirect, at, 24);
            });
            for (k, (pipeline, name)) in [(parts, names[0]), (decide, names[1])]
                .into_iter()
                .enumerate()
            {
                run.compute_pass(name, |pass| {
                    pass.set_pipeline(pipeline);
                    pass.set_bind_group(0, bind_group, &[]);
                    pass.dispatch_workgroups_indirect(&self.indirect, at + 12 * k as u64);
                });
            }
        }
    }

    /// Records the copy of the counts (with the first pass's count of cap
    /// walks, `walked`, where it has one) and the first leftover items:
    /// staging holds [open | each step's count | walked | leftover count |
    /// leftover items...].
    pub(crate) fn copy_out(&self, run: &mut GpuRun<'_>, walked: Option<&wgpu::Buffer>) {
        run.encoder_work("copy out", |encoder| {
            let steps = 4 * REFINE_STEPS as u64;
            encoder.copy_buffer_to_buffer(&self.undecided, 0, &self.staging, 0, 4);
            encoder.copy_buffer_to_buffer(&self.steps, 0, &self.staging, 4, steps);
            match walked {
                Some(walked) => {
                    encoder.copy_buffer_to_buffer(walked, 0, &self.staging, 4 + steps, 4)
                }
                None => encoder.clear_buffer(&self.staging, 4 + steps, Some(4)),
            }
            encoder.copy_buffer_to_buffer(
                &self.leftover,
                0,
                &self.staging,
                8 + steps,
                self.read_bytes,
            );
        });
    }

    /// Asks for the staging buffer's mapping: call it once the submission
    /// holding [`RefineLists::copy_out`] is made, before the run's wait,
    /// which then maps it too, and [`RefineLists::read`] reads it without
    /// a round trip to the GPU of its own.
    pub fn request_read(&mut self) {
        self.pending = Some(MapRequest::new(&self.staging, self.staging.size()));
    }

    /// After the run: the counts and every leftover item (a second read
    /// when they did not fit the staging buffer).
    pub fn read(&mut self, gpu: &GpuContext, what: &str) -> Result<Refined, GpuError> {
        let request = self
            .pending
            .take()
            .unwrap_or_else(|| MapRequest::new(&self.staging, self.staging.size()));
        let head: Vec<u32> = request.read(gpu, what, None, bytemuck::pod_collect_to_vec)?;
        let tail = &head[2 + REFINE_STEPS..];
        let count = tail[0] as usize;
        let leftover = if count < tail.len() {
            tail[1..count + 1].to_vec()
        } else {
            read_buffer::<u32>(gpu, &self.leftover, count + 1)?.split_off(1)
        };
        Ok(Refined {
            open: head[0] as usize,
            walked: head[1 + REFINE_STEPS] as usize,
            by_step: std::array::from_fn(|k| head[1 + k] as usize),
            leftover,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::FastWinding;
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
            // Fewer than twice the target: the shader's bound allows for
            // 2 × FRONTIER_ROOTS / 64 subtrees an invocation.
            assert!(roots.len() < 2 * target, "target {target}: {}", roots.len());
            assert!(
                roots.len() >= target.min(nodes.len().div_ceil(2)),
                "target {target}: {} roots of {} nodes",
                roots.len(),
                nodes.len()
            );
        }
    }
}
