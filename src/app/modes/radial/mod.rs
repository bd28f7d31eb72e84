//! The radial mode (Friston & Steed 2019): the procedural humanoid
//! ([`crate::sim::radial::character::humanoid`]) animated through its loop of
//! extreme motions — or a skinned glTF character opened by drag and drop
//! or `radial-open:PATH` ([`crate::sim::radial::character::gltf`], e.g.
//! `assets/CesiumMan.glb`) — one radial field per bone rasterised every frame
//! ([`crate::stages::radial`], GPU or CPU), the fields drawn as wire
//! cylinders on the character and the selected bone's field unwrapped as a
//! live θ × z image (`unwrap_view`); thumbnails of every bone's unwrap in
//! the side panel. Sliders set the field resolution and the animation
//! speed; the time can be paused and scrubbed; the selected field's axis
//! and normal are editable (bind-pose coordinates). The live scene
//! (`scene`): cloth draped on the character and a stream of free
//! particles, colliding with the fields every frame, contacts highlighted;
//! sliders for substeps n, friction μ, cloth stiffness and particle count.
//! The profiler records skinning, rasterisation, collision and cloth
//! times (CPU, and GPU timestamps on `gpu`). Table 1's alternatives
//! (§9: per-bone SDF, spatial hash, BVH) can be measured on the current
//! frame beside the fields (`alternatives`).

mod alternatives;
mod depth_order;
mod draw;
mod live;
mod panel;
mod scene;
mod unwrap_view;

use std::path::PathBuf;
use std::time::Instant;

use eframe::egui;
use glam::Vec3;

use super::{Mode, ModeRequest, Panels, StepDoc, StepTable, Steps, args, step};
use crate::app::shell::Shell;
use crate::app::shell::file_picker::FileKind;
use crate::app::shell::legend::caption_ui;
use crate::io::Format;
use crate::sim::radial::MAX_SUBSTEPS;
use crate::sim::radial::character::Character;
use crate::sim::radial::character::gltf::load_gltf;
use crate::sim::radial::character::humanoid::{Detail, humanoid};
use crate::stages::radial::{Backend, BoneFrame, FieldFrameGpu, RadialParams};
use crate::timing::Timings;

/// Profiler records at most this often (seconds): the mode runs every frame.
const RECORD_EVERY_S: f64 = 1.0;

/// The mode's state.
pub struct RadialMode {
    /// A skinned glTF character (.glb, .gltf) opened, until the mode's
    /// next frame loads it.
    opened: Option<std::path::PathBuf>,
    character: Option<Character>,
    params: RadialParams,
    backend: Backend,
    /// Animation time (seconds) and speed.
    time: f32,
    speed: f32,
    paused: bool,
    /// The selected field.
    bone: usize,
    live: live::Live,
    values: Vec<f32>,
    framed: bool,
    /// Compute the next frame even when paused.
    dirty: bool,
    error: Option<String>,
    last_frame: Option<Instant>,
    last_record: Option<Instant>,
    timings: Timings,
    /// One texture per field (the panel's thumbnails).
    textures: Vec<Option<egui::TextureHandle>>,
    /// The selected field's unwrap in the bottom panel.
    unwrap_image: crate::app::shell::image_view::ImageView,
    /// The cloth and the particles; made on the next frame when `None`.
    scene: Option<scene::LiveScene>,
    scene_params: scene::SceneParams,
    show_scene: bool,
    /// Fields as translucent cylinders (else wire).
    translucent: bool,
    /// Scene steps to take at the next frame while paused (settling).
    settle: u32,
    /// The translucent cylinders of the last frame, and the eye they were
    /// last sorted back to front for.
    cylinders: Vec<depth_order::Surface>,
    sorted_for: Option<Vec3>,
    /// Table 1's alternatives measured on a frame ([`alternatives`]).
    alternatives: alternatives::Alternatives,
}

impl Default for RadialMode {
    fn default() -> Self {
        RadialMode {
            opened: None,
            character: None,
            params: RadialParams::new(64, 32),
            backend: Backend::Gpu,
            time: 0.0,
            speed: 1.0,
            paused: false,
            bone: 0,
            live: live::Live::default(),
            values: Vec::new(),
            framed: false,
            dirty: true,
            error: None,
            last_frame: None,
            last_record: None,
            timings: Timings::default(),
            textures: Vec::new(),
            unwrap_image: Default::default(),
            scene: None,
            scene_params: scene::SceneParams::default(),
            show_scene: true,
            translucent: true,
            settle: 0,
            cylinders: Vec::new(),
            sorted_for: None,
            alternatives: alternatives::Alternatives::default(),
        }
    }
}

impl RadialMode {
    fn set_resolution(&mut self, n_theta: u32, n_z: u32) -> Result<(), String> {
        let params = RadialParams {
            n_theta,
            n_z,
            ..self.params
        };
        params.validate().map_err(|e| e.to_string())?;
        self.params = params;
        self.dirty = true;
        Ok(())
    }

    fn select_bone(&mut self, which: &str) -> Result<(), String> {
        let c = self.character.get_or_insert_with(|| humanoid(Detail::LOW));
        let index = match which.parse::<usize>() {
            Ok(i) => i,
            Err(_) => (0..c.fields.len())
                .find(|&f| c.field_name(f) == which)
                .ok_or(format!("no bone called {which}"))?,
        };
        if index >= c.fields.len() {
            return Err(format!(
                "bone {index}: the character has {} fields",
                c.fields.len()
            ));
        }
        self.bone = index;
        self.dirty = true;
        Ok(())
    }

    /// Shows the skinned glTF character at `path` (the current one stays
    /// if it does not load).
    fn open_character(&mut self, path: &std::path::Path) -> Result<String, String> {
        let loaded = load_gltf(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let c = loaded.character;
        let mut note = format!(
            "{}: {} joints, {} triangles, {} fields{}",
            path.display(),
            loaded.skin_joints,
            c.triangles.len(),
            c.fields.len(),
            c.clip.as_ref().map_or(String::new(), |k| format!(
                ", a {:.2} s animation",
                k.duration()
            ))
        );
        if loaded.ignored_influences > 0 {
            note += &format!(
                " ({} vertices' weights beyond the first four ignored)",
                loaded.ignored_influences
            );
        }
        self.character = Some(c);
        self.bone = 0;
        self.time = 0.0;
        self.live = live::Live::default();
        self.values.clear();
        self.textures.clear();
        self.scene = None;
        self.framed = false;
        self.dirty = true;
        Ok(note)
    }

    /// One step of the cloth and the particles on this frame's fields (or
    /// the pending settling steps while paused).
    fn step_scene(&mut self, shell: &Shell, skinned: &[Vec3], frames: &[BoneFrame]) {
        if !self.show_scene {
            return;
        }
        let steps = if self.paused {
            std::mem::take(&mut self.settle)
        } else {
            1
        };
        if self.scene.is_none() {
            match scene::LiveScene::new(skinned, self.scene_params.particles) {
                Ok(s) => self.scene = Some(s),
                Err(e) => {
                    self.error = Some(e);
                    return;
                }
            }
        }
        let n = self.params.cells_per_field() as u32;
        let gpu_frames: Vec<FieldFrameGpu> = frames
            .iter()
            .enumerate()
            .map(|(f, b)| FieldFrameGpu::new(b, self.params.n_theta, self.params.n_z, f as u32 * n))
            .collect();
        let scene = self.scene.as_mut().expect("made above");
        for k in 0..steps {
            let mut scratch = Timings::default();
            let timings = if k + 1 == steps {
                &mut self.timings
            } else {
                &mut scratch
            };
            let r = scene.step(
                &shell.render_gpu,
                gpu_frames.clone(),
                &self.values,
                &self.scene_params,
                self.backend,
                timings,
            );
            if let Err(e) = r {
                self.error = Some(format!("scene: {e}"));
                return;
            }
        }
    }

    /// Advances the clock and computes a frame when something moved.
    fn run_frame(&mut self, shell: &mut Shell) {
        let now = Instant::now();
        let dt = self
            .last_frame
            .map_or(0.0, |t| (now - t).as_secs_f32())
            .min(0.1);
        self.last_frame = Some(now);
        if !self.paused {
            self.time += dt * self.speed;
            shell.ctx().request_repaint();
        } else if !self.dirty {
            return;
        }
        self.dirty = false;
        let c = self.character.get_or_insert_with(|| humanoid(Detail::LOW));
        let gpu = shell.render_gpu.clone();
        match self
            .live
            .frame(&gpu, c, self.time, &self.params, self.backend)
        {
            Ok(frame) => {
                self.error = None;
                self.values = frame.values;
                let frames = c
                    .field_frames(&c.pose(self.time).skin_matrices)
                    .unwrap_or_default();
                self.timings = frame.timings;
                self.step_scene(shell, &frame.skinned, &frames);
                self.alternatives.note_frame(&self.timings);
                if std::mem::take(&mut self.alternatives.requested) {
                    self.measure_alternatives(shell, &frame.skinned);
                }
                let due = self
                    .last_record
                    .is_none_or(|t| t.elapsed().as_secs_f64() >= RECORD_EVERY_S);
                if due {
                    self.last_record = Some(now);
                    let label = format!(
                        "{} {}×{} × {} fields",
                        self.backend.name(),
                        self.params.n_theta,
                        self.params.n_z,
                        frames.len()
                    );
                    shell
                        .history
                        .record_run("radial", label, self.timings.phases.clone());
                }
                self.draw(shell, &frame.skinned, &frames);
                self.update_textures(shell.ctx());
            }
            Err(e) => self.error = Some(e),
        }
    }

    fn update_textures(&mut self, ctx: &egui::Context) {
        let Some(c) = &self.character else { return };
        let n = (self.params.n_theta * self.params.n_z) as usize;
        self.textures.resize_with(c.fields.len(), || None);
        for f in 0..c.fields.len() {
            let Some(values) = self.values.get(f * n..(f + 1) * n) else {
                continue;
            };
            let u = self.unwrap(f, values);
            unwrap_view::texture(
                ctx,
                &mut self.textures[f],
                &format!("radial unwrap {f}"),
                &u,
            );
        }
    }

    /// Writes the selected field's unwrap as a figure at `factor` × its
    /// cells (with the caption when `caption`).
    pub(super) fn export_unwrap(
        &self,
        path: &std::path::Path,
        factor: u32,
        caption: bool,
    ) -> Result<(), String> {
        let n = (self.params.n_theta * self.params.n_z) as usize;
        let values = self
            .values
            .get(self.bone * n..(self.bone + 1) * n)
            .ok_or("no unwrap to export yet")?;
        let picture = unwrap_view::picture(&self.unwrap(self.bone, values));
        let figure = crate::app::shell::image_view::export_image(&picture, factor, caption)?;
        crate::app::shell::export::write_png(&figure, path)
    }

    fn unwrap<'a>(&self, f: usize, values: &'a [f32]) -> unwrap_view::Unwrap<'a> {
        let name = self.character.as_ref().map_or("", |c| c.field_name(f));
        unwrap_view::Unwrap {
            title: format!(
                "field {f}: {name} — {}×{} (θ × z), t = {:.2} s",
                self.params.n_theta, self.params.n_z, self.time
            ),
            values,
            n_theta: self.params.n_theta,
            n_z: self.params.n_z,
            lo: crate::view::unwrap::finite_min(values),
            hi: crate::view::unwrap::finite_max(values)
                .max(crate::view::unwrap::finite_min(values) + 1e-6),
        }
    }

    fn apply(&mut self, step: RadialStep) -> Result<ModeRequest, String> {
        match step {
            RadialStep::Show => return Ok(ModeRequest::Activate),
            RadialStep::Resolution(w, h) => self.set_resolution(w, h)?,
            RadialStep::Bone(b) => self.select_bone(&b)?,
            RadialStep::Time(t) => {
                self.time = t;
                self.paused = true;
                self.dirty = true;
            }
            RadialStep::Speed(s) => self.speed = s,
            RadialStep::Pause(p) => self.paused = p,
            RadialStep::Backend(name) => {
                self.backend = Backend::from_name(&name)
                    .ok_or(format!("unknown radial backend {name} (gpu, cpu)"))?;
                self.dirty = true;
            }
            RadialStep::Export(path, factor, caption) => {
                self.export_unwrap(&path, factor, caption)?;
            }
            RadialStep::Open(path) => {
                self.open_character(std::path::Path::new(&path))?;
                return Ok(ModeRequest::Activate);
            }
            RadialStep::Particles(n) => {
                self.scene_params.particles = n;
                self.scene = None;
                self.dirty = true;
            }
            RadialStep::Substeps(n) => self.scene_params.substeps = n,
            RadialStep::Friction(mu) => self.scene_params.friction = mu,
            RadialStep::Stiffness(k) => self.scene_params.stiffness = k,
            RadialStep::Scene(on) => {
                self.show_scene = on;
                self.dirty = true;
            }
            RadialStep::Settle(n) => {
                self.settle = n;
                self.dirty = true;
            }
            RadialStep::Reset => {
                self.scene = None;
                self.dirty = true;
            }
            RadialStep::Cylinders(translucent) => {
                self.translucent = translucent;
                self.dirty = true;
            }
            RadialStep::Alternatives => {
                self.alternatives.requested = true;
                self.dirty = true;
            }
        }
        Ok(ModeRequest::Stay)
    }
}

/// The radial mode's script steps.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RadialStep {
    Show,
    Resolution(u32, u32),
    Bone(String),
    Time(f32),
    Speed(f32),
    Pause(bool),
    Backend(String),
    Open(String),
    Particles(usize),
    Substeps(u32),
    Friction(f32),
    Stiffness(f32),
    Scene(bool),
    Settle(u32),
    Reset,
    Cylinders(bool),
    Alternatives,
    Export(std::path::PathBuf, u32, bool),
}

const STEPS: &[StepDoc] = &[
    step(
        "radial",
        "",
        "show the animated character with its radial fields",
    ),
    step("radial-res", "WxH", "field resolution θ × z (θ even)"),
    step(
        "radial-bone",
        "N|NAME",
        "select a bone's field (index or joint name)",
    ),
    step("radial-time", "T", "pause the animation at T seconds"),
    step("radial-speed", "S", "animation speed (1 = real time)"),
    step("radial-pause", "on|off", "pause or run the animation"),
    step(
        "radial-backend",
        "NAME",
        "rasterise and simulate on gpu or cpu",
    ),
    step(
        "radial-open",
        "PATH",
        "open a skinned glTF character (.glb, .gltf)",
    ),
    step(
        "radial-particles",
        "N",
        "free particles falling on the character (restarts the scene)",
    ),
    step("radial-substeps", "N", "collision substeps n (1 to 256)"),
    step("radial-friction", "MU", "friction μ (0 to 1)"),
    step("radial-stiffness", "K", "cloth stiffness (0 to 1)"),
    step("radial-scene", "on|off", "the cloth and the particles"),
    step(
        "radial-settle",
        "N",
        "while paused, step the cloth and particles N times",
    ),
    step("radial-reset", "", "drop the cloth and the particles again"),
    step(
        "radial-alternatives",
        "",
        "measure table 1's alternatives (§9) on this frame's mesh, cloth and particles",
    ),
    step(
        "radial-cylinders",
        "translucent|wire",
        "draw the fields as translucent or wire cylinders",
    ),
    step(
        "radial-export-unwrap",
        "PATH[@2x|@4x][+caption]",
        "the selected field's unwrap as a figure (colour key, θ and z axes)",
    ),
];

/// The particle slider's and `radial-particles`' limit.
pub(super) const MAX_PARTICLES: usize = 20_000;
/// `radial-settle`'s limit.
const MAX_SETTLE: u32 = 2_000;

/// A number in [0, 1].
fn unit(verb: &str, arg: &str) -> Result<f32, String> {
    args::number(verb, arg, "a number from 0 to 1").and_then(|v: f32| {
        if (0.0..=1.0).contains(&v) {
            Ok(v)
        } else {
            Err(format!("{verb} needs a number from 0 to 1, not {v}"))
        }
    })
}

fn parse(verb: &str, arg: &str) -> Option<Result<RadialStep, String>> {
    let finite = |v: f32| {
        if v.is_finite() {
            Ok(v)
        } else {
            Err(format!("{verb} needs a finite number"))
        }
    };
    Some(match verb {
        "radial" => Ok(RadialStep::Show),
        "radial-res" => arg
            .split_once(['x', 'X', '×'])
            .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)))
            .map(|(w, h)| RadialStep::Resolution(w, h))
            .ok_or(format!("{verb} needs WxH, e.g. 64x32, not {arg:?}")),
        "radial-bone" => args::need(verb, arg, "a bone index or name").map(RadialStep::Bone),
        "radial-time" => args::number(verb, arg, "seconds")
            .and_then(finite)
            .map(RadialStep::Time),
        "radial-speed" => args::number(verb, arg, "a speed")
            .and_then(finite)
            .map(RadialStep::Speed),
        "radial-pause" => args::on_off(verb, arg).map(RadialStep::Pause),
        "radial-backend" => args::need(verb, arg, "gpu or cpu").map(RadialStep::Backend),
        "radial-open" => args::need(verb, arg, "a .glb or .gltf path").map(RadialStep::Open),
        "radial-particles" => arg
            .trim()
            .parse()
            .ok()
            .filter(|&n| n <= MAX_PARTICLES)
            .map(RadialStep::Particles)
            .ok_or(format!(
                "{verb} needs a count from 0 to {MAX_PARTICLES}, not {arg:?}"
            )),
        "radial-substeps" => arg
            .trim()
            .parse()
            .ok()
            .filter(|n| (1..=MAX_SUBSTEPS).contains(n))
            .map(RadialStep::Substeps)
            .ok_or(format!(
                "{verb} needs a count from 1 to {MAX_SUBSTEPS}, not {arg:?}"
            )),
        "radial-friction" => unit(verb, arg).map(RadialStep::Friction),
        "radial-stiffness" => unit(verb, arg).map(RadialStep::Stiffness),
        "radial-scene" => args::on_off(verb, arg).map(RadialStep::Scene),
        "radial-settle" => arg
            .trim()
            .parse()
            .ok()
            .filter(|&n| n <= MAX_SETTLE)
            .map(RadialStep::Settle)
            .ok_or(format!(
                "{verb} needs a step count up to {MAX_SETTLE}, not {arg:?}"
            )),
        "radial-reset" => Ok(RadialStep::Reset),
        "radial-alternatives" => Ok(RadialStep::Alternatives),
        "radial-cylinders" => match arg {
            "translucent" => Ok(RadialStep::Cylinders(true)),
            "wire" => Ok(RadialStep::Cylinders(false)),
            _ => Err(format!("{verb} needs translucent or wire, not {arg:?}")),
        },
        "radial-export-unwrap" => crate::app::shell::export::figure_target(arg)
            .map(|(path, factor, caption)| RadialStep::Export(path, factor, caption)),
        _ => return None,
    })
}

impl Mode for RadialMode {
    fn name(&self) -> &'static str {
        "radial"
    }

    fn title(&self) -> &'static str {
        "Radial fields"
    }

    fn panels(&self) -> Panels {
        // The unwrap has the bottom panel's image column: it never hides
        // the character.
        Panels {
            inspector: false,
            slice: true,
            profiler: true,
        }
    }

    fn file_kind(&self) -> Option<FileKind> {
        Some(FileKind {
            what: "Character",
            extensions: &["glb", "gltf"],
        })
    }

    fn open_file(&mut self, _shell: &mut Shell, path: std::path::PathBuf) -> ModeRequest {
        self.opened = Some(path);
        ModeRequest::Activate
    }

    fn activate(&mut self, _shell: &mut Shell) {
        self.framed = false;
        self.dirty = true;
        self.last_frame = None;
    }

    fn deactivate(&mut self, shell: &mut Shell) {
        shell.viewport.set_translucent(&[]);
    }

    fn update(&mut self, shell: &mut Shell) {
        if let Some(path) = self.opened.take() {
            match self.open_character(&path) {
                Ok(note) => shell.notify(note, false),
                Err(e) => shell.notify(
                    format!("could not open: {e} — the previous character is kept"),
                    true,
                ),
            }
        }
        self.run_frame(shell);
        self.sort_cylinders(shell);
    }

    fn busy(&self) -> bool {
        self.dirty
    }

    fn toggle_pause(&mut self) -> bool {
        self.paused = !self.paused;
        true
    }

    fn side_panel_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui) {
        panel::panel_ui(self, shell, ui);
    }

    fn viewport_ui(
        &mut self,
        shell: &mut Shell,
        ui: &mut egui::Ui,
        _picked: Option<Option<usize>>,
    ) {
        if self.character.is_some() {
            let key = draw::key(self.scene.is_some() && self.show_scene);
            crate::app::shell::legend::keys_ui(ui, shell, &[key]);
        }
        caption_ui(
            ui,
            "Radial fields (Friston & Steed 2019): one per bone, rasterised every frame",
        );
    }

    fn slice_ui(&mut self, _shell: &mut Shell, ui: &mut egui::Ui) {
        let n = (self.params.n_theta * self.params.n_z) as usize;
        match self.values.get(self.bone * n..(self.bone + 1) * n) {
            Some(values) => {
                let u = self.unwrap(self.bone, values);
                unwrap_view::unwrap_ui(ui, &mut self.unwrap_image, &u);
            }
            None => {
                ui.label("The selected bone's unwrap shows here once its field is rasterised.");
            }
        }
    }
}

impl Steps for RadialMode {
    type Step = RadialStep;
    const TABLE: StepTable<Self, RadialStep> =
        StepTable::new(STEPS, parse, |m, _, step| m.apply(step));

    fn outputs(verb: &str, arg: &str) -> Vec<(PathBuf, Format)> {
        super::figure_output("radial-export-unwrap", verb, arg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_radial_steps() {
        assert_eq!(parse("radial", ""), Some(Ok(RadialStep::Show)));
        assert_eq!(
            parse("radial-alternatives", ""),
            Some(Ok(RadialStep::Alternatives))
        );
        assert_eq!(
            parse("radial-res", "64x32"),
            Some(Ok(RadialStep::Resolution(64, 32)))
        );
        assert_eq!(
            parse("radial-bone", "forearm.l"),
            Some(Ok(RadialStep::Bone("forearm.l".into())))
        );
        assert_eq!(parse("radial-time", "1.5"), Some(Ok(RadialStep::Time(1.5))));
        assert!(matches!(parse("radial-res", "64"), Some(Err(_))));
        assert!(matches!(parse("radial-time", "inf"), Some(Err(_))));
        assert_eq!(parse("tritri", "tori"), None);
        assert_eq!(
            parse("radial-particles", "500"),
            Some(Ok(RadialStep::Particles(500)))
        );
        assert!(matches!(parse("radial-particles", "20001"), Some(Err(_))));
        assert_eq!(
            parse("radial-substeps", "4"),
            Some(Ok(RadialStep::Substeps(4)))
        );
        assert!(matches!(parse("radial-substeps", "0"), Some(Err(_))));
        assert_eq!(
            parse("radial-friction", "0.3"),
            Some(Ok(RadialStep::Friction(0.3)))
        );
        assert!(matches!(parse("radial-friction", "1.5"), Some(Err(_))));
        assert!(matches!(parse("radial-stiffness", "-0.1"), Some(Err(_))));
        assert_eq!(
            parse("radial-cylinders", "wire"),
            Some(Ok(RadialStep::Cylinders(false)))
        );
        assert!(matches!(parse("radial-cylinders", "solid"), Some(Err(_))));
        assert!(matches!(parse("radial-open", ""), Some(Err(_))));
        let mut m = RadialMode::default();
        assert!(m.apply(RadialStep::Resolution(63, 32)).is_err(), "odd θ");
        assert!(m.apply(RadialStep::Bone("nose".into())).is_err());
        assert!(m.apply(RadialStep::Bone("shin.r".into())).is_ok());
        assert_eq!(m.character.as_ref().unwrap().field_name(m.bone), "shin.r");
    }
}
