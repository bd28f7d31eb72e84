//! How the main passes draw each object (everything, or the culled lists
//! inside their scissors) and what the passes drew against drawing
//! everything.

use std::ops::Range;

use eframe::egui_wgpu::wgpu;

use super::plan::{Candidate, PairPlan};
use super::targets::set_scissor;
use super::upload::{ARGS_PER_OBJECT, UploadedScene, args_offset};
use crate::stages::interfere::StencilPasses;
use crate::stages::interfere::cull::CullPlan;
use crate::stages::interfere::product::{DrawCounts, Drawn};

/// One object's lists as the main passes draw them: ranges of the bound
/// index buffers (of the edge vertices, without culling).
pub(super) struct Lists {
    pub(super) faces: Range<u32>,
    pub(super) edges: Range<u32>,
}

/// How one run draws each object: everything, as in the paper, or with a
/// [`CullPlan`]'s scissors from the compacted lists of the culling pass.
pub(super) struct Draws<'a> {
    pub(super) scene: &'a UploadedScene,
    pub(super) plan: Option<&'a CullPlan>,
}

impl Draws<'_> {
    /// The objects drawn at all.
    pub(super) fn objects(&self) -> Vec<usize> {
        match self.plan {
            None => (0..self.scene.object_count()).collect(),
            Some(plan) => plan.active().map(|(k, _)| k).collect(),
        }
    }

    pub(super) fn bind_faces(&self, pass: &mut wgpu::RenderPass<'_>) {
        let indices = match self.plan {
            None => &self.scene.indices,
            Some(_) => &self.scene.culled_faces,
        };
        pass.set_vertex_buffer(0, self.scene.positions.slice(..));
        // The weighted pipelines' object ids (ignored by the others).
        pass.set_vertex_buffer(1, self.scene.face_objects.slice(..));
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
    }

    pub(super) fn bind_edges(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_vertex_buffer(0, self.scene.edges.slice(..));
        if self.plan.is_some() {
            pass.set_index_buffer(self.scene.culled_edges.slice(..), wgpu::IndexFormat::Uint32);
        }
    }

    /// With culling, restricts the draws that follow to object `k`'s `S_k`.
    pub(super) fn scissor(&self, pass: &mut wgpu::RenderPass<'_>, k: usize) {
        if let Some(r) = self.plan.and_then(|p| p.regions[k]) {
            set_scissor(pass, r.scissor);
        }
    }

    /// Object `k`'s faces (bound by [`Self::bind_faces`]).
    pub(super) fn faces(&self, pass: &mut wgpu::RenderPass<'_>, k: usize) {
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
    pub(super) fn edges(&self, pass: &mut wgpu::RenderPass<'_>, k: usize) {
        match self.plan {
            None => pass.draw(self.scene.edge_ranges[k].clone(), 0..1),
            Some(plan) if plan.regions[k].is_some() => {
                pass.draw_indexed_indirect(&self.scene.draw_args, args_offset(k, true));
            }
            Some(_) => {}
        }
    }

    /// Every object's faces: one draw without culling.
    pub(super) fn all_faces(&self, pass: &mut wgpu::RenderPass<'_>) {
        match self.plan {
            None => {
                let total = self.scene.face_ranges.last().map_or(0, |r| r.end);
                pass.draw_indexed(0..total, 0, 0..1);
            }
            Some(_) => self.objects().into_iter().for_each(|k| self.faces(pass, k)),
        }
    }

    /// Every object's edges: one draw without culling.
    pub(super) fn all_edges(&self, pass: &mut wgpu::RenderPass<'_>) {
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
    pub(super) fn lists(&self, args: Option<&[u32]>) -> Vec<Lists> {
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
pub(super) fn draw_counts(
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
