//! The rendering passes of the stage on wgpu: edge depths, stencil
//! counting, occlusion-query identification, read-back.

use std::ops::Range;

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::{InterferenceError, InterferenceScene, OrthoView, STENCIL_ZERO, StencilPasses};
use crate::geom::Aabb;
use crate::gpu::{GpuContext, GpuError, GpuPhase, GpuRun, shader_source};

const DEPTH_STENCIL_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32FloatStencil8;
const IDS_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rg32Uint;

/// Keep in sync with `Uniforms` in shaders/interference.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct Uniforms {
    clip_from_world: [[f32; 4]; 4],
    /// x: edge offset (world units).
    params: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<Uniforms>() == 80);

/// One end of an edge: vertex layout of `vs_edge` in
/// shaders/interference.wgsl (keep in sync).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct EdgeVertex {
    pos: [f32; 3],
    normal: [f32; 3],
    /// (object index, global edge index).
    ids: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<EdgeVertex>() == 32);

/// Pipelines of the stage; create once per device.
pub struct InterferenceGpu {
    bind_group_layout: wgpu::BindGroupLayout,
    edge_pipeline: wgpu::RenderPipeline,
    face_two_sided: wgpu::RenderPipeline,
    face_front_increment: wgpu::RenderPipeline,
    face_back_decrement: wgpu::RenderPipeline,
    identify_pipeline: wgpu::RenderPipeline,
}

/// A scene's geometry resident on the GPU.
pub struct UploadedScene {
    positions: wgpu::Buffer,
    indices: wgpu::Buffer,
    edges: wgpu::Buffer,
    /// Per object: its range of `indices`.
    face_ranges: Vec<Range<u32>>,
    /// Per object: its range of edge vertices (2 per edge).
    edge_ranges: Vec<Range<u32>>,
    /// Per object: index of its first edge in the global edge numbering.
    pub edge_base: Vec<u32>,
    pub bounds: Vec<Aabb>,
}

impl UploadedScene {
    pub fn object_count(&self) -> usize {
        self.face_ranges.len()
    }

    /// (object, edge of that object) of a global edge index.
    pub fn edge_owner(&self, global: u32) -> Option<(usize, u32)> {
        let object = self
            .edge_base
            .partition_point(|&b| b <= global)
            .checked_sub(1)?;
        let local = global - self.edge_base[object];
        let edges = (self.edge_ranges[object].end - self.edge_ranges[object].start) / 2;
        (local < edges).then_some((object, local))
    }
}

/// What one run reads back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    pub passes: StencilPasses,
    /// Read the stencil, edge-depth and id images back (§4.4.1's pixel
    /// scan); without it only the occlusion queries come back.
    pub read_pixels: bool,
    /// Also identify the penetrated objects (pair queries).
    pub pairs: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            passes: StencilPasses::TwoSided,
            read_pixels: true,
            pairs: true,
        }
    }
}

/// The images of one view, read back.
#[derive(Clone, Debug)]
pub struct CountImage {
    pub view: OrthoView,
    /// Signed count per pixel (stencil − 128), row-major from the top-left.
    pub counts: Vec<i32>,
    /// Depth of the nearest (offset) edge point; 1.0 where no edge.
    pub edge_depth: Vec<f32>,
    /// (object + 1, global edge + 1) of the nearest edge; 0 = none.
    pub ids: Vec<[u32; 2]>,
}

impl CountImage {
    /// Pixels whose ray hit an edge point inside another solid, per object
    /// owning that edge (the read-pixels identification, Alg. 2).
    pub fn penetrating_pixels(&self, objects: usize) -> Vec<u64> {
        let mut out = vec![0u64; objects];
        for (c, ids) in self.counts.iter().zip(&self.ids) {
            if *c > 0
                && let Some(n) = (ids[0] as usize)
                    .checked_sub(1)
                    .and_then(|k| out.get_mut(k))
            {
                *n += 1;
            }
        }
        out
    }

    /// Objects whose edges saw a negative count: some mesh on those rays is
    /// not closed (§4.4.1).
    pub fn negative_pixels(&self) -> usize {
        self.counts
            .iter()
            .zip(&self.edge_depth)
            .filter(|(c, d)| **c < 0 && **d < 1.0)
            .count()
    }
}

/// One (penetrating, penetrated) query answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairQuery {
    /// The object whose edges are inside…
    pub penetrating: usize,
    /// …this one.
    pub penetrated: usize,
    /// Pixels that passed (occlusion query result).
    pub pixels: u64,
}

/// The queries of one run.
#[derive(Clone, Debug, Default)]
pub struct PairQueries {
    /// Per object: pixels of its edges with count > 0 (pass 4, Alg. 5).
    pub object_pixels: Vec<u64>,
    /// Every pair tested (bounding boxes overlap), with its answer.
    pub pairs: Vec<PairQuery>,
}

/// Everything one run of one view returns.
#[derive(Clone, Debug)]
pub struct InterferenceRun {
    pub view: OrthoView,
    pub image: Option<CountImage>,
    pub queries: PairQueries,
    pub phases: Vec<GpuPhase>,
    pub wall_ms: f64,
}

fn depth_stencil(
    compare: wgpu::CompareFunction,
    write: bool,
    stencil: wgpu::StencilState,
) -> Option<wgpu::DepthStencilState> {
    Some(wgpu::DepthStencilState {
        format: DEPTH_STENCIL_FORMAT,
        depth_write_enabled: Some(write),
        depth_compare: Some(compare),
        stencil,
        bias: wgpu::DepthBiasState::default(),
    })
}

fn stencil_op(op: wgpu::StencilOperation) -> wgpu::StencilFaceState {
    wgpu::StencilFaceState {
        compare: wgpu::CompareFunction::Always,
        fail_op: wgpu::StencilOperation::Keep,
        depth_fail_op: wgpu::StencilOperation::Keep,
        pass_op: op,
    }
}

fn stencil_counting(
    front: wgpu::StencilOperation,
    back: wgpu::StencilOperation,
) -> wgpu::StencilState {
    wgpu::StencilState {
        front: stencil_op(front),
        back: stencil_op(back),
        read_mask: 0xff,
        write_mask: 0xff,
    }
}

impl InterferenceGpu {
    pub fn new(gpu: &GpuContext) -> Result<Self, InterferenceError> {
        if !gpu
            .device
            .features()
            .contains(wgpu::Features::DEPTH32FLOAT_STENCIL8)
        {
            return Err(InterferenceError::NoDepthStencilFormat {
                adapter: gpu.describe(),
            });
        }
        let device = &gpu.device;
        let module = gpu.shader(shader_source("interference.wgsl"));
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("InterferenceGpu::bind_group_layout"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: wgpu::BufferSize::new(std::mem::size_of::<Uniforms>() as u64),
                },
                count: None,
            }],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("InterferenceGpu::pipeline_layout"),
            bind_group_layouts: &[Some(&bind_group_layout)],
            immediate_size: 0,
        });
        let edge_attributes =
            wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Uint32x2];
        let edge_layout = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<EdgeVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &edge_attributes,
        };
        let face_attributes = wgpu::vertex_attr_array![0 => Float32x3];
        let face_layout = wgpu::VertexBufferLayout {
            array_stride: 12,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &face_attributes,
        };
        let ids_target = [Some(wgpu::ColorTargetState {
            format: IDS_FORMAT,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
        })];
        let pipeline = |label: &str,
                        vs: &str,
                        buffer: wgpu::VertexBufferLayout<'_>,
                        topology: wgpu::PrimitiveTopology,
                        cull_mode: Option<wgpu::Face>,
                        depth: Option<wgpu::DepthStencilState>,
                        fragment: Option<wgpu::FragmentState<'_>>| {
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
                    front_face: wgpu::FrontFace::Ccw,
                    cull_mode,
                    ..Default::default()
                },
                depth_stencil: depth,
                multisample: wgpu::MultisampleState::default(),
                fragment,
                multiview_mask: None,
                cache: None,
            })
        };
        use wgpu::CompareFunction as Cmp;
        use wgpu::StencilOperation as Op;
        let edge_pipeline = pipeline(
            "InterferenceGpu::edge_pipeline",
            "vs_edge",
            edge_layout.clone(),
            wgpu::PrimitiveTopology::LineList,
            None,
            depth_stencil(Cmp::Less, true, wgpu::StencilState::default()),
            Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_edge"),
                compilation_options: Default::default(),
                targets: &ids_target,
            }),
        );
        let face = |label: &str, cull: Option<wgpu::Face>| {
            pipeline(
                label,
                "vs_face",
                face_layout.clone(),
                wgpu::PrimitiveTopology::TriangleList,
                cull,
                depth_stencil(
                    Cmp::Less,
                    false,
                    stencil_counting(Op::IncrementWrap, Op::DecrementWrap),
                ),
                None,
            )
        };
        let face_two_sided = face("InterferenceGpu::face_two_sided", None);
        let face_front_increment = face(
            "InterferenceGpu::face_front_increment",
            Some(wgpu::Face::Back),
        );
        let face_back_decrement = face(
            "InterferenceGpu::face_back_decrement",
            Some(wgpu::Face::Front),
        );
        // Pass 4: edge pixels that are the nearest edge (depth "equal") and
        // inside something (128 < stencil); nothing is written.
        let inside = wgpu::StencilFaceState {
            compare: Cmp::Less,
            fail_op: Op::Keep,
            depth_fail_op: Op::Keep,
            pass_op: Op::Keep,
        };
        let identify_pipeline = pipeline(
            "InterferenceGpu::identify_pipeline",
            "vs_edge",
            edge_layout,
            wgpu::PrimitiveTopology::LineList,
            None,
            depth_stencil(
                Cmp::Equal,
                false,
                wgpu::StencilState {
                    front: inside,
                    back: inside,
                    read_mask: 0xff,
                    write_mask: 0,
                },
            ),
            None,
        );
        Ok(InterferenceGpu {
            bind_group_layout,
            edge_pipeline,
            face_two_sided,
            face_front_increment,
            face_back_decrement,
            identify_pipeline,
        })
    }

    /// Uploads the objects of `scene` (world coordinates, already posed).
    pub fn upload(&self, gpu: &GpuContext, scene: &InterferenceScene) -> UploadedScene {
        let mut positions: Vec<[f32; 3]> = Vec::new();
        let mut indices: Vec<u32> = Vec::new();
        let mut edges: Vec<EdgeVertex> = Vec::new();
        let mut face_ranges = Vec::new();
        let mut edge_ranges = Vec::new();
        let mut edge_base = Vec::new();
        let mut edge_count = 0u32;
        for (k, o) in scene.objects.iter().enumerate() {
            let base = positions.len() as u32;
            positions.extend(o.mesh.positions.iter().map(|p| p.to_array()));
            let first = indices.len() as u32;
            indices.extend(o.mesh.triangles.iter().flatten().map(|&i| i + base));
            face_ranges.push(first..indices.len() as u32);
            let first_edge = edges.len() as u32;
            edge_base.push(edge_count);
            for &[a, b] in &o.edges {
                for v in [a, b] {
                    edges.push(EdgeVertex {
                        pos: o.mesh.positions[v as usize].to_array(),
                        normal: o
                            .vertex_normals
                            .get(v as usize)
                            .copied()
                            .unwrap_or_default()
                            .to_array(),
                        ids: [k as u32, edge_count],
                    });
                }
                edge_count += 1;
            }
            edge_ranges.push(first_edge..edges.len() as u32);
        }
        let buffer = |label: &str, contents: &[u8], usage: wgpu::BufferUsages| {
            gpu.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents: if contents.is_empty() {
                        &[0; 4]
                    } else {
                        contents
                    },
                    usage,
                })
        };
        UploadedScene {
            positions: buffer(
                "UploadedScene::positions",
                bytemuck::cast_slice(&positions),
                wgpu::BufferUsages::VERTEX,
            ),
            indices: buffer(
                "UploadedScene::indices",
                bytemuck::cast_slice(&indices),
                wgpu::BufferUsages::INDEX,
            ),
            edges: buffer(
                "UploadedScene::edges",
                bytemuck::cast_slice(&edges),
                wgpu::BufferUsages::VERTEX,
            ),
            face_ranges,
            edge_ranges,
            edge_base,
            bounds: scene.objects.iter().map(|o| o.bounds()).collect(),
        }
    }

    /// Runs the passes for one view: edges (pass 1), stencil counting
    /// (passes 2–3), per-object occlusion queries (pass 4), optionally the
    /// pair queries and the read-back of the images.
    pub fn run(
        &self,
        gpu: &GpuContext,
        scene: &UploadedScene,
        view: &OrthoView,
        edge_offset: f32,
        options: RunOptions,
    ) -> Result<InterferenceRun, InterferenceError> {
        let max = gpu.device.limits().max_texture_dimension_2d;
        if view.width == 0 || view.height == 0 || view.width > max || view.height > max {
            return Err(InterferenceError::BadViewport {
                width: view.width,
                height: view.height,
                max,
            });
        }
        let started = std::time::Instant::now();
        let device = &gpu.device;
        let n = scene.object_count();
        let size = wgpu::Extent3d {
            width: view.width,
            height: view.height,
            depth_or_array_layers: 1,
        };
        let texture = |label: &str, format| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            })
        };
        let depth_tex = texture("InterferenceRun::depth_stencil", DEPTH_STENCIL_FORMAT);
        let ids_tex = texture("InterferenceRun::ids", IDS_FORMAT);
        let depth_view = depth_tex.create_view(&wgpu::TextureViewDescriptor {
            label: Some("InterferenceRun::depth_stencil_view"),
            ..Default::default()
        });
        let ids_view = ids_tex.create_view(&wgpu::TextureViewDescriptor {
            label: Some("InterferenceRun::ids_view"),
            ..Default::default()
        });
        let uniforms = Uniforms {
            clip_from_world: view.clip_from_world().to_cols_array_2d(),
            params: [edge_offset, 0.0, 0.0, 0.0],
        };
        let uniform_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("InterferenceRun::uniforms"),
            contents: bytemuck::bytes_of(&uniforms),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("InterferenceRun::bind_group"),
            layout: &self.bind_group_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform_buffer.as_entire_binding(),
            }],
        });

        // Pair candidates: j's faces against the edges of every i ≠ j whose
        // box (grown by the offset) overlaps j's.
        let grown: Vec<Aabb> = scene
            .bounds
            .iter()
            .map(|b| b.grown(2.0 * edge_offset.abs()))
            .collect();
        let mut candidates: Vec<(usize, Vec<usize>)> = Vec::new();
        if options.pairs {
            for j in 0..n {
                let is: Vec<usize> = (0..n)
                    .filter(|&i| {
                        i != j
                            && grown[i].min.cmple(grown[j].max).all()
                            && grown[j].min.cmple(grown[i].max).all()
                    })
                    .collect();
                if !is.is_empty() {
                    candidates.push((j, is));
                }
            }
        }
        let pair_count: usize = candidates.iter().map(|(_, is)| is.len()).sum();
        let query_count = (n + pair_count).max(1) as u32;
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("InterferenceRun::occlusion_queries"),
            ty: wgpu::QueryType::Occlusion,
            count: query_count,
        });
        let query_bytes = 8 * query_count as u64;
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("InterferenceRun::query_resolve"),
            size: query_bytes,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let query_staging = staging(device, "InterferenceRun::query_staging", query_bytes);

        let row = |bytes_per_pixel: u32| {
            (view.width * bytes_per_pixel).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
                * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT
        };
        let images = options.read_pixels.then(|| {
            let h = view.height as u64;
            (
                staging(
                    device,
                    "InterferenceRun::stencil_staging",
                    row(1) as u64 * h,
                ),
                staging(device, "InterferenceRun::depth_staging", row(4) as u64 * h),
                staging(device, "InterferenceRun::ids_staging", row(8) as u64 * h),
            )
        });

        let mut run = GpuRun::new(gpu, "InterferenceRun::encoder")?;
        let depth_attachment = |depth: wgpu::LoadOp<f32>, stencil: wgpu::LoadOp<u32>| {
            Some(wgpu::RenderPassDepthStencilAttachment {
                view: &depth_view,
                depth_ops: Some(wgpu::Operations {
                    load: depth,
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: Some(wgpu::Operations {
                    load: stencil,
                    store: wgpu::StoreOp::Store,
                }),
            })
        };
        run.encoder_work("interference pass 1 (edges)", |encoder| {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("InterferenceRun::edge_pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &ids_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: depth_attachment(
                    wgpu::LoadOp::Clear(1.0),
                    wgpu::LoadOp::Clear(STENCIL_ZERO),
                ),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &bind_group, &[]);
            pass.set_pipeline(&self.edge_pipeline);
            pass.set_vertex_buffer(0, scene.edges.slice(..));
            let total = scene.edge_ranges.last().map_or(0, |r| r.end);
            pass.draw(0..total, 0..1);
        });
        run.encoder_work("interference passes 2-4 (count, identify)", |encoder| {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("InterferenceRun::count_pass"),
                color_attachments: &[],
                depth_stencil_attachment: depth_attachment(wgpu::LoadOp::Load, wgpu::LoadOp::Load),
                timestamp_writes: None,
                occlusion_query_set: Some(&queries),
                multiview_mask: None,
            });
            pass.set_bind_group(0, &bind_group, &[]);
            pass.set_vertex_buffer(0, scene.positions.slice(..));
            pass.set_index_buffer(scene.indices.slice(..), wgpu::IndexFormat::Uint32);
            match options.passes {
                StencilPasses::TwoSided => {
                    pass.set_pipeline(&self.face_two_sided);
                    let total = scene.face_ranges.last().map_or(0, |r| r.end);
                    pass.draw_indexed(0..total, 0, 0..1);
                }
                StencilPasses::Separate => {
                    for range in &scene.face_ranges {
                        pass.set_pipeline(&self.face_front_increment);
                        pass.draw_indexed(range.clone(), 0, 0..1);
                        pass.set_pipeline(&self.face_back_decrement);
                        pass.draw_indexed(range.clone(), 0, 0..1);
                    }
                }
            }
            pass.set_pipeline(&self.identify_pipeline);
            pass.set_stencil_reference(STENCIL_ZERO);
            pass.set_vertex_buffer(0, scene.edges.slice(..));
            for (k, range) in scene.edge_ranges.iter().enumerate() {
                pass.begin_occlusion_query(k as u32);
                pass.draw(range.clone(), 0..1);
                pass.end_occlusion_query();
            }
        });
        if let Some((stencil_buf, depth_buf, ids_buf)) = &images {
            run.encoder_work("interference read-back copies", |encoder| {
                let mut copy =
                    |texture: &wgpu::Texture, aspect, buffer: &wgpu::Buffer, bpp: u32| {
                        encoder.copy_texture_to_buffer(
                            wgpu::TexelCopyTextureInfo {
                                texture,
                                mip_level: 0,
                                origin: wgpu::Origin3d::ZERO,
                                aspect,
                            },
                            wgpu::TexelCopyBufferInfo {
                                buffer,
                                layout: wgpu::TexelCopyBufferLayout {
                                    offset: 0,
                                    bytes_per_row: Some(row(bpp)),
                                    rows_per_image: Some(view.height),
                                },
                            },
                            size,
                        );
                    };
                copy(&depth_tex, wgpu::TextureAspect::StencilOnly, stencil_buf, 1);
                copy(&depth_tex, wgpu::TextureAspect::DepthOnly, depth_buf, 4);
                copy(&ids_tex, wgpu::TextureAspect::All, ids_buf, 8);
            });
        }
        if !candidates.is_empty() {
            run.encoder_work("interference pair queries", |encoder| {
                let mut query = n as u32;
                for (j, is) in &candidates {
                    // A fresh count of j's faces alone, against the same
                    // edge depths (the role of Alg. 4's passes 5–7).
                    let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                        label: Some("InterferenceRun::pair_pass"),
                        color_attachments: &[],
                        depth_stencil_attachment: depth_attachment(
                            wgpu::LoadOp::Load,
                            wgpu::LoadOp::Clear(STENCIL_ZERO),
                        ),
                        timestamp_writes: None,
                        occlusion_query_set: Some(&queries),
                        multiview_mask: None,
                    });
                    pass.set_bind_group(0, &bind_group, &[]);
                    pass.set_pipeline(&self.face_two_sided);
                    pass.set_vertex_buffer(0, scene.positions.slice(..));
                    pass.set_index_buffer(scene.indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed(scene.face_ranges[*j].clone(), 0, 0..1);
                    pass.set_pipeline(&self.identify_pipeline);
                    pass.set_stencil_reference(STENCIL_ZERO);
                    pass.set_vertex_buffer(0, scene.edges.slice(..));
                    for &i in is {
                        pass.begin_occlusion_query(query);
                        pass.draw(scene.edge_ranges[i].clone(), 0..1);
                        pass.end_occlusion_query();
                        query += 1;
                    }
                }
            });
        }
        run.encoder_work("interference query resolve", |encoder| {
            encoder.resolve_query_set(&queries, 0..query_count, &resolve, 0);
            encoder.copy_buffer_to_buffer(&resolve, 0, &query_staging, 0, query_bytes);
        });
        let (phases, _) = run.finish()?;

        let results: Vec<u64> = bytemuck::cast_slice(&map_bytes(gpu, &query_staging)?).to_vec();
        let object_pixels = results[..n].to_vec();
        let mut pairs = Vec::with_capacity(pair_count);
        let mut q = n;
        for (j, is) in &candidates {
            for &i in is {
                pairs.push(PairQuery {
                    penetrating: i,
                    penetrated: *j,
                    pixels: results[q],
                });
                q += 1;
            }
        }
        let image = match &images {
            None => None,
            Some((stencil_buf, depth_buf, ids_buf)) => {
                let (w, h) = (view.width as usize, view.height as usize);
                let unpad = |bytes: Vec<u8>, bpp: usize| -> Vec<u8> {
                    let padded = row(bpp as u32) as usize;
                    let mut out = Vec::with_capacity(w * h * bpp);
                    for r in bytes.chunks_exact(padded).take(h) {
                        out.extend_from_slice(&r[..w * bpp]);
                    }
                    out
                };
                let stencil = unpad(map_bytes(gpu, stencil_buf)?, 1);
                let depth = unpad(map_bytes(gpu, depth_buf)?, 4);
                let ids = unpad(map_bytes(gpu, ids_buf)?, 8);
                Some(CountImage {
                    view: *view,
                    counts: stencil
                        .iter()
                        .map(|&s| s as i32 - STENCIL_ZERO as i32)
                        .collect(),
                    edge_depth: bytemuck::pod_collect_to_vec(&depth),
                    ids: bytemuck::pod_collect_to_vec(&ids),
                })
            }
        };
        // Wall time covers recording, the GPU work and the read-back.
        let wall_ms = started.elapsed().as_secs_f64() * 1e3;
        Ok(InterferenceRun {
            view: *view,
            image,
            queries: PairQueries {
                object_pixels,
                pairs,
            },
            phases,
            wall_ms,
        })
    }
}

fn staging(device: &wgpu::Device, label: &str, bytes: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Maps a staging buffer whose copy has already been submitted and waits.
fn map_bytes(gpu: &GpuContext, buffer: &wgpu::Buffer) -> Result<Vec<u8>, GpuError> {
    crate::gpu::map_staging(gpu, buffer, "interference staging buffer")
}
