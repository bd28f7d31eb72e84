//! One node taken apart, and the adaptive field against the uniform one.
//!
//! **The parent's bound** (§5.1): a node's query starts from the exact
//! distance between its centre and its parent's closest triangle — an upper
//! bound on the true distance, since the true one is the minimum over all
//! triangles. [`parent_bound`] recomputes it on the CPU with the project's
//! exact closest point ([`closest_point_triangle`]); the gap to the field's
//! value is what the BVH traversal had left to close.
//!
//! **Adaptive vs uniform**: at every node centre inside the uniform grid's
//! box of cell centres, the adaptive value against the trilinear
//! interpolation of the uniform grid
//! ([`crate::stages::collide::FieldView::trilinear`]). A signed distance
//! is 1-Lipschitz, so each of the eight cell values differs from the value
//! at the node by at most their distance, one cell diagonal: the two fields
//! agree within a cell diagonal wherever both are exact and signed alike.

use glam::Vec3;

use super::draw::cube_lines;
use crate::geom::{TriangleFeature, closest_point_triangle};
use crate::mesh::PreparedMesh;
use crate::stages::adaptive::{AdaptiveField, NONE};
use crate::stages::collide::FieldView;
use crate::stages::sdf::{SdfField, reference_cell};
use crate::view::LineVertex;

const NODE: [f32; 4] = [1.0, 0.9, 0.0, 1.0];
const BOUND: [f32; 4] = [1.0, 0.3, 0.9, 1.0];

/// The upper bound a node's query starts from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParentBound {
    pub parent: usize,
    /// The parent's closest triangle (prepared-mesh index).
    pub triangle: u32,
    /// Its closest point to the node's centre.
    pub point: Vec3,
    /// The bound: the distance from the node's centre to that point.
    pub distance: f32,
    /// The node's own closest triangle is the parent's.
    pub kept: bool,
}

/// The bound of `node` from its parent's closest triangle; `None` for a root.
pub fn parent_bound(
    mesh: &PreparedMesh,
    field: &AdaptiveField,
    node: usize,
) -> Option<ParentBound> {
    let n = &field.octree.nodes[node];
    if n.parent == NONE {
        return None;
    }
    let parent = n.parent as usize;
    let (triangle, _) = field.closest_feature(parent)?;
    let c = closest_point_triangle(Vec3::from_array(n.center), mesh.corners[triangle as usize]);
    Some(ParentBound {
        parent,
        triangle,
        point: c.point,
        distance: c.distance_squared.sqrt(),
        kept: field.closest_feature(node).map(|(t, _)| t) == Some(triangle),
    })
}

/// Everything the panel shows about a picked node.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeProbe {
    pub node: usize,
    pub center: Vec3,
    pub depth: u32,
    pub half_size: f32,
    /// Triangle centroids in the node's cell.
    pub triangles: u32,
    pub is_leaf: bool,
    /// The field's signed distance at the centre.
    pub value: f32,
    /// Closest triangle, its feature and the closest point on it.
    pub closest: Option<(u32, TriangleFeature, Vec3)>,
    pub bound: Option<ParentBound>,
    /// The brute-force signed distance (every triangle), for exactness.
    pub reference: Option<f32>,
}

pub fn probe_node(mesh: &PreparedMesh, field: &AdaptiveField, node: usize) -> NodeProbe {
    let n = &field.octree.nodes[node];
    let center = Vec3::from_array(n.center);
    let closest = field.closest_feature(node).map(|(t, f)| {
        let q = closest_point_triangle(center, mesh.corners[t as usize]).point;
        (t, f, q)
    });
    NodeProbe {
        node,
        center,
        depth: n.depth,
        half_size: n.half_size,
        triangles: n.tri_count,
        is_leaf: n.is_leaf(),
        value: field.values[node],
        closest,
        bound: parent_bound(mesh, field, node),
        reference: reference_cell(mesh, center, f32::INFINITY).map(|(v, _)| v),
    }
}

/// The picked node's box, a line to its closest point (yellow) and one to
/// the closest point of its parent's triangle (magenta): the bound.
pub fn probe_lines(probe: &NodeProbe) -> Vec<LineVertex> {
    let mut out = Vec::new();
    cube_lines(&mut out, probe.center, probe.half_size, NODE);
    let mut line = |q: Vec3, color: [f32; 4]| {
        out.push(LineVertex::new(probe.center, color));
        out.push(LineVertex::new(q, color));
        cube_lines(&mut out, q, 0.15 * probe.half_size, color);
    };
    if let Some(b) = &probe.bound {
        line(b.point, BOUND);
    }
    if let Some((_, _, q)) = probe.closest {
        line(q, NODE);
    }
    out
}

/// The adaptive field against the uniform grid's interpolation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UniformComparison {
    /// Node centres inside the grid's box of cell centres (and its band).
    pub compared: usize,
    pub max_abs: f32,
    pub mean_abs: f32,
    /// The node of the largest difference.
    pub worst_node: Option<usize>,
    /// Nodes whose value and interpolated value have opposite signs.
    pub sign_disagreements: usize,
    /// The uniform grid's cell diagonal: the bound on |Δ| (module docs).
    pub cell_diagonal: f32,
}

pub fn compare_with_uniform(field: &AdaptiveField, uniform: &SdfField) -> UniformComparison {
    let grid = &uniform.grid;
    let view = FieldView {
        grid,
        values: &uniform.values,
    };
    let diagonal = grid.cell_size * 3f32.sqrt();
    let lo = grid.origin;
    let hi = grid.center(grid.dims - glam::UVec3::ONE);
    // In a narrow band, only where all eight cells are inside the band.
    let band = uniform.band_world().unwrap_or(f32::INFINITY);
    let mut out = UniformComparison {
        cell_diagonal: diagonal,
        ..Default::default()
    };
    let mut sum = 0.0f64;
    for (i, (n, &v)) in field.octree.nodes.iter().zip(&field.values).enumerate() {
        let p = Vec3::from_array(n.center);
        if !(p.cmpge(lo).all() && p.cmple(hi).all()) || v.abs() + diagonal >= band {
            continue;
        }
        let t = view.trilinear(p);
        let d = (v - t).abs();
        out.compared += 1;
        sum += d as f64;
        out.sign_disagreements += ((v < 0.0) != (t < 0.0)) as usize;
        if out.worst_node.is_none() || d > out.max_abs {
            out.max_abs = d;
            out.worst_node = Some(i);
        }
    }
    if out.compared > 0 {
        out.mean_abs = (sum / out.compared as f64) as f32;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Progress;
    use crate::stages::adaptive::{AdaptiveParams, compute_cpu};
    use crate::stages::sdf::{self, Backend, SdfParams};

    fn sphere() -> PreparedMesh {
        PreparedMesh::new(&crate::mesh::uv_sphere(12, 18)).unwrap()
    }

    fn params() -> AdaptiveParams {
        AdaptiveParams {
            start_depth: 2,
            max_depth: 5,
            ..Default::default()
        }
    }

    #[test]
    fn the_parent_bound_is_never_below_the_true_distance() {
        let mesh = sphere();
        let field = compute_cpu(&mesh, &params()).unwrap();
        let mut bounded = 0;
        for node in 0..field.octree.nodes.len() {
            let probe = probe_node(&mesh, &field, node);
            let reference = probe.reference.expect("a reference value");
            assert!(
                (probe.value - reference).abs() <= 1e-5,
                "node {node}: value {} vs brute force {reference}",
                probe.value
            );
            if let Some(b) = probe.bound {
                bounded += 1;
                assert!(
                    b.distance >= probe.value.abs() - 1e-6,
                    "node {node}: bound {} below the true distance {}",
                    b.distance,
                    probe.value.abs()
                );
                if b.kept {
                    assert!((b.distance - probe.value.abs()).abs() <= 1e-5);
                }
            }
            assert!(
                probe_lines(&probe).len() >= 24,
                "node {node}: at least its box is drawn"
            );
        }
        assert!(bounded > 0, "the test needs nodes with parents");
    }

    #[test]
    fn adaptive_and_uniform_agree_within_a_cell_diagonal_on_a_sphere() {
        let mesh = sphere();
        let field = compute_cpu(&mesh, &params()).unwrap();
        let uniform = sdf::compute(
            &mesh,
            // No padding: the octree's cube reaches past the grid.
            &SdfParams {
                resolution: 24,
                padding: 0.0,
                ..Default::default()
            },
            Backend::CpuFast,
            None,
            &Progress::default(),
        )
        .unwrap();
        let c = compare_with_uniform(&field, &uniform);
        assert!(c.compared > 100, "only {} nodes compared", c.compared);
        assert!(
            c.max_abs <= c.cell_diagonal,
            "max |Δ| {} above the cell diagonal {}",
            c.max_abs,
            c.cell_diagonal
        );
        assert!(c.mean_abs <= c.max_abs);
        // Nodes outside the grid's box are not compared.
        assert!(c.compared < field.octree.nodes.len());
    }
}
