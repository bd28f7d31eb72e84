//! The adaptive SDF stage: octree and RSS multi-BVH invariants (CPU builds
//! and GPU builds read back), GPU octree = CPU octree, every node value
//! equal to brute force for every BVH configuration, and the query
//! statistics of table 1.

use crate::common;

use collidoscope::mesh::PreparedMesh;
use collidoscope::mesh::{Mesh, PrimitiveKind, primitive_with_triangles};
use collidoscope::stages::adaptive::{
    AdaptiveBvh, AdaptiveField, AdaptiveGpu, AdaptiveParams, Octree, RssBvh, compute_cpu,
    group_ranges,
};
use collidoscope::stages::sdf::reference_cell;
use glam::Vec3;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

fn meshes() -> Vec<Mesh> {
    vec![
        common::sample("spot"),
        common::sample("teapot"),
        primitive_with_triangles(PrimitiveKind::Torus, 400),
    ]
}

fn params(start: u32, max: u32, alpha: u32) -> AdaptiveParams {
    AdaptiveParams {
        start_depth: start,
        max_depth: max,
        alpha,
        ..AdaptiveParams::default()
    }
}

/// Same node set, links, ranges and codes; centres within float tolerance.
fn assert_same_octree(label: &str, cpu: &Octree, gpu: &Octree) {
    assert_eq!(cpu.sorted_codes, gpu.sorted_codes, "{label}: sorted codes");
    assert_eq!(
        cpu.sorted_triangles, gpu.sorted_triangles,
        "{label}: sorted triangles"
    );
    let (c, g) = (cpu.canonical(), gpu.canonical());
    assert_eq!(c.len(), g.len(), "{label}: node counts");
    let tol = 1e-5 * cpu.cube.size;
    for (i, (a, b)) in c.iter().zip(&g).enumerate() {
        assert_eq!(
            (
                a.code,
                a.depth,
                a.parent,
                a.first_child,
                a.tri_first,
                a.tri_count
            ),
            (
                b.code,
                b.depth,
                b.parent,
                b.first_child,
                b.tri_first,
                b.tri_count
            ),
            "{label}: canonical node {i}"
        );
        let d = (Vec3::from_array(a.center) - Vec3::from_array(b.center)).abs();
        assert!(
            d.max_element() <= tol && (a.half_size - b.half_size).abs() <= tol,
            "{label}: canonical node {i}: centre {:?} vs {:?}",
            a.center,
            b.center
        );
    }
}

/// The brute-force signed distance at `p` over all triangles of `mesh`,
/// computed once per mesh and point: the octrees a test compares (CPU and
/// GPU builds, other parameters and BVH configurations) share most node
/// centres bit for bit, and the brute force is most of such a test's work.
fn brute_force(mesh: &PreparedMesh, p: [f32; 3]) -> f32 {
    type Key = (u64, usize, [u32; 3]);
    static KNOWN: OnceLock<Mutex<HashMap<Key, f32>>> = OnceLock::new();
    let known = KNOWN.get_or_init(Default::default);
    let key = (mesh.source_hash, mesh.triangle_count(), p.map(f32::to_bits));
    let lock = || known.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&r) = lock().get(&key) {
        return r;
    }
    let (r, _) =
        reference_cell(mesh, Vec3::from_array(p), f32::INFINITY).expect("a closest triangle");
    lock().insert(key, r);
    r
}

/// Every node value against brute force over all triangles: |Δ| within
/// float32 tolerance, and the same sign away from the surface.
fn assert_exact(label: &str, mesh: &PreparedMesh, field: &AdaptiveField) {
    let tol = 2e-5 * field.octree.cube.size;
    for (i, node) in field.octree.nodes.iter().enumerate() {
        let p = Vec3::from_array(node.center);
        let r = brute_force(mesh, node.center);
        let g = field.values[i];
        assert!(
            (r.abs() - g.abs()).abs() <= tol,
            "{label}: node {i} at {p:?} (depth {}): brute force {r}, got {g}",
            node.depth
        );
        if r.abs() > tol {
            assert_eq!(
                r < 0.0,
                g < 0.0,
                "{label}: node {i} at {p:?}: sign differs: brute force {r}, got {g}"
            );
        }
    }
}

#[test]
fn cpu_octree_is_well_formed_and_adaptive() {
    for mesh in meshes() {
        let prepared = PreparedMesh::new(&mesh).expect("prepare");
        for p in [params(3, 7, 1), params(0, 5, 8), params(2, 2, 1)] {
            let field = compute_cpu(&prepared, &p).expect("cpu");
            field.octree.assert_well_formed();
            let per_depth = field.octree.nodes_per_depth();
            assert_eq!(per_depth[p.start_depth as usize], 8usize.pow(p.start_depth));
            if p.max_depth > p.start_depth {
                // Adaptive: it subdivides, yet the tree holds far fewer
                // nodes than the uniform grid of its maximum depth.
                let total = field.octree.nodes.len();
                assert!(
                    per_depth[p.start_depth as usize + 1] > 0
                        && total < 8usize.pow(p.max_depth) / 4,
                    "{}: {per_depth:?}",
                    mesh.name
                );
            }
        }
    }
}

#[test]
fn gpu_octree_equals_cpu_octree_and_values_are_exact() {
    let gpu = common::gpu();
    let stage = AdaptiveGpu::new(&gpu);
    for mesh in meshes() {
        let prepared = PreparedMesh::new(&mesh).expect("prepare");
        for p in [
            params(3, 7, 1),
            params(1, 6, 4),
            AdaptiveParams {
                parent_bound: false,
                ..params(2, 6, 1)
            },
        ] {
            let label = format!(
                "{} l={} m={} α={}",
                mesh.name, p.start_depth, p.max_depth, p.alpha
            );
            let cpu = compute_cpu(&prepared, &p).expect("cpu");
            let got = stage.compute(&prepared, &p).expect("gpu");
            got.octree.assert_well_formed();
            assert_same_octree(&label, &cpu.octree, &got.octree);
            assert_exact(&format!("{label} gpu"), &prepared, &got);
            assert_exact(&format!("{label} cpu"), &prepared, &cpu);
        }
    }
}

/// A stage keeps its last run's buffers for the next run of the same sizes
/// (and the benchmarks' time-only runs share them): a run on kept buffers
/// must give exactly what a fresh stage gives, whatever ran on them before.
#[test]
fn runs_on_kept_buffers_equal_fresh_runs() {
    let gpu = common::gpu();
    let mesh = PreparedMesh::new(&common::sample("spot")).expect("prepare");
    let p = params(2, 6, 1);
    let fresh = AdaptiveGpu::new(&gpu).compute(&mesh, &p).expect("fresh");
    let stage = AdaptiveGpu::new(&gpu);
    // Other runs on the same buffers first — one building other BVHs and
    // searching from other bounds, a time-only one — then the run under
    // test.
    let other = AdaptiveParams {
        parent_bound: false,
        axis_approximation: false,
        small_node: 8,
        ..p
    };
    stage.compute(&mesh, &other).expect("other");
    let (timings, _) = stage.time(&mesh, &p).expect("time");
    assert!(
        timings.phases.iter().any(|ph| ph.name == "queries"),
        "a time-only run still reports its phases: {timings:?}"
    );
    let again = stage.compute(&mesh, &p).expect("kept buffers");
    assert_eq!(again.octree.canonical(), fresh.octree.canonical(), "octree");
    let by_node = |f: &AdaptiveField| {
        let mut v: Vec<(u32, u32, u32)> = f
            .octree
            .nodes
            .iter()
            .zip(&f.values)
            .map(|(n, v)| (n.depth, n.code, v.to_bits()))
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(by_node(&again), by_node(&fresh), "values");
}

#[test]
fn parent_bound_saves_distance_evaluations() {
    let prepared = PreparedMesh::new(&common::sample("spot")).expect("prepare");
    let tight = compute_cpu(&prepared, &params(3, 8, 1)).expect("cpu");
    let loose = compute_cpu(
        &prepared,
        &AdaptiveParams {
            parent_bound: false,
            ..params(3, 8, 1)
        },
    )
    .expect("cpu");
    for (i, (a, b)) in tight.values.iter().zip(&loose.values).enumerate() {
        assert!(
            (a - b).abs() <= 1e-6 * tight.octree.cube.size,
            "node {i}: {a} vs {b}"
        );
    }
    assert!(
        tight.distance_evaluations < loose.distance_evaluations,
        "{} vs {}",
        tight.distance_evaluations,
        loose.distance_evaluations
    );
}

#[test]
fn bad_depths_are_refused() {
    let prepared = PreparedMesh::new(&common::sample("spot")).expect("prepare");
    for p in [params(4, 3, 1), params(3, 11, 1), params(7, 10, 1)] {
        assert!(compute_cpu(&prepared, &p).is_err(), "{p:?}");
    }
}

/// The configurations the switches give: the paper's method and its
/// ablations, plus tiny small nodes at a fine group level.
fn configurations(max: u32) -> Vec<(&'static str, AdaptiveParams)> {
    let best = params(2, max, 1);
    let mut all = best.ablations();
    all.push((
        "small-4 level-4",
        AdaptiveParams {
            small_node: 4,
            group_level: 4,
            ..best
        },
    ));
    all
}

#[test]
fn rss_bvhs_built_on_cpu_and_gpu_are_tight() {
    let gpu = common::gpu();
    let stage = AdaptiveGpu::new(&gpu);
    for mesh in meshes() {
        let prepared = PreparedMesh::new(&mesh).expect("prepare");
        for (name, p) in configurations(5).into_iter().filter(|(n, _)| *n != "aabb") {
            let label = format!("{} {name}", mesh.name);
            let octree = compute_cpu(
                &prepared,
                &AdaptiveParams {
                    bvh: AdaptiveBvh::Aabb,
                    ..p
                },
            )
            .expect("cpu")
            .octree;
            let groups = group_ranges(&octree.sorted_codes, p.effective_group_level());
            let cpu = RssBvh::build_cpu(
                &prepared.corners,
                octree.sorted_triangles.clone(),
                &groups,
                &p,
            );
            cpu.assert_bounds_tight(&prepared.corners);
            let (field, bvh) = stage.compute_with_bvh(&prepared, &p).expect("gpu");
            let bvh = bvh.expect("an RSS run reads its BVH back");
            bvh.assert_bounds_tight(&prepared.corners);
            assert_eq!(bvh.groups as usize, groups.len(), "{label}: group count");
            for (g, range) in groups.iter().enumerate() {
                let root = &bvh.nodes[g];
                assert_eq!((root.first, root.count), *range, "{label}: group {g}");
            }
            assert!(
                bvh.depth() <= cpu.depth() + 8,
                "{label}: GPU tree depth {} vs CPU {}",
                bvh.depth(),
                cpu.depth()
            );
            // The GPU keeps children at slots by split position: the slots
            // no node took stay empty and are not counted.
            let nodes = bvh.nodes.iter().filter(|n| n.count > 0).count();
            assert!(
                field.memory.bvh_bytes as usize >= nodes * 64,
                "{label}: memory {:?} for {nodes} nodes",
                field.memory
            );
        }
    }
}

#[test]
fn every_bvh_configuration_is_exact_on_cpu_and_gpu() {
    let gpu = common::gpu();
    let stage = AdaptiveGpu::new(&gpu);
    let spot = PreparedMesh::new(&common::sample("spot")).expect("prepare");
    let torus =
        PreparedMesh::new(&primitive_with_triangles(PrimitiveKind::Torus, 400)).expect("prepare");
    for (mesh, max) in [(&spot, 5), (&torus, 5)] {
        for (name, p) in configurations(max) {
            let label = format!("{} {name}", mesh.mesh.name);
            let got = stage.compute(mesh, &p).expect("gpu");
            assert_exact(&format!("{label} gpu"), mesh, &got);
            let cpu = compute_cpu(mesh, &p).expect("cpu");
            assert_exact(&format!("{label} cpu"), mesh, &cpu);
            for f in [&got, &cpu] {
                let counted: u64 = f.stats.iter().map(|d| d.nodes).sum();
                assert_eq!(
                    counted as usize,
                    f.octree.nodes.len(),
                    "{label}: stats nodes"
                );
                assert!(
                    f.stats.iter().all(|d| d.triangles_per_point >= 1.0),
                    "{label}: every point tests its seed triangle: {:?}",
                    f.stats
                );
            }
        }
    }
}

/// Table 1's trend and §6.2's ablation: with the parent's bound, deep
/// points test far fewer BVHs and triangles than with an arbitrary one,
/// and fewer BVHs than the coarse points do.
#[test]
fn parent_bound_culls_bvhs_as_in_table_1() {
    let gpu = common::gpu();
    let stage = AdaptiveGpu::new(&gpu);
    let prepared = PreparedMesh::new(&common::sample("spot")).expect("prepare");
    let tight = params(2, 6, 1);
    let loose = AdaptiveParams {
        parent_bound: false,
        ..tight
    };
    for (backend, t, l) in [
        (
            "gpu",
            stage.compute(&prepared, &tight).expect("gpu"),
            stage.compute(&prepared, &loose).expect("gpu"),
        ),
        (
            "cpu",
            compute_cpu(&prepared, &tight).expect("cpu"),
            compute_cpu(&prepared, &loose).expect("cpu"),
        ),
    ] {
        let (first, last) = (
            t.stats.first().expect("stats"),
            t.stats.last().expect("stats"),
        );
        assert!(
            last.bvhs_per_point < first.bvhs_per_point,
            "{backend}: BVHs per point do not fall with depth: {:?}",
            t.stats
        );
        let deep = |f: &AdaptiveField| {
            f.stats
                .last()
                .map(|d| (d.bvhs_per_point, d.triangles_per_point))
        };
        let (tb, tt) = deep(&t).expect("deep");
        let (lb, lt) = deep(&l).expect("deep");
        assert!(
            tb < lb && tt < lt,
            "{backend}: tight ({tb}, {tt}) vs arbitrary ({lb}, {lt})"
        );
    }
}
