//! Drawing a frame: the uniforms from the camera and the view settings
//! (colour map, value range, filters, clip plane, opacity), one render
//! pass in the draw order of the renderer's module docs, and the pass's
//! GPU time from timestamp queries where the device has them.

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::{Drawable, ViewRenderer};
use crate::gpu::{GpuContext, GpuError};
use crate::view::camera::Camera;
use crate::view::settings::{MIN_OPACITY, MeshMode, ViewSettings};
use crate::view::target::RenderTarget;
use crate::view::vertices::{
    FILTER_BAND, FILTER_CLIP, FILTER_INSIDE, FILTER_OUTSIDE, ViewUniforms,
};

/// Wireframe pulled this fraction of the eye distance towards the eye.
const WIRE_DEPTH_OFFSET: f32 = 0.002;

/// Timestamp queries of [`ViewRenderer::render`], when the device has them.
pub(super) struct Timer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
}

impl Timer {
    /// The queries and buffers, on a device with timestamp queries.
    pub fn new(device: &wgpu::Device) -> Option<Timer> {
        device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
            .then(|| Timer {
                queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("ViewRenderer::timer_queries"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2,
                }),
                resolve: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("ViewRenderer::timer_resolve"),
                    size: 16,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                }),
                readback: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("ViewRenderer::timer_readback"),
                    size: 16,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
            })
    }
}

impl ViewRenderer {
    /// Records one frame into `encoder` (no submit): clear to the
    /// background, then mesh, cells and lines.
    pub fn render_encoder(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        target: &RenderTarget,
        camera: &Camera,
        settings: &ViewSettings,
    ) {
        self.record(device, encoder, target, camera, settings, None);
    }

    /// Records, submits and waits for one frame. Returns the pass's GPU time
    /// in milliseconds when the device has timestamp queries.
    pub fn render(
        &self,
        gpu: &GpuContext,
        target: &RenderTarget,
        camera: &Camera,
        settings: &ViewSettings,
    ) -> Option<f64> {
        self.try_render(gpu, target, camera, settings)
            .ok()
            .flatten()
    }

    /// [`Self::render`] with errors (a failed wait or timer read-back).
    pub fn try_render(
        &self,
        gpu: &GpuContext,
        target: &RenderTarget,
        camera: &Camera,
        settings: &ViewSettings,
    ) -> Result<Option<f64>, GpuError> {
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("ViewRenderer::encoder"),
            });
        let timer = self.timer.as_ref().filter(|_| gpu.has_timestamps);
        self.record(&gpu.device, &mut encoder, target, camera, settings, timer);
        if let Some(t) = timer {
            encoder.resolve_query_set(&t.queries, 0..2, &t.resolve, 0);
            encoder.copy_buffer_to_buffer(&t.resolve, 0, &t.readback, 0, 16);
        }
        gpu.queue.submit([encoder.finish()]);
        let wait = |what: &str| {
            gpu.device
                .poll(wgpu::PollType::wait_indefinitely())
                .map(|_| ())
                .map_err(|e| GpuError::Validation {
                    what: what.into(),
                    reason: e.to_string(),
                })
        };
        let Some(t) = timer else {
            wait("view render")?;
            return Ok(None);
        };
        let (tx, rx) = std::sync::mpsc::channel();
        t.readback
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| {
                // The receiver only goes away if try_render already returned.
                let _ = tx.send(r);
            });
        wait("view render")?;
        let failed = |reason: String| GpuError::Readback {
            what: "view render timestamps".into(),
            reason,
        };
        rx.recv()
            .map_err(|e| failed(e.to_string()))?
            .map_err(|e| failed(e.to_string()))?;
        let ticks: [u64; 2] = {
            let mapped = t
                .readback
                .slice(..)
                .get_mapped_range()
                .map_err(|e| failed(e.to_string()))?;
            let v: &[u64] = bytemuck::cast_slice(&mapped);
            [v[0], v[1]]
        };
        t.readback.unmap();
        let period_ns = gpu.queue.get_timestamp_period() as f64;
        Ok(Some(
            ticks[1].saturating_sub(ticks[0]) as f64 * period_ns * 1e-6,
        ))
    }

    fn record(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        target: &RenderTarget,
        camera: &Camera,
        settings: &ViewSettings,
        timer: Option<&Timer>,
    ) {
        let uniforms = uniforms(target, camera, settings);
        let uniform_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("ViewRenderer::uniforms"),
            contents: bytemuck::bytes_of(&uniforms),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("ViewRenderer::bind_group"),
            layout: &self.pipelines.bind_group_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform_buffer.as_entire_binding(),
            }],
        });
        let [r, g, b, a] = settings.background.map(f64::from);
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("ViewRenderer::pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target.color_view(),
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: target.depth_view(),
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: timer.map(|t| wgpu::RenderPassTimestampWrites {
                query_set: &t.queries,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: Some(1),
            }),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &bind_group, &[]);
        let mode = settings.mesh_mode;
        let translucent = settings.mesh_opacity < 1.0;
        let draw =
            |pass: &mut wgpu::RenderPass<'_>, pipeline: &wgpu::RenderPipeline, d: &Drawable| {
                pass.set_pipeline(pipeline);
                pass.set_vertex_buffer(0, d.buffer.slice(..));
                pass.draw(0..d.count, 0..1);
            };
        let shaded_mesh = self.mesh.as_ref().filter(|_| mode.shaded());
        if let (Some(d), false) = (shaded_mesh, translucent) {
            draw(&mut pass, &self.pipelines.mesh, d);
        }
        let wire = if mode == MeshMode::Wireframe {
            &self.wire_alone
        } else {
            &self.wire_shaded
        };
        let wire = wire.as_ref().filter(|_| mode.wireframe());
        if let (Some(d), false) = (wire, translucent) {
            draw(&mut pass, &self.pipelines.wire, d);
        }
        if settings.show_cells
            && let Some(d) = &self.cells
        {
            pass.set_pipeline(&self.pipelines.points);
            pass.set_vertex_buffer(0, d.buffer.slice(..));
            pass.draw(0..4, 0..d.count);
        }
        if settings.show_cells
            && let Some((instances, args)) = &self.gpu_cells
        {
            pass.set_pipeline(&self.pipelines.points);
            pass.set_vertex_buffer(0, instances.slice(..));
            pass.draw_indirect(args, 0);
        }
        if let Some(d) = &self.surface {
            draw(&mut pass, &self.pipelines.mesh, d);
        }
        if let Some(d) = &self.lines {
            draw(&mut pass, &self.pipelines.lines, d);
            // Contacts, pairs and picks behind a body show through it, faint.
            pass.set_blend_constant(wgpu::Color {
                r: 0.45,
                g: 0.45,
                b: 0.45,
                a: 0.45,
            });
            draw(&mut pass, &self.pipelines.hidden_lines, d);
        }
        if translucent {
            if let Some(d) = shaded_mesh {
                draw(&mut pass, &self.pipelines.mesh_back, d);
                draw(&mut pass, &self.pipelines.mesh_front, d);
            }
            if let Some(d) = wire {
                draw(&mut pass, &self.pipelines.wire, d);
            }
        }
        if let Some(d) = &self.translucent {
            pass.set_pipeline(&self.pipelines.translucent);
            pass.set_vertex_buffer(0, d.buffer.slice(..));
            pass.draw(0..d.count, 0..1);
        }
    }
}

fn uniforms(target: &RenderTarget, camera: &Camera, settings: &ViewSettings) -> ViewUniforms {
    let (width, height) = target.size();
    let f = &settings.filter;
    let mut bits = 0;
    if f.inside_only {
        bits |= FILTER_INSIDE;
    }
    if f.outside_only {
        bits |= FILTER_OUTSIDE;
    }
    if f.band.is_some() {
        bits |= FILTER_BAND;
    }
    if f.clip.is_some() {
        bits |= FILTER_CLIP;
    }
    let clip = f.clip.unwrap_or_default();
    ViewUniforms {
        clip_from_world: camera.clip_from_world(target.aspect()).to_cols_array_2d(),
        view_from_world: camera.view_from_world().to_cols_array_2d(),
        eye: camera.eye().extend(0.0).to_array(),
        viewport: [
            width as f32,
            height as f32,
            settings.point_size.max(0.0),
            WIRE_DEPTH_OFFSET,
        ],
        clip_plane: clip.normal.extend(clip.offset).to_array(),
        cell_params: [
            settings.value_min,
            f.band.unwrap_or(0.0),
            settings.value_max,
            settings.mesh_opacity.clamp(MIN_OPACITY, 1.0),
        ],
        cell_flags: [settings.color_map.shader_id(), bits, 0, 0],
    }
}
