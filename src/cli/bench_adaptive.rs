//! `collidoscope bench adaptive`: the exact adaptive field (Liu & Kim 2014,
//! tables 1–2) per model — nodes, whole-pipeline time split by phase, the
//! tight vs arbitrary upper bound ablation, distance evaluations per node,
//! memory of the octree — for the GPU backend and the CPU reference.
//! The paper's RSS multi-BVH rows are not here yet (the queries traverse
//! the AABB BVH).

use std::time::Instant;

use anyhow::Context;
use serde::Serialize;

use super::bench::{BenchArgs, Suite, models};
use crate::gpu::GpuContext;
use crate::stages::sdf_adaptive::{AdaptiveField, AdaptiveGpu, AdaptiveParams, compute_cpu};
use crate::stages::sdf_grid::PreparedMesh;

#[derive(Serialize, Clone, Debug)]
struct Row {
    model: String,
    triangles: usize,
    backend: &'static str,
    bound: &'static str,
    nodes: usize,
    /// Median over the timed repetitions, whole pipeline.
    wall_ms: f64,
    /// Summed GPU phase times (timestamp queries), when the adapter has them.
    gpu_ms: Option<f64>,
    /// Phase name → GPU ms (or wall ms without timestamps).
    phases: Vec<(String, f64)>,
    evals_per_node: f64,
    /// Octree nodes, values and closest triangles, bytes.
    octree_bytes: usize,
}

fn row(
    model: &str,
    mesh: &PreparedMesh,
    backend: &'static str,
    field: &AdaptiveField,
    walls: &mut [f64],
) -> Row {
    walls.sort_by(f64::total_cmp);
    let n = field.octree.nodes.len();
    let gpu: Vec<f64> = field
        .timings
        .phases
        .iter()
        .filter_map(|p| p.gpu_ms)
        .collect();
    Row {
        model: model.to_string(),
        triangles: mesh.triangle_count(),
        backend,
        bound: if field.params.parent_bound {
            "parent"
        } else {
            "arbitrary"
        },
        nodes: n,
        wall_ms: walls[walls.len() / 2],
        gpu_ms: (!gpu.is_empty()).then(|| gpu.iter().sum()),
        phases: field
            .timings
            .phases
            .iter()
            .map(|p| (p.name.clone(), p.gpu_ms.unwrap_or(p.wall_ms)))
            .collect(),
        evals_per_node: field.distance_evaluations as f64 / n.max(1) as f64,
        octree_bytes: n * (std::mem::size_of::<crate::stages::sdf_adaptive::OctreeNode>() + 8),
    }
}

pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    let gpu = GpuContext::headless()?;
    let stage = AdaptiveGpu::new(&gpu);
    let mut rows = Vec::new();
    let suite_models = if args.suite == Suite::Sundholm {
        models(Suite::Sundholm)?
            .into_iter()
            .filter(|(n, _)| n == "stanford-bunny" || n == "ogre")
            .collect()
    } else {
        models(args.suite)?
    };
    for (name, raw) in suite_models {
        if !args.models.is_empty() && !args.models.iter().any(|m| name.contains(m.as_str())) {
            continue;
        }
        let mesh = PreparedMesh::new(&raw).with_context(|| format!("preparing {name}"))?;
        for parent_bound in [true, false] {
            let params = AdaptiveParams {
                max_depth: args.depth,
                parent_bound,
                ..AdaptiveParams::default()
            };
            stage.compute(&mesh, &params)?; // warm-up
            let mut walls = Vec::new();
            let mut last = None;
            for _ in 0..args.repeats.max(1) {
                let t = Instant::now();
                let f = stage.compute(&mesh, &params)?;
                walls.push(t.elapsed().as_secs_f64() * 1e3);
                last = Some(f);
            }
            if let Some(f) = last {
                rows.push(row(&name, &mesh, "gpu", &f, &mut walls));
            }
            if parent_bound {
                let t = Instant::now();
                let f = compute_cpu(&mesh, &params)?;
                let mut walls = vec![t.elapsed().as_secs_f64() * 1e3];
                rows.push(row(&name, &mesh, "cpu-ref", &f, &mut walls));
            }
        }
    }
    println!(
        "adaptive SDF, depth {} (l = 3, α = 1) on {}",
        args.depth,
        gpu.describe()
    );
    println!(
        "{:<26} {:>9} {:>8} {:>9} {:>9} {:>10} {:>10} {:>9} {:>10}  phases",
        "model",
        "triangles",
        "backend",
        "bound",
        "nodes",
        "wall ms",
        "gpu ms",
        "evals/n",
        "octree MB"
    );
    for r in &rows {
        let phases: Vec<String> = r
            .phases
            .iter()
            .map(|(n, ms)| format!("{n} {ms:.2}"))
            .collect();
        println!(
            "{:<26} {:>9} {:>8} {:>9} {:>9} {:>10.2} {:>10} {:>9.1} {:>10.1}  {}",
            r.model,
            r.triangles,
            r.backend,
            r.bound,
            r.nodes,
            r.wall_ms,
            r.gpu_ms.map_or("-".to_string(), |g| format!("{g:.2}")),
            r.evals_per_node,
            r.octree_bytes as f64 / 1e6,
            phases.join(", ")
        );
    }
    std::fs::create_dir_all(&args.out)?;
    let json = serde_json::json!({
        "adapter": gpu.describe(),
        "depth": args.depth,
        "rows": rows,
    });
    crate::io::write_atomically(
        &args.out.join("adaptive.json"),
        serde_json::to_string_pretty(&json)?.as_bytes(),
    )?;
    Ok(())
}
