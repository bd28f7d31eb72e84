//! The offscreen image the viewer renders into: an sRGB colour texture the
//! egui viewport shows as a texture (and the CLI reads back as a PNG), plus
//! its depth buffer.

use eframe::egui_wgpu::wgpu;

use crate::gpu::{GpuContext, GpuError};

/// Colour format of every [`RenderTarget`]; the pipelines target it.
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// Depth format of every [`RenderTarget`].
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Offscreen colour + depth of one size. Re-create it when the viewport
/// size changes.
pub struct RenderTarget {
    color: wgpu::Texture,
    color_view: wgpu::TextureView,
    #[allow(dead_code)] // kept alive for its view
    depth: wgpu::Texture,
    depth_view: wgpu::TextureView,
    width: u32,
    height: u32,
}

impl RenderTarget {
    /// A target of `width × height` pixels (each clamped to 1..=the
    /// device's 2D texture limit).
    pub fn new(device: &wgpu::Device, width: u32, height: u32) -> Self {
        let max = device.limits().max_texture_dimension_2d;
        let width = width.clamp(1, max);
        let height = height.clamp(1, max);
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let color = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("RenderTarget::color"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: COLOR_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let depth = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("RenderTarget::depth"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        let color_view = color.create_view(&wgpu::TextureViewDescriptor {
            label: Some("RenderTarget::color_view"),
            ..Default::default()
        });
        let depth_view = depth.create_view(&wgpu::TextureViewDescriptor {
            label: Some("RenderTarget::depth_view"),
            ..Default::default()
        });
        RenderTarget {
            color,
            color_view,
            depth,
            depth_view,
            width,
            height,
        }
    }

    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    pub fn aspect(&self) -> f32 {
        self.width as f32 / self.height as f32
    }

    pub fn color_view(&self) -> &wgpu::TextureView {
        &self.color_view
    }

    pub fn color_texture(&self) -> &wgpu::Texture {
        &self.color
    }

    pub fn depth_view(&self) -> &wgpu::TextureView {
        &self.depth_view
    }

    /// Copies the colour texture back (rows padded to 256 bytes on the GPU,
    /// unpadded here) and waits for it. Blocking.
    pub fn read_rgba(&self, gpu: &GpuContext) -> Result<image::RgbaImage, GpuError> {
        let what = || format!("the {}×{} render target", self.width, self.height);
        let unpadded = self.width * 4;
        let padded = unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("RenderTarget::staging"),
            size: padded as u64 * self.height as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("RenderTarget::read_encoder"),
            });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.color,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &staging,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
        gpu.queue.submit([encoder.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            // The receiver only goes away if read_rgba already returned.
            let _ = tx.send(r);
        });
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Readback {
                what: what(),
                reason: e.to_string(),
            })?;
        rx.recv()
            .map_err(|e| GpuError::Readback {
                what: what(),
                reason: e.to_string(),
            })?
            .map_err(|e| GpuError::Readback {
                what: what(),
                reason: e.to_string(),
            })?;
        let mapped = staging
            .slice(..)
            .get_mapped_range()
            .map_err(|e| GpuError::Readback {
                what: what(),
                reason: e.to_string(),
            })?;
        let mut pixels = Vec::with_capacity((unpadded * self.height) as usize);
        for row in mapped.chunks_exact(padded as usize) {
            pixels.extend_from_slice(&row[..unpadded as usize]);
        }
        drop(mapped);
        staging.unmap();
        image::RgbaImage::from_raw(self.width, self.height, pixels).ok_or_else(|| {
            GpuError::Readback {
                what: what(),
                reason: "pixel count mismatch".into(),
            }
        })
    }
}
