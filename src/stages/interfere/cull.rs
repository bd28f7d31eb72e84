//! Bounding-box culling of the rendering passes — exact, not an
//! approximation: it changes no count that matters, only how many
//! triangles and edges the rasteriser is sent.
//!
//! Knott winnows candidate pairs with bounding boxes before the pairwise
//! image-space tests of earlier work (§4.1.1, Baciu and Wong; §2) and
//! calls for "some precomputation that minimizes the world-space area that
//! rays are cast into" (§4.5.4). Here the same boxes restrict where each
//! object is drawn in every pass of one view.
//!
//! **Broad phase.** Let `G_X` be object X's box grown by the edge offset
//! (edge points are pushed out by at most that, §4.3.3) and by one pixel
//! of the view along each axis (a line fragment's pixel centre lies within
//! a pixel of its segment, and the depth of that fragment is the segment's;
//! faces are sampled at pixel centres snapped to 1/256 pixel). A ray's
//! edge point `q` owned by A can count as inside X ≠ A only if `q ∈ G_A ∩
//! G_X`. So X's *overlap region* `O_X` is the box around `G_X ∩ G_Y` over
//! the objects Y whose grown boxes meet X's (found by sweep and prune).
//! An object whose box meets no other box cannot interfere: nothing of it
//! is drawn at all (an "apart" scene draws nothing and ends in early
//! non-interference, §4.5.2).
//!
//! **Faces** (passes 2–3 and the pair passes' counts, Alg. 1 and 4). At a
//! pixel outside `S_X`, the screen rectangle of `O_X` rounded outward to
//! whole pixels, the ray's edge point is not in X's box, so for a closed X
//! its faces there add a net 0 (§4.3.2). X's faces are therefore drawn with
//! the scissor `S_X` — inside it every face covering a pixel counts as
//! before, outside none does — and a compute pass sends only the triangles
//! whose screen box meets `S_X` (culling more would change nothing the
//! scissor lets through).
//!
//! **Edges** (passes 1 and 4 and the pair identification). An edge of A
//! whose screen box (with the offset) misses `O_A` grown by one pixel can
//! never be inside anything, and is not drawn. This changes which edge
//! point is the nearest at some pixels: a hidden edge may become visible,
//! so fewer interferences are missed behind edges that cannot interfere
//! (figure 4.11). The CPU reference counts against the depths the GPU
//! drew, so it agrees pixel for pixel when it applies the same scissors.
//!
//! **Pair passes** (Alg. 4), per pair (i penetrating, j penetrated). An
//! edge point of i can count as inside j only in `G_i ∩ G_j` (as above),
//! so the pair's rectangle `R_ij` is the screen rectangle of that box
//! rounded outward ([`CullPlan::pair_region`]): a compute pass keeps, per
//! pair, i's edges whose screen box meets that box grown by a pixel, and
//! they are drawn with the scissor `R_ij`. j's faces are counted (and
//! uncounted) once for all its pairs with the scissor `U_j`, the rectangle
//! around `R_ij` over j's penetrating neighbours i — not `S_j`, which also
//! covers neighbours that penetrate nothing — sending the triangles meeting
//! `U_j`. j's count is whole inside `U_j ⊇ R_ij`, so each pair's query
//! counts the same edge pixels as drawing i's edges and j's faces inside
//! `S_j`: outside `R_ij` no edge point of i is inside j. The scissor
//! `R_ij` changes no count by itself — i's fragments lie within a pixel of
//! its edges and j's non-zero counts within j's screen box, so they meet
//! only in `R_ij` — but it bounds the fragments and keeps the argument
//! local. A pair whose list is empty is not drawn and answers 0. For an
//! open j, whose faces can add a non-zero count behind it (outside `G_j`
//! in depth), an edge of i lying only there is no longer drawn: that count
//! is the open mesh's artefact, not interference, and the main passes
//! already cull such edges.
//!
//! What differs from drawing everything, at a pixel whose nearest edge
//! point is the same: nothing for closed meshes, except that spurious
//! self-interference (§4.5.8) outside the object's own `S_X` is no longer
//! counted. An open mesh adds non-zero counts wherever its hole is seen;
//! with culling those only show inside its `S_X`, i.e. where it overlaps
//! another object.

use glam::DVec3;

use super::OrthoView;
use crate::geom::Aabb;

/// A rectangle of framebuffer pixels `x0..x1` × `y0..y1` (y down).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PixelRect {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

impl PixelRect {
    /// The rectangle around `self` and `other`.
    pub fn around(self, other: PixelRect) -> PixelRect {
        PixelRect {
            x0: self.x0.min(other.x0),
            y0: self.y0.min(other.y0),
            x1: self.x1.max(other.x1),
            y1: self.y1.max(other.y1),
        }
    }

    pub fn contains(&self, x: u32, y: u32) -> bool {
        (self.x0..self.x1).contains(&x) && (self.y0..self.y1).contains(&y)
    }
}

/// Where one object is drawn in one view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObjectRegion {
    /// `S_X`: the object's faces are drawn only inside it (the scissor).
    pub scissor: PixelRect,
    /// Screen box (pixels x, y from the top-left; depth) of `O_X` grown by
    /// one pixel: only edges whose screen box meets it are drawn.
    pub edge_min: DVec3,
    pub edge_max: DVec3,
}

/// The culling of one view.
#[derive(Clone, Debug, PartialEq)]
pub struct CullPlan {
    /// Per object; `None`: its box meets no other box, nothing is drawn.
    pub regions: Vec<Option<ObjectRegion>>,
    /// Per object, the objects whose grown boxes meet its own, ascending:
    /// the only candidates of the pair passes (Alg. 4).
    pub neighbours: Vec<Vec<usize>>,
    view: OrthoView,
    /// Per object, `G_X`: its world box grown by the slack.
    grown: Vec<(DVec3, DVec3)>,
}

impl CullPlan {
    /// The plan of `view` for objects with world boxes `bounds` and edges
    /// pushed out by `edge_offset`.
    pub fn new(bounds: &[Aabb], view: &OrthoView, edge_offset: f32) -> CullPlan {
        let [u, v, w] = view.axis.components();
        let (pu, pv) = view.pixel_size();
        let mut slack = DVec3::splat(edge_offset.abs() as f64);
        slack[u] += pu;
        slack[v] += pv;
        slack[w] += pu.max(pv);
        let grown: Vec<(DVec3, DVec3)> = bounds
            .iter()
            .map(|b| (b.min.as_dvec3() - slack, b.max.as_dvec3() + slack))
            .collect();
        let neighbours = overlapping(&grown);
        let mut plan = CullPlan {
            regions: Vec::new(),
            neighbours,
            view: *view,
            grown,
        };
        plan.regions = (0..bounds.len())
            .map(|k| {
                let (min, max) = plan.neighbours[k]
                    .iter()
                    .map(|&j| plan.overlap(k, j))
                    .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))?;
                region(view, min, max)
            })
            .collect();
        plan
    }

    /// `G_a ∩ G_b` (empty unless they are neighbours).
    fn overlap(&self, a: usize, b: usize) -> (DVec3, DVec3) {
        let (a, b) = (self.grown[a], self.grown[b]);
        (a.0.max(b.0), a.1.min(b.1))
    }

    /// Where the pair passes draw the pair (`i` penetrating, `j`
    /// penetrated): the region of `G_i ∩ G_j`, its scissor `R_ij`; `None`
    /// when the boxes do not meet (or meet off the screen).
    pub fn pair_region(&self, i: usize, j: usize) -> Option<ObjectRegion> {
        if self.neighbours[i].binary_search(&j).is_err() {
            return None;
        }
        let (min, max) = self.overlap(i, j);
        region(&self.view, min, max)
    }

    /// Whether object `k`'s faces are drawn at pixel (x, y).
    pub fn faces_at(&self, k: usize, x: u32, y: u32) -> bool {
        self.regions[k].is_some_and(|r| r.scissor.contains(x, y))
    }

    /// Objects drawn at all.
    pub fn active(&self) -> impl Iterator<Item = (usize, &ObjectRegion)> {
        self.regions
            .iter()
            .enumerate()
            .filter_map(|(k, r)| r.as_ref().map(|r| (k, r)))
    }
}

/// Per box, the other boxes it meets (closed boxes), by sweep and prune
/// along x.
fn overlapping(boxes: &[(DVec3, DVec3)]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&a, &b| boxes[a].0.x.total_cmp(&boxes[b].0.x));
    let mut out = vec![Vec::new(); boxes.len()];
    for (n, &i) in order.iter().enumerate() {
        for &j in order[n + 1..]
            .iter()
            .take_while(|&&j| boxes[j].0.x <= boxes[i].1.x)
        {
            if boxes[i].0.cmple(boxes[j].1).all() && boxes[j].0.cmple(boxes[i].1).all() {
                out[i].push(j);
                out[j].push(i);
            }
        }
    }
    for list in &mut out {
        list.sort_unstable();
    }
    out
}

/// The region of the world box `min..max` in `view`; `None` when its
/// pixel rectangle is empty.
fn region(view: &OrthoView, min: DVec3, max: DVec3) -> Option<ObjectRegion> {
    let (a, b) = (view.to_screen(min), view.to_screen(max));
    let (lo, hi) = (a.min(b), a.max(b));
    let clamp = |x: f64, n: u32| x.clamp(0.0, n as f64) as u32;
    let scissor = PixelRect {
        x0: clamp(lo.x.floor(), view.width),
        y0: clamp(lo.y.floor(), view.height),
        x1: clamp(hi.x.ceil(), view.width),
        y1: clamp(hi.y.ceil(), view.height),
    };
    if scissor.x0 >= scissor.x1 || scissor.y0 >= scissor.y1 {
        return None;
    }
    // One pixel in x and y; in depth, the larger pixel side.
    let w = view.axis.components()[2];
    let (pu, pv) = view.pixel_size();
    let pixel = DVec3::new(1.0, 1.0, pu.max(pv) / (view.max[w] - view.min[w]));
    Some(ObjectRegion {
        scissor,
        edge_min: lo - pixel,
        edge_max: hi + pixel,
    })
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::stages::interfere::ViewAxis;

    fn view() -> OrthoView {
        OrthoView {
            axis: ViewAxis::Z,
            width: 100,
            height: 100,
            min: DVec3::ZERO,
            max: DVec3::splat(10.0),
        }
    }

    fn cube(min: f32, max: f32) -> Aabb {
        Aabb {
            min: Vec3::splat(min),
            max: Vec3::splat(max),
        }
    }

    /// Two overlapping boxes get the pixels of their intersection (plus the
    /// slack); a box apart from both gets nothing.
    #[test]
    fn regions_cover_the_overlap_and_skip_lonely_boxes() {
        let plan = CullPlan::new(
            &[cube(1.0, 4.0), cube(3.0, 6.0), cube(8.0, 9.0)],
            &view(),
            0.05,
        );
        assert_eq!(plan.neighbours, vec![vec![1], vec![0], vec![]]);
        assert!(plan.regions[2].is_none());
        let r = plan.regions[0].unwrap();
        assert_eq!(plan.regions[1].unwrap().scissor, r.scissor);
        // x: 3 − 0.05 − 0.1 .. 4 + 0.15 world → pixels 28.5 .. 41.5; y is
        // flipped: 100 − 41.5 .. 100 − 28.5.
        assert_eq!(
            r.scissor,
            PixelRect {
                x0: 28,
                y0: 58,
                x1: 42,
                y1: 72
            }
        );
        assert!(plan.faces_at(0, 30, 60) && !plan.faces_at(0, 27, 60));
        assert!(!plan.faces_at(2, 85, 15));
        assert!((r.edge_min.x - 27.5).abs() < 1e-5 && (r.edge_max.x - 42.5).abs() < 1e-5);
        assert_eq!(plan.pair_region(0, 1), Some(r));
        assert_eq!(plan.pair_region(1, 0), Some(r));
        assert_eq!(plan.pair_region(0, 2), None);
    }

    /// A box meeting two others far apart: its overlap region spans both,
    /// each pair's rectangle only its own overlap.
    #[test]
    fn pair_regions_are_each_overlap() {
        let plan = CullPlan::new(
            &[cube(1.0, 9.0), cube(0.5, 2.0), cube(8.0, 9.5)],
            &view(),
            0.05,
        );
        let [a, b] = [1, 2].map(|i| plan.pair_region(i, 0).unwrap().scissor);
        let s = plan.regions[0].unwrap().scissor;
        assert_eq!(a.around(b), s);
        assert!(a.x1 < b.x0, "{a:?} {b:?}");
        assert!(a.contains(15, 85) && !b.contains(15, 85) && s.contains(50, 50));
        assert!(!a.contains(50, 50) && !b.contains(50, 50));
    }
}
