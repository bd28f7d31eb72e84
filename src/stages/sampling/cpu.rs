//! CPU reference sampler: a direct reading of §6.2.4, written to mirror the
//! shader's per-vertex and per-edge tests.

use std::collections::VecDeque;
use std::time::Instant;

use super::{FeatureKind, Sample, SampleSet, SamplingMesh, SamplingParams, region_samples};
use crate::timing::Timings;

/// A vertex is flat when every incident face normal is within the
/// tolerance of the vertex pseudo-normal.
pub(crate) fn vertex_is_flat(mesh: &SamplingMesh, v: usize, cos_tol: f32) -> bool {
    let n = mesh.normals.vertex[v];
    mesh.topology
        .vertex_faces(v)
        .iter()
        .all(|&f| mesh.normals.face[f as usize].dot(n) >= cos_tol)
}

/// An edge is flat when it has two or more faces, all coplanar with the first.
pub(crate) fn edge_is_flat(mesh: &SamplingMesh, e: usize, cos_tol: f32) -> bool {
    let faces = mesh.topology.edge_faces(e);
    if faces.len() < 2 {
        return false;
    }
    let n0 = mesh.normals.face[faces[0] as usize];
    faces[1..]
        .iter()
        .all(|&f| mesh.normals.face[f as usize].dot(n0) >= cos_tol)
}

/// Coplanar-region label of every face (smallest face index of its region),
/// by a breadth-first walk over edge-adjacent coplanar faces.
pub(crate) fn coplanar_region_labels(mesh: &SamplingMesh, cos_tol: f32) -> Vec<u32> {
    let n = mesh.mesh.triangles.len();
    let mut labels = vec![u32::MAX; n];
    let mut queue = VecDeque::new();
    for start in 0..n {
        if labels[start] != u32::MAX {
            continue;
        }
        labels[start] = start as u32;
        queue.push_back(start);
        while let Some(f) = queue.pop_front() {
            let nf = mesh.normals.face[f];
            for e in mesh.topology.face_edges(f) {
                for &g in mesh.topology.edge_faces(e as usize) {
                    let g = g as usize;
                    if labels[g] == u32::MAX && mesh.normals.face[g].dot(nf) >= cos_tol {
                        labels[g] = start as u32;
                        queue.push_back(g);
                    }
                }
            }
        }
    }
    labels
}

/// Samples a mesh on the CPU.
pub fn compute_cpu(mesh: &SamplingMesh, cell_size: f32, params: &SamplingParams) -> SampleSet {
    puffin::profile_function!();
    let start = Instant::now();
    let cos_tol = params.cos_tolerance();
    let step = params.step(cell_size);
    let m = &mesh.mesh;
    let mut samples = Vec::new();
    for v in 0..m.positions.len() {
        if mesh.topology.vertex_faces(v).is_empty()
            || (!params.flat_vertices && vertex_is_flat(mesh, v, cos_tol))
        {
            continue;
        }
        samples.push(Sample {
            position: m.positions[v],
            normal: mesh.normals.vertex[v],
            kind: FeatureKind::Vertex,
            feature: v as u32,
            sub: 0,
        });
    }
    if params.edges {
        for e in 0..mesh.topology.num_edges() {
            if edge_is_flat(mesh, e, cos_tol) {
                continue;
            }
            let [a, b] = mesh
                .topology
                .edge_vertices(e)
                .map(|v| m.positions[v as usize]);
            for k in 1..=edge_sample_count(a.distance(b), step) {
                let t = k as f32 / (edge_sample_count(a.distance(b), step) + 1) as f32;
                samples.push(Sample {
                    position: a + (b - a) * t,
                    normal: mesh.normals.edge[e],
                    kind: FeatureKind::Edge,
                    feature: e as u32,
                    sub: k,
                });
            }
        }
    }
    let mut regions = 0;
    if params.faces {
        let labels = coplanar_region_labels(mesh, cos_tol);
        let (faces, r) = region_samples(mesh, &labels, cell_size, params);
        samples.extend(faces);
        regions = r;
    }
    let mut timings = Timings::default();
    timings.push("sampling (cpu)", start.elapsed().as_secs_f64() * 1e3, None);
    let mut set = SampleSet {
        samples,
        regions,
        step,
        timings,
    };
    set.sort_canonical();
    set
}

/// Interior points of an edge of length `len` sampled every ≤ `step`
/// (none unless the edge is longer than a step), as shaders/sampling.wgsl
/// counts them (tests/it/collide_sampling.rs compares the two backends' samples).
pub(crate) fn edge_sample_count(len: f32, step: f32) -> u32 {
    if len > step {
        ((len / step).ceil() as u32).saturating_sub(1).max(1)
    } else {
        0
    }
}
