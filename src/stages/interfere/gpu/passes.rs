//! The render passes of one run, one function each, recorded into a
//! [`GpuRun`]: edges (pass 1), stencil counting (passes 2–3), the
//! occlusion-query identification (pass 4) and the pair passes (Alg. 4).

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::draws::Draws;
use super::plan::{Candidate, PairPlan};
use super::targets::{Queries, Readback, TargetImage, Targets};
use super::upload::UploadedScene;
use super::{InterferenceGpu, Uniforms, Weighted};
use crate::gpu::{GpuContext, GpuPhase, GpuRun};
use crate::stages::interfere::{
    InterferenceError, OrthoView, PairQuery, STENCIL_ZERO, StencilPasses,
};

/// What the pair passes of one run draw with and into.
pub(super) struct PairPassInput<'a> {
    pub(super) scene: &'a UploadedScene,
    pub(super) targets: &'a Targets,
    /// The run's uniforms (the pair culling reads them) and the render
    /// passes' bind group over them.
    pub(super) uniforms: &'a wgpu::Buffer,
    pub(super) bind_group: &'a wgpu::BindGroup,
    /// The penetrated image's read-back, copied after the passes.
    pub(super) penetrated_image: Option<&'a Readback>,
}

impl InterferenceGpu {
    /// The uniforms of `view` and the bind group of the render passes.
    pub(super) fn uniforms(
        &self,
        device: &wgpu::Device,
        view: &OrthoView,
        edge_offset: f32,
    ) -> (wgpu::Buffer, wgpu::BindGroup) {
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
        (uniform_buffer, bind_group)
    }

    /// Pass 1: the edges with depth test "less" and depth write, into the
    /// ids image; clears the depth to 1 and the stencil to zero counts.
    pub(super) fn edge_pass(
        &self,
        run: &mut GpuRun<'_>,
        targets: &Targets,
        bind_group: &wgpu::BindGroup,
        draws: &Draws<'_>,
    ) {
        run.encoder_work("interference pass 1 (edges)", |encoder| {
            let mut pass = targets.pass(
                encoder,
                TargetImage::Ids,
                wgpu::LoadOp::Clear(1.0),
                wgpu::LoadOp::Clear(STENCIL_ZERO),
                None,
            );
            pass.set_bind_group(0, bind_group, &[]);
            pass.set_pipeline(&self.edge_pipeline);
            draws.bind_edges(&mut pass);
            draws.all_edges(&mut pass);
        });
    }

    /// Passes 2–3: the faces against the edge depths, front faces
    /// incrementing and back faces decrementing the stencil (in one
    /// two-sided pass or per object in two, `passes`), summing the weights
    /// into the sums target with `weighted`.
    pub(super) fn count_pass(
        &self,
        run: &mut GpuRun<'_>,
        targets: &Targets,
        bind_group: &wgpu::BindGroup,
        draws: &Draws<'_>,
        weighted: Option<&Weighted>,
        passes: StencilPasses,
    ) {
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
            pass.set_bind_group(0, bind_group, &[]);
            draws.bind_faces(&mut pass);
            let [two_sided, front_increment, back_decrement] = match weighted {
                Some(w) => [&w.two_sided, &w.front_increment, &w.back_decrement],
                None => [
                    &self.face_two_sided,
                    &self.face_front_increment,
                    &self.face_back_decrement,
                ],
            };
            match passes {
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
    }

    /// Pass 4 (Alg. 3 and 5): every object's edges again, depth "equal"
    /// and stencil "count > 0", writing their ids into the inside image,
    /// one occlusion query per object of `n`.
    pub(super) fn identify_pass(
        &self,
        run: &mut GpuRun<'_>,
        targets: &Targets,
        bind_group: &wgpu::BindGroup,
        draws: &Draws<'_>,
        object_queries: &Queries,
        n: usize,
    ) {
        run.encoder_work("interference pass 4 (identify)", |encoder| {
            let mut pass = targets.pass(
                encoder,
                TargetImage::Inside,
                wgpu::LoadOp::Load,
                wgpu::LoadOp::Load,
                Some(&object_queries.set),
            );
            pass.set_bind_group(0, bind_group, &[]);
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
    }

    /// The pair passes of `plan` (Alg. 4), one query per pair with edges;
    /// the penetrated image is cleared, or kept as the weighted sums'
    /// decoding wrote it (`keep`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn pair_passes(
        &self,
        run: &mut GpuRun<'_>,
        targets: &Targets,
        bind_group: &wgpu::BindGroup,
        scene: &UploadedScene,
        plan: &PairPlan,
        pair_queries: &Queries,
        keep: bool,
    ) {
        run.encoder_work("interference pair passes (Alg. 4)", |encoder| {
            // One render pass for every candidate j: a count of j's
            // faces alone against the same edge depths, j's id where
            // i's edges are then inside, and the count undone (the same
            // faces, the stencil operations reversed) instead of a
            // clear of the whole stencil and a new pass per object.
            // Nothing empty is drawn, a pair without edges has no query,
            // and every state is set before a query begins: llvmpipe
            // applies state lazily and miscounts queries otherwise.
            let mut pass = targets.pair_pass(encoder, &pair_queries.set, keep);
            pass.set_bind_group(0, bind_group, &[]);
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
    }

    /// Alg. 4 for `candidates`: the pair culling and its read-back (with
    /// `cull`, [`Self::plan_pairs`]), then the pair passes (the penetrated
    /// image kept as the decoding wrote it with `keep`) and their queries.
    /// Returns what was drawn and every planned pair's answer.
    pub(super) fn identify_pairs(
        &self,
        gpu: &GpuContext,
        input: PairPassInput<'_>,
        candidates: &[Candidate],
        cull: bool,
        keep: bool,
        phases: &mut Vec<GpuPhase>,
    ) -> Result<(PairPlan, Vec<PairQuery>), InterferenceError> {
        let PairPassInput {
            scene,
            targets,
            uniforms,
            bind_group,
            penetrated_image,
        } = input;
        let plan = self.plan_pairs(gpu, scene, candidates, cull, uniforms, phases)?;
        let queried = plan.pairs().filter(|(_, p)| !p.edges.is_empty()).count();
        let pair_queries = Queries::new(&gpu.device, queried);
        let mut run = GpuRun::new(gpu, "InterferenceRun::pair_encoder")?;
        self.pair_passes(
            &mut run,
            targets,
            bind_group,
            scene,
            &plan,
            &pair_queries,
            keep,
        );
        run.encoder_work("interference pair read-back", |encoder| {
            pair_queries.resolve(encoder);
            if let Some(image) = penetrated_image {
                image.copy(encoder, targets);
            }
        });
        phases.extend(run.finish()?.0);
        let mut results = pair_queries.read(gpu)?.into_iter();
        let answers = plan
            .pairs()
            .map(|(j, p)| PairQuery {
                penetrating: p.i,
                penetrated: j,
                pixels: match p.edges.is_empty() {
                    true => 0,
                    false => results.next().unwrap_or(0),
                },
            })
            .collect();
        Ok((plan, answers))
    }
}
