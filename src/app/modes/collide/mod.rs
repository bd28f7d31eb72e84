//! The collide mode: the rigid-body demonstrator (Sundholm's figures
//! 7.6–7.8) with sampling points, contacts and a CPU-vs-GPU contact table.
//!
//! The viewport shows the bodies' meshes, sampling points coloured by
//! feature kind (vertex / edge / face) and contact points coloured by depth
//! with their normals (`draw`). Every frame detects the contacts of the
//! current state, or steps the simulation while it plays.

mod draw;
mod panel;

use std::time::Instant;

use eframe::egui;
use glam::{Quat, Vec3};

use super::{Mode, ModeRequest, Panels, StepDoc, StepTable, Steps, args, step};
use crate::app::shell::Shell;
use crate::sim::collide::{RigidParams, Scene, World};
use crate::stages::collide::{self, ColliderGpu, Contact};

/// The mode's state.
#[derive(Default)]
pub struct CollideMode {
    scene: Scene,
    world: Option<World>,
    params: RigidParams,
    playing: bool,
    /// Step once on the next frame (the panel's "step").
    step_once: bool,
    /// The last frame stepped (else it only detected).
    stepped: bool,
    use_gpu: bool,
    show_samples: bool,
    line_offset: [f32; 2],
    line_angle: f32,
    gpu: Option<ColliderGpu>,
    comparison: Option<PanelComparison>,
    step_ms: f64,
    error: Option<String>,
    /// Frame the bodies on the next draw (a scene was just built).
    frame_pending: bool,
}

type ContactKey = (u32, u32, u32, u32);

fn contact_key(c: &Contact) -> ContactKey {
    (c.body, c.other, c.feature as u32, c.sample)
}

/// CPU and GPU contacts of one state, compared as sets
/// ([`collide::compare_contacts`]).
struct PanelComparison {
    /// The step compared; the table falls back to the live contacts after.
    step: usize,
    cpu: Vec<Contact>,
    gpu: std::collections::HashMap<ContactKey, Contact>,
    gpu_count: usize,
    result: collide::ContactComparison,
    /// Wall-clock ms of each backend's detection, and the GPU kernel's ms
    /// where the adapter has timestamps.
    cpu_ms: f64,
    gpu_ms: f64,
    kernel_ms: Option<f64>,
}

impl CollideMode {
    /// The chosen scene built afresh (paused), or why it cannot be.
    fn rebuild(&mut self) {
        match World::new(self.scene) {
            Ok(w) => {
                self.world = Some(w);
                self.error = None;
                self.frame_pending = true;
            }
            Err(e) => self.error = Some(e.to_string()),
        }
        self.playing = false;
        self.comparison = None;
    }

    /// Shows `scene`, built afresh and paused.
    fn open_scene(&mut self, scene: Scene) -> Result<(), String> {
        let world = World::new(scene).map_err(|e| e.to_string())?;
        self.scene = scene;
        self.world = Some(world);
        self.playing = false;
        self.comparison = None;
        self.error = None;
        self.frame_pending = true;
        Ok(())
    }

    fn sync_backend(&mut self, render_gpu: &crate::gpu::GpuContext, gpu_ok: bool) {
        self.params.backend = if self.use_gpu && gpu_ok {
            collide::Backend::Gpu
        } else {
            collide::Backend::Cpu
        };
        if self.params.backend == collide::Backend::Gpu && self.gpu.is_none() {
            self.gpu = Some(ColliderGpu::new(render_gpu));
        }
    }

    /// Advances the scene by `n` physics steps now.
    fn advance(
        &mut self,
        n: usize,
        render_gpu: &crate::gpu::GpuContext,
        gpu_ok: bool,
    ) -> Result<(), String> {
        self.sync_backend(render_gpu, gpu_ok);
        let world = self.world.as_mut().ok_or("no collide scene is open")?;
        let start = Instant::now();
        for _ in 0..n {
            world
                .step(&self.params, self.gpu.as_ref())
                .map_err(|e| e.to_string())?;
        }
        self.step_ms = start.elapsed().as_secs_f64() * 1e3 / n.max(1) as f64;
        Ok(())
    }

    /// Compares CPU and GPU contacts of the current state; an error when a
    /// difference is not explained by float rounding.
    fn compare_now(&mut self, render_gpu: &crate::gpu::GpuContext) -> Result<(), String> {
        let world = self.world.as_mut().ok_or("no collide scene is open")?;
        let c = compare(world, &self.params, render_gpu, &mut self.gpu)?;
        let unexplained = c.result.unexplained_count();
        let summary = c.result.summary();
        self.comparison = Some(c);
        if unexplained > 0 {
            return Err(format!("CPU and GPU contacts differ: {summary}"));
        }
        Ok(())
    }

    /// Steps (while playing, or once) or detects the contacts of the state
    /// shown, and draws it.
    fn run_frame(&mut self, shell: &mut Shell) {
        if self.world.is_none() {
            self.rebuild();
        }
        self.sync_backend(&shell.render_gpu, shell.gpu_ok());
        let Some(world) = &mut self.world else {
            return;
        };
        world.set_line(
            Vec3::new(0.0, self.line_offset[0], self.line_offset[1]),
            Quat::from_rotation_z(self.line_angle),
        );
        let start = Instant::now();
        self.stepped = self.playing || std::mem::take(&mut self.step_once);
        let result = if self.stepped {
            world.step(&self.params, self.gpu.as_ref())
        } else {
            world.detect(&self.params, self.gpu.as_ref()).map(|_| ())
        };
        self.step_ms = start.elapsed().as_secs_f64() * 1e3;
        if let Err(e) = result {
            self.error = Some(e.to_string());
            self.playing = false;
        }
        draw::draw(
            world,
            self.show_samples,
            &mut shell.viewport,
            self.frame_pending,
        );
        self.frame_pending = false;
        if self.playing {
            shell.ctx().request_repaint();
        }
    }

    fn apply(&mut self, shell: &mut Shell, step: CollideStep) -> Result<ModeRequest, String> {
        match step {
            CollideStep::Scene(name) => {
                let scene = Scene::from_short_name(&name).ok_or(format!(
                    "unknown collide scene {name} (drop-on-mesh, drop-on-plane, box-stack, line)"
                ))?;
                self.open_scene(scene)?;
                return Ok(ModeRequest::Activate);
            }
            CollideStep::Step(n) => {
                let gpu_ok = shell.gpu_ok();
                self.advance(n as usize, &shell.render_gpu, gpu_ok)?;
            }
            CollideStep::Samples(on) => self.show_samples = on,
            CollideStep::Gpu(on) => {
                if on && !shell.gpu_ok() {
                    return Err("GPU contacts need GPU compute, which this adapter lacks".into());
                }
                self.use_gpu = on;
            }
            CollideStep::Compare => {
                if !shell.gpu_ok() {
                    return Err("comparing contacts needs GPU compute".into());
                }
                self.compare_now(&shell.render_gpu)?;
            }
        }
        Ok(ModeRequest::Stay)
    }
}

/// The collide mode's script steps.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CollideStep {
    /// `collide:SCENE`: show the mode with a scene (`drop-on-mesh`,
    /// `drop-on-plane`, `box-stack`, `line`), built afresh.
    Scene(String),
    /// `collide-step:N`: advance by N physics steps.
    Step(u32),
    /// `collide-samples:on|off`: show the sampling points.
    Samples(bool),
    /// `collide-gpu:on|off`: find the contacts on the GPU or the CPU.
    Gpu(bool),
    /// `collide-compare`: compare CPU and GPU contacts now and show the
    /// table; fails when a difference is not explained by rounding.
    Compare,
}

/// This mode's script steps, for `--script help`.
const STEPS: &[StepDoc] = &[
    step(
        "collide",
        "SCENE",
        "start a scene: drop-on-mesh, drop-on-plane, box-stack or line",
    ),
    step("collide-step", "N", "advance the simulation N steps"),
    step("collide-samples", "[on|off]", "draw the sampling points"),
    step("collide-gpu", "[on|off]", "detect contacts on the GPU"),
    step("collide-compare", "", "compare the CPU and GPU contacts"),
];

fn parse(verb: &str, arg: &str) -> Option<Result<CollideStep, String>> {
    Some(match verb {
        "collide" => args::need(
            verb,
            arg,
            "a scene (drop-on-mesh, drop-on-plane, box-stack, line)",
        )
        .map(CollideStep::Scene),
        "collide-step" => args::number(verb, arg, "a step count").map(CollideStep::Step),
        "collide-samples" => args::on_off(verb, arg).map(CollideStep::Samples),
        "collide-gpu" => args::on_off(verb, arg).map(CollideStep::Gpu),
        "collide-compare" => Ok(CollideStep::Compare),
        _ => return None,
    })
}

impl Mode for CollideMode {
    fn name(&self) -> &'static str {
        "collide"
    }

    fn toggle_pause(&mut self) -> bool {
        self.playing = !self.playing;
        true
    }

    fn title(&self) -> &'static str {
        "Collide"
    }

    fn panels(&self) -> Panels {
        // Its steps are timed in its panel, every frame.
        Panels {
            inspector: false,
            slice: false,
            profiler: false,
        }
    }

    fn activate(&mut self, _shell: &mut Shell) {
        self.frame_pending = true;
    }

    fn deactivate(&mut self, _shell: &mut Shell) {
        self.playing = false;
    }

    fn update(&mut self, shell: &mut Shell) {
        self.run_frame(shell);
    }

    fn side_panel_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui) {
        panel::panel_ui(self, shell, ui);
    }

    fn viewport_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui, _: Option<Option<usize>>) {
        let Some(world) = &self.world else {
            return;
        };
        let keys = draw::keys(world, self.show_samples, shell.settings.view.color_map);
        crate::app::shell::legend::keys_ui(ui, shell, &keys);
    }
}

impl Steps for CollideMode {
    type Step = CollideStep;
    const TABLE: StepTable<Self, CollideStep> = StepTable::new(STEPS, parse, Self::apply);
}

fn compare(
    world: &mut World,
    params: &RigidParams,
    render_gpu: &crate::gpu::GpuContext,
    gpu: &mut Option<ColliderGpu>,
) -> Result<PanelComparison, String> {
    let gpu = gpu.get_or_insert_with(|| ColliderGpu::new(render_gpu));
    let bodies = world.collider_bodies();
    let pairs = world.pairs();
    let run = |backend| {
        collide::detect(
            &world.shapes,
            &bodies,
            &pairs,
            &params.colliders,
            backend,
            Some(gpu),
        )
        .map_err(|e| e.to_string())
    };
    let cpu_set = run(collide::Backend::Cpu)?;
    let gpu_set = run(collide::Backend::Gpu)?;
    let (cpu, gpu) = (cpu_set.contacts, gpu_set.contacts);
    let result = collide::compare_contacts(
        &world.shapes,
        &bodies,
        &pairs,
        &params.colliders,
        &cpu,
        &gpu,
        &collide::ContactTolerance::default(),
    )
    .map_err(|e| e.to_string())?;
    Ok(PanelComparison {
        step: world.steps,
        gpu_count: gpu.len(),
        gpu: gpu.iter().map(|c| (contact_key(c), *c)).collect(),
        cpu,
        result,
        cpu_ms: cpu_set.timings.total_wall_ms(),
        gpu_ms: gpu_set.timings.total_wall_ms(),
        kernel_ms: gpu_set.timings.total_gpu_ms(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_collide_steps() {
        let steps: Vec<CollideStep> = [
            ("collide", "box-stack"),
            ("collide-step", "60"),
            ("collide-samples", "off"),
            ("collide-gpu", ""),
            ("collide-compare", ""),
        ]
        .into_iter()
        .map(|(verb, arg)| parse(verb, arg).unwrap().unwrap())
        .collect();
        assert_eq!(
            steps,
            vec![
                CollideStep::Scene("box-stack".into()),
                CollideStep::Step(60),
                CollideStep::Samples(false),
                CollideStep::Gpu(true),
                CollideStep::Compare,
            ]
        );
        assert!(matches!(parse("collide", ""), Some(Err(_))));
        assert!(matches!(parse("collide-step", "lots"), Some(Err(_))));
        assert_eq!(parse("tritri", "tori"), None);
    }
}
