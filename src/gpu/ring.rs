//! Read-back of large buffers through a small ring of staging buffers.
//!
//! Reading a buffer back needs host-visible (`MAP_READ`) memory, which a
//! discrete GPU's driver hands out pinned: creating one the size of a
//! 64 MiB field costs tens of milliseconds on the H100 host, a cost paid
//! again on every call that creates it. A [`StagingRing`] reads any
//! number of bytes through [`RING_SLOTS`] buffers of [`RING_CHUNK`]
//! bytes: chunk `k` is copied into slot `k mod RING_SLOTS` in its own
//! submission, mapped when that submission is done, handed to the
//! caller, unmapped, and the slot queued for chunk `k + RING_SLOTS`, so
//! the GPU copies the next chunk while the host reads this one. The slots
//! are small enough for the memory allocator's kept blocks (wgpu's
//! allocator sub-allocates host memory from blocks of 64 MiB and up and
//! keeps the last one when it empties): only a process's first ring
//! allocates host memory from the driver.

use std::collections::VecDeque;

use eframe::egui_wgpu::wgpu;

use super::buffers::staging_buffer;
use super::{GpuContext, GpuError};

/// Bytes per chunk (and per slot).
pub const RING_CHUNK: u64 = 16 << 20;
/// Staging buffers in the ring: one mapped on the host while the GPU
/// copies into the other.
pub const RING_SLOTS: usize = 2;

/// A ring of staging buffers for reading buffers back in chunks.
pub struct StagingRing {
    slots: Vec<wgpu::Buffer>,
    /// Bytes per chunk: the slots' size.
    chunk: u64,
}

impl StagingRing {
    /// A ring of chunks of [`RING_CHUNK`] bytes, for reads of `bytes` (a
    /// smaller read gets smaller or fewer slots).
    pub fn new(gpu: &GpuContext, label: &str, bytes: u64) -> Self {
        Self::with_chunk(gpu, label, bytes, RING_CHUNK)
    }

    /// [`StagingRing::new`] with chunks of `chunk` bytes (a multiple of 4).
    pub fn with_chunk(gpu: &GpuContext, label: &str, bytes: u64, chunk: u64) -> Self {
        let (chunk, used) = Self::shape(bytes, chunk);
        StagingRing {
            slots: (0..used)
                .map(|_| staging_buffer(&gpu.device, label, chunk))
                .collect(),
            chunk,
        }
    }

    /// The chunk size and slot count of a ring for reads of `bytes`.
    fn shape(bytes: u64, chunk: u64) -> (u64, usize) {
        let used = bytes.div_ceil(chunk).clamp(1, RING_SLOTS as u64) as usize;
        (bytes.next_multiple_of(4).clamp(4, chunk), used)
    }

    /// Whether reads of `bytes` get the chunks and slots through this
    /// ring that a new one would give them (a smaller ring reads them
    /// too, in more round trips).
    pub fn fits(&self, bytes: u64) -> bool {
        let (chunk, used) = Self::shape(bytes, RING_CHUNK);
        self.chunk >= chunk && self.slots.len() >= used
    }

    /// Records the copies of [`StagingRing::read`] of `sources` through
    /// the slots without mapping anything: the GPU work of a read, for
    /// timing runs.
    pub fn record_copies(&self, encoder: &mut wgpu::CommandEncoder, sources: &[Source<'_>]) {
        for (k, (i, at, len)) in self.chunks_of(sources).into_iter().enumerate() {
            let slot = &self.slots[k % self.slots.len()];
            encoder.copy_buffer_to_buffer(sources[i].0, at, slot, 0, len);
        }
    }

    /// Reads `sources` back, each buffer's first bytes (a multiple of 4):
    /// `read(i, at, chunk)` gets each chunk of mapped bytes of source `i`
    /// with its offset there, in order, while the GPU copies the next.
    /// Work submitted before is done before the first copy (queue order).
    /// `what` names the data in errors; a failed read may leave a slot
    /// mapped, so it consumes the ring, which a successful one returns.
    pub fn read(
        self,
        gpu: &GpuContext,
        sources: &[Source<'_>],
        what: &str,
        mut read: impl FnMut(usize, u64, &[u8]),
    ) -> Result<Self, GpuError> {
        let fail = |reason: String| GpuError::Readback {
            what: what.to_string(),
            reason,
        };
        let all = self.chunks_of(sources);
        let mut pending = VecDeque::new();
        let submit = |k: usize| {
            let (i, at, len) = all[k];
            let src = sources[i].0;
            let slot = &self.slots[k % self.slots.len()];
            let mut encoder = gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("StagingRing::copy"),
                });
            encoder.copy_buffer_to_buffer(src, at, slot, 0, len);
            let index = gpu.queue.submit([encoder.finish()]);
            let (tx, rx) = std::sync::mpsc::channel();
            slot.slice(..len).map_async(wgpu::MapMode::Read, move |r| {
                // The receiver only goes away if the read already failed.
                let _ = tx.send(r);
            });
            (k, index, rx)
        };
        pending.extend((0..all.len().min(self.slots.len())).map(&submit));
        while let Some((k, index, rx)) = pending.pop_front() {
            gpu.device
                .poll(wgpu::PollType::Wait {
                    submission_index: Some(index),
                    timeout: None,
                })
                .map_err(|e| fail(e.to_string()))?;
            rx.recv()
                .map_err(|e| fail(e.to_string()))?
                .map_err(|e| fail(e.to_string()))?;
            let (i, at, len) = all[k];
            let slot = &self.slots[k % self.slots.len()];
            let view = slot
                .slice(..len)
                .get_mapped_range()
                .map_err(|e| fail(e.to_string()))?;
            read(i, at, &view);
            drop(view);
            slot.unmap();
            if k + self.slots.len() < all.len() {
                pending.push_back(submit(k + self.slots.len()));
            }
        }
        Ok(self)
    }

    /// `(source, offset, length)` of every chunk of `sources`, in order.
    fn chunks_of(&self, sources: &[Source<'_>]) -> Vec<(usize, u64, u64)> {
        let chunk = self.chunk;
        sources
            .iter()
            .enumerate()
            .flat_map(|(i, &(_, bytes))| chunks(bytes, chunk).map(move |(at, len)| (i, at, len)))
            .collect()
    }
}

/// A buffer to read back and how many of its first bytes.
pub type Source<'a> = (&'a wgpu::Buffer, u64);

/// `(offset, length)` of the chunks of `bytes` bytes, `chunk` at most
/// each (none for no bytes).
fn chunks(bytes: u64, chunk: u64) -> impl Iterator<Item = (u64, u64)> {
    (0..bytes.div_ceil(chunk)).map(move |k| (k * chunk, chunk.min(bytes - k * chunk)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_bytes_in_order_without_overlap() {
        for (bytes, chunk) in [
            (0, 8),
            (4, 8),
            (8, 8),
            (20, 8),
            (RING_CHUNK * 3 + 4, RING_CHUNK),
        ] {
            let all: Vec<_> = chunks(bytes, chunk).collect();
            let mut next = 0;
            for &(at, len) in &all {
                assert_eq!(at, next, "{bytes}/{chunk}: gap or overlap at {at}");
                assert!(len > 0 && len <= chunk, "{bytes}/{chunk}: length {len}");
                next = at + len;
            }
            assert_eq!(next, bytes, "{bytes}/{chunk}: covered");
        }
    }
}
