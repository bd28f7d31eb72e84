//! The simulate mode: the full collision pipeline live
//! ([`crate::sim::simulate`]) — N copies of a box and a torus spawned at
//! seeded random poses fall on the ground, collide and settle; every frame
//! runs broad phase, narrow phase and response: with the GPU backend the
//! whole step on the GPU with the bodies resident ([`crate::sim::simulate::resident`]),
//! with gpu-detect the phases on the GPU and the solver on the CPU, or
//! everything on the CPU.
//!
//! The viewport shows the bodies, the contacts as points coloured by depth
//! with their normals, the broad phase's candidate pairs as lines between
//! the bodies' centres (both read back by the gpu-detect and CPU backends;
//! the resident step keeps them on the GPU and reports their counts), and
//! for a picked body its sampling points and the inside cells of its field
//! (`draw`); with "exact tri–tri" the picked body's pairs are narrowed
//! by triangle–triangle tests ([`crate::sim::simulate`]'s `exact` module)
//! and their intersection segments drawn as magenta lines. Each stepped frame's phases (GPU time per phase with the
//! resident step) go to the profiler; every frame's states are kept so the
//! run can be rewound, so the resident step's poses are read back each
//! frame (80 bytes a body).
//!
//! OBJ files dropped on the window (or `simulate-add:PATH`) join the box
//! and the torus as meshes, scaled to fit a 0.8-unit box, each adding one
//! body; the scene restarts with them. `simulate:N` spawns N copies of
//! the meshes (in turn) at seeded random poses.

mod draw;
mod panel;

use eframe::egui;
use glam::{EulerRot, Mat4, Quat, Vec3};

use super::{Mode, ModeRequest, Panels, StepDoc, StepTable, Steps, args, step};
use crate::app::shell::Shell;
use crate::mesh::{Mesh, box_mesh, torus};
use crate::sim::collide::BodyState;
use crate::sim::simulate::{
    BodySpec, BroadPhase, FieldParams, Ground, Pipeline, PipelineBackend, PipelineParams,
};
use crate::stages::collide::ColliderParams;
use crate::stages::sdf::SdfParams;

/// Frames kept for rewinding.
const HISTORY: usize = 2000;

/// The mode's state.
pub struct SimulateMode {
    count: u32,
    seed: u32,
    fields: FieldParams,
    params: PipelineParams,
    /// The backend asked for (the CPU when the adapter has no compute).
    backend: PipelineBackend,
    sim: Option<Pipeline>,
    /// The meshes as spawned (their own coordinates), for drawing.
    meshes: Vec<Mesh>,
    /// Meshes dropped on the window, scaled to fit.
    dropped: Vec<Mesh>,
    history: Vec<Vec<BodyState>>,
    playing: bool,
    step_once: bool,
    picked: Option<usize>,
    /// The picked body's pairs narrowed by exact triangle–triangle tests.
    exact: bool,
    show_pairs: bool,
    step_ms: f64,
    error: Option<String>,
    frame_pending: bool,
}

impl Default for SimulateMode {
    fn default() -> Self {
        SimulateMode {
            count: 12,
            seed: 1,
            fields: FieldParams {
                sdf: SdfParams {
                    resolution: 24,
                    ..SdfParams::default()
                },
                ..FieldParams::default()
            },
            params: PipelineParams::default(),
            backend: PipelineBackend::Gpu,
            sim: None,
            meshes: Vec::new(),
            dropped: Vec::new(),
            history: Vec::new(),
            playing: false,
            step_once: false,
            picked: None,
            exact: false,
            show_pairs: true,
            step_ms: 0.0,
            error: None,
            frame_pending: true,
        }
    }
}

/// Edge of the box a dropped mesh is scaled to fit.
const DROPPED_SIZE: f32 = 0.8;

/// `mesh` centred and scaled to fit a [`DROPPED_SIZE`] box.
fn fitted(mesh: &Mesh) -> Mesh {
    let b = mesh.bounds();
    let scale = DROPPED_SIZE / b.size().max_element().max(1e-12);
    mesh.transformed(Mat4::from_scale(Vec3::splat(scale)) * Mat4::from_translation(-b.center()))
}

/// `n` bodies taking the `meshes` meshes in turn, at seeded random poses in
/// a column above the ground.
fn spawn(n: u32, seed: u32, meshes: usize) -> Vec<BodySpec> {
    let mut s = seed.wrapping_mul(0x9e37_79b9) | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        (s >> 8) as f32 / (1u32 << 24) as f32
    };
    (0..n)
        .map(|i| BodySpec {
            mesh: i as usize % meshes.max(1),
            position: Vec3::new(3.0 * next() - 1.5, 0.8 + 1.2 * i as f32, 3.0 * next() - 1.5),
            orientation: Quat::from_euler(EulerRot::XYZ, 6.0 * next(), 6.0 * next(), 0.0),
            velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            density: 1000.0,
            is_static: false,
        })
        .collect()
}

impl SimulateMode {
    /// The backend that runs: the CPU without GPU compute, and gpu-detect
    /// for an image-space broad phase or an exact body asked of the
    /// resident step (which sweeps its own boxes and samples fields only).
    fn backend(&self, gpu_ok: bool) -> PipelineBackend {
        match self.backend {
            _ if !gpu_ok => PipelineBackend::Cpu,
            PipelineBackend::Gpu
                if self.params.broad != BroadPhase::SortAndSweep || self.exact_body().is_some() =>
            {
                PipelineBackend::GpuDetect
            }
            b => b,
        }
    }

    /// The body whose pairs are exact: the picked one, when asked.
    fn exact_body(&self) -> Option<usize> {
        self.picked.filter(|_| self.exact)
    }

    /// Tells the simulation which body is exact (the picked one or none).
    fn apply_exact(&mut self) {
        let exact = self.exact_body();
        if let Some(sim) = &mut self.sim {
            for i in 0..sim.body_count() {
                sim.set_exact(i, exact == Some(i));
            }
        }
    }

    /// The scene built afresh (paused).
    fn rebuild(&mut self, shell: &Shell) -> Result<(), String> {
        let mut meshes = vec![
            box_mesh(2).transformed(Mat4::from_scale(Vec3::new(0.8, 0.5, 0.6))),
            torus(24, 12, 0.4, 0.15),
        ];
        meshes.extend(self.dropped.iter().cloned());
        let ground = Some(Ground {
            point: Vec3::ZERO,
            normal: Vec3::Y,
        });
        let gpu = shell.gpu_ok().then_some(&shell.render_gpu);
        let specs = spawn(self.count, self.seed, meshes.len());
        let sim =
            Pipeline::new(&meshes, &specs, ground, &self.fields, gpu).map_err(|e| e.to_string())?;
        self.history = vec![sim.states()];
        self.sim = Some(sim);
        self.meshes = meshes;
        self.playing = false;
        self.picked = None;
        self.error = None;
        self.frame_pending = true;
        Ok(())
    }

    /// Adds the mesh files at `paths` as meshes, one body each, and
    /// restarts the scene; on any error nothing is added.
    fn add_files(&mut self, shell: &Shell, paths: &[std::path::PathBuf]) -> Result<(), String> {
        let mut added = Vec::with_capacity(paths.len());
        for path in paths {
            let (mesh, _) = crate::mesh::load_file_merged(path)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            added.push(fitted(&mesh));
        }
        let (dropped, count) = (self.dropped.len(), self.count);
        self.dropped.extend(added);
        // Enough bodies that each mesh, the new ones included, has one.
        self.count = (self.count + paths.len() as u32).max(2 + self.dropped.len() as u32);
        if let Err(e) = self.rebuild(shell) {
            self.dropped.truncate(dropped);
            self.count = count;
            return Err(e);
        }
        Ok(())
    }

    /// Advances `n` frames now, recording each one's phases.
    fn advance(&mut self, shell: &mut Shell, n: u32) -> Result<(), String> {
        self.params.backend = self.backend(shell.gpu_ok());
        let sim = self.sim.as_mut().ok_or("no pipeline scene is open")?;
        for _ in 0..n {
            let start = std::time::Instant::now();
            // Timed: the profiler shows each phase's GPU time.
            let phases = sim
                .step_timed(&self.params)
                .map_err(|e| e.to_string())?
                .timings
                .phases
                .clone();
            sim.sync().map_err(|e| e.to_string())?;
            self.step_ms = start.elapsed().as_secs_f64() * 1e3;
            shell.history.record_run(
                "simulate",
                format!("frame {} ({})", sim.frame, self.params.backend.name()),
                phases,
            );
            self.history.push(sim.states());
            if self.history.len() > HISTORY {
                self.history.remove(0);
            }
        }
        Ok(())
    }

    /// Goes back `n` frames (as far as the history reaches).
    fn rewind(&mut self, n: usize) {
        let Some(sim) = &mut self.sim else { return };
        let back = n.min(self.history.len().saturating_sub(1));
        self.history.truncate(self.history.len() - back);
        if let Some(states) = self.history.last() {
            for (b, s) in sim.bodies.iter_mut().zip(states) {
                b.state = *s;
            }
        }
        sim.states_changed();
        sim.frame -= back.min(sim.frame);
        sim.contacts.clear();
        sim.summary.pairs.clear();
        sim.summary.segments.clear();
    }

    fn run_frame(&mut self, shell: &mut Shell) {
        if self.sim.is_none()
            && self.error.is_none()
            && let Err(e) = self.rebuild(shell)
        {
            self.error = Some(e);
        }
        if (self.playing || std::mem::take(&mut self.step_once))
            && let Err(e) = self.advance(shell, 1)
        {
            self.error = Some(e);
            self.playing = false;
        }
        let Some(sim) = &self.sim else { return };
        draw::draw(
            sim,
            &self.meshes,
            self.picked,
            self.show_pairs,
            &mut shell.viewport,
            self.frame_pending,
        );
        self.frame_pending = false;
        if self.playing {
            shell.ctx().request_repaint();
        }
    }

    fn apply(&mut self, shell: &mut Shell, step: SimulateStep) -> Result<ModeRequest, String> {
        match step {
            SimulateStep::Spawn(n) => {
                if !(1..=2000).contains(&n) {
                    return Err(format!("simulate:{n}: the body count must be in 1..=2000"));
                }
                self.count = n;
                self.rebuild(shell)?;
                return Ok(ModeRequest::Activate);
            }
            SimulateStep::Add(path) => {
                self.add_files(shell, &[path])?;
                return Ok(ModeRequest::Activate);
            }
            SimulateStep::Step(n) => self.advance(shell, n)?,
            SimulateStep::Rewind(n) => self.rewind(n as usize),
            SimulateStep::Backend(backend) => {
                if backend.detects_on_gpu() && !shell.gpu_ok() {
                    return Err(
                        "the GPU pipeline needs GPU compute, which this adapter lacks".into(),
                    );
                }
                self.backend = backend;
            }
            SimulateStep::Broad(broad) => self.params.broad = broad,
            SimulateStep::Pick(i) => {
                let count = self.sim.as_ref().map_or(0, Pipeline::body_count);
                if i >= count {
                    return Err(format!("simulate-pick:{i}: there are {count} bodies"));
                }
                self.picked = Some(i);
                self.apply_exact();
            }
            SimulateStep::Exact(on) => {
                self.exact = on;
                self.apply_exact();
            }
            SimulateStep::ContactThreshold(eps) => self.params.colliders.contact_threshold = eps,
        }
        Ok(ModeRequest::Stay)
    }
}

/// The simulate mode's script steps.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SimulateStep {
    /// `simulate:N`: show the mode with N bodies spawned afresh.
    Spawn(u32),
    /// `simulate-add:PATH`: add a mesh file's mesh as a body (as dropping
    /// it on the window does).
    Add(std::path::PathBuf),
    /// `simulate-step:N`: advance N frames.
    Step(u32),
    /// `simulate-rewind:N`: go back N frames.
    Rewind(u32),
    /// `simulate-gpu:on|off`: the resident GPU step or the CPU;
    /// `simulate-backend:gpu|gpu-detect|cpu`: any backend.
    Backend(PipelineBackend),
    /// `simulate-broad:sweep|image|image-stencil`: the broad phase.
    Broad(BroadPhase),
    /// `simulate-pick:I`: show body I's samples and field.
    Pick(usize),
    /// `simulate-exact:on|off`: exact triangle–triangle narrow phase for
    /// the picked body's pairs.
    Exact(bool),
    /// `simulate-contact:D`: the contact threshold (world units).
    ContactThreshold(f32),
}

const STEPS: &[StepDoc] = &[
    step(
        "simulate",
        "N",
        "spawn N bodies at random poses above the ground",
    ),
    step(
        "simulate-add",
        "PATH",
        "add a mesh file (.obj, .ply, .stl, .off) as one more body (as dropping it does)",
    ),
    step("simulate-step", "N", "advance the pipeline N frames"),
    step("simulate-rewind", "N", "go back N frames"),
    step(
        "simulate-gpu",
        "[on|off]",
        "the whole step on the GPU (on) or the CPU (off)",
    ),
    step(
        "simulate-backend",
        "gpu|gpu-detect|cpu",
        "where the phases run (gpu-detect: GPU phases, CPU solver)",
    ),
    step(
        "simulate-broad",
        "sweep|image|image-stencil",
        "the broad phase: sort-and-sweep, or the interference test in image space (compute or stencil; runs gpu-detect on the GPU)",
    ),
    step(
        "simulate-pick",
        "I",
        "show body I's sampling points and field",
    ),
    step(
        "simulate-exact",
        "[on|off]",
        "exact triangle–triangle narrow phase for the picked body's pairs, its intersection segments drawn (runs gpu-detect on the GPU)",
    ),
    step(
        "simulate-contact",
        "D",
        "the contact threshold: samples within D of the other surface are contacts (0 = the inside test)",
    ),
];

fn parse(verb: &str, arg: &str) -> Option<Result<SimulateStep, String>> {
    Some(match verb {
        "simulate" => args::number(verb, arg, "a body count").map(SimulateStep::Spawn),
        "simulate-add" if arg.is_empty() => Err(format!("{verb}: expected a mesh file's path")),
        "simulate-add" => Ok(SimulateStep::Add(arg.into())),
        "simulate-step" => args::number(verb, arg, "a frame count").map(SimulateStep::Step),
        "simulate-rewind" => args::number(verb, arg, "a frame count").map(SimulateStep::Rewind),
        "simulate-gpu" => args::on_off(verb, arg).map(|on| {
            SimulateStep::Backend(if on {
                PipelineBackend::Gpu
            } else {
                PipelineBackend::Cpu
            })
        }),
        "simulate-backend" => PipelineBackend::ALL
            .into_iter()
            .find(|b| b.name() == arg)
            .map(SimulateStep::Backend)
            .ok_or_else(|| format!("{verb}:{arg}: expected gpu, gpu-detect or cpu")),
        "simulate-broad" => BroadPhase::parse(arg)
            .map(SimulateStep::Broad)
            .ok_or_else(|| format!("{verb}:{arg}: expected sweep, image or image-stencil")),
        "simulate-pick" => args::number(verb, arg, "a body index").map(SimulateStep::Pick),
        "simulate-exact" => args::on_off(verb, arg).map(SimulateStep::Exact),
        "simulate-contact" => args::number(verb, arg, "a distance")
            .and_then(|d| {
                ColliderParams::checked_contact_threshold(d)
                    .map_err(|e| format!("{verb}:{arg}: {e}"))
            })
            .map(SimulateStep::ContactThreshold),
        _ => return None,
    })
}

impl Mode for SimulateMode {
    fn name(&self) -> &'static str {
        "simulate"
    }

    fn old_names(&self) -> &'static [&'static str] {
        &["pipeline"]
    }

    fn old_step_prefix(&self) -> Option<&'static str> {
        Some("pipeline")
    }

    fn title(&self) -> &'static str {
        "Pipeline"
    }

    fn toggle_pause(&mut self) -> bool {
        self.playing = !self.playing;
        true
    }

    /// Meshes dropped become bodies; other files (a field, a scene) go
    /// where they would go from any mode.
    fn files_dropped(&mut self, shell: &mut Shell, paths: &[std::path::PathBuf]) -> bool {
        let mesh = |p: &std::path::PathBuf| {
            p.extension()
                .and_then(|e| e.to_str())
                .and_then(crate::mesh::MeshFormat::from_extension)
                .is_some()
        };
        if !paths.iter().all(mesh) {
            return false;
        }
        match self.add_files(shell, paths) {
            Ok(()) => shell.notify(
                format!("{} mesh(es) added to the pipeline scene", paths.len()),
                false,
            ),
            Err(e) => shell.notify(e, true),
        }
        true
    }

    fn panels(&self) -> Panels {
        Panels {
            inspector: false,
            slice: false,
            profiler: true,
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
        let Some(sim) = &self.sim else {
            return;
        };
        let keys = draw::keys(
            sim,
            self.picked,
            self.show_pairs,
            shell.settings.view.color_map,
        );
        crate::app::shell::legend::keys_ui(ui, shell, &keys);
    }
}

impl Steps for SimulateMode {
    type Step = SimulateStep;
    const TABLE: StepTable<Self, SimulateStep> = StepTable::new(STEPS, parse, Self::apply);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_simulate_steps() {
        let steps: Vec<SimulateStep> = [
            ("simulate", "20"),
            ("simulate-add", "a.obj"),
            ("simulate-step", "60"),
            ("simulate-rewind", "10"),
            ("simulate-gpu", "off"),
            ("simulate-backend", "gpu-detect"),
            ("simulate-broad", "image-stencil"),
            ("simulate-pick", "3"),
            ("simulate-exact", "on"),
            ("simulate-contact", "0.02"),
        ]
        .into_iter()
        .map(|(verb, arg)| parse(verb, arg).unwrap().unwrap())
        .collect();
        assert_eq!(
            steps,
            vec![
                SimulateStep::Spawn(20),
                SimulateStep::Add("a.obj".into()),
                SimulateStep::Step(60),
                SimulateStep::Rewind(10),
                SimulateStep::Backend(PipelineBackend::Cpu),
                SimulateStep::Backend(PipelineBackend::GpuDetect),
                SimulateStep::Broad(BroadPhase::ImageStencil),
                SimulateStep::Pick(3),
                SimulateStep::Exact(true),
                SimulateStep::ContactThreshold(0.02),
            ]
        );
        assert!(matches!(parse("simulate-contact", "-0.1"), Some(Err(_))));
        assert!(matches!(parse("simulate-contact", "NaN"), Some(Err(_))));
        assert!(matches!(parse("simulate", "many"), Some(Err(_))));
        assert!(matches!(parse("simulate-backend", "gpu2"), Some(Err(_))));
        assert!(matches!(parse("simulate-broad", "bvh"), Some(Err(_))));
        assert!(matches!(parse("simulate-add", ""), Some(Err(_))));
        assert_eq!(parse("collide", "line"), None);
    }

    #[test]
    fn spawned_bodies_are_seeded_and_above_the_ground() {
        let a = spawn(10, 4, 3);
        assert_eq!(a, spawn(10, 4, 3));
        assert_ne!(a, spawn(10, 5, 3));
        assert!(a.iter().all(|b| b.position.y >= 0.8));
        let meshes: Vec<usize> = a.iter().map(|b| b.mesh).collect();
        assert_eq!(meshes[..4], [0, 1, 2, 0]);
    }

    #[test]
    fn a_dropped_mesh_is_centred_and_fits_the_box() {
        let big = box_mesh(1).transformed(Mat4::from_scale_rotation_translation(
            Vec3::new(40.0, 10.0, 20.0),
            Quat::IDENTITY,
            Vec3::new(100.0, -3.0, 7.0),
        ));
        let b = fitted(&big).bounds();
        assert!(b.center().length() < 1e-4, "{b:?}");
        assert!(
            (b.size().max_element() - DROPPED_SIZE).abs() < 1e-5,
            "{b:?}"
        );
    }
}
