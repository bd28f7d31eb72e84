//! `collidoscope particles SCENE.json --frames N --dt 0.0166 --out events.csv
//! [--flights flights.csv] [--maps DIR] [--map-res R] [--backend gpu|cpu]`.
//!
//! Runs the particle stage (Knott 2003, chapter 3) over `frames` windows of
//! `dt` seconds from t = 0 and writes one CSV row per impact (and per
//! flight with `--flights`). With `--maps` each collider's impact map goes
//! to `DIR/collider<i>_<type>.npy` (float32, shape (3, R, R): count,
//! earliest time in seconds (NaN where none), max impact speed) and one
//! figure per channel, `DIR/collider<i>_<type>_{count,time,speed}.png`:
//! the map with its colour key (Turbo, black where no impact, the hit
//! texels' histogram), axes in the collider's parameterisation and a
//! caption naming collider and channel. Every output is checked before
//! the run and written as one set.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::gpu::GpuContext;
use crate::io::{Format, OutputPlan};
use crate::plot::figure::{self, BarKey, Figure, Key, Ruler};
use crate::progress::Progress;
use crate::stages::particles::collider::{Collider, MapFrame, MapKind};
use crate::stages::particles::{
    Backend, Event, FlightRecord, FlightStart, ImpactMap, ParticleParams, ParticleScene, Particles,
};
use crate::view::ColorMap;

crate::stages::backend::backends! {
    /// `--backend` values of `particles`.
    #[derive(Clone, Copy, Debug)]
    pub enum ParticleBackendArg {
        Gpu {
            name: "gpu",
            gpu: true,
            help: "GPU: compute evaluation, impact maps rendered as points, async read-back",
        },
        Cpu { name: "cpu", gpu: false, help: "CPU reference (f64, all cores)" },
    }
}

#[derive(clap::Args, Debug)]
pub struct ParticlesArgs {
    /// Scene file (JSON: gravity, bounces, restitution, emitters, colliders).
    pub scene: PathBuf,
    /// Number of frame windows (at most 1,000,000).
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
    /// Where the particles are evaluated and the maps drawn.
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

/// The channels of an impact map: file suffix and colour-key title.
const CHANNELS: [(&str, &str); 3] = [
    ("count", "impacts per texel"),
    ("time", "earliest impact (s)"),
    ("speed", "max impact speed (m/s)"),
];

/// A tick label with at most three decimals, trailing zeros cut.
fn tick(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// The map's axes in the collider's parameterisation (§3.4.2),
/// [horizontal (u), vertical (v, down the rows)]: local x, y for planes;
/// angle and height for cylinders and cones; azimuth and polar angle for
/// spheres, ellipsoids and other quadrics.
fn map_axes(frame: &MapFrame) -> [Ruler; 2] {
    let s = frame.scale;
    // Each axis is affine in its map coordinate: (label, value at 0, at 1).
    // The vertical label is short: it sits in the figure's left margin.
    let angle = ("angle about the axis (°)", -180.0, 180.0);
    let [u, v] = match frame.kind {
        MapKind::Linear => [("local x (m)", -s.x, s.x), ("y (m)", -s.y, s.y)],
        MapKind::AngleHeight => [angle, ("axial (m)", 0.0, s.z)],
        MapKind::Spherical => [angle, ("polar (°)", 0.0, 180.0)],
    };
    let fractions = [0.0f32, 0.25, 0.5, 0.75, 1.0];
    let ruler = |(label, lo, hi): (&str, f64, f64), flip: bool| Ruler {
        label: label.into(),
        ticks: fractions
            .map(|f| {
                // The vertical ruler runs bottom to top; v runs down the rows.
                let t = if flip {
                    1.0 - f64::from(f)
                } else {
                    f64::from(f)
                };
                (f, tick(lo + (hi - lo) * t))
            })
            .to_vec(),
    };
    [ruler(u, false), ruler(v, true)]
}

/// The colour key of one channel over [lo, hi] (Turbo), with the
/// histogram of the texels hit and black for texels without impacts.
fn channel_key(title: &str, lo: f32, hi: f32, hit: &[f32]) -> BarKey {
    const STEPS: usize = 96;
    const BINS: usize = 32;
    let at = |t: f32| hi - t * (hi - lo);
    let mut bins = [0u32; BINS];
    for &v in hit {
        let t = ((hi - v) / (hi - lo) * BINS as f32) as usize;
        bins[t.min(BINS - 1)] += 1;
    }
    let most = bins.iter().copied().max().unwrap_or(0).max(1) as f32;
    BarKey {
        title: title.into(),
        colors: (0..STEPS)
            .map(|i| ColorMap::Turbo.color_between(at((i as f32 + 0.5) / STEPS as f32), lo, hi))
            .collect(),
        ticks: [0.0f32, 0.25, 0.5, 0.75, 1.0]
            .map(|t| (t, tick(f64::from(at(t)))))
            .to_vec(),
        marks: Vec::new(),
        histogram: bins.iter().map(|&b| b as f32 / most).collect(),
        empty: Some(([0, 0, 0, 255], "no impact".into())),
    }
}

/// One figure per channel of collider `i`'s map: the map coloured over
/// the channel's range (counts and speeds from 0, times from the
/// earliest), its colour key, axes in the collider's parameterisation
/// and a caption naming collider and channel; PNG bytes.
fn map_figures(
    map: &ImpactMap,
    (i, kind): (usize, &str),
    frame: &MapFrame,
    run: &str,
) -> anyhow::Result<[Vec<u8>; 3]> {
    let res = map.res;
    let values: [Vec<f32>; 3] = [
        map.count.iter().map(|&c| c as f32).collect(),
        map.earliest.clone(),
        map.max_speed.clone(),
    ];
    let axes = map_axes(frame);
    let mut out: [Vec<u8>; 3] = Default::default();
    for (k, ((name, title), v)) in CHANNELS.iter().zip(&values).enumerate() {
        let hit: Vec<f32> = v
            .iter()
            .zip(&map.count)
            .filter(|&(_, &c)| c > 0)
            .map(|(&x, _)| x)
            .collect();
        let lo = match k {
            1 => hit.iter().copied().fold(f32::INFINITY, f32::min),
            _ => 0.0,
        };
        let lo = if lo.is_finite() { lo } else { 0.0 };
        let hi = hit.iter().copied().fold(lo, f32::max);
        let hi = if hi > lo { hi } else { lo + 1.0 };
        let img = image::RgbaImage::from_fn(res, res, |x, y| {
            let t = (y * res + x) as usize;
            image::Rgba(match map.count[t] {
                0 => [0, 0, 0, 255],
                _ => ColorMap::Turbo.color_between(v[t], lo, hi),
            })
        });
        let img = figure::upscale(&img, (256 / res).max(1));
        let key = Key::Bar(channel_key(title, lo, hi, &hit));
        let caption = format!(
            "Impact map of collider {i} ({kind}), channel {name}: {title}; {} impacts, {run}.",
            map.total()
        );
        let fig = figure::render(
            &Figure {
                image: &img,
                key: Some(&key),
                axes: Some(&axes),
                caption: Some(&caption),
            },
            1,
        )
        .map_err(|e| anyhow::anyhow!("drawing the {name} map of collider {i}: {e}"))?;
        let mut bytes = Vec::new();
        image::DynamicImage::ImageRgba8(fig)
            .write_to(
                &mut std::io::Cursor::new(&mut bytes),
                image::ImageFormat::Png,
            )
            .context("encoding a map PNG")?;
        out[k] = bytes;
    }
    Ok(out)
}

/// The map files of collider `i`: the .npy and one PNG per channel
/// (count, time, speed).
pub fn map_paths(dir: &Path, i: usize, kind: &str) -> (PathBuf, [PathBuf; 3]) {
    let stem = format!("collider{i}_{kind}");
    (
        dir.join(format!("{stem}.npy")),
        CHANNELS.map(|(name, _)| dir.join(format!("{stem}_{name}.png"))),
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
    params.validate_for(&scene)?;
    let map_files: Vec<(PathBuf, [PathBuf; 3])> = match &args.maps {
        Some(dir) => scene
            .colliders
            .iter()
            .enumerate()
            .map(|(i, c)| map_paths(dir, i, c.kind()))
            .collect(),
        None => Vec::new(),
    };
    let mut plan = OutputPlan::new();
    plan.input("the scene", &args.scene)
        .output("--out", &args.out, Format::CSV);
    if let Some(flights) = &args.flights {
        plan.output("--flights", flights, Format::CSV);
    }
    if let Some(dir) = &args.maps {
        plan.folder("--maps", dir);
    }
    for (npy, pngs) in &map_files {
        plan.output("--maps", npy, Format::NPY);
        for png in pngs {
            plan.output("--maps", png, Format::PNG);
        }
    }
    plan.check()?;

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
    let run_text = format!("{} frames of {} s", params.frames, params.dt);
    for (i, ((npy, pngs), map)) in map_files.iter().zip(maps).enumerate() {
        let r = map.res as usize;
        files.push((
            npy.clone(),
            crate::io::encode_npy_f32(&[3, r, r], &map.channels()),
        ));
        let shape = &scene.colliders[i];
        let frame = Collider::new(shape).map;
        let figures = map_figures(map, (i, shape.kind()), &frame, &run_text)?;
        files.extend(pngs.iter().cloned().zip(figures));
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

#[cfg(test)]
mod tests {
    use glam::DVec3;

    use super::*;
    use crate::stages::particles::scene::ColliderShape;

    #[test]
    fn ticks_keep_three_decimals_at_most() {
        let cut: Vec<String> = [0.5, -180.0, -0.0001, 1.1547, 12.0].map(tick).to_vec();
        assert_eq!(cut, ["0.5", "-180", "0", "1.155", "12"]);
    }

    #[test]
    fn axes_follow_the_collider_parameterisation() {
        let cylinder = ColliderShape::Cylinder {
            base: DVec3::ZERO,
            axis: DVec3::Y,
            radius: 0.6,
            height: 1.2,
        };
        let [u, v] = map_axes(&Collider::new(&cylinder).map);
        assert!(u.label.starts_with("angle"), "{u:?}");
        assert_eq!(
            (u.ticks[0].1.as_str(), u.ticks[4].1.as_str()),
            ("-180", "180")
        );
        // v runs down the rows: the top of the image is the base.
        assert_eq!(v.ticks[0], (0.0, "1.2".to_string()));
        assert_eq!(v.ticks[4], (1.0, "0".to_string()));
        let sphere = ColliderShape::Sphere {
            centre: DVec3::ZERO,
            radius: 1.0,
        };
        let [_, v] = map_axes(&Collider::new(&sphere).map);
        assert!(v.label.starts_with("polar"), "{v:?}");
        assert_eq!(v.ticks[0].1, "180");
    }

    #[test]
    fn the_key_runs_from_high_to_low_with_the_hit_texels_histogram() {
        let key = channel_key("impacts per texel", 0.0, 4.0, &[0.0, 1.0, 1.0, 4.0]);
        assert_eq!(key.ticks[0], (0.0, "4".to_string()));
        assert_eq!(key.ticks[4], (1.0, "0".to_string()));
        // 96 steps, each coloured at its middle: the high end on top.
        let step = 4.0 / 96.0;
        assert_eq!(
            key.colors[0],
            ColorMap::Turbo.color_between(4.0 - step / 2.0, 0.0, 4.0)
        );
        assert_eq!(
            key.colors[95],
            ColorMap::Turbo.color_between(step / 2.0, 0.0, 4.0)
        );
        assert_eq!(key.histogram.len(), 32);
        assert_eq!(
            (key.histogram[0], key.histogram[24], key.histogram[31]),
            (0.5, 1.0, 0.5)
        );
        assert_eq!(key.histogram.iter().filter(|&&h| h > 0.0).count(), 3);
        assert!(key.empty.is_some());
    }
}
