//! `collidoscope bench adaptive`: the exact adaptive field (Liu & Kim 2014)
//! per model — table 2 (triangles, sample points, whole-pipeline time split
//! into sort, octree, BVH build and queries), table 1 (candidate BVHs,
//! bounding volumes and triangles tested per sample point, per depth) and
//! the paper's ablations: tight vs arbitrary upper bound (§6.2, 26 vs
//! 372 ms), single vs multi-BVH (fig. 12), axis approximation on and off
//! (§6.2), and the mesh's AABB BVH for comparison; the CPU reference of the
//! default configuration; memory of the octree and the BVHs. With
//! `--winding`, the base configuration once more with the winding-number
//! sign (config `winding`): its first GPU pass in column `winding_ms`, the
//! refining pass in `refine_ms`, the nodes the refining pass decided
//! (`refined`) and those it left to the CPU (`cpu_nodes`, decided in
//! `cpu_sign_ms`, part of the wall time). Writes adaptive.json, adaptive.csv
//! and adaptive.png.

use std::time::Instant;

use anyhow::Context;
use serde::Serialize;

use super::common::{CommonArgs, ModelArgs};
use super::report::{self, Column, Report, print_table, series};
use super::timing::{WALL_RUNS, median, warm_up};
use crate::cli::sdf::AdaptiveOpts;
use crate::gpu::GpuContext;
use crate::mesh::PreparedMesh;
use crate::plot::Series;
use crate::stages::adaptive::{
    AdaptiveField, AdaptiveGpu, AdaptiveParams, DepthStats, SignMode, compute_cpu,
};
use crate::stages::sdf::FALLBACK_PHASE;
use crate::timing::Timings;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub models: ModelArgs,
    /// Maximum octree depth.
    #[arg(long, default_value_t = 10)]
    pub depth: u32,
    /// Largest mesh the (single-threaded) CPU reference runs on.
    #[arg(long, default_value_t = 300_000)]
    pub cpu_ref_max_triangles: usize,
    /// The base configuration the ablations change one by one.
    #[command(flatten)]
    pub adaptive: AdaptiveOpts,
    /// Time the base configuration only, not its ablations.
    #[arg(long)]
    pub no_ablations: bool,
    /// Also time the base configuration with the winding-number sign
    /// (config `winding`).
    #[arg(long)]
    pub winding: bool,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// The configurations of one model: the base configuration of the
/// command line (default: the paper's method), then its ablations
/// ([`AdaptiveParams::ablations`]).
fn configs(args: &Args) -> Vec<(&'static str, AdaptiveParams)> {
    let d = AdaptiveParams::default();
    let mut configs = args
        .adaptive
        .params(d.start_depth, args.depth, d.alpha, d.padding)
        .ablations();
    if args.no_ablations {
        configs.truncate(1);
    }
    if args.winding {
        let base = configs[0].1;
        configs.push((
            "winding",
            AdaptiveParams {
                sign_mode: SignMode::Winding,
                ..base
            },
        ));
    }
    configs
}

/// The table's phases; GPU phase names as AdaptiveGpu records them, each
/// phase counted under the longest of these its name starts with
/// ("winding", "winding refine": the winding-number sign's passes, winding
/// mode only).
const PHASES: [&str; 6] = [
    "sort",
    "octree",
    "bvh build",
    "queries",
    "winding",
    "winding refine",
];

/// Winding mode: who decided how many nodes' signs after the first pass.
#[derive(Serialize, Clone, Copy, Debug)]
struct WindingSplit {
    /// Nodes the first pass left open and the refining pass decided.
    refined_nodes: usize,
    /// Nodes the refining pass left open, decided on the CPU.
    cpu_nodes: usize,
    /// Median wall time of the CPU's decisions.
    cpu_sign_ms: f64,
}

#[derive(Serialize, Clone, Debug)]
struct Row {
    model: String,
    triangles: usize,
    backend: &'static str,
    config: &'static str,
    /// Sample points: octree nodes.
    nodes: usize,
    /// Median over the timed repetitions, whole pipeline, end to end.
    wall_ms: f64,
    /// Summed GPU time of the phases, when the adapter has timestamps.
    gpu_ms: Option<f64>,
    /// sort, octree, BVH build, queries, winding, winding refine: GPU ms
    /// (CPU: wall ms; the CPU octree includes its sort).
    phase_ms: [Option<f64>; 6],
    /// Winding mode on the GPU: the refining pass's and the CPU's share.
    winding: Option<WindingSplit>,
    evals_per_node: f64,
    octree_bytes: u64,
    bvh_bytes: u64,
    per_depth: Vec<DepthStats>,
}

/// The entry of [`PHASES`] a recorded phase counts under.
fn phase_of(phase: &str) -> Option<&'static str> {
    PHASES
        .into_iter()
        .filter(|name| phase.starts_with(name))
        .max_by_key(|name| name.len())
}

fn phase_ms(timings: &Timings, name: &str, gpu: bool) -> Option<f64> {
    let mut total = None;
    for p in timings
        .phases
        .iter()
        .filter(|p| phase_of(&p.name) == Some(name))
    {
        let ms = if gpu { p.gpu_ms } else { Some(p.wall_ms) };
        total = Some(total.unwrap_or(0.0) + ms?);
    }
    total
}

/// A row from the last run's field, the runs' wall times and their phases:
/// the medians (the phases of the run with the median GPU total).
fn row(
    model: &str,
    backend: &'static str,
    config: &'static str,
    field: &AdaptiveField,
    walls: &mut [f64],
    runs: &mut [[Option<f64>; 6]],
    triangles: usize,
) -> Row {
    let gpu = backend == "gpu";
    // A phase the configuration does not have (the AABB BVH is not built
    // per run) adds nothing.
    let total = |p: &[Option<f64>; 6]| {
        (gpu && p.iter().any(Option::is_some)).then(|| p.iter().flatten().sum::<f64>())
    };
    runs.sort_by(|a, b| total(a).unwrap_or(0.0).total_cmp(&total(b).unwrap_or(0.0)));
    let phase_ms = runs[runs.len() / 2];
    let n = field.octree.nodes.len();
    Row {
        model: model.to_string(),
        triangles,
        backend,
        config,
        nodes: n,
        wall_ms: median(walls),
        gpu_ms: total(&phase_ms),
        phase_ms,
        evals_per_node: field.distance_evaluations as f64 / n.max(1) as f64,
        octree_bytes: field.memory.octree_bytes,
        bvh_bytes: field.memory.bvh_bytes,
        per_depth: field.stats.clone(),
        winding: None,
    }
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let report = Report::create(&args.common.out, "adaptive")?;
    let gpu = GpuContext::headless()?;
    eprintln!("adapter: {}", gpu.describe());
    let stage = AdaptiveGpu::new(&gpu);
    let configs = configs(args);
    let base = configs[0].0;
    let mut rows = Vec::new();
    let wanted = |n: &str| {
        ["stanford-bunny", "ogre", "bunny-sub"]
            .iter()
            .any(|m| n.starts_with(m))
    };
    for (name, raw) in args.models.selected()? {
        if !wanted(&name) {
            continue;
        }
        let mesh = PreparedMesh::new(&raw).with_context(|| format!("preparing {name}"))?;
        let tris = mesh.triangle_count();
        for &(config, params) in &configs {
            // GPU times from back-to-back runs that read back only their
            // timings: reading the field back between runs leaves the GPU
            // idle long enough for the driver to lower its clock.
            warm_up(|| {
                let (t, _) = stage.time(&mesh, &params)?;
                Ok(t.total_gpu_ms())
            })?;
            let mut phases = Vec::new();
            let mut open = None;
            let mut cpu_sign_ms = Vec::new();
            for _ in 0..args.common.repeats.max(1) {
                let (t, o) = stage.time(&mesh, &params)?;
                phases.push(PHASES.map(|p| phase_ms(&t, p, true)));
                cpu_sign_ms.push(cpu_sign(&t));
                open = o;
            }
            let winding = open.map(|o| WindingSplit {
                refined_nodes: o.refined,
                cpu_nodes: o.cpu,
                cpu_sign_ms: median(&mut cpu_sign_ms),
            });
            // Wall times from whole runs, the field read back.
            let mut walls = Vec::new();
            let mut last = None;
            for _ in 0..WALL_RUNS {
                let t = Instant::now();
                last = Some(stage.compute(&mesh, &params)?);
                walls.push(t.elapsed().as_secs_f64() * 1e3);
            }
            let f = last.context("no run")?;
            let r = Row {
                winding,
                ..row(&name, "gpu", config, &f, &mut walls, &mut phases, tris)
            };
            eprintln!(
                "{name} {config}: {} nodes, {:.2} ms wall, {} GPU ms",
                r.nodes,
                r.wall_ms,
                r.gpu_ms.map_or("-".into(), |g| format!("{g:.2}"))
            );
            rows.push(r);
        }
        if tris <= args.cpu_ref_max_triangles {
            let (config, params) = configs[0];
            let t = Instant::now();
            let f = compute_cpu(&mesh, &params)?;
            let wall = t.elapsed().as_secs_f64() * 1e3;
            let mut phases = [PHASES.map(|p| phase_ms(&f.timings, p, false))];
            rows.push(row(
                &name,
                "cpu-ref",
                config,
                &f,
                &mut [wall],
                &mut phases,
                tris,
            ));
        } else {
            eprintln!("{name}: cpu-ref skipped ({tris} triangles > --cpu-ref-max-triangles)");
        }
    }
    let adapter = gpu.describe();
    print_tables(&rows, &adapter, args.depth, base);
    report.write(Some(&adapter), &[("depth", args.depth.into())], &rows)?;
    plot(&report, &rows, &adapter, args.depth, &configs)
}

/// Wall ms of the CPU's winding-sign decisions in a run's timings.
fn cpu_sign(timings: &Timings) -> f64 {
    timings
        .phases
        .iter()
        .filter(|p| p.name == FALLBACK_PHASE)
        .map(|p| p.wall_ms)
        .sum()
}

/// The columns of the table and the CSV: header, table width.
const COLUMNS: [(&str, usize); 19] = [
    ("model", 24),
    ("triangles", 9),
    ("backend", 8),
    ("config", 16),
    ("points", 9),
    ("wall_ms", 9),
    ("gpu_ms", 8),
    ("sort_ms", 8),
    ("octree_ms", 9),
    ("bvh_build_ms", 12),
    ("queries_ms", 10),
    ("winding_ms", 10),
    ("refine_ms", 9),
    ("refined", 7),
    ("cpu_nodes", 9),
    ("cpu_sign_ms", 11),
    ("evals_per_point", 15),
    ("octree_bytes", 12),
    ("bvh_bytes", 10),
];

impl report::Row for Row {
    fn csv_header() -> Vec<&'static str> {
        COLUMNS.map(|(h, _)| h).to_vec()
    }

    /// The cells, in the order of [`COLUMNS`] (empty: not measured).
    fn csv_cells(&self) -> Vec<String> {
        let ms = |v: Option<f64>| report::or_empty(v, |v| format!("{v:.3}"));
        vec![
            self.model.clone(),
            self.triangles.to_string(),
            self.backend.to_string(),
            self.config.to_string(),
            self.nodes.to_string(),
            format!("{:.3}", self.wall_ms),
            ms(self.gpu_ms),
            ms(self.phase_ms[0]),
            ms(self.phase_ms[1]),
            ms(self.phase_ms[2]),
            ms(self.phase_ms[3]),
            ms(self.phase_ms[4]),
            ms(self.phase_ms[5]),
            report::or_empty(self.winding, |w| w.refined_nodes.to_string()),
            report::or_empty(self.winding, |w| w.cpu_nodes.to_string()),
            report::or_empty(self.winding, |w| format!("{:.3}", w.cpu_sign_ms)),
            format!("{:.2}", self.evals_per_node),
            self.octree_bytes.to_string(),
            self.bvh_bytes.to_string(),
        ]
    }

    fn table_columns() -> Vec<Column> {
        COLUMNS.map(|(h, w)| Column::right(h, w)).to_vec()
    }

    /// The table shows the CSV's cells.
    fn table_cells(&self) -> Vec<String> {
        self.csv_cells()
    }
}

/// Table 2 with the ablations, then table 1 of the base configuration.
fn print_tables(rows: &[Row], adapter: &str, depth: u32, base: &str) {
    print_table(
        &format!("Adaptive SDF, depth {depth} (l = 3, α = 1), table 2 and ablations — {adapter}"),
        rows,
    );
    println!();
    println!(
        "Table 1: per depth, candidate BVHs / RSS tests / triangle tests per sample point and the depth's query time (GPU, {base})"
    );
    for r in rows
        .iter()
        .filter(|r| r.backend == "gpu" && r.config == base)
    {
        println!("{} ({} triangles)", r.model, r.triangles);
        for d in &r.per_depth {
            println!(
                "  {:>5}³ depth {:>2}: {:>9} points  {:>8.2} BVHs  {:>8.2} BVs  {:>8.2} triangles  {:>8} ms",
                1u64 << d.depth,
                d.depth,
                d.nodes,
                d.bvhs_per_point,
                d.bvs_per_point,
                d.triangles_per_point,
                d.query_gpu_ms.map_or("—".into(), |ms| format!("{ms:.3}"))
            );
        }
    }
}

/// Time against triangles per configuration, the base configuration's
/// phases, and table 1's candidate BVHs per sample point and depth.
fn plot(
    report: &Report,
    rows: &[Row],
    adapter: &str,
    depth: u32,
    configs: &[(&'static str, AdaptiveParams)],
) -> anyhow::Result<()> {
    let base = configs[0].0;
    let mut times: Vec<Series> = configs
        .iter()
        .map(|(config, _)| {
            series(format!("gpu {config}"), rows, |r| {
                (r.backend == "gpu" && r.config == *config)
                    .then(|| (r.triangles as f64, report::best_ms(r.gpu_ms, r.wall_ms)))
            })
        })
        .collect();
    times.push(series(format!("cpu-ref {base}"), rows, |r| {
        (r.backend == "cpu-ref").then_some((r.triangles as f64, r.wall_ms))
    }));
    let best: Vec<&Row> = rows
        .iter()
        .filter(|r| r.backend == "gpu" && r.config == base)
        .collect();
    let phases: Vec<Series> = PHASES
        .iter()
        .enumerate()
        .map(|(k, name)| series(*name, &best, |r| Some((r.triangles as f64, r.phase_ms[k]?))))
        .filter(|s| !s.points.is_empty())
        .collect();
    let table1: Vec<Series> = best
        .iter()
        .map(|r| Series {
            name: r.model.clone(),
            points: r
                .per_depth
                .iter()
                .map(|d| ((1u64 << d.depth) as f64, d.bvhs_per_point))
                .collect(),
        })
        .collect();
    let title = format!("whole pipeline, depth {depth} — {adapter}");
    let phases_title = format!("phases (GPU, {base})");
    report.plot(
        2100,
        650,
        &[
            report::log_log(&title, "triangles", "ms", &times),
            report::log_log(&phases_title, "triangles", "GPU ms", &phases),
            report::log_log(
                "table 1: candidate BVHs per sample point",
                "resolution (cells per axis)",
                "BVHs per point",
                &table1,
            ),
        ],
    )
}
