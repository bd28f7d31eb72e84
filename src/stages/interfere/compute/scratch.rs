//! The compute backend's per-run buffers, kept between runs of one
//! viewport size and scene size (the per-pixel accumulators and the
//! tallies are cleared by the run), with their read-back staging.

use eframe::egui_wgpu::wgpu;

use super::{IMAGE_PLANES, PIXEL_PLANES, TALLY_HEAD};
use crate::gpu::{BufferCheck, GpuContext, GpuError, staging_buffer, storage_buffer_zeroed};

/// What the buffers' sizes depend on: width, height, faces, objects.
pub(super) type ScratchKey = (u32, u32, u32, usize);

/// The buffers of `shaders/interfere_compute.wgsl` bindings 5–8, the
/// indirect arguments, and the staging of the tallies and images.
pub(super) struct Scratch {
    pub key: ScratchKey,
    /// [`PIXEL_PLANES`] words per pixel: cleared by every run.
    pub pixels: wgpu::Buffer,
    /// [`IMAGE_PLANES`] words per pixel, written where images are read.
    pub images: wgpu::Buffer,
    /// Counters, per-object and per-pair pixels: cleared by every run.
    pub tallies: wgpu::Buffer,
    /// Large faces, then pixels for the pair counts (written before read).
    pub work: wgpu::Buffer,
    /// Indirect dispatch arguments (6 words).
    pub args: wgpu::Buffer,
    pub tallies_staging: wgpu::Buffer,
    pub images_staging: wgpu::Buffer,
}

impl Scratch {
    pub fn new(gpu: &GpuContext, key: ScratchKey) -> Result<Scratch, GpuError> {
        let (width, height, faces, objects) = key;
        let pixels = width as u64 * height as u64;
        let n = objects as u64;
        let zeroed = |label, words: u64| {
            storage_buffer_zeroed(
                gpu,
                BufferCheck {
                    label,
                    bytes: 4 * words,
                },
            )
        };
        let tallies = zeroed(
            "InterferenceCompute::tallies (objects² pair pixels)",
            TALLY_HEAD as u64 + 2 * n + n * n,
        )?;
        let images = zeroed("InterferenceCompute::images", IMAGE_PLANES * pixels)?;
        Ok(Scratch {
            key,
            pixels: zeroed("InterferenceCompute::pixels", PIXEL_PLANES * pixels)?,
            work: zeroed("InterferenceCompute::work", faces as u64 + pixels)?,
            args: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("InterferenceCompute::args"),
                size: 4 * 6,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT,
                mapped_at_creation: false,
            }),
            tallies_staging: staging_buffer(
                &gpu.device,
                "InterferenceCompute::tallies_staging",
                tallies.size(),
            ),
            images_staging: staging_buffer(
                &gpu.device,
                "InterferenceCompute::images_staging",
                images.size(),
            ),
            tallies,
            images,
        })
    }
}
