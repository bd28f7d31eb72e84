//! The live scene on the character (Friston & Steed 2019, §6 and §8): a
//! square of cloth dropped over the shoulders and a stream of free
//! particles falling on the character, both colliding with this frame's
//! radial fields ([`crate::sim::radial`]) — on the CPU references or the
//! GPU kernels, as the mode's backend says.
//!
//! The fields of a frame become a [`FieldSet`]: its frames in the GPU
//! layout, the frames of the frame before (the motion that the
//! pseudo-continuous test marches through, §6.2), the cells, and a
//! broad-phase radius per field (its largest finite cell, 5 % and 1 cm
//! more). On the GPU the particles and the cloth stay resident between
//! frames; their state is read back each frame to draw it, so switching
//! backend carries on from the same state.
//!
//! Profiler phases: "collision" (the free particles' predict, collide and
//! update) and "cloth" (the cloth's predict, constraint iterations,
//! collide and update), CPU wall time and, on the GPU, the sum of their
//! timestamped passes.

use std::time::Instant;

use glam::Vec3;

use crate::gpu::{GpuContext, GpuRun};
use crate::sim::radial::{
    Cloth, ClothGpu, ClothParams, CollideParams, FieldSet, GpuCloth, GpuFields, GpuParticles,
    Particles, RadialSimGpu, StepParams, stream,
};
use crate::stages::radial::{Backend, FieldFrameGpu};
use crate::timing::Timings;

/// Cloth particles along each edge.
const CLOTH_N: u32 = 24;

/// What the sliders set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SceneParams {
    pub particles: usize,
    pub substeps: u32,
    pub friction: f32,
    /// Stiffness of the cloth's distance constraints.
    pub stiffness: f32,
}

impl Default for SceneParams {
    fn default() -> Self {
        SceneParams {
            particles: 2000,
            substeps: CollideParams::default().substeps,
            friction: CollideParams::default().friction,
            stiffness: ClothParams::default().stretch,
        }
    }
}

impl SceneParams {
    fn step(&self, floor: f32) -> StepParams {
        StepParams {
            floor,
            damping: 0.995,
            collide: CollideParams {
                substeps: self.substeps,
                friction: self.friction,
            },
            ..StepParams::default()
        }
    }

    fn cloth(&self) -> ClothParams {
        ClothParams {
            stretch: self.stiffness,
            ..ClothParams::default()
        }
    }
}

/// The resident GPU state.
struct GpuState {
    sim: RadialSimGpu,
    cloth_kernel: ClothGpu,
    fields: GpuFields,
    particles: GpuParticles,
    cloth: GpuCloth,
}

/// The cloth and the particles, where the character stands.
pub struct LiveScene {
    pub particles: Particles,
    pub cloth: Cloth,
    /// Particles below this height respawn.
    floor: f32,
    prev: Option<Vec<FieldFrameGpu>>,
    gpu: Option<GpuState>,
}

impl LiveScene {
    /// A fresh scene over a character whose skinned vertices are `body`.
    pub fn new(body: &[Vec3], particles: usize) -> Result<Self, String> {
        let (lo, hi) = body
            .iter()
            .fold((Vec3::MAX, Vec3::MIN), |(l, h), p| (l.min(*p), h.max(*p)));
        let height = (hi.y - lo.y).max(1e-3);
        let centre = Vec3::new((lo.x + hi.x) * 0.5, hi.y, (lo.z + hi.z) * 0.5);
        // A square of half the height, a little above the head.
        let side = 0.5 * height;
        let origin = centre + Vec3::new(-side * 0.5, 0.03 * height, -side * 0.5);
        let cloth = Cloth::grid(
            CLOTH_N,
            CLOTH_N,
            origin,
            Vec3::X * side,
            Vec3::Z * side,
            |_, _| false,
        )
        .map_err(|e| e.to_string())?;
        let spawn = stream(
            particles,
            centre + Vec3::Y * 0.2 * height,
            0.3 * height,
            0.6 * height,
        );
        Ok(LiveScene {
            particles: Particles::at(spawn),
            cloth,
            floor: lo.y - 0.1 * height,
            prev: None,
            gpu: None,
        })
    }

    /// This frame's field set; the previous frames are last step's.
    fn field_set(&mut self, frames: Vec<FieldFrameGpu>, values: &[f32]) -> FieldSet {
        let radius = frames
            .iter()
            .map(|f| {
                let n = (f.n_theta * f.n_z) as usize;
                let cells = values.get(f.offset as usize..f.offset as usize + n);
                let far = cells
                    .into_iter()
                    .flatten()
                    .filter(|v| v.is_finite())
                    .fold(0.0f32, |m, &v| m.max(v));
                far * 1.05 + 0.01
            })
            .collect();
        let prev = match self.prev.take() {
            Some(p) if p.len() == frames.len() => p,
            _ => frames.clone(),
        };
        self.prev = Some(frames.clone());
        FieldSet {
            frames,
            prev,
            radius,
            values: values.to_vec(),
        }
    }

    /// One step of the particles and the cloth against the fields
    /// `frames`/`values`, timed into `timings`.
    pub fn step(
        &mut self,
        gpu: &GpuContext,
        frames: Vec<FieldFrameGpu>,
        values: &[f32],
        params: &SceneParams,
        backend: Backend,
        timings: &mut Timings,
    ) -> Result<(), String> {
        let set = self.field_set(frames, values);
        let step = params.step(self.floor);
        let cloth_params = params.cloth();
        match backend {
            Backend::Cpu => {
                self.gpu = None;
                let start = Instant::now();
                self.particles
                    .step(&set, &step)
                    .map_err(|e| e.to_string())?;
                timings.push("collision", ms(start), None);
                let start = Instant::now();
                self.cloth
                    .step(&set, &step, &cloth_params)
                    .map_err(|e| e.to_string())?;
                timings.push("cloth", ms(start), None);
            }
            Backend::Gpu | Backend::GpuCompute => {
                self.step_gpu(gpu, &set, &step, &cloth_params, timings)?
            }
        }
        Ok(())
    }

    fn step_gpu(
        &mut self,
        gpu: &GpuContext,
        set: &FieldSet,
        step: &StepParams,
        cloth_params: &ClothParams,
        timings: &mut Timings,
    ) -> Result<(), String> {
        let err = |e: &dyn std::fmt::Display| e.to_string();
        let fits = match &self.gpu {
            Some(s) => s.fields.write(gpu, set).map_err(|e| err(&e))?,
            None => false,
        };
        if !fits {
            let fields = GpuFields::new(gpu, set).map_err(|e| err(&e))?;
            self.gpu = Some(match self.gpu.take() {
                Some(s) => GpuState { fields, ..s },
                None => GpuState {
                    sim: RadialSimGpu::new(gpu),
                    cloth_kernel: ClothGpu::new(gpu),
                    particles: GpuParticles::new(gpu, &self.particles).map_err(|e| err(&e))?,
                    cloth: GpuCloth::new(gpu, &self.cloth).map_err(|e| err(&e))?,
                    fields,
                },
            });
        }
        let s = self.gpu.as_ref().expect("made above");
        let free = s
            .sim
            .bind(&s.fields, &s.particles, step)
            .map_err(|e| err(&e))?;
        let cloth_particles = s
            .sim
            .bind(&s.fields, &s.cloth.particles, step)
            .map_err(|e| err(&e))?;
        let constraints = s
            .cloth_kernel
            .bind(&s.cloth, cloth_params)
            .map_err(|e| err(&e))?;
        for (name, cloth) in [("collision", false), ("cloth", true)] {
            let start = Instant::now();
            let mut run = GpuRun::new(gpu, name).map_err(|e| err(&e))?;
            if cloth {
                s.cloth_kernel.record_step(
                    &mut run,
                    &s.sim,
                    &s.cloth,
                    &cloth_particles,
                    &constraints,
                );
            } else {
                s.sim.record_step(&mut run, &free);
            }
            let (phases, _) = run.finish().map_err(|e| err(&e))?;
            let gpu_ms = phases.iter().map(|p| p.gpu_ms).sum::<Option<f64>>();
            timings.push(name, ms(start), gpu_ms);
        }
        let start = Instant::now();
        self.particles = s.particles.read(gpu).map_err(|e| err(&e))?;
        self.cloth.particles = s.cloth.particles.read(gpu).map_err(|e| err(&e))?;
        timings.push("read back (scene)", ms(start), None);
        Ok(())
    }
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}
