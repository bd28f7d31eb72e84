//! Interference localisation (§4.5.5) and the report of self-interference
//! and open meshes (§4.5.7–4.5.8, §4.4.1), from the read-back images.
//!
//! Pass 4 leaves the ids of the edge points that are inside something
//! (Alg. 3's colour buffer: object and edge) and the pair passes the
//! penetrated object (Alg. 4). Each such pixel, with its edge depth, is
//! transformed back to world space ([`OrthoView::to_world`]): a localised
//! point on an interfering edge. A point whose count is positive but lies
//! in no *other* object is spurious self-interference (limited precision,
//! or edges rasterised differently from faces, §4.5.8): it is filtered out
//! by identity, and counted and listed, not hidden. Negative counts mean a
//! mesh on that ray is not closed; they are reported per object whose edge
//! the ray hit, beside the objects whose topology is open.

use std::collections::BTreeSet;

use glam::DVec3;

use super::{InterferenceRun, InterferenceScene, ViewAxis};

/// One interfering edge point.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LocalisedPoint {
    /// World position (pixel centre and edge depth, transformed back).
    pub position: DVec3,
    pub axis: ViewAxis,
    /// Framebuffer pixel (x, y from the top-left).
    pub pixel: [u32; 2],
    /// The stencil count there: how many solids the point is inside.
    pub count: i32,
    /// The penetrating object and its edge (local index).
    pub object: usize,
    pub edge: u32,
    /// The penetrated object (Alg. 4).
    pub penetrated: usize,
}

/// Spurious self-interference (§4.5.8): edge points with a positive count
/// inside no other object.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SelfInterference {
    /// Pixels, over all views.
    pub pixels: usize,
    /// (object, edge) of those edge points, sorted.
    pub edges: Vec<(usize, u32)>,
    /// Objects with such pixels, sorted.
    pub objects: Vec<usize>,
}

/// Negative counts (§4.4.1): some mesh on these rays is not closed.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct OpenMeshReport {
    /// Objects whose topology is open (an edge without two faces).
    pub open_objects: Vec<usize>,
    /// (object, pixels): negative-count pixels per object whose edge the
    /// ray hit, over all views.
    pub negative_pixels: Vec<(usize, usize)>,
}

/// Everything the images locate, over all views.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Localisation {
    pub points: Vec<LocalisedPoint>,
    /// (penetrating object, local edge) of every edge with a localised
    /// point, sorted.
    pub edges: Vec<(usize, u32)>,
    /// Unordered pairs `[i, j]`, `i < j`, with a localised point, sorted.
    pub pairs: Vec<[usize; 2]>,
    pub self_interference: SelfInterference,
    pub open_meshes: OpenMeshReport,
}

impl Localisation {
    /// From the images of `runs` (run with read-back and pair passes; a run
    /// without images adds nothing).
    pub fn from_runs(scene: &InterferenceScene, runs: &[InterferenceRun]) -> Localisation {
        let mut edge_base = Vec::with_capacity(scene.objects.len());
        let mut total = 0u32;
        for o in &scene.objects {
            edge_base.push(total);
            total += o.edges.len() as u32;
        }
        // (object, local edge) of a pixel's ids, 0 = none.
        let owner = |[object, edge]: [u32; 2]| -> Option<(usize, u32)> {
            let object = (object as usize).checked_sub(1)?;
            Some((object, edge.checked_sub(1)? - *edge_base.get(object)?))
        };
        let mut out = Localisation::default();
        let mut edges = BTreeSet::new();
        let mut pairs = BTreeSet::new();
        let mut self_edges = BTreeSet::new();
        let mut negative = vec![0usize; scene.objects.len()];
        for run in runs {
            let Some(image) = &run.image else { continue };
            let width = image.view.width;
            for (p, &count) in image.counts.iter().enumerate() {
                let pixel = [p as u32 % width, p as u32 / width];
                if count < 0 && image.edge_depth[p] < 1.0 {
                    if let Some((object, _)) = owner(image.ids[p]) {
                        negative[object] += 1;
                    }
                    continue;
                }
                let Some((object, edge)) = owner(image.inside_ids[p]) else {
                    continue;
                };
                match (image.penetrated[p] as usize).checked_sub(1) {
                    Some(penetrated) if penetrated != object => {
                        let (x, y) = (pixel[0] as f64 + 0.5, pixel[1] as f64 + 0.5);
                        out.points.push(LocalisedPoint {
                            position: image.view.to_world(x, y, image.edge_depth[p] as f64),
                            axis: image.view.axis,
                            pixel,
                            count,
                            object,
                            edge,
                            penetrated,
                        });
                        edges.insert((object, edge));
                        pairs.insert([object.min(penetrated), object.max(penetrated)]);
                    }
                    _ => {
                        out.self_interference.pixels += 1;
                        self_edges.insert((object, edge));
                    }
                }
            }
        }
        out.edges = edges.into_iter().collect();
        out.pairs = pairs.into_iter().collect();
        out.self_interference.objects = self_edges
            .iter()
            .map(|&(o, _)| o)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        out.self_interference.edges = self_edges.into_iter().collect();
        out.open_meshes = OpenMeshReport {
            open_objects: (0..scene.objects.len())
                .filter(|&k| !scene.objects[k].closed)
                .collect(),
            negative_pixels: negative
                .into_iter()
                .enumerate()
                .filter(|&(_, n)| n > 0)
                .collect(),
        };
        out
    }
}
