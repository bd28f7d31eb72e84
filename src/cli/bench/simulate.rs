//! `collidoscope bench simulate`: the full collision pipeline
//! ([`crate::sim::simulate`]) on a settling pile of N copies of one mesh of
//! about `--triangles` triangles (a torus; fields at `--res`³) dropped on a
//! ground plane in a lattice of layers, seeded random orientations.
//!
//! Per body count, backend (`gpu`: the resident step; `gpu-detect`: GPU
//! broad and narrow phase, contacts read back for the CPU solver; `cpu`
//! with `--cpu`) and broad phase (`--broad`: `sweep`, sort-and-sweep over
//! boxes; `image`/`image-stencil`, the interference test in image space
//! with the compute or stencil backend, CPU reference on `cpu`; the
//! resident step sweeps only, so it runs with `sweep`), after `--warm` frames (the pile starts falling and
//! touching), `--repeats` frames are timed one by one. The row gives the
//! median wall time of a frame end to end (every phase and the summary
//! read-back) and, averaged over the frames, where it goes.
//!
//! Read-back backends: upload (boxes and narrow-phase tasks), kernels
//! (broad and narrow, wall time from submit to done; their GPU time beside
//! it where the adapter has timestamps), read-back (mapping the pairs and
//! contacts and converting them on the host) and the response (the CPU
//! solver).
//!
//! The resident step: nothing is uploaded or read back in a frame but its
//! 32-byte summary, so the wall time is recording the encoder (`record`),
//! then submit to done (`kernels`); `--repeats` more frames run with
//! timestamp queries for the GPU time of each phase (broad with the
//! boxes, narrow, solve, integrate, summary kernel and copy), and as many
//! again back to back without waiting (`pipelined`: the frame rate of the
//! viewer, which never waits for a frame). Targets (set for an H100):
//! 100 bodies ≤ 2 ms, 1000 bodies ≤ 8 ms per frame.

use glam::{EulerRot, Quat, Vec3};
use serde::Serialize;

use super::common::CommonArgs;
use super::report::{self, Column, Report, or_dash, or_empty, print_table, series};
use super::timing::median;
use crate::cli::simulate::BroadArg;
use crate::gpu::GpuContext;
use crate::mesh::{PrimitiveKind, primitive_with_triangles};
use crate::sim::simulate::resident::PHASES;
use crate::sim::simulate::{
    BodySpec, BroadPhase, FieldParams, Ground, Pipeline, PipelineBackend, PipelineParams,
};
use crate::stages::sdf::SdfParams;
use crate::timing::Timings;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Body counts (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "100,1000")]
    pub bodies: Vec<usize>,
    /// Triangles of the mesh every body is a copy of.
    #[arg(long, default_value_t = 5000)]
    pub triangles: usize,
    /// Field cells along the mesh's longest axis.
    #[arg(long, default_value_t = 64)]
    pub res: u32,
    /// Frames simulated before the timed ones.
    #[arg(long, default_value_t = 30)]
    pub warm: usize,
    /// Also run the CPU backend (slow for many bodies).
    #[arg(long)]
    pub cpu: bool,
    /// Broad phases (comma-separated: sweep, image, image-stencil).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "sweep,image")]
    pub broad: Vec<BroadArg>,
    /// Pixels along each side of the image-space views.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(16..=4096))]
    pub image_res: u32,
}

#[derive(Serialize, Clone, Debug)]
struct Row {
    bodies: usize,
    triangles: usize,
    samples_per_body: usize,
    backend: &'static str,
    broad: &'static str,
    frames: usize,
    /// Median per frame, end to end.
    wall_ms: f64,
    upload_ms: f64,
    kernels_ms: f64,
    gpu_ms: Option<f64>,
    readback_ms: f64,
    response_ms: f64,
    pairs: usize,
    contacts: usize,
    target_ms: Option<f64>,
    /// Resident step: CPU time recording a frame.
    record_ms: Option<f64>,
    /// Resident step: frames submitted back to back, per frame.
    pipelined_ms: Option<f64>,
    /// Resident step: GPU time per phase (`resident::PHASES`).
    phase_gpu_ms: [Option<f64>; 5],
}

/// The targets (set for an H100): 100 bodies in 2 ms, 1000 in 8 ms.
fn target(bodies: usize) -> Option<f64> {
    match bodies {
        100 => Some(2.0),
        1000 => Some(8.0),
        _ => None,
    }
}

/// `n` bodies in layers of a square lattice `spacing` apart, from just above
/// the ground up.
fn pile(n: usize, spacing: f32) -> Vec<BodySpec> {
    let side = (n as f32).sqrt().ceil().max(1.0) as usize;
    let mut seed = 0x9e37_79b9u32;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    (0..n)
        .map(|i| {
            let (x, z, y) = (i % side, (i / side) % side, i / (side * side));
            let centre = side as f32 * spacing / 2.0;
            BodySpec {
                mesh: 0,
                position: Vec3::new(
                    x as f32 * spacing - centre,
                    spacing * (0.6 + y as f32),
                    z as f32 * spacing - centre,
                ),
                orientation: Quat::from_euler(EulerRot::XYZ, 6.0 * next(), 6.0 * next(), 0.0),
                velocity: Vec3::ZERO,
                angular_velocity: Vec3::ZERO,
                density: 1000.0,
                is_static: false,
            }
        })
        .collect()
}

/// A row with the times and counts of `frames` frames; the caller fills
/// in what it ran.
fn row_of(frames: usize, p: &Pipeline) -> Row {
    Row {
        bodies: 0,
        triangles: 0,
        samples_per_body: 0,
        backend: "",
        broad: "",
        frames,
        wall_ms: 0.0,
        upload_ms: 0.0,
        kernels_ms: 0.0,
        gpu_ms: None,
        readback_ms: 0.0,
        response_ms: 0.0,
        pairs: p.summary.pair_count,
        contacts: p.summary.contacts,
        target_ms: None,
        record_ms: None,
        pipelined_ms: None,
        phase_gpu_ms: [None; 5],
    }
}

fn ms_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// The read-back backends: each frame timed, its phases summed.
fn time_read_back(p: &mut Pipeline, params: &PipelineParams, frames: usize) -> anyhow::Result<Row> {
    let mut wall = Vec::with_capacity(frames);
    let mut sums = [0.0; 4];
    let mut gpu_sum = Some(0.0);
    for _ in 0..frames {
        let start = Instant::now();
        let summary = p.step(params)?;
        wall.push(ms_since(start));
        for (s, v) in sums.iter_mut().zip(split(&summary.timings)) {
            *s += v;
        }
        gpu_sum = gpu_sum
            .zip(summary.timings.total_gpu_ms())
            .map(|(a, b)| a + b);
    }
    let n = frames as f64;
    Ok(Row {
        wall_ms: median(&mut wall),
        upload_ms: sums[0] / n,
        kernels_ms: sums[1] / n,
        gpu_ms: gpu_sum.map(|g| g / n),
        readback_ms: sums[2] / n,
        response_ms: sums[3] / n,
        ..row_of(frames, p)
    })
}

/// The resident step: frames waited for one by one (wall), timed frames
/// (record, submit to done, GPU per phase), and frames back to back.
fn time_resident(p: &mut Pipeline, params: &PipelineParams, frames: usize) -> anyhow::Result<Row> {
    let mut wall = Vec::with_capacity(frames);
    for _ in 0..frames {
        let start = Instant::now();
        p.step(params)?;
        p.wait_summary()?;
        wall.push(ms_since(start));
    }
    let (mut record, mut kernels) = (0.0, 0.0);
    let mut phases: [Option<f64>; 5] = [Some(0.0); 5];
    for _ in 0..frames {
        let t = &p.step_timed(params)?.timings;
        let wall_of = |name| {
            t.phases
                .iter()
                .find(|q| q.name == name)
                .map_or(0.0, |q| q.wall_ms)
        };
        record += wall_of("record");
        kernels += wall_of("wait");
        for (sum, name) in phases.iter_mut().zip(PHASES) {
            let gpu = t
                .phases
                .iter()
                .find(|q| q.name == name)
                .and_then(|q| q.gpu_ms);
            *sum = sum.zip(gpu).map(|(a, b)| a + b);
        }
    }
    let start = Instant::now();
    for _ in 0..frames {
        p.step(params)?;
    }
    p.wait_summary()?;
    let n = frames as f64;
    let pipelined = ms_since(start) / n;
    let phase_gpu_ms = phases.map(|s| s.map(|v| v / n));
    let gpu_ms = phase_gpu_ms.iter().copied().sum::<Option<f64>>();
    Ok(Row {
        wall_ms: median(&mut wall),
        kernels_ms: kernels / n,
        gpu_ms,
        record_ms: Some(record / n),
        pipelined_ms: Some(pipelined),
        phase_gpu_ms,
        ..row_of(frames, p)
    })
}

/// Sums the frame's phases into upload, kernels (wall, GPU), read-back and
/// response.
fn split(t: &Timings) -> [f64; 4] {
    let mut out = [0.0; 4];
    for p in &t.phases {
        let k = if p.name.contains("upload") {
            0
        } else if p.name.contains("read") {
            2
        } else if p.name == "response" {
            3
        } else {
            1
        };
        out[k] += p.wall_ms;
    }
    out
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let report = Report::create(&args.common.out, "simulate")?;
    let ctx = GpuContext::headless()?;
    let adapter = ctx.describe();
    eprintln!("adapter: {adapter}");
    let mesh = primitive_with_triangles(PrimitiveKind::Torus, args.triangles);
    let fields = FieldParams {
        sdf: SdfParams {
            resolution: args.res,
            ..SdfParams::default()
        },
        ..FieldParams::default()
    };
    fields.sdf.validate()?;
    let spacing = 1.1 * mesh.bounds().size().max_element();
    let mut backends = vec![PipelineBackend::Gpu, PipelineBackend::GpuDetect];
    if args.cpu {
        backends.push(PipelineBackend::Cpu);
    }
    let mut rows = Vec::new();
    for &n in &args.bodies {
        let specs = pile(n, spacing);
        let ground = Some(Ground {
            point: Vec3::ZERO,
            normal: Vec3::Y,
        });
        let runs = backends.iter().flat_map(|&backend| {
            args.broad
                .iter()
                .map(move |b| (backend, b.phase()))
                .filter(|&(backend, broad)| {
                    backend != PipelineBackend::Gpu || broad == BroadPhase::SortAndSweep
                })
        });
        for (backend, broad) in runs {
            let gpu = backend.detects_on_gpu().then_some(&ctx);
            let mut p = Pipeline::new(std::slice::from_ref(&mesh), &specs, ground, &fields, gpu)?;
            let params = PipelineParams {
                backend,
                broad,
                image_resolution: args.image_res,
                ..PipelineParams::default()
            };
            for _ in 0..args.warm {
                p.step(&params)?;
            }
            p.finish()?;
            let frames = args.common.repeats.max(1);
            let mut row = if backend == PipelineBackend::Gpu {
                time_resident(&mut p, &params, frames)?
            } else {
                time_read_back(&mut p, &params, frames)?
            };
            row.bodies = n;
            row.triangles = mesh.triangles.len();
            row.samples_per_body = p.shapes[0].samples.samples.len();
            row.backend = backend.name();
            row.broad = broad.name();
            row.target_ms = target(n);
            eprintln!(
                "  {n:>5} bodies {:<10} {:<13} {:>9.3} ms/frame",
                row.backend, row.broad, row.wall_ms
            );
            rows.push(row);
        }
    }
    report.write(
        Some(&adapter),
        &[
            ("res", args.res.into()),
            ("warm_frames", args.warm.into()),
            ("image_res", args.image_res.into()),
        ],
        &rows,
    )?;
    plot(&report, &rows, &adapter)?;
    print_table(&format!("Pipeline benchmark — {adapter}"), &rows);
    Ok(())
}

impl report::Row for Row {
    fn csv_header() -> Vec<&'static str> {
        vec![
            "bodies",
            "triangles",
            "samples_per_body",
            "backend",
            "broad",
            "frames",
            "wall_ms",
            "upload_ms",
            "kernels_ms",
            "gpu_ms",
            "readback_ms",
            "response_ms",
            "pairs",
            "contacts",
            "target_ms",
            "record_ms",
            "pipelined_ms",
            "broad_gpu_ms",
            "narrow_gpu_ms",
            "solve_gpu_ms",
            "integrate_gpu_ms",
            "summary_gpu_ms",
        ]
    }

    fn csv_cells(&self) -> Vec<String> {
        vec![
            self.bodies.to_string(),
            self.triangles.to_string(),
            self.samples_per_body.to_string(),
            self.backend.to_string(),
            self.broad.to_string(),
            self.frames.to_string(),
            format!("{:.4}", self.wall_ms),
            format!("{:.4}", self.upload_ms),
            format!("{:.4}", self.kernels_ms),
            or_empty(self.gpu_ms, |v| format!("{v:.4}")),
            format!("{:.4}", self.readback_ms),
            format!("{:.4}", self.response_ms),
            self.pairs.to_string(),
            self.contacts.to_string(),
            or_empty(self.target_ms, |v| format!("{v}")),
        ]
        .into_iter()
        .chain(
            [self.record_ms, self.pipelined_ms]
                .into_iter()
                .chain(self.phase_gpu_ms)
                .map(|v| or_empty(v, |v| format!("{v:.4}"))),
        )
        .collect()
    }

    fn table_columns() -> Vec<Column> {
        vec![
            Column::right("bodies", 7),
            Column::right("tris", 6),
            Column::right("samples", 8),
            Column::left("backend", 10),
            Column::left("broad", 13),
            Column::right("wall ms", 9),
            Column::right("upload", 8),
            Column::right("kernels", 8),
            Column::right("gpu ms", 8),
            Column::right("read-back", 10),
            Column::right("response", 9),
            Column::right("pairs", 7),
            Column::right("contacts", 9),
            Column::right("target", 7),
            Column::right("record", 7),
            Column::right("pipelined", 10),
            Column::right("broad", 7),
            Column::right("narrow", 7),
            Column::right("solve", 7),
            Column::right("integr.", 7),
            Column::right("summary", 8),
        ]
    }

    fn table_cells(&self) -> Vec<String> {
        vec![
            self.bodies.to_string(),
            self.triangles.to_string(),
            self.samples_per_body.to_string(),
            self.backend.to_string(),
            self.broad.to_string(),
            format!("{:.3}", self.wall_ms),
            format!("{:.3}", self.upload_ms),
            format!("{:.3}", self.kernels_ms),
            or_dash(self.gpu_ms, |v| format!("{v:.3}")),
            format!("{:.3}", self.readback_ms),
            format!("{:.3}", self.response_ms),
            self.pairs.to_string(),
            self.contacts.to_string(),
            or_dash(self.target_ms, |v| format!("{v}")),
        ]
        .into_iter()
        .chain(
            [self.record_ms, self.pipelined_ms]
                .into_iter()
                .chain(self.phase_gpu_ms)
                .map(|v| or_dash(v, |v| format!("{v:.3}"))),
        )
        .collect()
    }
}

/// Wall time per frame, and the GPU's kernel time, against the body count.
fn plot(report: &Report, rows: &[Row], adapter: &str) -> anyhow::Result<()> {
    let mut all = Vec::new();
    let runs = ["gpu", "gpu-detect", "cpu"]
        .into_iter()
        .flat_map(|b| BroadPhase::ALL.map(|p| (b, p.name())));
    for (backend, broad) in runs {
        let this = |r: &Row| r.backend == backend && r.broad == broad;
        let wall = series(format!("{backend}, {broad} (wall)"), rows, |r| {
            this(r).then_some((r.bodies as f64, r.wall_ms))
        });
        if !wall.points.is_empty() {
            all.push(wall);
        }
        let kernel = series(format!("{backend}, {broad} (kernels, GPU)"), rows, |r| {
            Some((r.bodies as f64, r.gpu_ms.filter(|_| this(r))?))
        });
        if !kernel.points.is_empty() {
            all.push(kernel);
        }
    }
    let title = format!("Pipeline: time per frame vs bodies — {adapter}");
    report.plot(
        1000,
        650,
        &[report::log_log(&title, "bodies", "ms per frame", &all)],
    )
}
