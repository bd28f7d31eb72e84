//! The full collision pipeline, every frame: many mesh bodies (and an
//! optional ground plane) falling, colliding and settling under gravity —
//! broad phase, narrow phase and response, on the GPU or on the CPU
//! (Sundholm 2010, §7.1.3's rigid-body demonstrator, scaled from a few
//! bodies to many; his §8.2 asks for exactly this batching).
//!
//! # The phases of a (sub)step
//!
//! 1. **Gravity** on the dynamic bodies' velocities.
//! 2. **Broad phase** ([`broad`]): sort-and-sweep over the bodies' world
//!    boxes — each mesh's object-frame bounding box, posed, grown by
//!    [`PipelineParams::margin`] and by the distance the body moves in the
//!    step — plus the ground against every dynamic body that reaches it.
//!    GPU: one key dispatch, the radix sort, one sweep dispatch, one map.
//! 3. **Narrow phase** ([`crate::stages::colliders`]): each candidate pair's
//!    sampling points against the other body's distance field (and samples
//!    against the ground plane), all pairs in one dispatch, fields and
//!    samples resident on the GPU since the pipeline was built.
//! 4. **Response**: sequential impulses with Coulomb friction
//!    ([`crate::sim::rigid::solve_contacts`]), then semi-implicit Euler.
//!    Impulses rather than position-based dynamics because the field
//!    contacts carry a depth and a normal per sample — exactly the rows of a
//!    velocity-level contact solver — and the accumulated, clamped impulses
//!    give static friction (a resting box does not creep), restitution and
//!    a stack that stands with a handful of iterations; position-based
//!    projection would need the same contacts re-evaluated after each
//!    projection, i.e. a narrow phase per iteration.
//!
//! With [`PipelineBackend::Gpu`] phases 2 and 3 run on the GPU; what comes
//! back each step is the candidate pairs and the contacts the solver needs.
//! The solver runs on the CPU in both backends (it is sequential by
//! nature), so the two backends give the same trajectory up to the
//! contacts' float rounding, and each phase can be compared
//! ([`Pipeline::detect`]).
//!
//! # Poses
//!
//! Each mesh is simulated about its centre of mass ([`mass`]): its field
//! and samples are built on the mesh moved so that the centre is at the
//! origin, and [`Pipeline::mesh_pose`] turns the body's state back into the
//! pose of the mesh's own coordinates, the one a scene file gives.

mod broad;
mod mass;
pub mod scene_file;
#[cfg(test)]
mod tests;

pub use broad::{BodyBox, BroadGpu, BroadParams, FLAG_STATIC, GroundPlane, pairs_cpu};
pub use mass::MassProperties;

use std::time::Instant;

use glam::{Mat3, Mat4, Quat, Vec3};

use crate::geom::Aabb;
use crate::gpu::{GpuContext, GpuError};
use crate::mesh::Mesh;
use crate::sim::rigid::{
    BodyState, RigidBody, RigidParams, integrate_positions, integrate_velocities, solve_contacts,
};
use crate::stages::colliders::{
    self, Body, BodyShape, ColliderError, ColliderGpu, ColliderParams, ColliderShape, Contact,
    ContactSet, ResidentShapes,
};
use crate::stages::sampling::SamplingParams;
use crate::stages::sdf_grid::SdfParams;
use crate::timing::Timings;

/// Where the broad and narrow phases run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PipelineBackend {
    Cpu,
    #[default]
    Gpu,
}

impl PipelineBackend {
    pub fn name(self) -> &'static str {
        match self {
            PipelineBackend::Cpu => "cpu",
            PipelineBackend::Gpu => "gpu",
        }
    }
}

/// Simulation parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PipelineParams {
    /// Seconds per frame.
    pub timestep: f32,
    /// Steps per frame (each runs every phase).
    pub substeps: u32,
    pub gravity: Vec3,
    pub restitution: f32,
    pub friction: f32,
    /// Solver sweeps per step.
    pub iterations: u32,
    /// Bounding boxes grow by this much (world units) on every side.
    pub margin: f32,
    pub colliders: ColliderParams,
    pub backend: PipelineBackend,
}

impl Default for PipelineParams {
    fn default() -> Self {
        PipelineParams {
            timestep: 1.0 / 60.0,
            substeps: 1,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            restitution: 0.2,
            friction: 0.5,
            iterations: 10,
            margin: 0.01,
            // Resting contact needs the depth at the point: the cell
            // centre's value is off by up to half a cell diagonal, which
            // position correction would turn into a jitter.
            colliders: ColliderParams {
                interpolated_depth: true,
                ..ColliderParams::default()
            },
            backend: PipelineBackend::Gpu,
        }
    }
}

impl PipelineParams {
    /// The solver's parameters for one substep.
    fn rigid(&self) -> RigidParams {
        RigidParams {
            gravity: self.gravity,
            dt: self.timestep / self.substeps.max(1) as f32,
            iterations: self.iterations,
            restitution: self.restitution,
            friction: self.friction,
            colliders: self.colliders,
            ..RigidParams::default()
        }
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

/// What one frame reports.
#[derive(Clone, Debug, Default)]
pub struct FrameSummary {
    /// Candidate pairs of the frame's last substep.
    pub pairs: Vec<(u32, u32)>,
    /// Contacts of the frame's last substep.
    pub contacts: usize,
    /// Kinetic plus potential energy after the frame.
    pub energy: f64,
    /// Per phase, summed over the substeps.
    pub timings: Timings,
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
}

struct GpuParts {
    broad: BroadGpu,
    colliders: ColliderGpu,
    resident: ResidentShapes,
}

/// A running simulation.
pub struct Pipeline {
    /// Fields and samples of the meshes, centred on their centres of mass.
    pub shapes: Vec<ColliderShape>,
    /// Centre of mass of each mesh, in the mesh's coordinates.
    pub centres: Vec<Vec3>,
    /// Object-frame bounds of the centred meshes.
    bounds: Vec<Aabb>,
    /// The scene's bodies, then the ground if there is one.
    pub bodies: Vec<RigidBody>,
    pub ground: Option<Ground>,
    /// Frames stepped.
    pub frame: usize,
    pub summary: FrameSummary,
    /// The contacts of the last substep (for drawing).
    pub contacts: Vec<Contact>,
    gpu: Option<GpuParts>,
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
        for mesh in meshes {
            let p = MassProperties::of(mesh);
            let centred = mesh.transformed(Mat4::from_translation(-p.centre));
            shapes.push(ColliderShape::from_mesh(
                &centred,
                &fields.sdf,
                &fields.sampling,
            )?);
            props.push(p);
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
        let gpu = match gpu {
            Some(ctx) => {
                let colliders = ColliderGpu::new(ctx);
                Some(GpuParts {
                    broad: BroadGpu::new(ctx),
                    resident: colliders.upload(&shapes)?,
                    colliders,
                })
            }
            None => None,
        };
        Ok(Pipeline {
            shapes,
            centres: props.iter().map(|p| p.centre).collect(),
            bounds,
            bodies,
            ground,
            frame: 0,
            summary: FrameSummary::default(),
            contacts: Vec::new(),
            gpu,
        })
    }

    /// Number of scene bodies (the ground not counted).
    pub fn body_count(&self) -> usize {
        self.bodies.len() - usize::from(self.ground.is_some())
    }

    /// Pose of body `i`'s mesh in its own coordinates.
    pub fn mesh_pose(&self, i: usize) -> (Vec3, Quat) {
        let s = &self.bodies[i].state;
        let BodyShape::Mesh(m) = self.bodies[i].shape else {
            return (s.position, s.rotation);
        };
        (s.position - s.rotation * self.centres[m], s.rotation)
    }

    pub fn states(&self) -> Vec<BodyState> {
        self.bodies.iter().map(|b| b.state).collect()
    }

    /// The world boxes the broad phase sorts, swept over `dt`.
    pub fn boxes(&self, margin: f32, dt: f32) -> Vec<BodyBox> {
        (0..self.body_count())
            .filter_map(|i| {
                let b = &self.bodies[i];
                let BodyShape::Mesh(m) = b.shape else {
                    return None;
                };
                let local = self.bounds[m];
                let rot = Mat3::from_quat(b.state.rotation);
                // The posed box's half extents: |R| times the local ones.
                let abs = Mat3::from_cols(rot.x_axis.abs(), rot.y_axis.abs(), rot.z_axis.abs());
                let centre = b.state.position + rot * local.center();
                let half =
                    abs * (0.5 * local.size()) + Vec3::splat(margin) + b.state.velocity.abs() * dt;
                Some(BodyBox {
                    lo: (centre - half).to_array(),
                    flags: if b.is_static() { FLAG_STATIC } else { 0 },
                    hi: (centre + half).to_array(),
                    body: i as u32,
                })
            })
            .collect()
    }

    fn ground_plane(&self) -> Option<GroundPlane> {
        let g = self.bodies.last()?;
        match (self.ground, g.shape) {
            (Some(_), BodyShape::Plane { normal, offset }) => Some(GroundPlane {
                normal,
                offset,
                index: (self.bodies.len() - 1) as u32,
            }),
            _ => None,
        }
    }

    /// The bodies as the colliders see them.
    pub fn collider_bodies(&self) -> Vec<Body> {
        self.bodies
            .iter()
            .map(|b| Body {
                shape: b.shape,
                world_from_object: b.world_from_object(),
            })
            .collect()
    }

    /// Broad and narrow phase on the current state with `params.backend`
    /// (no motion): the candidate pairs and their contacts.
    pub fn detect(
        &self,
        params: &PipelineParams,
        timings: &mut Timings,
    ) -> Result<(Vec<(u32, u32)>, ContactSet), PipelineError> {
        let dt = params.rigid().dt;
        let start = Instant::now();
        let boxes = self.boxes(params.margin, dt);
        let ground = self.ground_plane();
        let pairs = match params.backend {
            PipelineBackend::Cpu => {
                let pairs = pairs_cpu(&boxes, ground.as_ref());
                timings.push("broad", ms(start), None);
                pairs
            }
            PipelineBackend::Gpu => self.gpu()?.broad.pairs(&boxes, ground.as_ref(), timings)?,
        };
        let start = Instant::now();
        let bodies = self.collider_bodies();
        let wide: Vec<(usize, usize)> = pairs
            .iter()
            .map(|&(i, j)| (i as usize, j as usize))
            .collect();
        let contacts = match params.backend {
            PipelineBackend::Cpu => {
                let set = colliders::detect_cpu(&self.shapes, &bodies, &wide, &params.colliders)?;
                timings.push("narrow", ms(start), None);
                set
            }
            PipelineBackend::Gpu => {
                let g = self.gpu()?;
                let set = g.colliders.detect(
                    &g.resident,
                    &self.shapes,
                    &bodies,
                    &wide,
                    &params.colliders,
                )?;
                for p in &set.timings.phases {
                    let name = if p.name == "contacts" {
                        "narrow".to_string()
                    } else {
                        format!("narrow {}", p.name)
                    };
                    timings.push(name, p.wall_ms, p.gpu_ms);
                }
                set
            }
        };
        Ok((pairs, contacts))
    }

    fn gpu(&self) -> Result<&GpuParts, PipelineError> {
        self.gpu.as_ref().ok_or_else(|| {
            GpuError::NoAdapter("the pipeline was built without a GPU".into()).into()
        })
    }

    /// One frame: `params.substeps` steps of every phase.
    pub fn step(&mut self, params: &PipelineParams) -> Result<&FrameSummary, PipelineError> {
        let rigid = params.rigid();
        let mut timings = Timings::default();
        let mut pairs = Vec::new();
        for _ in 0..params.substeps.max(1) {
            integrate_velocities(&mut self.bodies, &rigid);
            let set;
            (pairs, set) = self.detect(params, &mut timings)?;
            let start = Instant::now();
            solve_contacts(&mut self.bodies, &set.contacts, &rigid);
            integrate_positions(&mut self.bodies, rigid.dt);
            timings.push("response", ms(start), None);
            self.contacts = set.contacts;
        }
        self.frame += 1;
        self.summary = FrameSummary {
            pairs,
            contacts: self.contacts.len(),
            energy: self.energy(params.gravity),
            timings: summed(&timings),
        };
        Ok(&self.summary)
    }

    /// Kinetic (linear and rotational) plus gravitational potential energy
    /// of the dynamic bodies.
    pub fn energy(&self, gravity: Vec3) -> f64 {
        self.bodies
            .iter()
            .filter(|b| !b.is_static())
            .map(|b| {
                let m = 1.0 / b.inverse_mass as f64;
                let s = &b.state;
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
