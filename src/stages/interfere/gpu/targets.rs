//! The render targets of one viewport size (depth and stencil, ids,
//! inside ids, penetrated, sums), the render passes into them, occlusion
//! queries and the read-back of images and buffers.

use eframe::egui_wgpu::wgpu;

use crate::gpu::{GpuContext, GpuError, staging_buffer};
use crate::stages::interfere::cull::PixelRect;
use crate::stages::interfere::identify::SUMS_FORMAT;
use crate::stages::interfere::{CountImage, OrthoView, STENCIL_ZERO};

pub(super) const DEPTH_STENCIL_FORMAT: wgpu::TextureFormat =
    wgpu::TextureFormat::Depth32FloatStencil8;
pub(super) const IDS_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rg32Uint;
pub(super) const PENETRATED_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Uint;

pub(super) fn set_scissor(pass: &mut wgpu::RenderPass<'_>, r: PixelRect) {
    pass.set_scissor_rect(r.x0, r.y0, r.x1 - r.x0, r.y1 - r.y0);
}

/// The images one run renders into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TargetImage {
    Stencil,
    Depth,
    /// Pass 1: nearest edge ids (Alg. 2).
    Ids,
    /// Pass 4: ids where the count is > 0 (Alg. 3).
    Inside,
    /// Pair passes: penetrated object + 1 (Alg. 4).
    Penetrated,
}

impl TargetImage {
    pub(super) fn bytes_per_pixel(self) -> u32 {
        match self {
            TargetImage::Stencil => 1,
            TargetImage::Depth | TargetImage::Penetrated => 4,
            TargetImage::Ids | TargetImage::Inside => 8,
        }
    }
}

/// The render targets of one viewport size.
pub(super) struct Targets {
    pub(super) size: wgpu::Extent3d,
    pub(super) depth: wgpu::Texture,
    pub(super) ids: wgpu::Texture,
    pub(super) inside: wgpu::Texture,
    pub(super) penetrated: wgpu::Texture,
    /// The weighted sums of the counting pass ([`crate::stages::interfere::identify`]).
    pub(super) sums_view: wgpu::TextureView,
    pub(super) depth_view: wgpu::TextureView,
    pub(super) ids_view: wgpu::TextureView,
    pub(super) inside_view: wgpu::TextureView,
    pub(super) penetrated_view: wgpu::TextureView,
}

impl Targets {
    pub(super) fn new(device: &wgpu::Device, width: u32, height: u32) -> Targets {
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        // The ids and the sums are read by the decoding compute pass, which
        // writes the penetrated image.
        let texture = |label: &str, format, usage| {
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: usage
                    | wgpu::TextureUsages::RENDER_ATTACHMENT
                    | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            });
            let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
            (texture, view)
        };
        let none = wgpu::TextureUsages::empty();
        let read = wgpu::TextureUsages::TEXTURE_BINDING;
        let (depth, depth_view) =
            texture("InterferenceRun::depth_stencil", DEPTH_STENCIL_FORMAT, none);
        let (ids, ids_view) = texture("InterferenceRun::ids", IDS_FORMAT, read);
        let (inside, inside_view) = texture("InterferenceRun::inside", IDS_FORMAT, none);
        let (penetrated, penetrated_view) = texture(
            "InterferenceRun::penetrated",
            PENETRATED_FORMAT,
            wgpu::TextureUsages::STORAGE_BINDING,
        );
        let (_, sums_view) = texture("InterferenceRun::sums", SUMS_FORMAT, read);
        Targets {
            size,
            depth,
            ids,
            inside,
            penetrated,
            sums_view,
            depth_view,
            ids_view,
            inside_view,
            penetrated_view,
        }
    }

    pub(super) fn depth_attachment(
        &self,
        depth: wgpu::LoadOp<f32>,
        stencil: wgpu::LoadOp<u32>,
    ) -> Option<wgpu::RenderPassDepthStencilAttachment<'_>> {
        let store = wgpu::StoreOp::Store;
        Some(wgpu::RenderPassDepthStencilAttachment {
            view: &self.depth_view,
            depth_ops: Some(wgpu::Operations { load: depth, store }),
            stencil_ops: Some(wgpu::Operations {
                load: stencil,
                store,
            }),
        })
    }

    /// A render pass into the ids image `colour` (cleared) and the depth
    /// and stencil.
    pub(super) fn pass<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        colour: TargetImage,
        depth: wgpu::LoadOp<f32>,
        stencil: wgpu::LoadOp<u32>,
        queries: Option<&wgpu::QuerySet>,
    ) -> wgpu::RenderPass<'e> {
        let view = match colour {
            TargetImage::Inside => &self.inside_view,
            _ => &self.ids_view,
        };
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("InterferenceRun::pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: self.depth_attachment(depth, stencil),
            timestamp_writes: None,
            occlusion_query_set: queries,
            multiview_mask: None,
        })
    }

    /// The pair pass: the penetrated image cleared (or, `keep`, as the
    /// weighted sums' decoding wrote it), the edge depths kept, the stencil
    /// cleared to zero counts.
    pub(super) fn pair_pass<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        queries: &wgpu::QuerySet,
        keep: bool,
    ) -> wgpu::RenderPass<'e> {
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("InterferenceRun::pair_pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &self.penetrated_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: if keep {
                        wgpu::LoadOp::Load
                    } else {
                        wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT)
                    },
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: self
                .depth_attachment(wgpu::LoadOp::Load, wgpu::LoadOp::Clear(STENCIL_ZERO)),
            timestamp_writes: None,
            occlusion_query_set: Some(queries),
            multiview_mask: None,
        })
    }
}

/// Occlusion queries with their resolve and staging buffers.
pub(super) struct Queries {
    pub(super) set: wgpu::QuerySet,
    pub(super) count: u32,
    pub(super) resolve: wgpu::Buffer,
    pub(super) staging: wgpu::Buffer,
}

impl Queries {
    pub(super) fn new(device: &wgpu::Device, count: usize) -> Queries {
        let count = count.max(1) as u32;
        let bytes = 8 * count as u64;
        Queries {
            set: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("InterferenceRun::occlusion_queries"),
                ty: wgpu::QueryType::Occlusion,
                count,
            }),
            count,
            resolve: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("InterferenceRun::query_resolve"),
                size: bytes,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            staging: staging_buffer(device, "InterferenceRun::query_staging", bytes),
        }
    }

    pub(super) fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.set, 0..self.count, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.staging, 0, 8 * self.count as u64);
    }

    pub(super) fn read(&self, gpu: &GpuContext) -> Result<Vec<u64>, GpuError> {
        Ok(bytemuck::pod_collect_to_vec(&map_bytes(
            gpu,
            &self.staging,
        )?))
    }
}

/// A staging buffer for one image of [`Targets`] (rows padded to the copy
/// alignment).
pub(super) struct Readback {
    pub(super) image: TargetImage,
    pub(super) buffer: wgpu::Buffer,
    pub(super) padded_row: u32,
    pub(super) width: u32,
    pub(super) height: u32,
}

impl Readback {
    pub(super) fn new(device: &wgpu::Device, targets: &Targets, image: TargetImage) -> Readback {
        let (width, height) = (targets.size.width, targets.size.height);
        let padded_row = (width * image.bytes_per_pixel())
            .div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        Readback {
            image,
            buffer: staging_buffer(
                device,
                "InterferenceRun::image_staging",
                padded_row as u64 * height as u64,
            ),
            padded_row,
            width,
            height,
        }
    }

    pub(super) fn copy(&self, encoder: &mut wgpu::CommandEncoder, targets: &Targets) {
        let (texture, aspect) = match self.image {
            TargetImage::Stencil => (&targets.depth, wgpu::TextureAspect::StencilOnly),
            TargetImage::Depth => (&targets.depth, wgpu::TextureAspect::DepthOnly),
            TargetImage::Ids => (&targets.ids, wgpu::TextureAspect::All),
            TargetImage::Inside => (&targets.inside, wgpu::TextureAspect::All),
            TargetImage::Penetrated => (&targets.penetrated, wgpu::TextureAspect::All),
        };
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            targets.size,
        );
    }

    /// The image's bytes, row-major without padding.
    pub(super) fn read(&self, gpu: &GpuContext) -> Result<Vec<u8>, GpuError> {
        let bytes = map_bytes(gpu, &self.buffer)?;
        let row = (self.width * self.image.bytes_per_pixel()) as usize;
        let mut out = Vec::with_capacity(row * self.height as usize);
        for r in bytes
            .chunks_exact(self.padded_row as usize)
            .take(self.height as usize)
        {
            out.extend_from_slice(&r[..row]);
        }
        Ok(out)
    }
}

/// Maps a staging buffer whose copy has already been submitted and waits.
pub(super) fn map_bytes(gpu: &GpuContext, buffer: &wgpu::Buffer) -> Result<Vec<u8>, GpuError> {
    crate::gpu::map_staging(gpu, buffer, "interference staging buffer")
}

/// The count image of `view` from the read-backs of the stencil, depth,
/// ids and inside images, and of the penetrated image when it holds
/// anything (zero otherwise).
pub(super) fn read_image(
    gpu: &GpuContext,
    view: &OrthoView,
    [stencil, depth, ids, inside]: &[Readback; 4],
    penetrated: Option<&Readback>,
) -> Result<CountImage, GpuError> {
    let pixels = (view.width * view.height) as usize;
    let penetrated = match penetrated {
        Some(image) => bytemuck::pod_collect_to_vec(&image.read(gpu)?),
        None => vec![0u32; pixels],
    };
    Ok(CountImage {
        view: *view,
        counts: stencil
            .read(gpu)?
            .iter()
            .map(|&s| s as i32 - STENCIL_ZERO as i32)
            .collect(),
        edge_depth: bytemuck::pod_collect_to_vec(&depth.read(gpu)?),
        ids: bytemuck::pod_collect_to_vec(&ids.read(gpu)?),
        inside_ids: bytemuck::pod_collect_to_vec(&inside.read(gpu)?),
        penetrated,
        ambiguous: None,
    })
}
