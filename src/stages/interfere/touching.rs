//! Coincident surfaces: pairs that touch without interfering.
//!
//! The counting test misses solids whose surfaces coincide — two copies of
//! one closed mesh at the same pose, or two boxes sharing a face from
//! outside: every edge is pushed *outward* by the edge offset (§4.3.3), so
//! no edge point is inside the other solid and every count is 0.
//!
//! # Method
//!
//! The images already hold, per pixel, the nearest (offset) edge point and
//! its object (pass 1, Alg. 2). A pixel is *tied* with object `j` when that
//! point, owned by `i ≠ j`, lies within the test's own precision of `j`'s
//! surface:
//!
//! ```text
//! dist(P, surface_j) ≤ tol = o + ½·hypot(pixel_x, pixel_y) + 1e-5·depth_range
//! ```
//!
//! `P` is the world point at the pixel centre and the edge depth. An edge
//! point lies within `o` (the edge offset) of its own surface, since the
//! offset is a blend of unit pseudo-normals; the rasterised pixel centre is
//! within half a pixel of the line in the view plane; the depth is exact to
//! well within 1e-5 of its range. So where `i`'s surface lies on `j`'s,
//! every pixel of `i`'s edges there is tied, and no pixel is tied whose
//! edge point is farther than `tol` from `j` — the same precision the
//! counts have (a pixel in the view plane, the offset in depth). The
//! distance is exact (f64 point–triangle distance), found through a BVH per
//! object that prunes everything farther than `tol`.
//!
//! Pairs with tied pixels that the counts did not already find interfering
//! are reported as *touching*, with their tied pixels summed over the
//! views. Both backends feed the same images in, so they agree wherever
//! the CPU backend can decide the edge depth and owner.

use std::collections::BTreeMap;

use glam::{DVec3, Vec3};

use super::{CountImage, InterferenceRun, InterferenceScene};
use crate::geom::{Aabb, Bvh, distance_squared_point_triangle_f64};

/// Two objects whose surfaces coincide somewhere, without interfering.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TouchingPair {
    /// `[i, j]`, `i < j`.
    pub objects: [usize; 2],
    /// Pixels, over all views, whose edge point of one lies on the other.
    pub tied_pixels: u64,
}

/// One object's triangles in f64 with a BVH over them.
struct Surface {
    bounds: Aabb,
    triangles: Vec<[DVec3; 3]>,
    bvh: Bvh,
}

impl Surface {
    fn new(mesh: &crate::mesh::Mesh) -> Surface {
        let corners: Vec<[Vec3; 3]> = (0..mesh.triangles.len()).map(|t| mesh.corners(t)).collect();
        let boxes: Vec<Aabb> = corners.iter().map(|&c| Aabb::of_triangle(c)).collect();
        let centroids: Vec<Vec3> = boxes.iter().map(Aabb::center).collect();
        Surface {
            bounds: mesh.bounds(),
            triangles: corners.iter().map(|c| c.map(Vec3::as_dvec3)).collect(),
            bvh: Bvh::build(&boxes, &centroids, 4),
        }
    }

    /// Whether `p` is within `tol` of the surface.
    fn within(&self, p: DVec3, tol: f64) -> bool {
        let q = p.as_vec3();
        // The f32 boxes are pruned with a little slack for the rounding of `q`.
        let slack = (tol * (1.0 + 1e-5) + 1e-6 * p.abs().max_element()) as f32;
        if self.bounds.distance_squared_to_point(q) > slack * slack {
            return false;
        }
        self.bvh
            .nearest(q, slack * slack, |t| {
                let d2 = distance_squared_point_triangle_f64(p, self.triangles[t as usize]);
                if d2 <= tol * tol { 0.0 } else { f32::INFINITY }
            })
            .is_some()
    }
}

/// The tolerance of one view (see the module docs).
fn tolerance(image: &CountImage, edge_offset: f32) -> f64 {
    let (px, py) = image.view.pixel_size();
    let [_, _, w] = image.view.axis.components();
    let depth_range = image.view.max[w] - image.view.min[w];
    edge_offset.abs() as f64 + 0.5 * px.hypot(py) + 1e-5 * depth_range
}

/// Tied pixels of one image per unordered pair.
fn tied_pixels(
    surfaces: &[Surface],
    image: &CountImage,
    edge_offset: f32,
    tied: &mut BTreeMap<[usize; 2], u64>,
) {
    let tol = tolerance(image, edge_offset);
    let width = image.view.width as usize;
    for (p, (&depth, ids)) in image.edge_depth.iter().zip(&image.ids).enumerate() {
        let Some(i) = (ids[0] as usize).checked_sub(1) else {
            continue;
        };
        if depth >= 1.0 {
            continue;
        }
        let (x, y) = ((p % width) as f64 + 0.5, (p / width) as f64 + 0.5);
        let point = image.view.to_world(x, y, depth as f64);
        for (j, surface) in surfaces.iter().enumerate() {
            if j != i && surface.within(point, tol) {
                *tied.entry([i.min(j), i.max(j)]).or_default() += 1;
            }
        }
    }
}

/// The touching pairs of `runs` (those with images): pairs with tied
/// pixels that are not in `interfering`.
pub fn touching_pairs(
    scene: &InterferenceScene,
    runs: &[InterferenceRun],
    edge_offset: f32,
    interfering: &[[usize; 2]],
) -> Vec<TouchingPair> {
    let images: Vec<&CountImage> = runs.iter().filter_map(|r| r.image.as_ref()).collect();
    if images.is_empty() || scene.objects.len() < 2 {
        return Vec::new();
    }
    let surfaces: Vec<Surface> = scene
        .objects
        .iter()
        .map(|o| Surface::new(&o.mesh))
        .collect();
    let mut tied = BTreeMap::new();
    for image in images {
        tied_pixels(&surfaces, image, edge_offset, &mut tied);
    }
    tied.into_iter()
        .filter(|(pair, _)| !interfering.contains(pair))
        .map(|(objects, tied_pixels)| TouchingPair {
            objects,
            tied_pixels,
        })
        .collect()
}
