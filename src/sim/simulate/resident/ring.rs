//! Frame summaries in flight: each frame's [`GpuSummary`] is copied into
//! one of [`RING`] small staging buffers at the end of the frame's encoder
//! and mapped without waiting; [`SummaryRing::collect`] takes whatever has
//! arrived (like `stages/particles/ring.rs`, for 32 bytes a frame). A slot
//! still in flight when its turn comes again is waited for (a stall,
//! counted).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use eframe::egui_wgpu::wgpu;

use super::layout::GpuSummary;
use crate::gpu::{GpuContext, GpuError, staging_buffer};

/// Frames whose summaries may be in flight at once.
pub const RING: usize = 4;

const BYTES: u64 = std::mem::size_of::<GpuSummary>() as u64;

/// A summary and the frame it belongs to.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Arrived {
    /// Frame number (1 for the first frame stepped).
    pub frame: usize,
    pub summary: GpuSummary,
}

struct Slot {
    staging: wgpu::Buffer,
    /// The frame whose summary the slot holds, while mapped or mapping.
    frame: Option<usize>,
    done: Arc<AtomicBool>,
}

/// The staging ring.
pub struct SummaryRing {
    slots: Vec<Slot>,
    next: usize,
    /// The newest summary that has arrived.
    pub latest: Option<Arrived>,
    /// Times a frame had to wait for its slot.
    pub stalls: u64,
}

fn map_error(reason: String) -> GpuError {
    GpuError::Readback {
        what: "pipeline frame summary".into(),
        reason,
    }
}

impl SummaryRing {
    pub fn new(gpu: &GpuContext) -> Self {
        SummaryRing {
            slots: (0..RING)
                .map(|_| Slot {
                    staging: staging_buffer(&gpu.device, "ResidentStep::summary_staging", BYTES),
                    frame: None,
                    done: Arc::new(AtomicBool::new(false)),
                })
                .collect(),
            next: 0,
            latest: None,
            stalls: 0,
        }
    }

    /// The staging buffer the next frame copies its summary into; waits
    /// for the slot's previous frame if it has not arrived.
    pub fn claim(&mut self, gpu: &GpuContext) -> Result<&wgpu::Buffer, GpuError> {
        if self.slots[self.next].frame.is_some() {
            if !self.slots[self.next].done.load(Ordering::Acquire) {
                self.stalls += 1;
            }
            self.wait(gpu)?;
        }
        Ok(&self.slots[self.next].staging)
    }

    /// After the frame that copied into the claimed slot was submitted:
    /// starts its mapping.
    pub fn submitted(&mut self, frame: usize) {
        let slot = &mut self.slots[self.next];
        slot.frame = Some(frame);
        slot.done.store(false, Ordering::Release);
        let done = slot.done.clone();
        slot.staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| {
                // A failed map leaves the slot pending; `wait` reports it.
                if r.is_ok() {
                    done.store(true, Ordering::Release);
                }
            });
        self.next = (self.next + 1) % RING;
    }

    /// Takes the summaries that have arrived (without waiting) and returns
    /// the newest.
    pub fn collect(&mut self, gpu: &GpuContext) -> Result<Option<Arrived>, GpuError> {
        gpu.device
            .poll(wgpu::PollType::Poll)
            .map_err(|e| map_error(e.to_string()))?;
        for slot in &mut self.slots {
            let Some(frame) = slot.frame else { continue };
            if !slot.done.load(Ordering::Acquire) {
                continue;
            }
            let summary: GpuSummary = {
                let view = slot
                    .staging
                    .slice(..)
                    .get_mapped_range()
                    .map_err(|e| map_error(e.to_string()))?;
                bytemuck::pod_read_unaligned(&view[..BYTES as usize])
            };
            slot.staging.unmap();
            slot.frame = None;
            if self.latest.is_none_or(|l| l.frame < frame) {
                self.latest = Some(Arrived { frame, summary });
            }
        }
        Ok(self.latest)
    }

    /// Waits for every summary in flight and returns the newest.
    pub fn wait(&mut self, gpu: &GpuContext) -> Result<Option<Arrived>, GpuError> {
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| map_error(e.to_string()))?;
        self.collect(gpu)?;
        if let Some(stuck) = self.slots.iter().find_map(|s| s.frame) {
            return Err(map_error(format!(
                "frame {stuck}'s summary could not be mapped"
            )));
        }
        Ok(self.latest)
    }
}
