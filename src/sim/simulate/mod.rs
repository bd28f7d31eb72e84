//! The full collision pipeline, every frame: many mesh bodies (and an
//! optional ground plane) falling, colliding and settling under gravity —
//! broad phase, narrow phase and response, on the GPU or on the CPU
//! (Sundholm 2010, §7.1.3's rigid-body demonstrator, scaled from a few
//! bodies to many; his §8.2 asks for exactly this batching).
//!
//! # The phases of a (sub)step
//!
//! 1. **Gravity** on the dynamic bodies' velocities.
//! 2. **Broad phase** (`broad`): sort-and-sweep over the bodies' world
//!    boxes — each mesh's object-frame bounding box, posed, grown by
//!    [`PipelineParams::box_margin`] (the margin and the contact threshold)
//!    and by the distance the body moves in the step — plus the ground
//!    against every dynamic body that reaches it.
//!    GPU: one key dispatch, the radix sort, one sweep dispatch, one map.
//! 3. **Narrow phase** ([`crate::stages::collide`]): each candidate pair's
//!    sampling points against the other body's distance field (and samples
//!    against the ground plane; every vertex is a sample, flat ones too —
//!    [`crate::stages::sampling::SamplingParams::flat_vertices`] says
//!    why), all pairs in one dispatch, fields and
//!    samples resident on the GPU since the pipeline was built. A sample
//!    closer than the contact threshold `ε`
//!    (`ColliderParams::contact_threshold`) to the other surface is a
//!    contact of depth `ε − d`, so bodies rest about `ε` apart; exact
//!    tri–tri pairs (`exact`) take only crossing triangles.
//! 4. **Response**: sequential impulses with Coulomb friction
//!    ([`crate::sim::collide::solve_contacts`]), semi-implicit Euler, then
//!    relaxing sweeps that take position correction's velocity back out
//!    ([`crate::sim::collide::relax_contacts`]); every tolerance is relative
//!    to the bodies' size ([`crate::sim::collide`] says how).
//!    Impulses rather than position-based dynamics because the field
//!    contacts carry a depth and a normal per sample — exactly the rows of a
//!    velocity-level contact solver — and the accumulated, clamped impulses
//!    give static friction (a resting box does not creep), restitution and
//!    a stack that stands with a handful of iterations; position-based
//!    projection would need the same contacts re-evaluated after each
//!    projection, i.e. a narrow phase per iteration.
//!
//! A frame longer than [`MAX_SUBSTEP`] is split into as many substeps as
//! keep each at most that long ([`PipelineParams::substeps_per_frame`]):
//! the contact solver's position correction and restitution assume a
//! contact lives a small part of a body's fall, and at a tenth of a second
//! or more per step a resting body would never settle.
//!
//! Three backends:
//! - [`PipelineBackend::Cpu`]: every phase on the CPU — the reference.
//! - [`PipelineBackend::GpuDetect`]: phases 2 and 3 on the GPU; the
//!   candidate pairs and contacts come back each step for the CPU solver,
//!   so it gives the CPU trajectory up to the contacts' float rounding, and
//!   each phase can be compared ([`Pipeline::detect`]).
//! - [`PipelineBackend::Gpu`]: the whole step on the GPU with the bodies
//!   resident ([`resident`]): a parallel solver (Jacobi impulses with mass
//!   splitting, its docs say why), one submission per frame, summaries
//!   read back asynchronously and poses only when asked
//!   ([`Pipeline::sync`]).
//!
//! # Poses
//!
//! Each mesh is simulated about its centre of mass (`mass`): its field
//! and samples are built on the mesh moved so that the centre is at the
//! origin, and [`Pipeline::mesh_pose`] turns the body's state back into the
//! pose of the mesh's own coordinates, the one a scene file gives.

mod broad;
mod detect;
mod exact;
pub(crate) mod image_broad;
mod mass;
mod params;
pub mod resident;
pub mod scene_file;
#[cfg(test)]
mod tests;

pub(crate) use broad::ground_pairs;
pub use broad::{BodyBox, BroadGpu, BroadParams, FLAG_STATIC, GroundPlane, pairs_cpu};
pub use detect::Detected;
pub use exact::ExactSegment;
pub use image_broad::BroadPhase;
pub use mass::MassProperties;
pub use params::{MAX_SUBSTEP, PipelineParams};

use std::time::Instant;

use glam::{Mat4, Quat, Vec3};

use crate::geom::Aabb;
use crate::gpu::{GpuContext, GpuError};
use crate::mesh::Mesh;
use crate::sim::collide::{BodyState, RigidBody, integrate_velocities, respond};
use crate::stages::collide::{
    BodyShape, ColliderError, ColliderGpu, ColliderShape, Contact, ContactSet, ResidentShapes,
};
use crate::stages::interfere::{InterferenceError, InterferenceGpu};
use crate::stages::sampling::SamplingParams;
use crate::stages::sdf::SdfParams;
use crate::stages::tritri::{TriModel, TritriError, TritriGpu};
use crate::timing::Timings;
use image_broad::ImageBroad;
use resident::layout::{GpuBody, GpuShape, GpuSummary};
use resident::{FrameRequest, ResidentStep, StateBatch};

crate::stages::backend::backends! {
    /// Where the phases run.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub enum PipelineBackend {
        /// The whole step on the GPU, bodies resident.
        #[default]
        Gpu { name: "gpu", gpu: true },
        /// Broad and narrow phase on the GPU, contacts read back, CPU solver.
        GpuDetect { name: "gpu-detect", gpu: true },
        /// Every phase on the CPU.
        Cpu { name: "cpu", gpu: false },
    }
}

impl PipelineBackend {
    /// True when the broad and narrow phases run on the GPU.
    pub fn detects_on_gpu(self) -> bool {
        self != PipelineBackend::Cpu
    }
}

/// How the meshes become fields and samples.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct FieldParams {
    pub sdf: SdfParams,
    pub sampling: SamplingParams,
}

/// One body at the start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodySpec {
    /// Index into the meshes.
    pub mesh: usize,
    /// Pose of the mesh's own coordinates.
    pub position: Vec3,
    pub orientation: Quat,
    /// Of the centre of mass.
    pub velocity: Vec3,
    pub angular_velocity: Vec3,
    /// Mass per unit volume.
    pub density: f32,
    /// Never moves.
    pub is_static: bool,
}

/// The ground: the plane through `point` with (unit) `normal`, solid below.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ground {
    pub point: Vec3,
    pub normal: Vec3,
}

/// What one frame reports. From the resident GPU step it arrives
/// asynchronously: it is the newest summary read back, `lag` frames old.
#[derive(Clone, Debug, Default)]
pub struct FrameSummary {
    /// Candidate pairs of the frame's last substep (not read back by the
    /// resident GPU step: `pair_count` only).
    pub pairs: Vec<(u32, u32)>,
    pub pair_count: usize,
    /// Contacts of the frame's last substep: every pair's sampling points
    /// inside the other body, both sides (A's in B and B's in A), and
    /// samples below the ground, each once — the same quantity on every
    /// backend (tests/it/simulate.rs checks it from one state) — plus the
    /// exact pairs' contacts (`exact`).
    pub contacts: usize,
    /// The deepest contact of the frame's last substep.
    pub max_depth: f32,
    /// Kinetic plus potential energy after the frame.
    pub energy: f64,
    /// Frames stepped since the one summarised.
    pub lag: usize,
    /// Per phase, summed over the substeps.
    pub timings: Timings,
    /// Intersection segments of the exact pairs (`exact`) in the frame's
    /// last substep.
    pub segments: Vec<ExactSegment>,
}

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Collider(#[from] ColliderError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error("body {0}: {1}")]
    BadBody(usize, String),
    #[error("the ground normal must be finite and non-zero")]
    BadGround,
    #[error(transparent)]
    Interference(#[from] InterferenceError),
    #[error(
        "the resident gpu step sweeps its own boxes: the {0} broad phase runs with the cpu and gpu-detect backends"
    )]
    ResidentBroad(&'static str),
    #[error(transparent)]
    Tritri(#[from] TritriError),
    #[error(
        "body {0} is exact (triangle–triangle narrow phase), which runs with the cpu and gpu-detect backends, not the resident gpu step"
    )]
    ResidentExact(usize),
}

struct GpuParts {
    ctx: GpuContext,
    broad: BroadGpu,
    /// The interference stage, made on the image-space phase's first use.
    interference: std::sync::OnceLock<InterferenceGpu>,
    /// The triangle–triangle stage, made on the exact phase's first use.
    tritri: std::sync::OnceLock<TritriGpu>,
    colliders: ColliderGpu,
    resident: ResidentShapes,
    step: ResidentStep,
}

/// A running simulation.
pub struct Pipeline {
    /// Fields and samples of the meshes, centred on their centres of mass.
    pub shapes: Vec<ColliderShape>,
    /// Centre of mass of each mesh, in the mesh's coordinates.
    pub centres: Vec<Vec3>,
    /// Object-frame bounds of the centred meshes.
    bounds: Vec<Aabb>,
    /// The centred meshes for the image-space broad phase.
    image: ImageBroad,
    /// The centred meshes for the exact narrow phase.
    tri_models: Vec<TriModel>,
    /// Per scene body: narrow phase by triangle–triangle tests ([`exact`]).
    exact: Vec<bool>,
    /// The scene's bodies, then the ground if there is one.
    pub bodies: Vec<RigidBody>,
    pub ground: Option<Ground>,
    /// Frames stepped.
    pub frame: usize,
    pub summary: FrameSummary,
    /// The contacts of the last substep (for drawing; the CPU solver's).
    pub contacts: Vec<Contact>,
    gpu: Option<GpuParts>,
    /// The resident GPU state is newer than `bodies` ([`Pipeline::sync`]).
    gpu_ahead: bool,
    /// `bodies` changed since the resident state was written.
    cpu_ahead: bool,
}

impl Pipeline {
    /// Builds fields and samples (CPU) of every mesh, the bodies, and with
    /// `gpu` the GPU phases with the shapes uploaded once.
    pub fn new(
        meshes: &[Mesh],
        specs: &[BodySpec],
        ground: Option<Ground>,
        fields: &FieldParams,
        gpu: Option<&GpuContext>,
    ) -> Result<Pipeline, PipelineError> {
        let mut shapes = Vec::with_capacity(meshes.len());
        let mut props = Vec::with_capacity(meshes.len());
        let mut centred = Vec::with_capacity(meshes.len());
        // The ground has no samples of its own: only a body's samples can
        // touch it, so every vertex is one (the extreme points in any
        // direction are vertices).
        let sampling = SamplingParams {
            flat_vertices: true,
            ..fields.sampling
        };
        for mesh in meshes {
            let p = MassProperties::of(mesh);
            let c = mesh.transformed(Mat4::from_translation(-p.centre));
            shapes.push(ColliderShape::from_mesh(&c, &fields.sdf, &sampling)?);
            props.push(p);
            centred.push(c);
        }
        let bounds = meshes
            .iter()
            .zip(&props)
            .map(|(m, p)| {
                let b = m.bounds();
                Aabb {
                    min: b.min - p.centre,
                    max: b.max - p.centre,
                }
            })
            .collect();
        let mut bodies = Vec::with_capacity(specs.len() + 1);
        for (i, s) in specs.iter().enumerate() {
            let p = props.get(s.mesh).ok_or_else(|| {
                PipelineError::BadBody(i, format!("mesh {} of {}", s.mesh, meshes.len()))
            })?;
            if !(s.density.is_finite() && s.density > 0.0) {
                return Err(PipelineError::BadBody(i, "density must be > 0".into()));
            }
            if p.flat && !s.is_static {
                return Err(PipelineError::BadBody(
                    i,
                    format!(
                        "mesh {} encloses no volume (a lone triangle or a flat sheet has no mass): a moving body needs a closed surface; make it static",
                        s.mesh
                    ),
                ));
            }
            let rotation = s.orientation.normalize();
            let centre = s.position + rotation * p.centre;
            let shape = BodyShape::Mesh(s.mesh);
            let mut body = if s.is_static {
                RigidBody::fixed(shape, centre, rotation)
            } else {
                RigidBody::dynamic(shape, centre, rotation, s.density * p.volume, p.size)
            };
            if !s.is_static {
                body.state.velocity = s.velocity;
                body.state.angular_velocity = s.angular_velocity;
            }
            bodies.push(body);
        }
        if let Some(g) = ground {
            if !(g.normal.is_finite() && g.point.is_finite() && g.normal.length() > 1e-6) {
                return Err(PipelineError::BadGround);
            }
            let normal = g.normal.normalize();
            bodies.push(RigidBody::fixed(
                BodyShape::Plane {
                    normal,
                    offset: normal.dot(g.point),
                },
                Vec3::ZERO,
                Quat::IDENTITY,
            ));
        }
        let mut pipeline = Pipeline {
            shapes,
            centres: props.iter().map(|p| p.centre).collect(),
            bounds,
            image: ImageBroad::new(&centred),
            tri_models: centred
                .iter()
                .map(TriModel::new)
                .collect::<Result<_, _>>()?,
            exact: vec![false; specs.len()],
            bodies,
            ground,
            frame: 0,
            summary: FrameSummary::default(),
            contacts: Vec::new(),
            gpu: None,
            gpu_ahead: false,
            cpu_ahead: false,
        };
        if let Some(ctx) = gpu {
            let colliders = ColliderGpu::new(ctx);
            let broad = BroadGpu::new(ctx);
            let resident = colliders.upload(&pipeline.shapes)?;
            let step = ResidentStep::new(
                ctx,
                &broad,
                &resident,
                &pipeline.gpu_shapes(),
                &pipeline.gpu_bodies(),
                pipeline.body_count() as u32,
            )?;
            pipeline.gpu = Some(GpuParts {
                ctx: ctx.clone(),
                broad,
                interference: std::sync::OnceLock::new(),
                tritri: std::sync::OnceLock::new(),
                colliders,
                resident,
                step,
            });
        }
        Ok(pipeline)
    }

    /// The meshes' bounds and samples as the resident step reads them.
    fn gpu_shapes(&self) -> Vec<GpuShape> {
        let mut start = 0;
        self.shapes
            .iter()
            .zip(&self.bounds)
            .map(|(s, b)| {
                let count = s.samples.samples.len() as u32;
                start += count;
                GpuShape {
                    lo: b.min.to_array(),
                    sample_start: start - count,
                    hi: b.max.to_array(),
                    sample_count: count,
                }
            })
            .collect()
    }

    /// The bodies as the resident step stores them.
    fn gpu_bodies(&self) -> Vec<GpuBody> {
        self.bodies
            .iter()
            .map(|b| {
                let s = &b.state;
                GpuBody {
                    position: s.position.to_array(),
                    inverse_mass: b.inverse_mass,
                    rotation: s.rotation.to_array(),
                    velocity: s.velocity.to_array(),
                    shape: match b.shape {
                        BodyShape::Mesh(m) => m as u32,
                        _ => 0,
                    },
                    angular_velocity: s.angular_velocity.to_array(),
                    inverse_inertia: b.inverse_inertia.to_array(),
                    size: b.size,
                    ..bytemuck::Zeroable::zeroed()
                }
            })
            .collect()
    }

    fn set_from_gpu(&mut self, bodies: &[GpuBody]) {
        for (b, g) in self.bodies.iter_mut().zip(bodies) {
            b.state = BodyState {
                position: Vec3::from(g.position),
                rotation: Quat::from_array(g.rotation),
                velocity: Vec3::from(g.velocity),
                angular_velocity: Vec3::from(g.angular_velocity),
            };
        }
    }

    /// Brings `bodies` up to date with the resident GPU state (waits for
    /// the GPU) when GPU frames ran since the last sync.
    pub fn sync(&mut self) -> Result<(), PipelineError> {
        if self.gpu_ahead {
            let bodies = self.gpu()?.step.read_bodies()?;
            self.set_from_gpu(&bodies);
            self.gpu_ahead = false;
        }
        Ok(())
    }

    /// Tells the pipeline that `bodies` were changed by the caller (after a
    /// [`Pipeline::sync`]): the next GPU frame uploads them.
    pub fn states_changed(&mut self) {
        self.cpu_ahead = true;
        self.gpu_ahead = false;
    }

    /// Waits for the resident step's summaries in flight: afterwards
    /// `summary` is the last frame's (poses stay on the GPU).
    pub fn wait_summary(&mut self) -> Result<&FrameSummary, PipelineError> {
        if let Some(g) = self.gpu.as_mut().filter(|_| self.gpu_ahead)
            && let Some(arrived) = g.step.wait_summary()?
        {
            let timings = std::mem::take(&mut self.summary.timings);
            // Lag in resident frames: the ring counts only those, and the
            // caller may have stepped other backends in between.
            self.summary = summary_of(&arrived.summary, g.step.frames - arrived.frame, timings);
        }
        Ok(&self.summary)
    }

    /// Waits for the summaries in flight and syncs the bodies: afterwards
    /// `summary` and `bodies` are those of the last frame.
    pub fn finish(&mut self) -> Result<&FrameSummary, PipelineError> {
        self.wait_summary()?;
        self.sync()?;
        Ok(&self.summary)
    }

    /// Number of scene bodies (the ground not counted).
    pub fn body_count(&self) -> usize {
        self.bodies.len() - usize::from(self.ground.is_some())
    }

    /// Pose of body `i`'s mesh in its own coordinates.
    pub fn mesh_pose(&self, i: usize) -> (Vec3, Quat) {
        self.mesh_pose_of(i, &self.bodies[i].state)
    }

    /// Pose of body `i`'s mesh in its own coordinates when its state is `s`.
    pub fn mesh_pose_of(&self, i: usize, s: &BodyState) -> (Vec3, Quat) {
        let BodyShape::Mesh(m) = self.bodies[i].shape else {
            return (s.position, s.rotation);
        };
        (s.position - s.rotation * self.centres[m], s.rotation)
    }

    pub fn states(&self) -> Vec<BodyState> {
        self.bodies.iter().map(|b| b.state).collect()
    }

    fn gpu(&self) -> Result<&GpuParts, PipelineError> {
        self.gpu.as_ref().ok_or_else(|| {
            GpuError::NoAdapter("the pipeline was built without a GPU".into()).into()
        })
    }

    /// One frame: `params.substeps` steps of every phase. With the
    /// resident GPU backend the frame is submitted without waiting and the
    /// summary is the newest one read back; [`Pipeline::finish`] waits.
    pub fn step(&mut self, params: &PipelineParams) -> Result<&FrameSummary, PipelineError> {
        match params.backend {
            PipelineBackend::Gpu => self.step_resident(params, false, None),
            PipelineBackend::Cpu | PipelineBackend::GpuDetect => self.step_read_back(params),
        }
    }

    /// One resident GPU frame with each phase timed on the GPU (waits for
    /// the frame; the bench and the viewer's profiler).
    pub fn step_timed(&mut self, params: &PipelineParams) -> Result<&FrameSummary, PipelineError> {
        match params.backend {
            PipelineBackend::Gpu => self.step_resident(params, true, None),
            PipelineBackend::Cpu | PipelineBackend::GpuDetect => self.step_read_back(params),
        }
    }

    /// `frames` frames, returning each frame's body states and contact
    /// count. The resident GPU step copies them into one staging buffer
    /// mapped once at the end (the batch read-back `simulate` needs).
    pub fn step_batch(
        &mut self,
        params: &PipelineParams,
        frames: usize,
    ) -> Result<Vec<(Vec<BodyState>, usize)>, PipelineError> {
        if params.backend != PipelineBackend::Gpu {
            return (0..frames)
                .map(|_| {
                    self.step(params)?;
                    Ok((self.states(), self.summary.contacts))
                })
                .collect();
        }
        let mut batch = self.gpu()?.step.batch(frames);
        for _ in 0..frames {
            self.step_resident(params, false, Some(&mut batch))?;
        }
        let read = self.gpu()?.step.read_batch(batch)?;
        let mut out = Vec::with_capacity(read.len());
        for (bodies, summary) in &read {
            self.set_from_gpu(bodies);
            out.push((self.states(), summary.contacts as usize));
        }
        if let Some((_, last)) = read.last() {
            self.summary = summary_of(last, 0, std::mem::take(&mut self.summary.timings));
        }
        self.gpu_ahead = false;
        Ok(out)
    }

    fn step_resident(
        &mut self,
        params: &PipelineParams,
        timed: bool,
        batch: Option<&mut StateBatch>,
    ) -> Result<&FrameSummary, PipelineError> {
        if params.broad != BroadPhase::SortAndSweep {
            return Err(PipelineError::ResidentBroad(params.broad.name()));
        }
        if let Some(body) = self.exact.iter().position(|&e| e) {
            return Err(PipelineError::ResidentExact(body));
        }
        let request = FrameRequest {
            params: params.step_params(self.ground_plane().as_ref()),
            substeps: params.substeps_per_frame(),
            iterations: params.gpu_iterations,
            timed,
        };
        let upload = self.cpu_ahead.then(|| self.gpu_bodies());
        let g = self
            .gpu
            .as_mut()
            .ok_or_else(|| GpuError::NoAdapter("the pipeline was built without a GPU".into()))?;
        if let Some(bodies) = upload {
            g.step.write_bodies(&bodies);
        }
        let timings = g.step.frame(&g.broad, &request, batch)?;
        self.cpu_ahead = false;
        self.gpu_ahead = true;
        self.frame += 1;
        let arrived = g.step.collect_summary()?;
        if let Some(a) = arrived {
            // An overflow dropped pairs or contacts of that frame: make
            // room for the next ones.
            g.step.grow(&g.broad, a.summary.pairs, a.summary.contacts)?;
            self.summary = summary_of(&a.summary, g.step.frames - a.frame, timings);
        } else {
            self.summary.timings = timings;
        }
        self.contacts.clear();
        Ok(&self.summary)
    }

    /// One frame of the CPU solver (phases on the CPU or detected on the
    /// GPU and read back).
    fn step_read_back(&mut self, params: &PipelineParams) -> Result<&FrameSummary, PipelineError> {
        self.sync()?;
        let rigid = params.rigid();
        let mut timings = Timings::default();
        let mut pairs = Vec::new();
        let mut segments = Vec::new();
        for _ in 0..params.substeps_per_frame() {
            integrate_velocities(&mut self.bodies, &rigid);
            let kept = ContactSet {
                contacts: std::mem::take(&mut self.contacts),
                ..ContactSet::default()
            };
            let d = self.detect_phases_into(params, &mut timings, kept)?;
            let start = Instant::now();
            respond(&mut self.bodies, &d.contacts.contacts, &rigid);
            timings.push("response", ms(start), None);
            self.contacts = d.contacts.contacts;
            pairs = d.pairs;
            segments = d.segments;
        }
        self.frame += 1;
        self.cpu_ahead = true;
        self.summary = FrameSummary {
            pair_count: pairs.len(),
            pairs,
            contacts: self.contacts.len(),
            max_depth: self.contacts.iter().map(|c| c.depth).fold(0.0, f32::max),
            energy: self.energy(params.gravity),
            lag: 0,
            timings: summed(&timings),
            segments,
        };
        Ok(&self.summary)
    }

    /// Kinetic (linear and rotational) plus gravitational potential energy
    /// of the dynamic bodies.
    pub fn energy(&self, gravity: Vec3) -> f64 {
        self.energy_of(self.bodies.iter().map(|b| &b.state), gravity)
    }

    /// [`Pipeline::energy`] of the bodies in `states` (one per body, as
    /// [`Pipeline::states`] or [`Pipeline::step_batch`] gives them).
    pub fn energy_of<'a>(
        &self,
        states: impl IntoIterator<Item = &'a BodyState>,
        gravity: Vec3,
    ) -> f64 {
        self.bodies
            .iter()
            .zip(states)
            .filter(|(b, _)| !b.is_static())
            .map(|(b, s)| {
                let m = 1.0 / b.inverse_mass as f64;
                let w_local = s.rotation.inverse() * s.angular_velocity;
                let rot: f64 = (0..3)
                    .map(|k| (w_local[k] as f64).powi(2) / b.inverse_inertia[k] as f64)
                    .sum();
                0.5 * m * (s.velocity.length_squared() as f64) + 0.5 * rot
                    - m * gravity.as_dvec3().dot(s.position.as_dvec3())
            })
            .sum()
    }
}

/// A resident frame's summary as the pipeline reports it.
fn summary_of(s: &GpuSummary, lag: usize, timings: Timings) -> FrameSummary {
    FrameSummary {
        pairs: Vec::new(),
        pair_count: s.pairs as usize,
        contacts: s.contacts as usize,
        max_depth: s.max_depth,
        energy: f64::from(s.energy),
        lag,
        timings,
        segments: Vec::new(),
    }
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// One phase per name, in first-seen order, times added up.
fn summed(t: &Timings) -> Timings {
    let mut out = Timings::default();
    for p in &t.phases {
        match out.phases.iter_mut().find(|q| q.name == p.name) {
            Some(q) => {
                q.wall_ms += p.wall_ms;
                q.gpu_ms = match (q.gpu_ms, p.gpu_ms) {
                    (Some(a), Some(b)) => Some(a + b),
                    (a, b) => a.or(b),
                };
            }
            None => out.phases.push(p.clone()),
        }
    }
    out
}
