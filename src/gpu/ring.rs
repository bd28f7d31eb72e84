//! Read-back of large buffers through a small ring of staging buffers.
//!
//! Reading a buffer back needs host-visible (`MAP_READ`) memory, which a
//! discrete GPU's driver hands out pinned: creating one the size of a
//! large field is slow, a cost paid again on every call that creates it. A [`StagingRing`] reads any
//! number of bytes through [`RING_SLOTS`] buffers of [`RING_CHUNK`]
//! bytes: chunk `k` is copied into slot `k mod RING_SLOTS` in its own
//! submission, mapped when that submission is done, handed to the
//! caller, unmapped, and the slot queued for chunk `k + RING_SLOTS`, so
//! the GPU copies the next chunk while the host reads this one. A caller
//! that submits the work producing the data can record the first chunks'
//! copies in that submission ([`StagingRing::record_first`]): its own
//! wait then maps them, and the read starts without a round trip. The slots
//! are small enough for the memory allocator's kept blocks (wgpu's
//! allocator sub-allocates host memory from blocks of 64 MiB and up and
//! keeps the last one when it empties): only a process's first ring
//! allocates host memory from the driver.

use std::collections::VecDeque;

use eframe::egui_wgpu::wgpu;

use super::buffers::{MapRequest, staging_buffer};
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
    /// A ring of chunks of [`RING_CHUNK`] bytes, for reads of sources of
    /// `sizes` bytes (a smaller read gets smaller or fewer slots).
    pub fn new(gpu: &GpuContext, label: &str, sizes: &[u64]) -> Self {
        Self::with_chunk(gpu, label, sizes, RING_CHUNK)
    }

    /// [`StagingRing::new`] with chunks of `chunk` bytes (a multiple of 4).
    pub fn with_chunk(gpu: &GpuContext, label: &str, sizes: &[u64], chunk: u64) -> Self {
        let (chunk, used) = Self::shape(sizes, chunk);
        StagingRing {
            slots: (0..used)
                .map(|_| staging_buffer(&gpu.device, label, chunk))
                .collect(),
            chunk,
        }
    }

    /// The chunk size and slot count of a ring for reads of sources of
    /// `sizes` bytes: chunks as large as the largest source up to `chunk`,
    /// a slot for each chunk up to [`RING_SLOTS`].
    fn shape(sizes: &[u64], chunk: u64) -> (u64, usize) {
        let largest = sizes.iter().copied().max().unwrap_or(0);
        let chunk = largest.next_multiple_of(4).clamp(4, chunk);
        let chunks: u64 = sizes.iter().map(|&bytes| bytes.div_ceil(chunk)).sum();
        (chunk, chunks.clamp(1, RING_SLOTS as u64) as usize)
    }

    /// Whether reads of sources of `sizes` bytes get the chunks and slots
    /// through this ring that a new one would give them (a smaller ring
    /// reads them too, in more round trips).
    pub fn fits(&self, sizes: &[u64]) -> bool {
        let (chunk, used) = Self::shape(sizes, RING_CHUNK);
        self.chunk >= chunk && self.slots.len() >= used
    }

    /// Records the copies of [`StagingRing::read`] of `sources` through
    /// the slots without mapping anything: the GPU work of a read, for
    /// timing runs.
    pub fn record_copies(&self, encoder: &mut wgpu::CommandEncoder, sources: &[Source<'_>]) {
        self.record_chunks(encoder, sources, usize::MAX);
    }

    /// Records the copies of the first chunks of a read of `sources`, one
    /// into each slot, into the caller's last submission: once it is
    /// submitted, [`StagingRing::map_first`] asks for their mapping, which
    /// the caller's wait for that submission completes, and the read
    /// that follows costs no round trip to the GPU for them. Returns how
    /// many chunks it recorded.
    pub fn record_first(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        sources: &[Source<'_>],
    ) -> usize {
        self.record_chunks(encoder, sources, self.slots.len())
    }

    /// The mapping of the first `count` chunks of a read of `sources`,
    /// whose copies [`StagingRing::record_first`] recorded in a submission
    /// made since, asked for now: hand it to [`StagingRing::read`].
    pub fn map_first(&self, sources: &[Source<'_>], count: usize) -> FirstChunks {
        let all = self.chunks_of(sources);
        assert!(
            count <= self.slots.len().min(all.len()),
            "chunks copied ahead"
        );
        FirstChunks(
            all[..count]
                .iter()
                .zip(&self.slots)
                .map(|(&(_, _, len), slot)| MapRequest::new(slot, len))
                .collect(),
        )
    }

    /// Records the copies of the first `count` chunks of `sources` (all of
    /// them if fewer) into their slots; returns how many.
    fn record_chunks(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        sources: &[Source<'_>],
        count: usize,
    ) -> usize {
        let all = self.chunks_of(sources);
        for (k, &(i, at, len)) in all.iter().take(count).enumerate() {
            let slot = &self.slots[k % self.slots.len()];
            encoder.copy_buffer_to_buffer(sources[i].0, at, slot, 0, len);
        }
        all.len().min(count)
    }

    /// Reads `sources` back, each buffer's first bytes (a multiple of 4):
    /// `read(i, at, chunk)` gets each chunk of mapped bytes of source `i`
    /// with its offset there, in order, while the GPU copies the next.
    /// The chunks of `first` were copied ahead ([`StagingRing::map_first`];
    /// [`FirstChunks::none`]: none were); the others are copied here, each
    /// in its own submission. Work submitted before is done before the
    /// first copy (queue order). `what` names the data in errors.
    pub fn read(
        self,
        gpu: &GpuContext,
        sources: &[Source<'_>],
        what: &str,
        first: FirstChunks,
        mut read: impl FnMut(usize, u64, &[u8]),
    ) -> Result<Self, GpuError> {
        let all = self.chunks_of(sources);
        let slots = self.slots.len();
        let submit = |k: usize| {
            let (i, at, len) = all[k];
            let slot = &self.slots[k % slots];
            let mut encoder = gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("StagingRing::copy"),
                });
            encoder.copy_buffer_to_buffer(sources[i].0, at, slot, 0, len);
            let index = gpu.queue.submit([encoder.finish()]);
            (k, Some(index), MapRequest::new(slot, len))
        };
        let mut pending: VecDeque<_> = first
            .0
            .into_iter()
            .enumerate()
            .map(|(k, request)| (k, None, request))
            .collect();
        let ahead = pending.len();
        pending.extend((ahead..all.len().min(slots)).map(&submit));
        while let Some((k, index, request)) = pending.pop_front() {
            let (i, at, _) = all[k];
            request.read(gpu, what, index, |bytes| read(i, at, bytes))?;
            if k + slots < all.len() {
                pending.push_back(submit(k + slots));
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

/// The first chunks of a read, copied with the caller's submission and
/// their mapping asked for ([`StagingRing::map_first`]); dropped unread,
/// each slot is unmapped again ([`MapRequest`]).
pub struct FirstChunks(Vec<MapRequest>);

impl FirstChunks {
    /// No chunk copied ahead.
    pub fn none() -> Self {
        FirstChunks(Vec::new())
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

    /// A read of a small source and a large one gets a slot for each, so
    /// that both are copied ahead ([`StagingRing::record_first`]); larger
    /// reads get chunks of [`RING_CHUNK`] through [`RING_SLOTS`] slots.
    #[test]
    fn a_ring_has_a_slot_per_chunk_up_to_its_slots() {
        let field = 6_881_280;
        assert_eq!(StagingRing::shape(&[16, field], RING_CHUNK), (field, 2));
        assert_eq!(StagingRing::shape(&[field], RING_CHUNK), (field, 1));
        assert_eq!(StagingRing::shape(&[6], RING_CHUNK), (8, 1));
        assert_eq!(StagingRing::shape(&[], RING_CHUNK), (4, 1));
        let large = 4 * RING_CHUNK + 4;
        assert_eq!(
            StagingRing::shape(&[16, large, large], RING_CHUNK),
            (RING_CHUNK, RING_SLOTS)
        );
    }

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
