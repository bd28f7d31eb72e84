//! The triangle–triangle mode: two models, model A fixed at the origin and
//! model B posed by sliders, queried with the exact triangle–triangle stage
//! ([`crate::stages::tritri`]) on any backend every time something changes.
//!
//! The viewport shows both models in one merged mesh, coloured per triangle
//! (A blue-grey, B sand; triangles of colliding pairs red on A and orange on
//! B), and the intersection segments as bright green lines (drawn as a thin
//! bundle of parallel lines so they show through the surfaces they lie on).
//!
//! Small queries (up to `query::DIRECT_PAIRS` triangle pairs, e.g. the tori) run
//! on the UI thread as soon as a slider moves; larger ones (rocker arms, a
//! loaded mesh) and model loading run as a [`Job`], so the UI stays live.

mod draw;
mod panel;
mod query;

use std::sync::Arc;

use eframe::egui;
use glam::{EulerRot, Quat, Vec3};

use super::{Mode, ModeRequest, Panels, StepDoc, StepTable, Steps, args, step};
use crate::app::shell::Shell;
use crate::scene::Job;
use crate::stages::tritri::{Backend, Pose, TriModel, TritriGpu, TritriParams, TritriResult};

/// Where a model comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSource {
    /// A 400-triangle torus (ring radius 1, tube radius 0.25, around y).
    Torus,
    Sample(String),
    /// The mesh the viewer has open.
    Current,
}

impl ModelSource {
    fn label(&self) -> String {
        match self {
            ModelSource::Torus => "torus (400 triangles)".into(),
            ModelSource::Sample(s) => s.clone(),
            ModelSource::Current => "current mesh".into(),
        }
    }
}

/// Ready-made scenes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriScene {
    /// Two tori linked like chain links: bounding boxes overlap heavily but
    /// the surfaces stay apart until B is pushed in (the worst case).
    InterlacedTori,
    TwoRockerArms,
}

impl TriScene {
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "tori" => Some(TriScene::InterlacedTori),
            "rocker" => Some(TriScene::TwoRockerArms),
            _ => None,
        }
    }
}

/// A ready scene's model (A and B alike) and B's pose. The tori link
/// like a chain with their tubes cut into each other (B 0.45 along x:
/// each tube's centre circle passes 0.45 from the other's, less than the
/// two radii of 0.25), so the first view shows colliding pairs; at 0.7
/// they are linked without touching.
fn scene_models(scene: TriScene) -> (ModelSource, PoseSliders) {
    match scene {
        TriScene::InterlacedTori => (
            ModelSource::Torus,
            PoseSliders {
                translation: [0.45, 0.0, 0.0],
                angles: [0.0, 90.0, 0.0],
            },
        ),
        TriScene::TwoRockerArms => (
            ModelSource::Sample("rocker-arm".into()),
            PoseSliders {
                translation: [0.1, 0.25, 0.2],
                angles: [0.0, 90.0, 30.0],
            },
        ),
    }
}

/// Model B's pose as the sliders show it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PoseSliders {
    translation: [f32; 3],
    /// Yaw (about y), pitch (about x), roll (about z), degrees.
    angles: [f32; 3],
}

impl PoseSliders {
    fn pose(&self) -> Pose {
        let [yaw, pitch, roll] = self.angles.map(f32::to_radians);
        Pose::new(
            Vec3::from(self.translation),
            Quat::from_euler(EulerRot::YXZ, yaw, pitch, roll),
        )
    }
}

/// The models and B's pose a query ran on: the per-backend table holds
/// the rows of one scene only, so rows of different scenes never read as
/// backends that disagree.
type SceneKey = (ModelSource, ModelSource, PoseSliders);

/// One query's time, for the per-backend table.
#[derive(Clone, Debug)]
struct BackendTime {
    scene: SceneKey,
    backend: Backend,
    all_pairs: bool,
    wall_ms: f64,
    gpu_ms: Option<f64>,
    collides: bool,
    pairs: Option<usize>,
}

type Models = (Arc<TriModel>, Arc<TriModel>);

/// What a query job gives back.
struct Outcome {
    models: Models,
    key: (ModelSource, ModelSource),
    scene: SceneKey,
    result: Option<TritriResult>,
    /// "time all backends": one row per backend.
    times: Vec<BackendTime>,
}

/// The mode's state.
#[derive(Default)]
pub struct TritriMode {
    source_a: Option<ModelSource>,
    source_b: Option<ModelSource>,
    pose_b: Option<PoseSliders>,
    backend: Option<Backend>,
    all_pairs: Option<bool>,
    models: Option<(ModelSource, ModelSource, Models)>,
    gpu: Option<Arc<TritriGpu>>,
    job: Option<Job<Outcome>>,
    /// Inputs changed since the last query.
    dirty: bool,
    /// The models the camera was last framed on.
    framed: Option<(ModelSource, ModelSource)>,
    /// The drawing must be uploaded again (a new result).
    redraw: bool,
    result: Option<TritriResult>,
    /// B's pose of `result`.
    result_pose: Pose,
    times: Vec<BackendTime>,
    error: Option<String>,
}

impl TritriMode {
    fn source_a(&self) -> ModelSource {
        self.source_a.clone().unwrap_or(ModelSource::Torus)
    }
    fn source_b(&self) -> ModelSource {
        self.source_b.clone().unwrap_or(ModelSource::Torus)
    }
    fn sliders(&self) -> PoseSliders {
        self.pose_b
            .unwrap_or(scene_models(TriScene::InterlacedTori).1)
    }
    fn backend(&self) -> Backend {
        self.backend.unwrap_or(Backend::Cpu)
    }
    fn params(&self) -> TritriParams {
        TritriParams {
            all_pairs: self.all_pairs.unwrap_or(true),
            ..Default::default()
        }
    }

    /// A ready scene (the panel's buttons, script `tritri:`).
    fn activate_scene(&mut self, scene: TriScene) {
        let (source, pose) = scene_models(scene);
        self.source_a = Some(source.clone());
        self.source_b = Some(source);
        self.pose_b = Some(pose);
        self.dirty = true;
    }

    /// Moves model B (script `tritri-offset:`).
    fn set_offset(&mut self, offset: Vec3) {
        let mut s = self.sliders();
        s.translation = offset.to_array();
        self.pose_b = Some(s);
        self.dirty = true;
    }

    /// Picks the backend by name (script `tritri-backend:`).
    fn set_backend(&mut self, name: &str) -> Result<(), String> {
        self.backend = Some(Backend::from_name(name).ok_or(format!(
            "unknown triangle–triangle backend {name} (cpu-ref, cpu, gpu-brute, gpu)"
        ))?);
        self.dirty = true;
        Ok(())
    }

    fn apply(&mut self, step: TritriStep) -> Result<ModeRequest, String> {
        match step {
            TritriStep::Scene(scene) => {
                self.activate_scene(TriScene::from_name(&scene).ok_or(format!(
                    "unknown triangle–triangle scene {scene} (tori, rocker)"
                ))?);
                return Ok(ModeRequest::Activate);
            }
            TritriStep::Offset(offset) => self.set_offset(offset),
            TritriStep::Backend(name) => self.set_backend(&name)?,
        }
        Ok(ModeRequest::Stay)
    }
    /// Polls the job, starts a query when inputs changed, uploads the
    /// drawing.
    fn run_frame(&mut self, shell: &mut Shell) {
        if let Some(result) = self.job.as_ref().and_then(Job::poll) {
            self.job = None;
            match result {
                Ok(outcome) => {
                    let (ka, kb) = outcome.key;
                    self.models = Some((ka, kb, outcome.models));
                    if let Some(r) = outcome.result {
                        self.record(shell, r, outcome.scene);
                    }
                    if !outcome.times.is_empty() {
                        self.times = outcome.times;
                    }
                }
                Err(e) => self.error = Some(e.to_string()),
            }
        }
        if self.dirty && self.job.is_none() {
            self.dirty = false;
            self.start_job(shell, false);
        }
        if self.redraw {
            self.redraw = false;
            self.draw(shell);
        }
    }
}

/// The triangle–triangle mode's script steps.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TritriStep {
    /// `tritri:tori|rocker`: show the mode with a ready scene.
    Scene(String),
    /// `tritri-offset:x,y,z`: model B's translation.
    Offset(Vec3),
    /// `tritri-backend:NAME`: cpu-ref, cpu, gpu-brute, gpu.
    Backend(String),
}

/// This mode's script steps, for `--script help`.
const STEPS: &[StepDoc] = &[
    step("tritri", "SCENE", "show two models: tori or rocker"),
    step("tritri-offset", "X,Y,Z", "move the second model"),
    step("tritri-backend", "NAME", "the triangle–triangle backend"),
];

fn parse(verb: &str, arg: &str) -> Option<Result<TritriStep, String>> {
    Some(match verb {
        "tritri" => args::need(verb, arg, "a scene: tori or rocker").map(TritriStep::Scene),
        "tritri-offset" => args::vec3(verb, arg).map(TritriStep::Offset),
        "tritri-backend" => args::need(verb, arg, "a backend").map(TritriStep::Backend),
        _ => return None,
    })
}

impl Mode for TritriMode {
    fn name(&self) -> &'static str {
        "tritri"
    }

    fn old_names(&self) -> &'static [&'static str] {
        &["tri-tri"]
    }

    fn title(&self) -> &'static str {
        "Triangle–triangle"
    }

    fn panels(&self) -> Panels {
        Panels {
            inspector: false,
            slice: false,
            profiler: true,
        }
    }

    fn activate(&mut self, _shell: &mut Shell) {
        self.dirty = true;
        self.framed = None;
    }

    fn update(&mut self, shell: &mut Shell) {
        self.run_frame(shell);
    }

    fn busy(&self) -> bool {
        self.job.is_some() || self.dirty
    }

    fn viewport_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui, _: Option<Option<usize>>) {
        if self.models.is_some() {
            crate::app::shell::legend::keys_ui(ui, shell, &[draw::key()]);
        }
    }

    fn side_panel_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui) {
        panel::panel_ui(self, shell, ui);
    }
}

impl Steps for TritriMode {
    type Step = TritriStep;
    const TABLE: StepTable<Self, TritriStep> =
        StepTable::new(STEPS, parse, |m, _, step| m.apply(step));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mode opens on a scene with something to see: colliding pairs.
    #[test]
    fn the_first_scene_collides() {
        let mode = TritriMode::default();
        let model = TriModel::new(&crate::mesh::torus(20, 10, 1.0, 0.25)).unwrap();
        let r = crate::stages::tritri::query(
            &model,
            Pose::default(),
            &model,
            mode.sliders().pose(),
            &mode.params(),
            Backend::Cpu,
            None,
        )
        .unwrap();
        assert!(
            r.collides && r.contacts.len() >= 4,
            "{} pairs",
            r.contacts.len()
        );
    }

    #[test]
    fn parses_the_tritri_steps() {
        assert_eq!(
            parse("tritri", "tori"),
            Some(Ok(TritriStep::Scene("tori".into())))
        );
        assert_eq!(
            parse("tritri-offset", "0.5, 0, -1"),
            Some(Ok(TritriStep::Offset(Vec3::new(0.5, 0.0, -1.0))))
        );
        assert_eq!(
            parse("tritri-backend", "gpu"),
            Some(Ok(TritriStep::Backend("gpu".into())))
        );
        assert!(matches!(parse("tritri-offset", "1,2"), Some(Err(_))));
        assert!(matches!(parse("tritri-offset", "1,x,2"), Some(Err(_))));
        assert_eq!(parse("collide", "line"), None);
    }
}
