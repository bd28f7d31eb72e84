//! `collidoscope bench sdf`: Sundholm's table 7.1 at 128³ for every backend,
//! then the bunny, the ogre and subdivided bunnies for scaling.
//!
//! Per row: GPU time (timestamp queries, kernels only) where the adapter has
//! them, wall-clock time end to end (upload, kernels, read-back), cells per
//! second, distance evaluations per cell, and the largest difference from
//! the CPU fast backend in the same sign mode (the exactness check). Each
//! sign mode of `--signs` gets its rows (column "sign"); a GPU winding row's
//! GPU time adds the CPU's exact decisions for the cells the GPU's bounds
//! leave open (their wall time; column "exact", the count; column
//! "refined", the cells the crossing count and the cap's winding number
//! left open and the refining pass decided on the GPU, split in column
//! "β12/β32/exact" by the step that decided them; column "by count", the
//! cells the crossing count and the cap signed). The JSON and CSV hold
//! each row's phase split: the GPU time of every pass (`gpu_phases`:
//! distance kernels, `cap crossings`, `prefix sum`, `cap winding` (the
//! cap's bound per brick and per cell), `cap walk` (the cap's tree walked
//! at the cells that bound left open), the β = 12 and 32 walks' parts and
//! decide passes (`winding refine β12 parts` …, CSV `walk12_parts_ms` …,
//! with the passes writing their dispatch arguments, `refine_args_ms`, and
//! their total `winding_refine_ms`), `winding refine exact` (the exact sum
//! over the device, CSV `winding_exact_ms`), copies) and the CPU fallback's
//! wall time (`fallback_ms`). GPU rows also split their wall
//! time by phase, figure the field's PCIe copy time and say whether
//! `wall ≤ gpu + 2 × copy + 5 ms` holds (columns `bvh_ms` …
//! `wall_target_met`, a second table and `sdf.md`; what a wall run
//! includes: [`super::sdf_wall`]). The single-threaded CPU reference is
//! timed on a strided sample of cells and extrapolated when the full grid
//! would take minutes (marked "est.").
//!
//! The GPU rows' passes get a third table and their own files,
//! `sdf-passes.json` and `.csv`: each pass's share of the run, its
//! evaluations per cell and per second, bytes and bandwidth beside the
//! device's limits ([`super::sdf_passes`]).

use std::time::Instant;

use anyhow::Context;
use serde::Serialize;

use super::common::{CommonArgs, ModelArgs};
use super::report::{self, Column, Report, or_dash, or_empty, print_table, series};
use super::sdf_compare;
use super::sdf_passes;
use super::sdf_wall::{self, WallRow, WallSplit, wall_target_ms};
use super::timing::{WALL_RUNS, median, timed, timed_gpu};
use crate::cli::{BackendArg, SignArg};
use crate::gpu::GpuContext;
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::stages::sdf::{
    self, Backend, FALLBACK_PHASE, FieldOutputs, GridSpec, SdfField, SdfGpu, SdfParams, SignMode,
    WINDING_REFINE_PHASES, reference_cell,
};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub models: ModelArgs,
    /// Backends to run (default: all four).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub backends: Vec<BackendArg>,
    /// Sign modes, each with its rows (the distances are the same).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "pseudo-normal,winding"
    )]
    pub signs: Vec<SignArg>,
    /// Grid resolutions (cells along the longest axis).
    #[arg(long, value_delimiter = ',', default_value = "128")]
    pub res: Vec<u32>,
    /// Largest number of point–triangle tests the CPU reference runs per row
    /// before it switches to a strided sample and extrapolates.
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
    model: String,
    triangles: usize,
    resolution: u32,
    cells: usize,
    backend: &'static str,
    sign: &'static str,
    /// Cells whose winding sign the GPU left to the CPU's exact sum.
    exact_cells: Option<usize>,
    /// Cells the GPU winding sign's crossing count and cap signed.
    counted_cells: Option<usize>,
    /// Of those, cells the cap's bound did not decide, which walked the
    /// cap's tree.
    cap_walked_cells: Option<usize>,
    /// Cells the crossing count and cap left open and the refining pass
    /// decided.
    refined_cells: Option<usize>,
    /// Of `refined_cells`, those the refining pass's β = 12 walk, β = 32
    /// walk and exact sum decided.
    refined_by_step: Option<[usize; 3]>,
    /// Wall time of the CPU's exact decisions (in `gpu_ms` too).
    fallback_ms: Option<f64>,
    /// Kernel time from timestamp queries (GPU backends).
    gpu_ms: Option<f64>,
    /// End-to-end wall-clock time of the stage.
    wall_ms: f64,
    /// True when extrapolated from a sample of cells.
    estimated: bool,
    million_cells_per_s: f64,
    evaluations_per_cell: f64,
    /// The distance kernels' point–triangle evaluations.
    distance_evaluations: u64,
    max_abs_diff_vs_cpu: Option<f32>,
    sign_mismatches_vs_cpu: Option<usize>,
    /// The GPU phases of the last run (seeds, cells, copy out).
    gpu_phases: Vec<(String, f64)>,
    /// Wall time of the mesh's preparation (once per model, not in
    /// `wall_ms`).
    prepare_ms: f64,
    /// The last wall run's time by phase (GPU backends; see `sdf_wall`).
    wall_split: Option<WallSplit>,
    /// The field's copy over PCIe: 4 bytes per cell at the measured copy
    /// bandwidth (GPU backends).
    copy_ms: Option<f64>,
    /// `gpu_ms + 2 × copy_ms + 5`, the end-to-end target.
    wall_target_ms: Option<f64>,
    /// A warm call's wall time (the mesh and the run's buffers resident:
    /// a repeated call), median of [`WALL_RUNS`], and the last one's split
    /// (GPU backends).
    warm_wall_ms: Option<f64>,
    warm_split: Option<WallSplit>,
}

impl Row {
    fn best_ms(&self) -> f64 {
        report::best_ms(self.gpu_ms, self.wall_ms)
    }

    /// The field's copy time at `gb_s` (4 bytes per cell) and the target
    /// it gives.
    fn set_copy(&mut self, gb_s: f64) {
        let copy_ms = (self.cells * 4) as f64 / (gb_s * 1e6);
        self.copy_ms = Some(copy_ms);
        self.wall_target_ms = self.gpu_ms.map(|g| wall_target_ms(g, copy_ms));
    }

    /// What the per-pass account needs of a GPU row.
    fn pass_run(&self) -> sdf_passes::Run<'_> {
        sdf_passes::Run {
            model: &self.model,
            backend: self.backend,
            resolution: self.resolution,
            sign: self.sign,
            cells: self.cells,
            triangles: self.triangles,
            evaluations: self.distance_evaluations,
            phases: &self.gpu_phases,
            walked: self.cap_walked_cells,
            refined: self.refined_cells,
            by_step: self.refined_by_step,
        }
    }
}

/// The GPU winding sign's passes after the distance kernels, in order
/// (their GPU times are CSV columns too).
const WINDING_PHASES: [&str; 6] = [
    "cap crossings",
    "prefix sum",
    "cap winding",
    "cap walk",
    "winding refine",
    "winding refine exact",
];

impl Row {
    /// The GPU time of phase `name`, where it ran; "winding refine" is
    /// the total of the walks' passes ([`WINDING_REFINE_PHASES`]).
    fn phase_ms(&self, name: &str) -> Option<f64> {
        if name == "winding refine" {
            let walks: Vec<f64> = WINDING_REFINE_PHASES
                .iter()
                .filter_map(|&n| self.phase_ms(n))
                .collect();
            return (!walks.is_empty()).then(|| walks.iter().sum());
        }
        self.gpu_phases
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, ms)| ms)
    }
}

impl report::Row for Row {
    fn csv_header() -> Vec<&'static str> {
        vec![
            "model",
            "triangles",
            "resolution",
            "cells",
            "backend",
            "sign",
            "exact_cells",
            "gpu_ms",
            "wall_ms",
            "estimated",
            "million_cells_per_s",
            "evaluations_per_cell",
            "max_abs_diff_vs_cpu",
            "sign_mismatches_vs_cpu",
            "refined_cells",
            "fallback_ms",
            "counted_cells",
            "cap_walked_cells",
            "cap_crossings_ms",
            "prefix_sum_ms",
            "cap_winding_ms",
            "cap_walk_ms",
            "winding_refine_ms",
            "winding_exact_ms",
            "prepare_ms",
            "bvh_ms",
            "upload_ms",
            "kernels_wall_ms",
            "readback_ms",
            "host_ms",
            "other_ms",
            "copy_ms",
            "wall_target_ms",
            "wall_target_met",
            "warm_wall_ms",
            "warm_bvh_ms",
            "warm_upload_ms",
            "warm_kernels_wall_ms",
            "warm_readback_ms",
            "warm_host_ms",
            "warm_other_ms",
            "warm_target_met",
            "refined_beta12_cells",
            "refined_beta32_cells",
            "refined_exact_cells",
            "refine_args_ms",
            "walk12_parts_ms",
            "walk12_decide_ms",
            "walk32_parts_ms",
            "walk32_decide_ms",
        ]
    }

    fn csv_cells(&self) -> Vec<String> {
        vec![
            self.model.replace(',', ";"),
            self.triangles.to_string(),
            self.resolution.to_string(),
            self.cells.to_string(),
            self.backend.to_string(),
            self.sign.to_string(),
            or_empty(self.exact_cells, |v| v.to_string()),
            or_empty(self.gpu_ms, |v| format!("{v:.4}")),
            format!("{:.4}", self.wall_ms),
            self.estimated.to_string(),
            format!("{:.3}", self.million_cells_per_s),
            format!("{:.2}", self.evaluations_per_cell),
            or_empty(self.max_abs_diff_vs_cpu, |v| format!("{v:e}")),
            or_empty(self.sign_mismatches_vs_cpu, |v| v.to_string()),
            or_empty(self.refined_cells, |v| v.to_string()),
            or_empty(self.fallback_ms, |v| format!("{v:.4}")),
            or_empty(self.counted_cells, |v| v.to_string()),
            or_empty(self.cap_walked_cells, |v| v.to_string()),
        ]
        .into_iter()
        .chain(WINDING_PHASES.map(|name| or_empty(self.phase_ms(name), |v| format!("{v:.4}"))))
        .chain([format!("{:.4}", self.prepare_ms)])
        .chain(
            (0..WallSplit::NAMES.len())
                .map(|k| or_empty(self.wall_split, |s| format!("{:.4}", s.values()[k]))),
        )
        .chain([
            or_empty(self.copy_ms, |v| format!("{v:.4}")),
            or_empty(self.wall_target_ms, |v| format!("{v:.4}")),
            or_empty(self.wall_target_ms, |t| (self.wall_ms <= t).to_string()),
            or_empty(self.warm_wall_ms, |v| format!("{v:.4}")),
        ])
        .chain(
            (0..WallSplit::NAMES.len())
                .map(|k| or_empty(self.warm_split, |s| format!("{:.4}", s.values()[k]))),
        )
        .chain([or_empty(
            self.wall_target_ms.zip(self.warm_wall_ms),
            |(t, w)| (w <= t).to_string(),
        )])
        .chain((0..3).map(|k| or_empty(self.refined_by_step, |s| s[k].to_string())))
        .chain(
            WINDING_REFINE_PHASES.map(|name| or_empty(self.phase_ms(name), |v| format!("{v:.4}"))),
        )
        .collect()
    }

    fn table_columns() -> Vec<Column> {
        vec![
            Column::left("model", 24),
            Column::right("triangles", 9),
            Column::right("res", 5),
            Column::left("backend", 9),
            Column::left("sign", 13),
            Column::right("by count", 9),
            Column::right("refined", 7),
            Column::right("exact", 6),
            Column::right("gpu ms", 11),
            Column::right("wall ms", 11),
            Column::right("Mcells/s", 9),
            Column::right("evals/cell", 9),
            Column::right("max|Δ|cpu", 10),
            Column::right("signs", 6),
            Column::right("β12/β32/exact", 14),
        ]
    }

    fn table_cells(&self) -> Vec<String> {
        vec![
            self.model.clone(),
            self.triangles.to_string(),
            self.resolution.to_string(),
            self.backend.to_string(),
            self.sign.to_string(),
            or_dash(self.counted_cells, |v| v.to_string()),
            or_dash(self.refined_cells, |v| v.to_string()),
            or_dash(self.exact_cells, |v| v.to_string()),
            or_dash(self.gpu_ms, |v| format!("{v:.2}")),
            format!(
                "{:.1}{}",
                self.wall_ms,
                if self.estimated { "*" } else { "" }
            ),
            format!("{:.1}", self.million_cells_per_s),
            format!("{:.1}", self.evaluations_per_cell),
            or_dash(self.max_abs_diff_vs_cpu, |v| format!("{v:.1e}")),
            or_dash(self.sign_mismatches_vs_cpu, |v| v.to_string()),
            or_dash(self.refined_by_step, |[a, b, c]| format!("{a}/{b}/{c}")),
        ]
    }
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let report = Report::create(&args.common.out, "sdf")?;
    let passes_report = Report::create(&args.common.out, "sdf-passes")?;
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
    // The bandwidth the field's PCIe copy time is figured at.
    let copy_gb_s = match &gpu {
        Some(g) => {
            let (gb_s, by_timestamps) = sdf_wall::copy_bandwidth(g.context())?;
            let how = if by_timestamps {
                "timestamps"
            } else {
                "wall time"
            };
            eprintln!("device → host-visible copy: {gb_s:.2} GB/s ({how})");
            Some(gb_s)
        }
        None => None,
    };
    // The precision of the winding sign's exact GPU step.
    let exact_step = match &gpu {
        Some(g) if g.winding_exact_in_f64() => "f64",
        Some(_) => "float32",
        None => "none",
    };
    let mut rows = Vec::new();
    for (name, mesh) in args.models.selected()? {
        let prep_start = Instant::now();
        let mesh = PreparedMesh::new(&mesh).with_context(|| format!("model {name}"))?;
        // The mesh in its frame, which every backend computes on.
        mesh.local();
        let prepare_ms = prep_start.elapsed().as_secs_f64() * 1e3;
        eprintln!(
            "{name}: {} triangles, prepared in {prepare_ms:.0} ms (BVH depth {})",
            mesh.triangle_count(),
            mesh.bvh.depth()
        );
        for (&res, &sign) in args
            .res
            .iter()
            .flat_map(|r| args.signs.iter().map(move |s| (r, s)))
        {
            let params = SdfParams {
                resolution: res,
                padding: 0.1,
                band: None,
                sign_mode: sign.into(),
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
                // The reference times distances (pseudo-normal signs) only.
                if backend == Backend::CpuReference && params.sign_mode != SignMode::PseudoNormal {
                    continue;
                }
                let mut row = match backend {
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
                            args.common.repeats,
                            cpu_field.as_ref(),
                        )?;
                        if backend == Backend::CpuFast {
                            cpu_field = Some(field);
                        }
                        row
                    }
                };
                row.prepare_ms = prepare_ms;
                if let Some(gb_s) = copy_gb_s.filter(|_| backend.is_gpu()) {
                    row.set_copy(gb_s);
                }
                eprintln!(
                    "  {res}³ {:<9} {:<13} {:>10.2} ms{}",
                    row.backend,
                    row.sign,
                    row.best_ms(),
                    if row.estimated { " (est.)" } else { "" }
                );
                rows.push(row);
            }
        }
    }
    let adapter = adapter.as_deref();
    report.write(
        adapter,
        &[
            ("date", report::today().into()),
            ("winding_exact_step", exact_step.into()),
            ("copy_gb_per_s", copy_gb_s.into()),
        ],
        &rows,
    )?;
    plot(&report, &rows, adapter)?;
    print_table(
        &format!(
            "SDF grid benchmark — {}",
            adapter.unwrap_or("CPU backends only")
        ),
        &rows,
    );
    println!("* estimated from a strided sample of cells");
    let wall_rows = wall_rows(&rows);
    if !wall_rows.is_empty() {
        print_table(
            "Wall time by phase (ms; target: wall ≤ gpu + 2 × copy + 5)",
            &wall_rows,
        );
        println!("{}", sdf_wall::WALL_NOTE);
        report.write_markdown(&format!(
            "{}\n\n{}",
            sdf_wall::WALL_NOTE,
            report::markdown_table(&wall_rows)
        ))?;
    }
    let runs: Vec<_> = rows
        .iter()
        .filter(|r| !r.gpu_phases.is_empty())
        .map(Row::pass_run)
        .collect();
    if let (Some(adapter), false) = (adapter, runs.is_empty()) {
        let passes = sdf_passes::passes(&runs, adapter);
        let limits = sdf_passes::limits_line(adapter);
        passes_report.write(
            Some(adapter),
            &[("device_limits", limits.clone().into())],
            &passes,
        )?;
        print_table(&format!("GPU passes — {limits}"), &passes);
    }
    Ok(())
}

/// The GPU rows' wall-time splits, cold and warm, for the second table.
fn wall_rows(rows: &[Row]) -> Vec<WallRow> {
    rows.iter()
        .flat_map(|r| {
            let row = |call, wall_ms, split: Option<WallSplit>| {
                Some(WallRow {
                    model: r.model.clone(),
                    resolution: r.resolution,
                    backend: r.backend,
                    sign: r.sign,
                    call,
                    gpu_ms: r.gpu_ms,
                    wall_ms,
                    split: split?,
                    copy_ms: r.copy_ms?,
                    prepare_ms: r.prepare_ms,
                })
            };
            [
                row("cold", r.wall_ms, r.wall_split),
                r.warm_wall_ms.and_then(|ms| row("warm", ms, r.warm_split)),
            ]
        })
        .flatten()
        .collect()
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
    // An end-to-end call (see `sdf_wall`), cold (nothing of the mesh or
    // the run on the GPU: released before the clock starts) or warm (both
    // resident, as the previous call left them); returns the field and
    // this call's wall time.
    let call = |cold: bool| -> anyhow::Result<(SdfField, f64)> {
        if let Some(g) = gpu.filter(|_| cold && backend.is_gpu()) {
            g.release_mesh();
        }
        let start = Instant::now();
        let progress = Progress::default();
        let field = sdf::compute_with(mesh, params, backend, gpu, &progress, FieldOutputs::VALUES)?;
        Ok((field, start.elapsed().as_secs_f64() * 1e3))
    };
    let mut cold_ms = Vec::new();
    let mut whole = || {
        let (field, ms) = call(true)?;
        cold_ms.push(ms);
        Ok((field, ms))
    };
    let mut open_cells = None;
    let mut fallback_ms = None;
    let t = match gpu.filter(|_| backend.is_gpu()) {
        // GPU time from runs that read nothing back (see `timing`) but the
        // cells whose winding sign the CPU decides, whose time is added.
        Some(g) => {
            let accelerated = backend == Backend::Gpu;
            let gpu_run = || {
                let (timings, open) = g.time(mesh, params, accelerated, FieldOutputs::VALUES)?;
                open_cells = open;
                let fallback: f64 = timings
                    .phases
                    .iter()
                    .filter(|p| p.name == FALLBACK_PHASE)
                    .map(|p| p.wall_ms)
                    .sum();
                fallback_ms = open.map(|_| fallback);
                Ok(timings.total_gpu_ms().map(|ms| ms + fallback))
            };
            timed_gpu(repeats, gpu_run, whole)?
        }
        None => timed(repeats, false, || {
            let (f, ms) = whole()?;
            let g = f.timings.total_gpu_ms();
            Ok(((f, ms), g))
        })?,
    };
    let (field, last_wall_ms) = t.last;
    // The wall time of the GPU's cold calls themselves (the release before
    // each left out); then warm calls, each after the one before.
    let (wall_med, warm) = match gpu.filter(|_| backend.is_gpu()) {
        Some(_) => {
            let mut warm_ms = Vec::new();
            let mut last = None;
            for _ in 0..WALL_RUNS {
                let (f, ms) = call(false)?;
                warm_ms.push(ms);
                last = Some(WallSplit::of(&f.timings, ms));
            }
            (median(&mut cold_ms), Some((median(&mut warm_ms), last)))
        }
        None => (t.wall_ms, None),
    };
    let (max_diff, mismatches) = match cpu {
        Some(c) if backend != Backend::CpuFast => {
            let (max, signs) = sdf_compare::against_cpu(mesh, &field, c);
            (Some(max), Some(signs))
        }
        _ => (None, None),
    };
    let cells = field.grid.num_cells();
    let gpu_med = t.gpu_ms;
    let row = Row {
        model: name.to_string(),
        triangles: mesh.triangle_count(),
        resolution: params.resolution,
        cells,
        backend: backend.name(),
        sign: params.sign_mode.name(),
        exact_cells: open_cells.map(|o| o.cpu),
        counted_cells: open_cells.map(|o| o.counted),
        cap_walked_cells: open_cells.map(|o| o.walked),
        refined_cells: open_cells.map(|o| o.refined),
        refined_by_step: open_cells.map(|o| o.by_step),
        fallback_ms,
        gpu_ms: gpu_med,
        wall_ms: wall_med,
        estimated: false,
        million_cells_per_s: cells as f64 / (gpu_med.unwrap_or(wall_med) * 1e3),
        evaluations_per_cell: field.distance_evaluations as f64 / cells as f64,
        distance_evaluations: field.distance_evaluations,
        max_abs_diff_vs_cpu: max_diff,
        sign_mismatches_vs_cpu: mismatches,
        gpu_phases: field
            .timings
            .phases
            .iter()
            .filter_map(|p| Some((p.name.clone(), p.gpu_ms?)))
            .collect(),
        prepare_ms: 0.0,
        wall_split: backend
            .is_gpu()
            .then(|| WallSplit::of(&field.timings, last_wall_ms)),
        copy_ms: None,
        wall_target_ms: None,
        warm_wall_ms: warm.map(|(ms, _)| ms),
        warm_split: warm.and_then(|(_, split)| split),
    };
    Ok((row, field))
}

/// Point–triangle pairs of a whole grid (the brute-force work).
fn field_work(mesh: &PreparedMesh, params: &SdfParams) -> u64 {
    let grid = GridSpec::around(mesh.bounds(), params.resolution, params.padding);
    grid.num_cells() as u64 * mesh.triangle_count() as u64
}

/// Brute-force work above which a GPU run is timed once.
const LONG_RUN_WORK: u64 = 20_000_000_000;

/// Times the single-threaded reference, on a strided sample of cells when
/// the whole grid would exceed `budget` point–triangle tests.
fn bench_reference(name: &str, mesh: &PreparedMesh, params: &SdfParams, budget: u64) -> Row {
    let grid = GridSpec::around(mesh.bounds(), params.resolution, params.padding);
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
        sign: params.sign_mode.name(),
        exact_cells: None,
        counted_cells: None,
        cap_walked_cells: None,
        refined_cells: None,
        refined_by_step: None,
        fallback_ms: None,
        gpu_ms: None,
        wall_ms: wall,
        estimated: stride > 1,
        million_cells_per_s: cells as f64 / (wall * 1e3),
        evaluations_per_cell: mesh.triangle_count() as f64,
        distance_evaluations: (cells * mesh.triangle_count()) as u64,
        max_abs_diff_vs_cpu: None,
        sign_mismatches_vs_cpu: None,
        gpu_phases: Vec::new(),
        prepare_ms: 0.0,
        wall_split: None,
        copy_ms: None,
        wall_target_ms: None,
        warm_wall_ms: None,
        warm_split: None,
    }
}

/// Time against triangles per backend and resolution, and the GPU
/// backends' speed-up over the CPU reference.
fn plot(report: &Report, rows: &[Row], adapter: Option<&str>) -> anyhow::Result<()> {
    let mut times = Vec::new();
    let mut speedups = Vec::new();
    let mut resolutions: Vec<u32> = rows.iter().map(|r| r.resolution).collect();
    resolutions.dedup();
    for &res in &resolutions {
        for (sign, backend) in SignMode::ALL
            .into_iter()
            .flat_map(|s| Backend::ALL.map(|b| (s, b)))
        {
            let of_backend = |r: &Row| {
                r.resolution == res && r.backend == backend.name() && r.sign == sign.name()
            };
            let label = format!("{} {} {res}³", backend.name(), sign.name());
            let time = series(label.clone(), rows, |r| {
                of_backend(r).then(|| (r.triangles as f64, r.best_ms()))
            });
            if time.points.is_empty() {
                continue;
            }
            times.push(time);
            if backend.is_gpu() {
                let speedup = series(format!("{label} vs cpu-ref"), rows, |r| {
                    if !of_backend(r) {
                        return None;
                    }
                    let reference = rows.iter().find(|q| {
                        q.model == r.model
                            && q.resolution == res
                            && q.backend == Backend::CpuReference.name()
                    })?;
                    Some((r.triangles as f64, reference.best_ms() / r.best_ms()))
                });
                if !speedup.points.is_empty() {
                    speedups.push(speedup);
                }
            }
        }
    }
    let title = format!(
        "SDF grid time vs triangles — {}",
        adapter.unwrap_or("CPU only")
    );
    report.plot(
        1600,
        650,
        &[
            report::log_log(&title, "triangles", "ms", &times),
            report::log_log(
                "GPU speed-up over the single-thread CPU reference",
                "triangles",
                "× faster",
                &speedups,
            ),
        ],
    )
}
