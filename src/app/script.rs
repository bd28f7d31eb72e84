//! Scripted viewer sessions: a list of steps the viewer performs one after
//! another, for the GUI smoke test and for making the README's screenshots
//! with the app itself. `collidoscope --script "open:spot; compute;
//! filter:inside; screenshot:shot.png; quit"`.
//!
//! A step that fails (an unexpected error, an unmet expectation) ends the
//! session with a non-zero exit code.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// One scripted action.
#[derive(Clone, Debug, PartialEq)]
pub enum ScriptStep {
    /// Open a sample by name or an OBJ file by path (as a drop would).
    Open(String),
    /// Drop a file on the window (the same path as a real drag and drop).
    Drop(PathBuf),
    /// Wait until the field (and any comparison) is computed.
    Compute,
    /// `all`, `inside`, `outside` or `band`.
    Filter(String),
    Resolution(u32),
    /// A backend name: gpu, gpu-brute, cpu, cpu-ref.
    Backend(String),
    /// `pseudo-normal` or `winding`.
    Sign(String),
    /// `sundholm` or `diverging`.
    ColorMap(String),
    /// `shaded`, `wireframe`, `shaded+wireframe`, `hidden`.
    MeshMode(String),
    /// Show or hide the cell cloud.
    Cells(bool),
    /// Point size of the cells in pixels.
    PointSize(f32),
    /// The cells' clip plane: `off`, or an axis (`x`, `y`, `z`, `-x`, …)
    /// through the grid's centre.
    Clip(String),
    /// Run a comparison: `cpu-vs-gpu` or `sign-modes`; show its heat map.
    Verify(String),
    /// Hide the comparison heat map.
    HideVerify,
    /// Pick the cell nearest the grid centre (or the given cell index).
    Pick(Option<usize>),
    /// Show the slice panel on an axis (x, y, z).
    Slice(String),
    Profiler(bool),
    /// Orbit the camera by (yaw, pitch) degrees.
    Orbit(f32, f32),
    /// Save the whole window (the app's own screenshot) as PNG.
    Screenshot(PathBuf),
    /// Save the 3D view at full resolution as PNG.
    ExportView(PathBuf),
    /// Export the field as .npy + .json.
    ExportField(PathBuf),
    /// Export the timing history as CSV (and a PNG plot beside it).
    ExportTimings(PathBuf),
    /// The last action must have shown an error (bad file) while keeping
    /// the scene.
    ExpectError,
    /// The mesh shown must be this one (sample name or file name).
    ExpectMesh(String),
    /// Show the triangle–triangle panel with a ready scene: `tori` or `rocker`.
    TriTri(String),
    /// Model B's translation in the triangle–triangle panel.
    TriTriOffset(glam::Vec3),
    /// The triangle–triangle backend: cpu-ref, cpu, gpu-brute, gpu.
    TriTriBackend(String),
    /// Show the interference panel with a random scene: `random-boxes` or
    /// `random-mixed` (boxes, tori, spot).
    Interfere(String),
    /// Number of objects of the interference scene.
    InterfereCount(usize),
    /// Seed of the interference scene's random poses.
    InterfereSeed(u64),
    /// Interference viewport resolution (square).
    InterfereResolution(u32),
    /// Interference view axes: `x`, `y`, `z` or a combination (`xyz`).
    InterfereAxes(String),
    /// `read-pixels` or `occlusion` (queries only).
    InterfereMode(String),
    /// Which image the interference panel shows: counts, depth, ids,
    /// penetrating, penetrated.
    InterfereImage(String),
    /// Select an object of the interference scene (its pose sliders).
    InterfereSelect(usize),
    /// Move the selected object to x,y,z.
    InterfereMove(glam::Vec3),
    /// Compare the interference counts with the CPU reference; fails on a
    /// difference.
    InterfereVerify,
    /// Show the collide panel in the viewport with a scene (`drop-on-mesh`,
    /// `drop-on-plane`, `box-stack`, `line`), built afresh.
    Collide(String),
    /// Advance the collide scene by this many physics steps.
    CollideStep(u32),
    /// Show or hide the sampling points in the collide view.
    CollideSamples(bool),
    /// Find the collide scene's contacts on the GPU (on) or CPU (off).
    CollideGpu(bool),
    /// Compare CPU and GPU contacts of the collide scene now and show the
    /// table; fails when a difference is not explained by rounding.
    CollideCompare,
    /// The adaptive field scene (`adaptive…` steps, see [`AdaptiveStep`]).
    Adaptive(AdaptiveStep),
    /// Let some frames pass.
    Wait(u32),
    Quit,
}

/// A step of the adaptive field scene.
#[derive(Clone, Debug, PartialEq)]
pub enum AdaptiveStep {
    /// `adaptive`, `adaptive:off`: show the scene (it owns the viewport).
    Show(bool),
    /// `adaptive-start:N`: start depth `l`.
    StartDepth(u32),
    /// `adaptive-depth:N`: maximum depth `m`.
    MaxDepth(u32),
    /// `adaptive-alpha:N`: most triangles a leaf keeps.
    Alpha(u32),
    /// `adaptive-bound:on|off`: start queries from the parent's triangle.
    ParentBound(bool),
    /// `adaptive-backend:gpu|cpu`.
    Backend(String),
    /// `adaptive-level:N|all`: the depth whose boxes are drawn.
    Level(Option<u32>),
    /// `adaptive-boxes:on|off`.
    Boxes(bool),
    /// `adaptive-rss:N|off`: the RSS volumes of BVH level N (roots: 0).
    RssLevel(Option<u32>),
    /// `adaptive-points:level|all`: points of the chosen level only, or all.
    LevelPoints(bool),
    /// `adaptive-compare:on|off`: side by side with the uniform field.
    Compare(bool),
    /// `adaptive-deform:on|off`: inflate and deflate, rebuilding every frame.
    Deform(bool),
    /// `adaptive-frames:N`: wait until N more deformed frames are rebuilt.
    Frames(u32),
    /// `adaptive-pick[:N]`: pick node N, or the node of the shown level
    /// nearest the eye.
    Pick(Option<usize>),
    /// `adaptive-export:PATH.npz`: the field as `.npz` + JSON sidecar.
    Export(PathBuf),
}

fn number<T: std::str::FromStr>(verb: &str, arg: &str, what: &str) -> Result<T, String> {
    arg.parse()
        .map_err(|_| format!("{verb} needs {what}, not {arg:?}"))
}

fn parse_adaptive(verb: &str, arg: &str, on: Result<bool, String>) -> Result<AdaptiveStep, String> {
    Ok(match verb {
        "adaptive" => AdaptiveStep::Show(on?),
        "adaptive-start" => AdaptiveStep::StartDepth(number(verb, arg, "a depth")?),
        "adaptive-depth" => AdaptiveStep::MaxDepth(number(verb, arg, "a depth")?),
        "adaptive-alpha" => AdaptiveStep::Alpha(number(verb, arg, "a triangle count")?),
        "adaptive-bound" => AdaptiveStep::ParentBound(on?),
        "adaptive-backend" if !arg.is_empty() => AdaptiveStep::Backend(arg.to_string()),
        "adaptive-level" => AdaptiveStep::Level(match arg {
            "all" => None,
            _ => Some(number(verb, arg, "a depth or all")?),
        }),
        "adaptive-boxes" => AdaptiveStep::Boxes(on?),
        "adaptive-rss" => AdaptiveStep::RssLevel(match arg {
            "off" => None,
            _ => Some(number(verb, arg, "a BVH level or off")?),
        }),
        "adaptive-points" => AdaptiveStep::LevelPoints(match arg {
            "level" => true,
            "all" => false,
            _ => return Err(format!("{verb} takes level or all, not {arg:?}")),
        }),
        "adaptive-compare" => AdaptiveStep::Compare(on?),
        "adaptive-deform" => AdaptiveStep::Deform(on?),
        "adaptive-frames" => AdaptiveStep::Frames(number(verb, arg, "a frame count")?),
        "adaptive-pick" => AdaptiveStep::Pick(if arg.is_empty() {
            None
        } else {
            Some(number(verb, arg, "a node index")?)
        }),
        "adaptive-export" if !arg.is_empty() => AdaptiveStep::Export(arg.into()),
        "adaptive-backend" | "adaptive-export" => {
            return Err(format!("script step `{verb}` needs an argument"));
        }
        _ => return Err(format!("unknown script step `{verb}`")),
    })
}

/// Parses `step; step; …`.
pub fn parse(text: &str) -> Result<Vec<ScriptStep>, String> {
    text.split([';', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(parse_step)
        .collect()
}

fn parse_step(s: &str) -> Result<ScriptStep, String> {
    let (verb, arg) = s
        .split_once(':')
        .map_or((s, ""), |(v, a)| (v.trim(), a.trim()));
    let need = |what: &str| {
        if arg.is_empty() {
            Err(format!("script step `{verb}` needs {what}"))
        } else {
            Ok(arg.to_string())
        }
    };
    let on_off = || match arg {
        "" | "on" | "true" => Ok(true),
        "off" | "false" => Ok(false),
        _ => Err(format!("script step `{verb}` takes on or off, not {arg:?}")),
    };
    Ok(match verb {
        "open" => ScriptStep::Open(need("a sample name or a path")?),
        "drop" => ScriptStep::Drop(need("a path")?.into()),
        "compute" => ScriptStep::Compute,
        "filter" => ScriptStep::Filter(need("all, inside, outside or band")?),
        "res" => ScriptStep::Resolution(
            arg.parse()
                .map_err(|_| format!("res needs a number, not {arg:?}"))?,
        ),
        "backend" => ScriptStep::Backend(need("a backend")?),
        "sign" => ScriptStep::Sign(need("pseudo-normal or winding")?),
        "colormap" => ScriptStep::ColorMap(need("sundholm or diverging")?),
        "mesh" => ScriptStep::MeshMode(need("a mesh mode")?),
        "cells" => ScriptStep::Cells(on_off()?),
        "points" => ScriptStep::PointSize(
            arg.parse()
                .map_err(|_| format!("points needs a size in pixels, not {arg:?}"))?,
        ),
        "clip" => ScriptStep::Clip(need("off or an axis")?),
        "verify" => ScriptStep::Verify(need("cpu-vs-gpu or sign-modes")?),
        "hide-verify" => ScriptStep::HideVerify,
        "pick" => ScriptStep::Pick(if arg.is_empty() {
            None
        } else {
            Some(
                arg.parse()
                    .map_err(|_| format!("pick needs a cell index, not {arg:?}"))?,
            )
        }),
        "slice" => ScriptStep::Slice(need("an axis")?),
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
        "screenshot" => ScriptStep::Screenshot(need("a path")?.into()),
        "export-view" => ScriptStep::ExportView(need("a path")?.into()),
        "export-field" => ScriptStep::ExportField(need("a path")?.into()),
        "export-timings" => ScriptStep::ExportTimings(need("a path")?.into()),
        "collide" => ScriptStep::Collide(need(
            "a scene (drop-on-mesh, drop-on-plane, box-stack, line)",
        )?),
        "collide-step" => ScriptStep::CollideStep(
            arg.parse()
                .map_err(|_| format!("collide-step needs a step count, not {arg:?}"))?,
        ),
        "collide-samples" => ScriptStep::CollideSamples(on_off()?),
        "collide-gpu" => ScriptStep::CollideGpu(on_off()?),
        "collide-compare" => ScriptStep::CollideCompare,
        "expect-error" => ScriptStep::ExpectError,
        "expect-mesh" => ScriptStep::ExpectMesh(need("a mesh name")?),
        "wait" => ScriptStep::Wait(if arg.is_empty() {
            10
        } else {
            arg.parse()
                .map_err(|_| format!("wait needs a frame count, not {arg:?}"))?
        }),
        "tritri" => ScriptStep::TriTri(need("a scene: tori or rocker")?),
        "tritri-offset" => ScriptStep::TriTriOffset(vec3(verb, arg)?),
        "tritri-backend" => ScriptStep::TriTriBackend(need("a backend")?),
        "interfere" => ScriptStep::Interfere(need("a scene: random-boxes or random-mixed")?),
        "interfere-count" => ScriptStep::InterfereCount(number(verb, arg, "a whole number")?),
        "interfere-seed" => ScriptStep::InterfereSeed(number(verb, arg, "a whole number")?),
        "interfere-res" => ScriptStep::InterfereResolution(number(verb, arg, "a whole number")?),
        "interfere-axis" => ScriptStep::InterfereAxes(need("x, y, z or a combination")?),
        "interfere-mode" => ScriptStep::InterfereMode(need("read-pixels or occlusion")?),
        "interfere-image" => ScriptStep::InterfereImage(need("an image name")?),
        "interfere-select" => ScriptStep::InterfereSelect(number(verb, arg, "a whole number")?),
        "interfere-move" => ScriptStep::InterfereMove(vec3(verb, arg)?),
        "interfere-verify" => ScriptStep::InterfereVerify,
        "quit" => ScriptStep::Quit,
        v if v == "adaptive" || v.starts_with("adaptive-") => {
            ScriptStep::Adaptive(parse_adaptive(v, arg, on_off())?)
        }
        _ => return Err(format!("unknown script step `{verb}`")),
    })
}

/// `x,y,z` of finite numbers.
fn vec3(verb: &str, arg: &str) -> Result<glam::Vec3, String> {
    let v: Vec<f32> = arg
        .split(',')
        .map(|c| c.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("{verb} needs x,y,z, not {arg:?}"))?;
    match v[..] {
        [x, y, z] if v.iter().all(|c| c.is_finite()) => Ok(glam::Vec3::new(x, y, z)),
        _ => Err(format!("{verb} needs x,y,z, not {arg:?}")),
    }
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
        let tt = parse("tritri:tori; tritri-offset:0.5, 0, -1; tritri-backend:gpu").unwrap();
        assert_eq!(tt[0], ScriptStep::TriTri("tori".into()));
        assert_eq!(
            tt[1],
            ScriptStep::TriTriOffset(glam::Vec3::new(0.5, 0.0, -1.0))
        );
        assert_eq!(tt[2], ScriptStep::TriTriBackend("gpu".into()));
        assert!(parse("tritri-offset:1,2").is_err());
        assert!(parse("tritri-offset:1,x,2").is_err());
        let interfere = parse(
            "interfere:random-boxes; interfere-count:80; interfere-res:256; interfere-axis:xz; \
             interfere-mode:occlusion; interfere-select:3; interfere-move:1,2,3",
        )
        .unwrap();
        assert_eq!(
            interfere,
            vec![
                ScriptStep::Interfere("random-boxes".into()),
                ScriptStep::InterfereCount(80),
                ScriptStep::InterfereResolution(256),
                ScriptStep::InterfereAxes("xz".into()),
                ScriptStep::InterfereMode("occlusion".into()),
                ScriptStep::InterfereSelect(3),
                ScriptStep::InterfereMove(glam::Vec3::new(1.0, 2.0, 3.0)),
            ]
        );
        assert!(parse("interfere-count:-1").is_err());
        assert!(parse("interfere-res:big").is_err());
        let collide = parse(
            "collide:box-stack; collide-step:60; collide-samples:off; collide-gpu; collide-compare",
        )
        .unwrap();
        assert_eq!(
            collide,
            vec![
                ScriptStep::Collide("box-stack".into()),
                ScriptStep::CollideStep(60),
                ScriptStep::CollideSamples(false),
                ScriptStep::CollideGpu(true),
                ScriptStep::CollideCompare,
            ]
        );
        assert!(parse("collide").is_err());
        assert!(parse("collide-step:lots").is_err());
    }

    #[test]
    fn parses_the_adaptive_steps() {
        use AdaptiveStep::*;
        let steps = parse(
            "adaptive; adaptive-start:2; adaptive-depth:7; adaptive-alpha:4; adaptive-bound:off; \
             adaptive-backend:cpu; adaptive-level:5; adaptive-level:all; adaptive-boxes:on; \
             adaptive-rss:2; adaptive-rss:off; adaptive-points:level; adaptive-compare; adaptive-deform:on; adaptive-frames:3; \
             adaptive-pick; adaptive-pick:42; adaptive-export:/tmp/a.npz; adaptive:off",
        )
        .unwrap();
        let expected = [
            Show(true),
            StartDepth(2),
            MaxDepth(7),
            Alpha(4),
            ParentBound(false),
            Backend("cpu".into()),
            Level(Some(5)),
            Level(None),
            Boxes(true),
            RssLevel(Some(2)),
            RssLevel(None),
            LevelPoints(true),
            Compare(true),
            Deform(true),
            Frames(3),
            Pick(None),
            Pick(Some(42)),
            Export("/tmp/a.npz".into()),
            Show(false),
        ];
        assert_eq!(steps, expected.map(ScriptStep::Adaptive));
        for bad in [
            "adaptive-depth:deep",
            "adaptive-rss:top",
            "adaptive-depth",
            "adaptive-level:some",
            "adaptive-points:few",
            "adaptive-backend",
            "adaptive-export",
            "adaptive-pick:first",
            "adaptive-deform:maybe",
            "adaptive-explode",
        ] {
            assert!(parse(bad).is_err(), "{bad} should not parse");
        }
    }
}
