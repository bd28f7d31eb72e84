//! The viewer's pipelines: flat-shaded mesh, wireframe, instanced cell
//! sprites and debug lines, all drawn in one render pass into a
//! [`RenderTarget`].
//!
//! # Buffers
//!
//! ```text
//! uniforms  ViewUniforms (208 B), one per recorded frame
//! mesh      [MeshVertex a0 b0 c0 | a1 b1 c1 | ...]   un-indexed: 3 per triangle,
//!           40 B each (pos, face normal, linear colour) → flat shading
//! wire      [LineVertex p q | ...]                   each undirected edge once
//! cells     [x y z value | ...]                      f32x4 per instance, 6 verts each
//! lines     [LineVertex p q | ...]                   caller's line list
//! surface   [MeshVertex a b c | ...]                 written on the GPU (an
//!           iso-surface, stages::iso_surface), drawn as it is
//! ```
//!
//! Cells are filtered and coloured in the vertex shader from the uniforms, so
//! changing the filter, colour map or range costs nothing per cell on the
//! CPU; only a new field re-uploads the cell buffer.
//!
//! Cells may also come straight from the GPU ([`ViewRenderer::set_gpu_cells`]):
//! a compute pass writes the `[x y z value]` instances and the indirect
//! draw's instance count, so nothing goes through the CPU (the particles
//! mode's live particles).
//!
//! # Draw order and transparency
//!
//! An opaque mesh (opacity 1) is drawn first, then the wireframe, cells,
//! a GPU-made surface and lines, all depth-tested and depth-writing; the
//! lines again where something hides them, faint (depth test "greater",
//! blended at 45 %), so contacts and pairs inside a body show. A translucent
//! mesh (`ViewSettings::mesh_opacity` < 1) is drawn after everything opaque,
//! with depth test but no depth write, alpha-blended ("over"): first its
//! back faces (front faces culled), then its front faces (back faces
//! culled), so the far wall is composited before the near one — the order
//! that is exact for a convex closed mesh and reads well for others. What
//! lies inside (cells, the pick's line, an iso-surface) was drawn opaque
//! before and shows through both walls. The wireframe comes last, over the
//! translucent faces.

use std::collections::HashSet;

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use wgpu::util::DeviceExt;

use super::camera::Camera;
use super::settings::{MIN_OPACITY, MeshMode, ViewSettings};
use super::target::{COLOR_FORMAT, DEPTH_FORMAT, RenderTarget};
use super::vertices::{
    FILTER_BAND, FILTER_CLIP, FILTER_INSIDE, FILTER_OUTSIDE, LineVertex, MeshVertex, ViewUniforms,
};
use crate::gpu::{GpuContext, GpuError};
use crate::mesh::Mesh;

/// Wireframe pulled this fraction of the eye distance towards the eye.
const WIRE_DEPTH_OFFSET: f32 = 0.002;
/// Neutral light grey of an uncoloured mesh (linear).
pub const MESH_GREY: [f32; 4] = [0.55, 0.55, 0.55, 1.0];
/// Wireframe colour over the shaded mesh, and alone (linear).
const WIRE_OVER_SHADED: [f32; 4] = [0.008, 0.008, 0.008, 1.0];
const WIRE_ALONE: [f32; 4] = [0.6, 0.6, 0.6, 1.0];

/// A vertex buffer and how many elements it holds.
struct Drawable {
    buffer: wgpu::Buffer,
    count: u32,
    /// Elements the buffer has room for (for in-place updates).
    capacity: u32,
}

/// Timestamp queries of [`ViewRenderer::render`], when the device has them.
struct Timer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
}

/// How a pipeline treats depth and faces: opaque geometry writes depth;
/// the translucent mesh blends over it without writing depth, one face
/// orientation per pipeline.
#[derive(Clone, Copy)]
struct Look {
    cull: Option<wgpu::Face>,
    translucent: bool,
    /// Only what lies behind drawn geometry, dimmed ([`DIMMED`]): lines
    /// inside or behind a body still show, fainter than in front.
    behind: bool,
}

/// The blend constant's share of a hidden line's colour.
const DIMMED: wgpu::BlendState = wgpu::BlendState {
    color: wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::Constant,
        dst_factor: wgpu::BlendFactor::OneMinusConstant,
        operation: wgpu::BlendOperation::Add,
    },
    alpha: OVER_KEEPING_ALPHA.alpha,
};

/// "Over" compositing of the colour; the target's alpha stays as the
/// opaque passes left it, so exported images stay opaque.
const OVER_KEEPING_ALPHA: wgpu::BlendState = wgpu::BlendState {
    color: wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::SrcAlpha,
        dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
        operation: wgpu::BlendOperation::Add,
    },
    alpha: wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::Zero,
        dst_factor: wgpu::BlendFactor::One,
        operation: wgpu::BlendOperation::Add,
    },
};

const OPAQUE: Look = Look {
    cull: None,
    translucent: false,
    behind: false,
};

/// Pipelines and the scene's vertex buffers. Create once per device.
pub struct ViewRenderer {
    bind_group_layout: wgpu::BindGroupLayout,
    mesh_pipeline: wgpu::RenderPipeline,
    /// The translucent mesh: back faces, then front faces.
    mesh_back_pipeline: wgpu::RenderPipeline,
    mesh_front_pipeline: wgpu::RenderPipeline,
    wire_pipeline: wgpu::RenderPipeline,
    points_pipeline: wgpu::RenderPipeline,
    lines_pipeline: wgpu::RenderPipeline,
    hidden_lines_pipeline: wgpu::RenderPipeline,
    translucent_pipeline: wgpu::RenderPipeline,
    mesh: Option<Drawable>,
    /// Alpha-blended triangles drawn after the opaque scene (e.g. the
    /// radial fields' cylinders), front faces only.
    translucent: Option<Drawable>,
    wire_shaded: Option<Drawable>,
    wire_alone: Option<Drawable>,
    cells: Option<Drawable>,
    /// Cells written on the GPU: instances and `[4, count, 0, 0]` draw arguments.
    gpu_cells: Option<(wgpu::Buffer, wgpu::Buffer)>,
    lines: Option<Drawable>,
    surface: Option<Drawable>,
    timer: Option<Timer>,
}

impl ViewRenderer {
    pub fn new(device: &wgpu::Device) -> Self {
        let source = crate::gpu::shader_source("view.wgsl");
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("ViewRenderer::shader"),
            source: wgpu::ShaderSource::Wgsl(source.code.into()),
        });
        let (bind_group_layout, layout) = crate::gpu::uniform_layouts(
            device,
            "ViewRenderer",
            wgpu::ShaderStages::VERTEX_FRAGMENT,
            std::mem::size_of::<ViewUniforms>() as u64,
        );

        let mesh_attributes =
            wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x4];
        let mesh_layout = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<MeshVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &mesh_attributes,
        };
        let line_attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4];
        let line_layout = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<LineVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &line_attributes,
        };
        let cell_attributes = wgpu::vertex_attr_array![0 => Float32x4];
        let cell_layout = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<[f32; 4]>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &cell_attributes,
        };

        // Translucent surfaces blend over what is drawn, keep the depth of
        // the opaque scene and show only their front faces.
        let translucent_pipeline = |label: &str, buffer: wgpu::VertexBufferLayout<'_>| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_mesh"),
                    compilation_options: Default::default(),
                    buffers: &[Some(buffer)],
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    cull_mode: Some(wgpu::Face::Back),
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(false),
                    depth_compare: Some(wgpu::CompareFunction::LessEqual),
                    stencil: wgpu::StencilState::default(),
                    bias: wgpu::DepthBiasState::default(),
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs_mesh"),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: COLOR_FORMAT,
                        blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let translucent_pipeline =
            translucent_pipeline("ViewRenderer::translucent_pipeline", mesh_layout.clone());
        let pipeline = |label: &str,
                        vs: &str,
                        fs: &str,
                        buffer: wgpu::VertexBufferLayout<'_>,
                        topology: wgpu::PrimitiveTopology,
                        look: Look| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(vs),
                    compilation_options: Default::default(),
                    buffers: &[Some(buffer)],
                },
                primitive: wgpu::PrimitiveState {
                    topology,
                    // Opaque: open meshes and sprites are seen from both sides.
                    cull_mode: look.cull,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(!look.translucent && !look.behind),
                    depth_compare: Some(if look.behind {
                        wgpu::CompareFunction::Greater
                    } else {
                        wgpu::CompareFunction::LessEqual
                    }),
                    stencil: wgpu::StencilState::default(),
                    bias: wgpu::DepthBiasState::default(),
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: COLOR_FORMAT,
                        blend: if look.behind {
                            Some(DIMMED)
                        } else {
                            look.translucent.then_some(OVER_KEEPING_ALPHA)
                        },
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let mesh_pipeline = pipeline(
            "ViewRenderer::mesh_pipeline",
            "vs_mesh",
            "fs_mesh",
            mesh_layout.clone(),
            wgpu::PrimitiveTopology::TriangleList,
            OPAQUE,
        );
        let translucent = |label: &str, cull: wgpu::Face| {
            pipeline(
                label,
                "vs_mesh",
                "fs_mesh",
                mesh_layout.clone(),
                wgpu::PrimitiveTopology::TriangleList,
                Look {
                    cull: Some(cull),
                    translucent: true,
                    ..OPAQUE
                },
            )
        };
        let mesh_back_pipeline = translucent("ViewRenderer::mesh_back_pipeline", wgpu::Face::Front);
        let mesh_front_pipeline =
            translucent("ViewRenderer::mesh_front_pipeline", wgpu::Face::Back);
        let lines = |label, vs, look| {
            pipeline(
                label,
                vs,
                "fs_lines",
                line_layout.clone(),
                wgpu::PrimitiveTopology::LineList,
                look,
            )
        };
        let wire_pipeline = lines("ViewRenderer::wire_pipeline", "vs_wire", OPAQUE);
        let points_pipeline = pipeline(
            "ViewRenderer::points_pipeline",
            "vs_points",
            "fs_points",
            cell_layout,
            // One 4-vertex strip per instance: a third fewer vertex-shader
            // runs than two separate triangles, which bounds this pass.
            wgpu::PrimitiveTopology::TriangleStrip,
            OPAQUE,
        );
        let lines_pipeline = lines("ViewRenderer::lines_pipeline", "vs_lines", OPAQUE);
        let behind = Look {
            behind: true,
            ..OPAQUE
        };
        let hidden_lines_pipeline =
            lines("ViewRenderer::hidden_lines_pipeline", "vs_lines", behind);

        let timer = device
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
            });

        ViewRenderer {
            bind_group_layout,
            mesh_pipeline,
            mesh_back_pipeline,
            mesh_front_pipeline,
            wire_pipeline,
            points_pipeline,
            lines_pipeline,
            hidden_lines_pipeline,
            translucent_pipeline,
            mesh: None,
            translucent: None,
            wire_shaded: None,
            wire_alone: None,
            cells: None,
            gpu_cells: None,
            lines: None,
            surface: None,
            timer,
        }
    }

    /// Uploads `mesh` in neutral grey: un-indexed flat-shaded triangles and
    /// its wireframe edges.
    pub fn set_mesh(&mut self, device: &wgpu::Device, mesh: &Mesh) {
        self.set_mesh_colored(device, mesh, None);
    }

    /// Like [`Self::set_mesh`] with a linear RGBA colour per mesh vertex
    /// (`vertex_colors[i]` for `mesh.positions[i]`; missing entries are grey).
    pub fn set_mesh_colored(
        &mut self,
        device: &wgpu::Device,
        mesh: &Mesh,
        vertex_colors: Option<&[[f32; 4]]>,
    ) {
        let color_of = |v: u32| {
            vertex_colors
                .and_then(|c| c.get(v as usize).copied())
                .unwrap_or(MESH_GREY)
        };
        let position_of = |v: u32| {
            mesh.positions
                .get(v as usize)
                .copied()
                .unwrap_or(Vec3::ZERO)
        };
        let mut vertices = Vec::with_capacity(3 * mesh.triangles.len());
        let mut edges = HashSet::with_capacity(3 * mesh.triangles.len() / 2);
        for (t, tri) in mesh.triangles.iter().enumerate() {
            let normal = mesh.face_normal(t).to_array();
            for &v in tri {
                vertices.push(MeshVertex {
                    pos: position_of(v).to_array(),
                    normal,
                    color: color_of(v),
                });
            }
            for (a, b) in [(tri[0], tri[1]), (tri[1], tri[2]), (tri[2], tri[0])] {
                edges.insert((a.min(b), a.max(b)));
            }
        }
        let mut edges: Vec<(u32, u32)> = edges.into_iter().collect();
        edges.sort_unstable();
        let wire = |color: [f32; 4]| -> Vec<LineVertex> {
            edges
                .iter()
                .flat_map(|&(a, b)| {
                    [
                        LineVertex::new(position_of(a), color),
                        LineVertex::new(position_of(b), color),
                    ]
                })
                .collect()
        };
        self.mesh = drawable(
            device,
            "ViewRenderer::mesh",
            &vertices,
            wgpu::BufferUsages::VERTEX,
        );
        self.wire_shaded = drawable(
            device,
            "ViewRenderer::wire_shaded",
            &wire(WIRE_OVER_SHADED),
            wgpu::BufferUsages::VERTEX,
        );
        self.wire_alone = drawable(
            device,
            "ViewRenderer::wire_alone",
            &wire(WIRE_ALONE),
            wgpu::BufferUsages::VERTEX,
        );
    }

    /// Uploads alpha-blended triangles, three vertices each, wound
    /// counter-clockwise seen from their front (an empty slice removes
    /// them).
    pub fn set_translucent(&mut self, device: &wgpu::Device, vertices: &[MeshVertex]) {
        self.translucent = drawable(
            device,
            "ViewRenderer::translucent",
            vertices,
            wgpu::BufferUsages::VERTEX,
        );
    }

    /// Removes the mesh.
    pub fn clear_mesh(&mut self) {
        self.mesh = None;
        self.wire_shaded = None;
        self.wire_alone = None;
    }

    /// Uploads cells as `[x, y, z, value]` (an empty slice removes them).
    /// See [`super::cells_from_field`].
    pub fn set_cells(&mut self, device: &wgpu::Device, cells: &[[f32; 4]]) {
        self.cells = drawable(
            device,
            "ViewRenderer::cells",
            cells,
            wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        );
    }

    /// Replaces the cells, writing into the existing buffer when it has
    /// room (a recomputed field of the same or smaller grid), otherwise
    /// allocating like [`Self::set_cells`].
    pub fn set_cell_values(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cells: &[[f32; 4]],
    ) {
        match &mut self.cells {
            Some(d) if !cells.is_empty() && cells.len() <= d.capacity as usize => {
                queue.write_buffer(&d.buffer, 0, bytemuck::cast_slice(cells));
                d.count = cells.len() as u32;
            }
            _ => self.set_cells(device, cells),
        }
    }

    /// Draws `instances` (`[x, y, z, value]`, a vertex buffer) as cells too,
    /// as many as `draw_args` (`[4, count, 0, 0]`, an indirect buffer) says;
    /// `None` removes them.
    pub fn set_gpu_cells(&mut self, cells: Option<(wgpu::Buffer, wgpu::Buffer)>) {
        self.gpu_cells = cells;
    }

    /// Uploads debug lines (pairs of vertices; an empty slice removes them).
    pub fn set_lines(&mut self, device: &wgpu::Device, lines: &[LineVertex]) {
        let even = &lines[..lines.len() & !1];
        self.lines = drawable(
            device,
            "ViewRenderer::lines",
            even,
            wgpu::BufferUsages::VERTEX,
        );
    }

    /// Shows a surface whose vertex buffer was written on the GPU: `count`
    /// [`MeshVertex`]es, 3 per triangle (an empty one or `None` removes it).
    /// It is drawn opaque after the cells, whatever the mesh mode.
    pub fn set_surface(&mut self, surface: Option<(wgpu::Buffer, u32)>) {
        self.surface = surface
            .filter(|(_, count)| *count > 0)
            .map(|(buffer, count)| Drawable {
                buffer,
                count,
                capacity: count,
            });
    }

    pub fn cell_count(&self) -> u32 {
        self.cells.as_ref().map_or(0, |d| d.count)
    }

    pub fn mesh_triangle_count(&self) -> u32 {
        self.mesh.as_ref().map_or(0, |d| d.count / 3)
    }

    pub fn line_count(&self) -> u32 {
        self.lines.as_ref().map_or(0, |d| d.count / 2)
    }

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
            layout: &self.bind_group_layout,
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
            draw(&mut pass, &self.mesh_pipeline, d);
        }
        let wire = if mode == MeshMode::Wireframe {
            &self.wire_alone
        } else {
            &self.wire_shaded
        };
        let wire = wire.as_ref().filter(|_| mode.wireframe());
        if let (Some(d), false) = (wire, translucent) {
            draw(&mut pass, &self.wire_pipeline, d);
        }
        if settings.show_cells
            && let Some(d) = &self.cells
        {
            pass.set_pipeline(&self.points_pipeline);
            pass.set_vertex_buffer(0, d.buffer.slice(..));
            pass.draw(0..4, 0..d.count);
        }
        if settings.show_cells
            && let Some((instances, args)) = &self.gpu_cells
        {
            pass.set_pipeline(&self.points_pipeline);
            pass.set_vertex_buffer(0, instances.slice(..));
            pass.draw_indirect(args, 0);
        }
        if let Some(d) = &self.surface {
            draw(&mut pass, &self.mesh_pipeline, d);
        }
        if let Some(d) = &self.lines {
            draw(&mut pass, &self.lines_pipeline, d);
            // Contacts, pairs and picks behind a body show through it, faint.
            pass.set_blend_constant(wgpu::Color {
                r: 0.45,
                g: 0.45,
                b: 0.45,
                a: 0.45,
            });
            draw(&mut pass, &self.hidden_lines_pipeline, d);
        }
        if translucent {
            if let Some(d) = shaded_mesh {
                draw(&mut pass, &self.mesh_back_pipeline, d);
                draw(&mut pass, &self.mesh_front_pipeline, d);
            }
            if let Some(d) = wire {
                draw(&mut pass, &self.wire_pipeline, d);
            }
        }
        if let Some(d) = &self.translucent {
            pass.set_pipeline(&self.translucent_pipeline);
            pass.set_vertex_buffer(0, d.buffer.slice(..));
            pass.draw(0..d.count, 0..1);
        }
    }
}

fn drawable<T: bytemuck::Pod>(
    device: &wgpu::Device,
    label: &str,
    data: &[T],
    usage: wgpu::BufferUsages,
) -> Option<Drawable> {
    if data.is_empty() {
        return None;
    }
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::cast_slice(data),
        usage,
    });
    let count = data.len() as u32;
    Some(Drawable {
        buffer,
        count,
        capacity: count,
    })
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
