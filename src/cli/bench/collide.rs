//! `collidoscope bench collide`: contacts of 1, 10, 100 and 1000 body pairs
//! (`--pairs`) of a few thousand samples each — CPU reference, GPU with all
//! pairs in one dispatch ("batched", reading back every contact), GPU with
//! all pairs in one dispatch reading back per-pair summaries only
//! ("summary": contacts and deepest depth per pair, reduced on the GPU),
//! and GPU with one dispatch (and read-back) per pair, as Sundholm's
//! per-pair colliders would use it (§6.3.1, §8.2).
//!
//! The batched row detects into one contact set kept across its runs
//! (`ColliderGpu::detect_into`), as the pipeline and the viewer do frame
//! after frame.
//! A large batch is cut into chunks of points (`--chunks`, at most;
//! `--chunk-points`, fewest per chunk), each submitted on its own and read
//! back and decoded while the GPU runs the next; such a batch also gets a
//! "gpu 1 submit" row, the same detect in one submission, so the overlap's
//! gain is measured in the same run (column `chunks`). In a chunked row
//! `kernel` is the wall time up to the first chunk's completion,
//! `readback` the waits for the later ones (what the decodes did not
//! hide) and `convert` all the decodes.
//!
//! Each pair is two bodies of the same two shapes at overlapping seeded
//! random poses, far from every other pair. Per row: median wall-clock time
//! end to end, the kernel's GPU time where the adapter has timestamps, the
//! points tested per second, and how the contacts compare with the CPU's:
//! differences that float rounding explains (a point on a cell face…) and
//! those it does not (`≠cpu`, which should be 0). GPU rows also split the
//! wall time of their last run by phase (per pair, summed over the pairs):
//! `upload` (the plan, its buffers, any growth of the kept ones),
//! `kernel` (bind groups, recording, submission, the count, scan and write
//! passes, the copy of the expected records to the staging buffer, and the
//! wait; the GPU time column is the three passes'), `readback` (the
//! count's map, a second copy if more contacts came than expected, the
//! records' map), `convert` (decoding the records in place from mapped
//! memory, already in order) and `other` (the rest of that run's wall
//! time: what the phases miss), so the gap between wall and GPU time is
//! visible; `copy gpu` is the GPU time of the transfers inside the kernel
//! phase (the records' copy to the staging buffer above all); `faults`
//! the process's minor page faults during that run (Linux), which a
//! detect into a kept set should keep near zero; `wall/gpu` is the target ratio (≤ 3 for the batched
//! row at 1000 pairs). The summary row must equal the batched row's
//! contacts summarized (the run fails otherwise).

use glam::{Mat4, Quat, Vec3};
use serde::Serialize;

use super::common::CommonArgs;
use super::report::{self, Column, Report, or_dash, or_empty, print_table, series};
use super::timing::timed;
use crate::gpu::GpuContext;
use crate::mesh::{torus, uv_sphere};
use crate::stages::collide::{
    Body, BodyShape, COPY_PHASE, Chunking, ColliderGpu, ColliderParams, ColliderShape,
    ContactComparison, ContactSet, ContactTolerance, compare_contacts, detect_cpu, summarize,
};
use crate::stages::sampling::SamplingParams;
use crate::stages::sdf::SdfParams;
use crate::timing::Timings;

/// The scene is fixed (pairs of two shapes); only how many pairs can be
/// chosen.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Pair counts, one set of rows each (comma-separated).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,10,100,1000",
        value_parser = clap::value_parser!(u32).range(1..=10_000)
    )]
    pub pairs: Vec<u32>,
    /// Most chunks a batched detect is cut into, each read back and
    /// decoded while the GPU runs the next (1: one submission). A batch
    /// that is cut also gets a "gpu 1 submit" row for comparison.
    #[arg(long, default_value_t = Chunking::default().max_chunks as u32,
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub chunks: u32,
    /// Fewest points per chunk.
    #[arg(long, default_value_t = Chunking::default().min_points as u64,
          value_parser = clap::value_parser!(u64).range(256..))]
    pub chunk_points: u64,
}

#[derive(Serialize, Clone, Debug)]
struct Row {
    pairs: usize,
    points_tested: usize,
    mode: &'static str,
    wall_ms: f64,
    gpu_ms: Option<f64>,
    million_points_per_s: f64,
    contacts: usize,
    /// Points whose contacts differ from the CPU's (present in one set
    /// only, or beyond the tolerances) and that rounding does not explain.
    mismatches_vs_cpu: Option<usize>,
    /// Points whose contacts differ from the CPU's within float rounding
    /// of a decision (see `stages::collide::compare`).
    within_rounding_vs_cpu: Option<usize>,
    /// Wall time by phase (GPU rows, the last run's): upload, kernel,
    /// read-back, convert, and what that run spent outside them.
    phases: Option<[f64; 5]>,
    /// GPU time of the transfers in the kernels' submission (the
    /// counter's clear and copy, the records' copy; the last run's), part of the
    /// kernel phase's wall time but not of `gpu_ms`.
    copy_gpu_ms: Option<f64>,
    /// Minor page faults of the process during the last run (Linux):
    /// first touches of fresh memory, the cost a kept contact set avoids.
    page_faults: Option<u64>,
    /// Submissions a batched detect was cut into, each read back and
    /// decoded while the GPU runs the next (`ColliderGpu`'s chunking).
    chunks: Option<usize>,
}

/// The phases of [`Row::phases`], as the colliders' timings name them.
const PHASES: [&str; 4] = ["upload", "contacts", "readback", "convert"];

/// A GPU run's result, its wall time split by phase and its transfers'
/// GPU time.
struct Measured<T> {
    result: T,
    phases: [f64; 5],
    copy_gpu_ms: Option<f64>,
    page_faults: Option<u64>,
}

/// The process's minor page faults so far (field 10 of `/proc/self/stat`,
/// the 8th after the command name's closing parenthesis); `None` where
/// there is no such file.
fn minor_faults() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(7)?.parse().ok()
}

/// Runs `run` and times it end to end; `timings` gives the result's
/// phases. Returns the kernels' GPU time too (without the transfers'),
/// for [`timed`].
fn measured<T>(
    run: impl FnOnce() -> anyhow::Result<T>,
    timings: impl Fn(&T) -> &Timings,
) -> anyhow::Result<(Measured<T>, Option<f64>)> {
    let faults = minor_faults();
    let start = std::time::Instant::now();
    let result = run()?;
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    let page_faults = faults.zip(minor_faults()).map(|(a, b)| b - a);
    let t = timings(&result);
    let phases = phase_split(t, wall_ms);
    let gpu_of = |copies: bool| {
        let gpu: Vec<f64> = t
            .phases
            .iter()
            .filter(|p| (p.name == COPY_PHASE) == copies)
            .filter_map(|p| p.gpu_ms)
            .collect();
        (!gpu.is_empty()).then(|| gpu.iter().sum())
    };
    let (gpu_ms, copy_gpu_ms) = (gpu_of(false), gpu_of(true));
    Ok((
        Measured {
            result,
            phases,
            copy_gpu_ms,
            page_faults,
        },
        gpu_ms,
    ))
}

/// Wall time per phase of `timings`, summed over repeated phases, and the
/// rest of `wall_ms` (the same run's).
fn phase_split(timings: &Timings, wall_ms: f64) -> [f64; 5] {
    let split = PHASES.map(|name| {
        timings
            .phases
            .iter()
            .filter(|p| p.name == name)
            .map(|p| p.wall_ms)
            .sum()
    });
    let [upload, kernel, readback, convert] = split;
    [
        upload,
        kernel,
        readback,
        convert,
        wall_ms - split.iter().sum::<f64>(),
    ]
}

fn shapes() -> anyhow::Result<Vec<ColliderShape>> {
    let sdf = SdfParams {
        resolution: 48,
        ..SdfParams::default()
    };
    let sampling = SamplingParams::default();
    Ok(vec![
        ColliderShape::from_mesh(&torus(64, 24, 0.4, 0.15), &sdf, &sampling)?,
        ColliderShape::from_mesh(&uv_sphere(24, 48), &sdf, &sampling)?,
    ])
}

/// `pairs` overlapping pairs on a lattice 3 units apart.
fn scene(pairs: usize) -> (Vec<Body>, Vec<(usize, usize)>) {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut bodies = Vec::with_capacity(2 * pairs);
    let mut list = Vec::with_capacity(pairs);
    for p in 0..pairs {
        let cell = Vec3::new((p % 10) as f32, ((p / 10) % 10) as f32, (p / 100) as f32) * 3.0;
        for shape in 0..2 {
            let axis = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(Vec3::Y);
            let rot = Quat::from_axis_angle(axis, next() * std::f32::consts::TAU);
            let offset = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 0.4;
            bodies.push(Body {
                shape: BodyShape::Mesh(shape),
                world_from_object: Mat4::from_rotation_translation(rot, cell + offset),
            });
        }
        list.push((2 * p, 2 * p + 1));
    }
    (bodies, list)
}

/// The GPU's contacts against the CPU's, as sets ([`compare_contacts`]):
/// differences within rounding of a decision (a cell face, the flip
/// threshold…) are counted apart from the unexplained ones, and each
/// unexplained one is printed.
fn compare(
    shapes: &[ColliderShape],
    bodies: &[Body],
    list: &[(usize, usize)],
    params: &ColliderParams,
    cpu: &ContactSet,
    gpu: &ContactSet,
    what: &str,
) -> anyhow::Result<ContactComparison> {
    let cmp = compare_contacts(
        shapes,
        bodies,
        list,
        params,
        &cpu.contacts,
        &gpu.contacts,
        &ContactTolerance::default(),
    )?;
    eprintln!("  {what}: {}", cmp.summary());
    for m in cmp.unexplained().take(10) {
        eprintln!(
            "    unexplained: cpu {:?} gpu {:?} {:?}",
            m.cpu, m.gpu, m.margins
        );
    }
    Ok(cmp)
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let report = Report::create(&args.common.out, "collide")?;
    let ctx = GpuContext::headless()?;
    let adapter = ctx.describe();
    eprintln!("adapter: {adapter}");
    let chunking = Chunking {
        min_points: usize::try_from(args.chunk_points).unwrap_or(usize::MAX),
        max_chunks: args.chunks as usize,
    };
    let gpu = ColliderGpu::new(&ctx).with_chunking(chunking);
    let single = ColliderGpu::new(&ctx).with_chunking(Chunking::SINGLE);
    let shapes = shapes()?;
    eprintln!(
        "shapes: {} ({} samples), {} ({} samples)",
        shapes[0].name,
        shapes[0].samples.samples.len(),
        shapes[1].name,
        shapes[1].samples.samples.len()
    );
    let resident = gpu.upload(&shapes)?;
    let params = ColliderParams::default();
    let repeats = args.common.repeats.max(1);
    let mut rows = Vec::new();
    for pairs in args.pairs.iter().map(|&p| p as usize) {
        let (bodies, list) = scene(pairs);
        let cpu_run = timed(repeats.min(3), false, || {
            Ok((detect_cpu(&shapes, &bodies, &list, &params)?, None))
        })?;
        let cpu = cpu_run.last;
        let first_row = rows.len();
        let tests = cpu.tests;
        let row = |mode,
                   wall_ms: f64,
                   gpu_ms,
                   contacts,
                   cmp: Option<&ContactComparison>,
                   measured: Option<([f64; 5], Option<f64>, Option<u64>)>| Row {
            pairs,
            points_tested: tests,
            mode,
            wall_ms,
            gpu_ms,
            million_points_per_s: tests as f64 / (gpu_ms.unwrap_or(wall_ms) * 1e3),
            contacts,
            mismatches_vs_cpu: cmp.map(ContactComparison::unexplained_count),
            within_rounding_vs_cpu: cmp.map(|c| c.mismatches.len() - c.unexplained_count()),
            phases: measured.map(|m| m.0),
            copy_gpu_ms: measured.and_then(|m| m.1),
            page_faults: measured.and_then(|m| m.2),
            chunks: None,
        };
        rows.push(row(
            "cpu",
            cpu_run.wall_ms,
            None,
            cpu.contacts.len(),
            None,
            None,
        ));

        // Batched: one dispatch for all pairs, into one set kept across
        // the runs as a caller detecting every frame keeps it; cut into
        // chunks when large, and then also in one submission beside it.
        let chunks = chunking.ranges(tests).len();
        let mut batched = ContactSet::default();
        let mut batched_modes = vec![("gpu batched", &gpu)];
        if chunks > 1 {
            batched_modes.push(("gpu 1 submit", &single));
        }
        for (mode, gpu) in batched_modes {
            let mut set = ContactSet::default();
            let run = timed(repeats, true, || {
                measured(
                    || {
                        gpu.detect_into(&mut set, &resident, &shapes, &bodies, &list, &params)?;
                        Ok(set.timings.clone())
                    },
                    |timings| timings,
                )
            })?;
            let phases = (run.last.phases, run.last.copy_gpu_ms, run.last.page_faults);
            let cmp = compare(&shapes, &bodies, &list, &params, &cpu, &set, mode)?;
            rows.push(Row {
                chunks: Some(set.chunks),
                ..row(
                    mode,
                    run.wall_ms,
                    run.gpu_ms,
                    set.contacts.len(),
                    Some(&cmp),
                    Some(phases),
                )
            });
            if batched.contacts.is_empty() {
                batched = set;
            }
        }

        // Summaries only, reduced on the GPU.
        let run = timed(repeats, true, || {
            measured(
                || Ok(gpu.summarize(&resident, &shapes, &bodies, &list, &params)?),
                |set| &set.timings,
            )
        })?;
        let (summary, summary_phases) = (
            run.last.result,
            (run.last.phases, run.last.copy_gpu_ms, run.last.page_faults),
        );
        anyhow::ensure!(
            summary.pairs == summarize(&list, &batched.contacts),
            "{pairs} pairs: the GPU's summaries differ from its contacts summarized"
        );
        rows.push(row(
            "gpu summary",
            run.wall_ms,
            run.gpu_ms,
            summary.contacts(),
            None,
            Some(summary_phases),
        ));

        // One dispatch and read-back per pair.
        let run = timed(repeats.min(3), true, || {
            measured(
                || {
                    let mut per_pair = ContactSet::default();
                    for pair in &list {
                        let set = gpu.detect(
                            &resident,
                            &shapes,
                            &bodies,
                            std::slice::from_ref(pair),
                            &params,
                        )?;
                        per_pair.contacts.extend(set.contacts);
                        per_pair.timings.phases.extend(set.timings.phases);
                    }
                    Ok(per_pair)
                },
                |set| &set.timings,
            )
        })?;
        let (per_pair, per_pair_phases) = (
            run.last.result,
            (run.last.phases, run.last.copy_gpu_ms, run.last.page_faults),
        );
        rows.push(row(
            "gpu per pair",
            run.wall_ms,
            run.gpu_ms,
            per_pair.contacts.len(),
            Some(&compare(
                &shapes,
                &bodies,
                &list,
                &params,
                &cpu,
                &per_pair,
                "gpu per pair",
            )?),
            Some(per_pair_phases),
        ));
        for r in &rows[first_row..] {
            eprintln!(
                "  {:>5} pairs {:<13} {:>10.3} ms",
                r.pairs, r.mode, r.wall_ms
            );
        }
    }
    report.write(Some(&adapter), &[], &rows)?;
    plot(&report, &rows, &adapter)?;
    print_table(&format!("Contact benchmark — {adapter}"), &rows);
    Ok(())
}

impl Row {
    /// Wall time over kernel time (the target for 1000 pairs
    /// with every contact read back: ≤ 3).
    fn wall_over_gpu(&self) -> Option<f64> {
        self.gpu_ms.filter(|&g| g > 0.0).map(|g| self.wall_ms / g)
    }
}

impl report::Row for Row {
    fn csv_header() -> Vec<&'static str> {
        vec![
            "pairs",
            "points_tested",
            "mode",
            "wall_ms",
            "gpu_ms",
            "million_points_per_s",
            "contacts",
            "mismatches_vs_cpu",
            "within_rounding_vs_cpu",
            "upload_ms",
            "kernel_wall_ms",
            "readback_ms",
            "convert_ms",
            "other_ms",
            "copy_gpu_ms",
            "page_faults",
            "wall_over_gpu",
            "chunks",
        ]
    }

    fn csv_cells(&self) -> Vec<String> {
        vec![
            self.pairs.to_string(),
            self.points_tested.to_string(),
            self.mode.to_string(),
            format!("{:.4}", self.wall_ms),
            or_empty(self.gpu_ms, |v| format!("{v:.4}")),
            format!("{:.3}", self.million_points_per_s),
            self.contacts.to_string(),
            or_empty(self.mismatches_vs_cpu, |v| v.to_string()),
            or_empty(self.within_rounding_vs_cpu, |v| v.to_string()),
        ]
        .into_iter()
        .chain((0..5).map(|k| or_empty(self.phases, |p| format!("{:.4}", p[k]))))
        .chain([
            or_empty(self.copy_gpu_ms, |v| format!("{v:.4}")),
            or_empty(self.page_faults, |v| v.to_string()),
            or_empty(self.wall_over_gpu(), |r| format!("{r:.2}")),
            or_empty(self.chunks, |c| c.to_string()),
        ])
        .collect()
    }

    fn table_columns() -> Vec<Column> {
        vec![
            Column::right("pairs", 6),
            Column::right("points", 10),
            Column::left("mode", 13),
            Column::right("wall ms", 11),
            Column::right("gpu ms", 11),
            Column::right("Mpoints/s", 10),
            Column::right("contacts", 9),
            Column::right("≠cpu", 6),
            Column::right("rounding", 9),
            Column::right("upload", 8),
            Column::right("kernel", 8),
            Column::right("readback", 9),
            Column::right("convert", 8),
            Column::right("other", 7),
            Column::right("copy gpu", 9),
            Column::right("faults", 7),
            Column::right("wall/gpu", 9),
            Column::right("chunks", 6),
        ]
    }

    fn table_cells(&self) -> Vec<String> {
        vec![
            self.pairs.to_string(),
            self.points_tested.to_string(),
            self.mode.to_string(),
            format!("{:.3}", self.wall_ms),
            or_dash(self.gpu_ms, |v| format!("{v:.3}")),
            format!("{:.1}", self.million_points_per_s),
            self.contacts.to_string(),
            or_dash(self.mismatches_vs_cpu, |v| v.to_string()),
            or_dash(self.within_rounding_vs_cpu, |v| v.to_string()),
        ]
        .into_iter()
        .chain((0..5).map(|k| or_dash(self.phases, |p| format!("{:.2}", p[k]))))
        .chain([
            or_dash(self.copy_gpu_ms, |v| format!("{v:.3}")),
            or_dash(self.page_faults, |v| v.to_string()),
            or_dash(self.wall_over_gpu(), |r| format!("{r:.1}×")),
            or_dash(self.chunks, |c| c.to_string()),
        ])
        .collect()
    }
}

/// Wall-clock and kernel time of each mode against the points tested.
fn plot(report: &Report, rows: &[Row], adapter: &str) -> anyhow::Result<()> {
    let mut all = Vec::new();
    for mode in [
        "cpu",
        "gpu batched",
        "gpu 1 submit",
        "gpu summary",
        "gpu per pair",
    ] {
        all.push(series(format!("{mode} (wall)"), rows, |r| {
            (r.mode == mode).then_some((r.points_tested as f64, r.wall_ms))
        }));
        let kernel = series(format!("{mode} (kernel)"), rows, |r| {
            let gpu_ms = r.gpu_ms.filter(|_| r.mode == mode)?;
            Some((r.points_tested as f64, gpu_ms))
        });
        if !kernel.points.is_empty() {
            all.push(kernel);
        }
    }
    let title = format!("Contacts: time vs points tested — {adapter}");
    report.plot(
        1000,
        650,
        &[report::log_log(
            &title,
            "points tested (samples × pairs × 2)",
            "ms",
            &all,
        )],
    )
}
