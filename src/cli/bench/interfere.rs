//! `collidoscope bench interfere`: image-space interference detection
//! (Knott 2003, §4.7) — time against the number of objects (figure 4.15)
//! and against the number of polygons (figure 4.16), read pixels against
//! occlusion queries at 256×256 and 640×480 (table 4.1), early
//! non-interference (full identification by queries, stopping after pass
//! 4 when nothing interferes) with and without interference (table 4.2),
//! and the target: ~1M triangles over hundreds of objects at 1024²
//! with full identification by occlusion queries, with and without the
//! bounding-box culling (every other row culls unless `--no-cull`), and
//! with the penetrated objects identified by weighted sums in the counting
//! pass instead of the paper's pair passes (every other row identifies as
//! the paper does, Alg. 4). Each row reports the objects, triangles and
//! edges the passes drew against what they draw without culling, and how
//! the pairs were identified.
//!
//! Scenes come from [`crate::stages::interfere::scenes`]: boxes
//! subdivided to the wanted polygon count at seeded random poses (dense:
//! many touching, "interfering") or on a grid with unit gaps ("apart").
//! One view axis (z). Per row: GPU time (timestamp queries, all passes)
//! where the adapter has them and wall-clock time end to end (recording,
//! passes, read-back), the median of `--repeats` runs after a 0.5 s warm-up
//! (see `timing`).
//! The geometry is uploaded once per scene, outside the timed runs; the
//! render targets are reused between runs of one viewport size.
//!
//! Every row is timed with each backend of `--backends` in the same run,
//! on the same scenes: `stencil` (the rendering passes) and `compute` (the
//! same rays and counts on the compute units,
//! [`crate::stages::interfere::compute`]). For `compute` the modes mean
//! the same options: "occlusion queries" reads back only the per-object
//! and per-pair pixel tallies (its pass 4), "pairs" identifies by Alg. 4
//! per pixel, "weighted sums" by the sums, "read pixels" also reads the
//! images. The figures plot both backends.

use serde::Serialize;

use super::common::CommonArgs;
use super::report::{self, Column, Report, or_dash, or_empty, print_table, series};
use super::timing::timed;
use crate::gpu::GpuContext;
use crate::stages::interfere::{
    Backend, DrawCounts, Drawn, Identification, IdentificationReport, InterferenceGpu,
    InterferenceParams, InterferenceRun, InterferenceScene, InterferenceSummary, OrthoView,
    RunOptions, StencilPasses, ViewAxis, scenes,
};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Draw every object, face and edge (no bounding-box culling; the
    /// `target` study times both either way).
    #[arg(long)]
    pub no_cull: bool,
    /// Which studies (objects, polygons, readback, early, target); `target`
    /// is the scale: `--target-objects` boxes of
    /// 12·`--target-box-k`² triangles (default 300 × 3,468 ≈ 1M) at 1024².
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "objects,polygons,readback,early"
    )]
    pub studies: Vec<Study>,
    /// Object counts of the time-vs-objects study (figure 4.15).
    #[arg(long, value_delimiter = ',', default_value = "4,16,64,256")]
    pub objects: Vec<usize>,
    /// Objects of the target study.
    #[arg(long, default_value_t = 300)]
    pub target_objects: usize,
    /// Box subdivision of the target study (12·k² triangles each).
    #[arg(long, default_value_t = 17)]
    pub target_box_k: u32,
    /// GPU backends timed on every row, comma-separated: stencil (`gpu`
    /// is an alias), compute.
    #[arg(long, value_delimiter = ',', default_value = "stencil,compute")]
    pub backends: Vec<String>,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// The studies of the benchmark (`--studies`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Study {
    /// Figure 4.15: time against objects (boxes of 300 triangles, 1024²).
    Objects,
    /// Figure 4.16: time against polygons (16 boxes, 1024²).
    Polygons,
    /// Table 4.1: read pixels against occlusion queries, 640×480 and 256².
    Readback,
    /// Table 4.2: full identification by queries with early
    /// non-interference, with and without interference.
    Early,
    /// The target: `--target-objects` boxes of 12·k² triangles at
    /// 1024², full identification by queries with and without culling
    /// (and read pixels beside it).
    Target,
}

impl Study {
    fn name(self) -> &'static str {
        match self {
            Study::Objects => "objects",
            Study::Polygons => "polygons",
            Study::Readback => "read-back",
            Study::Early => "early",
            Study::Target => "target",
        }
    }
}

#[derive(Serialize, Clone, Debug)]
struct Row {
    backend: &'static str,
    study: &'static str,
    scene: &'static str,
    objects: usize,
    triangles: usize,
    width: u32,
    height: u32,
    mode: &'static str,
    gpu_ms: Option<f64>,
    wall_ms: f64,
    /// Interfering pairs where the pair queries ran, otherwise the number
    /// of objects whose edges are inside something (pass 4 queries).
    interfering: usize,
    /// Every pass-4 query was zero: the pair passes were skipped.
    early_exit: bool,
    /// Bounding-box culling on.
    culling: bool,
    /// What the passes drew (of the last run), against no culling.
    drawn: DrawCounts,
    /// How the pairs were identified (of the last run).
    identification: IdentificationReport,
}

impl Row {
    fn best_ms(&self) -> f64 {
        report::best_ms(self.gpu_ms, self.wall_ms)
    }
}

/// `objects` unit boxes of `12·k²` triangles each, laid out by `layout`.
fn boxes(
    objects: usize,
    k: u32,
    layout: scenes::Layout,
    seed: u64,
) -> anyhow::Result<InterferenceScene> {
    let meshes = scenes::Shapes::Boxes.meshes(k);
    let placements = scenes::placements(objects, meshes.len(), seed, layout);
    Ok(scenes::build(&meshes, &placements)?)
}

/// One scene, one viewport, one mode.
#[derive(Clone, Copy)]
struct Case<'a> {
    study: Study,
    name: &'static str,
    scene: &'a InterferenceScene,
    size: (u32, u32),
    mode: &'static str,
    options: RunOptions,
}

fn time_run(
    gpu: &GpuContext,
    stage: &InterferenceGpu,
    backend: Backend,
    case: Case<'_>,
    repeats: usize,
) -> anyhow::Result<Row> {
    let (width, height) = case.size;
    let scene = case.scene;
    let params = InterferenceParams {
        width,
        height,
        ..Default::default()
    };
    let offset = scene.edge_offset(&params);
    let view = OrthoView::fit(scene, ViewAxis::Z, width, height, offset);
    let with_gpu_ms = |run: InterferenceRun| {
        let all_timed = !run.phases.is_empty() && run.phases.iter().all(|p| p.gpu_ms.is_some());
        let g = all_timed.then(|| run.phases.iter().filter_map(|p| p.gpu_ms).sum());
        (run, g)
    };
    let t = match backend {
        Backend::Compute => {
            let compute = stage.compute();
            let uploaded = compute.upload(gpu, scene)?;
            timed(repeats, true, || {
                let run = compute.run(gpu, &uploaded, &view, offset, case.options)?;
                Ok(with_gpu_ms(run))
            })?
        }
        _ => {
            let uploaded = stage.upload(gpu, scene);
            timed(repeats, true, || {
                let run = stage.run(gpu, &uploaded, &view, offset, case.options)?;
                Ok(with_gpu_ms(run))
            })?
        }
    };
    let run = t.last;
    let early_exit = run.queries.early_exit;
    let drawn = run.drawn;
    let identification = run.identification.clone();
    let interfering = if case.options.pairs {
        InterferenceSummary::from_runs(scene.objects.len(), &[run])
            .pairs
            .len()
    } else {
        run.queries.object_pixels.iter().filter(|&&p| p > 0).count()
    };
    let row = Row {
        backend: backend.name(),
        study: case.study.name(),
        scene: case.name,
        objects: scene.objects.len(),
        triangles: scene.triangle_count(),
        width,
        height,
        mode: case.mode,
        gpu_ms: t.gpu_ms,
        wall_ms: t.wall_ms,
        interfering,
        early_exit,
        culling: case.options.cull,
        drawn,
        identification,
    };
    eprintln!("{row:?}");
    Ok(row)
}

const READ_PIXELS: RunOptions = RunOptions {
    passes: StencilPasses::TwoSided,
    read_pixels: true,
    pairs: false,
    cull: true,
    identification: Identification::PairPasses,
};
const QUERIES: RunOptions = RunOptions {
    passes: StencilPasses::TwoSided,
    read_pixels: false,
    pairs: false,
    cull: true,
    identification: Identification::PairPasses,
};
const QUERIES_PAIRS: RunOptions = RunOptions {
    passes: StencilPasses::TwoSided,
    read_pixels: false,
    pairs: true,
    cull: true,
    identification: Identification::PairPasses,
};
const READ_PIXELS_PAIRS: RunOptions = RunOptions {
    passes: StencilPasses::TwoSided,
    read_pixels: true,
    pairs: true,
    cull: true,
    identification: Identification::PairPasses,
};
const QUERIES_WEIGHTED: RunOptions = RunOptions {
    identification: Identification::WeightedSums,
    ..QUERIES_PAIRS
};
const FULL_QUERIES: &str = "occlusion queries + pairs";
const WEIGHTED_QUERIES: &str = "occlusion queries + weighted sums";

pub fn run(args: &Args) -> anyhow::Result<()> {
    let report = Report::create(&args.common.out, "interfere")?;
    if args.objects.contains(&0) || args.target_objects == 0 || args.target_box_k == 0 {
        anyhow::bail!("--objects, --target-objects and --target-box-k must be at least 1");
    }
    let backends = parse_backends(&args.backends)?;
    let gpu = GpuContext::headless()?;
    let adapter = gpu.describe();
    let stage = InterferenceGpu::new(&gpu)?;
    let repeats = args.common.repeats;
    let mut rows = Vec::new();
    let study = |s: Study| args.studies.contains(&s);
    let cull = !args.no_cull;
    let culling = |options: RunOptions| RunOptions { cull, ..options };
    // Each case once per backend, one after the other.
    let mut time = |case: Case<'_>| -> anyhow::Result<()> {
        for &backend in &backends {
            rows.push(time_run(&gpu, &stage, backend, case, repeats)?);
        }
        Ok(())
    };
    // Figures 4.15–4.16: (objects, box subdivision, seed) per row.
    let scaling = [
        (
            Study::Objects,
            args.objects.iter().map(|&n| (n, 5, 7 + n as u64)).collect(),
        ),
        (
            Study::Polygons,
            [2u32, 8, 32, 64].map(|k| (16, k, 99)).to_vec(),
        ),
    ];
    for (figure, sizes) in scaling.into_iter().filter(|(s, _)| study(*s)) {
        for (n, k, seed) in sizes {
            let scene = boxes(n, k, scenes::Layout::DENSE, seed)?;
            time(Case {
                study: figure,
                name: "boxes",
                scene: &scene,
                size: (1024, 1024),
                mode: FULL_QUERIES,
                options: culling(QUERIES_PAIRS),
            })?;
        }
    }
    let tables = [
        (
            Study::Readback,
            [("read pixels", READ_PIXELS), ("occlusion queries", QUERIES)],
        ),
        (
            Study::Early,
            [
                (FULL_QUERIES, QUERIES_PAIRS),
                ("read pixels + pairs", READ_PIXELS_PAIRS),
            ],
        ),
    ];
    for (table, modes) in tables.into_iter().filter(|(t, _)| study(*t)) {
        for size in [(640, 480), (256, 256)] {
            for (name, layout) in [
                ("interfering", scenes::Layout::DENSE),
                ("apart", scenes::Layout::Grid),
            ] {
                let scene = boxes(27, 3, layout, 5)?;
                for (mode, options) in modes {
                    time(Case {
                        study: table,
                        name,
                        scene: &scene,
                        size,
                        mode,
                        options: culling(options),
                    })?;
                }
            }
        }
    }
    if study(Study::Target) {
        // Dense (most boxes touch several others), the same poses spread
        // twice as wide (most touch none or one), and apart.
        for (name, layout) in [
            ("interfering", scenes::Layout::DENSE),
            ("sparse", scenes::Layout::SPARSE),
            ("apart", scenes::Layout::Grid),
        ] {
            let scene = boxes(args.target_objects, args.target_box_k, layout, 11)?;
            // The ablation: full identification the other way round.
            let ablation = RunOptions {
                cull: !cull,
                ..QUERIES_PAIRS
            };
            for (mode, options) in [
                (FULL_QUERIES, culling(QUERIES_PAIRS)),
                (FULL_QUERIES, ablation),
                (WEIGHTED_QUERIES, culling(QUERIES_WEIGHTED)),
                ("read pixels", culling(READ_PIXELS)),
            ] {
                time(Case {
                    study: Study::Target,
                    name,
                    scene: &scene,
                    size: (1024, 1024),
                    mode,
                    options,
                })?;
            }
        }
    }
    print_table(&format!("Interference benchmark — {adapter}"), &rows);
    report.write(Some(&adapter), &[], &rows)?;
    plot(&report, &rows)
}

/// The GPU backends of `--backends`, each once, in the order given.
fn parse_backends(names: &[String]) -> anyhow::Result<Vec<Backend>> {
    let mut backends = Vec::new();
    for name in names {
        let backend = Backend::from_name(name.trim())
            .filter(|b| b.is_gpu())
            .ok_or_else(|| {
                anyhow::anyhow!("--backends: '{name}' is not a GPU backend (stencil, compute)")
            })?;
        if !backends.contains(&backend) {
            backends.push(backend);
        }
    }
    if backends.is_empty() {
        anyhow::bail!("--backends: name at least one of stencil, compute");
    }
    Ok(backends)
}

impl report::Row for Row {
    fn csv_header() -> Vec<&'static str> {
        vec![
            "backend",
            "study",
            "scene",
            "objects",
            "triangles",
            "width",
            "height",
            "mode",
            "gpu_ms",
            "wall_ms",
            "interfering",
            "early_exit",
            "culling",
            "objects_drawn",
            "edges_drawn",
            "edges_total",
            "triangles_drawn",
            "triangles_total",
            "pair_triangles_drawn",
            "pair_triangles_total",
            "pair_edges_drawn",
            "pair_edges_total",
        ]
    }

    fn csv_cells(&self) -> Vec<String> {
        let d = &self.drawn;
        vec![
            self.backend.to_string(),
            self.study.to_string(),
            self.scene.to_string(),
            self.objects.to_string(),
            self.triangles.to_string(),
            self.width.to_string(),
            self.height.to_string(),
            self.mode.to_string(),
            or_empty(self.gpu_ms, |v| format!("{v:.4}")),
            format!("{:.4}", self.wall_ms),
            self.interfering.to_string(),
            self.early_exit.to_string(),
            self.culling.to_string(),
            d.objects.drawn.to_string(),
            d.edges.drawn.to_string(),
            d.edges.total.to_string(),
            d.triangles.drawn.to_string(),
            d.triangles.total.to_string(),
            d.pair_triangles.drawn.to_string(),
            d.pair_triangles.total.to_string(),
            d.pair_edges.drawn.to_string(),
            d.pair_edges.total.to_string(),
        ]
    }

    fn table_columns() -> Vec<Column> {
        vec![
            Column::left("backend", 7),
            Column::left("study", 10),
            Column::left("scene", 12),
            Column::right("objects", 7),
            Column::right("triangles", 9),
            Column::right("viewport", 9),
            Column::left("mode", 33),
            Column::right("cull", 4),
            Column::right("gpu ms", 9),
            Column::right("wall ms", 9),
            Column::right("interf.", 6),
            Column::right("early", 5),
            Column::right("tris 2-3 drawn", 17),
            Column::right("edges 1,4 drawn", 17),
            Column::right("pair tris drawn", 17),
            Column::right("pair edges drawn", 17),
            Column::right("pair objs", 9),
        ]
    }

    fn table_cells(&self) -> Vec<String> {
        let d = &self.drawn;
        vec![
            self.backend.to_string(),
            self.study.to_string(),
            self.scene.to_string(),
            self.objects.to_string(),
            self.triangles.to_string(),
            format!("{}x{}", self.width, self.height),
            self.mode.to_string(),
            (if self.culling { "yes" } else { "no" }).to_string(),
            or_dash(self.gpu_ms, |v| format!("{v:.3}")),
            format!("{:.3}", self.wall_ms),
            self.interfering.to_string(),
            (if self.early_exit { "yes" } else { "" }).to_string(),
            ratio(d.triangles),
            ratio(d.edges),
            ratio(d.pair_triangles),
            ratio(d.pair_edges),
            self.identification.pair_pass_objects.len().to_string(),
        ]
    }

    fn table_note(&self) -> Option<String> {
        let why = self.identification.fallback.as_ref()?;
        Some(format!("{:<10} weighted sums not used: {why}", ""))
    }
}

/// "drawn/total" of a [`Drawn`].
fn ratio(d: Drawn) -> String {
    format!("{}/{}", d.drawn, d.total)
}

/// Figures 4.15 and 4.16: time against objects and against triangles.
fn plot(report: &Report, rows: &[Row]) -> anyhow::Result<()> {
    // The figures' rows share one culling setting; one series per backend.
    let mut backends: Vec<&str> = Vec::new();
    for r in rows {
        if !backends.contains(&r.backend) {
            backends.push(r.backend);
        }
    }
    let figure = |study: &str, x: fn(&Row) -> f64| {
        backends
            .iter()
            .map(|&b| {
                series(format!("{b}: occlusion queries + pairs"), rows, |r| {
                    (r.study == study && r.backend == b).then(|| (x(r), r.best_ms()))
                })
            })
            .collect::<Vec<_>>()
    };
    let by_objects = figure("objects", |r| r.objects as f64);
    let by_polygons = figure("polygons", |r| r.triangles as f64);
    // The adapter's name is in the JSON; in a title it would be clipped.
    report.plot(
        1600,
        650,
        &[
            report::log_log("time vs objects, 1024²", "objects", "ms", &by_objects),
            report::log_log(
                "time vs triangles, 16 objects, 1024²",
                "triangles",
                "ms",
                &by_polygons,
            ),
        ],
    )
}
