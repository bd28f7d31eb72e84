//! The particles mode: closed-form particles against implicit colliders,
//! their impact maps and decals, live (Knott 2003, chapter 3; the stage
//! is [`crate::stages::particles`]).
//!
//! Every frame the clock advances by [`DT`] of simulated time and
//!
//! 1. the impact windows ahead of the clock by the look-ahead offset
//!    (§3.5.1) are evaluated and their impacts rendered into the maps on
//!    the GPU, read back asynchronously and decoded into events
//!    (`live`, `lookahead`);
//! 2. the events whose own sub-frame time the clock has reached are added
//!    to each collider's displayed impact map (count, earliest time,
//!    largest speed, §3.4), which colours the collider's surface as decals
//!    (`surface`) and is shown as an image with its legend (`panel`);
//! 3. every particle is evaluated at the clock on the GPU from time alone
//!    and drawn as a point straight from the GPU's buffer, coloured by its
//!    speed.
//!
//! The hail scene (`assets/hail.json`) is shown by default; another scene
//! file opens by dropping it on the window (or `drop:PATH`) while the mode
//! is shown, or with `particles:PATH`.

mod live;
mod lookahead;
mod panel;
mod surface;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use eframe::egui;

use super::{Mode, ModeRequest, Panels, StepDoc, StepTable, Steps, args, step};
use crate::app::shell::Shell;
use crate::app::shell::file_picker::FileKind;
use crate::app::shell::image_view::ImageView;
use crate::io::Format;
use crate::mesh::Mesh;
use crate::stages::particles::collider::Collider;
use crate::stages::particles::gpu::ParticlesGpu;
use crate::stages::particles::points::PointsGpu;
use crate::stages::particles::{ImpactMap, MAX_MAP_RES, ParticleScene};
use crate::timing::Timings;
use live::Live;
use lookahead::Schedule;
use surface::Surface;

/// Simulated time per displayed frame, seconds.
pub const DT: f64 = 1.0 / 60.0;
/// The hail scene shown by default.
const HAIL: &str = include_str!("../../../../assets/hail.json");
/// Tessellation of each collider (parameter grid side).
const TESSELLATION: u32 = 64;
/// Most particles a script step may ask for before the adapter is known
/// (a scene's own limit); the slider and the step stop at the adapter's
/// own limit ([`ParticlesMode::max_particles`]).
const MAX_PARTICLES: u64 = crate::stages::particles::scene::MAX_PARTICLES;
/// Most bounces the slider offers.
const MAX_BOUNCES: u32 = 8;
/// Most look-ahead frames the slider offers.
const MAX_LOOK_AHEAD: u32 = 8;
/// Frames between uploads of the decals (the surfaces' colours).
const DECAL_EVERY: u32 = 4;
/// How often a frame's phases go to the profiler, seconds.
const RECORD_EVERY_S: f64 = 1.0;

/// Where the scene comes from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Source {
    Hail,
    File(PathBuf),
}

/// What the sliders set on top of the scene file.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Knobs {
    particles: u64,
    map_res: u32,
    bounces: u32,
    restitution: f64,
}

/// A map channel (§3.4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Channel {
    #[default]
    Count,
    Earliest,
    Speed,
}

impl Channel {
    pub const ALL: [Channel; 3] = [Channel::Count, Channel::Earliest, Channel::Speed];

    pub fn name(self) -> &'static str {
        match self {
            Channel::Count => "count",
            Channel::Earliest => "time",
            Channel::Speed => "speed",
        }
    }

    fn from_name(name: &str) -> Option<Channel> {
        Channel::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// The mode's state.
pub struct ParticlesMode {
    /// A particle scene (.json) opened, until the mode's next frame loads
    /// it.
    opened: Option<std::path::PathBuf>,
    source: Source,
    /// The scene as its file says.
    base: Option<ParticleScene>,
    knobs: Knobs,
    /// The most particles this adapter's buffers hold
    /// ([`crate::stages::particles::gpu::max_particles`]), known once the
    /// mode was shown.
    pub(super) max_particles: u64,
    /// Look-ahead offset, frames of [`DT`].
    look_ahead: u32,
    /// What `live` was built with.
    built: Option<Knobs>,
    gpu: Option<(Arc<ParticlesGpu>, Arc<PointsGpu>)>,
    live: Option<Live>,
    colliders: Vec<Collider>,
    surfaces: Vec<Surface>,
    /// The maps of the events shown so far.
    maps: Vec<ImpactMap>,
    /// Bumped whenever the maps as shown change (the image's key): with
    /// each upload of the decals.
    maps_version: u64,
    schedule: Schedule,
    time: f64,
    paused: bool,
    decals_dirty: bool,
    /// The most impacts per patch the decals show (their key's top).
    decal_max: f32,
    /// Frames since the decals were uploaded.
    decal_age: u32,
    /// The camera frames the scene at the next upload.
    frame_camera: bool,
    timings: Timings,
    last_record: Option<Instant>,
    /// GPU time of the live particles' evaluation.
    points_gpu_ms: Option<f64>,
    pub(super) map_view: ImageView,
    shown_collider: usize,
    channel: Channel,
    error: Option<String>,
}

impl Default for ParticlesMode {
    fn default() -> Self {
        ParticlesMode {
            opened: None,
            source: Source::Hail,
            base: None,
            knobs: Knobs {
                particles: 100_000,
                map_res: 256,
                bounces: 1,
                restitution: 0.4,
            },
            max_particles: MAX_PARTICLES,
            look_ahead: 2,
            built: None,
            gpu: None,
            live: None,
            colliders: Vec::new(),
            surfaces: Vec::new(),
            maps: Vec::new(),
            maps_version: 0,
            schedule: Schedule::default(),
            time: 0.0,
            paused: false,
            decals_dirty: false,
            decal_max: 0.0,
            decal_age: 0,
            frame_camera: true,
            timings: Timings::default(),
            last_record: None,
            points_gpu_ms: None,
            map_view: ImageView::default(),
            shown_collider: 0,
            channel: Channel::Count,
            error: None,
        }
    }
}

impl ParticlesMode {
    /// Loads the scene of `source`; the sliders take its values.
    fn open(&mut self, source: Source) -> Result<(), String> {
        let scene = match &source {
            Source::Hail => ParticleScene::from_json(HAIL, "hail.json"),
            Source::File(path) => ParticleScene::load(path),
        }
        .map_err(|e| e.to_string())?;
        self.knobs.particles = scene.particle_count().min(self.max_particles);
        self.knobs.bounces = scene.bounces.min(MAX_BOUNCES);
        self.knobs.restitution = scene.restitution;
        self.colliders = scene.colliders.iter().map(Collider::new).collect();
        self.surfaces = scene
            .colliders
            .iter()
            .zip(&self.colliders)
            .map(|(s, c)| surface::tessellate(s, c, TESSELLATION))
            .collect();
        self.shown_collider = 0;
        self.base = Some(scene);
        self.source = source;
        self.built = None;
        self.frame_camera = true;
        Ok(())
    }

    /// The scene with the sliders applied.
    fn scene(&self) -> Option<ParticleScene> {
        let mut s = self
            .base
            .as_ref()?
            .with_particle_count(self.knobs.particles);
        s.bounces = self.knobs.bounces;
        s.restitution = self.knobs.restitution.clamp(0.0, 1.0);
        Some(s)
    }

    /// Builds the GPU scene for the sliders when they changed; the maps
    /// and the schedule start again.
    fn ensure_built(&mut self, shell: &mut Shell) -> Result<(), String> {
        if self.base.is_none() {
            self.open(self.source.clone())?;
        }
        if self.built == Some(self.knobs) && self.live.is_some() {
            return Ok(());
        }
        let gpu = shell.render_gpu.clone();
        if self.gpu.is_none() {
            let pipes = ParticlesGpu::new(&gpu).map_err(|e| e.to_string())?;
            self.gpu = Some((Arc::new(pipes), Arc::new(PointsGpu::new(&gpu))));
        }
        let (pipes, points) = self.gpu.clone().expect("made above");
        let scene = self.scene().expect("opened above");
        self.live = None;
        shell.viewport.set_gpu_cells(None);
        let live = Live::new(&gpu, pipes, points, &scene, self.knobs.map_res)?;
        shell.viewport.set_gpu_cells(Some((
            live.points.points.clone(),
            live.points.draw_args.clone(),
        )));
        self.live = Some(live);
        self.built = Some(self.knobs);
        self.restart_maps();
        shell.viewport.range_override = Some((0.0, speed_range(&scene)));
        shell.viewport.point_size_min = Some(2.0);
        Ok(())
    }

    /// Empty maps and a fresh schedule (the clock stays).
    fn restart_maps(&mut self) {
        self.maps = vec![ImpactMap::new(self.knobs.map_res); self.colliders.len()];
        self.maps_version += 1;
        self.schedule.reset();
        self.schedule.stats = Default::default();
        self.decals_dirty = true;
    }

    /// One frame: stream the windows, show the due events, evaluate the
    /// particles.
    fn run_frame(&mut self, shell: &mut Shell) {
        if let Some(path) = self.opened.take()
            && let Err(e) = self.open(Source::File(path))
        {
            self.fail(shell, e);
        }
        if let Err(e) = self.ensure_built(shell) {
            self.fail(shell, e);
            return;
        }
        let gpu = shell.render_gpu.clone();
        if !self.paused {
            self.time += DT;
            shell.ctx().request_repaint();
        }
        let mut timings = Timings::default();
        let live = self.live.as_mut().expect("built above");
        let look_ahead = f64::from(self.look_ahead) * DT;
        let streamed = live.stream(
            &gpu,
            &mut self.schedule,
            self.time,
            look_ahead,
            DT,
            &mut timings,
        );
        let started = Instant::now();
        let due = self.schedule.due(self.time);
        if !due.is_empty() {
            for e in &due {
                let c = e.collider as usize;
                if let (Some(map), Some(col)) = (self.maps.get_mut(c), self.colliders.get(c)) {
                    map.add(col.map.texel(e.p, map.res), 1, e.t as f32, e.speed as f32);
                }
            }
            self.decals_dirty = true;
        }
        timings.push(
            "events to maps",
            started.elapsed().as_secs_f64() * 1e3,
            None,
        );
        let started = Instant::now();
        match streamed.and(live.evaluate_points(&gpu, self.time)) {
            Ok(ms) => self.points_gpu_ms = ms,
            Err(e) => {
                self.fail(shell, e);
                return;
            }
        }
        timings.push(
            "live particles: evaluation",
            started.elapsed().as_secs_f64() * 1e3,
            self.points_gpu_ms,
        );
        self.decal_age += 1;
        if self.decals_dirty && (self.decal_age >= DECAL_EVERY || self.frame_camera) {
            let started = Instant::now();
            self.upload_surfaces(shell);
            self.decal_age = 0;
            timings.push(
                "decals (surface colours, upload)",
                started.elapsed().as_secs_f64() * 1e3,
                None,
            );
        }
        shell.viewport.request_redraw();
        self.error = None;
        let due_record = self
            .last_record
            .is_none_or(|t| t.elapsed().as_secs_f64() >= RECORD_EVERY_S);
        if due_record {
            self.last_record = Some(Instant::now());
            let label = format!(
                "{} particles, maps {}², look-ahead {} frames",
                self.knobs.particles, self.knobs.map_res, self.look_ahead
            );
            shell
                .history
                .record_run("particles", label, timings.phases.clone());
        }
        self.timings = timings;
    }

    /// Shows `e` in the panel, and once in the banner (a script fails).
    fn fail(&mut self, shell: &mut Shell, e: String) {
        if self.error.as_ref() != Some(&e) {
            shell.notify(format!("particles: {e}"), true);
        }
        self.error = Some(e);
    }

    /// The colliders' surfaces with their decals, as one mesh.
    fn upload_surfaces(&mut self, shell: &mut Shell) {
        self.decals_dirty = false;
        self.maps_version += 1;
        let mut positions = Vec::new();
        let mut triangles = Vec::new();
        let mut colors = Vec::new();
        let grids: Vec<Vec<f32>> = self
            .maps
            .iter()
            .map(|m| surface::coarse_counts(m, TESSELLATION))
            .collect();
        let max = grids
            .iter()
            .flat_map(|g| g.iter().copied())
            .fold(0.0f32, f32::max);
        self.decal_max = max;
        for (k, s) in self.surfaces.iter().enumerate() {
            let first = positions.len() as u32;
            positions.extend_from_slice(&s.positions);
            triangles.extend(s.triangles.iter().map(|t| t.map(|i| i + first)));
            match grids.get(k) {
                Some(g) => colors.extend(surface::decal_colors(s, g, TESSELLATION, max)),
                None => colors.extend(std::iter::repeat_n(
                    surface::SURFACE_GREY,
                    s.positions.len(),
                )),
            }
        }
        let mesh = Mesh::new("particle colliders", positions, triangles);
        let frame = std::mem::take(&mut self.frame_camera);
        shell
            .viewport
            .set_demo_mesh_colored(&mesh, Some(&colors), false);
        if frame {
            shell.viewport.frame_bounds(mesh.bounds());
        }
    }

    fn apply(&mut self, s: ParticlesStep) -> Result<ModeRequest, String> {
        match s {
            ParticlesStep::Show(source) => {
                if let Some(source) = source {
                    self.open(source)?;
                }
                return Ok(ModeRequest::Activate);
            }
            ParticlesStep::Count(n) if n > self.max_particles => {
                return Err(format!(
                    "particles-count: {n} particles are more than this adapter's buffers hold ({})",
                    self.max_particles
                ));
            }
            ParticlesStep::Count(n) => self.knobs.particles = n,
            ParticlesStep::MapRes(r) => self.knobs.map_res = r,
            ParticlesStep::Bounces(b) => self.knobs.bounces = b,
            ParticlesStep::Restitution(r) => self.knobs.restitution = r,
            ParticlesStep::LookAhead(f) => self.look_ahead = f,
            ParticlesStep::Time(t) => {
                self.time = t;
                self.restart_maps();
            }
            ParticlesStep::Pause(p) => self.paused = p,
            ParticlesStep::Collider(c) => {
                let n = self.colliders.len();
                if n > 0 && c >= n {
                    return Err(format!("collider {c}: the scene has {n}"));
                }
                self.shown_collider = c;
            }
            ParticlesStep::Channel(c) => self.channel = c,
            ParticlesStep::Clear => self.restart_maps(),
            ParticlesStep::ExportMap(path, factor, caption) => {
                self.map_view.export(&path, factor, caption)?
            }
            ParticlesStep::ExpectEvents => {
                let shown: u64 = self.maps.iter().map(ImpactMap::total).sum();
                if shown == 0 {
                    return Err(format!(
                        "no impact shown by t = {:.3} s{}",
                        self.time,
                        self.error
                            .as_ref()
                            .map_or(String::new(), |e| format!(" ({e})"))
                    ));
                }
            }
        }
        Ok(ModeRequest::Stay)
    }
}

/// A colour range for the particles' speeds: the fastest start plus what
/// gravity adds over a life.
fn speed_range(scene: &ParticleScene) -> f32 {
    let g = scene.gravity.length();
    scene
        .emitters
        .iter()
        .map(|e| e.velocity.length() + 3f64.sqrt() * e.velocity_jitter + g * e.lifetime)
        .fold(1.0, f64::max) as f32
}

/// The mode's script steps.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ParticlesStep {
    /// `particles[:hail|PATH]`.
    Show(Option<Source>),
    Count(u64),
    MapRes(u32),
    Bounces(u32),
    Restitution(f64),
    LookAhead(u32),
    Time(f64),
    Pause(bool),
    Collider(usize),
    Channel(Channel),
    Clear,
    ExportMap(PathBuf, u32, bool),
    ExpectEvents,
}

const STEPS: &[StepDoc] = &[
    step(
        "particles",
        "[hail|PATH]",
        "show the particles mode (the hail scene, or a scene JSON file)",
    ),
    step("particles-count", "N", "number of particles"),
    step(
        "particles-map",
        "RES",
        "impact-map resolution (texels a side)",
    ),
    step(
        "particles-bounces",
        "N",
        "bounces per life (0: eliminated at impact)",
    ),
    step(
        "particles-restitution",
        "X",
        "restitution at a bounce, 0..1",
    ),
    step(
        "particles-lookahead",
        "FRAMES",
        "look-ahead offset in frames",
    ),
    step(
        "particles-time",
        "SECONDS",
        "set the clock (the maps start again)",
    ),
    step("particles-pause", "[on|off]", "pause or play the clock"),
    step(
        "particles-collider",
        "INDEX",
        "the collider whose map is shown",
    ),
    step(
        "particles-channel",
        "count|time|speed",
        "the map channel shown",
    ),
    step("particles-clear", "", "empty the impact maps and decals"),
    step(
        "particles-export-map",
        "PATH[@2x|@4x][+caption]",
        "save the shown impact map with its legend as PNG",
    ),
    step(
        "particles-expect-events",
        "",
        "fail unless impacts have been shown",
    ),
];

fn parse(verb: &str, arg: &str) -> Option<Result<ParticlesStep, String>> {
    let ranged = |what: &str, lo: f64, hi: f64| -> Result<f64, String> {
        let x: f64 = args::number(verb, arg, what)?;
        if (lo..=hi).contains(&x) {
            Ok(x)
        } else {
            Err(format!("{verb}: {x} is outside {lo}..={hi}"))
        }
    };
    Some(match verb {
        "particles" => Ok(ParticlesStep::Show(match arg {
            "" => None,
            "hail" => Some(Source::Hail),
            path => Some(Source::File(PathBuf::from(path))),
        })),
        "particles-count" => ranged("a particle count", 1.0, MAX_PARTICLES as f64)
            .map(|x| ParticlesStep::Count(x as u64)),
        "particles-map" => ranged("a map resolution", 1.0, f64::from(MAX_MAP_RES))
            .map(|x| ParticlesStep::MapRes(x as u32)),
        "particles-bounces" => ranged("a bounce count", 0.0, f64::from(MAX_BOUNCES))
            .map(|x| ParticlesStep::Bounces(x as u32)),
        "particles-restitution" => {
            ranged("a restitution", 0.0, 1.0).map(ParticlesStep::Restitution)
        }
        "particles-lookahead" => ranged("a frame count", 0.0, f64::from(MAX_LOOK_AHEAD))
            .map(|x| ParticlesStep::LookAhead(x as u32)),
        "particles-time" => ranged("a time in seconds", 0.0, 1e6).map(ParticlesStep::Time),
        "particles-pause" => {
            if arg.is_empty() {
                Ok(ParticlesStep::Pause(true))
            } else {
                args::on_off(verb, arg).map(ParticlesStep::Pause)
            }
        }
        "particles-collider" => {
            args::number(verb, arg, "a collider index").map(ParticlesStep::Collider)
        }
        "particles-channel" => Channel::from_name(arg)
            .map(ParticlesStep::Channel)
            .ok_or(format!("{verb}: {arg:?} is not count, time or speed")),
        "particles-clear" => Ok(ParticlesStep::Clear),
        "particles-export-map" => crate::app::shell::export::figure_target(arg)
            .map(|(path, factor, caption)| ParticlesStep::ExportMap(path, factor, caption)),
        "particles-expect-events" => Ok(ParticlesStep::ExpectEvents),
        _ => return None,
    })
}

impl Mode for ParticlesMode {
    fn name(&self) -> &'static str {
        "particles"
    }

    fn title(&self) -> &'static str {
        "Particles"
    }

    fn panels(&self) -> Panels {
        Panels {
            inspector: true,
            slice: false,
            profiler: true,
        }
    }

    fn file_kind(&self) -> Option<FileKind> {
        Some(FileKind {
            what: "Particle scene",
            extensions: &["json"],
        })
    }

    fn open_file(&mut self, shell: &mut Shell, path: std::path::PathBuf) -> ModeRequest {
        shell.notify(
            format!(
                "{}: a particle scene, shown in the particles mode",
                path.display()
            ),
            false,
        );
        self.opened = Some(path);
        ModeRequest::Stay
    }

    fn activate(&mut self, shell: &mut Shell) {
        self.max_particles =
            crate::stages::particles::gpu::max_particles(&shell.render_gpu.device.limits());
        self.knobs.particles = self.knobs.particles.min(self.max_particles);
        self.frame_camera = true;
        self.decals_dirty = true;
        if let Some(live) = &self.live {
            shell.viewport.set_gpu_cells(Some((
                live.points.points.clone(),
                live.points.draw_args.clone(),
            )));
        }
        // The speed scale and point size, which leaving a mode clears.
        if self.live.is_some()
            && let Some(scene) = self.scene()
        {
            shell.viewport.range_override = Some((0.0, speed_range(&scene)));
            shell.viewport.point_size_min = Some(2.0);
        }
        // The clock restarts its cover: windows submitted before the mode
        // was left are not waited for again.
        self.schedule.reset();
    }

    fn deactivate(&mut self, shell: &mut Shell) {
        shell.viewport.set_gpu_cells(None);
    }

    fn update(&mut self, shell: &mut Shell) {
        self.run_frame(shell);
    }

    fn toggle_pause(&mut self) -> bool {
        self.paused = !self.paused;
        true
    }

    fn side_panel_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui) {
        panel::panel_ui(self, shell, ui);
    }

    fn inspector_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui) {
        panel::maps_ui(self, shell, ui);
    }

    fn viewport_ui(
        &mut self,
        shell: &mut Shell,
        ui: &mut egui::Ui,
        _picked: Option<Option<usize>>,
    ) {
        let range = shell.viewport.range_override.map_or(1.0, |r| r.1);
        let view = shell.settings.view;
        let speed = crate::app::shell::legend::ColorBar {
            title: "particle speed (units/s)",
            lo: 0.0,
            hi: range,
            signed: false,
            threshold: None,
        }
        .key(view.color_map, Vec::new());
        use crate::app::shell::legend::ViewKey;
        use crate::plot::figure::Key;
        let keys = [
            ViewKey::new(Key::Bar(speed)),
            ViewKey::new(Key::Bar(surface::decal_key(self.decal_max))),
        ];
        crate::app::shell::legend::keys_ui(ui, shell, &keys);
        let map = view.color_map.name();
        crate::app::shell::legend::caption_ui(
            ui,
            &format!(
                "{} particles at t = {:.2} s, coloured by speed (0 to {range:.0} units/s, {map}); \
                 decals: impacts so far per patch of the colliders, log scale (turbo)",
                self.knobs.particles, self.time
            ),
        );
    }
}

impl Steps for ParticlesMode {
    type Step = ParticlesStep;
    const TABLE: StepTable<Self, ParticlesStep> =
        StepTable::new(STEPS, parse, |m, _, step| m.apply(step));

    fn outputs(verb: &str, arg: &str) -> Vec<(PathBuf, Format)> {
        super::figure_output("particles-export-map", verb, arg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_particles_steps() {
        assert_eq!(parse("particles", ""), Some(Ok(ParticlesStep::Show(None))));
        assert_eq!(
            parse("particles", "scenes/rain.json"),
            Some(Ok(ParticlesStep::Show(Some(Source::File(
                "scenes/rain.json".into()
            )))))
        );
        assert_eq!(
            parse("particles-count", "20000"),
            Some(Ok(ParticlesStep::Count(20_000)))
        );
        assert_eq!(
            parse("particles-channel", "speed"),
            Some(Ok(ParticlesStep::Channel(Channel::Speed)))
        );
        assert!(matches!(parse("particles-restitution", "1.5"), Some(Err(e)) if e.contains("1.5")));
        assert!(matches!(parse("particles-map", "0"), Some(Err(_))));
        assert!(matches!(parse("particles-channel", "colour"), Some(Err(_))));
        assert_eq!(parse("tritri", "tori"), None);
    }

    /// The default scene opens and every collider has a surface.
    #[test]
    fn the_hail_scene_opens_with_a_surface_per_collider() {
        let mut m = ParticlesMode::default();
        m.open(Source::Hail).expect("hail opens");
        assert_eq!(m.surfaces.len(), 6);
        assert!(m.surfaces.iter().all(|s| !s.triangles.is_empty()));
        assert_eq!(m.scene().map(|s| s.particle_count()), Some(100_000));
        assert!(
            m.open(Source::File("/nonexistent/scene.json".into()))
                .is_err()
        );
    }
}
