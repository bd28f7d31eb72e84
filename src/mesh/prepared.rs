//! A mesh made ready for distance queries: welded, checked, duplicate faces
//! cancelled (opposite pairs removed, repeats kept once), inward-facing
//! closed shells flipped (both as in [`super::shells`]), degenerate
//! triangles set aside, per-triangle feature normals and a BVH.
//!
//! **Opposite duplicates** cancel in the winding number (their solid angles
//! are opposite) but are still surface: a thin flap made of a face and its
//! reverse is as near to a point as a face alone. So the distance keeps one
//! copy of each group of duplicates that cancels completely, placed after
//! the oriented triangles ([`PreparedMesh::oriented_triangles`]), and the
//! sign leaves it out: the winding number is summed over the oriented
//! triangles only, and a kept copy's pseudo-normals are zero for its face
//! and its own edges and vertices (a point nearest to them is outside: a
//! flap has no inside) and the oriented mesh's where it shares an edge or
//! a vertex with it, so a point nearest to the seam is signed as without
//! the flap.
//!
//! It builds on the mesh's report ([`MeshReport`], computed first): the
//! report's weld, topology, duplicate groups and closed shells are the
//! prepared mesh's too unless duplicates are left out, and then only the
//! topology and the shells are computed again. The per-triangle,
//! per-edge and per-vertex maps (face and edge normals, feature normals,
//! corners, boxes, the frame's copy) run on all cores; the weld searches
//! only near neighbours ([`super::weld`]), which makes it the smaller part
//! of preparing a mesh of a million triangles.

use std::sync::OnceLock;

use glam::Vec3;
use rayon::prelude::*;

use super::frame::Frame;
use super::report::Analysis;
use super::shells::{closed_shells, reversed};
use super::{Mesh, MeshError, MeshReport, PseudoNormals, Topology};
use crate::geom::{Aabb, Bvh, BvhNode, FastWinding};

/// Largest padding of a field around the mesh, a fraction of its longest
/// side on every side (re-exported as `stages::MAX_PADDING`).
pub const MAX_PADDING: f32 = 10.0;

/// Largest mesh diagonal and coordinate. The fields are computed in the
/// mesh's [`Frame`], where sizes are about 1, so what bounds the world is
/// what stays in world units: squared distances and lengths (the viewer,
/// the welding, the CPU's exact winding sums), finite in float32 below
/// `1.8e19`; 1e18 leaves the `1 + 2·MAX_PADDING` = 21-times grid room.
pub const MAX_EXTENT: f32 = 1e18;

/// Smallest mesh diagonal: a cell of the finest grid (`1/512` of the mesh)
/// and its square stay normal float32 numbers (above 1.2e-38) in world
/// units.
pub const MIN_EXTENT: f32 = 1e-15;

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
    /// For each triangle of [`Self::mesh`], the index of the face of the
    /// mesh as loaded that it came from (welding, duplicates and zero-area
    /// triangles leave faces out, so the two numberings differ).
    pub source_faces: Vec<u32>,
    /// Zero-area triangles left out of the field.
    pub degenerate_skipped: usize,
    /// Duplicate faces left out of the field (opposite pairs, repeats; one
    /// copy of a group that cancels completely is kept for the distance).
    pub duplicates_removed: usize,
    /// Triangles `0..oriented` of [`Self::mesh`] carry the surface's
    /// orientation (sign, winding number); the rest are copies of
    /// cancelling duplicates, surface for the distance only.
    oriented: usize,
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
    /// The box of `mesh`'s positions, kept: every field request's grid is
    /// placed around it (a pass over 555 K vertices is a millisecond).
    bounds: Aabb,
    winding: OnceLock<FastWinding>,
    /// The frame the fields are computed in ([`PreparedMesh::local`]).
    frame: Frame,
    local: OnceLock<Box<PreparedMesh>>,
}

impl PreparedMesh {
    /// The GPU layout of the triangles in `order`: 3 corners per triangle
    /// (vec4, w unused) and their 7 feature normals (3 floats each), as the
    /// distance shaders read them ([`Self::gpu_corners`],
    /// [`Self::gpu_normals`] of each).
    pub fn gpu_triangles(&self, order: &[u32]) -> (Vec<[f32; 4]>, Vec<f32>) {
        let corners = order
            .iter()
            .flat_map(|&t| self.gpu_corners(t as usize))
            .collect();
        let normals = order
            .iter()
            .flat_map(|&t| self.gpu_normals(t as usize))
            .collect();
        (corners, normals)
    }

    /// Triangle `t`'s corners as the distance shaders read them: 3 vec4
    /// (w unused).
    pub fn gpu_corners(&self, t: usize) -> [[f32; 4]; 3] {
        self.corners[t].map(|v| v.extend(0.0).to_array())
    }

    /// Triangle `t`'s feature normals as the distance shaders read them:
    /// `[face, edge01, edge12, edge20, v0, v1, v2]`, 3 floats each.
    pub fn gpu_normals(&self, t: usize) -> [f32; 21] {
        let n = &self.feature_normals[t];
        std::array::from_fn(|i| n[i / 3][i % 3])
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
        // The report's weld, topology, duplicate groups and shells are
        // this mesh's too, until duplicates are left out.
        let Analysis {
            report,
            mut welded,
            mut topology,
            mut source_faces,
            unique,
            mut shells,
        } = MeshReport::analysis(source);
        let mut duplicates_removed = welded.triangles.len() - unique.len();
        // One copy of each group that cancels, kept for the distance.
        let mut surface_only: Vec<([u32; 3], u32)> = Vec::new();
        if duplicates_removed > 0 {
            surface_only = super::cancelled_faces(&welded.triangles)
                .into_iter()
                .map(|t| (welded.triangles[t], source_faces[t]))
                .collect();
            duplicates_removed -= surface_only.len();
            welded.triangles = unique.iter().map(|&t| welded.triangles[t]).collect();
            source_faces = unique.iter().map(|&t| source_faces[t]).collect();
            topology = Topology::build(&welded);
            shells = closed_shells(&welded, &topology);
        }
        let flipped: Vec<_> = shells.into_iter().filter(|s| s.flip).collect();
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
            .into_par_iter()
            .filter(|&t| welded.triangle_area(t) > 0.0)
            .collect();
        if keep.is_empty() {
            return Err(MeshError::AllDegenerate {
                name: source.name.clone(),
            });
        }
        let surface_only: Vec<([u32; 3], u32)> = surface_only
            .into_iter()
            .filter(|&(tri, _)| has_area(&welded.positions, tri))
            .collect();
        let feature_normals: Vec<[Vec3; 7]> = keep
            .par_iter()
            .map(|&t| normals.triangle_feature_normals(&topology, &welded, t))
            .chain(
                surface_only
                    .par_iter()
                    .map(|&(tri, _)| surface_only_normals(&normals, &topology, &welded, tri)),
            )
            .collect();
        let oriented = keep.len();
        let mesh = Mesh::new(
            welded.name.clone(),
            welded.positions.clone(),
            keep.iter()
                .map(|&t| welded.triangles[t])
                .chain(surface_only.iter().map(|&(tri, _)| tri))
                .collect(),
        );
        let corners: Vec<[Vec3; 3]> = (0..mesh.triangles.len())
            .into_par_iter()
            .map(|t| mesh.corners(t))
            .collect();
        let bounds: Vec<Aabb> = corners.par_iter().map(|c| Aabb::of_triangle(*c)).collect();
        let bounds_all = mesh.bounds();
        let centroids: Vec<Vec3> = bounds.par_iter().map(Aabb::center).collect();
        let bvh = Bvh::build(&bounds, &centroids, BVH_LEAF_SIZE);
        Ok(PreparedMesh {
            source_faces: keep
                .iter()
                .map(|&t| source_faces[t])
                .chain(surface_only.iter().map(|&(_, s)| s))
                .collect(),
            degenerate_skipped: welded.triangles.len() - keep.len(),
            duplicates_removed,
            oriented,
            shells_flipped,
            mesh,
            source_hash: source.content_hash(),
            report,
            feature_normals,
            corners,
            triangle_bounds: bounds,
            bvh,
            bounds: bounds_all,
            winding: OnceLock::new(),
            frame: Frame::around(bounds_all),
            local: OnceLock::new(),
        })
    }

    /// The box of [`Self::mesh`]'s positions ([`Mesh::bounds`]).
    pub fn bounds(&self) -> Aabb {
        self.bounds
    }

    pub fn triangle_count(&self) -> usize {
        self.mesh.triangles.len()
    }

    /// The frame the fields are computed in (see [`Frame`]).
    pub fn frame(&self) -> Frame {
        self.frame
    }

    /// This mesh in its [`Frame`], built on first use (itself when the
    /// frame is the world): what every field backend computes on. Triangle
    /// indices, feature normals and the BVH's shape are the same; positions,
    /// corners and boxes are mapped (boxes stay conservative: the map is
    /// monotone).
    pub fn local(&self) -> &PreparedMesh {
        if self.frame.is_identity() {
            return self;
        }
        self.local.get_or_init(|| Box::new(self.in_frame()))
    }

    fn in_frame(&self) -> PreparedMesh {
        let frame = self.frame;
        let positions = self.mesh.positions.par_iter().map(|&p| frame.to_local(p));
        let mesh = Mesh::new(
            self.mesh.name.clone(),
            positions.collect(),
            self.mesh.triangles.clone(),
        );
        let corners = (0..mesh.triangles.len())
            .into_par_iter()
            .map(|t| mesh.corners(t))
            .collect();
        let nodes = self.bvh.nodes.par_iter().map(|n| {
            let b = frame.box_to_local(Aabb {
                min: Vec3::from_array(n.min),
                max: Vec3::from_array(n.max),
            });
            BvhNode {
                min: b.min.to_array(),
                max: b.max.to_array(),
                ..*n
            }
        });
        PreparedMesh {
            source_hash: mesh.content_hash(),
            bounds: mesh.bounds(),
            mesh,
            report: self.report.clone(),
            source_faces: self.source_faces.clone(),
            degenerate_skipped: self.degenerate_skipped,
            duplicates_removed: self.duplicates_removed,
            oriented: self.oriented,
            shells_flipped: self.shells_flipped,
            feature_normals: self.feature_normals.clone(),
            corners,
            triangle_bounds: self
                .triangle_bounds
                .par_iter()
                .map(|&b| frame.box_to_local(b))
                .collect(),
            bvh: Bvh {
                nodes: nodes.collect(),
                order: self.bvh.order.clone(),
            },
            winding: OnceLock::new(),
            frame: Frame::IDENTITY,
            local: OnceLock::new(),
        }
    }

    /// The fast winding-number evaluator of the oriented triangles
    /// ([`Self::oriented_triangles`]), built on first use.
    pub fn winding(&self) -> &FastWinding {
        self.winding
            .get_or_init(|| FastWinding::new(&self.mesh.positions, self.oriented_triangles()))
    }

    /// The triangles that carry the surface's orientation: all but the
    /// kept copies of cancelling duplicates (module docs). The sign and the
    /// winding number are computed over these; the distance over all.
    pub fn oriented_triangles(&self) -> &[[u32; 3]] {
        &self.mesh.triangles[..self.oriented]
    }
}

/// Whether `tri` has a non-zero area (in f64, as [`Mesh::triangle_area`]).
fn has_area(positions: &[Vec3], tri: [u32; 3]) -> bool {
    let [a, b, c] = tri.map(|v| positions[v as usize].as_dvec3());
    (b - a).cross(c - a).length_squared() > 0.0
}

/// The feature normals of a kept copy of cancelling duplicates: zero for
/// its face and for the edges and vertices only it has, the oriented
/// mesh's where it shares them (module docs).
fn surface_only_normals(
    normals: &PseudoNormals,
    topology: &Topology,
    mesh: &Mesh,
    [a, b, c]: [u32; 3],
) -> [Vec3; 7] {
    let edge = |p: u32, q: u32| {
        topology.vertex_faces(p as usize).iter().find_map(|&f| {
            let t = mesh.triangles[f as usize];
            (0..3)
                .find(|&k| {
                    let (u, v) = (t[k], t[(k + 1) % 3]);
                    (u, v) == (p, q) || (u, v) == (q, p)
                })
                .map(|k| normals.edge[topology.face_edges(f as usize)[k] as usize])
        })
    };
    let vertex = |v: u32| normals.vertex.get(v as usize).copied();
    [
        Vec3::ZERO,
        edge(a, b).unwrap_or(Vec3::ZERO),
        edge(b, c).unwrap_or(Vec3::ZERO),
        edge(c, a).unwrap_or(Vec3::ZERO),
        vertex(a).unwrap_or(Vec3::ZERO),
        vertex(b).unwrap_or(Vec3::ZERO),
        vertex(c).unwrap_or(Vec3::ZERO),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{DEFAULT_WELD_TOLERANCE, box_mesh, cancel_duplicates, torus};
    use glam::Mat4;

    /// The triangles and feature normals of `source` prepared step by
    /// step, nothing shared with the report: weld, duplicates left out,
    /// topology, shells, flips, normals, zero-area triangles left out.
    fn step_by_step(source: &Mesh) -> (Vec<[u32; 3]>, Vec<[Vec3; 7]>, usize) {
        let mut welded = source.weld(DEFAULT_WELD_TOLERANCE).mesh;
        let (unique, _) = cancel_duplicates(&welded.triangles);
        let cancelled: Vec<[u32; 3]> = crate::mesh::cancelled_faces(&welded.triangles)
            .into_iter()
            .map(|t| welded.triangles[t])
            .collect();
        welded.triangles = unique.iter().map(|&t| welded.triangles[t]).collect();
        let mut topology = Topology::build(&welded);
        let flips: Vec<u32> = closed_shells(&welded, &topology)
            .into_iter()
            .filter(|s| s.flip)
            .flat_map(|s| s.faces)
            .collect();
        for &t in &flips {
            welded.triangles[t as usize] = reversed(welded.triangles[t as usize]);
        }
        topology = Topology::build(&welded);
        let normals = PseudoNormals::compute(&welded, &topology);
        let keep: Vec<usize> = (0..welded.triangles.len())
            .filter(|&t| welded.triangle_area(t) > 0.0)
            .collect();
        let mut features: Vec<[Vec3; 7]> = keep
            .iter()
            .map(|&t| normals.triangle_feature_normals(&topology, &welded, t))
            .collect();
        let mut triangles: Vec<[u32; 3]> = keep.iter().map(|&t| welded.triangles[t]).collect();
        for tri in cancelled {
            features.push(surface_only_normals(&normals, &topology, &welded, tri));
            triangles.push(tri);
        }
        (triangles, features, flips.len())
    }

    /// The preparation that builds on the report's weld, topology,
    /// duplicate groups and shells gives the step-by-step one's mesh, on
    /// meshes with and without duplicates (whose topology and shells it
    /// computes again), with inward and nested shells and a seam to weld.
    #[test]
    fn building_on_the_report_prepares_the_same_mesh() {
        let inward = |m: Mesh| {
            let mut m = m;
            for t in &mut m.triangles {
                *t = reversed(*t);
            }
            m
        };
        let cube = box_mesh(2);
        let mut doubled = cube.clone();
        let [a, b, c] = cube.triangles[3];
        doubled.triangles.extend([[a, b, c], [a, c, b], [a, c, b]]);
        let nested = Mesh::merge(
            &[
                inward(box_mesh(3)),
                box_mesh(1).transformed(Mat4::from_scale(Vec3::splat(0.4))),
            ],
            "nested",
        );
        // The cube with its first corner stored twice, one copy used by
        // half its triangles: a seam the weld closes.
        let mut seamed = cube.clone();
        seamed
            .positions
            .push(seamed.positions[0] + Vec3::splat(1e-8));
        let seam = (seamed.positions.len() - 1) as u32;
        for t in seamed.triangles.iter_mut().step_by(2) {
            for v in t.iter_mut().filter(|v| **v == 0) {
                *v = seam;
            }
        }
        let mut doubled_inward = inward(torus(12, 8, 0.4, 0.15));
        let first = doubled_inward.triangles[0];
        doubled_inward.triangles.push(first);
        for mesh in [cube, doubled, nested, seamed, doubled_inward] {
            let prepared = PreparedMesh::new(&mesh).unwrap();
            let (triangles, features, flipped) = step_by_step(&mesh);
            assert_eq!(prepared.mesh.triangles, triangles, "{}", mesh.name);
            assert_eq!(prepared.feature_normals, features, "{}", mesh.name);
            assert_eq!(prepared.report, MeshReport::analyze(&mesh), "{}", mesh.name);
            // Each flipped face counted once per shell flipped.
            assert_eq!(
                prepared.shells_flipped > 0,
                flipped > 0,
                "{}: {} shells flipped, {flipped} faces",
                mesh.name,
                prepared.shells_flipped
            );
        }
    }
}
