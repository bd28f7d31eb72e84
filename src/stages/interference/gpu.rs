//! The rendering passes of the stage on wgpu: the culling compute pass,
//! edge depths, stencil counting (with the weighted sums of
//! [`super::identify`]), occlusion-query identification, the sums'
//! decoding, the pair passes, read-back.

use std::ops::Range;

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::cull::{CullPlan, ObjectRegion, PixelRect};
use super::identify::{
    Decoder, Identification, IdentificationReport, OPEN_BIT, SUMS_FORMAT, unavailable,
};
use super::{InterferenceError, InterferenceScene, OrthoView, STENCIL_ZERO, StencilPasses};
use crate::geom::Aabb;
use crate::gpu::{Access, GpuContext, GpuError, GpuPhase, GpuRun, Kernels, shader_source};

const DEPTH_STENCIL_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32FloatStencil8;
const IDS_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rg32Uint;
const PENETRATED_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Uint;

/// `Uniforms` of shaders/interference.wgsl and interference_cull.wgsl (the
/// layout is checked by tests/shader_layouts.rs, like every mirrored type
/// here).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Uniforms {
    pub clip_from_world: [[f32; 4]; 4],
    /// x: edge offset (world units), y, z: viewport width and height.
    pub params: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<Uniforms>() == 80);

/// One job of the culling compute pass: `CullJob` of
/// shaders/interference_cull.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CullJob {
    /// Its draw arguments are at [`args_offset`]`(slot, _)`.
    pub slot: u32,
    pub first_triangle: u32,
    pub triangles: u32,
    pub first_edge: u32,
    pub edges: u32,
    /// Where its face and edge lists start (u32 index).
    pub faces_out: u32,
    pub edges_out: u32,
    pub pad: u32,
    /// The triangles' pixel rectangle: x0, y0, x1, y1.
    pub scissor: [f32; 4],
    /// The edges' region (screen x, y, depth), w unused.
    pub region_min: [f32; 4],
    pub region_max: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<CullJob>() == 80);

impl CullJob {
    /// Job `slot`: the triangles of index range `faces` meeting `scissor`
    /// and the edges of edge-vertex range `edges` meeting `region`, written
    /// from `out` (faces, edges).
    fn new(
        slot: usize,
        (faces, scissor): (&Range<u32>, PixelRect),
        (edges, region): (&Range<u32>, Option<&ObjectRegion>),
        out: [u32; 2],
    ) -> CullJob {
        let PixelRect { x0, y0, x1, y1 } = scissor;
        let point = |p: glam::DVec3| p.as_vec3().extend(0.0).to_array();
        CullJob {
            slot: slot as u32,
            first_triangle: faces.start / 3,
            triangles: faces.len() as u32 / 3,
            first_edge: edges.start / 2,
            edges: edges.len() as u32 / 2,
            faces_out: out[0],
            edges_out: out[1],
            pad: 0,
            scissor: [x0, y0, x1, y1].map(|v| v as f32),
            region_min: region.map_or([0.0; 4], |r| point(r.edge_min)),
            region_max: region.map_or([0.0; 4], |r| point(r.edge_max)),
        }
    }
}

/// Workgroup size of `cull` in shaders/interference_cull.wgsl.
pub const CULL_GROUP: u32 = 256;
/// u32s of draw arguments per job slot (per object in the main passes):
/// `DrawIndexedIndirect` of its faces, then of its edges.
const ARGS_PER_OBJECT: usize = 10;
/// Byte offset of slot `k`'s face (`edges` false) or edge arguments.
fn args_offset(k: usize, edges: bool) -> u64 {
    4 * (ARGS_PER_OBJECT * k + if edges { 5 } else { 0 }) as u64
}

/// The initial draw arguments of `slots` slots for `jobs`: zero counts,
/// one instance, each list's first index.
fn job_args(jobs: &[CullJob], slots: usize) -> Vec<u32> {
    let mut args = vec![0u32; ARGS_PER_OBJECT * slots];
    for job in jobs {
        let a = &mut args[ARGS_PER_OBJECT * job.slot as usize..];
        a[1] = 1;
        a[2] = job.faces_out;
        a[6] = 1;
        a[7] = job.edges_out;
    }
    args
}

/// One end of an edge: the vertex inputs of `vs_edge` in
/// shaders/interference.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct EdgeVertex {
    pub pos: [f32; 3],
    pub normal: [f32; 3],
    /// (object index, global edge index).
    pub ids: [u32; 2],
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
    pair_face_pipeline: wgpu::RenderPipeline,
    pair_unface_pipeline: wgpu::RenderPipeline,
    pair_identify_pipeline: wgpu::RenderPipeline,
    cull_kernels: Kernels,
    cull_pipeline: wgpu::ComputePipeline,
    /// The weighted counting pass and its decoding ([`super::identify`]);
    /// `None` where the adapter cannot blend Rgba32Float.
    weighted: Option<Weighted>,
    /// The render targets of the last viewport size, reused by the next
    /// run of that size; the lock also keeps runs from sharing them.
    targets: std::sync::Mutex<Option<Targets>>,
}

/// The counting pipelines that also sum the weights (two-sided, front
/// faces incrementing, back faces decrementing), and the decoder.
struct Weighted {
    two_sided: wgpu::RenderPipeline,
    front_increment: wgpu::RenderPipeline,
    back_decrement: wgpu::RenderPipeline,
    decoder: Decoder,
}

/// The colour target of a face pipeline.
#[derive(Clone, Copy)]
enum FaceTarget {
    /// None: the stencil counts only.
    None,
    /// The penetrated image, writes masked (the pair passes).
    Penetrated,
    /// The weighted sums, blended.
    Sums,
}

/// A scene's geometry resident on the GPU, with room for the culled lists
/// of one view (rewritten by every run: runs on one scene must not
/// overlap, which the stage's lock on its targets ensures).
pub struct UploadedScene {
    positions: wgpu::Buffer,
    indices: wgpu::Buffer,
    /// Per vertex: its object, with [`OPEN_BIT`] for an open mesh (the
    /// weighted counting pass).
    face_objects: wgpu::Buffer,
    edges: wgpu::Buffer,
    /// The culled triangles' indices, object k's at `face_ranges[k].start`.
    culled_faces: wgpu::Buffer,
    /// The culled edges' vertex indices, object k's at
    /// `edge_ranges[k].start`.
    culled_edges: wgpu::Buffer,
    /// [`ARGS_PER_OBJECT`] per object, written by the culling pass.
    draw_args: wgpu::Buffer,

    /// Per object: its range of `indices`.
    face_ranges: Vec<Range<u32>>,
    /// Per object: its range of edge vertices (2 per edge).
    edge_ranges: Vec<Range<u32>>,
    pub bounds: Vec<Aabb>,
}

impl UploadedScene {
    pub fn object_count(&self) -> usize {
        self.face_ranges.len()
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
    /// Bounding-box culling ([`super::cull`]).
    pub cull: bool,
    /// How the pairs are identified (with `pairs`).
    pub identification: Identification,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            passes: StencilPasses::TwoSided,
            read_pixels: true,
            pairs: true,
            cull: true,
            identification: Identification::WeightedSums,
        }
    }
}

/// How much of something one run drew, against drawing everything.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Drawn {
    pub drawn: u64,
    /// What the same passes draw without culling.
    pub total: u64,
}

/// What the passes of one run sent to the rasteriser.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DrawCounts {
    /// Objects drawn at all (their box meets another's).
    pub objects: Drawn,
    /// Edges of pass 1, and again of pass 4.
    pub edges: Drawn,
    /// Triangles of passes 2–3 (twice each with [`StencilPasses::Separate`]).
    pub triangles: Drawn,
    /// Triangles of the pair passes (each candidate's, counted and
    /// uncounted; with culling once in `U_j` or once per pair in `R_ij`).
    pub pair_triangles: Drawn,
    /// Edges of the pair passes (each penetrating object's, per candidate;
    /// with culling those meeting the pair's region).
    pub pair_edges: Drawn,
}

/// The images of one view, read back.
#[derive(Clone, Debug)]
pub struct CountImage {
    pub view: OrthoView,
    /// Signed count per pixel (stencil − 128), row-major from the top-left.
    pub counts: Vec<i32>,
    /// Depth of the nearest (offset) edge point; 1.0 where no edge.
    pub edge_depth: Vec<f32>,
    /// (object + 1, global edge + 1) of the nearest edge; 0 = none
    /// (pass 1, Alg. 2).
    pub ids: Vec<[u32; 2]>,
    /// The same ids only where that edge point is inside something
    /// (count > 0), written by pass 4 (Alg. 3); 0 elsewhere.
    pub inside_ids: Vec<[u32; 2]>,
    /// Penetrated object + 1 of that edge point (the weighted sums, or
    /// Alg. 4's pair passes: inside several objects, the last one tested,
    /// the largest); 0 = in no other object, ambiguous to the sums and
    /// without pair passes, or no identification ran.
    pub penetrated: Vec<u32>,
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
    /// Every pair tested by the pair passes (a penetrating object against
    /// each object whose bounding box overlaps it), with its answer, and
    /// every pair the weighted sums found, with its pixels.
    pub pairs: Vec<PairQuery>,
    /// Every object query was zero, so the pair passes were skipped (early
    /// non-interference, §4.5.2).
    pub early_exit: bool,
}

/// Everything one run of one view returns.
#[derive(Clone, Debug)]
pub struct InterferenceRun {
    pub view: OrthoView,
    /// The culling the passes used; `None`: everything was drawn.
    pub cull: Option<CullPlan>,
    pub drawn: DrawCounts,
    pub image: Option<CountImage>,
    pub queries: PairQueries,
    pub identification: IdentificationReport,
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
        let read = Access::ReadOnly;
        let write = Access::ReadWrite;
        let cull_kernels = Kernels::new(
            gpu,
            "InterferenceCull",
            shader_source("interference_cull.wgsl"),
            &[read, read, read, read, write, write, write],
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
        })
    }

    /// Uploads the objects of `scene` (world coordinates, already posed).
    pub fn upload(&self, gpu: &GpuContext, scene: &InterferenceScene) -> UploadedScene {
        let mut positions: Vec<[f32; 3]> = Vec::new();
        let mut indices: Vec<u32> = Vec::new();
        let mut face_objects: Vec<u32> = Vec::new();
        let mut edges: Vec<EdgeVertex> = Vec::new();
        let mut face_ranges = Vec::new();
        let mut edge_ranges = Vec::new();
        let mut edge_count = 0u32;
        for (k, o) in scene.objects.iter().enumerate() {
            let base = positions.len() as u32;
            positions.extend(o.mesh.positions.iter().map(|p| p.to_array()));
            let object = k as u32 | if o.closed { 0 } else { OPEN_BIT };
            face_objects.resize(positions.len(), object);
            let first = indices.len() as u32;
            indices.extend(o.mesh.triangles.iter().flatten().map(|&i| i + base));
            face_ranges.push(first..indices.len() as u32);
            let first_edge = edges.len() as u32;
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
        // Read by the culling pass as storage too.
        let geometry = |usage| usage | wgpu::BufferUsages::STORAGE;
        let list = |label, entries, usage| list_buffer(&gpu.device, label, entries, usage);
        UploadedScene {
            positions: buffer(
                "UploadedScene::positions",
                bytemuck::cast_slice(&positions),
                geometry(wgpu::BufferUsages::VERTEX),
            ),
            indices: buffer(
                "UploadedScene::indices",
                bytemuck::cast_slice(&indices),
                geometry(wgpu::BufferUsages::INDEX),
            ),
            face_objects: buffer(
                "UploadedScene::face_objects",
                bytemuck::cast_slice(&face_objects),
                wgpu::BufferUsages::VERTEX,
            ),
            edges: buffer(
                "UploadedScene::edges",
                bytemuck::cast_slice(&edges),
                geometry(wgpu::BufferUsages::VERTEX),
            ),
            culled_faces: list(
                "UploadedScene::culled_faces",
                indices.len(),
                wgpu::BufferUsages::INDEX,
            ),
            culled_edges: list(
                "UploadedScene::culled_edges",
                edges.len(),
                wgpu::BufferUsages::INDEX,
            ),
            draw_args: list(
                "UploadedScene::draw_args",
                ARGS_PER_OBJECT * face_ranges.len(),
                wgpu::BufferUsages::INDIRECT
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
            ),
            face_ranges,
            edge_ranges,
            bounds: scene.objects.iter().map(|o| o.bounds()).collect(),
        }
    }

    /// Runs the passes for one view: with `options.cull`, the culling
    /// compute pass ([`super::cull`]); edges (pass 1), stencil counting
    /// (passes 2–3), per-object occlusion queries and the penetrating-ids
    /// image (pass 4, Alg. 3 and 5). Then, when `options.pairs`: with
    /// [`Identification::WeightedSums`] (where available, see
    /// [`super::identify`]), the decoding of the counting pass's sums, and
    /// the pair passes (Alg. 4) for the objects it left ambiguous; with
    /// [`Identification::PairPasses`], the pair passes for every object
    /// whose query is non-zero. When every
    /// object query is zero the run stops there (early non-interference,
    /// §4.5.2). Read-back of the images when `options.read_pixels`.
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
        let mut cached = self
            .targets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let targets: &Targets = match &mut *cached {
            Some(t) if (t.size.width, t.size.height) == (view.width, view.height) => t,
            slot => slot.insert(Targets::new(device, view.width, view.height)),
        };
        let uniforms = Uniforms {
            clip_from_world: view.clip_from_world().to_cols_array_2d(),
            params: [edge_offset, view.width as f32, view.height as f32, 0.0],
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
        // The broad phase also picks the pair candidates without culling.
        let plan = CullPlan::new(&scene.bounds, view, edge_offset);
        let draws = Draws {
            scene,
            plan: options.cull.then_some(&plan),
        };
        // The weighted sums, where asked for and possible.
        let weighted_asked =
            options.pairs && options.identification == Identification::WeightedSums;
        let fallback = weighted_asked.then(|| unavailable(gpu, n)).flatten();
        let used = match weighted_asked && fallback.is_none() {
            true => Identification::WeightedSums,
            false => Identification::PairPasses,
        };
        // When culling draws nothing there is nothing to sum or decode: the
        // queries all read zero and the run ends in early non-interference.
        let nothing_drawn = options.cull && plan.active().next().is_none();
        let weighted = self
            .weighted
            .as_ref()
            .filter(|_| used == Identification::WeightedSums && !nothing_drawn);
        let object_queries = Queries::new(device, n);
        let images = options.read_pixels.then(|| {
            [
                Readback::new(device, targets, TargetImage::Stencil),
                Readback::new(device, targets, TargetImage::Depth),
                Readback::new(device, targets, TargetImage::Ids),
                Readback::new(device, targets, TargetImage::Inside),
            ]
        });
        let args_readback = options.cull.then(|| {
            staging(
                device,
                "InterferenceRun::args_staging",
                scene.draw_args.size(),
            )
        });

        let mut run = GpuRun::new(gpu, "InterferenceRun::encoder")?;
        if options.cull {
            self.record_cull(gpu, &mut run, scene, &plan, &uniform_buffer)?;
        }
        run.encoder_work("interference pass 1 (edges)", |encoder| {
            let mut pass = targets.pass(
                encoder,
                TargetImage::Ids,
                wgpu::LoadOp::Clear(1.0),
                wgpu::LoadOp::Clear(STENCIL_ZERO),
                None,
            );
            pass.set_bind_group(0, &bind_group, &[]);
            pass.set_pipeline(&self.edge_pipeline);
            draws.bind_edges(&mut pass);
            draws.all_edges(&mut pass);
        });
        run.encoder_work("interference passes 2-3 (count)", |encoder| {
            // With the weighted sums, their target; without, none.
            let sums = weighted.map(|_| wgpu::RenderPassColorAttachment {
                view: &targets.sums_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                    store: wgpu::StoreOp::Store,
                },
            });
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("InterferenceRun::count_pass"),
                color_attachments: sums.map(Some).as_slice(),
                depth_stencil_attachment: targets
                    .depth_attachment(wgpu::LoadOp::Load, wgpu::LoadOp::Load),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &bind_group, &[]);
            draws.bind_faces(&mut pass);
            let [two_sided, front_increment, back_decrement] = match weighted {
                Some(w) => [&w.two_sided, &w.front_increment, &w.back_decrement],
                None => [
                    &self.face_two_sided,
                    &self.face_front_increment,
                    &self.face_back_decrement,
                ],
            };
            match options.passes {
                StencilPasses::TwoSided => {
                    pass.set_pipeline(two_sided);
                    draws.all_faces(&mut pass);
                }
                StencilPasses::Separate => {
                    for k in draws.objects() {
                        pass.set_pipeline(front_increment);
                        draws.faces(&mut pass, k);
                        pass.set_pipeline(back_decrement);
                        draws.faces(&mut pass, k);
                    }
                }
            }
        });
        run.encoder_work("interference pass 4 (identify)", |encoder| {
            let mut pass = targets.pass(
                encoder,
                TargetImage::Inside,
                wgpu::LoadOp::Load,
                wgpu::LoadOp::Load,
                Some(&object_queries.set),
            );
            pass.set_bind_group(0, &bind_group, &[]);
            pass.set_pipeline(&self.identify_pipeline);
            pass.set_stencil_reference(STENCIL_ZERO);
            draws.bind_edges(&mut pass);
            // Every object gets its query; one not drawn answers 0.
            for k in 0..n {
                pass.begin_occlusion_query(k as u32);
                draws.edges(&mut pass, k);
                pass.end_occlusion_query();
            }
        });
        let penetrated_image = options
            .read_pixels
            .then(|| Readback::new(device, targets, TargetImage::Penetrated));
        let decoding = weighted.map(|w| {
            let views = [
                &targets.sums_view,
                &targets.ids_view,
                &targets.penetrated_view,
            ];
            w.decoder.record(gpu, &mut run, n, targets.size, views)
        });
        run.encoder_work("interference read-back copies", |encoder| {
            object_queries.resolve(encoder);
            if let Some(image) = penetrated_image.as_ref().filter(|_| decoding.is_some()) {
                image.copy(encoder, targets);
            }
            for image in images.iter().flatten() {
                image.copy(encoder, targets);
            }
            if let Some(staging) = &args_readback {
                encoder.copy_buffer_to_buffer(&scene.draw_args, 0, staging, 0, staging.size());
            }
        });
        let (mut phases, _) = run.finish()?;
        let object_pixels = object_queries.read(gpu)?;
        let args: Option<Vec<u32>> = match &args_readback {
            Some(staging) => Some(bytemuck::pod_collect_to_vec(&map_bytes(gpu, staging)?)),
            None => None,
        };
        let lists = draws.lists(args.as_deref());
        let (decoded, ambiguous) = match &decoding {
            Some(d) => d.read(gpu)?,
            None => Default::default(),
        };

        // Alg. 5 with bounding boxes: only objects whose edges are inside
        // something (pass 4) are tested, against the objects whose boxes
        // meet theirs on the screen — with the weighted sums, only those
        // with pixels the sums could not decode.
        let early_exit = object_pixels.iter().all(|&px| px == 0);
        let penetrating: Vec<usize> = (0..n)
            .filter(|&i| object_pixels[i] > 0 && (decoding.is_none() || ambiguous[i] > 0))
            .collect();
        let candidates: Vec<Candidate> = if options.pairs {
            (0..n)
                .filter_map(|j| {
                    let pairs: Vec<(usize, ObjectRegion)> = penetrating
                        .iter()
                        .filter_map(|&i| Some((i, plan.pair_region(i, j)?)))
                        .collect();
                    (!pairs.is_empty()).then_some(Candidate { j, pairs })
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut plan_drawn = PairPlan::default();
        // The sums' pairs of the objects the pair passes do not test.
        let mut pairs: Vec<PairQuery> = decoded
            .into_iter()
            .filter(|p| !penetrating.contains(&p.penetrating))
            .collect();
        if !candidates.is_empty() {
            let plan = self.plan_pairs(
                gpu,
                scene,
                &candidates,
                options.cull,
                &uniform_buffer,
                &mut phases,
            )?;
            let queried = plan.pairs().filter(|(_, p)| !p.edges.is_empty()).count();
            let pair_queries = Queries::new(device, queried);
            let mut run = GpuRun::new(gpu, "InterferenceRun::pair_encoder")?;
            run.encoder_work("interference pair passes (Alg. 4)", |encoder| {
                // One render pass for every candidate j: a count of j's
                // faces alone against the same edge depths, j's id where
                // i's edges are then inside, and the count undone (the same
                // faces, the stencil operations reversed) instead of a
                // clear of the whole stencil and a new pass per object.
                // Nothing empty is drawn, a pair without edges has no query,
                // and every state is set before a query begins: llvmpipe
                // applies state lazily and miscounts queries otherwise.
                let mut pass = targets.pair_pass(encoder, &pair_queries.set, decoding.is_some());
                pass.set_bind_group(0, &bind_group, &[]);
                pass.set_stencil_reference(STENCIL_ZERO);
                let mut query = 0u32;
                for g in &plan.groups {
                    plan.faces(&mut pass, scene, g, &self.pair_face_pipeline);
                    for p in g.pairs.iter().filter(|p| !p.edges.is_empty()) {
                        pass.set_pipeline(&self.pair_identify_pipeline);
                        plan.bind_edges(&mut pass, scene, p);
                        pass.begin_occlusion_query(query);
                        plan.edges(&mut pass, p, g.j);
                        pass.end_occlusion_query();
                        query += 1;
                    }
                    plan.faces(&mut pass, scene, g, &self.pair_unface_pipeline);
                }
            });
            run.encoder_work("interference pair read-back", |encoder| {
                pair_queries.resolve(encoder);
                if let Some(image) = &penetrated_image {
                    image.copy(encoder, targets);
                }
            });
            phases.extend(run.finish()?.0);
            let mut results = pair_queries.read(gpu)?.into_iter();
            pairs.extend(plan.pairs().map(|(j, p)| PairQuery {
                penetrating: p.i,
                penetrated: j,
                pixels: match p.edges.is_empty() {
                    true => 0,
                    false => results.next().unwrap_or(0),
                },
            }));
            plan_drawn = plan;
        }
        let drawn = draw_counts(
            scene,
            &draws,
            &lists,
            options.passes,
            &candidates,
            &plan_drawn,
        );
        let image = match images {
            None => None,
            Some([stencil, depth, ids, inside]) => {
                let pixels = (view.width * view.height) as usize;
                let penetrated = match &penetrated_image {
                    Some(image) if decoding.is_some() || !candidates.is_empty() => {
                        bytemuck::pod_collect_to_vec(&image.read(gpu)?)
                    }
                    _ => vec![0u32; pixels],
                };
                Some(CountImage {
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
                })
            }
        };
        // Wall time covers recording, the GPU work and the read-back.
        let wall_ms = started.elapsed().as_secs_f64() * 1e3;
        Ok(InterferenceRun {
            view: *view,
            cull: options.cull.then_some(plan),
            drawn,
            image,
            queries: PairQueries {
                object_pixels,
                pairs,
                early_exit,
            },
            identification: IdentificationReport {
                used: options.pairs.then_some(used),
                fallback,
                ambiguous_pixels: ambiguous,
                pair_pass_objects: if options.pairs {
                    penetrating
                } else {
                    Vec::new()
                },
            },
            phases,
            wall_ms,
        })
    }

    /// Records the culling compute pass of `plan`: the compacted lists and
    /// draw arguments of every object it draws (the arguments of the
    /// others stay at zero counts, and they are never drawn).
    fn record_cull(
        &self,
        gpu: &GpuContext,
        run: &mut GpuRun<'_>,
        scene: &UploadedScene,
        plan: &CullPlan,
        uniforms: &wgpu::Buffer,
    ) -> Result<(), InterferenceError> {
        let jobs: Vec<CullJob> = plan
            .active()
            .map(|(k, r)| {
                let (faces, edges) = (&scene.face_ranges[k], &scene.edge_ranges[k]);
                CullJob::new(
                    k,
                    (faces, r.scissor),
                    (edges, Some(r)),
                    [faces.start, edges.start],
                )
            })
            .collect();
        let args = job_args(&jobs, scene.object_count());
        gpu.queue
            .write_buffer(&scene.draw_args, 0, bytemuck::cast_slice(&args));
        let lists = [&scene.culled_faces, &scene.culled_edges, &scene.draw_args];
        self.record_jobs(gpu, run, "interference cull", scene, &jobs, lists, uniforms)
    }

    /// What the pair passes draw for `candidates`: whole lists without
    /// `cull`; with it, the pair culling ([`super::cull`]) runs first —
    /// per candidate j a job per pair (i, j), i's edges meeting the pair's
    /// region, then j's own job, its triangles meeting `U_j` — and its
    /// counts are read back, so that nothing empty is drawn.
    fn plan_pairs(
        &self,
        gpu: &GpuContext,
        scene: &UploadedScene,
        candidates: &[Candidate],
        cull: bool,
        uniforms: &wgpu::Buffer,
        phases: &mut Vec<GpuPhase>,
    ) -> Result<PairPlan, InterferenceError> {
        if !cull {
            let groups = candidates
                .iter()
                .map(|c| GroupDraws {
                    j: c.j,
                    scissor: None,
                    faces: scene.face_ranges[c.j].clone(),
                    pairs: c
                        .pairs
                        .iter()
                        .map(|&(i, _)| PairDraws {
                            i,
                            scissor: None,
                            edges: scene.edge_ranges[i].clone(),
                        })
                        .collect(),
                })
                .collect();
            return Ok(PairPlan {
                groups,
                lists: None,
            });
        }
        let none = 0..0;
        let mut jobs = Vec::new();
        let mut out = [0u32; 2];
        let push = |job: CullJob, jobs: &mut Vec<CullJob>, out: &mut [u32; 2]| {
            out[0] += 3 * job.triangles;
            out[1] += 2 * job.edges;
            jobs.push(job);
        };
        for c in candidates {
            for (i, r) in &c.pairs {
                let edges = &scene.edge_ranges[*i];
                let job = CullJob::new(jobs.len(), (&none, r.scissor), (edges, Some(r)), out);
                push(job, &mut jobs, &mut out);
            }
            let faces = &scene.face_ranges[c.j];
            let job = CullJob::new(jobs.len(), (faces, c.group_scissor()), (&none, None), out);
            push(job, &mut jobs, &mut out);
        }
        let device = &gpu.device;
        let index_list = |what: &str, entries: u32| -> Result<wgpu::Buffer, InterferenceError> {
            gpu.check_storage_size(what, 4 * entries as u64)?;
            Ok(list_buffer(
                device,
                what,
                entries as usize,
                wgpu::BufferUsages::INDEX,
            ))
        };
        let faces = index_list("interference pair-pass triangles", out[0])?;
        let edges = index_list("interference pair-pass edges", out[1])?;
        let args = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("InterferenceRun::pair_args"),
            contents: bytemuck::cast_slice(&job_args(&jobs, jobs.len())),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        });
        let args_staging = staging(device, "InterferenceRun::pair_args_staging", args.size());
        let mut run = GpuRun::new(gpu, "InterferenceRun::pair_cull_encoder")?;
        let lists = [&faces, &edges, &args];
        self.record_jobs(
            gpu,
            &mut run,
            "interference pair cull",
            scene,
            &jobs,
            lists,
            uniforms,
        )?;
        run.encoder_work("interference pair cull read-back", |encoder| {
            encoder.copy_buffer_to_buffer(&args, 0, &args_staging, 0, args.size());
        });
        phases.extend(run.finish()?.0);
        let args: Vec<u32> = bytemuck::pod_collect_to_vec(&map_bytes(gpu, &args_staging)?);
        // Slot k's face and edge lists.
        let list = |k: usize| {
            let a = &args[ARGS_PER_OBJECT * k..];
            (a[2]..a[2] + a[0], a[7]..a[7] + a[5])
        };
        let mut slot = 0;
        let groups = candidates
            .iter()
            .map(|c| {
                let pairs: Vec<PairDraws> = c
                    .pairs
                    .iter()
                    .map(|&(i, r)| {
                        slot += 1;
                        PairDraws {
                            i,
                            scissor: Some(r.scissor),
                            edges: list(slot - 1).1,
                        }
                    })
                    .collect();
                slot += 1;
                // No edge of any i reaches its pair's region: nothing of j
                // is drawn, every answer is 0.
                let faces = match pairs.iter().all(|p| p.edges.is_empty()) {
                    true => 0..0,
                    false => list(slot - 1).0,
                };
                GroupDraws {
                    j: c.j,
                    scissor: Some(c.group_scissor()),
                    faces,
                    pairs,
                }
            })
            .collect();
        Ok(PairPlan {
            groups,
            lists: Some([faces, edges]),
        })
    }

    /// Records the culling compute pass over `jobs` into `lists` (faces,
    /// edges, draw arguments already holding [`job_args`]).
    #[allow(clippy::too_many_arguments)]
    fn record_jobs(
        &self,
        gpu: &GpuContext,
        run: &mut GpuRun<'_>,
        label: &str,
        scene: &UploadedScene,
        jobs: &[CullJob],
        [faces, edges, args]: [&wgpu::Buffer; 3],
        uniforms: &wgpu::Buffer,
    ) -> Result<(), InterferenceError> {
        for (what, buffer) in [
            ("interference edge vertices", &scene.edges),
            ("interference triangle indices", &scene.indices),
        ] {
            gpu.check_storage_size(what, buffer.size())?;
        }
        if jobs.is_empty() {
            return Ok(());
        }
        let most = jobs
            .iter()
            .map(|o| o.triangles.max(o.edges))
            .max()
            .unwrap_or(0);
        let jobs_buffer = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("InterferenceRun::cull_jobs"),
                contents: bytemuck::cast_slice(jobs),
                usage: wgpu::BufferUsages::STORAGE,
            });
        let bind_group = self.cull_kernels.bind_group(
            gpu,
            &[
                uniforms,
                &jobs_buffer,
                &scene.positions,
                &scene.indices,
                &scene.edges,
                faces,
                edges,
                args,
            ],
        );
        // x: rounds of the largest job (the shader loops over the rest);
        // y + 65535·z: the job.
        let rows = jobs.len() as u32;
        let groups = [
            most.div_ceil(CULL_GROUP).clamp(1, 65_535),
            rows.min(65_535),
            rows.div_ceil(65_535),
        ];
        run.compute_pass(label, |pass| {
            pass.set_pipeline(&self.cull_pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        });
        Ok(())
    }
}

fn set_scissor(pass: &mut wgpu::RenderPass<'_>, r: PixelRect) {
    pass.set_scissor_rect(r.x0, r.y0, r.x1 - r.x0, r.y1 - r.y0);
}

/// A candidate of the pair passes: the object `j` and its penetrating
/// neighbours `i`, each with the pair's region (`R_ij`).
struct Candidate {
    j: usize,
    pairs: Vec<(usize, ObjectRegion)>,
}

impl Candidate {
    /// `U_j`: the rectangle around every `R_ij`.
    fn group_scissor(&self) -> PixelRect {
        self.pairs
            .iter()
            .map(|(_, r)| r.scissor)
            .reduce(PixelRect::around)
            .expect("a candidate has a pair")
    }
}

/// What the pair passes draw (Alg. 4), decided on the CPU: nothing empty
/// is drawn.
#[derive(Default)]
struct PairPlan {
    groups: Vec<GroupDraws>,
    /// With culling, the pair culling's face and edge lists that the
    /// ranges index; without, the ranges are of the scene's triangle
    /// indices and edge vertices.
    lists: Option<[wgpu::Buffer; 2]>,
}

/// One candidate j of the pair passes.
struct GroupDraws {
    j: usize,
    /// `U_j` (with culling).
    scissor: Option<PixelRect>,
    /// j's faces, counted once for all its pairs and uncounted after.
    faces: Range<u32>,
    pairs: Vec<PairDraws>,
}

/// One pair (i, j) of the pair passes.
struct PairDraws {
    i: usize,
    /// `R_ij` (with culling).
    scissor: Option<PixelRect>,
    /// i's edges; empty: no query, no pixel.
    edges: Range<u32>,
}

impl PairPlan {
    /// Every pair with its penetrated object, in the order of the draws.
    fn pairs(&self) -> impl Iterator<Item = (usize, &PairDraws)> {
        self.groups
            .iter()
            .flat_map(|g| g.pairs.iter().map(move |p| (g.j, p)))
    }

    /// Group `g`'s faces with `pipeline` (counting or uncounting), inside
    /// its scissor; nothing if empty.
    fn faces(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        scene: &UploadedScene,
        g: &GroupDraws,
        pipeline: &wgpu::RenderPipeline,
    ) {
        if g.faces.is_empty() {
            return;
        }
        if let Some(r) = g.scissor {
            set_scissor(pass, r);
        }
        pass.set_pipeline(pipeline);
        let indices = self
            .lists
            .as_ref()
            .map_or(&scene.indices, |[faces, _]| faces);
        pass.set_vertex_buffer(0, scene.positions.slice(..));
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(g.faces.clone(), 0, 0..1);
    }

    /// Binds pair `p`'s edges and its scissor.
    fn bind_edges(&self, pass: &mut wgpu::RenderPass<'_>, scene: &UploadedScene, p: &PairDraws) {
        if let Some(r) = p.scissor {
            set_scissor(pass, r);
        }
        pass.set_vertex_buffer(0, scene.edges.slice(..));
        if let Some([_, edges]) = &self.lists {
            pass.set_index_buffer(edges.slice(..), wgpu::IndexFormat::Uint32);
        }
    }

    /// Pair `p`'s edges (bound by [`Self::bind_edges`]) as instance `j`,
    /// the penetrated object's id.
    fn edges(&self, pass: &mut wgpu::RenderPass<'_>, p: &PairDraws, j: usize) {
        let instance = j as u32..j as u32 + 1;
        match &self.lists {
            None => pass.draw(p.edges.clone(), instance),
            Some(_) => pass.draw_indexed(p.edges.clone(), 0, instance),
        }
    }
}

/// One object's lists as the main passes draw them: ranges of the bound
/// index buffers (of the edge vertices, without culling).
struct Lists {
    faces: Range<u32>,
    edges: Range<u32>,
}

/// How one run draws each object: everything, as in the paper, or with a
/// [`CullPlan`]'s scissors from the compacted lists of the culling pass.
struct Draws<'a> {
    scene: &'a UploadedScene,
    plan: Option<&'a CullPlan>,
}

impl Draws<'_> {
    /// The objects drawn at all.
    fn objects(&self) -> Vec<usize> {
        match self.plan {
            None => (0..self.scene.object_count()).collect(),
            Some(plan) => plan.active().map(|(k, _)| k).collect(),
        }
    }

    fn bind_faces(&self, pass: &mut wgpu::RenderPass<'_>) {
        let indices = match self.plan {
            None => &self.scene.indices,
            Some(_) => &self.scene.culled_faces,
        };
        pass.set_vertex_buffer(0, self.scene.positions.slice(..));
        // The weighted pipelines' object ids (ignored by the others).
        pass.set_vertex_buffer(1, self.scene.face_objects.slice(..));
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
    }

    fn bind_edges(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_vertex_buffer(0, self.scene.edges.slice(..));
        if self.plan.is_some() {
            pass.set_index_buffer(self.scene.culled_edges.slice(..), wgpu::IndexFormat::Uint32);
        }
    }

    /// With culling, restricts the draws that follow to object `k`'s `S_k`.
    fn scissor(&self, pass: &mut wgpu::RenderPass<'_>, k: usize) {
        if let Some(r) = self.plan.and_then(|p| p.regions[k]) {
            set_scissor(pass, r.scissor);
        }
    }

    /// Object `k`'s faces (bound by [`Self::bind_faces`]).
    fn faces(&self, pass: &mut wgpu::RenderPass<'_>, k: usize) {
        match self.plan {
            None => pass.draw_indexed(self.scene.face_ranges[k].clone(), 0, 0..1),
            Some(plan) if plan.regions[k].is_some() => {
                self.scissor(pass, k);
                pass.draw_indexed_indirect(&self.scene.draw_args, args_offset(k, false));
            }
            Some(_) => {}
        }
    }

    /// Object `k`'s edges (bound by [`Self::bind_edges`]).
    fn edges(&self, pass: &mut wgpu::RenderPass<'_>, k: usize) {
        match self.plan {
            None => pass.draw(self.scene.edge_ranges[k].clone(), 0..1),
            Some(plan) if plan.regions[k].is_some() => {
                pass.draw_indexed_indirect(&self.scene.draw_args, args_offset(k, true));
            }
            Some(_) => {}
        }
    }

    /// Every object's faces: one draw without culling.
    fn all_faces(&self, pass: &mut wgpu::RenderPass<'_>) {
        match self.plan {
            None => {
                let total = self.scene.face_ranges.last().map_or(0, |r| r.end);
                pass.draw_indexed(0..total, 0, 0..1);
            }
            Some(_) => self.objects().into_iter().for_each(|k| self.faces(pass, k)),
        }
    }

    /// Every object's edges: one draw without culling.
    fn all_edges(&self, pass: &mut wgpu::RenderPass<'_>) {
        match self.plan {
            None => {
                let total = self.scene.edge_ranges.last().map_or(0, |r| r.end);
                pass.draw(0..total, 0..1);
            }
            Some(_) => self.objects().into_iter().for_each(|k| self.edges(pass, k)),
        }
    }

    /// Per object, the lists drawn: everything, or (with culling) the
    /// counts of the draw arguments `args` read back.
    fn lists(&self, args: Option<&[u32]>) -> Vec<Lists> {
        let scene = self.scene;
        (0..scene.object_count())
            .map(|k| {
                let (faces, edges) = (&scene.face_ranges[k], &scene.edge_ranges[k]);
                match args {
                    None => Lists {
                        faces: faces.clone(),
                        edges: edges.clone(),
                    },
                    Some(args) => {
                        let a = &args[ARGS_PER_OBJECT * k..];
                        Lists {
                            faces: faces.start..faces.start + a[0],
                            edges: edges.start..edges.start + a[5],
                        }
                    }
                }
            })
            .collect()
    }
}

/// The triangles and edges the passes drew with `lists` and `plan`, and
/// without culling.
fn draw_counts(
    scene: &UploadedScene,
    draws: &Draws<'_>,
    lists: &[Lists],
    passes: StencilPasses,
    candidates: &[Candidate],
    plan: &PairPlan,
) -> DrawCounts {
    let n = scene.object_count();
    let full = draws.lists(None);
    let triangles = |l: &Lists| l.faces.len() as u64 / 3;
    let edges = |l: &Lists| l.edges.len() as u64 / 2;
    let sum = |f: &dyn Fn(&[Lists]) -> u64| Drawn {
        drawn: f(lists),
        total: f(&full),
    };
    let per_pass = match passes {
        StencilPasses::TwoSided => 1,
        StencilPasses::Separate => 2,
    };
    // The pair passes draw whole lists without culling.
    let pair_triangles: u64 = candidates.iter().map(|c| 2 * triangles(&full[c.j])).sum();
    let pair_edges: u64 = candidates
        .iter()
        .flat_map(|c| &c.pairs)
        .map(|&(i, _)| edges(&full[i]))
        .sum();
    let len = |r: &Range<u32>| r.len() as u64;
    let pair_triangles_drawn = plan.groups.iter().map(|g| 2 * len(&g.faces) / 3).sum();
    let pair_edges_drawn = plan.pairs().map(|(_, p)| len(&p.edges) / 2).sum();
    DrawCounts {
        objects: Drawn {
            drawn: draws.objects().len() as u64,
            total: n as u64,
        },
        edges: sum(&|l| l.iter().map(edges).sum()),
        triangles: sum(&|l| per_pass * l.iter().map(triangles).sum::<u64>()),
        pair_triangles: Drawn {
            drawn: pair_triangles_drawn,
            total: pair_triangles,
        },
        pair_edges: Drawn {
            drawn: pair_edges_drawn,
            total: pair_edges,
        },
    }
}

/// The images one run renders into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TargetImage {
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
    fn bytes_per_pixel(self) -> u32 {
        match self {
            TargetImage::Stencil => 1,
            TargetImage::Depth | TargetImage::Penetrated => 4,
            TargetImage::Ids | TargetImage::Inside => 8,
        }
    }
}

/// The render targets of one viewport size.
struct Targets {
    size: wgpu::Extent3d,
    depth: wgpu::Texture,
    ids: wgpu::Texture,
    inside: wgpu::Texture,
    penetrated: wgpu::Texture,
    /// The weighted sums of the counting pass ([`super::identify`]).
    sums_view: wgpu::TextureView,
    depth_view: wgpu::TextureView,
    ids_view: wgpu::TextureView,
    inside_view: wgpu::TextureView,
    penetrated_view: wgpu::TextureView,
}

impl Targets {
    fn new(device: &wgpu::Device, width: u32, height: u32) -> Targets {
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

    fn depth_attachment(
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
    fn pass<'e>(
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
    fn pair_pass<'e>(
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
struct Queries {
    set: wgpu::QuerySet,
    count: u32,
    resolve: wgpu::Buffer,
    staging: wgpu::Buffer,
}

impl Queries {
    fn new(device: &wgpu::Device, count: usize) -> Queries {
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
            staging: staging(device, "InterferenceRun::query_staging", bytes),
        }
    }

    fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.set, 0..self.count, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.staging, 0, 8 * self.count as u64);
    }

    fn read(&self, gpu: &GpuContext) -> Result<Vec<u64>, GpuError> {
        Ok(bytemuck::pod_collect_to_vec(&map_bytes(
            gpu,
            &self.staging,
        )?))
    }
}

/// A staging buffer for one image of [`Targets`] (rows padded to the copy
/// alignment).
struct Readback {
    image: TargetImage,
    buffer: wgpu::Buffer,
    padded_row: u32,
    width: u32,
    height: u32,
}

impl Readback {
    fn new(device: &wgpu::Device, targets: &Targets, image: TargetImage) -> Readback {
        let (width, height) = (targets.size.width, targets.size.height);
        let padded_row = (width * image.bytes_per_pixel())
            .div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        Readback {
            image,
            buffer: staging(
                device,
                "InterferenceRun::image_staging",
                padded_row as u64 * height as u64,
            ),
            padded_row,
            width,
            height,
        }
    }

    fn copy(&self, encoder: &mut wgpu::CommandEncoder, targets: &Targets) {
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
    fn read(&self, gpu: &GpuContext) -> Result<Vec<u8>, GpuError> {
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

/// A storage buffer of `entries` u32s (at least one), also for `usage`.
fn list_buffer(
    device: &wgpu::Device,
    label: &str,
    entries: usize,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: 4 * entries.max(1) as u64,
        usage: usage | wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    })
}

pub(super) fn staging(device: &wgpu::Device, label: &str, bytes: u64) -> wgpu::Buffer {
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
