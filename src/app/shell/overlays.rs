//! The auxiliary lines the viewport draws on a mesh: normals,
//! pseudo-normals, boundary and non-manifold edges.

use glam::Vec3;

use super::settings::Overlays;
use crate::mesh::{Mesh, PseudoNormals, Topology};
use crate::view::LineVertex;

const FACE_NORMAL: [f32; 4] = [0.2, 0.8, 1.0, 1.0];
const EDGE_NORMAL: [f32; 4] = [1.0, 0.6, 0.1, 1.0];
const VERTEX_NORMAL: [f32; 4] = [0.7, 0.3, 1.0, 1.0];
const BOUNDARY: [f32; 4] = [1.0, 0.1, 0.1, 1.0];
const NON_MANIFOLD: [f32; 4] = [1.0, 0.0, 1.0, 1.0];

pub fn segment(out: &mut Vec<LineVertex>, a: Vec3, b: Vec3, color: [f32; 4]) {
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
