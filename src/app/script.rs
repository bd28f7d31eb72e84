//! Scripted viewer sessions: a list of steps the viewer performs one after
//! another, for the GUI smoke test and for making the book's screenshots
//! with the app itself. `collidoscope --script "open:spot; compute;
//! filter:inside; screenshot:shot.png; quit"`.
//!
//! The shell's steps (opening meshes, view settings, the camera — `orbit`,
//! `view:+x`, `camera:FILE`, `save-camera:FILE` —, exports, expectations,
//! `mode:NAME`) are [`ScriptStep`]s; every other step belongs
//! to a mode, which parses and runs it ([`super::modes::ModeSteps::parse_step`]):
//! `res`, `backend`, `sign`, `verify`, `verify-threshold`, `pick`, `slice`
//! (field),
//! `adaptive…`, `collide…`, `tritri…`, `interfere…`. A mode's first step
//! (`adaptive`, `collide:SCENE`, `tritri:SCENE`, `interfere:SCENE`) makes it
//! the active mode, as `mode:NAME` does.
//!
//! A step that fails (an unexpected error, an unmet expectation) ends the
//! session with a non-zero exit code. So does an error a step's job shows
//! later (an `open:` or `drop:` of a file that does not load), unless the
//! step after it is `expect-error`.
//!
//! `collidoscope --script help` prints [`help`]: the shell's steps
//! ([`SHELL_STEPS`], beside `parse_step`) and each mode's
//! (`ModeSteps::steps`, beside the mode's parser); a test checks that every
//! step the parsers accept is listed.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::modes::{self, Mode, StepDoc, args, step};
use crate::view::AxisView;

/// One scripted action of the shell, or a step a mode owns.
#[derive(Clone, Debug, PartialEq)]
pub enum ScriptStep {
    /// Open a sample by name, or a file by path as File → Open does (a
    /// field, a scene, a character to the mode that takes it; a mesh).
    Open(String),
    /// `file-picker:EXT|all[@DIR]`: show File → Open's own picker (the
    /// one used where there is no native dialog) for the kind of file
    /// that EXT is, or every kind, listing DIR.
    FilePicker(Option<String>, Option<PathBuf>),
    /// Help → About.
    About,
    /// Drop a file on the window (the same path as a real drag and drop).
    Drop(PathBuf),
    /// Wait until the field (and any comparison) is computed.
    Compute,
    /// `all`, `inside`, `outside` or `band`.
    Filter(String),
    /// `sundholm`, `diverging`, `viridis` or `turbo`.
    ColorMap(String),
    /// The colour range: `data`, `band` or `MIN,MAX`.
    Range(String),
    /// `shaded`, `wireframe`, `shaded+wireframe`, `hidden`.
    MeshMode(String),
    /// Show or hide the cell cloud.
    Cells(bool),
    /// Point size of the cells in pixels.
    PointSize(f32),
    /// The shaded mesh's opacity, 0 < α ≤ 1.
    Opacity(f32),
    /// The cells' clip plane: `off`, or an axis (`x`, `y`, `z`, `-x`, …)
    /// through the grid's centre.
    Clip(String),
    Profiler(bool),
    /// Orbit the camera by (yaw, pitch) degrees.
    Orbit(f32, f32),
    /// `view:+x`: look from one side along an axis (`+x`, `-x`, … `-z`).
    View(AxisView),
    /// `camera:FILE`: use the camera saved as JSON in FILE (a mesh opened
    /// next keeps it, as with `--camera`).
    Camera(PathBuf),
    /// `save-camera:FILE`: write the camera as JSON (what "copy camera" copies).
    SaveCamera(PathBuf),
    /// Save the whole window (the app's own screenshot) as PNG.
    Screenshot(PathBuf),
    /// Save the 3D view at full resolution as PNG.
    ExportView(PathBuf),
    /// `export-figure:PATH[@2x][+caption]`: the 3D view at 1×, 2× or 4×
    /// with its colour bar (and caption).
    ExportFigure(PathBuf, u32, bool),
    /// Export the field as .npy + .json.
    ExportField(PathBuf),
    /// Export the timing history as CSV (and a PNG plot beside it).
    ExportTimings(PathBuf),
    /// `layout:PATH`: write where the last frame drew its panels and keys
    /// (JSON, see `crate::app::shell::layout`).
    Layout(PathBuf),
    /// The last action must have shown an error (bad file) while keeping
    /// the scene.
    ExpectError,
    /// The mesh shown must be this one (sample name or file name).
    ExpectMesh(String),
    /// `mode:NAME`: make a mode the active one.
    Mode(String),
    /// A step one mode owns (`tritri:tori`, `adaptive-depth:6`, …).
    ModeStep(ModeStep),
    /// Let some frames pass.
    Wait(u32),
    Quit,
}

/// A step of a mode, checked by the mode's parser when the script was
/// read; the mode parses it again into its own type when it runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct ModeStep {
    /// [`Mode::name`] of the mode owning the step.
    pub mode: &'static str,
    pub verb: String,
    pub arg: String,
}

/// The shell's steps, for `--script help`.
pub const SHELL_STEPS: &[StepDoc] = &[
    step(
        "open",
        "SAMPLE|PATH",
        "open a sample by name, or a file as File → Open does (a mesh, a field, a scene, a character)",
    ),
    step(
        "file-picker",
        "EXT|all[@DIR]",
        "show File → Open's own picker (where there is no native dialog) for one kind of file or all, listing DIR",
    ),
    step("about", "", "show Help → About"),
    step(
        "drop",
        "PATH",
        "drop a file on the window, as a drag and drop does",
    ),
    step(
        "compute",
        "",
        "wait until the field (and any comparison) is computed",
    ),
    step("filter", "all|inside|outside|band", "which cells are shown"),
    step(
        "colormap",
        "sundholm|diverging|viridis|turbo",
        "the cells' colour map",
    ),
    step(
        "range",
        "data|band|MIN,MAX",
        "the colour range: fit to the field's values, to ± the band, or MIN to MAX",
    ),
    step(
        "mesh",
        "shaded|wireframe|shaded+wireframe|hidden",
        "how the mesh is drawn",
    ),
    step("cells", "[on|off]", "show or hide the cell cloud"),
    step("points", "PIXELS", "point size of the cells"),
    step(
        "opacity",
        "ALPHA",
        "the shaded mesh's opacity (0.05–1): what lies inside shows through",
    ),
    step(
        "clip",
        "off|x|y|z|-x|-y|-z",
        "the cells' clip plane through the grid's centre",
    ),
    step("profiler", "[on|off]", "show or hide the profiler"),
    step("orbit", "YAW,PITCH", "orbit the camera, in degrees"),
    step(
        "view",
        "+x|-x|+y|-y|+z|-z",
        "look along an axis at the whole scene",
    ),
    step("camera", "PATH", "load the camera from a JSON file"),
    step("save-camera", "PATH", "save the camera as JSON"),
    step("screenshot", "PATH", "save the whole window as PNG"),
    step(
        "export-view",
        "PATH",
        "save the 3D view at full resolution as PNG",
    ),
    step(
        "export-figure",
        "PATH[@1x|@2x|@4x][+caption]",
        "save the 3D view at 1×, 2× or 4× its size with the colour bar (and a caption: mesh, quantity, range)",
    ),
    step("export-field", "PATH", "export the field as .npy + .json"),
    step(
        "export-timings",
        "PATH",
        "export the timing history as CSV (and a PNG plot)",
    ),
    step(
        "layout",
        "PATH",
        "write where the last frame drew its panels, the 3D view and its keys (JSON)",
    ),
    step(
        "expect-error",
        "",
        "the step before must have shown an error",
    ),
    step("expect-mesh", "NAME", "the mesh shown must be this one"),
    step(
        "mode",
        "NAME",
        "make a mode the active one (the modes are listed below)",
    ),
    step("wait", "[FRAMES]", "let some frames pass (10 by default)"),
    step("quit", "", "end the session"),
];

/// The text of `collidoscope --script help`: every step with its argument.
pub fn help() -> String {
    let line = |s: &StepDoc| {
        let call = if s.arg.is_empty() {
            s.verb.to_string()
        } else if let Some(optional) = s.arg.strip_prefix('[') {
            format!("{}[:{optional}", s.verb)
        } else {
            format!("{}:{}", s.verb, s.arg)
        };
        format!("  {call:<44} {}\n", s.what)
    };
    let mut text = String::from(
        "A script is a list of steps separated by `;` or new lines, run in order:\n\
         collidoscope --script \"open:spot; compute; screenshot:shot.png; quit\"\n\
         A step that fails ends the session with a non-zero exit code.\n\nViewer steps:\n",
    );
    text.extend(SHELL_STEPS.iter().map(line));
    for mode in modes::all() {
        let old_names: String = mode
            .old_names()
            .iter()
            .map(|old| format!(", or its older name mode:{old}"))
            .collect();
        text += &format!(
            "\nSteps of the {} mode (mode:{}{old_names}):\n",
            mode.title(),
            mode.name()
        );
        text.extend(mode.steps().iter().map(line));
        if let Some(old) = mode.old_step_prefix() {
            text += &format!(
                "  (older spellings still run: {old}:… and {old}-…:… for {0}:… and {0}-…:…)\n",
                mode.name()
            );
        }
    }
    text
}

/// What a session reads and writes, checked before the window opens
/// (`crate::io::OutputPlan`): the inputs are the files given on the command
/// line, by `open:` and `drop:`, and the camera files (`--camera`,
/// `camera:`); the outputs every export of the shell's steps (with the
/// sidecar of `export-field:` and the plot beside `export-timings:`) and of
/// the modes' steps (`Mode::step_outputs`). The plan does not follow the
/// script's order: a session may not write a file it reads at any step.
pub fn output_plan(
    steps: &[ScriptStep],
    open: &[PathBuf],
    camera: Option<&Path>,
) -> crate::io::OutputPlan {
    use crate::io::Format;
    let modes = modes::all();
    let mut plan = crate::io::OutputPlan::new();
    for file in open {
        plan.input("the file", file);
    }
    if let Some(camera) = camera {
        plan.input("--camera", camera);
    }
    for step in steps {
        match step {
            ScriptStep::Open(file) => {
                plan.input("open:", file);
            }
            ScriptStep::Drop(file) => {
                plan.input("drop:", file);
            }
            ScriptStep::Camera(file) => {
                plan.input("camera:", file);
            }
            ScriptStep::SaveCamera(path) => {
                plan.output("save-camera:", path, Format::JSON);
            }
            ScriptStep::Screenshot(path) => {
                plan.output("screenshot:", path, Format::PNG);
            }
            ScriptStep::ExportView(path) => {
                plan.output("export-view:", path, Format::PNG);
            }
            ScriptStep::ExportFigure(path, ..) => {
                plan.output("export-figure:", path, Format::PNG);
            }
            ScriptStep::ExportField(path) => {
                let sidecar = crate::stages::sdf::export::sidecar_path(path);
                plan.output("export-field:", path, Format::NPY).output(
                    "export-field:'s sidecar",
                    sidecar,
                    Format::JSON,
                );
            }
            ScriptStep::Layout(path) => {
                plan.output("layout:", path, Format::JSON);
            }
            ScriptStep::ExportTimings(path) => {
                plan.output("export-timings:", path, Format::CSV).output(
                    "export-timings:'s plot",
                    path.with_extension("png"),
                    Format::PNG,
                );
            }
            ScriptStep::ModeStep(s) => {
                let Some(mode) = modes.iter().find(|m| m.name() == s.mode) else {
                    continue;
                };
                for (path, format) in mode.step_outputs(&s.verb, &s.arg) {
                    plan.output(format!("{}:", s.verb), path, format);
                }
            }
            _ => {}
        }
    }
    plan
}

/// Parses `step; step; …`.
pub fn parse(text: &str) -> Result<Vec<ScriptStep>, String> {
    let modes = modes::all();
    text.split([';', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| parse_step(s, &modes))
        .collect()
}

fn parse_step(s: &str, modes: &[Box<dyn Mode>]) -> Result<ScriptStep, String> {
    let (verb, arg) = s
        .split_once(':')
        .map_or((s, ""), |(v, a)| (v.trim(), a.trim()));
    let need = |what: &str| args::need(verb, arg, what);
    let on_off = || args::on_off(verb, arg);
    Ok(match verb {
        "open" => ScriptStep::Open(need("a sample name or a path")?),
        "drop" => ScriptStep::Drop(need("a path")?.into()),
        "file-picker" => {
            let (kind, dir) = need("an extension or all")?
                .split_once('@')
                .map_or((arg.to_string(), None), |(k, d)| {
                    (k.to_string(), Some(PathBuf::from(d)))
                });
            let kind = (kind != "all").then(|| kind.trim_start_matches('.').to_lowercase());
            ScriptStep::FilePicker(kind, dir)
        }
        "about" => ScriptStep::About,
        "compute" => ScriptStep::Compute,
        "filter" => ScriptStep::Filter(need("all, inside, outside or band")?),
        "colormap" => ScriptStep::ColorMap(need("sundholm, diverging, viridis or turbo")?),
        "range" => ScriptStep::Range(need("data, band or MIN,MAX")?),
        "mesh" => ScriptStep::MeshMode(need("a mesh mode")?),
        "cells" => ScriptStep::Cells(on_off()?),
        "points" => ScriptStep::PointSize(
            arg.parse()
                .map_err(|_| format!("points needs a size in pixels, not {arg:?}"))?,
        ),
        "opacity" => match arg.parse::<f32>() {
            Ok(a) if (crate::view::MIN_OPACITY..=1.0).contains(&a) => ScriptStep::Opacity(a),
            _ => {
                return Err(format!(
                    "opacity needs a value from {} to 1, not {arg:?}",
                    crate::view::MIN_OPACITY
                ));
            }
        },
        "clip" => ScriptStep::Clip(need("off or an axis")?),
        "profiler" => ScriptStep::Profiler(on_off()?),
        "orbit" => {
            let (a, b) = arg
                .split_once(',')
                .ok_or("orbit needs yaw,pitch in degrees")?;
            ScriptStep::Orbit(
                a.trim().parse().map_err(|_| "bad yaw")?,
                b.trim().parse().map_err(|_| "bad pitch")?,
            )
        }
        "view" => ScriptStep::View(AxisView::from_name(arg).ok_or(format!(
            "script step `view` takes +x, -x, +y, -y, +z or -z, not {arg:?}"
        ))?),
        "camera" => ScriptStep::Camera(need("a camera JSON file")?.into()),
        "save-camera" => ScriptStep::SaveCamera(need("a path")?.into()),
        "screenshot" => ScriptStep::Screenshot(need("a path")?.into()),
        "export-view" => ScriptStep::ExportView(need("a path")?.into()),
        "export-figure" => {
            let (path, factor, caption) = crate::app::shell::export::figure_target(arg)?;
            ScriptStep::ExportFigure(path, factor, caption)
        }
        "export-field" => ScriptStep::ExportField(need("a path")?.into()),
        "export-timings" => ScriptStep::ExportTimings(need("a path")?.into()),
        "layout" => ScriptStep::Layout(need("a path")?.into()),
        "expect-error" => ScriptStep::ExpectError,
        "expect-mesh" => ScriptStep::ExpectMesh(need("a mesh name")?),
        "mode" => match modes::named(modes, arg) {
            Some(m) => ScriptStep::Mode(m.name().to_string()),
            None => {
                let names: Vec<&str> = modes.iter().map(|m| m.name()).collect();
                return Err(format!(
                    "script step `mode` takes one of {}, not {arg:?}",
                    names.join(", ")
                ));
            }
        },
        "wait" => ScriptStep::Wait(if arg.is_empty() {
            10
        } else {
            arg.parse()
                .map_err(|_| format!("wait needs a frame count, not {arg:?}"))?
        }),
        "quit" => ScriptStep::Quit,
        _ => {
            let verb = modes::current_verb(modes, verb);
            for m in modes {
                if let Some(checked) = m.parse_step(&verb, arg) {
                    checked?;
                    return Ok(ScriptStep::ModeStep(ModeStep {
                        mode: m.name(),
                        verb: verb.to_string(),
                        arg: arg.to_string(),
                    }));
                }
            }
            return Err(format!("unknown script step `{verb}`"));
        }
    })
}

/// A script and how it is going; the outcome is shared with `main` so the
/// process exit code reports it.
#[derive(Clone)]
pub struct Script {
    pub steps: Vec<ScriptStep>,
    pub outcome: Arc<Mutex<Option<Result<(), String>>>>,
}

impl Script {
    pub fn new(steps: Vec<ScriptStep>) -> Self {
        Script {
            steps,
            outcome: Arc::new(Mutex::new(None)),
        }
    }

    pub fn finish(&self, result: Result<(), String>) {
        if let Ok(mut o) = self.outcome.lock()
            && o.is_none()
        {
            *o = Some(result);
        }
    }

    /// The result once the session ended (`None` if the window was closed
    /// before the script finished).
    pub fn result(&self) -> Option<Result<(), String>> {
        self.outcome.lock().ok().and_then(|o| o.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_steps_and_rejects_unknown_ones() {
        let steps = parse(
            "open:spot; compute;\nfilter: inside; orbit:30,-10; screenshot:/tmp/a.png; wait; quit",
        )
        .unwrap();
        assert_eq!(steps[0], ScriptStep::Open("spot".into()));
        assert_eq!(steps[2], ScriptStep::Filter("inside".into()));
        assert_eq!(steps[3], ScriptStep::Orbit(30.0, -10.0));
        assert_eq!(steps[5], ScriptStep::Wait(10));
        assert_eq!(steps.last(), Some(&ScriptStep::Quit));
        assert!(parse("explode").unwrap_err().contains("unknown"));
        assert!(parse("res:many").is_err());
        assert!(parse("open:").is_err());
        assert!(parse("tritri-offset:1,2").is_err());
        assert!(parse("tritri-offset:1,x,2").is_err());
        assert!(parse("interfere-count:-1").is_err());
        assert!(parse("interfere-res:big").is_err());
        assert!(parse("collide").is_err());
        assert!(parse("collide-step:lots").is_err());
        let steps = parse("view:-y; camera:/tmp/c.json; save-camera:/tmp/d.json").unwrap();
        assert_eq!(steps[0], ScriptStep::View(AxisView::NegY));
        assert_eq!(steps[1], ScriptStep::Camera("/tmp/c.json".into()));
        assert_eq!(steps[2], ScriptStep::SaveCamera("/tmp/d.json".into()));
        assert!(parse("view:up").unwrap_err().contains("+x"));
        assert!(parse("camera:").is_err());
        assert_eq!(parse("opacity:0.35").unwrap(), [ScriptStep::Opacity(0.35)]);
        for refused in ["0", "1.5", "clear", ""] {
            let err = parse(&format!("opacity:{refused}")).unwrap_err();
            assert!(err.contains("from 0.05 to 1"), "opacity:{refused}: {err}");
        }
    }

    /// Every string literal in the step parsers' files that the parser takes
    /// for a step name (a known step fails differently from an unknown one)
    /// must be in the help; and every step in the help must parse.
    #[test]
    fn help_lists_every_step_the_parsers_accept() {
        let text = help();
        let listed: Vec<&str> = SHELL_STEPS
            .iter()
            .copied()
            .chain(modes::all().iter().flat_map(|m| m.steps().iter().copied()))
            .map(|s| s.verb)
            .collect();
        for verb in &listed {
            let parsed = parse(verb);
            assert!(
                !parsed.as_ref().is_err_and(|e| e.contains("unknown")),
                "{verb} is listed but does not parse: {parsed:?}"
            );
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app");
        let mut files = vec![dir.join("script.rs")];
        let mut stack = vec![dir.join("modes")];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).expect("read src/app/modes") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        let mut checked = 0;
        for file in files {
            let source = std::fs::read_to_string(&file).expect("read source");
            // Escaped quotes and the quote character would pair up wrongly.
            let source = source.replace("\\\"", "").replace("'\"'", "");
            for literal in source.split('"').skip(1).step_by(2) {
                let is_word = !literal.is_empty()
                    && literal.chars().all(|c| c.is_ascii_lowercase() || c == '-');
                let old_prefix = modes::all()
                    .iter()
                    .any(|m| m.old_step_prefix() == Some(literal));
                if !is_word
                    || old_prefix
                    || parse(literal).is_err_and(|e| e.contains("unknown script step"))
                {
                    continue;
                }
                checked += 1;
                assert!(
                    listed.contains(&literal),
                    "step `{literal}` ({}) is parsed but not in --script help",
                    file.display()
                );
                assert!(text.contains(&format!("  {literal}")), "{literal}");
            }
        }
        assert!(
            checked >= listed.len(),
            "{checked} steps found in the parsers"
        );
    }

    #[test]
    fn mode_steps_go_to_their_mode_and_mode_names_are_checked() {
        let steps = parse("mode:interfere; tritri:tori; adaptive-depth:7; res:64").unwrap();
        assert_eq!(steps[0], ScriptStep::Mode("interfere".into()));
        let owners: Vec<&str> = steps[1..]
            .iter()
            .map(|s| match s {
                ScriptStep::ModeStep(m) => m.mode,
                other => panic!("{other:?} is not a mode's step"),
            })
            .collect();
        assert_eq!(owners, ["tritri", "adaptive", "sdf"]);
        assert!(parse("mode:cloth").unwrap_err().contains("sdf"));
    }

    /// The names modes and steps had before each feature took one word
    /// still parse, to the same steps as the names of now.
    #[test]
    fn old_mode_names_and_step_spellings_parse_as_the_new_ones() {
        for (old, new) in [
            ("mode:field", "mode:sdf"),
            ("mode:tri-tri", "mode:tritri"),
            ("mode:interference", "mode:interfere"),
            ("mode:pipeline", "mode:simulate"),
            ("pipeline:12", "simulate:12"),
            ("pipeline-add:a.obj", "simulate-add:a.obj"),
            ("pipeline-step:90", "simulate-step:90"),
            ("pipeline-rewind:5", "simulate-rewind:5"),
            ("pipeline-gpu:off", "simulate-gpu:off"),
            ("pipeline-backend:gpu-detect", "simulate-backend:gpu-detect"),
            ("pipeline-broad:image", "simulate-broad:image"),
            ("pipeline-pick:3", "simulate-pick:3"),
            ("pipeline-exact:on", "simulate-exact:on"),
            ("pipeline-contact:0.02", "simulate-contact:0.02"),
        ] {
            assert_eq!(parse(old).unwrap(), parse(new).unwrap(), "{old}");
        }
        assert_eq!(
            parse("mode:field; mode:pipeline").unwrap(),
            [
                ScriptStep::Mode("sdf".into()),
                ScriptStep::Mode("simulate".into())
            ]
        );
        // An old spelling is checked as the new one, and a word that only
        // begins like an old prefix is not taken for it.
        assert!(parse("pipeline-contact:-1").is_err());
        assert!(parse("pipelines:3").unwrap_err().contains("unknown"));
        let help = help();
        assert!(help.contains("mode:simulate, or its older name mode:pipeline"));
        assert!(help.contains("pipeline-…:… for simulate:…"));
    }
}
