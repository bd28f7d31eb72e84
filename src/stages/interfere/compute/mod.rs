//! The compute backend: Knott's ray counting (chapter 4) on the compute
//! units, no rasteriser — the same rays, signed crossing counts,
//! identification and localisation as the stencil passes
//! (`super::gpu`), with the coverage rules of the CPU reference
//! ([`super::count_cpu`]), so that it agrees with the CPU pixel for pixel
//! wherever the reference can decide.
//!
//! **Pass 1, edges** (§4.4, Alg. 1–2). One thread per edge pushes its ends
//! out along the vertex pseudo-normals (§4.3.3) and walks the pixel
//! columns (rows, for a steep edge) that the edge's one-pixel-wide
//! rectangle spans, covering the centres within ½ of the line whose
//! projection falls between its ends — Vulkan's line rasterisation, which
//! the stencil path's pass 1 gets from the rasteriser — each at the depth
//! of the segment at the projection of the pixel centre. (A Bresenham
//! walk, one centre per column, is a rule the CPU reference accepts too,
//! but it covers fewer pixels; in a dense scene a tenth of the nearest
//! edge points then differ from the stencil path's, fewer edge points
//! hide the ones behind them, and it found 290 interfering pairs in
//! `bench interfere`'s dense target scene where the stencil path finds
//! 271. With the rectangle the two find 272 and 271 there, the one pair
//! apart resting on a single tied pixel; tests/it/interfere_compute.rs
//! checks the edge images against each other.) The nearest edge
//! point per pixel is found with atomics ([`EdgePass`]): where the device
//! has 64-bit atomic min/max, one atomic max of `key << 32 | (2³² − 1 −
//! id)` with `key = bits(1) − bits(depth)`; elsewhere a 32-bit atomic max
//! of `key`, then, from the same walk again, an atomic max of `2³² − 1 −
//! id` by the edges at exactly that depth (the two-pass depth-then-id
//! resolve). Both leave the same words: the nearest depth, on a tie the
//! smallest edge id.
//!
//! **Passes 2–3, counting** (equation 4.2). One thread per face takes the
//! pixel centres in its screen box, within its object's scissor (the
//! culling below); faces covering more than `SMALL_FACE` centres are
//! listed and split over a workgroup of their own. A centre is covered
//! where all three edge functions are positive (exact zeros by a
//! top-left rule, so a centre on an edge shared by two faces counts once),
//! the CPU reference's coverage; covered in front of the pixel's edge
//! point (depth 1 where there is none), the face adds its sign `s` (+1
//! front-facing, −1 back-facing) with integer atomics: `s·(2²⁴ + j + 1)`
//! and `s·(j + 1)²` for object `j` — the count in the top 8 bits (wrapping
//! like the stencil) over the weighted sums of `super::identify`, exact
//! in integers — and marks pixels crossed by an open mesh.
//!
//! **Pass 4 and identification** (§4.5.1–4.5.2). A pass over the pixels
//! reads the count and the nearest edge's object `i` (Alg. 2), counts the
//! pixels of `i` inside something (Alg. 5's query), and decodes the sums
//! (none, one, or two objects inside; the edge's own object dropped,
//! §4.5.8). Pixels the sums cannot decode (inside three or more, an open
//! mesh crossed) — or, with [`Identification::PairPasses`], every pixel
//! inside something — get Alg. 4 per pixel: a workgroup loops over the
//! candidates `j` (the objects whose grown boxes meet `i`'s, as the
//! stencil path's pair passes) and counts `j`'s faces alone in front of
//! the edge point, the faces split over its threads. Their dispatch sizes come from the counters on the GPU
//! (indirect dispatch), so one submission does everything.
//!
//! **Culling** ([`CullPlan`]) as in the stencil path: objects whose grown
//! boxes meet no other are skipped, faces count only inside their
//! object's scissor `S_X`, edges only where their screen box meets the
//! object's overlap region.
//!
//! **What differs from the stencil path**: only the tie rules — which
//! pixel a line covers near its ends and at half-pixel distances, which
//! face covers a centre on its edge, depth rounding — all inside the CPU
//! reference's ambiguity bands. Its [`InterferenceRun::drawn`] is all
//! zero (nothing goes to the rasteriser).

mod scratch;
mod upload;

pub use upload::{ComputeScene, GpuEdge, Params, REGION_WORDS};

use eframe::egui_wgpu::wgpu;

use self::scratch::Scratch;
use super::identify::{Identification, IdentificationReport, PairQuery};
use super::product::{CountImage, DrawCounts, InterferenceRun, PairQueries};
use super::{CullPlan, InterferenceError, OrthoView, RunOptions};
use crate::gpu::{
    GpuContext, GpuRun, Kernels, dispatch_dims, map_staging, shader_source, storage_buffer_init,
};
use wgpu::util::DeviceExt;

/// Threads per workgroup of the per-edge, per-face and per-pixel kernels.
pub const WORKGROUP: u32 = 64;
/// Threads per workgroup of `count_large_faces` (one large face each).
pub const LARGE_GROUP: u32 = 256;
/// Faces covering more pixel centres than this are split over a workgroup.
pub const SMALL_FACE: u32 = 256;
/// Counters at the head of the tallies buffer (large faces, ambiguous
/// pixels).
pub const TALLY_HEAD: u32 = 2;
/// Word planes of the per-pixel accumulators (depth key, id key, packed
/// count and sum, sum of squares, open mesh crossed).
const PIXEL_PLANES: u64 = 5;
/// Word planes of the images (count, object + 1, edge + 1, depth,
/// penetrated + 1).
const IMAGE_PLANES: u64 = 5;

/// How pass 1 finds the nearest edge point per pixel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum EdgePass {
    /// One pass, a 64-bit atomic max of depth and id together.
    Atomic64,
    /// Depth first, then the id at that depth (32-bit atomics).
    TwoPass,
}

/// The compute pipelines; create once per device.
pub struct InterferenceCompute {
    kernels: Kernels,
    edge_depth: wgpu::ComputePipeline,
    edge_ids: wgpu::ComputePipeline,
    /// The one-pass resolve, where the device has 64-bit atomic min/max.
    edge_nearest: Option<wgpu::ComputePipeline>,
    count_faces: wgpu::ComputePipeline,
    count_large_faces: wgpu::ComputePipeline,
    decode: wgpu::ComputePipeline,
    pair_counts: wgpu::ComputePipeline,
    args_kernels: Kernels,
    dispatch_args: wgpu::ComputePipeline,
    /// The buffers of the last run's sizes, reused by the next run of
    /// those sizes; the lock also keeps runs from sharing them.
    scratch: std::sync::Mutex<Option<Scratch>>,
}

impl InterferenceCompute {
    pub fn new(gpu: &GpuContext) -> InterferenceCompute {
        let kernels = Kernels::new(
            gpu,
            "InterferenceCompute",
            shader_source("interfere_compute.wgsl"),
        );
        let args_kernels = Kernels::new(
            gpu,
            "InterferenceCompute::args",
            shader_source("interfere_compute_args.wgsl"),
        );
        let int64 = wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX;
        let edge_nearest = gpu.device.features().contains(int64).then(|| {
            let module = kernels.module_for(gpu, shader_source("interfere_compute_int64.wgsl"));
            kernels.pipeline_in(gpu, &module, "edge_nearest")
        });
        InterferenceCompute {
            edge_nearest,
            edge_depth: kernels.pipeline(gpu, "edge_depth"),
            edge_ids: kernels.pipeline(gpu, "edge_ids"),
            count_faces: kernels.pipeline(gpu, "count_faces"),
            count_large_faces: kernels.pipeline(gpu, "count_large_faces"),
            decode: kernels.pipeline(gpu, "decode"),
            pair_counts: kernels.pipeline(gpu, "pair_counts"),
            dispatch_args: args_kernels.pipeline(gpu, "dispatch_args"),
            kernels,
            args_kernels,
            scratch: Default::default(),
        }
    }

    /// The edge passes this device can run, the fastest first.
    pub fn edge_passes(&self) -> Vec<EdgePass> {
        let one_pass = self.edge_nearest.as_ref().map(|_| EdgePass::Atomic64);
        one_pass.into_iter().chain([EdgePass::TwoPass]).collect()
    }

    /// Runs the passes for one view (see the module docs) with the
    /// fastest edge pass: with `options.cull`, the culling of
    /// [`CullPlan`]; with `options.pairs`, the identification by
    /// `options.identification`; the images read back with
    /// `options.read_pixels` (`options.passes` does not apply).
    pub fn run(
        &self,
        gpu: &GpuContext,
        scene: &ComputeScene,
        view: &OrthoView,
        edge_offset: f32,
        options: RunOptions,
    ) -> Result<InterferenceRun, InterferenceError> {
        let fastest = self.edge_passes()[0];
        self.run_with(gpu, scene, view, edge_offset, options, fastest)
    }

    /// [`Self::run`] with `edge_pass` (one of [`Self::edge_passes`]; the
    /// others run the two-pass resolve).
    pub fn run_with(
        &self,
        gpu: &GpuContext,
        scene: &ComputeScene,
        view: &OrthoView,
        edge_offset: f32,
        options: RunOptions,
        edge_pass: EdgePass,
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
        let n = scene.object_count();
        let plan = CullPlan::new(&scene.bounds, view, edge_offset);
        let pair_passes = options.pairs && options.identification == Identification::PairPasses;
        if options.cull && plan.active().next().is_none() {
            // Culling draws nothing: no edge, no count, nothing inside.
            return Ok(nothing_drawn(view, plan, n, options, started));
        }
        let params = upload::params(scene, view, edge_offset, pair_passes, options.read_pixels);
        let words = upload::view_words(scene, view, &plan, options.cull);
        let mut cached = self
            .scratch
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = (view.width, view.height, scene.face_count(), n);
        let b: &Scratch = match &mut *cached {
            Some(s) if s.key == key => s,
            slot => slot.insert(Scratch::new(gpu, key)?),
        };
        let uniforms = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("InterferenceCompute::params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let view_buffer = storage_buffer_init(gpu, "InterferenceCompute::view", &words)?;
        let group = self.kernels.bind(
            gpu,
            &[
                ("p", &uniforms),
                ("positions", &scene.positions),
                ("faces", &scene.faces),
                ("edges", &scene.edges),
                ("view", &view_buffer),
                ("pixels", &b.pixels),
                ("images", &b.images),
                ("tallies", &b.tallies),
                ("work", &b.work),
            ],
        );
        let args_group = self
            .args_kernels
            .bind(gpu, &[("tallies", &b.tallies), ("args", &b.args)]);
        let pixel_count = view.width * view.height;
        let tallies_bytes = b.tallies.size();
        let tallies_staging = &b.tallies_staging;
        let images_staging = options.read_pixels.then_some(&b.images_staging);

        let mut run = GpuRun::new(gpu, "InterferenceCompute::encoder")?;
        run.encoder_work("compute clear", |encoder| {
            encoder.clear_buffer(&b.pixels, 0, None);
            encoder.clear_buffer(&b.tallies, 0, None);
        });
        let flat = |pass: &mut wgpu::ComputePass<'_>, pipeline, items: u32| {
            let (x, y) = dispatch_dims(items.div_ceil(WORKGROUP));
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        };
        let one_pass = self
            .edge_nearest
            .as_ref()
            .filter(|_| edge_pass == EdgePass::Atomic64);
        let edges_phase = match one_pass {
            Some(_) => "compute edges (pass 1, 64-bit atomics)",
            None => "compute edges (pass 1, depth then id)",
        };
        run.compute_pass(edges_phase, |pass| match one_pass {
            Some(pipeline) => flat(pass, pipeline, scene.edge_count),
            None => {
                flat(pass, &self.edge_depth, scene.edge_count);
                flat(pass, &self.edge_ids, scene.edge_count);
            }
        });
        run.compute_pass("compute counts (passes 2–3)", |pass| {
            flat(pass, &self.count_faces, scene.face_count());
            pass.set_pipeline(&self.dispatch_args);
            pass.set_bind_group(0, &args_group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(&self.count_large_faces);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups_indirect(&b.args, 0);
        });
        run.compute_pass("compute identification (pass 4)", |pass| {
            flat(pass, &self.decode, pixel_count);
            if options.pairs {
                pass.set_pipeline(&self.dispatch_args);
                pass.set_bind_group(0, &args_group, &[]);
                pass.dispatch_workgroups(1, 1, 1);
                pass.set_pipeline(&self.pair_counts);
                pass.set_bind_group(0, &group, &[]);
                pass.dispatch_workgroups_indirect(&b.args, 12);
            }
        });
        run.encoder_work("compute read-back copies", |encoder| {
            encoder.copy_buffer_to_buffer(&b.tallies, 0, tallies_staging, 0, tallies_bytes);
            if let Some(staging) = images_staging {
                encoder.copy_buffer_to_buffer(&b.images, 0, staging, 0, staging.size());
            }
        });
        let (phases, _) = run.finish()?;
        let tallies: Vec<u32> = map_staging(gpu, tallies_staging, "interference tallies")?;
        let image = match images_staging {
            Some(staging) => Some(read_image(
                view,
                &map_staging(gpu, staging, "interference images")?,
            )),
            None => None,
        };
        let head = TALLY_HEAD as usize;
        let object_pixels: Vec<u64> = tallies[head..head + n].iter().map(|&c| c as u64).collect();
        let ambiguous: Vec<u64> = tallies[head + n..head + 2 * n]
            .iter()
            .map(|&c| c as u64)
            .collect();
        let pairs: Vec<PairQuery> = match options.pairs {
            false => Vec::new(),
            true => tallies[head + 2 * n..]
                .iter()
                .enumerate()
                .filter(|&(_, &c)| c > 0)
                .map(|(k, &c)| PairQuery {
                    penetrating: k / n,
                    penetrated: k % n,
                    pixels: c as u64,
                })
                .collect(),
        };
        let pair_pass_objects = match (options.pairs, pair_passes) {
            (false, _) => Vec::new(),
            (true, true) => (0..n).filter(|&k| object_pixels[k] > 0).collect(),
            (true, false) => (0..n).filter(|&k| ambiguous[k] > 0).collect(),
        };
        let early_exit = object_pixels.iter().all(|&px| px == 0);
        Ok(InterferenceRun {
            view: *view,
            cull: options.cull.then_some(plan),
            drawn: DrawCounts::default(),
            image,
            queries: PairQueries {
                object_pixels,
                pairs,
                early_exit,
            },
            identification: IdentificationReport {
                used: options.pairs.then_some(options.identification),
                fallback: None,
                ambiguous_pixels: match pair_passes {
                    true => Vec::new(),
                    false => ambiguous,
                },
                pair_pass_objects,
            },
            phases,
            wall_ms: started.elapsed().as_secs_f64() * 1e3,
        })
    }
}

/// The run of a view where culling leaves nothing to draw (every box
/// apart): no edge point, every count zero, early non-interference.
fn nothing_drawn(
    view: &OrthoView,
    plan: CullPlan,
    objects: usize,
    options: RunOptions,
    started: std::time::Instant,
) -> InterferenceRun {
    let pixels = (view.width * view.height) as usize;
    let image = options.read_pixels.then(|| CountImage {
        view: *view,
        counts: vec![0; pixels],
        edge_depth: vec![1.0; pixels],
        ids: vec![[0, 0]; pixels],
        inside_ids: vec![[0, 0]; pixels],
        penetrated: vec![0; pixels],
        ambiguous: None,
    });
    let weighted = options.identification == Identification::WeightedSums;
    InterferenceRun {
        view: *view,
        cull: Some(plan),
        drawn: DrawCounts::default(),
        image,
        queries: PairQueries {
            object_pixels: vec![0; objects],
            pairs: Vec::new(),
            early_exit: true,
        },
        identification: IdentificationReport {
            used: options.pairs.then_some(options.identification),
            fallback: None,
            ambiguous_pixels: match options.pairs && weighted {
                true => vec![0; objects],
                false => Vec::new(),
            },
            pair_pass_objects: Vec::new(),
        },
        phases: Vec::new(),
        wall_ms: started.elapsed().as_secs_f64() * 1e3,
    }
}

/// The product's images from the image planes (see the shader).
fn read_image(view: &OrthoView, words: &[u32]) -> CountImage {
    let plane = (view.width * view.height) as usize;
    let planes: Vec<&[u32]> = words.chunks(plane).take(IMAGE_PLANES as usize).collect();
    let counts: Vec<i32> = planes[0].iter().map(|&c| c as i32).collect();
    let ids: Vec<[u32; 2]> = planes[1]
        .iter()
        .zip(planes[2])
        .map(|(&o, &e)| [o, e])
        .collect();
    let inside_ids = counts
        .iter()
        .zip(&ids)
        .map(|(&c, &id)| if c > 0 { id } else { [0, 0] })
        .collect();
    CountImage {
        view: *view,
        counts,
        edge_depth: planes[3].iter().map(|&d| f32::from_bits(d)).collect(),
        ids,
        inside_ids,
        penetrated: planes[4].to_vec(),
        ambiguous: None,
    }
}
