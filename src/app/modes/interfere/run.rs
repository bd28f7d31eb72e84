//! One interference run on the UI thread, and its drawing: every object,
//! the interfering ones red (the selected one lighter), and the localised
//! points as green crosses.

use std::sync::Arc;

use glam::Vec3;

use super::{InterfereMode, Outcome, ReadMode};
use crate::app::shell::Shell;
use crate::mesh::Mesh;
use crate::stages::interfere::scenes;
use crate::stages::interfere::{
    InterferenceGpu, InterferenceParams, Localisation, RunOptions, detect_with,
};
use crate::timing::PhaseTiming;
use crate::view::LineVertex;

const COLOR_APART: [f32; 4] = [0.45, 0.52, 0.62, 1.0];
const COLOR_HIT: [f32; 4] = [0.92, 0.16, 0.12, 1.0];
const COLOR_SELECTED: [f32; 4] = [0.95, 0.85, 0.35, 1.0];
const COLOR_SELECTED_HIT: [f32; 4] = [1.0, 0.55, 0.45, 1.0];
const COLOR_POINT: [f32; 4] = [0.15, 1.0, 0.25, 1.0];
/// At most this many localised points are drawn.
const MAX_DRAWN_POINTS: usize = 20_000;

/// The key of the 3D view's colours.
pub(super) fn key(selected: usize) -> crate::app::shell::legend::ViewKey {
    use crate::app::shell::legend::{ViewKey, linear_swatch};
    let entries = [
        ("apart".to_string(), COLOR_APART),
        ("interfering".into(), COLOR_HIT),
        (format!("object {selected} (selected)"), COLOR_SELECTED),
        (
            format!("object {selected}, interfering"),
            COLOR_SELECTED_HIT,
        ),
        ("located point".into(), COLOR_POINT),
    ]
    .into_iter()
    .map(|(label, color)| (label, linear_swatch(color)))
    .collect();
    ViewKey::classes("objects", entries)
}

impl InterfereMode {
    /// Runs when inputs changed, draws when something changed.
    pub(super) fn run_frame(&mut self, shell: &mut Shell) {
        if self.dirty {
            self.dirty = false;
            if let Err(e) = self.run(shell) {
                // The previous result stays on screen.
                self.error = Some(e.clone());
                shell.notify(format!("interference: {e}"), true);
            }
        }
        if self.redraw {
            self.redraw = false;
            self.draw(shell);
        }
    }

    /// Builds the scene and runs the stage on every chosen axis.
    fn run(&mut self, shell: &mut Shell) -> Result<(), String> {
        let st = self;
        if st.gpu.is_none() {
            st.gpu = Some(Arc::new(
                InterferenceGpu::new(&shell.render_gpu).map_err(|e| e.to_string())?,
            ));
        }
        st.place();
        let meshes = st.meshes();
        let scene = scenes::build(&meshes, &st.placements).map_err(|e| e.to_string())?;
        let diagonal = {
            let b = scene.bounds();
            (b.max - b.min).length()
        };
        let params = InterferenceParams {
            width: st.resolution,
            height: st.resolution,
            edge_offset: Some(1e-3 * st.offset_permille * diagonal),
            cull: st.cull,
            identification: st.identification,
            ..Default::default()
        };
        let options = RunOptions {
            read_pixels: st.mode == ReadMode::ReadPixels,
            ..Default::default()
        };
        let stage = st.gpu.clone().expect("created above");
        // The stage was made on the viewer's device (shell.render_gpu).
        let (runs, summary) = detect_with(st.backend, &stage, &scene, &params, &st.axes(), options)
            .map_err(|e| e.to_string())?;
        let located = Localisation::from_runs(&scene, &runs);
        // One profiler phase per view axis.
        let timings = runs
            .iter()
            .map(|r| PhaseTiming {
                name: format!("view {}", r.view.axis.name()),
                wall_ms: r.wall_ms,
                gpu_ms: r.phases.iter().map(|p| p.gpu_ms).sum(),
            })
            .collect();
        shell.history.record_run(
            "interfere",
            format!("interference {} objects {}²", st.count, st.resolution),
            timings,
        );
        let phases = runs.iter().flat_map(|r| &r.phases);
        let gpu_ms = phases
            .clone()
            .map(|p| p.gpu_ms)
            .sum::<Option<f64>>()
            .filter(|_| phases.count() > 0);
        st.result = Some(Outcome {
            wall_ms: runs.iter().map(|r| r.wall_ms).sum(),
            gpu_ms,
            scene,
            runs,
            summary,
            located,
        });
        st.image_run = st.image_run.min(st.axes().len() - 1);
        st.image_view = Default::default();
        st.verified = None;
        st.error = None;
        st.redraw = true;
        Ok(())
    }

    /// Uploads the objects (interfering ones highlighted) and the points.
    fn draw(&mut self, shell: &mut Shell) {
        let st = self;
        let Some(r) = &st.result else {
            return;
        };
        let key = st.placed;
        let frame = st.framed != key;
        st.framed = key;
        let mut meshes = Vec::with_capacity(r.scene.objects.len());
        let mut colors = Vec::new();
        for (k, o) in r.scene.objects.iter().enumerate() {
            let hit = r.summary.interfering.get(k).copied().unwrap_or(false);
            let color = match (hit, k == st.selected) {
                (false, false) => COLOR_APART,
                (true, false) => COLOR_HIT,
                (false, true) => COLOR_SELECTED,
                (true, true) => COLOR_SELECTED_HIT,
            };
            colors.extend(std::iter::repeat_n(color, o.mesh.positions.len()));
            meshes.push(o.mesh.clone());
        }
        let mesh = Mesh::merge(&meshes, "interference scene");
        let b = mesh.bounds();
        let arm = 0.01 * (b.max - b.min).length();
        let mut lines = Vec::new();
        for p in r.located.points.iter().take(MAX_DRAWN_POINTS) {
            let at = p.position.as_vec3();
            for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
                lines.push(LineVertex::new(at - axis * arm, COLOR_POINT));
                lines.push(LineVertex::new(at + axis * arm, COLOR_POINT));
            }
        }
        shell
            .viewport
            .set_demo_mesh_colored(&mesh, Some(&colors), frame);
        shell.viewport.set_cells(&[]);
        shell.viewport.set_pick_lines(&lines);
    }
}
