//! The GPU rasterisers: a wgpu render pipeline over `shaders/radial.wgsl`
//! (see the module docs of [`super`] and the shader's header), or compute
//! shaders ([`super::compute`]), chosen per scene ([`Rasteriser`]).
//!
//! [`RadialGpu`] holds the pipelines of both (once per device). [`RadialScene`]
//! holds one scene's buffers — the mesh, the (field, triangle) pairs, the
//! frames and the values — resident, so that per frame only what moved is
//! written ([`RadialScene::write_positions`], [`RadialScene::write_frames`],
//! or a compute pass writing [`RadialScene::positions`] directly, as
//! skinning does) and [`RadialScene::record`] updates every field inside
//! the caller's encoder. The colour target is a dummy (wgpu needs an
//! attachment to size the pass; its writes are masked off).

use eframe::egui_wgpu::wgpu;
use glam::Vec3;

use super::compute::{ComputeBuffers, ComputeRaster};
use super::{BoneFrame, FieldFrameGpu, RadialError, RadialInput, RadialParams, gpu_frames};
use crate::gpu::{
    GpuContext, GpuRun, dispatch_dims, read_buffer, shader_source, storage_buffer_init,
};
use crate::timing::Timings;

/// Threads per workgroup of the `clear` kernel.
pub const CLEAR_GROUP: u32 = 256;

/// +inf as u32 bits: an empty cell.
pub const INF_BITS: u32 = 0x7f80_0000;

const TARGET_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R8Unorm;

/// The uniform of `radial.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RasterParams {
    pub n_theta: u32,
    pub n_z: u32,
    /// (field, triangle) pairs drawn.
    pub pairs: u32,
    /// Cells of all fields (the values cleared).
    pub cells: u32,
    pub min_facing: f32,
    /// 1: clamp distances by the vertex distances ([`RadialParams::filter`]).
    pub clamp_far: u32,
    pub _pad0: u32,
    pub _pad1: u32,
}

/// How a scene's fields are rasterised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rasteriser {
    /// The render pipeline, one draw of 3 vertices per (field, triangle)
    /// pair: the paper's method.
    Render,
    /// Compute shaders filling the same cells ([`super::compute`]).
    Compute,
}

/// The pipelines of the radial-field stage, created once per device.
pub struct RadialGpu {
    /// The device the pipelines belong to.
    pub gpu: GpuContext,
    layout: wgpu::BindGroupLayout,
    render: wgpu::RenderPipeline,
    clear: wgpu::ComputePipeline,
    compute: ComputeRaster,
}

impl RadialGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let device = &gpu.device;
        let module = gpu.shader(shader_source("radial.wgsl"));
        use wgpu::ShaderStages as S;
        let entry = |binding: u32, visibility, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let read = wgpu::BufferBindingType::Storage { read_only: true };
        let all = S::VERTEX | S::FRAGMENT | S::COMPUTE;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("RadialGpu::layout"),
            entries: &[
                entry(0, all, wgpu::BufferBindingType::Uniform),
                entry(1, S::VERTEX | S::FRAGMENT, read),
                entry(2, S::VERTEX, read),
                entry(3, S::VERTEX, read),
                entry(4, S::VERTEX, read),
                entry(
                    5,
                    S::FRAGMENT | S::COMPUTE,
                    wgpu::BufferBindingType::Storage { read_only: false },
                ),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("RadialGpu::pipeline_layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let render = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("RadialGpu::render"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleList,
                cull_mode: None,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: TARGET_FORMAT,
                    blend: None,
                    write_mask: wgpu::ColorWrites::empty(),
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let clear = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("RadialGpu::clear"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("clear"),
            compilation_options: Default::default(),
            cache: None,
        });
        RadialGpu {
            gpu: gpu.clone(),
            layout,
            render,
            clear,
            compute: ComputeRaster::new(gpu),
        }
    }

    /// The render pipeline's bind group of a scene's buffers (binding order).
    fn render_bind_group(&self, buffers: [&wgpu::Buffer; 6]) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        self.gpu
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("RadialScene::bind_group"),
                layout: &self.layout,
                entries: &entries,
            })
    }

    /// One stage run: upload, clear, rasterise, read back.
    pub(super) fn run(
        &self,
        input: RadialInput<'_>,
        params: &RadialParams,
        rasteriser: Rasteriser,
        timings: &mut Timings,
    ) -> Result<Vec<f32>, RadialError> {
        let gpu = &self.gpu;
        let start = std::time::Instant::now();
        let scene = RadialScene::with_rasteriser(gpu, self, input, params, rasteriser)?;
        timings.push("upload", start.elapsed().as_secs_f64() * 1e3, None);
        let mut run = GpuRun::new(gpu, "radial")?;
        run.encoder_work("clear", |e| scene.record_clear(self, e));
        run.encoder_work("rasterise", |e| scene.record_draw(self, e));
        let (phases, wall_ms) = run.finish()?;
        for p in &phases {
            timings.push(p.name.clone(), 0.0, p.gpu_ms);
        }
        timings.push("gpu wall", wall_ms, None);
        let start = std::time::Instant::now();
        let values = scene.read_values(gpu)?;
        timings.push("read back", start.elapsed().as_secs_f64() * 1e3, None);
        Ok(values)
    }
}

/// `v`, or one `pad` when `v` is empty.
fn padded<T>(mut v: Vec<T>, pad: T) -> Vec<T> {
    if v.is_empty() {
        v.push(pad);
    }
    v
}

/// One scene's resident buffers (see the module docs).
pub struct RadialScene {
    pub params: RadialParams,
    pub field_count: u32,
    pub pair_count: u32,
    /// `FieldFrameGpu` per field.
    pub frames: wgpu::Buffer,
    /// `vec4<f32>` per vertex (w unused).
    pub positions: wgpu::Buffer,
    /// Every field's cells as f32 bits (`u32`), row-major by z; `+inf` empty.
    pub values: wgpu::Buffer,
    _triangles: wgpu::Buffer,
    _pairs: wgpu::Buffer,
    _uniform: wgpu::Buffer,
    raster: SceneRaster,
}

/// What a scene's rasteriser needs besides the shared buffers.
enum SceneRaster {
    /// The render pipeline's bind group and its dummy colour target.
    Render {
        target: wgpu::TextureView,
        bind_group: wgpu::BindGroup,
    },
    Compute(ComputeBuffers),
}

impl RadialScene {
    /// [`RadialScene::with_rasteriser`] with the render pipeline.
    pub fn new(
        gpu: &GpuContext,
        radial: &RadialGpu,
        input: RadialInput<'_>,
        params: &RadialParams,
    ) -> Result<Self, RadialError> {
        Self::with_rasteriser(gpu, radial, input, params, Rasteriser::Render)
    }

    /// Uploads `input` and allocates the fields of `params`, after checking
    /// both and the adapter's limits, for `rasteriser`.
    pub fn with_rasteriser(
        gpu: &GpuContext,
        radial: &RadialGpu,
        input: RadialInput<'_>,
        params: &RadialParams,
        rasteriser: Rasteriser,
    ) -> Result<Self, RadialError> {
        params.validate()?;
        input.validate()?;
        let limits = gpu.device.limits();
        let max_dim = limits.max_texture_dimension_2d;
        let render = rasteriser == Rasteriser::Render;
        if render && (params.n_theta > max_dim || params.n_z > max_dim) {
            return Err(RadialError::BeyondGpu {
                n_theta: params.n_theta,
                n_z: params.n_z,
                limit: "max_texture_dimension_2d",
                allowed: max_dim.into(),
            });
        }
        let cells = params.cells_per_field() as u64 * input.fields.len() as u64;
        if cells > u32::MAX as u64 / 4 {
            return Err(RadialError::BeyondGpu {
                n_theta: params.n_theta,
                n_z: params.n_z,
                limit: "u32 cell index",
                allowed: u32::MAX as u64 / 4,
            });
        }
        gpu.check_storage_size("radial field values", cells * 4)?;
        let pairs = input.pairs();
        let positions: Vec<[f32; 4]> = input
            .positions
            .iter()
            .map(|p| p.extend(1.0).into())
            .collect();
        // Bindings shorter than one element fail validation even when
        // nothing reads them: pad empty lists with one unused element.
        let frame_list = padded(
            gpu_frames(input.fields, params),
            bytemuck::Zeroable::zeroed(),
        );
        let pair_list = padded(pairs.clone(), [0; 2]);
        let position_list = padded(positions, [0.0; 4]);
        let uniform = RasterParams {
            n_theta: params.n_theta,
            n_z: params.n_z,
            pairs: pairs.len() as u32,
            cells: cells as u32,
            min_facing: params.min_facing,
            clamp_far: params.filter.into(),
            _pad0: 0,
            _pad1: 0,
        };
        let uniform_buffer = wgpu::util::DeviceExt::create_buffer_init(
            &gpu.device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("RadialScene::uniform"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            },
        );
        let frames = storage_buffer_init(gpu, "radial frames", &frame_list)?;
        let positions = storage_buffer_init(gpu, "radial positions", &position_list)?;
        let triangles = storage_buffer_init(gpu, "radial triangles", input.triangles)?;
        let pair_buffer = storage_buffer_init(gpu, "radial pairs", &pair_list)?;
        let values = crate::gpu::storage_buffer_zeroed(
            gpu,
            crate::gpu::BufferCheck {
                label: "radial field values",
                bytes: cells * 4,
            },
        )?;
        let buffers = [
            &uniform_buffer,
            &frames,
            &positions,
            &triangles,
            &pair_buffer,
            &values,
        ];
        let raster = match rasteriser {
            Rasteriser::Render => SceneRaster::Render {
                target: dummy_target(gpu, params),
                bind_group: radial.render_bind_group(buffers),
            },
            Rasteriser::Compute => {
                SceneRaster::Compute(ComputeBuffers::new(gpu, &radial.compute, buffers))
            }
        };
        Ok(RadialScene {
            params: *params,
            field_count: input.fields.len() as u32,
            pair_count: pairs.len() as u32,
            frames,
            positions,
            values,
            _triangles: triangles,
            _pairs: pair_buffer,
            _uniform: uniform_buffer,
            raster,
        })
    }

    /// Moves the fields (one frame per field, in the scene's field order).
    pub fn write_frames(&self, gpu: &GpuContext, frames: &[BoneFrame]) {
        let n = self.params.cells_per_field() as u32;
        let gpu_frames: Vec<FieldFrameGpu> = frames
            .iter()
            .take(self.field_count as usize)
            .enumerate()
            .map(|(f, fr)| {
                FieldFrameGpu::new(fr, self.params.n_theta, self.params.n_z, f as u32 * n)
            })
            .collect();
        gpu.queue
            .write_buffer(&self.frames, 0, bytemuck::cast_slice(&gpu_frames));
    }

    /// Moves the vertices (as many as the scene was made with).
    pub fn write_positions(&self, gpu: &GpuContext, positions: &[Vec3]) {
        let data: Vec<[f32; 4]> = positions.iter().map(|p| p.extend(1.0).into()).collect();
        let bytes = bytemuck::cast_slice(&data);
        let len = bytes.len().min(self.positions.size() as usize);
        gpu.queue.write_buffer(&self.positions, 0, &bytes[..len]);
    }

    /// How this scene rasterises.
    pub fn rasteriser(&self) -> Rasteriser {
        match self.raster {
            SceneRaster::Render { .. } => Rasteriser::Render,
            SceneRaster::Compute(_) => Rasteriser::Compute,
        }
    }

    /// GPU commands [`RadialScene::record_draw`] records, each after the
    /// previous: one draw, or the compute rasteriser's dispatches
    /// ([`RadialScene::record`] adds the clear's dispatch).
    pub fn draw_commands(&self) -> u32 {
        match self.raster {
            SceneRaster::Render { .. } => 1,
            SceneRaster::Compute(_) => super::compute::RASTER_DISPATCHES,
        }
    }

    /// Records the clear to +inf (§5.3).
    pub fn record_clear(&self, radial: &RadialGpu, encoder: &mut wgpu::CommandEncoder) {
        let cells = self.params.cells_per_field() as u32 * self.field_count;
        match &self.raster {
            SceneRaster::Render { bind_group, .. } => {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("RadialScene::clear"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&radial.clear);
                pass.set_bind_group(0, bind_group, &[]);
                let (x, y) = dispatch_dims(cells.div_ceil(CLEAR_GROUP));
                pass.dispatch_workgroups(x, y, 1);
            }
            SceneRaster::Compute(c) => c.record_clear(&radial.compute, encoder, cells),
        }
    }

    /// Records the rasterisation of every (field, triangle) pair.
    pub fn record_draw(&self, radial: &RadialGpu, encoder: &mut wgpu::CommandEncoder) {
        let (target, bind_group) = match &self.raster {
            SceneRaster::Render { target, bind_group } => (target, bind_group),
            SceneRaster::Compute(c) => {
                return c.record_raster(&radial.compute, encoder, self.pair_count);
            }
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("RadialScene::rasterise"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                    store: wgpu::StoreOp::Discard,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if self.pair_count > 0 {
            pass.set_pipeline(&radial.render);
            pass.set_bind_group(0, bind_group, &[]);
            pass.draw(0..3 * self.pair_count, 0..1);
        }
    }

    /// Clear and rasterise: one update of every field.
    pub fn record(&self, radial: &RadialGpu, encoder: &mut wgpu::CommandEncoder) {
        self.record_clear(radial, encoder);
        self.record_draw(radial, encoder);
    }

    /// Reads every field's values back (blocking).
    pub fn read_values(&self, gpu: &GpuContext) -> Result<Vec<f32>, RadialError> {
        let cells = self.params.cells_per_field() * self.field_count as usize;
        let bits: Vec<u32> = read_buffer(gpu, &self.values, cells)?;
        Ok(bits.into_iter().map(f32::from_bits).collect())
    }
}

/// The render pipeline's colour target: sizes the pass, never written.
fn dummy_target(gpu: &GpuContext, params: &RadialParams) -> wgpu::TextureView {
    gpu.device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("RadialScene::target"),
            size: wgpu::Extent3d {
                width: params.n_theta,
                height: params.n_z,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: TARGET_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        })
        .create_view(&Default::default())
}
