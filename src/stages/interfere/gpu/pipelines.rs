//! The render pipelines of the passes (edges, stencil counting with and
//! without the weighted sums, identification, pair passes) and the
//! culling and decoding compute pipelines: created once per device.

use eframe::egui_wgpu::wgpu;

use super::targets::{DEPTH_STENCIL_FORMAT, IDS_FORMAT, PENETRATED_FORMAT};
use super::upload::EdgeVertex;
use super::{InterferenceGpu, Uniforms, Weighted};
use crate::gpu::{GpuContext, Kernels, shader_source};
use crate::stages::interfere::InterferenceError;
use crate::stages::interfere::identify::{Decoder, SUMS_FORMAT};

/// The colour target of a face pipeline.
#[derive(Clone, Copy)]
pub(super) enum FaceTarget {
    /// None: the stencil counts only.
    None,
    /// The penetrated image, writes masked (the pair passes).
    Penetrated,
    /// The weighted sums, blended.
    Sums,
}

pub(super) fn depth_stencil(
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

pub(super) fn stencil_op(op: wgpu::StencilOperation) -> wgpu::StencilFaceState {
    wgpu::StencilFaceState {
        compare: wgpu::CompareFunction::Always,
        fail_op: wgpu::StencilOperation::Keep,
        depth_fail_op: wgpu::StencilOperation::Keep,
        pass_op: op,
    }
}

pub(super) fn stencil_counting(
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
        let module = gpu.shader(shader_source("interfere.wgsl"));
        let (bind_group_layout, layout) = crate::gpu::uniform_layouts(
            device,
            "InterferenceGpu",
            wgpu::ShaderStages::VERTEX,
            std::mem::size_of::<Uniforms>() as u64,
        );
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
        let object_attributes = wgpu::vertex_attr_array![1 => Uint32];
        let object_layout = wgpu::VertexBufferLayout {
            array_stride: 4,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &object_attributes,
        };
        let target = |format, write_mask| {
            [Some(wgpu::ColorTargetState {
                format,
                blend: None,
                write_mask,
            })]
        };
        let ids_target = target(IDS_FORMAT, wgpu::ColorWrites::ALL);
        let penetrated_target = target(PENETRATED_FORMAT, wgpu::ColorWrites::ALL);
        let penetrated_masked = target(PENETRATED_FORMAT, wgpu::ColorWrites::empty());
        let fragment = |entry, targets| {
            Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                targets,
            })
        };
        let pipeline = |label: &str,
                        vs: &str,
                        buffers: &[Option<wgpu::VertexBufferLayout<'_>>],
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
                    buffers,
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
            &[Some(edge_layout.clone())],
            wgpu::PrimitiveTopology::LineList,
            None,
            depth_stencil(Cmp::Less, true, wgpu::StencilState::default()),
            fragment("fs_edge", &ids_target),
        );
        // Faces in front of the edge depths count: front +1, back -1 (or,
        // `uncount`, the reverse, which undoes a count exactly), into the
        // colour target `colour`.
        let blend_add = wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::One,
            operation: wgpu::BlendOperation::Add,
        };
        let sums_target = [Some(wgpu::ColorTargetState {
            format: SUMS_FORMAT,
            blend: Some(wgpu::BlendState {
                color: blend_add,
                alpha: blend_add,
            }),
            write_mask: wgpu::ColorWrites::ALL,
        })];
        let face = |label: &str, cull: Option<wgpu::Face>, uncount: bool, colour: FaceTarget| {
            let (front, back) = if uncount {
                (Op::DecrementWrap, Op::IncrementWrap)
            } else {
                (Op::IncrementWrap, Op::DecrementWrap)
            };
            let positions = [Some(face_layout.clone())];
            let with_objects = [Some(face_layout.clone()), Some(object_layout.clone())];
            let (vs, buffers, fragment) = match colour {
                FaceTarget::None => ("vs_face", &positions[..], None),
                FaceTarget::Penetrated => (
                    "vs_face",
                    &positions[..],
                    fragment("fs_face", &penetrated_masked),
                ),
                FaceTarget::Sums => (
                    "vs_face_weighted",
                    &with_objects[..],
                    fragment("fs_face_weighted", &sums_target),
                ),
            };
            pipeline(
                label,
                vs,
                buffers,
                wgpu::PrimitiveTopology::TriangleList,
                cull,
                depth_stencil(Cmp::Less, false, stencil_counting(front, back)),
                fragment,
            )
        };
        // Two-sided, front faces incrementing, back faces decrementing.
        let counting = |colour| {
            [None, Some(wgpu::Face::Back), Some(wgpu::Face::Front)]
                .map(|cull| face("InterferenceGpu::face", cull, false, colour))
        };
        let [face_two_sided, face_front_increment, face_back_decrement] =
            counting(FaceTarget::None);
        let weighted = gpu
            .device
            .features()
            .contains(wgpu::Features::FLOAT32_BLENDABLE)
            .then(|| {
                let [two_sided, front_increment, back_decrement] = counting(FaceTarget::Sums);
                Weighted {
                    two_sided,
                    front_increment,
                    back_decrement,
                    decoder: Decoder::new(gpu),
                }
            });
        let [pair_face_pipeline, pair_unface_pipeline] = [false, true].map(|uncount| {
            face(
                if uncount {
                    "InterferenceGpu::pair_unface_pipeline"
                } else {
                    "InterferenceGpu::pair_face_pipeline"
                },
                None,
                uncount,
                FaceTarget::Penetrated,
            )
        });
        // Pass 4 and the pair passes: edge pixels that are the nearest edge
        // (depth "equal") and inside something (128 < stencil) write their
        // ids (Alg. 3) or the penetrated object's (Alg. 4).
        let inside = wgpu::StencilFaceState {
            compare: Cmp::Less,
            fail_op: Op::Keep,
            depth_fail_op: Op::Keep,
            pass_op: Op::Keep,
        };
        let identify = |label: &str, fragment| {
            pipeline(
                label,
                "vs_edge",
                &[Some(edge_layout.clone())],
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
                fragment,
            )
        };
        let identify_pipeline = identify(
            "InterferenceGpu::identify_pipeline",
            fragment("fs_edge", &ids_target),
        );
        let pair_identify_pipeline = identify(
            "InterferenceGpu::pair_identify_pipeline",
            fragment("fs_penetrated", &penetrated_target),
        );
        let cull_kernels = Kernels::new(
            gpu,
            "InterferenceCull",
            shader_source("interfere_cull.wgsl"),
        );

        Ok(InterferenceGpu {
            bind_group_layout,
            edge_pipeline,
            face_two_sided,
            face_front_increment,
            face_back_decrement,
            identify_pipeline,
            pair_face_pipeline,
            pair_unface_pipeline,
            pair_identify_pipeline,
            cull_pipeline: cull_kernels.pipeline(gpu, "cull"),
            weighted,
            cull_kernels,
            targets: Default::default(),
            context: gpu.clone(),
            compute: std::sync::OnceLock::new(),
        })
    }
}
