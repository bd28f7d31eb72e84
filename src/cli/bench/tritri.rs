//! `collidoscope bench tritri`: two chain-linked tori — the worst case (no
//! contact, bounding boxes overlapping heavily) and pushed together (a
//! colliding case) — for model sizes from ~100 to ~100K triangles each;
//! CPU reference vs CPU BVH vs GPU brute force vs GPU BVH, yes/no and all
//! pairs, and batched yes/no throughput (queries per second).
//!
//! Per row: GPU time (timestamp queries) where the adapter has them, the
//! wall-clock time end to end (pose upload, kernels, read-back), the median
//! of `--repeats` runs after one warm-up.

use glam::{Quat, Vec3};
use serde::Serialize;

use super::common::CommonArgs;
use super::report::{self, Column, Report, or_dash, or_empty, print_table, series};
use super::timing::timed;
use crate::cli::BackendArg;
use crate::gpu::GpuContext;
use crate::mesh::torus;
use crate::stages::tritri::{self, Backend, Pose, Predicate, TriModel, TritriGpu, TritriParams};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Backends to run (default: all four).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub backends: Vec<BackendArg>,
    /// Triangles per model (each size is a torus pair).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "128,1152,6050,20000,100352"
    )]
    pub sizes: Vec<usize>,
    /// Pose pairs per batched query (0: no batch rows).
    #[arg(long, default_value_t = 4096)]
    pub batch: usize,
    /// Largest number of triangle pairs the CPU reference tests per query;
    /// larger models skip it.
    #[arg(long, default_value_t = 300_000_000)]
    pub cpu_ref_budget: u64,
    /// Largest mesh the GPU brute force runs on (it is quadratic).
    #[arg(long, default_value_t = 200_000)]
    pub brute_max_triangles: usize,
    #[command(flatten)]
    pub common: CommonArgs,
}

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
        report::best_ms(self.gpu_ms, self.wall_ms)
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

pub fn run(args: &Args) -> anyhow::Result<()> {
    let report = Report::create(&args.common.out, "tritri")?;
    let backends: Vec<Backend> = if args.backends.is_empty() {
        Backend::ALL.to_vec()
    } else {
        args.backends.iter().map(|&b| backend_of(b)).collect()
    };
    let gpu = if backends.iter().any(|b| b.is_gpu()) {
        let ctx = GpuContext::headless()?;
        eprintln!("adapter: {}", ctx.describe());
        Some(TritriGpu::new(&ctx))
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
                    let params = TritriParams {
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
                        args.common.repeats,
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
                        args.common.repeats,
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
    let adapter = adapter.as_deref();
    report.write(adapter, &[], &rows)?;
    plot(&report, &rows, adapter)?;
    print_table(
        &format!(
            "Triangle–triangle benchmark — {}",
            adapter.unwrap_or("CPU backends only")
        ),
        &rows,
    );
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
    params: &TritriParams,
    backend: Backend,
    gpu: Option<&TritriGpu>,
    repeats: usize,
) -> anyhow::Result<Row> {
    let t = timed(repeats, backend.is_gpu(), || {
        let r = tritri::query(model, pa, model, pb, params, backend, gpu)?;
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
    gpu: Option<&TritriGpu>,
    repeats: usize,
) -> anyhow::Result<Row> {
    let t = timed(repeats, backend.is_gpu(), || {
        let r = tritri::query_batch(model, model, poses, Predicate::Exact, backend, gpu)?;
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

impl report::Row for Row {
    fn csv_header() -> Vec<&'static str> {
        vec![
            "scenario",
            "triangles",
            "backend",
            "mode",
            "gpu_ms",
            "wall_ms",
            "queries",
            "queries_per_s",
            "collides",
            "pairs",
        ]
    }

    fn csv_cells(&self) -> Vec<String> {
        vec![
            // The scenario names hold commas: quoted.
            format!("\"{}\"", self.scenario),
            self.triangles.to_string(),
            self.backend.to_string(),
            self.mode.to_string(),
            or_empty(self.gpu_ms, |v| format!("{v:.4}")),
            format!("{:.4}", self.wall_ms),
            self.queries.to_string(),
            format!("{:.1}", self.queries_per_s),
            self.collides.to_string(),
            or_empty(self.pairs, |p| p.to_string()),
        ]
    }

    fn table_columns() -> Vec<Column> {
        vec![
            Column::left("scenario", 22),
            Column::right("triangles", 9),
            Column::left("backend", 9),
            Column::left("mode", 9),
            Column::right("gpu ms", 10),
            Column::right("wall ms", 10),
            Column::right("queries", 7),
            Column::right("queries/s", 12),
            Column::right("collide", 8),
            Column::right("pairs", 7),
        ]
    }

    fn table_cells(&self) -> Vec<String> {
        vec![
            self.scenario.to_string(),
            self.triangles.to_string(),
            self.backend.to_string(),
            self.mode.to_string(),
            or_dash(self.gpu_ms, |v| format!("{v:.3}")),
            format!("{:.3}", self.wall_ms),
            self.queries.to_string(),
            format!("{:.0}", self.queries_per_s),
            self.collides.to_string(),
            or_dash(self.pairs, |p| p.to_string()),
        ]
    }
}

/// Query time against triangles per backend (worst-case yes/no, colliding
/// all pairs), and the batched queries' throughput.
fn plot(report: &Report, rows: &[Row], adapter: Option<&str>) -> anyhow::Result<()> {
    let mut times = Vec::new();
    let mut rates = Vec::new();
    for backend in Backend::ALL {
        for (scenario, mode) in [
            ("worst (linked, apart)", "yes/no"),
            ("colliding", "all-pairs"),
            ("worst (linked, apart)", "batch"),
        ] {
            let s = series(format!("{} {mode}", backend.name()), rows, |r| {
                (r.backend == backend.name() && r.scenario == scenario && r.mode == mode).then(
                    || {
                        let y = if mode == "batch" {
                            r.queries_per_s
                        } else {
                            r.best_ms()
                        };
                        (r.triangles as f64, y)
                    },
                )
            });
            let panel = if mode == "batch" {
                &mut rates
            } else {
                &mut times
            };
            if !s.points.is_empty() {
                panel.push(s);
            }
        }
    }
    let title = format!("tri–tri query time — {}", adapter.unwrap_or("CPU only"));
    report.plot(
        1600,
        650,
        &[
            report::log_log(&title, "triangles per model", "ms", &times),
            report::log_log(
                "batched yes/no throughput (worst case)",
                "triangles per model",
                "queries / s",
                &rates,
            ),
        ],
    )
}
