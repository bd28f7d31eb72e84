//! The viewer's modes. One mode at a time owns the viewport: it fills the
//! left panel, draws the 3D view, says which of the panels around it apply
//! (inspector, slice, profiler) and owns its script steps.
//!
//! A mode sees the viewer only through the [`Shell`]: the viewport, the
//! banner, the GPU contexts, the job runner, the shared settings and the
//! open mesh with its uniform field. Modes do not know each other; [`all`]
//! is the one place that lists them, so a new mode is one folder here and
//! one line there.
//!
//! * [`field`]: the uniform signed distance field of the open mesh — its
//!   cells, slice, inspector and verification.
//! * [`adaptive`]: the adaptive (octree) field of the open mesh.
//! * [`collide`]: the rigid-body demonstrator with sampling points and
//!   contacts.
//! * [`tri_tri`]: two models and their exact triangle–triangle contacts.
//! * [`interference`]: image-space interference of many objects.
//! * [`pipeline`]: many bodies falling and settling, the full collision
//!   pipeline every frame.
//! * [`particles`]: closed-form particles, impact maps and decals.

pub mod adaptive;
pub mod args;
pub mod collide;
pub mod field;
pub mod interference;
pub mod particles;
pub mod pipeline;
pub mod radial;
pub mod tri_tri;

use std::path::PathBuf;

use eframe::egui;

use super::shell::Shell;
pub use super::shell::chrome::Panels;
use crate::io::Format;

/// Every mode, in the order of the mode switch; the first one is shown at
/// start and when a mode gives the viewport back.
pub fn all() -> Vec<Box<dyn Mode>> {
    vec![
        Box::new(field::Field::default()),
        Box::new(adaptive::Adaptive::default()),
        Box::new(collide::Collide::default()),
        Box::new(tri_tri::TriTri::default()),
        Box::new(interference::Interference::default()),
        Box::new(pipeline::PipelineMode::default()),
        Box::new(radial::RadialMode::default()),
        Box::new(particles::ParticlesMode::default()),
    ]
}

/// One script step for `collidoscope --script help`: `verb:arg`, and what
/// it does. Each mode lists its steps beside its step parser.
#[derive(Clone, Copy, Debug)]
pub struct StepDoc {
    pub verb: &'static str,
    /// The argument after `:`, empty for none; `[…]` when it may be left out.
    pub arg: &'static str,
    pub what: &'static str,
}

/// A [`StepDoc`] in a table.
pub const fn step(verb: &'static str, arg: &'static str, what: &'static str) -> StepDoc {
    StepDoc { verb, arg, what }
}

/// What a script step asks of the mode switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModeRequest {
    /// Leave the active mode as it is.
    Stay,
    /// Make the step's mode the active one (e.g. `tritri:tori`).
    Activate,
    /// Give the viewport back to the first mode (e.g. `adaptive:off`).
    Leave,
}

/// One viewer mode.
pub trait Mode {
    /// The name in `mode:NAME` and in the profiler's runs.
    fn name(&self) -> &'static str;
    /// The label of the mode's tab.
    fn title(&self) -> &'static str;
    /// The panels beside the viewport this mode fills; the others are
    /// hidden while it is active.
    fn panels(&self) -> Panels;
    /// The mode takes the viewport over: everything it shows is uploaded
    /// on its next [`Mode::update`].
    fn activate(&mut self, shell: &mut Shell);
    /// Another mode takes the viewport over (a mode with nothing running
    /// in the background keeps this default).
    fn deactivate(&mut self, _shell: &mut Shell) {}
    /// Once a frame while active, after its panel: polls its jobs, runs
    /// what changed and uploads its drawing.
    fn update(&mut self, shell: &mut Shell);
    /// Work a script step waits for before it runs (none: the default,
    /// for modes that compute within their frame).
    fn busy(&self) -> bool {
        false
    }
    /// Space: pauses or plays what the mode animates; `false` when it has
    /// nothing to pause (the default).
    fn toggle_pause(&mut self) -> bool {
        false
    }
    /// Files dropped on the window while this mode is shown: true when the
    /// mode took them (otherwise the shell opens the last one as the mesh).
    fn files_dropped(&mut self, _shell: &mut Shell, _paths: &[std::path::PathBuf]) -> bool {
        false
    }
    /// The left panel.
    fn side_panel_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui);
    /// The right panel; called only when [`Mode::panels`] names it (the
    /// others keep this default).
    fn inspector_ui(&mut self, _shell: &mut Shell, _ui: &mut egui::Ui) {}
    /// The slice in the bottom panel; called only when [`Mode::panels`]
    /// names it.
    fn slice_ui(&mut self, _shell: &mut Shell, _ui: &mut egui::Ui) {}
    /// Over the 3D view (legends, captions), with the viewport's click:
    /// `Some(cell)` for a click (`Some(None)` on nothing). A mode whose
    /// legend is in its panel and that picks nothing keeps this default.
    fn viewport_ui(
        &mut self,
        _shell: &mut Shell,
        _ui: &mut egui::Ui,
        _picked: Option<Option<usize>>,
    ) {
    }
    /// This mode's script steps, for `--script help`.
    fn steps(&self) -> &'static [StepDoc];
    /// `Some` when `verb` is one of this mode's script steps: `Ok` when its
    /// argument is well formed.
    fn parse_step(&self, verb: &str, arg: &str) -> Option<Result<(), String>>;
    /// Performs one of this mode's steps (parsed by [`Mode::parse_step`]).
    fn apply_step(
        &mut self,
        shell: &mut Shell,
        verb: &str,
        arg: &str,
    ) -> Result<ModeRequest, String>;
    /// The files one of this mode's steps writes, for the session's output
    /// plan (`crate::app::script::output_plan`); none by default.
    fn step_outputs(&self, _verb: &str, _arg: &str) -> Vec<(PathBuf, Format)> {
        Vec::new()
    }
}

/// The PNG a figure export step `export_verb` (argument
/// `PATH[@2x][+caption]`) writes, for [`Mode::step_outputs`].
pub fn figure_output(export_verb: &str, verb: &str, arg: &str) -> Vec<(PathBuf, Format)> {
    if verb != export_verb {
        return Vec::new();
    }
    crate::app::shell::export::figure_target(arg)
        .map(|(path, ..)| vec![(path, Format::PNG)])
        .unwrap_or_default()
}

/// A mode's typed step again, for [`Mode::apply_step`]: `parsed` is what
/// its parser gives for a step [`Mode::parse_step`] accepted.
pub fn parsed_step<T>(
    parsed: Option<Result<T, String>>,
    mode: &str,
    verb: &str,
) -> Result<T, String> {
    parsed.unwrap_or_else(|| Err(format!("`{verb}` is not a step of the {mode} mode")))
}
