//! What the viewport draws besides the mesh: the cell cloud's instances and
//! the auxiliary lines (normals, pseudo-normals, boundary and non-manifold
//! edges, the inspector's closest-point marker).

use glam::Vec3;

use super::settings::Overlays;
use crate::geom::closest_point_triangle;
use crate::mesh::PreparedMesh;
use crate::mesh::{Mesh, PseudoNormals, Topology};
use crate::stages::sdf_grid::SdfField;
use crate::view::LineVertex;

const FACE_NORMAL: [f32; 4] = [0.2, 0.8, 1.0, 1.0];
const EDGE_NORMAL: [f32; 4] = [1.0, 0.6, 0.1, 1.0];
const VERTEX_NORMAL: [f32; 4] = [0.7, 0.3, 1.0, 1.0];
const BOUNDARY: [f32; 4] = [1.0, 0.1, 0.1, 1.0];
const NON_MANIFOLD: [f32; 4] = [1.0, 0.0, 1.0, 1.0];
const PICK: [f32; 4] = [1.0, 0.9, 0.0, 1.0];

fn segment(out: &mut Vec<LineVertex>, a: Vec3, b: Vec3, color: [f32; 4]) {
    out.push(LineVertex {
        pos: a.to_array(),
        color,
    });
    out.push(LineVertex {
        pos: b.to_array(),
        color,
    });
}

/// Normal and edge lines for the welded mesh of `prepared`.
pub fn mesh_lines(mesh: &Mesh, overlays: &Overlays) -> Vec<LineVertex> {
    let mut out = Vec::new();
    if !(overlays.face_normals
        || overlays.edge_normals
        || overlays.vertex_normals
        || overlays.boundary_edges)
    {
        return out;
    }
    let topology = Topology::build(mesh);
    let normals = PseudoNormals::compute(mesh, &topology);
    let len = overlays.normal_length * mesh.bounds().diagonal() / 100.0;
    if overlays.face_normals {
        for t in 0..mesh.triangles.len() {
            let c = mesh.corners(t);
            let centroid = (c[0] + c[1] + c[2]) / 3.0;
            segment(
                &mut out,
                centroid,
                centroid + normals.face[t] * len,
                FACE_NORMAL,
            );
        }
    }
    for e in 0..topology.num_edges() {
        let [a, b] = topology
            .edge_vertices(e)
            .map(|v| mesh.positions[v as usize]);
        if overlays.edge_normals {
            let mid = 0.5 * (a + b);
            segment(&mut out, mid, mid + normals.edge[e] * len, EDGE_NORMAL);
        }
        if overlays.boundary_edges {
            if topology.is_boundary(e) {
                segment(&mut out, a, b, BOUNDARY);
            } else if topology.is_non_manifold(e) {
                segment(&mut out, a, b, NON_MANIFOLD);
            }
        }
    }
    if overlays.vertex_normals {
        for (v, p) in mesh.positions.iter().enumerate() {
            if normals.vertex[v] != Vec3::ZERO {
                segment(&mut out, *p, *p + normals.vertex[v] * len, VERTEX_NORMAL);
            }
        }
    }
    out
}

/// The picked cell's marker: a small cross at the cell and a line to its
/// closest point on the mesh.
pub fn pick_lines(mesh: &PreparedMesh, field: &SdfField, cell: usize) -> Vec<LineVertex> {
    let mut out = Vec::new();
    let p = field.grid.center_of(cell);
    let h = 0.5 * field.grid.cell_size;
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        segment(&mut out, p - axis * h, p + axis * h, PICK);
    }
    if let Some((t, _)) = field.closest_feature(cell) {
        let q = closest_point_triangle(p, mesh.mesh.corners(t as usize)).point;
        segment(&mut out, p, q, PICK);
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            segment(&mut out, q - axis * h * 0.5, q + axis * h * 0.5, PICK);
        }
    }
    out
}
