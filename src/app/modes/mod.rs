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
//! * [`sdf`]: the uniform signed distance field of the open mesh — its
//!   cells, slice, inspector and verification.
//! * [`adaptive`]: the adaptive (octree) field of the open mesh.
//! * [`collide`]: the rigid-body demonstrator with sampling points and
//!   contacts.
//! * [`tritri`]: two models and their exact triangle–triangle contacts.
//! * [`interfere`]: image-space interference of many objects.
//! * [`simulate`]: many bodies falling and settling, the full collision
//!   pipeline every frame.
//! * [`particles`]: closed-form particles, impact maps and decals.

pub mod adaptive;
pub mod args;
pub mod collide;
pub mod interfere;
pub mod particles;
pub mod radial;
pub mod sdf;
pub mod simulate;
pub mod tritri;

use std::borrow::Cow;
use std::path::PathBuf;

use eframe::egui;

use super::shell::Shell;
pub use super::shell::chrome::Panels;
use super::shell::file_picker::FileKind;
use crate::io::Format;

/// Every mode, in the order of the mode switch; the first one is shown at
/// start and when a mode gives the viewport back.
pub fn all() -> Vec<Box<dyn Mode>> {
    vec![
        Box::new(sdf::SdfMode::default()),
        Box::new(adaptive::AdaptiveMode::default()),
        Box::new(collide::CollideMode::default()),
        Box::new(tritri::TritriMode::default()),
        Box::new(interfere::InterfereMode::default()),
        Box::new(simulate::SimulateMode::default()),
        Box::new(radial::RadialMode::default()),
        Box::new(particles::ParticlesMode::default()),
    ]
}

/// The mode `mode:NAME` names: by its name or one of its
/// [`Mode::old_names`].
pub fn named<'m>(modes: &'m [Box<dyn Mode>], name: &str) -> Option<&'m dyn Mode> {
    modes
        .iter()
        .find(|m| m.name() == name || m.old_names().contains(&name))
        .map(|m| &**m)
}

/// A step's verb as it is spelled now: `verb` itself, or, where it begins
/// with a mode's [`Mode::old_step_prefix`] (`pipeline-step`), the same
/// step under the mode's name (`simulate-step`).
pub fn current_verb<'v>(modes: &[Box<dyn Mode>], verb: &'v str) -> Cow<'v, str> {
    for m in modes {
        let Some(old) = m.old_step_prefix() else {
            continue;
        };
        if let Some(rest) = verb.strip_prefix(old)
            && (rest.is_empty() || rest.starts_with('-'))
        {
            return Cow::Owned(format!("{}{rest}", m.name()));
        }
    }
    Cow::Borrowed(verb)
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

/// One viewer mode; its script steps come from its `Steps` table.
pub trait Mode: ModeSteps {
    /// The name in `mode:NAME` and in the profiler's runs.
    fn name(&self) -> &'static str;
    /// Names `mode:NAME` also takes: what the mode was called before it
    /// took its feature's word (none by default).
    fn old_names(&self) -> &'static [&'static str] {
        &[]
    }
    /// The word the mode's steps began with before they took its name:
    /// `OLD:arg` and `OLD-…:arg` still read as `NAME:arg` and `NAME-…:arg`
    /// (none by default).
    fn old_step_prefix(&self) -> Option<&'static str> {
        None
    }
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
    /// Whether the mode shows the open mesh, so that the banner shows the
    /// messages about it (no, by default).
    fn shows_open_mesh(&self) -> bool {
        false
    }
    /// The kind of file (what it is, its extensions in lower case) this
    /// mode opens from File → Open, a drop or the `drop:` step, whichever
    /// mode is shown; none (the default) for a mode that takes no files. A
    /// file no mode takes is opened as the mesh.
    fn file_kind(&self) -> Option<FileKind> {
        None
    }
    /// Takes a file of its [`Mode::file_kind`]: `Activate` when the
    /// mode shows it at once (it takes the viewport), `Stay` when it shows
    /// it the next time it is active.
    fn open_file(&mut self, _shell: &mut Shell, _path: std::path::PathBuf) -> ModeRequest {
        ModeRequest::Stay
    }
    /// Files dropped on the window while this mode is shown: true when the
    /// mode took them (otherwise the last one is opened as any other file).
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
}

/// A mode's script steps: the list `--script help` prints, the parser from
/// `verb:arg` to the mode's own step type (`None` for a verb that is not
/// the mode's), and the function that performs a parsed step. Each mode
/// fills one; the untyped [`ModeSteps`] the script runner calls follow
/// from it.
pub(crate) struct StepTable<M, S> {
    docs: &'static [StepDoc],
    parse: fn(&str, &str) -> Option<Result<S, String>>,
    apply: fn(&mut M, &mut Shell, S) -> Result<ModeRequest, String>,
}

impl<M, S> StepTable<M, S> {
    pub const fn new(
        docs: &'static [StepDoc],
        parse: fn(&str, &str) -> Option<Result<S, String>>,
        apply: fn(&mut M, &mut Shell, S) -> Result<ModeRequest, String>,
    ) -> Self {
        StepTable { docs, parse, apply }
    }
}

/// A mode with a [`StepTable`] of its own step type.
pub(crate) trait Steps: Sized {
    type Step;
    const TABLE: StepTable<Self, Self::Step>;

    /// The files step `verb:arg` writes, for the session's output plan
    /// (`crate::app::script::output_plan`); none by default.
    fn outputs(_verb: &str, _arg: &str) -> Vec<(PathBuf, Format)> {
        Vec::new()
    }
}

/// The script steps of a mode, whatever its step type: what the script
/// parser and the viewer call on the active mode. Every `Steps` mode has
/// them.
pub trait ModeSteps {
    /// This mode's script steps, for `--script help`.
    fn steps(&self) -> &'static [StepDoc];
    /// `Some` when `verb` is one of this mode's script steps: `Ok` when its
    /// argument is well formed.
    fn parse_step(&self, verb: &str, arg: &str) -> Option<Result<(), String>>;
    /// Performs one of this mode's steps (parsed by [`ModeSteps::parse_step`]).
    fn apply_step(
        &mut self,
        shell: &mut Shell,
        verb: &str,
        arg: &str,
    ) -> Result<ModeRequest, String>;
    /// The files one of this mode's steps writes, for the session's output
    /// plan (`crate::app::script::output_plan`).
    fn step_outputs(&self, verb: &str, arg: &str) -> Vec<(PathBuf, Format)>;
}

/// The PNG a figure export step `export_verb` (argument
/// `PATH[@2x][+caption]`) writes, for [`ModeSteps::step_outputs`].
pub fn figure_output(export_verb: &str, verb: &str, arg: &str) -> Vec<(PathBuf, Format)> {
    if verb != export_verb {
        return Vec::new();
    }
    crate::app::shell::export::figure_target(arg)
        .map(|(path, ..)| vec![(path, Format::PNG)])
        .unwrap_or_default()
}

impl<M: Steps + Mode> ModeSteps for M {
    fn steps(&self) -> &'static [StepDoc] {
        M::TABLE.docs
    }

    fn parse_step(&self, verb: &str, arg: &str) -> Option<Result<(), String>> {
        (M::TABLE.parse)(verb, arg).map(|r| r.map(|_| ()))
    }

    fn apply_step(
        &mut self,
        shell: &mut Shell,
        verb: &str,
        arg: &str,
    ) -> Result<ModeRequest, String> {
        let step = (M::TABLE.parse)(verb, arg).unwrap_or_else(|| {
            Err(format!(
                "`{verb}` is not a step of the {} mode",
                self.name()
            ))
        })?;
        (M::TABLE.apply)(self, shell, step)
    }

    fn step_outputs(&self, verb: &str, arg: &str) -> Vec<(PathBuf, Format)> {
        M::outputs(verb, arg)
    }
}
