//! Sampling points on a mesh (Sundholm §5.1): the shape of table 5.1 on a
//! subdivided cube, and the GPU's samples equal the CPU reference's on
//! flat, curved and scanned meshes.

use crate::common;

use collidoscope::mesh::{Mesh, PreparedMesh, box_mesh, torus};
use collidoscope::stages::sampling::{
    self, FeatureKind, SampleSet, SamplingGpu, SamplingMesh, SamplingParams,
};

fn assert_same_samples(cpu: &SampleSet, gpu: &SampleSet, what: &str) {
    assert_eq!(
        cpu.samples.len(),
        gpu.samples.len(),
        "{what}: sample counts"
    );
    for (i, (a, b)) in cpu.samples.iter().zip(&gpu.samples).enumerate() {
        assert_eq!(
            (a.kind, a.feature, a.sub),
            (b.kind, b.feature, b.sub),
            "{what}: sample {i}"
        );
        assert!(
            a.position.distance(b.position) < 1e-5 && a.normal.distance(b.normal) < 1e-5,
            "{what}: sample {i}: {a:?} vs {b:?}"
        );
    }
}

fn sample_both(mesh: &Mesh, cell: f32, params: &SamplingParams, gpu: &SamplingGpu) -> SampleSet {
    let sm = SamplingMesh::new(&PreparedMesh::new(mesh).expect("prepared").mesh);
    let cpu = sampling::compute(&sm, cell, params, sampling::Backend::Cpu, None).expect("cpu");
    let g = sampling::compute(&sm, cell, params, sampling::Backend::Gpu, Some(gpu)).expect("gpu");
    assert_same_samples(&cpu, &g, &mesh.name);
    cpu
}

/// Sundholm's table 5.1: a cube of 152 vertices, 450 edges, 300 faces
/// (each side split 5 × 5) gave 56 / 536 / 542 samples. Vertices only: the
/// 56 rim vertices; faces add one centroid per side.
#[test]
fn table_5_1_shape_on_a_subdivided_cube_cpu_equals_gpu() {
    let gpu = SamplingGpu::new(&common::gpu());
    let cube = box_mesh(5);
    assert_eq!(cube.positions.len(), 152);
    assert_eq!(cube.triangles.len(), 300);
    let cell = 1.2 / 32.0;
    let rows = [(false, false), (true, false), (true, true)];
    let counts: Vec<usize> = rows
        .iter()
        .map(|&(edges, faces)| {
            let p = SamplingParams {
                edges,
                faces,
                ..SamplingParams::default()
            };
            sample_both(&cube, cell, &p, &gpu).samples.len()
        })
        .collect();
    eprintln!("table 5.1 (ours, 32³ cells): {counts:?}");
    assert_eq!(counts[0], 56);
    assert!(counts[1] > counts[0] + 60, "{counts:?}");
    assert_eq!(counts[2], counts[1] + 6);
    // Every face sample sits in the middle of a side with its normal.
    let p = SamplingParams::default();
    let set = sample_both(&cube, cell, &p, &gpu);
    for s in set.samples.iter().filter(|s| s.kind == FeatureKind::Face) {
        assert!((s.position - s.normal * 0.5).length() < 1e-5, "{s:?}");
    }
    // A sampling threshold coarser than the cell diagonal thins the edges.
    let coarse = SamplingParams {
        threshold: 0.15,
        ..p
    };
    assert!(
        sample_both(&cube, cell, &coarse, &gpu).count(FeatureKind::Edge)
            < set.count(FeatureKind::Edge)
    );
}

#[test]
fn sampling_cpu_equals_gpu_on_curved_and_scanned_meshes() {
    let gpu = SamplingGpu::new(&common::gpu());
    for mesh in [torus(24, 12, 0.4, 0.15), common::sample("spot")] {
        let p = SamplingParams::default();
        let set = sample_both(&mesh, mesh.bounds().size().max_element() / 24.0, &p, &gpu);
        assert!(set.count(FeatureKind::Vertex) > 0, "{}", mesh.name);
    }
}
