//! The product of one view, the same type whichever backend made it: the
//! GPU passes ([`super::InterferenceGpu::run`]) or the CPU reference
//! ([`super::run_cpu`]).
//!
//! What the CPU backend fills: the count image (counts, its own edge
//! depths and ids, inside ids, penetrated objects, and which pixels it
//! cannot decide), the queries (object pixels, pairs with their pixels)
//! and the culling plan. It draws nothing and times no GPU phase, so its
//! [`InterferenceRun::drawn`] is all zero and its
//! [`InterferenceRun::phases`] empty.

use super::OrthoView;
use super::cull::CullPlan;
use super::identify::{IdentificationReport, PairQuery};
use crate::gpu::GpuPhase;

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
    /// Triangles of passes 2–3 (twice each with [`super::StencilPasses::Separate`]).
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
    /// without pair passes, or no identification ran. The CPU reference:
    /// the largest object other than the edge's own whose faces alone
    /// give a count > 0 there.
    pub penetrated: Vec<u32>,
    /// CPU reference only (`None` from the GPU): the pixels whose values
    /// above depend on the rasteriser's tie rules (line and triangle
    /// coverage, depth comparisons within rounding), which it cannot
    /// decide; they hold its best guess.
    pub ambiguous: Option<Vec<bool>>,
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

/// The queries of one run.
#[derive(Clone, Debug, Default)]
pub struct PairQueries {
    /// Per object: pixels of its edges with count > 0 (pass 4, Alg. 5;
    /// the CPU reference counts the pixels it can decide).
    pub object_pixels: Vec<u64>,
    /// Every pair tested by the pair passes (a penetrating object against
    /// each object whose bounding box overlaps it), with its answer, and
    /// every pair the weighted sums found, with its pixels. The CPU
    /// reference: every pair with pixels it can decide, with their number.
    pub pairs: Vec<PairQuery>,
    /// Every object query was zero, so the pair passes were skipped (early
    /// non-interference, §4.5.2); always false from the CPU reference,
    /// which skips nothing.
    pub early_exit: bool,
}

/// Everything one run of one view returns.
#[derive(Clone, Debug)]
pub struct InterferenceRun {
    pub view: OrthoView,
    /// The culling the passes used; `None`: everything was drawn.
    pub cull: Option<CullPlan>,
    /// What the GPU passes drew; all zero from the CPU reference.
    pub drawn: DrawCounts,
    pub image: Option<CountImage>,
    pub queries: PairQueries,
    pub identification: IdentificationReport,
    /// The GPU phases; empty from the CPU reference.
    pub phases: Vec<GpuPhase>,
    pub wall_ms: f64,
}
