//! Triangle meshes: loading, welding, topology, normals, reports, primitives.
//!
//! A [`Mesh`] is an indexed triangle list. Everything downstream (stages,
//! viewer, CLI) takes a mesh that passed [`Mesh::validate`]: finite
//! coordinates, indices in range, at least one triangle.

use glam::Vec3;

use crate::geom::Aabb;

/// Errors from loading or checking a mesh. Each message is one readable line.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    #[error("cannot read {path}: {reason}")]
    Io { path: String, reason: String },
    #[error("{path} is not a readable OBJ file: {reason}")]
    Parse { path: String, reason: String },
    #[error("mesh '{name}' has no triangles")]
    Empty { name: String },
    #[error("mesh '{name}': vertex {vertex} has a non-finite coordinate ({value})")]
    NonFinite { name: String, vertex: usize, value: String },
    #[error("mesh '{name}': triangle {triangle} uses vertex {index}, but there are only {count} vertices")]
    IndexOutOfRange { name: String, triangle: usize, index: u32, count: usize },
    #[error("mesh '{name}': every triangle has zero area")]
    AllDegenerate { name: String },
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
        Mesh { name: name.into(), positions, triangles }
    }

    pub fn bounds(&self) -> Aabb {
        Aabb::from_points(&self.positions)
    }

    /// The three corners of triangle `t`.
    pub fn corners(&self, t: usize) -> [Vec3; 3] {
        self.triangles[t].map(|i| self.positions[i as usize])
    }
}
