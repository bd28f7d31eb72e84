//! The CPU backend of one view: pass 1 (the nearest offset edge point per
//! pixel) done on the CPU, then the counts and the per-object counts of
//! the reference ([`super::count_cpu`], [`super::count_cpu_objects`]),
//! assembled into the product the GPU passes return.
//!
//! **Edges.** Each edge is pushed out along its vertex normals exactly as
//! `vs_edge` does (in f32), projected to the framebuffer, and covers the
//! pixels whose centre lies near the segment. Rasterisers draw one-pixel
//! lines by different rules: Bresenham and the diamond-exit rule cover a
//! centre within `½·max(|cos θ|, |sin θ|)` of the line (θ its angle), a
//! one-pixel-wide rectangle one within `½`; near the end points the rules
//! differ by up to a pixel along the line. Centres inside every rule are
//! covered; those outside all of them are not; the rest are *ambiguous*.
//! A covered fragment's depth is the segment's at the projection of the
//! pixel centre, as Vulkan interpolates line attributes. A pixel's edge
//! depth and ids are those of its nearest covering edge; the pixel is
//! ambiguous when an ambiguously covering edge could be as near, or two
//! edges are within [`DEPTH_BAND`] of each other. With culling, an edge
//! is drawn if its screen box meets its object's region, as the culling
//! pass decides; an edge within rounding of that test covers only
//! ambiguously.
//!
//! **Counts and identification.** The counts are [`super::count_cpu`]'s
//! against these edge depths (with the same scissors when culled), the
//! penetrated objects those of [`super::count_cpu_objects`] per object —
//! each object's faces alone, the reference of Alg. 4's pair passes.
//! Pixels the references flag ambiguous join the edge pass's; pairs and
//! object pixels count only the pixels that are not.

use std::collections::BTreeMap;

use glam::{DVec2, DVec3};
use rayon::prelude::*;

use super::cpu::{COVERAGE_BAND_PX, DEPTH_BAND};
use super::{
    CountImage, CullPlan, DrawCounts, Identification, IdentificationReport, InterferenceRun,
    InterferenceScene, ObjectRegion, OrthoView, PairQueries, PairQuery, count_cpu,
    count_cpu_objects,
};

/// Within this (pixels in x and y) of the culling pass's region test, the
/// f32 arithmetic of the shader decides.
const CULL_BAND_PX: f64 = 1e-3;
/// The same in depth ([0, 1] range).
const CULL_BAND_DEPTH: f64 = 1e-6;

/// One offset edge in framebuffer coordinates (x, y in pixels, y down;
/// depth), as pass 1 draws it.
struct ScreenEdge {
    a: DVec3,
    b: DVec3,
    /// (object + 1, global edge + 1).
    ids: [u32; 2],
    /// The culling test is within rounding: the GPU may or may not draw it.
    doubtful: bool,
    y_range: (f64, f64),
}

/// How an edge covers one pixel centre.
enum LineCoverage {
    Outside,
    /// Covered by some rasterisation rules only; the nearest depth it
    /// could have there.
    Ambiguous(f64),
    /// Covered by every rule, at this depth.
    Inside(f64),
}

fn line_at(e: &ScreenEdge, p: DVec2) -> LineCoverage {
    let (a, b) = (e.a.truncate(), e.b.truncate());
    let d = b - a;
    let len = d.length();
    // Depth change over one pixel along the line: how far an end pixel's
    // depth can be extrapolated.
    let slope = if len > 0.0 {
        (e.b.z - e.a.z).abs() / len
    } else {
        0.0
    };
    if len < COVERAGE_BAND_PX {
        return match (p - a).length() <= 1.0 {
            true => LineCoverage::Ambiguous(e.a.z.min(e.b.z)),
            false => LineCoverage::Outside,
        };
    }
    let t = (p - a).dot(d) / (len * len);
    let along = t * len;
    let distance = (d.x * (p - a).y - d.y * (p - a).x).abs() / len;
    if distance > 0.5 + COVERAGE_BAND_PX || along < -1.0 || along > len + 1.0 {
        return LineCoverage::Outside;
    }
    let depth = e.a.z + t.clamp(0.0, 1.0) * (e.b.z - e.a.z);
    let major = d.x.abs().max(d.y.abs()) / len;
    let sure = distance < 0.5 * major - COVERAGE_BAND_PX && along >= 1.0 && along <= len - 1.0;
    match sure && !e.doubtful {
        true => LineCoverage::Inside(depth),
        false => LineCoverage::Ambiguous(depth - slope),
    }
}

/// Whether the culling pass draws an edge with screen ends `p`, `q` for
/// `region`: `Some(true)` surely, `Some(false)` surely not, `None` within
/// rounding.
fn culled_in(p: DVec3, q: DVec3, region: &ObjectRegion) -> Option<bool> {
    let (lo, hi) = (p.min(q), p.max(q));
    let band = DVec3::new(CULL_BAND_PX, CULL_BAND_PX, CULL_BAND_DEPTH);
    // Margin of "hi ≥ region min and lo ≤ region max", per component.
    let margin = (hi - region.edge_min).min(region.edge_max - lo);
    if margin.cmpge(band).all() {
        Some(true)
    } else if margin.cmplt(-band).any() {
        Some(false)
    } else {
        None
    }
}

/// Pass 1 on the CPU: per pixel, the nearest edge depth (1.0 where none),
/// its ids, and whether that is ambiguous.
struct EdgeImage {
    depth: Vec<f32>,
    ids: Vec<[u32; 2]>,
    ambiguous: Vec<bool>,
}

fn edge_pass(
    scene: &InterferenceScene,
    view: &OrthoView,
    edge_offset: f32,
    cull: Option<&CullPlan>,
) -> EdgeImage {
    let mut edges = Vec::new();
    let mut global = 0u32;
    for (k, o) in scene.objects.iter().enumerate() {
        let region = cull.map(|plan| plan.regions[k]);
        // The offset end point of vertex v, in f32 as the vertex shader.
        let end = |v: u32| {
            let n = o
                .vertex_normals
                .get(v as usize)
                .copied()
                .unwrap_or_default();
            view.to_screen((o.mesh.positions[v as usize] + edge_offset * n).as_dvec3())
        };
        for &[va, vb] in &o.edges {
            global += 1;
            let (a, b) = (end(va), end(vb));
            let doubtful = match region {
                None => false,
                Some(None) => continue,
                Some(Some(r)) => match culled_in(a, b, &r) {
                    Some(true) => false,
                    Some(false) => continue,
                    None => true,
                },
            };
            edges.push(ScreenEdge {
                a,
                b,
                ids: [k as u32 + 1, global],
                doubtful,
                y_range: (a.y.min(b.y), a.y.max(b.y)),
            });
        }
    }
    let (w, h) = (view.width as usize, view.height as usize);
    let mut depth = vec![1.0f32; w * h];
    let mut ids = vec![[0u32; 2]; w * h];
    let mut ambiguous = vec![false; w * h];
    depth
        .par_chunks_mut(w)
        .zip(ids.par_chunks_mut(w))
        .zip(ambiguous.par_chunks_mut(w))
        .enumerate()
        .for_each(|(row, ((depth, ids), ambiguous))| {
            let py = row as f64 + 0.5;
            // Per pixel: the nearest sure depth, the next sure one, and
            // the nearest an ambiguous edge could be.
            let mut nearest = vec![(1.0f64, [0u32; 2]); w];
            let mut second = vec![f64::INFINITY; w];
            let mut doubt = vec![f64::INFINITY; w];
            for e in edges
                .iter()
                .filter(|e| e.y_range.0 - 1.5 <= py && py <= e.y_range.1 + 1.5)
            {
                let x_lo = e.a.x.min(e.b.x) - 1.5;
                let x_hi = e.a.x.max(e.b.x) + 1.5;
                let x0 = x_lo.floor().max(0.0) as usize;
                let x1 = (x_hi.ceil().max(0.0) as usize).min(w);
                for col in x0..x1 {
                    match line_at(e, DVec2::new(col as f64 + 0.5, py)) {
                        LineCoverage::Outside => {}
                        LineCoverage::Ambiguous(d) => doubt[col] = doubt[col].min(d),
                        LineCoverage::Inside(d) => {
                            if d < nearest[col].0 {
                                second[col] = nearest[col].0;
                                nearest[col] = (d, e.ids);
                            } else {
                                second[col] = second[col].min(d);
                            }
                        }
                    }
                }
            }
            for col in 0..w {
                let (d, id) = nearest[col];
                depth[col] = d as f32;
                ids[col] = id;
                ambiguous[col] = doubt[col] < d + DEPTH_BAND || second[col] < d + DEPTH_BAND;
            }
        });
    EdgeImage {
        depth,
        ids,
        ambiguous,
    }
}

/// The CPU backend's run of one view (see the module docs), with the
/// culling of [`CullPlan`] when `cull`. Its identification is the
/// per-object count of Alg. 4 for every object, reported as
/// [`Identification::PairPasses`].
pub fn run_cpu(
    scene: &InterferenceScene,
    view: &OrthoView,
    edge_offset: f32,
    cull: bool,
) -> InterferenceRun {
    let started = std::time::Instant::now();
    let n = scene.objects.len();
    let bounds: Vec<_> = scene.objects.iter().map(|o| o.bounds()).collect();
    let plan = cull.then(|| CullPlan::new(&bounds, view, edge_offset));
    let edges = edge_pass(scene, view, edge_offset, plan.as_ref());
    let total = count_cpu(scene, view, &edges.depth, plan.as_ref());
    // Each object's faces alone are a subset of all faces under the same
    // scissors, so their ambiguous pixels are among the total's.
    let ambiguous: Vec<bool> = edges
        .ambiguous
        .iter()
        .zip(&total.ambiguous)
        .map(|(&e, &c)| e || c)
        .collect();
    let owner = |p: usize| (edges.ids[p][0] as usize).checked_sub(1);
    let mut penetrated = vec![0u32; ambiguous.len()];
    let mut pair_pixels: BTreeMap<(usize, usize), u64> = BTreeMap::new();
    for j in 0..n {
        let alone = count_cpu_objects(scene, view, &edges.depth, plan.as_ref(), |k| k == j);
        for (p, &c) in alone.counts.iter().enumerate() {
            let Some(i) = owner(p).filter(|&i| i != j && c > 0) else {
                continue;
            };
            penetrated[p] = j as u32 + 1;
            if !ambiguous[p] {
                *pair_pixels.entry((i, j)).or_default() += 1;
            }
        }
    }
    let mut object_pixels = vec![0u64; n];
    let mut ambiguous_pixels = vec![0u64; n];
    for (p, &c) in total.counts.iter().enumerate() {
        let Some(k) = owner(p) else { continue };
        if ambiguous[p] {
            ambiguous_pixels[k] += 1;
        } else if c > 0 {
            object_pixels[k] += 1;
        }
    }
    let inside_ids = total
        .counts
        .iter()
        .zip(&edges.ids)
        .map(|(&c, &ids)| if c > 0 { ids } else { [0, 0] })
        .collect();
    let pairs = pair_pixels
        .into_iter()
        .map(|((penetrating, penetrated), pixels)| PairQuery {
            penetrating,
            penetrated,
            pixels,
        })
        .collect();
    InterferenceRun {
        view: *view,
        cull: plan,
        drawn: DrawCounts::default(),
        image: Some(CountImage {
            view: *view,
            counts: total.counts,
            edge_depth: edges.depth,
            ids: edges.ids,
            inside_ids,
            penetrated,
            ambiguous: Some(ambiguous),
        }),
        queries: PairQueries {
            object_pixels,
            pairs,
            early_exit: false,
        },
        identification: IdentificationReport {
            used: Some(Identification::PairPasses),
            fallback: None,
            ambiguous_pixels,
            pair_pass_objects: (0..n).collect(),
        },
        phases: Vec::new(),
        wall_ms: started.elapsed().as_secs_f64() * 1e3,
    }
}
