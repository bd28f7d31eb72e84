//! Edge and vertex adjacency of a triangle mesh, in compressed (CSR) arrays.
//!
//! Method (sort-based, no hash map): every triangle `t` contributes three
//! half-edges `h = 3t + k`, from corner `k` to corner `(k+1) % 3`. Each is
//! keyed by its sorted vertex pair packed in a `u64`; sorting the
//! `(key, h)` pairs (in parallel) groups equal edges, and one linear pass
//! numbers the distinct edges and fills both CSR arrays:
//!
//! ```text
//! edge_offsets: [0, 2, 4, 5, ...]        edge e owns edge_faces[off[e]..off[e+1]]
//! edge_faces:   [t0 t3 | t0 t1 | t2 | ...] (ascending half-edge order)
//! face_edges:   [e(t,0) e(t,1) e(t,2)] per triangle, e(t,k) = edge from corner k to k+1
//! vertex_offsets / vertex_faces: the same CSR layout for the faces around each vertex
//! ```
//!
//! Edges are numbered in order of their sorted `(low, high)` vertex pair, so
//! the numbering is deterministic. A triangle with a repeated corner index
//! lists its face twice on the doubled edge and in the vertex's face list;
//! weld first (it drops such triangles) if that matters.
//!
//! Connected components are counted over faces that share a **vertex** (not
//! only an edge), with union-find over the faces around each vertex; vertices
//! used by no triangle are not counted.

use rayon::prelude::*;

use super::Mesh;

/// Adjacency of a mesh; see the module doc for the layout.
#[derive(Clone, Debug)]
pub struct Topology {
    edge_vertices: Vec<[u32; 2]>,
    edge_offsets: Vec<u32>,
    edge_faces: Vec<u32>,
    face_edges: Vec<[u32; 3]>,
    vertex_offsets: Vec<u32>,
    vertex_faces: Vec<u32>,
    components: usize,
}

impl Topology {
    /// Builds the adjacency of `mesh`. Indices beyond `positions` do not
    /// panic (the vertex arrays are sized by the largest index used), but the
    /// mesh is meant to have passed [`Mesh::validate`].
    pub fn build(mesh: &Mesh) -> Topology {
        let tris = &mesh.triangles;
        let mut half_edges: Vec<(u64, u32)> = tris
            .par_iter()
            .enumerate()
            .flat_map_iter(|(t, tri)| {
                (0..3).map(move |k| {
                    let (a, b) = (tri[k], tri[(k + 1) % 3]);
                    let key = (u64::from(a.min(b)) << 32) | u64::from(a.max(b));
                    (key, (3 * t + k) as u32)
                })
            })
            .collect();
        half_edges.par_sort_unstable();

        let mut edge_vertices = Vec::with_capacity(tris.len() * 3 / 2 + 1);
        let mut edge_offsets = Vec::with_capacity(tris.len() * 3 / 2 + 2);
        let mut edge_faces = Vec::with_capacity(half_edges.len());
        let mut face_edges = vec![[0u32; 3]; tris.len()];
        let mut previous = None;
        for &(key, h) in &half_edges {
            if previous != Some(key) {
                previous = Some(key);
                edge_offsets.push(edge_faces.len() as u32);
                edge_vertices.push([(key >> 32) as u32, key as u32]);
            }
            let e = (edge_vertices.len() - 1) as u32;
            let (t, k) = (h as usize / 3, h as usize % 3);
            face_edges[t][k] = e;
            edge_faces.push(t as u32);
        }
        edge_offsets.push(edge_faces.len() as u32);

        let max_index = tris.iter().flatten().max().map_or(0, |&m| m as usize + 1);
        let num_vertices = mesh.positions.len().max(max_index);
        let mut vertex_offsets = vec![0u32; num_vertices + 1];
        for &v in tris.iter().flatten() {
            vertex_offsets[v as usize + 1] += 1;
        }
        for v in 0..num_vertices {
            vertex_offsets[v + 1] += vertex_offsets[v];
        }
        let mut fill = vertex_offsets.clone();
        let mut vertex_faces = vec![0u32; 3 * tris.len()];
        for (t, tri) in tris.iter().enumerate() {
            for &v in tri {
                vertex_faces[fill[v as usize] as usize] = t as u32;
                fill[v as usize] += 1;
            }
        }

        let mut topo = Topology {
            edge_vertices,
            edge_offsets,
            edge_faces,
            face_edges,
            vertex_offsets,
            vertex_faces,
            components: 0,
        };
        topo.components = topo.count_components();
        topo
    }

    fn count_components(&self) -> usize {
        let mut parent: Vec<u32> = (0..self.face_edges.len() as u32).collect();
        fn find(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                // Path halving keeps the trees shallow without recursion.
                let grand = parent[parent[x as usize] as usize];
                parent[x as usize] = grand;
                x = grand;
            }
            x
        }
        let mut components = self.face_edges.len();
        for faces in self.vertex_offsets.windows(2) {
            let faces = &self.vertex_faces[faces[0] as usize..faces[1] as usize];
            if let Some((&first, rest)) = faces.split_first() {
                for &f in rest {
                    let (a, b) = (find(&mut parent, first), find(&mut parent, f));
                    if a != b {
                        parent[a.max(b) as usize] = a.min(b);
                        components -= 1;
                    }
                }
            }
        }
        components
    }

    pub fn num_edges(&self) -> usize {
        self.edge_vertices.len()
    }

    /// The two vertices of edge `e`, ascending.
    pub fn edge_vertices(&self, e: usize) -> [u32; 2] {
        self.edge_vertices[e]
    }

    /// The faces that contain edge `e`, ascending.
    pub fn edge_faces(&self, e: usize) -> &[u32] {
        &self.edge_faces[self.edge_offsets[e] as usize..self.edge_offsets[e + 1] as usize]
    }

    /// Element `k` is the edge between corner `k` and corner `(k + 1) % 3`.
    pub fn face_edges(&self, t: usize) -> [u32; 3] {
        self.face_edges[t]
    }

    /// The faces that use vertex `v`, ascending.
    pub fn vertex_faces(&self, v: usize) -> &[u32] {
        &self.vertex_faces[self.vertex_offsets[v] as usize..self.vertex_offsets[v + 1] as usize]
    }

    /// Edge `e` belongs to one face only (a hole's rim).
    pub fn is_boundary(&self, e: usize) -> bool {
        self.edge_faces(e).len() == 1
    }

    /// Edge `e` belongs to more than two faces.
    pub fn is_non_manifold(&self, e: usize) -> bool {
        self.edge_faces(e).len() > 2
    }

    /// Connected components of faces sharing a vertex (see the module doc).
    pub fn components(&self) -> usize {
        self.components
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::box_mesh;
    use glam::Vec3;

    #[test]
    fn cube_counts() {
        let cube = box_mesh(1);
        let topo = Topology::build(&cube);
        assert_eq!(cube.triangles.len(), 12);
        assert_eq!(topo.num_edges(), 18);
        assert!((0..18).all(|e| topo.edge_faces(e).len() == 2));
        assert!((0..18).all(|e| !topo.is_boundary(e) && !topo.is_non_manifold(e)));
        assert_eq!(topo.components(), 1);
        for v in 0..8 {
            let n = topo.vertex_faces(v).len();
            assert!((3..=6).contains(&n), "vertex {v} has {n} faces");
        }
        assert_eq!(
            (0..8).map(|v| topo.vertex_faces(v).len()).sum::<usize>(),
            36
        );
    }

    #[test]
    fn face_edges_match_corners() {
        let cube = box_mesh(2);
        let topo = Topology::build(&cube);
        for (t, tri) in cube.triangles.iter().enumerate() {
            for k in 0..3 {
                let e = topo.face_edges(t)[k] as usize;
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                assert_eq!(
                    topo.edge_vertices(e),
                    [a.min(b), a.max(b)],
                    "triangle {t} corner {k}"
                );
                assert!(topo.edge_faces(e).contains(&(t as u32)));
            }
        }
    }

    #[test]
    fn three_triangles_on_one_edge_are_non_manifold() {
        let m = Mesh::new(
            "fan",
            vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z, Vec3::NEG_Y],
            vec![[0, 1, 2], [1, 0, 3], [0, 1, 4]],
        );
        let topo = Topology::build(&m);
        assert_eq!(topo.num_edges(), 7);
        let shared = (0..7)
            .find(|&e| topo.edge_vertices(e) == [0, 1])
            .expect("edge 0-1");
        assert!(topo.is_non_manifold(shared));
        assert_eq!(topo.edge_faces(shared), &[0, 1, 2]);
        assert_eq!((0..7).filter(|&e| topo.is_boundary(e)).count(), 6);
        assert_eq!(topo.components(), 1);
    }

    #[test]
    fn components_join_through_vertices() {
        let a = box_mesh(1);
        let b = a.transformed(glam::Mat4::from_translation(Vec3::splat(3.0)));
        let two = Mesh::merge(&[a.clone(), b], "two");
        assert_eq!(Topology::build(&two).components(), 2);
        // Two triangles touching in one vertex only are one component.
        let bowtie = Mesh::new(
            "bowtie",
            vec![Vec3::ZERO, Vec3::X, Vec3::Y, -Vec3::X, -Vec3::Y],
            vec![[0, 1, 2], [0, 3, 4]],
        );
        assert_eq!(Topology::build(&bowtie).components(), 1);
    }

    #[test]
    fn empty_mesh_does_not_panic() {
        let topo = Topology::build(&Mesh::default());
        assert_eq!(topo.num_edges(), 0);
        assert_eq!(topo.components(), 0);
    }
}
