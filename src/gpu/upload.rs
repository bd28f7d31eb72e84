//! Uploads through host-visible memory kept between them.
//!
//! An upload through [`wgpu::Queue::write_buffer_with`] (as
//! [`super::storage_buffer_streamed`]) gets fresh staging memory each
//! time, which the driver maps into the process anew: the host's first
//! write to every page of it faults. On the H200's host (2026-11-29, a
//! throwaway probe, the 1.1 M-triangle bunny's 147 MB of SDF records) the
//! records took 15–18 ms to write into fresh staging memory, 9–10 ms into
//! the same staging memory kept mapped from the last upload, and 4 ms into
//! ordinary host memory touched before.
//!
//! [`KeptUpload`] keeps one staging buffer (`MAP_WRITE | COPY_SRC`), mapped
//! while no upload uses it. An upload batch ([`KeptUpload::batch`]) writes
//! its arrays one after the other into it, in parallel, each at an offset
//! aligned for copies and maps ([`UploadBatch::records`]); [`UploadBatch::finish`]
//! unmaps it, submits the copies into the arrays' storage buffers and asks
//! for it to be mapped again, which the GPU completes once the copies are
//! done: by the next batch, normally long since. A batch larger than the
//! buffer grows it (a new one, mapped at creation); a batch over
//! [`MAX_KEPT_BYTES`] gets none ([`KeptUpload::batch`] returns `None`), so
//! that a rare huge upload does not pin its size for the rest of the
//! session: its caller uploads it through fresh staging memory instead.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use eframe::egui_wgpu::wgpu;

use super::buffers::{upload_target, write_records};
use super::{GpuContext, GpuError};

/// Largest staging buffer kept between uploads.
pub const MAX_KEPT_BYTES: u64 = 256 << 20;

/// Alignment of each array in the staging buffer: wgpu's map alignment (8)
/// and copy alignment (4), rounded up to a cache line.
const ARRAY_ALIGN: u64 = 64;

/// The kept staging buffer; see the module docs.
#[derive(Default)]
pub struct KeptUpload {
    kept: Mutex<Option<Staging>>,
}

/// A staging buffer and whether it is mapped (set by its map's callback).
struct Staging {
    buffer: wgpu::Buffer,
    mapped: Arc<AtomicBool>,
}

impl Staging {
    fn new(gpu: &GpuContext, bytes: u64) -> Self {
        Staging {
            buffer: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("KeptUpload::staging"),
                size: bytes,
                usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: true,
            }),
            mapped: Arc::new(AtomicBool::new(true)),
        }
    }

    /// Waits for the map asked for by the last batch's finish: polls once,
    /// and waits for the GPU only if that map is still pending.
    fn wait_mapped(&self, gpu: &GpuContext) -> Result<(), GpuError> {
        for poll in [wgpu::PollType::Poll, wgpu::PollType::wait_indefinitely()] {
            if self.mapped.load(Ordering::Acquire) {
                return Ok(());
            }
            gpu.device.poll(poll).map_err(|e| GpuError::Readback {
                what: "the kept upload staging".into(),
                reason: e.to_string(),
            })?;
        }
        if self.mapped.load(Ordering::Acquire) {
            Ok(())
        } else {
            Err(GpuError::Readback {
                what: "the kept upload staging".into(),
                reason: "its map failed".into(),
            })
        }
    }
}

/// The bytes of `count` records of `T`, rounded up for the next array.
pub fn array_bytes<T>(count: usize) -> u64 {
    ((count * std::mem::size_of::<T>()) as u64).next_multiple_of(ARRAY_ALIGN)
}

impl KeptUpload {
    /// A batch of uploads of `bytes` in all (the sum of each array's
    /// [`array_bytes`]) through the kept staging buffer, grown if it is
    /// smaller; `None` above [`MAX_KEPT_BYTES`].
    pub fn batch<'a>(
        &'a self,
        gpu: &'a GpuContext,
        bytes: u64,
    ) -> Result<Option<UploadBatch<'a>>, GpuError> {
        if bytes > MAX_KEPT_BYTES {
            return Ok(None);
        }
        let bytes = bytes.max(ARRAY_ALIGN);
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner()).take();
        let staging = match kept {
            Some(s) if s.buffer.size() >= bytes => {
                s.wait_mapped(gpu)?;
                s
            }
            // Grown to the next MiB, so that slightly larger meshes reuse it.
            _ => Staging::new(gpu, bytes.next_multiple_of(1 << 20).min(MAX_KEPT_BYTES)),
        };
        Ok(Some(UploadBatch {
            gpu,
            owner: self,
            staging: Some(staging),
            bytes,
            at: 0,
            copies: Vec::new(),
        }))
    }
}

/// Arrays being written into the kept staging buffer; [`UploadBatch::finish`]
/// copies them to the GPU. Dropped unfinished (after an error), it gives the
/// buffer back still mapped, and nothing is copied.
pub struct UploadBatch<'a> {
    gpu: &'a GpuContext,
    owner: &'a KeptUpload,
    staging: Option<Staging>,
    /// The bytes the batch was begun for.
    bytes: u64,
    /// Where the next array goes.
    at: u64,
    /// Each array's storage buffer, its offset in the staging buffer and
    /// its bytes.
    copies: Vec<(wgpu::Buffer, u64, u64)>,
}

impl UploadBatch<'_> {
    /// A storage buffer of `count` records, `record(i)` the `i`-th, written
    /// in parallel into the staging buffer and copied by
    /// [`UploadBatch::finish`] (its size checked as
    /// [`super::storage_buffer_init`]'s; the copy's tail up to 4 bytes
    /// zeroed). Errors if the batch was begun for fewer bytes.
    pub fn records<T: bytemuck::Pod>(
        &mut self,
        label: &str,
        count: usize,
        record: impl Fn(usize) -> T + Sync,
    ) -> Result<wgpu::Buffer, GpuError> {
        let bytes = (count * std::mem::size_of::<T>()) as u64;
        let target = upload_target(self.gpu, label, bytes)?;
        if bytes == 0 {
            return Ok(target);
        }
        let tail = bytes.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        let end = self.at + array_bytes::<T>(count);
        if end > self.bytes {
            return Err(GpuError::Validation {
                what: label.to_string(),
                reason: format!(
                    "an upload batch of {} bytes has no room for {bytes} more at byte {}",
                    self.bytes, self.at
                ),
            });
        }
        let staging = self
            .staging
            .as_ref()
            .expect("a batch holds its staging until dropped");
        {
            let mut view = staging
                .buffer
                .slice(self.at..self.at + tail)
                .get_mapped_range_mut()
                .map_err(|e| GpuError::Validation {
                    what: label.to_string(),
                    reason: e.to_string(),
                })?;
            let (data, mut pad) = view.slice(..).split_at(bytes as usize);
            write_records(data, record);
            pad.fill(0);
        }
        self.copies.push((target.clone(), self.at, tail));
        self.at = end;
        Ok(target)
    }

    /// Unmaps the staging buffer, submits the arrays' copies and asks for
    /// the buffer to be mapped again once they are done; the buffer is kept
    /// for the next batch.
    pub fn finish(mut self) {
        let staging = self.staging.take().expect("a batch is finished once");
        staging.buffer.unmap();
        staging.mapped.store(false, Ordering::Release);
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("KeptUpload::copies"),
            });
        for (target, at, bytes) in self.copies.drain(..) {
            encoder.copy_buffer_to_buffer(&staging.buffer, at, &target, 0, bytes);
        }
        self.gpu.queue.submit([encoder.finish()]);
        let mapped = staging.mapped.clone();
        staging
            .buffer
            .slice(..)
            .map_async(wgpu::MapMode::Write, move |result| {
                mapped.store(result.is_ok(), Ordering::Release);
            });
        self.give_back(staging);
    }

    fn give_back(&self, staging: Staging) {
        *self.owner.kept.lock().unwrap_or_else(|e| e.into_inner()) = Some(staging);
    }
}

impl Drop for UploadBatch<'_> {
    fn drop(&mut self) {
        if let Some(staging) = self.staging.take() {
            self.give_back(staging);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::{read_buffer, test_gpu};

    /// Uploads `a` and `b` in one batch and reads them back.
    fn round_trip(gpu: &GpuContext, kept: &KeptUpload, a: &[u32], b: &[[f32; 3]]) {
        let bytes = array_bytes::<u32>(a.len()) + array_bytes::<[f32; 3]>(b.len());
        let mut batch = kept
            .batch(gpu, bytes)
            .expect("batch")
            .expect("under the cap");
        let ga = batch.records("a", a.len(), |i| a[i]).expect("a");
        let gb = batch.records("b", b.len(), |i| b[i]).expect("b");
        batch.finish();
        let back_a: Vec<u32> = read_buffer(gpu, &ga, a.len()).expect("read a");
        let back_b: Vec<[f32; 3]> = read_buffer(gpu, &gb, b.len()).expect("read b");
        assert_eq!(back_a, a);
        assert_eq!(back_b, b);
    }

    #[test]
    fn kept_uploads_land_in_place_batch_after_batch() {
        let gpu = test_gpu();
        let kept = KeptUpload::default();
        let a: Vec<u32> = (0..1001).map(|i| i * 7 + 1).collect();
        let b: Vec<[f32; 3]> = (0..333)
            .map(|i| [i as f32, -0.5, 1e-7 * i as f32])
            .collect();
        round_trip(&gpu, &kept, &a, &b);
        // The same buffer again, once its map is back, with other data.
        let a2: Vec<u32> = a.iter().map(|v| v ^ 0xdead_beef).collect();
        round_trip(&gpu, &kept, &a2, &b[..5]);
        // Grown: more than the first MiB.
        let big: Vec<u32> = (0..400_000).collect();
        round_trip(&gpu, &kept, &big, &b);
        // An empty array and a one-record one (its 4-byte tail).
        round_trip(&gpu, &kept, &[], &b[..1]);
    }

    #[test]
    fn a_batch_dropped_unfinished_keeps_the_buffer_and_a_huge_one_gets_none() {
        let gpu = test_gpu();
        let kept = KeptUpload::default();
        {
            let mut batch = kept.batch(&gpu, 256).expect("batch").expect("small");
            // More than it was begun for: an error, nothing copied.
            let err = batch.records("x", 1000, |i| i as u32).expect_err("no room");
            assert!(err.to_string().contains("no room"), "{err}");
        }
        round_trip(&gpu, &kept, &[3, 1, 4, 1, 5], &[[9.0, 2.0, 6.0]]);
        assert!(
            kept.batch(&gpu, MAX_KEPT_BYTES + 1)
                .expect("batch")
                .is_none()
        );
    }
}
