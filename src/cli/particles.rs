//! `collidoscope particles SCENE.json --frames N --dt 0.0166 --out events.csv
//! [--flights flights.csv] [--maps DIR] [--map-res R] [--backend gpu|cpu]`.
//!
//! Runs the particle stage (Knott 2003, chapter 3) over `frames` windows of
//! `dt` seconds from t = 0 and writes one CSV row per impact (and per
//! flight with `--flights`). With `--maps` each collider's impact map goes
//! to `DIR/collider<i>_<type>.npy` (float32, shape (3, R, R): count,
//! earliest time in seconds (NaN where none), max impact speed) and a PNG
//! of the three channels side by side. Every output is checked before the
//! run and written as one set.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::gpu::GpuContext;
use crate::progress::Progress;
use crate::stages::particles::{
    Backend, Event, FlightRecord, FlightStart, ImpactMap, ParticleParams, ParticleScene, Particles,
};
use crate::stages::{Stage, StageBackend};
use crate::view::ColorMap;

/// `--backend` values of `particles`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ParticleBackendArg {
    /// GPU: compute evaluation, impact maps rendered as points, async read-back.
    Gpu,
    /// CPU reference (f64, all cores).
    Cpu,
}

#[derive(clap::Args, Debug)]
pub struct ParticlesArgs {
    /// Scene file (JSON: gravity, bounces, restitution, emitters, colliders).
    pub scene: PathBuf,
    /// Number of frame windows.
    #[arg(long, default_value_t = 60)]
    pub frames: u32,
    /// Frame length, seconds.
    #[arg(long, default_value_t = 1.0 / 60.0)]
    pub dt: f64,
    /// Impact events CSV.
    #[arg(long)]
    pub out: PathBuf,
    /// Flights CSV: one row per flight started in the run.
    #[arg(long)]
    pub flights: Option<PathBuf>,
    /// Folder for the impact maps (.npy and .png per collider).
    #[arg(long)]
    pub maps: Option<PathBuf>,
    /// Impact-map side, texels.
    #[arg(long, default_value_t = 256)]
    pub map_res: u32,
    #[arg(long, value_enum, default_value = "gpu")]
    pub backend: ParticleBackendArg,
}

pub const EVENT_COLUMNS: &str =
    "frame,particle,generation,flight,collider,t0,p0x,p0y,p0z,v0x,v0y,v0z,t,x,y,z,nx,ny,nz,speed";
pub const FLIGHT_COLUMNS: &str = "frame,particle,generation,flight,t0,p0x,p0y,p0z,v0x,v0y,v0z,hit";

/// `t0,p0x,p0y,p0z,v0x,v0y,v0z`.
fn start_columns(s: &FlightStart) -> String {
    format!(
        "{},{},{},{},{},{},{}",
        s.t0, s.p0.x, s.p0.y, s.p0.z, s.v0.x, s.v0.y, s.v0.z
    )
}

fn events_csv(events: &[Event]) -> String {
    let mut out = String::with_capacity(events.len() * 200);
    out.push_str(EVENT_COLUMNS);
    out.push('\n');
    for e in events {
        let s = &e.start;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            e.frame,
            s.particle,
            s.generation,
            s.flight,
            e.collider,
            start_columns(s),
            e.t,
            e.p.x,
            e.p.y,
            e.p.z,
            e.n.x,
            e.n.y,
            e.n.z,
            e.speed
        );
    }
    out
}

fn flights_csv(flights: &[FlightRecord]) -> String {
    let mut out = String::with_capacity(flights.len() * 160);
    out.push_str(FLIGHT_COLUMNS);
    out.push('\n');
    for f in flights {
        let s = &f.start;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{}",
            f.frame,
            s.particle,
            s.generation,
            s.flight,
            start_columns(s),
            f.hit
        );
    }
    out
}

/// The three channels side by side, each scaled to its own range; texels
/// without impacts are black.
fn map_png(map: &ImpactMap) -> anyhow::Result<Vec<u8>> {
    let res = map.res;
    let channels = map.channels();
    let n = (res * res) as usize;
    let mut img = image::RgbaImage::new(3 * res + 2, res);
    for (k, chunk) in channels.chunks(n).enumerate() {
        let finite = chunk.iter().filter(|v| v.is_finite());
        let (lo, hi) = finite.fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
        for (i, &v) in chunk.iter().enumerate() {
            let hit = map.count[i] > 0;
            let colour = if hit && v.is_finite() {
                // Times start from the earliest; counts and speeds from 0.
                let (base, span) = if k == 1 { (lo, hi - lo) } else { (0.0, hi) };
                ColorMap::Sundholm.color(v - base, span.max(f32::MIN_POSITIVE))
            } else {
                [0, 0, 0, 255]
            };
            let (x, y) = (i as u32 % res, i as u32 / res);
            img.put_pixel(k as u32 * (res + 1) + x, y, image::Rgba(colour));
        }
    }
    let mut bytes = Vec::new();
    image::DynamicImage::ImageRgba8(img)
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .context("encoding a map PNG")?;
    Ok(bytes)
}

/// The map files of collider `i`: (npy, png).
pub fn map_paths(dir: &Path, i: usize, kind: &str) -> (PathBuf, PathBuf) {
    let stem = format!("collider{i}_{kind}");
    (
        dir.join(format!("{stem}.npy")),
        dir.join(format!("{stem}.png")),
    )
}

pub fn run(args: ParticlesArgs) -> anyhow::Result<()> {
    let scene = ParticleScene::load(&args.scene)?;
    let params = ParticleParams {
        frames: args.frames,
        dt: args.dt,
        start: 0.0,
        map_res: args.map_res,
        flights: args.flights.is_some(),
    };
    params.validate()?;
    let map_files: Vec<(PathBuf, PathBuf)> = match &args.maps {
        Some(dir) => {
            if dir.exists() && !dir.is_dir() {
                anyhow::bail!("--maps {}: not a folder", dir.display());
            }
            scene
                .colliders
                .iter()
                .enumerate()
                .map(|(i, c)| map_paths(dir, i, c.kind()))
                .collect()
        }
        None => Vec::new(),
    };
    let mut targets: Vec<&Path> = vec![&args.out];
    targets.extend(args.flights.as_deref());
    for (npy, png) in &map_files {
        targets.push(npy);
        targets.push(png);
    }
    super::check_out(&targets)?;

    let backend = match args.backend {
        ParticleBackendArg::Gpu => Backend::Gpu,
        ParticleBackendArg::Cpu => Backend::Cpu,
    };
    let state = match backend {
        Backend::Gpu => Some(Particles::gpu(&GpuContext::headless()?)?),
        Backend::Cpu => None,
    };
    let run = Particles::run(
        &scene,
        &params,
        backend,
        state.as_ref(),
        &Progress::default(),
    )?;
    let (events, flights, maps) = (&run.events, &run.flights, &run.maps);

    let mut files: Vec<(PathBuf, Vec<u8>)> =
        vec![(args.out.clone(), events_csv(events).into_bytes())];
    if let Some(path) = &args.flights {
        files.push((path.clone(), flights_csv(flights).into_bytes()));
    }
    for ((npy, png), map) in map_files.iter().zip(maps) {
        let r = map.res as usize;
        files.push((
            npy.clone(),
            crate::io::encode_npy_f32(&[3, r, r], &map.channels()),
        ));
        files.push((png.clone(), map_png(map)?));
    }
    if let Some(dir) = &args.maps {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let set: Vec<(&Path, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_path(), b.as_slice()))
        .collect();
    crate::io::write_set(&set).with_context(|| format!("cannot write {}", args.out.display()))?;

    let per_collider: Vec<String> = maps
        .iter()
        .enumerate()
        .map(|(i, m)| format!("{i}:{}={}", scene.colliders[i].kind(), m.total()))
        .collect();
    let stream = run.stream.map_or(String::new(), |s| {
        format!(
            "; read-back latency up to {} frames (mean {:.2} ms), {} stalls, {} windows rerun",
            s.max_latency_frames, s.mean_readback_ms, s.stalls, s.reruns
        )
    });
    println!(
        "{} particles, {} frames of {} s: {} impacts ({}), {} flights listed; {:.1} ms on {}{stream}",
        scene.particle_count(),
        params.frames,
        params.dt,
        events.len(),
        per_collider.join(", "),
        flights.len(),
        run.wall_ms,
        backend.name(),
    );
    Ok(())
}
