//! `collidoscope bench sdf`: Sundholm's table 7.1 at 128³ for every backend,
//! then the bunny, the ogre and subdivided bunnies for scaling.
//!
//! Per row: GPU time (timestamp queries, kernels only) where the adapter has
//! them, wall-clock time end to end (upload, kernels, read-back), cells per
//! second, distance evaluations per cell, and the largest difference from
//! the CPU fast backend (the exactness check). The single-threaded CPU
//! reference is timed on a strided sample of cells and extrapolated when the
//! full grid would take minutes (marked "est.").

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use serde::Serialize;

use super::BackendArg;
use super::bench_timing::{timed, timed_gpu};
use crate::gpu::GpuContext;
use crate::mesh::PreparedMesh;
use crate::mesh::{Mesh, PrimitiveKind, primitive_with_triangles};
use crate::plot::{Panel, Series};
use crate::progress::Progress;
use crate::stages::sdf_grid::{
    self, Backend, GridSpec, SdfField, SdfGpu, SdfParams, SignMode, reference_cell,
};

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// What to benchmark.
    #[arg(value_enum)]
    pub target: BenchTarget,
    /// Which models: Sundholm's table 7.1 (+ bunny and ogre), the subdivided
    /// bunnies (278K and 1.1M triangles), or both.
    #[arg(long, value_enum, default_value = "sundholm")]
    pub suite: Suite,
    /// Backends to run (default: all four).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub backends: Vec<BackendArg>,
    /// Grid resolutions (cells along the longest axis).
    #[arg(long, value_delimiter = ',', default_value = "128")]
    pub res: Vec<u32>,
    /// Timed repetitions of each GPU run (after a 0.5 s warm-up); the median is reported.
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
    /// Largest number of point–triangle tests the CPU reference runs per row
    /// before it switches to a strided sample and extrapolates.
    #[arg(long, default_value_t = 300_000_000)]
    pub cpu_ref_budget: u64,
    /// Only the models whose names contain one of these (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub models: Vec<String>,
    /// Largest mesh the GPU brute force runs on (it is quadratic).
    #[arg(long, default_value_t = 200_000)]
    pub brute_max_triangles: usize,
    /// tritri: triangles per model (each size is a torus pair).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "128,1152,6050,20000,100352"
    )]
    pub sizes: Vec<usize>,
    /// tritri: pose pairs per batched query (0: no batch rows).
    #[arg(long, default_value_t = 4096)]
    pub batch: usize,
    /// adaptive: maximum octree depth.
    #[arg(long, default_value_t = 10)]
    pub depth: u32,
    /// adaptive: largest mesh the (single-threaded) CPU reference runs on.
    #[arg(long, default_value_t = 300_000)]
    pub cpu_ref_max_triangles: usize,
    /// adaptive: the base configuration the ablations change one by one.
    #[command(flatten)]
    pub adaptive: super::sdf::AdaptiveOpts,
    /// adaptive: time the base configuration only, not its ablations.
    #[arg(long)]
    pub no_ablations: bool,
    /// interfere: draw every object, face and edge (no bounding-box
    /// culling; the `target` study times both either way).
    #[arg(long)]
    pub no_cull: bool,
    /// interfere: which studies (objects, polygons, readback, early,
    /// target); `target` is the scale: `--target-objects` boxes of
    /// 12·`--target-box-k`² triangles (default 300 × 3,468 ≈ 1M) at 1024².
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "objects,polygons,readback,early"
    )]
    pub studies: Vec<super::bench_interfere::Study>,
    /// interfere: object counts of the time-vs-objects study (figure 4.15).
    #[arg(long, value_delimiter = ',', default_value = "4,16,64,256")]
    pub objects: Vec<usize>,
    /// interfere: objects of the target study.
    #[arg(long, default_value_t = 300)]
    pub target_objects: usize,
    /// interfere: box subdivision of the target study (12·k² triangles each).
    #[arg(long, default_value_t = 17)]
    pub target_box_k: u32,
    /// Output directory for <target>.json, .csv and .png.
    #[arg(long)]
    pub out: PathBuf,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum BenchTarget {
    /// Uniform signed distance fields.
    Sdf,
    /// Exact triangle–triangle collision of two models.
    Tritri,
    /// Contacts of 1–1000 body pairs: CPU, GPU batched, GPU per pair.
    Collide,
    /// Exact adaptive (octree) fields: tables 1–2, the paper's ablations,
    /// the AABB BVH, the CPU reference.
    Adaptive,
    /// Image-space interference: time vs objects and polygons, read
    /// pixels vs occlusion queries, early non-interference.
    Interfere,
}

#[derive(Clone, Copy, Debug, PartialEq, clap::ValueEnum)]
pub enum Suite {
    Sundholm,
    Scaling,
    All,
}

#[derive(Serialize, Clone, Debug)]
struct Row {
    model: String,
    triangles: usize,
    resolution: u32,
    cells: usize,
    backend: &'static str,
    /// Kernel time from timestamp queries (GPU backends).
    gpu_ms: Option<f64>,
    /// End-to-end wall-clock time of the stage.
    wall_ms: f64,
    /// True when extrapolated from a sample of cells.
    estimated: bool,
    million_cells_per_s: f64,
    evaluations_per_cell: f64,
    max_abs_diff_vs_cpu: Option<f32>,
    sign_mismatches_vs_cpu: Option<usize>,
    /// The GPU phases of the last run (seeds, cells, copy out).
    gpu_phases: Vec<(String, f64)>,
}

impl Row {
    fn best_ms(&self) -> f64 {
        self.gpu_ms.unwrap_or(self.wall_ms)
    }
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    match args.target {
        BenchTarget::Tritri => return super::bench_tritri::run(&args),
        BenchTarget::Collide => return super::bench_collide::run(&args),
        BenchTarget::Adaptive => return super::bench_adaptive::run(&args),
        BenchTarget::Interfere => return super::bench_interfere::run(&args),
        BenchTarget::Sdf => {}
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let backends: Vec<Backend> = if args.backends.is_empty() {
        vec![
            Backend::CpuReference,
            Backend::CpuFast,
            Backend::GpuBrute,
            Backend::Gpu,
        ]
    } else {
        args.backends.iter().map(|&b| b.into()).collect()
    };
    let gpu = if backends.iter().any(|b| b.is_gpu()) {
        let ctx = GpuContext::headless()?;
        eprintln!("adapter: {}", ctx.describe());
        Some(SdfGpu::new(&ctx))
    } else {
        None
    };
    let adapter = gpu.as_ref().map(|g| g.context().describe());
    let mut rows = Vec::new();
    let selected = models(args.suite)?.into_iter().filter(|(name, _)| {
        args.models.is_empty() || args.models.iter().any(|m| name.contains(m.as_str()))
    });
    for (name, mesh) in selected {
        let prep_start = Instant::now();
        let mesh = PreparedMesh::new(&mesh).with_context(|| format!("model {name}"))?;
        eprintln!(
            "{name}: {} triangles, prepared in {:.0} ms (BVH depth {})",
            mesh.triangle_count(),
            prep_start.elapsed().as_secs_f64() * 1e3,
            mesh.bvh.depth()
        );
        for &res in &args.res {
            let params = SdfParams {
                resolution: res,
                padding: 0.1,
                band: None,
                sign_mode: SignMode::PseudoNormal,
            };
            let mut cpu_field: Option<SdfField> = None;
            for &backend in &backends {
                if backend == Backend::GpuBrute && mesh.triangle_count() > args.brute_max_triangles
                {
                    eprintln!(
                        "  {res}³ gpu-brute skipped: {} triangles > --brute-max-triangles",
                        mesh.triangle_count()
                    );
                    continue;
                }
                let row = match backend {
                    Backend::CpuReference => {
                        bench_reference(&name, &mesh, &params, args.cpu_ref_budget)
                    }
                    _ => {
                        let (row, field) = bench_backend(
                            &name,
                            &mesh,
                            &params,
                            backend,
                            gpu.as_ref(),
                            args.repeats,
                            cpu_field.as_ref(),
                        )?;
                        if backend == Backend::CpuFast {
                            cpu_field = Some(field);
                        }
                        row
                    }
                };
                eprintln!(
                    "  {res}³ {:<9} {:>10.2} ms{}",
                    row.backend,
                    row.best_ms(),
                    if row.estimated { " (est.)" } else { "" }
                );
                rows.push(row);
            }
        }
    }
    write_outputs(&args.out, &rows, adapter.as_deref())?;
    print_table(&rows, adapter.as_deref());
    Ok(())
}

/// The models of a suite, in table order.
pub(super) fn models(suite: Suite) -> anyhow::Result<Vec<(String, Mesh)>> {
    let mut out = Vec::new();
    if suite != Suite::Scaling {
        for (kind, n) in [
            (PrimitiveKind::Box, 12),
            (PrimitiveKind::Cone, 64),
            (PrimitiveKind::Cylinder, 127),
            (PrimitiveKind::Torus, 399),
            (PrimitiveKind::Box, 768),
            (PrimitiveKind::Sphere, 2499),
        ] {
            let m = primitive_with_triangles(kind, n);
            out.push((m.name.clone(), m));
        }
        // Stand-ins for Sundholm's teapot (992), robot (8,454) and armadillo
        // (27,674): our teapot (6,320), fandisk (12,946), rocker arm (20,088).
        for name in ["teapot", "fandisk", "rocker-arm", "stanford-bunny", "ogre"] {
            out.push((name.to_string(), crate::assets::load_sample(name)?));
        }
    }
    if suite != Suite::Sundholm {
        let bunny = crate::assets::load_sample("stanford-bunny")?;
        if suite == Suite::Scaling {
            out.push(("stanford-bunny".to_string(), bunny.clone()));
        }
        let once = bunny.subdivided();
        let twice = once.subdivided();
        out.push((format!("bunny-sub1 ({})", once.triangles.len()), once));
        out.push((format!("bunny-sub2 ({})", twice.triangles.len()), twice));
    }
    Ok(out)
}

fn bench_backend(
    name: &str,
    mesh: &PreparedMesh,
    params: &SdfParams,
    backend: Backend,
    gpu: Option<&SdfGpu>,
    repeats: usize,
    cpu: Option<&SdfField>,
) -> anyhow::Result<(Row, SdfField)> {
    // Long GPU runs (brute force on large meshes) are timed once after the
    // warm-up: their run-to-run spread is far below their length.
    let repeats = match backend {
        b if b.is_gpu() && field_work(mesh, params) > LONG_RUN_WORK => 1,
        b if b.is_gpu() => repeats,
        _ => 1,
    };
    let whole = || {
        Ok(sdf_grid::compute(
            mesh,
            params,
            backend,
            gpu,
            &Progress::default(),
        )?)
    };
    let t = match gpu.filter(|_| backend.is_gpu()) {
        // GPU time from runs that read nothing back (see bench_timing).
        Some(g) => {
            let accelerated = backend == Backend::Gpu;
            timed_gpu(
                repeats,
                || Ok(g.time(mesh, params, accelerated)?.total_gpu_ms()),
                whole,
            )?
        }
        None => timed(repeats, false, || {
            let f = whole()?;
            let g = f.timings.total_gpu_ms();
            Ok((f, g))
        })?,
    };
    let field = t.last;
    let (max_diff, mismatches) = match cpu {
        Some(c) if backend != Backend::CpuFast => {
            let max = field
                .values
                .iter()
                .zip(&c.values)
                .map(|(a, b)| (a.abs() - b.abs()).abs())
                .fold(0.0, f32::max);
            let signs = field
                .values
                .iter()
                .zip(&c.values)
                .filter(|(a, b)| (**a < 0.0) != (**b < 0.0))
                .count();
            (Some(max), Some(signs))
        }
        _ => (None, None),
    };
    let cells = field.grid.num_cells();
    let (gpu_med, wall_med) = (t.gpu_ms, t.wall_ms);
    let row = Row {
        model: name.to_string(),
        triangles: mesh.triangle_count(),
        resolution: params.resolution,
        cells,
        backend: backend.name(),
        gpu_ms: gpu_med,
        wall_ms: wall_med,
        estimated: false,
        million_cells_per_s: cells as f64 / (gpu_med.unwrap_or(wall_med) * 1e3),
        evaluations_per_cell: field.distance_evaluations as f64 / cells as f64,
        max_abs_diff_vs_cpu: max_diff,
        sign_mismatches_vs_cpu: mismatches,
        gpu_phases: field
            .timings
            .phases
            .iter()
            .filter_map(|p| Some((p.name.clone(), p.gpu_ms?)))
            .collect(),
    };
    Ok((row, field))
}

/// Point–triangle pairs of a whole grid (the brute-force work).
fn field_work(mesh: &PreparedMesh, params: &SdfParams) -> u64 {
    let grid = GridSpec::around(mesh.mesh.bounds(), params.resolution, params.padding);
    grid.num_cells() as u64 * mesh.triangle_count() as u64
}

/// Brute-force work above which a GPU run is timed once.
const LONG_RUN_WORK: u64 = 20_000_000_000;

/// Times the single-threaded reference, on a strided sample of cells when
/// the whole grid would exceed `budget` point–triangle tests.
fn bench_reference(name: &str, mesh: &PreparedMesh, params: &SdfParams, budget: u64) -> Row {
    let grid = GridSpec::around(mesh.mesh.bounds(), params.resolution, params.padding);
    let cells = grid.num_cells();
    let work = cells as u64 * mesh.triangle_count() as u64;
    let stride = work.div_ceil(budget).max(1) as usize;
    let start = Instant::now();
    let mut sampled = 0usize;
    let mut checksum = 0.0f32;
    for cell in (0..cells).step_by(stride) {
        if let Some((v, _)) = reference_cell(mesh, grid.center_of(cell), f32::INFINITY) {
            checksum += v;
        }
        sampled += 1;
    }
    std::hint::black_box(checksum);
    let wall = start.elapsed().as_secs_f64() * 1e3 * cells as f64 / sampled as f64;
    Row {
        model: name.to_string(),
        triangles: mesh.triangle_count(),
        resolution: params.resolution,
        cells,
        backend: Backend::CpuReference.name(),
        gpu_ms: None,
        wall_ms: wall,
        estimated: stride > 1,
        million_cells_per_s: cells as f64 / (wall * 1e3),
        evaluations_per_cell: mesh.triangle_count() as f64,
        max_abs_diff_vs_cpu: None,
        sign_mismatches_vs_cpu: None,
        gpu_phases: Vec::new(),
    }
}

fn write_outputs(dir: &Path, rows: &[Row], adapter: Option<&str>) -> anyhow::Result<()> {
    let json = serde_json::json!({
        "benchmark": "sdf",
        "adapter": adapter,
        "date": chrono_free_date(),
        "rows": rows,
    });
    crate::io::write_atomically(
        &dir.join("sdf.json"),
        serde_json::to_string_pretty(&json)?.as_bytes(),
    )?;
    let mut csv = String::from(
        "model,triangles,resolution,cells,backend,gpu_ms,wall_ms,estimated,million_cells_per_s,evaluations_per_cell,max_abs_diff_vs_cpu,sign_mismatches_vs_cpu\n",
    );
    let opt = |v: Option<String>| v.unwrap_or_default();
    for r in rows {
        csv.push_str(&format!(
            "{},{},{},{},{},{},{:.4},{},{:.3},{:.2},{},{}\n",
            r.model.replace(',', ";"),
            r.triangles,
            r.resolution,
            r.cells,
            r.backend,
            opt(r.gpu_ms.map(|v| format!("{v:.4}"))),
            r.wall_ms,
            r.estimated,
            r.million_cells_per_s,
            r.evaluations_per_cell,
            opt(r.max_abs_diff_vs_cpu.map(|v| format!("{v:e}"))),
            opt(r.sign_mismatches_vs_cpu.map(|v| v.to_string())),
        ));
    }
    crate::io::write_atomically(&dir.join("sdf.csv"), csv.as_bytes())?;
    plot(dir, rows, adapter).map_err(|e| anyhow::anyhow!("plot: {e}"))
}

fn plot(dir: &Path, rows: &[Row], adapter: Option<&str>) -> Result<(), String> {
    let mut times = Vec::new();
    let mut speedups = Vec::new();
    let mut resolutions: Vec<u32> = rows.iter().map(|r| r.resolution).collect();
    resolutions.dedup();
    for &res in &resolutions {
        for backend in Backend::ALL {
            let pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.resolution == res && r.backend == backend.name())
                .map(|r| (r.triangles as f64, r.best_ms()))
                .collect();
            if pts.is_empty() {
                continue;
            }
            times.push(Series {
                name: format!("{} {res}³", backend.name()),
                points: pts,
            });
            if backend.is_gpu() {
                let pts: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|r| r.resolution == res && r.backend == backend.name())
                    .filter_map(|r| {
                        let reference = rows.iter().find(|q| {
                            q.model == r.model
                                && q.resolution == res
                                && q.backend == Backend::CpuReference.name()
                        })?;
                        Some((r.triangles as f64, reference.best_ms() / r.best_ms()))
                    })
                    .collect();
                if !pts.is_empty() {
                    speedups.push(Series {
                        name: format!("{} vs cpu-ref {res}³", backend.name()),
                        points: pts,
                    });
                }
            }
        }
    }
    let title = format!(
        "SDF grid time vs triangles — {}",
        adapter.unwrap_or("CPU only")
    );
    crate::plot::write_png(
        &dir.join("sdf.png"),
        1600,
        650,
        &[
            Panel {
                title: &title,
                x_label: "triangles",
                y_label: "ms",
                log_x: true,
                log_y: true,
                series: &times,
            },
            Panel {
                title: "GPU speed-up over the single-thread CPU reference",
                x_label: "triangles",
                y_label: "× faster",
                log_x: true,
                log_y: true,
                series: &speedups,
            },
        ],
    )
}

fn print_table(rows: &[Row], adapter: Option<&str>) {
    println!(
        "SDF grid benchmark — {}",
        adapter.unwrap_or("CPU backends only")
    );
    println!(
        "{:<24} {:>9} {:>5} {:<9} {:>11} {:>11} {:>9} {:>9} {:>10} {:>6}",
        "model",
        "triangles",
        "res",
        "backend",
        "gpu ms",
        "wall ms",
        "Mcells/s",
        "evals/cell",
        "max|Δ|cpu",
        "signs"
    );
    for r in rows {
        println!(
            "{:<24} {:>9} {:>5} {:<9} {:>11} {:>11} {:>9.1} {:>9.1} {:>10} {:>6}",
            r.model,
            r.triangles,
            r.resolution,
            r.backend,
            r.gpu_ms.map_or("-".into(), |v| format!("{v:.2}")),
            format!("{:.1}{}", r.wall_ms, if r.estimated { "*" } else { "" }),
            r.million_cells_per_s,
            r.evaluations_per_cell,
            r.max_abs_diff_vs_cpu
                .map_or("-".into(), |v| format!("{v:.1e}")),
            r.sign_mismatches_vs_cpu
                .map_or("-".into(), |v| v.to_string()),
        );
    }
    println!("* estimated from a strided sample of cells");
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock.
fn chrono_free_date() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}
