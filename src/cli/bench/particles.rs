//! `collidoscope bench particles`: closed-form particles and impact maps
//! (Knott 2003, chapter 3; [`crate::stages::particles`]) on the hail scene
//! (six colliders: two roof rectangles, a disc, a cylinder, an ellipsoid,
//! a cone) scaled to each particle count.
//!
//! Each row streams frame windows of 1/60 s through the stage's ring of
//! frames in flight exactly as the viewer does (submit a window, poll for
//! the ones that landed, never wait unless the ring is full), from t = 2 s
//! so that every particle is in a later life. After a warm-up (the GPU's
//! clock settles, the impact buffers grow to the window's impacts, and the
//! particles' kept state fills: a scene's first window solves every
//! particle from birth, later ones only those the window changes) it
//! times `--repeats` windows back to back: the GPU time per phase from the
//! stage's timestamps (evaluation split into its scan of every particle's
//! kept state and its solve of the particles the scan listed, map
//! rendering, read-back copy; medians) with the particles solved per window,
//! the wall time per window, the read-back latency and the CPU time to
//! unpack a window. Three studies:
//!
//! * **count** — particles/s and impacts/s against the particle count
//!   (`--particles`, up to 10M), maps at 512²;
//! * **maps** — read-back cost against the map resolution (`--map-res`)
//!   at `--map-particles`: the paper's trade-off between spatial and
//!   temporal resolution (§3.5: larger maps cost more to copy and read,
//!   which the look-ahead of §3.5.1 must cover);
//! * **goal** — the headline case: `--goal-particles` (10M) against the
//!   six colliders with maps at 512², evaluation + map rendering ≤ 2 ms of
//!   GPU per frame, and then `--frames` windows paced at 60 Hz (as the
//!   viewer submits them) in which no frame may wait on a read-back: the
//!   row gives the frames that waited (stalls), the ring depth used and
//!   the latency in frames.
//!
//! Every row also draws the viewer's live particles
//! ([`crate::stages::particles::points`]) at the time a viewer with the
//! default look-ahead of [`VIEWER_LOOK_AHEAD`] frames shows while the
//! windows' kept state is where the run left it: the median time of the
//! points passes (GPU, wall without timestamps), the particles they solved
//! from birth, and the same passes on a scene with no kept state, where
//! every particle is solved from birth (the cost before the kept state).
//!
//! Particles/s is the count over the evaluation's GPU time, impacts/s the
//! impacts per window over evaluation + map rendering (wall time per
//! window where the adapter has no timestamps).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::common::CommonArgs;
use super::report::{self, Column, Report, or_dash, or_empty, print_table, series};
use super::timing::{median, warm_up};
use crate::gpu::GpuContext;
use crate::stages::particles::Particles;
use crate::stages::particles::gpu::{GpuScene, ParticlesGpu};
use crate::stages::particles::phases::GpuPhaseMs;
use crate::stages::particles::points::{LivePoints, PointsGpu};
use crate::stages::particles::ring::{FrameResult, FrameRing, Window};
use crate::stages::particles::{MAX_MAP_RES, ParticleScene};

/// The viewer's frame: 60 Hz.
const DT: f64 = 1.0 / 60.0;
/// Simulated time of the first window (past every particle's first life).
const START: f64 = 2.0;
/// The budget for evaluation + map rendering, per frame.
const GOAL_MS: f64 = 2.0;
/// The map side of the count and goal studies.
const GOAL_MAP_RES: u32 = 512;
/// The viewer's default look-ahead, frames: its drawn time is this many
/// windows and one more before the end of the submitted windows.
const VIEWER_LOOK_AHEAD: u32 = 2;

#[derive(Clone, Copy, Debug, PartialEq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Study {
    /// Particles/s and impacts/s against the particle count.
    Count,
    /// Read-back cost against the map resolution.
    Maps,
    /// 10M particles, 6 colliders, 512² maps: ≤ 2 ms GPU, no stalls.
    Goal,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Which studies to run (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "count,maps,goal")]
    pub studies: Vec<Study>,
    /// Particle counts of the count study.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "10000,100000,1000000,3000000,10000000"
    )]
    pub particles: Vec<u64>,
    /// Map sides of the maps study, texels.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "64,128,256,512,1024,2048"
    )]
    pub map_res: Vec<u32>,
    /// Particles of the maps study.
    #[arg(long, default_value_t = 1_000_000)]
    pub map_particles: u64,
    /// Particles of the goal row.
    #[arg(long, default_value_t = 10_000_000)]
    pub goal_particles: u64,
    /// Windows of the goal's paced run (at 60 Hz).
    #[arg(long, default_value_t = 300)]
    pub frames: usize,
    /// Scene file instead of the bundled hail scene (its emitters are
    /// scaled to each count).
    #[arg(long)]
    pub scene: Option<PathBuf>,
}

/// The goal's paced run.
#[derive(Serialize, Clone, Copy, Debug)]
struct Paced {
    frames: usize,
    /// Frames whose submission waited on a read-back.
    stalls: u64,
    /// Most windows in flight at once.
    ring_depth: usize,
    max_latency_frames: u64,
    /// Slowest window's evaluation + map rendering.
    max_compute_ms: Option<f64>,
}

#[derive(Serialize, Clone, Debug)]
struct Row {
    study: Study,
    particles: u64,
    colliders: usize,
    map_res: u32,
    windows: usize,
    /// Mean impacts per window.
    impacts: f64,
    /// Mean particles the scan listed for the solve per window.
    solved: f64,
    /// GPU medians per window: the evaluation (scan + solve) and its parts.
    evaluation_ms: Option<f64>,
    scan_ms: Option<f64>,
    solve_ms: Option<f64>,
    map_rendering_ms: Option<f64>,
    readback_copy_ms: Option<f64>,
    /// Evaluation + map rendering, median.
    compute_ms: Option<f64>,
    /// Wall time per window, streamed back to back.
    frame_ms: f64,
    particles_per_s: f64,
    impacts_per_s: f64,
    /// Bytes copied back per window.
    readback_bytes: u64,
    /// Mean wall time from submission to arrival.
    readback_ms: f64,
    /// Mean CPU time to unpack a window's staging buffer.
    unpack_ms: f64,
    paced: Option<Paced>,
    /// The live particles from the kept state: median ms, the particles
    /// solved from birth; and the median ms with every one from birth.
    points_ms: f64,
    points_from_birth: u32,
    points_birth_ms: f64,
    /// Within the bound: compute ≤ 2 ms and no stall.
    goal: Option<bool>,
}

/// The scene's windows streamed through a ring, as the viewer does.
struct Stream<'a> {
    gpu: &'a GpuContext,
    pipes: &'a ParticlesGpu,
    scene: GpuScene,
    ring: FrameRing,
    next: u32,
    /// Windows whose impacts overflowed their buffers (then grown).
    overflows: u64,
}

impl<'a> Stream<'a> {
    fn new(
        gpu: &'a GpuContext,
        pipes: &'a ParticlesGpu,
        scene: &ParticleScene,
        map_res: u32,
    ) -> anyhow::Result<Self> {
        let gs = GpuScene::new(gpu, scene, map_res)?;
        let n = scene.particle_count() as u32;
        Ok(Stream {
            ring: FrameRing::new(&gs, n / 16, 1),
            scene: gs,
            gpu,
            pipes,
            next: 0,
            overflows: 0,
        })
    }

    /// Submits the next window and returns the windows that landed.
    fn step(&mut self) -> anyhow::Result<Vec<FrameResult>> {
        let window = Window {
            frame: self.next,
            t_begin: START + f64::from(self.next) * DT,
            dt: DT,
        };
        self.next += 1;
        let mut ready = Vec::new();
        self.ring
            .submit(self.gpu, self.pipes, &self.scene, window, false, &mut ready)?;
        ready.extend(self.ring.poll(self.gpu)?);
        self.grow(&ready);
        Ok(ready)
    }

    fn drain(&mut self) -> anyhow::Result<Vec<FrameResult>> {
        let ready = self.ring.drain(self.gpu)?;
        self.grow(&ready);
        Ok(ready)
    }

    /// Room for every impact of the windows that overflowed.
    fn grow(&mut self, ready: &[FrameResult]) {
        for r in ready.iter().filter(|r| r.overflowed()) {
            self.overflows += 1;
            self.ring.capacity = self.ring.capacity.max(r.impact_count.next_power_of_two());
        }
    }

    /// Streams until the GPU's times settle, then until a window runs
    /// without outgrowing its buffers; leaves the ring empty.
    fn warm_up(&mut self) -> anyhow::Result<()> {
        warm_up(|| {
            let ready = self.step()?;
            Ok(ready.last().and_then(|r| r.gpu_ms).map(|g| g.compute_ms()))
        })?;
        loop {
            self.overflows = 0;
            self.step()?;
            self.drain()?;
            if self.overflows == 0 {
                return Ok(());
            }
        }
    }

    /// Streams `windows` windows (paced at `pace` when given) and drains.
    fn run(&mut self, windows: usize, pace: Option<Duration>) -> anyhow::Result<Measured> {
        let (stalls, unpacked) = (self.ring.stalls, self.ring.cpu.unpacking);
        self.ring.max_in_flight = 0;
        self.overflows = 0;
        let started = Instant::now();
        // Only what is measured: a window's maps and impacts (tens of MB
        // at 512², hundreds at 2048²) are dropped as they land.
        let mut results: Vec<Landed> = Vec::new();
        let landed = |r: FrameResult| Landed {
            gpu_ms: r.gpu_ms,
            impact_count: r.impact_count,
            solved: r.solved,
            readback_ms: r.readback_ms,
            latency_frames: r.latency_frames,
        };
        for k in 0..windows.max(1) {
            if let Some(due) = pace.map(|p| started + p * k as u32) {
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
            }
            results.extend(self.step()?.into_iter().map(landed));
        }
        results.extend(self.drain()?.into_iter().map(landed));
        let n = results.len().max(1) as f64;
        Ok(Measured {
            frame_ms: started.elapsed().as_secs_f64() * 1e3 / n,
            gpu: results.iter().map(|r| r.gpu_ms).collect(),
            impacts: results
                .iter()
                .map(|r| f64::from(r.impact_count))
                .sum::<f64>()
                / n,
            solved: results.iter().map(|r| f64::from(r.solved)).sum::<f64>() / n,
            readback_ms: results.iter().map(|r| r.readback_ms).sum::<f64>() / n,
            latency: results.iter().map(|r| r.latency_frames).max().unwrap_or(0),
            unpack_ms: (self.ring.cpu.unpacking - unpacked) / n,
            stalls: self.ring.stalls - stalls,
            ring_depth: self.ring.max_in_flight,
            windows: results.len(),
        })
    }
}

/// What a run keeps of a window that landed.
struct Landed {
    gpu_ms: Option<GpuPhaseMs>,
    impact_count: u32,
    solved: u32,
    readback_ms: f64,
    latency_frames: u64,
}

/// What one streamed run measured.
struct Measured {
    windows: usize,
    frame_ms: f64,
    /// Per window; `None` without timestamps.
    gpu: Option<Vec<GpuPhaseMs>>,
    impacts: f64,
    solved: f64,
    readback_ms: f64,
    latency: u64,
    unpack_ms: f64,
    stalls: u64,
    ring_depth: usize,
}

impl Measured {
    /// The median of one GPU phase.
    fn gpu_median(&self, phase: impl Fn(&GpuPhaseMs) -> f64) -> Option<f64> {
        let mut v: Vec<f64> = self.gpu.as_ref()?.iter().map(phase).collect();
        (!v.is_empty()).then(|| median(&mut v))
    }

    fn max_compute_ms(&self) -> Option<f64> {
        let g = self.gpu.as_ref()?;
        g.iter().map(GpuPhaseMs::compute_ms).reduce(f64::max)
    }
}

/// The live particles a viewer draws with the stream's kept state, then
/// on a scene with no state: (median ms, particles solved from birth,
/// median ms all from birth), `repeats` evaluations each.
fn live_points(
    stream: &Stream,
    points_gpu: &PointsGpu,
    (scene, map_res): (&ParticleScene, u32),
    repeats: usize,
) -> anyhow::Result<(f64, u32, f64)> {
    let ctx = stream.gpu;
    let t = START + f64::from(stream.next.saturating_sub(VIEWER_LOOK_AHEAD + 1)) * DT;
    let time = |points: &LivePoints| -> anyhow::Result<f64> {
        let mut v = Vec::new();
        for _ in 0..repeats.max(1) {
            let m = points.evaluate(ctx, points_gpu, t)?;
            v.push(report::best_ms(m.gpu_ms(), m.wall_ms));
        }
        Ok(median(&mut v))
    };
    let kept = LivePoints::new(ctx, points_gpu, &stream.scene)?;
    let kept_ms = time(&kept)?;
    let from_birth = kept.solved_from_birth(ctx)?;
    let no_state = GpuScene::new(ctx, scene, map_res)?;
    let birth_ms = time(&LivePoints::new(ctx, points_gpu, &no_state)?)?;
    Ok((kept_ms, from_birth, birth_ms))
}

/// One row: a warm-up, then `repeats` windows back to back; for the goal
/// also a paced run of `frames` windows; then the live particles.
fn measure(
    ctx: &GpuContext,
    (pipes, points_gpu): (&ParticlesGpu, &PointsGpu),
    base: &ParticleScene,
    study: Study,
    (particles, map_res): (u64, u32),
    args: &Args,
) -> anyhow::Result<Row> {
    let scene = base.with_particle_count(particles);
    let mut stream = Stream::new(ctx, pipes, &scene, map_res)?;
    stream.warm_up()?;
    let m = stream.run(args.common.repeats, None)?;
    let paced = match study {
        Study::Goal => {
            let p = stream.run(args.frames, Some(Duration::from_secs_f64(DT)))?;
            Some(Paced {
                frames: p.windows,
                stalls: p.stalls,
                ring_depth: p.ring_depth,
                max_latency_frames: p.latency,
                max_compute_ms: p.max_compute_ms(),
            })
        }
        _ => None,
    };
    let (points_ms, points_from_birth, points_birth_ms) =
        live_points(&stream, points_gpu, (&scene, map_res), args.common.repeats)?;
    let compute_ms = m.gpu_median(GpuPhaseMs::compute_ms);
    let evaluation_ms = m.gpu_median(GpuPhaseMs::evaluation);
    let per_s = |count: f64, ms: Option<f64>| count / report::best_ms(ms, m.frame_ms) * 1e3;
    let n = scene.particle_count();
    Ok(Row {
        study,
        particles: n,
        colliders: scene.colliders.len(),
        map_res,
        windows: m.windows,
        impacts: m.impacts,
        solved: m.solved,
        evaluation_ms,
        scan_ms: m.gpu_median(|g| g.scan),
        solve_ms: m.gpu_median(|g| g.solve),
        map_rendering_ms: m.gpu_median(|g| g.map_rendering),
        readback_copy_ms: m.gpu_median(|g| g.readback_copy),
        compute_ms,
        frame_ms: m.frame_ms,
        particles_per_s: per_s(n as f64, evaluation_ms),
        impacts_per_s: per_s(m.impacts, compute_ms),
        readback_bytes: stream.ring.readback_bytes(),
        readback_ms: m.readback_ms,
        unpack_ms: m.unpack_ms,
        goal: paced.map(|p| p.stalls == 0 && compute_ms.is_some_and(|c| c <= GOAL_MS)),
        paced,
        points_ms,
        points_from_birth,
        points_birth_ms,
    })
}

/// The rows the studies ask for, in study order; a count or map side out
/// of range is refused before any run.
fn plan(args: &Args) -> anyhow::Result<Vec<(Study, u64, u32)>> {
    let mut out = Vec::new();
    for &study in &args.studies {
        match study {
            Study::Count => out.extend(args.particles.iter().map(|&n| (study, n, GOAL_MAP_RES))),
            Study::Maps => out.extend(args.map_res.iter().map(|&r| (study, args.map_particles, r))),
            Study::Goal => out.push((study, args.goal_particles, GOAL_MAP_RES)),
        }
    }
    for &(study, particles, map_res) in &out {
        let study = format!("{study:?}").to_lowercase();
        if particles == 0 || particles > u64::from(u32::MAX) {
            anyhow::bail!(
                "{study} study: {particles} particles; the count must be in 1..={}",
                u32::MAX
            );
        }
        if map_res == 0 || map_res > MAX_MAP_RES {
            anyhow::bail!(
                "{study} study: map resolution {map_res}; it must be in 1..={MAX_MAP_RES}"
            );
        }
    }
    Ok(out)
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let base = match &args.scene {
        Some(path) => ParticleScene::load(path)?,
        None => ParticleScene::from_json(include_str!("../../../assets/hail.json"), "hail.json")?,
    };
    let plan = plan(args)?;
    let inputs: Vec<(&str, &std::path::Path)> = args
        .scene
        .iter()
        .map(|s| ("--scene", s.as_path()))
        .collect();
    let report = Report::create_reading(&args.common.out, "particles", &inputs)?;
    let ctx = GpuContext::headless()?;
    let (_, pipes) = Particles::gpu(&ctx)?;
    let points_gpu = PointsGpu::new(&ctx);
    // Every row's maps within the adapter's limits before the first run.
    for &(_, _, map_res) in &plan {
        GpuScene::new(&ctx, &base, map_res)?;
    }
    let adapter = ctx.describe();
    eprintln!("adapter: {adapter}");
    let mut rows = Vec::new();
    for (study, n, res) in plan {
        let row = measure(&ctx, (&pipes, &points_gpu), &base, study, (n, res), args)?;
        eprintln!(
            "  {:?} {:>9} particles, maps {res}²: {} ms GPU, {:.3} ms/window",
            study,
            row.particles,
            or_dash(row.compute_ms, |v| format!("{v:.3}")),
            row.frame_ms
        );
        rows.push(row);
    }
    report.write(
        Some(&adapter),
        &[
            ("dt", DT.into()),
            ("start", START.into()),
            ("goal_ms", GOAL_MS.into()),
            ("timestamps", ctx.has_timestamps.into()),
        ],
        &rows,
    )?;
    plot(&report, &rows, &adapter)?;
    print_table(&format!("Particles benchmark — {adapter}"), &rows);
    println!("\n{}", report::markdown_table(&rows));
    Ok(())
}

impl report::Row for Row {
    fn csv_header() -> Vec<&'static str> {
        vec![
            "study",
            "particles",
            "colliders",
            "map_res",
            "windows",
            "impacts",
            "solved",
            "evaluation_ms",
            "scan_ms",
            "solve_ms",
            "map_rendering_ms",
            "readback_copy_ms",
            "compute_ms",
            "frame_ms",
            "particles_per_s",
            "impacts_per_s",
            "readback_bytes",
            "readback_ms",
            "unpack_ms",
            "paced_frames",
            "stalls",
            "ring_depth",
            "max_latency_frames",
            "max_compute_ms",
            "points_ms",
            "points_from_birth",
            "points_birth_ms",
            "goal",
        ]
    }

    fn csv_cells(&self) -> Vec<String> {
        let ms = |v: Option<f64>| or_empty(v, |v| format!("{v:.4}"));
        let p = self.paced;
        vec![
            format!("{:?}", self.study).to_lowercase(),
            self.particles.to_string(),
            self.colliders.to_string(),
            self.map_res.to_string(),
            self.windows.to_string(),
            format!("{:.1}", self.impacts),
            format!("{:.1}", self.solved),
            ms(self.evaluation_ms),
            ms(self.scan_ms),
            ms(self.solve_ms),
            ms(self.map_rendering_ms),
            ms(self.readback_copy_ms),
            ms(self.compute_ms),
            format!("{:.4}", self.frame_ms),
            format!("{:.4e}", self.particles_per_s),
            format!("{:.4e}", self.impacts_per_s),
            self.readback_bytes.to_string(),
            format!("{:.4}", self.readback_ms),
            format!("{:.4}", self.unpack_ms),
            or_empty(p, |p| p.frames.to_string()),
            or_empty(p, |p| p.stalls.to_string()),
            or_empty(p, |p| p.ring_depth.to_string()),
            or_empty(p, |p| p.max_latency_frames.to_string()),
            ms(p.and_then(|p| p.max_compute_ms)),
            format!("{:.4}", self.points_ms),
            self.points_from_birth.to_string(),
            format!("{:.4}", self.points_birth_ms),
            or_empty(self.goal, |g| g.to_string()),
        ]
    }

    fn table_columns() -> Vec<Column> {
        vec![
            Column::left("study", 6),
            Column::right("particles", 10),
            Column::right("map", 5),
            Column::right("impacts", 9),
            Column::right("solved", 9),
            Column::right("eval ms", 8),
            Column::right("scan ms", 8),
            Column::right("solve ms", 9),
            Column::right("map ms", 7),
            Column::right("copy ms", 8),
            Column::right("frame ms", 9),
            Column::right("Mpart/s", 8),
            Column::right("Mimp/s", 7),
            Column::right("read MB", 8),
            Column::right("latency ms", 11),
            Column::right("unpack ms", 10),
            Column::right("stalls", 7),
            Column::right("depth", 6),
            Column::right("live ms", 8),
            Column::right("from birth", 11),
            Column::right("all-birth ms", 13),
            Column::left("goal", 5),
        ]
    }

    fn table_cells(&self) -> Vec<String> {
        let ms = |v: Option<f64>| or_dash(v, |v| format!("{v:.3}"));
        let p = self.paced;
        vec![
            format!("{:?}", self.study).to_lowercase(),
            self.particles.to_string(),
            self.map_res.to_string(),
            format!("{:.0}", self.impacts),
            format!("{:.0}", self.solved),
            ms(self.evaluation_ms),
            ms(self.scan_ms),
            ms(self.solve_ms),
            ms(self.map_rendering_ms),
            ms(self.readback_copy_ms),
            format!("{:.3}", self.frame_ms),
            format!("{:.1}", self.particles_per_s / 1e6),
            format!("{:.2}", self.impacts_per_s / 1e6),
            format!("{:.1}", self.readback_bytes as f64 / 1e6),
            format!("{:.2}", self.readback_ms),
            format!("{:.3}", self.unpack_ms),
            or_dash(p, |p| format!("{}/{}", p.stalls, p.frames)),
            or_dash(p, |p| {
                format!("{}/{}", p.ring_depth, crate::stages::particles::gpu::RING)
            }),
            format!("{:.3}", self.points_ms),
            self.points_from_birth.to_string(),
            format!("{:.3}", self.points_birth_ms),
            or_dash(self.goal, |g| if g { "met" } else { "MISSED" }.to_string()),
        ]
    }
}

/// Throughput against the particle count; read-back cost against the map
/// side.
fn plot(report: &Report, rows: &[Row], adapter: &str) -> anyhow::Result<()> {
    let count = |r: &&Row| r.study != Study::Maps;
    let counts: Vec<&Row> = rows.iter().filter(count).collect();
    let maps: Vec<&Row> = rows.iter().filter(|r| r.study == Study::Maps).collect();
    let throughput = [
        series("particles/s", &counts, |r| {
            Some((r.particles as f64, r.particles_per_s))
        }),
        series("impacts/s", &counts, |r| {
            Some((r.particles as f64, r.impacts_per_s))
        }),
    ];
    let readback = [
        series("copy (GPU)", &maps, |r| {
            Some((f64::from(r.map_res), r.readback_copy_ms?))
        }),
        series("submission to arrival (wall)", &maps, |r| {
            Some((f64::from(r.map_res), r.readback_ms))
        }),
        series("unpack (CPU)", &maps, |r| {
            Some((f64::from(r.map_res), r.unpack_ms))
        }),
    ];
    let t1 = format!("Throughput vs particles — {adapter}");
    let t2 = format!("Map read-back vs map side — {adapter}");
    report.plot(
        1400,
        600,
        &[
            report::log_log(&t1, "particles", "per second", &throughput),
            report::log_log(&t2, "map side (texels)", "ms per window", &readback),
        ],
    )
}
