//! CPU reference of the counting passes: one ray per pixel centre, the
//! signed sum of equation 4.2 over the faces in front of the edge point;
//! with a [`CullPlan`], each object's faces only inside its scissor
//! rectangle, as the culled passes draw them.

use glam::DVec2;
use rayon::prelude::*;

use super::{CullPlan, InterferenceScene, OrthoView, PixelRect};

/// Rays closer than this (pixels) to a face's projected edge are ambiguous:
/// the rasteriser snaps vertices to 1/256 pixel and breaks exact ties by
/// its own rule.
pub const COVERAGE_BAND_PX: f64 = 1.0 / 128.0;
/// Face depths closer than this to the edge depth ([0, 1] range) are
/// ambiguous: f32 interpolation on the GPU decides "less".
pub const DEPTH_BAND: f64 = 1e-5;

/// The reference counts of one view.
#[derive(Clone, Debug, PartialEq)]
pub struct CpuCounts {
    pub width: u32,
    pub height: u32,
    /// Signed count per pixel, row-major from the top-left.
    pub counts: Vec<i32>,
    /// Pixels whose count depends on rasteriser tie rules (see the bands).
    pub ambiguous: Vec<bool>,
}

/// One face projected to the framebuffer: corners (pixels, y down), depths,
/// +1 front-facing (counter-clockwise in NDC), −1 back-facing.
struct ScreenFace {
    corners: [DVec2; 3],
    depths: [f64; 3],
    sign: i32,
    /// Twice the signed area in framebuffer coordinates.
    area2: f64,
    y_range: (f64, f64),
    x_range: (f64, f64),
    /// The pixels where the face is drawn.
    rect: PixelRect,
}

fn cross(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}

/// Counts, for the rays of `view` aimed at the edge points whose depths are
/// `edge_depth` (row-major, 1.0 = no edge: the far plane), the faces of
/// every object of `scene` nearer than the edge point: +1 front-facing, −1
/// back-facing (§4.4, equation 4.2). Faces are counted against the far plane
/// where there is no edge, exactly as the stencil passes do. With `cull`
/// (the run's [`CullPlan`]), object k's faces count only inside its
/// scissor rectangle and not at all where it has none.
pub fn count_cpu(
    scene: &InterferenceScene,
    view: &OrthoView,
    edge_depth: &[f32],
    cull: Option<&CullPlan>,
) -> CpuCounts {
    count_cpu_objects(scene, view, edge_depth, cull, |_| true)
}

/// [`count_cpu`] over the faces of the objects `k` with `counted(k)` only:
/// the reference of Alg. 4's per-object counts.
pub fn count_cpu_objects(
    scene: &InterferenceScene,
    view: &OrthoView,
    edge_depth: &[f32],
    cull: Option<&CullPlan>,
    counted: impl Fn(usize) -> bool,
) -> CpuCounts {
    let (w, h) = (view.width as usize, view.height as usize);
    assert_eq!(edge_depth.len(), w * h, "edge depth image size");
    let viewport = PixelRect {
        x0: 0,
        y0: 0,
        x1: view.width,
        y1: view.height,
    };
    let faces: Vec<ScreenFace> = scene
        .objects
        .iter()
        .enumerate()
        .filter(|&(k, _)| counted(k))
        .filter_map(|(k, o)| match cull {
            None => Some((o, viewport)),
            Some(plan) => plan.regions[k].map(|r| (o, r.scissor)),
        })
        .flat_map(|(o, rect)| (0..o.mesh.triangles.len()).map(move |t| (o.mesh.corners(t), rect)))
        .filter_map(|(corners, rect)| {
            let s = corners.map(|p| view.to_screen(p.as_dvec3()));
            let c = s.map(|p| DVec2::new(p.x, p.y));
            let area2 = cross(c[1] - c[0], c[2] - c[0]);
            // A face seen edge-on is not rasterised (§4.5.7, degeneracy 2).
            if area2 == 0.0 {
                return None;
            }
            let xs = c.map(|p| p.x);
            let ys = c.map(|p| p.y);
            Some(ScreenFace {
                corners: c,
                depths: s.map(|p| p.z),
                // y points down on screen: counter-clockwise in NDC is
                // negative area here.
                sign: if area2 < 0.0 { 1 } else { -1 },
                area2,
                x_range: (xs[0].min(xs[1]).min(xs[2]), xs[0].max(xs[1]).max(xs[2])),
                y_range: (ys[0].min(ys[1]).min(ys[2]), ys[0].max(ys[1]).max(ys[2])),
                rect,
            })
        })
        .collect();

    let mut counts = vec![0i32; w * h];
    let mut ambiguous = vec![false; w * h];
    counts
        .par_chunks_mut(w)
        .zip(ambiguous.par_chunks_mut(w))
        .enumerate()
        .for_each(|(row, (counts, ambiguous))| {
            let py = row as f64 + 0.5;
            let in_rect = |f: &&ScreenFace| (f.rect.y0..f.rect.y1).contains(&(row as u32));
            for f in faces
                .iter()
                .filter(|f| f.y_range.0 - 1.0 <= py && py <= f.y_range.1 + 1.0)
                .filter(in_rect)
            {
                let x0 = ((f.x_range.0 - 1.0).floor().max(0.0) as usize).max(f.rect.x0 as usize);
                let x1 = ((f.x_range.1 + 1.0).ceil().max(0.0) as usize)
                    .min(w)
                    .min(f.rect.x1 as usize);
                for col in x0..x1 {
                    let p = DVec2::new(col as f64 + 0.5, py);
                    let i = col;
                    let d = edge_depth[row * w + col] as f64;
                    match face_at(f, p) {
                        Coverage::Outside => {}
                        Coverage::Ambiguous => ambiguous[i] = true,
                        Coverage::Inside(depth) => {
                            if (depth - d).abs() <= DEPTH_BAND {
                                ambiguous[i] = true;
                            }
                            if depth < d {
                                counts[i] += f.sign;
                            }
                        }
                    }
                }
            }
        });
    CpuCounts {
        width: view.width,
        height: view.height,
        counts,
        ambiguous,
    }
}

/// The reference identification of one view (Alg. 4): for the edge points
/// of `edge_depth` owned by the objects of `ids` (pass 1's ids image), the
/// (penetrating, penetrated) pairs `(i, j)`, `i ≠ j`, whose edge point is
/// inside `j` by `j`'s faces alone — `certain` where no pixel of the pair is
/// ambiguous, `possible` also counting ambiguous pixels. `cull` as in
/// [`count_cpu`].
pub fn identify_cpu(
    scene: &InterferenceScene,
    view: &OrthoView,
    edge_depth: &[f32],
    ids: &[[u32; 2]],
    cull: Option<&CullPlan>,
) -> CpuPairs {
    let mut pairs = CpuPairs::default();
    for j in 0..scene.objects.len() {
        let counts = count_cpu_objects(scene, view, edge_depth, cull, |k| k == j);
        for (p, &[object, _]) in ids.iter().enumerate() {
            let Some(i) = (object as usize).checked_sub(1) else {
                continue;
            };
            if i == j {
                continue;
            }
            if counts.ambiguous[p] {
                pairs.possible.insert((i, j));
            } else if counts.counts[p] > 0 {
                pairs.certain.insert((i, j));
                pairs.possible.insert((i, j));
                *pairs.certain_pixels.entry((i, j)).or_default() += 1;
            }
        }
    }
    pairs
}

/// (penetrating, penetrated) pairs of [`identify_cpu`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuPairs {
    pub certain: std::collections::BTreeSet<(usize, usize)>,
    pub possible: std::collections::BTreeSet<(usize, usize)>,
    /// Per certain pair, its pixels that are not ambiguous: the pair's
    /// occlusion query counts at least these (each is the nearest edge
    /// point of i, inside j).
    pub certain_pixels: std::collections::BTreeMap<(usize, usize), u64>,
}

enum Coverage {
    Outside,
    /// Within [`COVERAGE_BAND_PX`] of an edge of the face.
    Ambiguous,
    /// Covered; the face's depth at the ray.
    Inside(f64),
}

fn face_at(f: &ScreenFace, p: DVec2) -> Coverage {
    let [a, b, c] = f.corners;
    // e_k: twice the signed area of the sub-triangle opposite corner k.
    let e = [
        cross(c - b, p - b),
        cross(a - c, p - c),
        cross(b - a, p - a),
    ];
    let lengths = [(c - b).length(), (a - c).length(), (b - a).length()];
    let orient = f.area2.signum();
    let mut ambiguous = false;
    for k in 0..3 {
        let distance = orient * e[k] / lengths[k];
        if distance < -COVERAGE_BAND_PX {
            return Coverage::Outside;
        }
        if distance <= COVERAGE_BAND_PX {
            ambiguous = true;
        }
    }
    if ambiguous {
        return Coverage::Ambiguous;
    }
    let depth = (0..3).map(|k| e[k] / f.area2 * f.depths[k]).sum();
    Coverage::Inside(depth)
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Vec3};

    use super::*;
    use crate::mesh::box_mesh;
    use crate::stages::interfere::{InterferenceObject, ViewAxis};

    /// With no edges (far plane everywhere) every ray crosses a closed box
    /// as often front as back: all counts are zero.
    #[test]
    fn closed_box_sums_to_zero_against_far_plane() {
        let scene = InterferenceScene::new(vec![InterferenceObject::new(
            &box_mesh(2),
            Mat4::from_rotation_y(0.3) * Mat4::from_rotation_x(0.2),
        )])
        .unwrap();
        let view = OrthoView::fit(&scene, ViewAxis::Z, 24, 20, 0.01);
        let far = vec![1.0f32; 24 * 20];
        let r = count_cpu(&scene, &view, &far, None);
        for (i, (&c, &amb)) in r.counts.iter().zip(&r.ambiguous).enumerate() {
            assert!(amb || c == 0, "pixel {i}: count {c}");
        }
    }

    /// A ray aimed at a point inside a box meets one front face before it.
    #[test]
    fn point_inside_box_counts_one() {
        let scene = InterferenceScene::new(vec![InterferenceObject::new(
            &box_mesh(1),
            Mat4::from_rotation_y(0.2),
        )])
        .unwrap();
        let view = OrthoView::fit(&scene, ViewAxis::Z, 9, 9, 0.0);
        // The ray through pixel (3, 4) aimed at the depth of the box centre
        // (off the projected diagonals of the box's faces).
        let centre = view.to_screen(Vec3::ZERO.as_dvec3());
        let mut depth = vec![1.0f32; 81];
        depth[4 * 9 + 3] = centre.z as f32;
        let r = count_cpu(&scene, &view, &depth, None);
        assert!(!r.ambiguous[39]);
        assert_eq!(r.counts[39], 1);
    }
}
