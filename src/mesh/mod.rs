//! Triangle meshes: loading, welding, topology, normals, reports, primitives.
//!
//! A [`Mesh`] is an indexed triangle list. Everything downstream (stages,
//! viewer, CLI) takes a mesh that passed [`Mesh::validate`]: finite
//! coordinates, indices in range, at least one triangle of non-zero area.
//!
//! The usual pipeline for a file is
//!
//! ```text
//! load_file ──▶ Mesh::weld ──▶ Topology::build ──▶ PseudoNormals::compute
//!                  │                 │
//!                  └──────▶ MeshReport::analyze (what `collidoscope info` prints)
//! ```
//!
//! Geometric quantities that decide a sign or a degeneracy (face normals,
//! areas) are computed in `f64` from the `f32` positions, so that thin
//! triangles of large scanned meshes do not flip or vanish by rounding.

mod fast_hash;
mod formats;
mod frame;
mod load;
mod normals;
mod prepared;
mod primitives;
mod report;
mod self_intersect;
mod shells;
mod topology;
mod weld;

pub use formats::{MESH_EXTENSIONS, MeshFormat, load_file, load_file_merged};
pub use frame::{Frame, f32_spacing};
pub use load::{
    FaceProblem, LoadedFile, face_problems, load_obj, load_obj_checked, load_obj_merged,
    load_obj_merged_checked, parse_obj_str,
};
pub use normals::PseudoNormals;
pub use prepared::{MAX_EXTENT, MAX_PADDING, MIN_EXTENT, PreparedMesh};
pub use primitives::{
    PrimitiveKind, box_mesh, cone, cylinder, primitive_with_triangles, torus, uv_sphere,
};
pub use report::MeshReport;
pub use self_intersect::self_intersecting_pairs;
pub use shells::{Duplicates, Shell, cancel_duplicates, cancelled_faces, closed_shells};
pub use topology::Topology;
pub use weld::{DEFAULT_WELD_TOLERANCE, Welded};

use glam::{DVec3, Mat4, Vec3};

use crate::geom::Aabb;
use fast_hash::FastMap;

/// Errors from loading or checking a mesh. Each message is one readable line.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    #[error("cannot read {path}: {reason}")]
    Io { path: String, reason: String },
    /// `format` is the name of the file's format (`OBJ`, `PLY`, ...).
    #[error("{path} is not a readable {format} file: {reason}")]
    Parse {
        path: String,
        format: &'static str,
        reason: String,
    },
    #[error("mesh '{name}' has no triangles")]
    Empty { name: String },
    #[error("mesh '{name}': vertex {vertex} has a non-finite coordinate ({value})")]
    NonFinite {
        name: String,
        vertex: usize,
        value: String,
    },
    /// `index` as written in the file (OBJ counts from 1, negative indices
    /// count back from the last vertex read); `count` the vertices it could
    /// name.
    #[error("mesh '{name}': triangle {triangle} {}", index_problem(*.index, *.count))]
    IndexOutOfRange {
        name: String,
        triangle: usize,
        index: i64,
        count: usize,
    },
    #[error("mesh '{name}': every triangle has zero area")]
    AllDegenerate { name: String },
    #[error(
        "mesh '{name}': its size ({extent:e}) or a coordinate ({coordinate:e}) is beyond what float32 fields can hold (sizes {MIN_EXTENT:e}..={MAX_EXTENT:e}, coordinates up to {MAX_EXTENT:e}); rescale it"
    )]
    OutOfRange {
        name: String,
        extent: f32,
        coordinate: f32,
    },
}

/// What is wrong with a face index: 0 (OBJ counts from 1), a relative index
/// before the first vertex, or one past the last.
fn index_problem(index: i64, count: usize) -> String {
    match index {
        0 => "uses index 0, but OBJ indices count from 1".into(),
        i if i < 0 => format!(
            "uses relative index {i}, which points before the first vertex: only {count} vertices precede it"
        ),
        i => format!("uses vertex {i}, but there are only {count} vertices"),
    }
}

/// An indexed triangle mesh.
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    /// Where it came from (file stem, object name or generator), for reports.
    pub name: String,
    pub positions: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
}

impl Mesh {
    pub fn new(name: impl Into<String>, positions: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Self {
        Mesh {
            name: name.into(),
            positions,
            triangles,
        }
    }

    pub fn bounds(&self) -> Aabb {
        Aabb::from_points(&self.positions)
    }

    /// The three corners of triangle `t`.
    pub fn corners(&self, t: usize) -> [Vec3; 3] {
        self.triangles[t].map(|i| self.positions[i as usize])
    }

    /// Checks the invariants every stage relies on, in this order: at least
    /// one triangle, every index in range, every coordinate finite, and at
    /// least one triangle of non-zero area ([`Mesh::triangle_area`], in
    /// `f32`).
    pub fn validate(&self) -> Result<(), MeshError> {
        if self.triangles.is_empty() {
            return Err(MeshError::Empty {
                name: self.name.clone(),
            });
        }
        let count = self.positions.len();
        for (triangle, tri) in self.triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i as usize >= count) {
                return Err(MeshError::IndexOutOfRange {
                    name: self.name.clone(),
                    triangle,
                    index: i64::from(index),
                    count,
                });
            }
        }
        for (vertex, p) in self.positions.iter().enumerate() {
            if let Some(value) = p.to_array().into_iter().find(|c| !c.is_finite()) {
                return Err(MeshError::NonFinite {
                    name: self.name.clone(),
                    vertex,
                    value: value.to_string(),
                });
            }
        }
        // The test `PreparedMesh` keeps triangles by, so that `info` and the
        // stages reject the same meshes (a 1e-40-sized one has an f64 normal
        // but no f32 area).
        if (0..self.triangles.len()).all(|t| self.triangle_area(t) == 0.0) {
            return Err(MeshError::AllDegenerate {
                name: self.name.clone(),
            });
        }
        Ok(())
    }

    /// All `meshes` in one, in order; the indices of each are offset by the
    /// vertex count of the meshes before it.
    pub fn merge(meshes: &[Mesh], name: impl Into<String>) -> Mesh {
        let mut merged = Mesh::new(name, Vec::new(), Vec::new());
        merged
            .positions
            .reserve(meshes.iter().map(|m| m.positions.len()).sum());
        merged
            .triangles
            .reserve(meshes.iter().map(|m| m.triangles.len()).sum());
        for mesh in meshes {
            let offset = merged.positions.len() as u32;
            merged.positions.extend_from_slice(&mesh.positions);
            merged
                .triangles
                .extend(mesh.triangles.iter().map(|t| t.map(|i| i + offset)));
        }
        merged
    }

    /// xxh3-64 of the vertex and triangle counts, then the raw position and
    /// index bytes (native endianness). The name does not take part, so two
    /// loads of the same geometry hash alike; stable across runs, so usable
    /// as a cache key.
    pub fn content_hash(&self) -> u64 {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(&(self.positions.len() as u64).to_le_bytes());
        hasher.update(&(self.triangles.len() as u64).to_le_bytes());
        hasher.update(bytemuck::cast_slice(&self.positions));
        hasher.update(bytemuck::cast_slice(&self.triangles));
        hasher.digest()
    }

    /// The mesh with every position mapped by `world_from_object`. A mirroring
    /// transform (negative determinant) would turn the surface inside out, so
    /// then the winding of every triangle is reversed to keep it outward.
    pub fn transformed(&self, world_from_object: Mat4) -> Mesh {
        let positions = self
            .positions
            .iter()
            .map(|&p| world_from_object.transform_point3(p))
            .collect();
        let triangles = if world_from_object.determinant() < 0.0 {
            self.triangles.iter().map(|&[a, b, c]| [a, c, b]).collect()
        } else {
            self.triangles.clone()
        };
        Mesh::new(self.name.clone(), positions, triangles)
    }

    /// Twice the area vector of triangle `t` (the unnormalised normal), in f64.
    fn area_vector_f64(&self, t: usize) -> DVec3 {
        let [a, b, c] = self.corners(t).map(|p| p.as_dvec3());
        (b - a).cross(c - a)
    }

    /// Area of triangle `t`, computed in f64.
    pub fn triangle_area(&self, t: usize) -> f32 {
        (0.5 * self.area_vector_f64(t).length()) as f32
    }

    /// Unit normal of triangle `t` (counter-clockwise corners seen from the
    /// side it points to), computed in f64; `Vec3::ZERO` for a triangle of
    /// zero area.
    pub fn face_normal(&self, t: usize) -> Vec3 {
        let n = self.area_vector_f64(t);
        let len = n.length();
        if len > 0.0 && len.is_finite() {
            (n / len).as_vec3()
        } else {
            Vec3::ZERO
        }
    }

    /// One step of 1-to-4 midpoint subdivision: every triangle `[a, b, c]`
    /// becomes `[a, ab, ca]`, `[ab, b, bc]`, `[ca, bc, c]`, `[ab, bc, ca]`
    /// (same winding). Midpoints are shared between the triangles of an edge
    /// (a hash map keyed by the sorted edge), so a closed mesh stays closed
    /// and a consistently oriented one stays so. Original vertices keep
    /// their indices; midpoints follow in order of first use.
    pub fn subdivided(&self) -> Mesh {
        let mut positions = self.positions.clone();
        let mut triangles = Vec::with_capacity(self.triangles.len() * 4);
        let mut midpoints: FastMap<u64, u32> = FastMap::default();
        midpoints.reserve(self.triangles.len() * 3 / 2 + 16);
        let mut midpoint = |a: u32, b: u32, positions: &mut Vec<Vec3>| -> u32 {
            let key = (u64::from(a.min(b)) << 32) | u64::from(a.max(b));
            *midpoints.entry(key).or_insert_with(|| {
                let p = 0.5 * (positions[a as usize] + positions[b as usize]);
                positions.push(p);
                (positions.len() - 1) as u32
            })
        };
        for &[a, b, c] in &self.triangles {
            let ab = midpoint(a, b, &mut positions);
            let bc = midpoint(b, c, &mut positions);
            let ca = midpoint(c, a, &mut positions);
            triangles.extend_from_slice(&[[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]);
        }
        Mesh::new(self.name.clone(), positions, triangles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tetrahedron() -> Mesh {
        Mesh::new(
            "tet",
            vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z],
            vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        )
    }

    #[test]
    fn validate_accepts_good_and_names_each_problem() {
        assert!(tetrahedron().validate().is_ok());

        let empty = Mesh::new("e", vec![Vec3::ZERO], vec![]);
        assert!(matches!(empty.validate(), Err(MeshError::Empty { .. })));

        let mut bad_index = tetrahedron();
        bad_index.triangles[2][1] = 7;
        assert!(matches!(
            bad_index.validate(),
            Err(MeshError::IndexOutOfRange {
                triangle: 2,
                index: 7,
                count: 4,
                ..
            })
        ));

        let mut nan = tetrahedron();
        nan.positions[3].y = f32::NAN;
        assert!(matches!(
            nan.validate(),
            Err(MeshError::NonFinite { vertex: 3, .. })
        ));

        let flat = Mesh::new(
            "flat",
            vec![Vec3::ZERO, Vec3::X, 2.0 * Vec3::X],
            vec![[0, 1, 2]],
        );
        assert!(matches!(
            flat.validate(),
            Err(MeshError::AllDegenerate { .. })
        ));
    }

    #[test]
    fn merge_offsets_indices() {
        let a = tetrahedron();
        let m = Mesh::merge(&[a.clone(), a.clone()], "two");
        assert_eq!(m.positions.len(), 8);
        assert_eq!(m.triangles.len(), 8);
        assert_eq!(m.triangles[4], [4, 6, 5]);
        assert!(m.validate().is_ok());
    }

    #[test]
    fn content_hash_depends_on_geometry_only() {
        let a = tetrahedron();
        let mut renamed = a.clone();
        renamed.name = "other".into();
        assert_eq!(a.content_hash(), renamed.content_hash());
        let mut moved = a.clone();
        moved.positions[0].x = 1e-7;
        assert_ne!(a.content_hash(), moved.content_hash());
        let mut rewound = a.clone();
        rewound.triangles[0] = [0, 1, 2];
        assert_ne!(a.content_hash(), rewound.content_hash());
    }

    #[test]
    fn area_and_normal() {
        let t = tetrahedron();
        assert!((t.triangle_area(0) - 0.5).abs() < 1e-7);
        assert_eq!(t.face_normal(0), -Vec3::Z);
        let n = t.face_normal(3);
        assert!((n - Vec3::ONE / 3f32.sqrt()).length() < 1e-6);
        let flat = Mesh::new(
            "flat",
            vec![Vec3::ZERO, Vec3::X, 2.0 * Vec3::X],
            vec![[0, 1, 2]],
        );
        assert_eq!(flat.face_normal(0), Vec3::ZERO);
        assert_eq!(flat.triangle_area(0), 0.0);
    }

    #[test]
    fn mirroring_transform_keeps_normals_outward() {
        let t = tetrahedron();
        let mirrored = t.transformed(Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)));
        // Face 3 pointed to +x+y+z; mirrored in x it must point to -x+y+z.
        let n = mirrored.face_normal(3);
        assert!((n - Vec3::new(-1.0, 1.0, 1.0) / 3f32.sqrt()).length() < 1e-6);
        let moved = t.transformed(Mat4::from_translation(Vec3::X));
        assert_eq!(moved.positions[0], Vec3::X);
        assert_eq!(moved.triangles, t.triangles);
    }

    #[test]
    fn subdivision_quadruples_and_stays_closed() {
        let t = tetrahedron();
        let s = t.subdivided();
        assert_eq!(s.triangles.len(), 16);
        // V - E + F = 2: 4 + 6 midpoints.
        assert_eq!(s.positions.len(), 10);
        let topo = Topology::build(&s);
        assert_eq!(
            (0..topo.num_edges())
                .filter(|&e| topo.is_boundary(e))
                .count(),
            0
        );
        let report = MeshReport::analyze(&s.subdivided());
        assert!(report.closed && report.consistently_oriented);
        let area = |m: &Mesh| {
            (0..m.triangles.len())
                .map(|i| m.triangle_area(i))
                .sum::<f32>()
        };
        assert!((area(&t) - area(&s)).abs() < 1e-5);
    }
}
