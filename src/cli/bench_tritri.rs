//! `collidoscope bench tritri`: two chain-linked tori — the worst case (no
//! contact, bounding boxes overlapping heavily) and pushed together (a
//! colliding case) — for model sizes from ~100 to ~100K triangles each;
//! CPU reference vs CPU BVH vs GPU brute force vs GPU BVH, yes/no and all
//! pairs, and batched yes/no throughput (queries per second).
//!
//! Per row: GPU time (timestamp queries) where the adapter has them, the
//! wall-clock time end to end (pose upload, kernels, read-back), the median
//! of `--repeats` runs after one warm-up.

use std::path::Path;

use anyhow::Context;
use glam::{Quat, Vec3};
use serde::Serialize;

use super::BackendArg;
use super::bench::BenchArgs;
use super::bench_timing::timed;
use crate::gpu::GpuContext;
use crate::mesh::torus;
use crate::plot::{Panel, Series};
use crate::stages::tri_tri::{self, Backend, Pose, Predicate, TriModel, TriTriGpu, TriTriParams};

#[derive(Serialize, Clone, Debug)]
struct Row {
    scenario: &'static str,
    /// Triangles per model.
    triangles: usize,
    backend: &'static str,
    mode: &'static str,
    gpu_ms: Option<f64>,
    wall_ms: f64,
    queries: usize,
    queries_per_s: f64,
    collides: bool,
    pairs: Option<usize>,
}

impl Row {
    fn best_ms(&self) -> f64 {
        self.gpu_ms.unwrap_or(self.wall_ms)
    }
}

/// Two tori linked like chain links (`gap` 0: closest surfaces 0.5 apart;
/// negative: pushed into each other).
fn linked(triangles: usize, gap: f32) -> (TriModel, Pose, Pose) {
    let major = ((triangles as f64).sqrt().round() as u32).max(6);
    let mesh = torus(major, (major / 2).max(3), 1.0, 0.25);
    let model = TriModel::new(&mesh).expect("a torus is a valid mesh");
    let pb = Pose::new(
        Vec3::new(1.0 + gap, 0.0, 0.0),
        Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
    );
    (model, Pose::IDENTITY, pb)
}

fn backend_of(b: BackendArg) -> Backend {
    match b {
        BackendArg::Gpu => Backend::Gpu,
        BackendArg::GpuBrute => Backend::GpuBrute,
        BackendArg::Cpu => Backend::Cpu,
        BackendArg::CpuRef => Backend::CpuReference,
    }
}

pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let backends: Vec<Backend> = if args.backends.is_empty() {
        Backend::ALL.to_vec()
    } else {
        args.backends.iter().map(|&b| backend_of(b)).collect()
    };
    let gpu = if backends.iter().any(|b| b.is_gpu()) {
        let ctx = GpuContext::headless()?;
        eprintln!("adapter: {}", ctx.describe());
        Some(TriTriGpu::new(&ctx))
    } else {
        None
    };
    let adapter = gpu.as_ref().map(|g| g.context().describe());
    let mut rows = Vec::new();
    for &size in &args.sizes {
        for (scenario, gap) in [("worst (linked, apart)", 0.0f32), ("colliding", -0.6)] {
            let (model, pa, pb) = linked(size, gap);
            let n = model.triangle_count();
            eprintln!("{scenario}: {n} × {n} triangles");
            for &backend in &backends {
                let pairs_work = (n * n) as u64;
                if backend == Backend::CpuReference && pairs_work > args.cpu_ref_budget {
                    eprintln!("  cpu-ref skipped: {pairs_work} pairs > --cpu-ref-budget");
                    continue;
                }
                if backend == Backend::GpuBrute && n > args.brute_max_triangles {
                    eprintln!("  gpu-brute skipped: {n} triangles > --brute-max-triangles");
                    continue;
                }
                for all_pairs in [false, true] {
                    if all_pairs && gap == 0.0 {
                        continue; // no pairs to list; same work as yes/no
                    }
                    let params = TriTriParams {
                        all_pairs,
                        predicate: Predicate::Exact,
                    };
                    let row = time_query(
                        scenario,
                        &model,
                        pa,
                        pb,
                        &params,
                        backend,
                        gpu.as_ref(),
                        args.repeats,
                    )?;
                    eprintln!(
                        "  {:<9} {:<9} {:>10.3} ms{}",
                        row.backend,
                        row.mode,
                        row.best_ms(),
                        if row.collides { " (collide)" } else { "" }
                    );
                    rows.push(row);
                }
            }
            // Batched yes/no around the worst case: small random jitters.
            if gap == 0.0 && args.batch > 0 {
                let poses = jittered(pb, args.batch);
                for &backend in backends.iter().filter(|b| b.is_pruned()) {
                    let row = time_batch(
                        scenario,
                        &model,
                        &poses,
                        backend,
                        gpu.as_ref(),
                        args.repeats,
                    )?;
                    eprintln!(
                        "  {:<9} batch×{} {:>10.3} ms = {:.0} queries/s",
                        row.backend,
                        row.queries,
                        row.best_ms(),
                        row.queries_per_s
                    );
                    rows.push(row);
                }
            }
        }
    }
    write_outputs(&args.out, &rows, adapter.as_deref())?;
    print_table(&rows, adapter.as_deref());
    Ok(())
}

fn jittered(pb: Pose, count: usize) -> Vec<(Pose, Pose)> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    (0..count)
        .map(|_| {
            let t = pb.translation + 0.1 * Vec3::new(next(), next(), next());
            let q = pb.rotation
                * Quat::from_euler(
                    glam::EulerRot::XYZ,
                    0.1 * next(),
                    0.1 * next(),
                    0.1 * next(),
                );
            (Pose::IDENTITY, Pose::new(t, q))
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn time_query(
    scenario: &'static str,
    model: &TriModel,
    pa: Pose,
    pb: Pose,
    params: &TriTriParams,
    backend: Backend,
    gpu: Option<&TriTriGpu>,
    repeats: usize,
) -> anyhow::Result<Row> {
    let t = timed(repeats, backend.is_gpu(), || {
        let r = tri_tri::query(model, pa, model, pb, params, backend, gpu)?;
        let g = r.timings.total_gpu_ms();
        Ok((r, g))
    })?;
    Ok(Row {
        scenario,
        triangles: model.triangle_count(),
        backend: backend.name(),
        mode: if params.all_pairs {
            "all-pairs"
        } else {
            "yes/no"
        },
        gpu_ms: t.gpu_ms,
        wall_ms: t.wall_ms,
        queries: 1,
        queries_per_s: 1e3 / t.gpu_ms.unwrap_or(t.wall_ms),
        collides: t.last.collides,
        pairs: params.all_pairs.then_some(t.last.contacts.len()),
    })
}

fn time_batch(
    scenario: &'static str,
    model: &TriModel,
    poses: &[(Pose, Pose)],
    backend: Backend,
    gpu: Option<&TriTriGpu>,
    repeats: usize,
) -> anyhow::Result<Row> {
    let t = timed(repeats, backend.is_gpu(), || {
        let r = tri_tri::query_batch(model, model, poses, Predicate::Exact, backend, gpu)?;
        let g = r.timings.total_gpu_ms();
        Ok((r, g))
    })?;
    Ok(Row {
        scenario,
        triangles: model.triangle_count(),
        backend: backend.name(),
        mode: "batch",
        gpu_ms: t.gpu_ms,
        wall_ms: t.wall_ms,
        queries: poses.len(),
        // Throughput as the caller sees it: wall clock, transfers included.
        queries_per_s: poses.len() as f64 / (t.wall_ms / 1e3),
        collides: t.last.collides.iter().any(|&c| c),
        pairs: None,
    })
}

fn write_outputs(dir: &Path, rows: &[Row], adapter: Option<&str>) -> anyhow::Result<()> {
    let json = serde_json::json!({
        "benchmark": "tritri",
        "adapter": adapter,
        "rows": rows,
    });
    crate::io::write_atomically(
        &dir.join("tritri.json"),
        serde_json::to_string_pretty(&json)?.as_bytes(),
    )?;
    let mut csv = String::from(
        "scenario,triangles,backend,mode,gpu_ms,wall_ms,queries,queries_per_s,collides,pairs\n",
    );
    for r in rows {
        csv.push_str(&format!(
            // The scenario names hold commas: quoted.
            "\"{}\",{},{},{},{},{:.4},{},{:.1},{},{}\n",
            r.scenario,
            r.triangles,
            r.backend,
            r.mode,
            r.gpu_ms.map(|v| format!("{v:.4}")).unwrap_or_default(),
            r.wall_ms,
            r.queries,
            r.queries_per_s,
            r.collides,
            r.pairs.map(|p| p.to_string()).unwrap_or_default(),
        ));
    }
    crate::io::write_atomically(&dir.join("tritri.csv"), csv.as_bytes())?;
    let mut times = Vec::new();
    let mut rates = Vec::new();
    for backend in Backend::ALL {
        for (scenario, mode) in [
            ("worst (linked, apart)", "yes/no"),
            ("colliding", "all-pairs"),
            ("worst (linked, apart)", "batch"),
        ] {
            let target = if mode == "batch" {
                &mut rates
            } else {
                &mut times
            };
            let pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.backend == backend.name() && r.scenario == scenario && r.mode == mode)
                .map(|r| {
                    let y = if mode == "batch" {
                        r.queries_per_s
                    } else {
                        r.best_ms()
                    };
                    (r.triangles as f64, y)
                })
                .collect();
            if !pts.is_empty() {
                target.push(Series {
                    name: format!("{} {mode}", backend.name()),
                    points: pts,
                });
            }
        }
    }
    let title = format!("tri–tri query time — {}", adapter.unwrap_or("CPU only"));
    crate::plot::write_png(
        &dir.join("tritri.png"),
        1600,
        650,
        &[
            Panel {
                title: &title,
                x_label: "triangles per model",
                y_label: "ms",
                log_x: true,
                log_y: true,
                series: &times,
            },
            Panel {
                title: "batched yes/no throughput (worst case)",
                x_label: "triangles per model",
                y_label: "queries / s",
                log_x: true,
                log_y: true,
                series: &rates,
            },
        ],
    )
    .map_err(|e| anyhow::anyhow!("plot: {e}"))
}

fn print_table(rows: &[Row], adapter: Option<&str>) {
    println!(
        "Triangle–triangle benchmark — {}",
        adapter.unwrap_or("CPU backends only")
    );
    println!(
        "{:<22} {:>9} {:<9} {:<9} {:>10} {:>10} {:>7} {:>12} {:>8} {:>7}",
        "scenario",
        "triangles",
        "backend",
        "mode",
        "gpu ms",
        "wall ms",
        "queries",
        "queries/s",
        "collide",
        "pairs"
    );
    for r in rows {
        println!(
            "{:<22} {:>9} {:<9} {:<9} {:>10} {:>10.3} {:>7} {:>12.0} {:>8} {:>7}",
            r.scenario,
            r.triangles,
            r.backend,
            r.mode,
            r.gpu_ms.map_or("-".into(), |v| format!("{v:.3}")),
            r.wall_ms,
            r.queries,
            r.queries_per_s,
            r.collides,
            r.pairs.map_or("-".into(), |p| p.to_string()),
        );
    }
}
