//! Buffer creation and read-back helpers.
//!
//! Sizes are checked against the adapter's limits before allocation
//! ([`BufferCheck`]), so a grid that cannot fit gives an error naming the
//! limit rather than a wgpu validation panic.

use eframe::egui_wgpu::wgpu;
use rayon::prelude::*;

use super::{GpuContext, GpuError};

/// A storage buffer that is about to be created: its label and size.
pub struct BufferCheck<'a> {
    pub label: &'a str,
    pub bytes: u64,
}

/// Bytes per task of the parallel writes into staging memory.
const FILL_CHUNK: usize = 1 << 20;

/// A storage buffer initialised from `data` (read-only or read-write in the
/// shader; also a copy source for read-back), copied in parallel straight
/// into the staging memory of its upload ([`wgpu::Queue::write_buffer_with`];
/// the copy runs before the queue's next submission). Unlike
/// `create_buffer_init`, which zeroes a staging buffer and then copies the
/// data into it, both on one thread, nothing is written twice. The tail up
/// to wgpu's 4-byte copy alignment (and the 4 bytes of an empty buffer) is
/// zeroed.
pub fn storage_buffer_init<T: bytemuck::Pod>(
    gpu: &GpuContext,
    label: &str,
    data: &[T],
) -> Result<wgpu::Buffer, GpuError> {
    let src: &[u8] = bytemuck::cast_slice(data);
    let buffer = upload_target(gpu, label, src.len() as u64)?;
    upload_start(gpu, label, &buffer, src, buffer.size())?;
    Ok(buffer)
}

/// A uniform buffer holding `value` (a kernel's parameters).
pub fn uniform_buffer<T: bytemuck::Pod>(gpu: &GpuContext, label: &str, value: &T) -> wgpu::Buffer {
    use wgpu::util::DeviceExt;
    gpu.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::bytes_of(value),
            usage: wgpu::BufferUsages::UNIFORM,
        })
}

/// A storage buffer of `bytes` bytes (a multiple of 4, at least 4)
/// written by `write` straight into its upload's staging memory, copied
/// before the queue's next submission: for data made as they are
/// uploaded, never held in host memory of their own. Returns the buffer
/// and what `write` returns.
pub fn storage_buffer_written<R>(
    gpu: &GpuContext,
    label: &str,
    bytes: u64,
    write: impl FnOnce(wgpu::WriteOnly<'_, [u8]>) -> R,
) -> Result<(wgpu::Buffer, R), GpuError> {
    assert!(
        bytes >= 4 && bytes.is_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
        "{label}: {bytes} bytes to write"
    );
    let buffer = upload_target(gpu, label, bytes)?;
    let mut view = staging_view(gpu, label, &buffer, 0, bytes)?;
    let made = write(view.slice(..));
    Ok((buffer, made))
}

/// Uploads `src` to the start of `buffer` (before the queue's next
/// submission), copied in parallel into the staging memory of an upload of
/// `bytes` bytes, whose tail after `src` is zeroed.
fn upload_start(
    gpu: &GpuContext,
    label: &str,
    buffer: &wgpu::Buffer,
    src: &[u8],
    bytes: u64,
) -> Result<(), GpuError> {
    let mut view = staging_view(gpu, label, buffer, 0, bytes)?;
    let (head, mut tail) = view.slice(..).split_at(src.len());
    copy_parallel(head, src);
    tail.fill(0);
    Ok(())
}

/// Copies `src` into `dst` (as long), in parallel pieces.
fn copy_parallel(dst: wgpu::WriteOnly<'_, [u8]>, src: &[u8]) {
    pieces(dst, FILL_CHUNK).into_par_iter().for_each(
        |Piece {
             at,
             bytes: SendSlice(mut bytes),
         }| {
            let n = bytes.len();
            bytes.copy_from_slice(&src[at..at + n]);
        },
    );
}

/// A storage buffer rewritten on every use and kept between uses: it grows
/// (by half again at least) only when the data outgrow it, so a caller
/// uploading new data every frame (the colliders' plan) creates no buffer
/// once warm, and the bind groups that hold it stay valid. The data are
/// written with [`write_part`], whole or a part at a time (each part for
/// the submission that first reads it); bytes past them keep whatever an
/// earlier use left, so the shaders that read it must take their lengths
/// from their parameters, not from `arrayLength`.
pub struct KeptStorage {
    label: &'static str,
    buffer: Option<wgpu::Buffer>,
}

impl KeptStorage {
    pub fn new(label: &'static str) -> Self {
        KeptStorage {
            label,
            buffer: None,
        }
    }

    /// The kept buffer if it holds at least `bytes` (a multiple of 4),
    /// else a new, larger one.
    pub fn room(&mut self, gpu: &GpuContext, bytes: u64) -> Result<wgpu::Buffer, GpuError> {
        Ok(match &self.buffer {
            Some(b) if b.size() >= bytes => b.clone(),
            kept => {
                gpu.check_upload_size(self.label, bytes)?;
                // Half again as much, within the binding limit, in whole
                // words (a storage binding's size is a multiple of 4).
                let limit = gpu.device.limits().max_storage_buffer_binding_size;
                let room = kept.as_ref().map_or(bytes, |b| {
                    let grown = (b.size() * 3 / 2).min(limit);
                    (grown - grown % wgpu::COPY_BUFFER_ALIGNMENT).max(bytes)
                });
                let b = storage_buffer_zeroed(
                    gpu,
                    BufferCheck {
                        label: self.label,
                        bytes: room,
                    },
                )?;
                self.buffer.insert(b).clone()
            }
        })
    }
}

/// Writes `data` into `buffer` from byte `offset` on (both multiples of
/// 4) before the queue's next submission: one part of data written a part
/// at a time, each part for the submission that first reads it.
pub fn write_part<T: bytemuck::Pod>(
    gpu: &GpuContext,
    buffer: &wgpu::Buffer,
    offset: u64,
    data: &[T],
) {
    if !data.is_empty() {
        gpu.queue
            .write_buffer(buffer, offset, bytemuck::cast_slice(data));
    }
}

/// Bytes of a piece of [`storage_buffer_streamed`]: half of wgpu's
/// host-visible memory block (64 MiB), so that the pieces' staging memory
/// comes out of blocks the allocator keeps instead of a dedicated
/// allocation of the whole upload.
const STREAM_PIECE: usize = 32 << 20;

/// A storage buffer of `count` records, `record(i)` at index `i`, uploaded
/// in pieces of `STREAM_PIECE` bytes: each piece is written in parallel
/// into its own staging memory (`write_records`) and submitted at once,
/// so the GPU copies one piece while the host writes the next, and the
/// pieces' staging memory comes out of the allocator's blocks instead of
/// one dedicated allocation as large as the upload. Most of the gain is
/// the copy no longer waiting for the whole upload (measured in
/// `docs/bench/design-measurements.md`).
pub fn storage_buffer_streamed<T: bytemuck::Pod>(
    gpu: &GpuContext,
    label: &str,
    count: usize,
    record: impl Fn(usize) -> T + Sync,
) -> Result<wgpu::Buffer, GpuError> {
    let buffer = storage_buffer_for::<T>(gpu, label, count)?;
    stream_records(gpu, label, &buffer, count, record)?;
    Ok(buffer)
}

/// The storage buffer of `count` records of `T` that
/// [`stream_records`] uploads into later (its contents zero until then):
/// for a buffer that must be bound before its contents are needed.
pub fn storage_buffer_for<T>(
    gpu: &GpuContext,
    label: &str,
    count: usize,
) -> Result<wgpu::Buffer, GpuError> {
    upload_target(gpu, label, (count * std::mem::size_of::<T>()) as u64)
}

/// Uploads `count` records, `record(i)` at index `i`, into `buffer` (made
/// by [`storage_buffer_for`] for them) as [`storage_buffer_streamed`] does.
pub fn stream_records<T: bytemuck::Pod>(
    gpu: &GpuContext,
    label: &str,
    buffer: &wgpu::Buffer,
    count: usize,
    record: impl Fn(usize) -> T + Sync,
) -> Result<(), GpuError> {
    stream_in_pieces(gpu, label, buffer, count, STREAM_PIECE, record)
}

/// [`stream_records`] in pieces of about `piece_bytes`.
fn stream_in_pieces<T: bytemuck::Pod>(
    gpu: &GpuContext,
    label: &str,
    buffer: &wgpu::Buffer,
    count: usize,
    piece_bytes: usize,
    record: impl Fn(usize) -> T + Sync,
) -> Result<(), GpuError> {
    let size = std::mem::size_of::<T>();
    assert!(
        (count * size) as u64 <= buffer.size(),
        "{label}: {count} records of {size} bytes in a buffer of {}",
        buffer.size()
    );
    // Records a piece: a multiple of 4, so every piece starts at a
    // multiple of the copy alignment.
    let per_piece = (piece_bytes / size / 4 * 4).max(4);
    for first in (0..count).step_by(per_piece) {
        let n = per_piece.min(count - first);
        let piece = (n * size) as u64;
        let tail = piece.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        let mut view = staging_view(gpu, label, buffer, (first * size) as u64, tail)?;
        let (data, mut pad) = view.slice(..).split_at(piece as usize);
        write_records(data, |i| record(first + i));
        pad.fill(0);
        drop(view);
        // Its copy starts now. An upload of one piece goes with the
        // caller's next submission, costing none of its own.
        if per_piece < count {
            gpu.queue.submit([]);
        }
    }
    Ok(())
}

/// The storage buffer an upload of `bytes` bytes goes into (also a copy
/// source for read-back), its size checked against the adapter's limits
/// and rounded up to wgpu's copy alignment (4 bytes at least: wgpu rejects
/// zero-sized bindings).
fn upload_target(gpu: &GpuContext, label: &str, bytes: u64) -> Result<wgpu::Buffer, GpuError> {
    gpu.check_upload_size(label, bytes)?;
    Ok(gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT).max(4),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    }))
}

/// The staging memory of an upload of `bytes` bytes into `buffer` at
/// `offset`, copied there before the queue's next submission
/// ([`wgpu::Queue::write_buffer_with`]); an error naming `label` when wgpu
/// gives none (an empty or misaligned range, no memory).
fn staging_view(
    gpu: &GpuContext,
    label: &str,
    buffer: &wgpu::Buffer,
    offset: u64,
    bytes: u64,
) -> Result<wgpu::QueueWriteBufferView, GpuError> {
    wgpu::BufferSize::new(bytes)
        .and_then(|size| gpu.queue.write_buffer_with(buffer, offset, size))
        .ok_or_else(|| GpuError::Validation {
            what: label.to_string(),
            reason: format!("no staging memory for an upload of {bytes} bytes at byte {offset}"),
        })
}

/// Writes records `0..n`, `record(i)` at byte `i · size_of::<T>()`,
/// filling `dst` (`n` records' bytes), in parallel chunks.
fn write_records<T: bytemuck::Pod>(
    dst: wgpu::WriteOnly<'_, [u8]>,
    record: impl Fn(usize) -> T + Sync,
) {
    let size = std::mem::size_of::<T>();
    assert_eq!(
        dst.len() % size,
        0,
        "{} bytes of {size}-byte records",
        dst.len()
    );
    let per_piece = (FILL_CHUNK / size).max(1);
    pieces(dst, per_piece * size).into_par_iter().for_each(
        |Piece {
             at,
             bytes: SendSlice(mut bytes),
         }| {
            let first = at / size;
            for i in 0..bytes.len() / size {
                let r = record(first + i);
                bytes
                    .slice(i * size..(i + 1) * size)
                    .copy_from_slice(bytemuck::bytes_of(&r));
            }
        },
    );
}

/// `dst` cut into pieces of `chunk` bytes (the last shorter).
fn pieces(mut dst: wgpu::WriteOnly<'_, [u8]>, chunk: usize) -> Vec<Piece<'_>> {
    let mut out = Vec::with_capacity(dst.len().div_ceil(chunk));
    let mut at = 0;
    while !dst.is_empty() {
        let mid = chunk.min(dst.len());
        let (piece, rest) = dst.split_at(mid);
        let n = piece.len();
        out.push(Piece {
            at,
            bytes: SendSlice(piece),
        });
        at += n;
        dst = rest;
    }
    out
}

/// Part of a mapped buffer handed to another thread (the pieces of a
/// parallel write, the two halves of a recursive fill under `rayon::join`).
pub struct SendSlice<'a, T>(pub wgpu::WriteOnly<'a, [T]>);

// SAFETY: `WriteOnly<[T]>` is an exclusive reference, like `&mut [T]`,
// which is `Send` for `T: Send`; wgpu 30 implements `Send` for `WriteOnly`
// of sized types only.
unsafe impl<T: Send> Send for SendSlice<'_, T> {}

/// A piece of staging memory written by another thread: its first byte's
/// index and its bytes.
struct Piece<'a> {
    at: usize,
    bytes: SendSlice<'a, u8>,
}

/// A zeroed read-write storage buffer of `bytes` bytes.
pub fn storage_buffer_zeroed(
    gpu: &GpuContext,
    check: BufferCheck<'_>,
) -> Result<wgpu::Buffer, GpuError> {
    gpu.check_storage_size(check.label, check.bytes)?;
    Ok(gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(check.label),
        size: check.bytes.max(4),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    }))
}

/// A staging buffer of `bytes` (at least 4) for copies to read back
/// with [`map_staging`].
pub fn staging_buffer(device: &wgpu::Device, label: &str, bytes: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Copies `buffer` to a staging buffer, waits for the GPU and returns its
/// contents as `T`s. Blocking: call it from a worker thread in the viewer.
pub fn read_buffer<T: bytemuck::Pod>(
    gpu: &GpuContext,
    buffer: &wgpu::Buffer,
    count: usize,
) -> Result<Vec<T>, GpuError> {
    let bytes = (count * std::mem::size_of::<T>()) as u64;
    if bytes == 0 {
        return Ok(Vec::new());
    }
    let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("read_buffer::staging"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("read_buffer::encoder"),
        });
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, bytes);
    gpu.queue.submit([encoder.finish()]);
    map_staging(gpu, &staging, &buffer_label(buffer))
}

/// Maps a staging buffer (`MAP_READ`) whose copies have been submitted,
/// waits for the GPU, and returns its contents as `T`s. `what` names it in
/// errors.
pub fn map_staging<T: bytemuck::Pod>(
    gpu: &GpuContext,
    staging: &wgpu::Buffer,
    what: &str,
) -> Result<Vec<T>, GpuError> {
    map_staging_range(gpu, staging, staging.size(), what)
}

/// [`map_staging`] of the first `bytes` bytes only (a staging buffer kept
/// larger than this read needs).
pub fn map_staging_range<T: bytemuck::Pod>(
    gpu: &GpuContext,
    staging: &wgpu::Buffer,
    bytes: u64,
    what: &str,
) -> Result<Vec<T>, GpuError> {
    map_staging_with(gpu, staging, bytes, what, |view| {
        bytemuck::pod_collect_to_vec(view)
    })
}

/// Maps the first `bytes` bytes of a staging buffer whose copies have been
/// submitted, waits for the GPU and hands the mapped bytes to `read`, which
/// copies out what it needs (one pass over mapped memory instead of a copy
/// to a `Vec` and another out of it); unmaps after.
pub fn map_staging_with<R>(
    gpu: &GpuContext,
    staging: &wgpu::Buffer,
    bytes: u64,
    what: &str,
    read: impl FnOnce(&[u8]) -> R,
) -> Result<R, GpuError> {
    map_staging_when(gpu, staging, bytes, what, None, read)
}

/// [`map_staging_with`] waiting only for `submission`, the one holding
/// the staging buffer's copies, not for the work submitted after it: the
/// caller reads one part of a result while the GPU computes the next.
pub fn map_staging_after<R>(
    gpu: &GpuContext,
    staging: &wgpu::Buffer,
    bytes: u64,
    what: &str,
    submission: wgpu::SubmissionIndex,
    read: impl FnOnce(&[u8]) -> R,
) -> Result<R, GpuError> {
    map_staging_when(gpu, staging, bytes, what, Some(submission), read)
}

fn map_staging_when<R>(
    gpu: &GpuContext,
    staging: &wgpu::Buffer,
    bytes: u64,
    what: &str,
    submission: Option<wgpu::SubmissionIndex>,
    read: impl FnOnce(&[u8]) -> R,
) -> Result<R, GpuError> {
    MapRequest::new(staging, bytes).read(gpu, what, submission, read)
}

/// A staging buffer's read mapping asked for ahead of the wait for it.
/// Asked for right after the submission that copies into the buffer, it is
/// completed by the next wait for the GPU — a run's own — so that reading
/// the buffer then costs no round trip of its own. A request dropped
/// unread unmaps the buffer (cancelling a pending mapping), so that it can
/// be copied into again.
pub struct MapRequest {
    staging: wgpu::Buffer,
    bytes: u64,
    mapped: std::sync::mpsc::Receiver<Result<(), wgpu::BufferAsyncError>>,
    /// The buffer is unmapped again: read and unmapped, or its mapping
    /// failed (unmapping an unmapped buffer is a wgpu error).
    settled: bool,
}

impl MapRequest {
    /// Asks for the mapping of `staging`'s first `bytes` bytes (whose
    /// copies must have been submitted already).
    pub fn new(staging: &wgpu::Buffer, bytes: u64) -> Self {
        let (tx, rx) = std::sync::mpsc::channel();
        staging
            .slice(..bytes)
            .map_async(wgpu::MapMode::Read, move |r| {
                // The receiver only goes away with the request.
                let _ = tx.send(r);
            });
        MapRequest {
            staging: staging.clone(),
            bytes,
            mapped: rx,
            settled: false,
        }
    }

    /// Hands the mapped bytes to `read`, which copies out what it needs,
    /// then unmaps. Unless a wait since the request has mapped the buffer
    /// already, waits for `submission` (the one holding the copies), or for
    /// everything without one.
    pub fn read<R>(
        mut self,
        gpu: &GpuContext,
        what: &str,
        submission: Option<wgpu::SubmissionIndex>,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, GpuError> {
        let fail = |reason: String| GpuError::Readback {
            what: what.to_string(),
            reason,
        };
        let wait = |submission_index| {
            gpu.device
                .poll(wgpu::PollType::Wait {
                    submission_index,
                    timeout: None,
                })
                .map_err(|e| fail(e.to_string()))
        };
        let mapped = match self.mapped.try_recv() {
            Ok(mapped) => mapped,
            Err(_) => {
                wait(submission)?;
                match self.mapped.try_recv() {
                    Ok(mapped) => mapped,
                    // Mapped only once later work is done too (the buffer
                    // was used after `submission`): wait for everything.
                    Err(_) => {
                        wait(None)?;
                        self.mapped.recv().map_err(|e| fail(e.to_string()))?
                    }
                }
            }
        };
        if let Err(e) = mapped {
            self.settled = true;
            return Err(fail(e.to_string()));
        }
        let slice = self.staging.slice(..self.bytes);
        let view = slice.get_mapped_range().map_err(|e| fail(e.to_string()))?;
        let out = read(&view);
        drop(view);
        self.settled = true;
        self.staging.unmap();
        Ok(out)
    }
}

impl Drop for MapRequest {
    fn drop(&mut self) {
        // A mapping that failed left the buffer unmapped.
        let failed = matches!(self.mapped.try_recv(), Ok(Err(_)));
        if !self.settled && !failed {
            // Cancels a pending mapping, or undoes a finished one.
            self.staging.unmap();
        }
    }
}

fn buffer_label(buffer: &wgpu::Buffer) -> String {
    format!("buffer of {} bytes", buffer.size())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept buffer made room in for more data each time (sizes whose
    /// half again is not a whole word) grows in whole words, so that it can
    /// be bound, and holds each time's data, written in two parts (the
    /// second at an offset); smaller data reuse it.
    #[test]
    fn kept_storage_grows_in_whole_words_and_holds_the_last_data() {
        let gpu = crate::gpu::test_gpu();
        let mut kept = KeptStorage::new("test::kept");
        let mut last_size = 0;
        for words in [1377usize, 1378, 2100, 10, 2101] {
            let data: Vec<u32> = (0..words as u32)
                .map(|i| i.wrapping_mul(2_654_435_761))
                .collect();
            let buffer = kept.room(&gpu, 4 * words as u64).expect("room");
            let half = words / 2;
            write_part(&gpu, &buffer, 0, &data[..half]);
            write_part(&gpu, &buffer, 4 * half as u64, &data[half..]);
            assert_eq!(
                buffer.size() % 4,
                0,
                "{words} words: {} bytes",
                buffer.size()
            );
            assert!(buffer.size() >= 4 * words as u64);
            assert!(
                buffer.size() >= last_size,
                "{words} words: the buffer shrank"
            );
            last_size = buffer.size();
            let back: Vec<u32> = read_buffer(&gpu, &buffer, words).expect("read back");
            assert!(back == data, "{words} words: other data read back");
        }
    }

    /// A streamed upload of many small pieces (some records of 12 bytes,
    /// so that pieces start at offsets the copy alignment must hold),
    /// read back, is every record in its place; so is an upload of one
    /// record and one of none.
    #[test]
    fn records_streamed_in_pieces_land_in_their_places() {
        let gpu = crate::gpu::test_gpu();
        let record = |i: usize| [i as u32, (i * 7) as u32 ^ 0xdead_beef, !(i as u32)];
        for (count, piece_bytes) in [(10_001, 1000), (10_001, 12), (1, 64), (0, 64)] {
            let label = "test::streamed";
            let buffer = storage_buffer_for::<[u32; 3]>(&gpu, label, count).expect("buffer");
            stream_in_pieces(&gpu, label, &buffer, count, piece_bytes, record).expect("upload");
            let back: Vec<[u32; 3]> = read_buffer(&gpu, &buffer, count).expect("read back");
            assert_eq!(back.len(), count);
            if let Some(i) = (0..count).find(|&i| back[i] != record(i)) {
                panic!(
                    "{count} records in pieces of {piece_bytes} bytes: record {i} is {:?}, not {:?}",
                    back[i],
                    record(i)
                );
            }
        }
    }
}
