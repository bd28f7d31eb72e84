//! The adaptive mode's script steps: `adaptive`, `adaptive:off` and the
//! `adaptive-…` steps that set its parameters, views, deformation, pick and
//! export.

use std::path::PathBuf;

use super::state::AdaptiveMode;
use crate::app::modes::{ModeRequest, StepDoc, args, step};
use crate::app::shell::Shell;
use crate::stages::adaptive::{Backend, export};

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

/// The adaptive mode's steps, for `--script help`.
pub const STEPS: &[StepDoc] = &[
    step(
        "adaptive",
        "[on|off]",
        "show the adaptive field (the mode) or leave it",
    ),
    step("adaptive-start", "DEPTH", "the octree's starting depth"),
    step("adaptive-depth", "DEPTH", "the octree's maximum depth"),
    step(
        "adaptive-alpha",
        "TRIANGLES",
        "split a node above this many triangles",
    ),
    step(
        "adaptive-bound",
        "[on|off]",
        "use the parent's bound to prune",
    ),
    step("adaptive-backend", "NAME", "the adaptive field's backend"),
    step(
        "adaptive-level",
        "DEPTH|all",
        "show one octree level or all",
    ),
    step("adaptive-boxes", "[on|off]", "draw the node boxes"),
    step("adaptive-rss", "LEVEL|off", "draw one level of the RSS BVH"),
    step(
        "adaptive-points",
        "level|all",
        "sample points of the shown level or all",
    ),
    step(
        "adaptive-compare",
        "[on|off]",
        "compare with the uniform field",
    ),
    step("adaptive-deform", "[on|off]", "animate a deforming mesh"),
    step("adaptive-frames", "N", "run this many deformation frames"),
    step("adaptive-pick", "[NODE]", "select a node (none: clear)"),
    step(
        "adaptive-export",
        "PATH",
        "export the adaptive field as .npz",
    ),
];

/// The step `verb:arg`, if `verb` is one of this mode's.
pub fn parse(verb: &str, arg: &str) -> Option<Result<AdaptiveStep, String>> {
    if verb != "adaptive" && !verb.starts_with("adaptive-") {
        return None;
    }
    let on = args::on_off(verb, arg);
    Some(parse_adaptive(verb, arg, on))
}

fn parse_adaptive(verb: &str, arg: &str, on: Result<bool, String>) -> Result<AdaptiveStep, String> {
    Ok(match verb {
        "adaptive" => AdaptiveStep::Show(on?),
        "adaptive-start" => AdaptiveStep::StartDepth(args::number(verb, arg, "a depth")?),
        "adaptive-depth" => AdaptiveStep::MaxDepth(args::number(verb, arg, "a depth")?),
        "adaptive-alpha" => AdaptiveStep::Alpha(args::number(verb, arg, "a triangle count")?),
        "adaptive-bound" => AdaptiveStep::ParentBound(on?),
        "adaptive-backend" if !arg.is_empty() => AdaptiveStep::Backend(arg.to_string()),
        "adaptive-level" => AdaptiveStep::Level(match arg {
            "all" => None,
            _ => Some(args::number(verb, arg, "a depth or all")?),
        }),
        "adaptive-boxes" => AdaptiveStep::Boxes(on?),
        "adaptive-rss" => AdaptiveStep::RssLevel(match arg {
            "off" => None,
            _ => Some(args::number(verb, arg, "a BVH level or off")?),
        }),
        "adaptive-points" => AdaptiveStep::LevelPoints(match arg {
            "level" => true,
            "all" => false,
            _ => return Err(format!("{verb} takes level or all, not {arg:?}")),
        }),
        "adaptive-compare" => AdaptiveStep::Compare(on?),
        "adaptive-deform" => AdaptiveStep::Deform(on?),
        "adaptive-frames" => AdaptiveStep::Frames(args::number(verb, arg, "a frame count")?),
        "adaptive-pick" => AdaptiveStep::Pick(if arg.is_empty() {
            None
        } else {
            Some(args::number(verb, arg, "a node index")?)
        }),
        "adaptive-export" if !arg.is_empty() => AdaptiveStep::Export(arg.into()),
        "adaptive-backend" | "adaptive-export" => {
            return Err(format!("script step `{verb}` needs an argument"));
        }
        _ => return Err(format!("unknown script step `{verb}`")),
    })
}

/// Applies a script step; `adaptive` and `adaptive:off` ask for the mode
/// switch.
pub fn apply(
    st: &mut AdaptiveMode,
    shell: &mut Shell,
    step: AdaptiveStep,
) -> Result<ModeRequest, String> {
    let gpu_ok = shell.gpu_ok();
    match step {
        AdaptiveStep::Show(true) => return Ok(ModeRequest::Activate),
        AdaptiveStep::Show(false) => return Ok(ModeRequest::Leave),
        AdaptiveStep::StartDepth(d) => {
            st.params.start_depth = d;
            st.request();
        }
        AdaptiveStep::MaxDepth(d) => {
            st.params.max_depth = d;
            st.request();
        }
        AdaptiveStep::Alpha(a) => {
            st.params.alpha = a;
            st.request();
        }
        AdaptiveStep::ParentBound(on) => {
            st.params.parent_bound = on;
            st.request();
        }
        AdaptiveStep::Backend(name) => {
            let b = Backend::from_name(&name)
                .ok_or(format!("unknown adaptive backend {name} (gpu, cpu)"))?;
            if b == Backend::Gpu && !gpu_ok {
                return Err("the GPU backend needs GPU compute, which this adapter lacks".into());
            }
            st.backend = b;
            st.request();
        }
        AdaptiveStep::Level(level) => {
            st.level = level;
            st.redraw = true;
        }
        AdaptiveStep::Boxes(on) => {
            st.show_boxes = on;
            st.redraw = true;
        }
        AdaptiveStep::RssLevel(level) => {
            st.rss_level = level;
            st.redraw = true;
        }
        AdaptiveStep::LevelPoints(on) => {
            st.level_points = on;
            st.redraw = true;
        }
        AdaptiveStep::Compare(on) => {
            st.compare = on;
            st.redraw = true;
        }
        AdaptiveStep::Deform(on) => {
            st.deform.on = on;
            st.deform.playing = true;
            st.deform.frames = 0;
            st.deform.frames_wanted = 0;
            if !on {
                st.request();
            }
        }
        AdaptiveStep::Frames(n) => {
            if !st.deform.running() {
                return Err(
                    "adaptive-frames needs a playing deformation (adaptive-deform:on)".into(),
                );
            }
            st.deform.frames_wanted = st.deform.frames + n as u64;
        }
        AdaptiveStep::Pick(node) => {
            let eye = shell.viewport.camera.eye();
            let clip = shell.settings.view.filter.clip;
            let count = st
                .product
                .as_ref()
                .ok_or("no adaptive field to pick from")?
                .field
                .values
                .len();
            let node = match node {
                Some(n) if n < count => n,
                Some(n) => return Err(format!("node {n} is not in the octree of {count} nodes")),
                None => st
                    .default_pick(eye, clip)
                    .ok_or("the octree has no nodes")?,
            };
            st.set_pick(Some(node));
        }
        AdaptiveStep::Export(path) => {
            let (p, scene) = (
                st.product.as_ref().ok_or("no adaptive field to export")?,
                shell.mesh.scene.as_ref().ok_or("no mesh")?,
            );
            let adapter = (p.backend == Backend::Gpu).then(|| shell.render_gpu.describe());
            let meta = export::sidecar(
                &p.field,
                &p.mesh,
                &scene.source.label(),
                p.backend.name(),
                adapter,
            );
            export::write_adaptive_field(&path, &p.field, &meta)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    Ok(ModeRequest::Stay)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_adaptive_steps() {
        use AdaptiveStep::*;
        let steps = crate::app::script::parse(
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
        let parsed: Vec<AdaptiveStep> = steps
            .iter()
            .map(|s| match s {
                crate::app::script::ScriptStep::ModeStep(m) => {
                    assert_eq!(m.mode, "adaptive");
                    parse(&m.verb, &m.arg).unwrap().unwrap()
                }
                other => panic!("{other:?} is not an adaptive step"),
            })
            .collect();
        assert_eq!(parsed, expected);
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
            assert!(
                crate::app::script::parse(bad).is_err(),
                "{bad} should not parse"
            );
        }
    }
}
