//! A detect's plan on the GPU: its tasks and primitive points written
//! into buffers kept between detects ([`crate::gpu::KeptStorage`]), whole (one
//! submission, a summary) or a prefix at a time (the chunked detect, each
//! chunk's pairs for its own submission: [`super::chunked`]).

use std::mem::size_of;

use eframe::egui_wgpu::wgpu;

use super::{ColliderGpu, ResidentShapes, WORKGROUP};
use crate::gpu::{GpuError, dispatch_dims, write_part};
use crate::stages::collide::{ColliderError, ColliderShape, Extent, Plan, Task};
use crate::stages::sampling::GpuSample;

impl ColliderGpu {
    /// Fails unless `resident` holds `shapes`.
    pub(super) fn check_resident(
        resident: &ResidentShapes,
        shapes: &[ColliderShape],
    ) -> Result<(), ColliderError> {
        let total_samples: usize = shapes.iter().map(|s| s.samples.samples.len()).sum();
        if resident.shape_count != shapes.len() || resident.sample_count != total_samples {
            return Err(GpuError::Validation {
                what: "colliders".into(),
                reason: "the resident shapes are not the shapes given".into(),
            }
            .into());
        }
        Ok(())
    }

    /// The kept plan buffers (tasks, primitive points) with room for
    /// `extent`, their contents as the last detect left them.
    pub(super) fn plan_room(&self, extent: Extent) -> Result<[wgpu::Buffer; 2], ColliderError> {
        let bytes = |n: usize, size: usize| ((n.max(1) * size) as u64).next_multiple_of(4);
        let mut room = self
            .plan_room
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok([
            room[0].room(&self.gpu, bytes(extent.tasks, size_of::<Task>()))?,
            room[1].room(&self.gpu, bytes(extent.extra, size_of::<GpuSample>()))?,
        ])
    }

    /// `plan`'s tasks and primitive points from task `tasks` and point
    /// `extra` on, written into `buffers` for the queue's next submission.
    pub(super) fn write_plan(
        &self,
        buffers: &[wgpu::Buffer; 2],
        plan: &Plan,
        (tasks, extra): (usize, usize),
    ) {
        write_part(
            &self.gpu,
            &buffers[0],
            (tasks * size_of::<Task>()) as u64,
            &plan.tasks[tasks..],
        );
        let points: Vec<GpuSample> = plan.extra[extra..].iter().map(GpuSample::from).collect();
        write_part(
            &self.gpu,
            &buffers[1],
            (extra * size_of::<GpuSample>()) as u64,
            &points,
        );
    }

    /// `plan` (of `pairs` pairs) written into the kept plan buffers.
    pub(super) fn planned(&self, plan: Plan, pairs: usize) -> Result<Planned, ColliderError> {
        let buffers = self.plan_room(Extent {
            tasks: plan.tasks.len(),
            points: plan.total_threads,
            extra: plan.extra.len(),
        })?;
        self.write_plan(&buffers, &plan, (0, 0));
        let dims = dispatch_dims((plan.total_threads as u32).div_ceil(WORKGROUP));
        Ok(Planned {
            plan,
            buffers,
            dims,
            pairs,
        })
    }
}

/// A detect's plan on the GPU.
pub(super) struct Planned {
    pub(super) plan: Plan,
    /// Tasks, primitive points.
    pub(super) buffers: [wgpu::Buffer; 2],
    /// Workgroups dispatched per pass (x, y).
    pub(super) dims: (u32, u32),
    pub(super) pairs: usize,
}

impl Planned {
    pub(super) fn groups(&self) -> usize {
        (self.dims.0 * self.dims.1) as usize
    }
}
