//! What the passes draw, planned per view: the culling compute pass's jobs
//! ([`crate::stages::interfere::cull`]) for the main passes, and for the pair passes
//! (Alg. 4) the candidates, their culling and the draws that follow from
//! its read-back counts.

use std::ops::Range;

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::InterferenceGpu;
use super::targets::{map_bytes, set_scissor};
use super::upload::{ARGS_PER_OBJECT, UploadedScene, list_buffer};
use crate::gpu::{GpuContext, GpuPhase, GpuRun, staging_buffer};
use crate::stages::interfere::InterferenceError;
use crate::stages::interfere::cull::{CullPlan, ObjectRegion, PixelRect};

/// One job of the culling compute pass: `CullJob` of
/// shaders/interfere_cull.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CullJob {
    /// Its draw arguments are at `args_offset``(slot, _)`.
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
    pub(super) fn new(
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

/// Workgroup size of `cull` in shaders/interfere_cull.wgsl.
pub const CULL_GROUP: u32 = 256;

/// The initial draw arguments of `slots` slots for `jobs`: zero counts,
/// one instance, each list's first index.
pub(super) fn job_args(jobs: &[CullJob], slots: usize) -> Vec<u32> {
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

impl InterferenceGpu {
    /// Records the culling compute pass of `plan`: the compacted lists and
    /// draw arguments of every object it draws (the arguments of the
    /// others stay at zero counts, and they are never drawn).
    pub(super) fn record_cull(
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
    /// `cull`; with it, the pair culling ([`crate::stages::interfere::cull`]) runs first —
    /// per candidate j a job per pair (i, j), i's edges meeting the pair's
    /// region, then j's own job, its triangles meeting `U_j` — and its
    /// counts are read back, so that nothing empty is drawn.
    pub(super) fn plan_pairs(
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
        let args_staging =
            staging_buffer(device, "InterferenceRun::pair_args_staging", args.size());
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
        let bind_group = self.cull_kernels.bind(
            gpu,
            &[
                ("u", uniforms),
                ("jobs", &jobs_buffer),
                ("positions", &scene.positions),
                ("indices", &scene.indices),
                ("edge_vertices", &scene.edges),
                ("culled_faces", faces),
                ("culled_edges", edges),
                ("args", args),
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

/// A candidate of the pair passes: the object `j` and its penetrating
/// neighbours `i`, each with the pair's region (`R_ij`).
pub(super) struct Candidate {
    pub(super) j: usize,
    pub(super) pairs: Vec<(usize, ObjectRegion)>,
}

impl Candidate {
    /// Alg. 5 with bounding boxes: per object j of `n`, the objects of
    /// `penetrating` whose boxes meet j's on the screen, with the pair's
    /// region; the objects j that have any.
    pub(super) fn all(plan: &CullPlan, penetrating: &[usize], n: usize) -> Vec<Candidate> {
        (0..n)
            .filter_map(|j| {
                let pairs: Vec<(usize, ObjectRegion)> = penetrating
                    .iter()
                    .filter_map(|&i| Some((i, plan.pair_region(i, j)?)))
                    .collect();
                (!pairs.is_empty()).then_some(Candidate { j, pairs })
            })
            .collect()
    }

    /// `U_j`: the rectangle around every `R_ij`.
    pub(super) fn group_scissor(&self) -> PixelRect {
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
pub(super) struct PairPlan {
    pub(super) groups: Vec<GroupDraws>,
    /// With culling, the pair culling's face and edge lists that the
    /// ranges index; without, the ranges are of the scene's triangle
    /// indices and edge vertices.
    pub(super) lists: Option<[wgpu::Buffer; 2]>,
}

/// One candidate j of the pair passes.
pub(super) struct GroupDraws {
    pub(super) j: usize,
    /// `U_j` (with culling).
    pub(super) scissor: Option<PixelRect>,
    /// j's faces, counted once for all its pairs and uncounted after.
    pub(super) faces: Range<u32>,
    pub(super) pairs: Vec<PairDraws>,
}

/// One pair (i, j) of the pair passes.
pub(super) struct PairDraws {
    pub(super) i: usize,
    /// `R_ij` (with culling).
    pub(super) scissor: Option<PixelRect>,
    /// i's edges; empty: no query, no pixel.
    pub(super) edges: Range<u32>,
}

impl PairPlan {
    /// Every pair with its penetrated object, in the order of the draws.
    pub(super) fn pairs(&self) -> impl Iterator<Item = (usize, &PairDraws)> {
        self.groups
            .iter()
            .flat_map(|g| g.pairs.iter().map(move |p| (g.j, p)))
    }

    /// Group `g`'s faces with `pipeline` (counting or uncounting), inside
    /// its scissor; nothing if empty.
    pub(super) fn faces(
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
    pub(super) fn bind_edges(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        scene: &UploadedScene,
        p: &PairDraws,
    ) {
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
    pub(super) fn edges(&self, pass: &mut wgpu::RenderPass<'_>, p: &PairDraws, j: usize) {
        let instance = j as u32..j as u32 + 1;
        match &self.lists {
            None => pass.draw(p.edges.clone(), instance),
            Some(_) => pass.draw_indexed(p.edges.clone(), 0, instance),
        }
    }
}
