//! A mesh made ready for distance queries: welded, checked, duplicate faces
//! cancelled (opposite pairs removed, repeats kept once), inward-facing
//! closed shells flipped (both as in [`super::shells`]), degenerate
//! triangles set aside, per-triangle feature normals and a BVH.

use std::sync::OnceLock;

use glam::Vec3;

use super::shells::{cancel_duplicates, closed_shells, reversed};
use super::{DEFAULT_WELD_TOLERANCE, Mesh, MeshError, MeshReport, PseudoNormals, Topology};
use crate::geom::{Aabb, Bvh, FastWinding};

/// Largest padding of a field around the mesh, a fraction of its longest
/// side on every side (re-exported as `stages::MAX_PADDING`).
pub const MAX_PADDING: f32 = 10.0;

/// Largest mesh diagonal and coordinate: the distance and normal code forms
/// products of four coordinate differences (squared areas), which must stay
/// finite in float32 over the largest grid, `1 + 2·MAX_PADDING` = 21 times
/// the mesh: `(21 · 6e7)⁴ < f32::MAX`; 1e7 keeps a margin of 1.6e3.
pub const MAX_EXTENT: f32 = 1e7;

/// Smallest mesh diagonal: the fourth power, 1e-32, stays six orders above
/// the smallest normal float32 (1.2e-38), room for triangles a thousand
/// times smaller than the mesh.
pub const MIN_EXTENT: f32 = 1e-8;

/// Largest leaf of the query BVH (triangles).
const BVH_LEAF_SIZE: usize = 4;

/// The input every SDF backend takes.
pub struct PreparedMesh {
    /// Welded mesh holding only the triangles with non-zero area; field
    /// products index triangles of this mesh.
    pub mesh: Mesh,
    /// Content hash of the mesh as loaded (before welding), for the cache.
    pub source_hash: u64,
    /// The report of the mesh as loaded.
    pub report: MeshReport,
    /// Zero-area triangles left out of the field.
    pub degenerate_skipped: usize,
    /// Duplicate faces left out of the field (opposite pairs, repeats).
    pub duplicates_removed: usize,
    /// Closed shells turned outward (they faced inward).
    pub shells_flipped: usize,
    /// `[face, edge01, edge12, edge20, v0, v1, v2]` pseudo-normals per triangle.
    pub feature_normals: Vec<[Vec3; 7]>,
    /// Corners of each triangle, stored together for cache-friendly queries.
    pub corners: Vec<[Vec3; 3]>,
    /// Bounding box of each triangle: a cheap lower bound that skips most
    /// exact distance evaluations in the CPU queries.
    pub triangle_bounds: Vec<Aabb>,
    pub bvh: Bvh,
    winding: OnceLock<FastWinding>,
}

impl PreparedMesh {
    /// The GPU layout of the triangles in `order`: 3 corners per triangle
    /// (vec4, w unused) and their 7 feature normals (3 floats each), as the
    /// distance shaders read them.
    pub fn gpu_triangles(&self, order: &[u32]) -> (Vec<[f32; 4]>, Vec<f32>) {
        let corners = order
            .iter()
            .flat_map(|&t| self.corners[t as usize].map(|v| v.extend(0.0).to_array()))
            .collect();
        let normals = order
            .iter()
            .flat_map(|&t| {
                self.feature_normals[t as usize]
                    .iter()
                    .flat_map(|v| v.to_array())
            })
            .collect();
        (corners, normals)
    }

    pub fn new(source: &Mesh) -> Result<Self, MeshError> {
        puffin::profile_function!();
        source.validate()?;
        let bounds = source.bounds();
        let extent = bounds.diagonal();
        let coordinate = bounds.min.abs().max(bounds.max.abs()).max_element();
        if !(MIN_EXTENT..=MAX_EXTENT).contains(&extent) || coordinate > MAX_EXTENT {
            return Err(MeshError::OutOfRange {
                name: source.name.clone(),
                extent,
                coordinate,
            });
        }
        let report = MeshReport::analyze(source);
        let mut welded = source.weld(DEFAULT_WELD_TOLERANCE).mesh;
        let (unique, _) = cancel_duplicates(&welded.triangles);
        let duplicates_removed = welded.triangles.len() - unique.len();
        welded.triangles = unique.iter().map(|&t| welded.triangles[t]).collect();
        let mut topology = Topology::build(&welded);
        let flipped: Vec<_> = closed_shells(&welded, &topology)
            .into_iter()
            .filter(|s| s.flip)
            .collect();
        let shells_flipped = flipped.len();
        let flips: Vec<u32> = flipped.into_iter().flat_map(|s| s.faces).collect();
        if !flips.is_empty() {
            for t in flips {
                welded.triangles[t as usize] = reversed(welded.triangles[t as usize]);
            }
            // Flipping moves edges between corner slots: rebuild.
            topology = Topology::build(&welded);
        }
        let normals = PseudoNormals::compute(&welded, &topology);
        let keep: Vec<usize> = (0..welded.triangles.len())
            .filter(|&t| welded.triangle_area(t) > 0.0)
            .collect();
        if keep.is_empty() {
            return Err(MeshError::AllDegenerate {
                name: source.name.clone(),
            });
        }
        let feature_normals = keep
            .iter()
            .map(|&t| normals.triangle_feature_normals(&topology, &welded, t))
            .collect();
        let mesh = Mesh::new(
            welded.name.clone(),
            welded.positions.clone(),
            keep.iter().map(|&t| welded.triangles[t]).collect(),
        );
        let corners: Vec<[Vec3; 3]> = (0..mesh.triangles.len()).map(|t| mesh.corners(t)).collect();
        let bounds: Vec<Aabb> = corners.iter().map(|c| Aabb::of_triangle(*c)).collect();
        let centroids: Vec<Vec3> = bounds.iter().map(Aabb::center).collect();
        let bvh = Bvh::build(&bounds, &centroids, BVH_LEAF_SIZE);
        Ok(PreparedMesh {
            degenerate_skipped: welded.triangles.len() - keep.len(),
            duplicates_removed,
            shells_flipped,
            mesh,
            source_hash: source.content_hash(),
            report,
            feature_normals,
            corners,
            triangle_bounds: bounds,
            bvh,
            winding: OnceLock::new(),
        })
    }

    pub fn triangle_count(&self) -> usize {
        self.mesh.triangles.len()
    }

    /// The fast winding-number evaluator, built on first use.
    pub fn winding(&self) -> &FastWinding {
        self.winding
            .get_or_init(|| FastWinding::new(&self.mesh.positions, &self.mesh.triangles))
    }
}
