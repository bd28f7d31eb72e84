//! The renderer's pipelines, made once per device: one shader
//! (`view.wgsl`), the three vertex layouts it reads (flat-shaded mesh
//! vertices, line vertices, one `[x y z value]` instance per cell) and how
//! each pipeline treats depth, faces and blending ([`Look`]): opaque
//! geometry writes depth; the translucent mesh blends "over" without
//! writing it, back faces and front faces in two pipelines; hidden lines
//! draw only where something is in front of them ("greater" depth test),
//! dimmed by the blend constant.

use eframe::egui_wgpu::wgpu;

use crate::view::target::{COLOR_FORMAT, DEPTH_FORMAT};
use crate::view::vertices::{LineVertex, MeshVertex, ViewUniforms};

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

/// Every pipeline the renderer draws with, and the uniforms' bind group
/// layout.
pub(super) struct Pipelines {
    pub bind_group_layout: wgpu::BindGroupLayout,
    pub mesh: wgpu::RenderPipeline,
    /// The translucent mesh: back faces, then front faces.
    pub mesh_back: wgpu::RenderPipeline,
    pub mesh_front: wgpu::RenderPipeline,
    pub wire: wgpu::RenderPipeline,
    pub points: wgpu::RenderPipeline,
    pub lines: wgpu::RenderPipeline,
    pub hidden_lines: wgpu::RenderPipeline,
    pub translucent: wgpu::RenderPipeline,
}

impl Pipelines {
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

        Pipelines {
            bind_group_layout,
            mesh: mesh_pipeline,
            mesh_back: mesh_back_pipeline,
            mesh_front: mesh_front_pipeline,
            wire: wire_pipeline,
            points: points_pipeline,
            lines: lines_pipeline,
            hidden_lines: hidden_lines_pipeline,
            translucent: translucent_pipeline,
        }
    }
}
