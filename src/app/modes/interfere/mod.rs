//! The interference mode: image-space interference detection by stencil ray
//! counting ([`crate::stages::interfere`], Knott 2003 ch. 4) on a scene
//! of many objects — boxes, or boxes mixed with tori and `spot` — at seeded
//! random poses, any one of them posed by sliders (the paper's figures
//! 4.13–4.14).
//!
//! The viewport shows every object in one merged mesh, grey-blue when apart, red when in an
//! interfering pair (the selected one lighter), and the localised points
//! (§4.5.5) as green crosses. The right panel shows the read-back images
//! live — stencil counts in false colour with a legend and per-class pixel
//! counts, edge depth, and the three identity images (Alg. 2–4) — with the
//! pixel under the mouse described, and "verify vs CPU" compares the
//! counts with the CPU reference. "occlusion queries" mode reads no
//! pixels (Alg. 5): only the pairs and the timing come back. "bounding-box
//! culling" (on by default, exact: [`crate::stages::interfere::CullPlan`])
//! draws each object only where its box meets another's; the panel shows
//! how many triangles and edges the passes drew. "backend" picks the
//! implementation: the stencil passes, the compute backend (the same rays
//! and counts without the rasteriser) or the CPU reference.
//!
//! A run renders into small viewports and takes milliseconds, so it runs
//! on the UI thread whenever an input changes (`run`). The controls are
//! in `panel`, the images in `images`.

use std::path::PathBuf;
use std::sync::Arc;

mod images;
mod panel;
mod run;

use eframe::egui;
use glam::Vec3;

use super::{Mode, ModeRequest, Panels, StepDoc, StepTable, Steps, args, step};
use crate::app::shell::Shell;
use crate::app::shell::image_view::ImageView;
use crate::io::Format;
use crate::mesh::Mesh;
use crate::stages::interfere::images::ImageKind;
use crate::stages::interfere::scenes::{self, Placement, Shapes};
use crate::stages::interfere::{
    Backend, Identification, InterferenceGpu, InterferenceRun, InterferenceScene,
    InterferenceSummary, Localisation, ViewAxis,
};

/// Viewport sizes the slider offers.
const RESOLUTIONS: std::ops::RangeInclusive<u32> = 16..=2048;
const MAX_OBJECTS: usize = 500;

/// Read the images back (Alg. 2–4) or only the occlusion queries (Alg. 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ReadMode {
    #[default]
    ReadPixels,
    OcclusionQueries,
}

impl ReadMode {
    fn from_name(name: &str) -> Option<ReadMode> {
        match name {
            "read-pixels" | "pixels" => Some(ReadMode::ReadPixels),
            "occlusion" | "queries" => Some(ReadMode::OcclusionQueries),
            _ => None,
        }
    }
}

/// One run over the chosen axes, and what it found.
struct Outcome {
    scene: InterferenceScene,
    runs: Vec<InterferenceRun>,
    summary: InterferenceSummary,
    located: Localisation,
    wall_ms: f64,
    gpu_ms: Option<f64>,
}

/// The mode's state.
pub struct InterfereMode {
    shapes: Shapes,
    count: usize,
    seed: u64,
    /// Meshes of `shapes` (built once per choice).
    meshes: Option<(Shapes, Arc<Vec<Mesh>>)>,
    placements: Vec<Placement>,
    /// The inputs `placements` were generated from.
    placed: Option<(Shapes, usize, u64)>,
    selected: usize,
    resolution: u32,
    /// Edge offset in thousandths of the scene's diagonal.
    offset_permille: f32,
    axes: [bool; 3],
    mode: ReadMode,
    cull: bool,
    identification: Identification,
    backend: Backend,
    image: ImageKind,
    /// Which run's images are shown.
    image_run: usize,
    gpu: Option<Arc<InterferenceGpu>>,
    result: Option<Outcome>,
    image_view: ImageView,
    dirty: bool,
    redraw: bool,
    framed: Option<(Shapes, usize, u64)>,
    error: Option<String>,
    /// The shown image against the CPU reference, with its run and view.
    verified: Option<(usize, String)>,
}

/// What a run depends on besides the poses: shapes, count, seed,
/// resolution, edge offset, axes, read mode, culling, identification and
/// backend.
type Inputs = (
    Shapes,
    usize,
    u64,
    u32,
    f32,
    [bool; 3],
    ReadMode,
    (bool, Identification, Backend),
);

impl Default for InterfereMode {
    fn default() -> Self {
        InterfereMode {
            shapes: Shapes::Boxes,
            count: 40,
            seed: 1,
            meshes: None,
            placements: Vec::new(),
            placed: None,
            selected: 0,
            resolution: 256,
            offset_permille: 1.0,
            axes: [false, false, true],
            mode: ReadMode::ReadPixels,
            cull: true,
            identification: Identification::default(),
            backend: Backend::Stencil,
            image: ImageKind::Counts,
            image_run: 0,
            gpu: None,
            result: None,
            image_view: ImageView::default(),
            dirty: false,
            redraw: false,
            framed: None,
            error: None,
            verified: None,
        }
    }
}

impl InterfereMode {
    /// A random scene (script `interfere:random-boxes`,
    /// `interfere:random-mixed`).
    fn activate_scene(&mut self, name: &str) -> Result<(), String> {
        let shapes = name
            .strip_prefix("random-")
            .and_then(Shapes::from_name)
            .ok_or(format!(
                "unknown interference scene {name} (random-boxes, random-mixed)"
            ))?;
        self.shapes = shapes;
        self.dirty = true;
        Ok(())
    }

    fn set_count(&mut self, count: usize) -> Result<(), String> {
        if !(1..=MAX_OBJECTS).contains(&count) {
            return Err(format!(
                "interference scene: {count} objects (1 to {MAX_OBJECTS})"
            ));
        }
        self.count = count;
        self.dirty = true;
        Ok(())
    }

    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
        self.dirty = true;
    }

    fn set_resolution(&mut self, res: u32) -> Result<(), String> {
        if !RESOLUTIONS.contains(&res) {
            return Err(format!(
                "interference viewport {res}² (from {} to {})",
                RESOLUTIONS.start(),
                RESOLUTIONS.end()
            ));
        }
        self.resolution = res;
        self.dirty = true;
        Ok(())
    }

    /// `x`, `y`, `z` or a combination (`xyz`, `x,z`).
    fn set_axes(&mut self, text: &str) -> Result<(), String> {
        let mut axes = [false; 3];
        for c in text.chars().filter(|c| !matches!(c, ',' | ' ')) {
            let axis = ViewAxis::parse(&c.to_string()).ok_or(format!(
                "interference axes {text:?}: {c:?} is not x, y or z"
            ))?;
            axes[ViewAxis::ALL.iter().position(|&a| a == axis).unwrap_or(0)] = true;
        }
        if axes == [false; 3] {
            return Err(format!("interference axes {text:?}: none given"));
        }
        self.axes = axes;
        self.dirty = true;
        Ok(())
    }

    fn set_mode(&mut self, name: &str) -> Result<(), String> {
        self.mode = ReadMode::from_name(name).ok_or(format!(
            "unknown interference mode {name} (read-pixels, occlusion)"
        ))?;
        self.dirty = true;
        Ok(())
    }

    fn set_backend(&mut self, name: &str) -> Result<(), String> {
        self.backend = Backend::from_name(name).ok_or(format!(
            "unknown interference backend {name} (stencil, compute, cpu)"
        ))?;
        self.dirty = true;
        Ok(())
    }

    fn set_image(&mut self, name: &str) -> Result<(), String> {
        self.image = match name {
            "counts" | "stencil" => ImageKind::Counts,
            "depth" => ImageKind::EdgeDepth,
            "ids" => ImageKind::EdgeObjects,
            "penetrating" => ImageKind::Penetrating,
            "penetrated" => ImageKind::Penetrated,
            _ => {
                return Err(format!(
                    "unknown interference image {name} (counts, depth, ids, penetrating, penetrated)"
                ));
            }
        };
        Ok(())
    }

    fn select(&mut self, object: usize) -> Result<(), String> {
        if object >= self.count {
            return Err(format!(
                "no object {object}: the scene has {} (from 0)",
                self.count
            ));
        }
        self.selected = object;
        self.redraw = true;
        Ok(())
    }

    /// Compares every run's counts with the CPU reference (script
    /// `interfere-verify`); an error names the first differing pixel.
    fn verify(&mut self) -> Result<String, String> {
        let r = self
            .result
            .as_ref()
            .ok_or("no interference run to verify")?;
        let mut lines = Vec::new();
        for run in &r.runs {
            let image = run
                .image
                .as_ref()
                .ok_or("occlusion-query mode read no pixels")?;
            lines.push(images::verify_image(&r.scene, image, run.cull.as_ref())?);
        }
        let text = lines.join("; ");
        self.verified = Some((self.image_run, text.clone()));
        Ok(text)
    }

    /// Moves the selected object (script `interfere-move:x,y,z`).
    fn move_selected(&mut self, to: Vec3) -> Result<(), String> {
        self.place();
        let p = self
            .placements
            .get_mut(self.selected)
            .ok_or("no object selected")?;
        p.translation = to;
        self.dirty = true;
        Ok(())
    }

    /// What a run depends on besides the poses.
    fn inputs(&self) -> Inputs {
        (
            self.shapes,
            self.count,
            self.seed,
            self.resolution,
            self.offset_permille,
            self.axes,
            self.mode,
            (self.cull, self.identification, self.backend),
        )
    }

    fn axes(&self) -> Vec<ViewAxis> {
        ViewAxis::ALL
            .into_iter()
            .zip(self.axes)
            .filter_map(|(a, on)| on.then_some(a))
            .collect()
    }

    fn meshes(&mut self) -> Arc<Vec<Mesh>> {
        match &self.meshes {
            Some((s, m)) if *s == self.shapes => m.clone(),
            _ => {
                let m = Arc::new(self.shapes.meshes(3));
                self.meshes = Some((self.shapes, m.clone()));
                m
            }
        }
    }

    /// New random placements when the shapes, count or seed changed.
    fn place(&mut self) {
        let key = (self.shapes, self.count, self.seed);
        if self.placed != Some(key) {
            let shapes = self.meshes().len();
            self.placements =
                scenes::placements(self.count, shapes, self.seed, scenes::Layout::DENSE);
            self.placed = Some(key);
            self.selected = self.selected.min(self.count - 1);
        }
    }
}

/// The interference mode's script steps.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum InterfereStep {
    /// `interfere:random-boxes|random-mixed`: show the mode with a random
    /// scene (boxes; or boxes, tori and spot).
    Scene(String),
    /// `interfere-count:N`: number of objects.
    Count(usize),
    /// `interfere-seed:N`: seed of the random poses.
    Seed(u64),
    /// `interfere-res:N`: viewport resolution (square).
    Resolution(u32),
    /// `interfere-axis:x|y|z|xyz…`: view axes.
    Axes(String),
    /// `interfere-mode:read-pixels|occlusion` (queries only).
    Mode(String),
    /// `interfere-backend:stencil|compute|cpu`.
    Backend(String),
    /// `interfere-image:NAME`: counts, depth, ids, penetrating, penetrated.
    Image(String),
    /// `interfere-select:N`: the object the pose sliders move.
    Select(usize),
    /// `interfere-move:x,y,z`: move the selected object.
    Move(Vec3),
    /// `interfere-verify`: compare the counts with the CPU reference;
    /// fails on a difference.
    Verify,
    /// `export-image:PATH[@2x][+caption]`: the shown image with its key.
    Export(std::path::PathBuf, u32, bool),
}

/// This mode's script steps, for `--script help`.
const STEPS: &[StepDoc] = &[
    step(
        "interfere",
        "SCENE",
        "start a scene: random-boxes or random-mixed",
    ),
    step("interfere-count", "N", "the number of objects"),
    step("interfere-seed", "N", "the scene's random seed"),
    step("interfere-res", "N", "the images' resolution"),
    step(
        "interfere-axis",
        "AXES",
        "view axes: x, y, z or a combination (xz)",
    ),
    step(
        "interfere-mode",
        "read-pixels|occlusion",
        "how interference is read back",
    ),
    step(
        "interfere-backend",
        "stencil|compute|cpu",
        "rendering passes, compute units, or the CPU reference",
    ),
    step(
        "interfere-image",
        "NAME",
        "the image shown: counts, depth, ids, penetrating, penetrated",
    ),
    step(
        "export-image",
        "PATH[@1x|@2x|@4x][+caption]",
        "save the shown image at 1×, 2× or 4× with its key and axes (and a caption)",
    ),
    step("interfere-select", "K", "select object K"),
    step("interfere-move", "X,Y,Z", "move the selected object"),
    step("interfere-verify", "", "check against the CPU reference"),
];

fn parse(verb: &str, arg: &str) -> Option<Result<InterfereStep, String>> {
    let need = |what: &str| args::need(verb, arg, what);
    let whole = "a whole number";
    Some(match verb {
        "interfere" => need("a scene: random-boxes or random-mixed").map(InterfereStep::Scene),
        "interfere-count" => args::number(verb, arg, whole).map(InterfereStep::Count),
        "interfere-seed" => args::number(verb, arg, whole).map(InterfereStep::Seed),
        "interfere-res" => args::number(verb, arg, whole).map(InterfereStep::Resolution),
        "interfere-axis" => need("x, y, z or a combination").map(InterfereStep::Axes),
        "interfere-mode" => need("read-pixels or occlusion").map(InterfereStep::Mode),
        "interfere-backend" => need("stencil, compute or cpu").map(InterfereStep::Backend),
        "interfere-image" => need("an image name").map(InterfereStep::Image),
        "export-image" => crate::app::shell::export::figure_target(arg)
            .map(|(path, factor, caption)| InterfereStep::Export(path, factor, caption)),
        "interfere-select" => args::number(verb, arg, whole).map(InterfereStep::Select),
        "interfere-move" => args::vec3(verb, arg).map(InterfereStep::Move),
        "interfere-verify" => Ok(InterfereStep::Verify),
        _ => return None,
    })
}

impl InterfereMode {
    fn apply(&mut self, shell: &mut Shell, step: InterfereStep) -> Result<ModeRequest, String> {
        match step {
            InterfereStep::Scene(scene) => {
                self.activate_scene(&scene)?;
                return Ok(ModeRequest::Activate);
            }
            InterfereStep::Count(n) => self.set_count(n)?,
            InterfereStep::Seed(seed) => self.set_seed(seed),
            InterfereStep::Resolution(res) => self.set_resolution(res)?,
            InterfereStep::Axes(axes) => self.set_axes(&axes)?,
            InterfereStep::Mode(mode) => self.set_mode(&mode)?,
            InterfereStep::Backend(backend) => self.set_backend(&backend)?,
            InterfereStep::Image(image) => self.set_image(&image)?,
            InterfereStep::Select(k) => self.select(k)?,
            InterfereStep::Move(to) => self.move_selected(to)?,
            InterfereStep::Verify => {
                let text = self.verify()?;
                shell.notify(text, false);
            }
            InterfereStep::Export(path, factor, caption) => {
                images::export_image(self, &path, factor, caption)?
            }
        }
        Ok(ModeRequest::Stay)
    }
}

impl Mode for InterfereMode {
    fn name(&self) -> &'static str {
        "interfere"
    }

    fn old_names(&self) -> &'static [&'static str] {
        &["interference"]
    }

    fn title(&self) -> &'static str {
        "Interference"
    }

    fn panels(&self) -> Panels {
        // The right panel shows the read-back images.
        Panels {
            inspector: true,
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
        self.dirty
    }

    fn side_panel_ui(&mut self, _shell: &mut Shell, ui: &mut egui::Ui) {
        panel::controls_ui(self, ui);
    }

    fn inspector_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui) {
        images::images_ui(self, shell, ui);
    }

    fn viewport_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui, _: Option<Option<usize>>) {
        if self.result.is_some() {
            crate::app::shell::legend::keys_ui(ui, shell, &[run::key(self.selected)]);
        }
    }
}

impl Steps for InterfereMode {
    type Step = InterfereStep;
    const TABLE: StepTable<Self, InterfereStep> = StepTable::new(STEPS, parse, Self::apply);

    fn outputs(verb: &str, arg: &str) -> Vec<(PathBuf, Format)> {
        super::figure_output("export-image", verb, arg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_interference_steps() {
        let steps: Vec<InterfereStep> = [
            ("interfere", "random-boxes"),
            ("interfere-count", "80"),
            ("interfere-res", "256"),
            ("interfere-axis", "xz"),
            ("interfere-mode", "occlusion"),
            ("interfere-backend", "compute"),
            ("interfere-select", "3"),
            ("interfere-move", "1,2,3"),
        ]
        .into_iter()
        .map(|(verb, arg)| parse(verb, arg).unwrap().unwrap())
        .collect();
        assert_eq!(
            steps,
            vec![
                InterfereStep::Scene("random-boxes".into()),
                InterfereStep::Count(80),
                InterfereStep::Resolution(256),
                InterfereStep::Axes("xz".into()),
                InterfereStep::Mode("occlusion".into()),
                InterfereStep::Backend("compute".into()),
                InterfereStep::Select(3),
                InterfereStep::Move(Vec3::new(1.0, 2.0, 3.0)),
            ]
        );
        assert!(matches!(parse("interfere-count", "-1"), Some(Err(_))));
        assert!(matches!(parse("interfere-res", "big"), Some(Err(_))));
        assert_eq!(parse("tritri", "tori"), None);
    }
}
