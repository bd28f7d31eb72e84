//! The rendering passes of the stage on wgpu: the culling compute pass,
//! edge depths, stencil counting (with the weighted sums of
//! [`super::identify`]), occlusion-query identification, the sums'
//! decoding, the pair passes, read-back.
//!
//! By responsibility: [`pipelines`] creates the pipelines once per device,
//! [`upload`] puts a scene's geometry on the GPU, [`plan`] decides what
//! the passes draw (the culling jobs, the pair passes' candidates),
//! [`draws`] issues those draws, [`targets`] holds the render targets,
//! queries and read-backs, and [`passes`] records each render pass; the
//! run of one view ([`InterferenceGpu::run`]) strings them together.

mod draws;
mod passes;
mod pipelines;
pub(in crate::stages) mod plan;
mod targets;
pub(in crate::stages) mod upload;

pub use upload::UploadedScene;

use eframe::egui_wgpu::wgpu;

use self::draws::{Draws, draw_counts};
use self::passes::PairPassInput;
use self::plan::{Candidate, PairPlan};
use self::targets::{Queries, Readback, TargetImage, Targets, map_bytes, read_image};
use super::cull::CullPlan;
use super::identify::{Decoder, Identification, IdentificationReport, PairQuery, unavailable};
use super::product::{InterferenceRun, PairQueries};
use super::{InterferenceError, OrthoView, RunOptions};
use crate::gpu::{GpuContext, GpuRun, Kernels, staging_buffer};

/// `Uniforms` of shaders/interfere.wgsl and interfere_cull.wgsl (the
/// layout is checked by tests/it/shader_layouts.rs, like every mirrored type
/// of this stage).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Uniforms {
    pub clip_from_world: [[f32; 4]; 4],
    /// x: edge offset (world units), y, z: viewport width and height.
    pub params: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<Uniforms>() == 80);

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
    /// The device the pipelines were made on.
    context: GpuContext,
    /// The compute backend's pipelines, made on first use.
    compute: std::sync::OnceLock<super::compute::InterferenceCompute>,
}

/// The counting pipelines that also sum the weights (two-sided, front
/// faces incrementing, back faces decrementing), and the decoder.
struct Weighted {
    two_sided: wgpu::RenderPipeline,
    front_increment: wgpu::RenderPipeline,
    back_decrement: wgpu::RenderPipeline,
    decoder: Decoder,
}

impl InterferenceGpu {
    /// The device the stage was made on.
    pub fn context(&self) -> &GpuContext {
        &self.context
    }

    /// The compute backend's pipelines on the same device.
    pub fn compute(&self) -> &super::compute::InterferenceCompute {
        self.compute
            .get_or_init(|| super::compute::InterferenceCompute::new(&self.context))
    }

    /// Runs the passes for one view: with `options.cull`, the culling
    /// compute pass (`super::cull`); edges (pass 1), stencil counting
    /// (passes 2–3), per-object occlusion queries and the penetrating-ids
    /// image (pass 4, Alg. 3 and 5). Then, when `options.pairs`: with
    /// [`Identification::WeightedSums`] (where available, see
    /// `super::identify`), the decoding of the counting pass's sums, and
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
        let (uniform_buffer, bind_group) = self.uniforms(device, view, edge_offset);
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
            staging_buffer(
                device,
                "InterferenceRun::args_staging",
                scene.draw_args.size(),
            )
        });

        let mut run = GpuRun::new(gpu, "InterferenceRun::encoder")?;
        if options.cull {
            self.record_cull(gpu, &mut run, scene, &plan, &uniform_buffer)?;
        }
        self.edge_pass(&mut run, targets, &bind_group, &draws);
        self.count_pass(
            &mut run,
            targets,
            &bind_group,
            &draws,
            weighted,
            options.passes,
        );
        self.identify_pass(&mut run, targets, &bind_group, &draws, &object_queries, n);
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
        let candidates: Vec<Candidate> = match options.pairs {
            true => Candidate::all(&plan, &penetrating, n),
            false => Vec::new(),
        };
        let mut plan_drawn = PairPlan::default();
        // The sums' pairs of the objects the pair passes do not test.
        let mut pairs: Vec<PairQuery> = decoded
            .into_iter()
            .filter(|p| !penetrating.contains(&p.penetrating))
            .collect();
        if !candidates.is_empty() {
            let pass = PairPassInput {
                scene,
                targets,
                uniforms: &uniform_buffer,
                bind_group: &bind_group,
                penetrated_image: penetrated_image.as_ref(),
            };
            let (plan, answers) = self.identify_pairs(
                gpu,
                pass,
                &candidates,
                options.cull,
                decoding.is_some(),
                &mut phases,
            )?;
            pairs.extend(answers);
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
        // The penetrated image holds something when the sums were decoded
        // or the pair passes ran.
        let penetrated_image = penetrated_image
            .as_ref()
            .filter(|_| decoding.is_some() || !candidates.is_empty());
        let image = match images {
            None => None,
            Some(images) => Some(read_image(gpu, view, &images, penetrated_image)?),
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
}
