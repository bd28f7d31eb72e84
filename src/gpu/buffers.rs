//! Buffer creation and read-back helpers.
//!
//! Sizes are checked against the adapter's limits before allocation
//! ([`BufferCheck`]), so a grid that cannot fit gives an error naming the
//! limit rather than a wgpu validation panic.

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::{GpuContext, GpuError};

/// A storage buffer that is about to be created: its label and size.
pub struct BufferCheck<'a> {
    pub label: &'a str,
    pub bytes: u64,
}

/// A storage buffer initialised from `data` (read-only or read-write in the
/// shader; also a copy source for read-back).
pub fn storage_buffer_init<T: bytemuck::Pod>(
    gpu: &GpuContext,
    label: &str,
    data: &[T],
) -> Result<wgpu::Buffer, GpuError> {
    let bytes = std::mem::size_of_val(data) as u64;
    gpu.check_upload_size(label, bytes)?;
    // wgpu rejects zero-sized bindings; a stage with nothing to bind still
    // gets a valid (4-byte) buffer.
    let contents: &[u8] = if bytes == 0 {
        &[0; 4]
    } else {
        bytemuck::cast_slice(data)
    };
    Ok(gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        }))
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
    let fail = |reason: String| GpuError::Readback {
        what: what.to_string(),
        reason,
    };
    let slice = staging.slice(..bytes);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        // The receiver only goes away if this function already returned.
        let _ = tx.send(r);
    });
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| fail(e.to_string()))?;
    rx.recv()
        .map_err(|e| fail(e.to_string()))?
        .map_err(|e| fail(e.to_string()))?;
    let view = slice.get_mapped_range().map_err(|e| fail(e.to_string()))?;
    let out = read(&view);
    drop(view);
    staging.unmap();
    Ok(out)
}

fn buffer_label(buffer: &wgpu::Buffer) -> String {
    format!("buffer of {} bytes", buffer.size())
}
