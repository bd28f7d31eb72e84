//! A small impulse-based rigid-body demonstrator driven by the colliders'
//! contacts (Sundholm 2010, figures 7.6–7.8, §7.1.3; he used AgX's solver,
//! we write the smallest one that shows the contacts at work).
//!
//! # How it works
//!
//! Each step (fixed `dt`): gravity changes the dynamic bodies' velocities;
//! the colliders ([`crate::stages::collide`], CPU or GPU) give the
//! contacts of every pair with a dynamic body (and every segment pair, to
//! show the line contact); then sequential impulses (Catto's scheme) run a
//! few iterations over all contacts: per contact a non-negative accumulated
//! normal impulse reaching the velocity `max(restitution · approach speed,
//! β/dt · (depth − slop))` along the normal (Baumgarte-style position
//! correction), and a Coulomb friction impulse clamped to
//! `friction × normal impulse`. Then positions and orientations are
//! integrated (semi-implicit Euler), and a second, *relaxing* set of sweeps
//! over the same rows aims at the restitution alone ([`relax_contacts`]).
//!
//! # Scale and energy
//!
//! Every tolerance of a contact row is relative to the size `s` of the
//! smaller body of its pair (the longest side of its bounding box; static
//! bodies count as unbounded), so a 1 mm box and a 1 km box behave alike:
//! the slop is [`RigidParams::slop`]` × s` and the push-out speed of
//! position correction is at most [`RigidParams::recovery_speed`]` × s`
//! per second — a body found deep in the ground comes out at that speed,
//! not at β/dt times its depth. Speeds below [`RigidParams::gravity_steps`]
//! steps of gravity (`|g|·dt` each) are what gravity gives a resting body
//! in a step, whatever its size: such approaches never bounce, and
//! correction may always push out that fast (a 1 µm body falls a thousand
//! times its size in one step of 1/60 s, and must be able to come back). The
//! relaxing sweeps (Box2D v3's "soft step" relax iterations; Catto's split
//! impulses have the same aim) take the correction's velocity back out
//! after it has moved the body, so position correction moves bodies but
//! never leaves them with kinetic energy: a resting body does not gain
//! energy, whatever the contact threshold or the depth it starts at.
//! Mesh bodies use the inertia of a solid box of their bounding box.
//! Static bodies (planes, segments, large meshes) have infinite mass.
//!
//! Every step's state is kept (up to [`HISTORY`] steps), so the viewer can
//! pause, single-step and rewind.

use glam::{Mat3, Mat4, Quat, Vec3};

use crate::mesh::{Mesh, box_mesh, torus, uv_sphere};
use crate::stages::collide::{
    self, Body, BodyShape, ColliderError, ColliderGpu, ColliderParams, ColliderShape, Contact,
    ContactSet, ResidentShapes,
};
use crate::stages::sampling::SamplingParams;
use crate::stages::sdf::SdfParams;

/// Steps kept for rewinding.
pub const HISTORY: usize = 4000;

/// Position, orientation and velocities of one body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    pub position: Vec3,
    pub rotation: Quat,
    pub velocity: Vec3,
    pub angular_velocity: Vec3,
}

/// A body of the simulation.
#[derive(Clone, Debug)]
pub struct RigidBody {
    pub shape: BodyShape,
    pub state: BodyState,
    /// 0 for a static body.
    pub inverse_mass: f32,
    /// Inverse principal moments in the object frame.
    pub inverse_inertia: Vec3,
    /// Length scale of the contact tolerances: the longest side of a
    /// dynamic body's bounding box, [`UNBOUNDED`] for a static body.
    pub size: f32,
}

/// The size of a static body: a contact row takes the smaller size of its
/// pair, so a static body never sets it.
pub const UNBOUNDED: f32 = f32::MAX;

impl RigidBody {
    pub fn world_from_object(&self) -> Mat4 {
        Mat4::from_rotation_translation(self.state.rotation, self.state.position)
    }

    pub fn is_static(&self) -> bool {
        self.inverse_mass == 0.0
    }

    pub(crate) fn inverse_inertia_world(&self) -> Mat3 {
        let r = Mat3::from_quat(self.state.rotation);
        r * Mat3::from_diagonal(self.inverse_inertia) * r.transpose()
    }

    /// A static body (infinite mass) at rest.
    pub fn fixed(shape: BodyShape, position: Vec3, rotation: Quat) -> Self {
        RigidBody {
            shape,
            state: BodyState {
                position,
                rotation,
                velocity: Vec3::ZERO,
                angular_velocity: Vec3::ZERO,
            },
            inverse_mass: 0.0,
            inverse_inertia: Vec3::ZERO,
            size: UNBOUNDED,
        }
    }

    /// A dynamic body of `mass` with the inertia of a solid box of `size`.
    pub fn dynamic(
        shape: BodyShape,
        position: Vec3,
        rotation: Quat,
        mass: f32,
        size: Vec3,
    ) -> Self {
        let s2 = size * size;
        let inertia = mass / 12.0 * Vec3::new(s2.y + s2.z, s2.x + s2.z, s2.x + s2.y);
        RigidBody {
            inverse_mass: 1.0 / mass,
            inverse_inertia: inertia.recip(),
            size: size.max_element(),
            ..Self::fixed(shape, position, rotation)
        }
    }
}

/// Simulation parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidParams {
    pub gravity: Vec3,
    pub dt: f32,
    pub iterations: u32,
    pub restitution: f32,
    pub friction: f32,
    /// Position-correction factor β.
    pub baumgarte: f32,
    /// Depth tolerated without correction, per unit of body size.
    pub slop: f32,
    /// Fastest push-out of position correction, body sizes per second.
    pub recovery_speed: f32,
    /// Resting speed, in steps of gravity (`|g|·dt`): slower approaches do
    /// not bounce, and correction may always push out this fast.
    pub gravity_steps: f32,
    pub colliders: ColliderParams,
    pub backend: collide::Backend,
}

impl Default for RigidParams {
    fn default() -> Self {
        RigidParams {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            dt: 1.0 / 120.0,
            iterations: 10,
            restitution: 0.2,
            friction: 0.5,
            baumgarte: 0.2,
            slop: 0.005,
            recovery_speed: 2.0,
            gravity_steps: 2.0,
            colliders: ColliderParams::default(),
            backend: collide::Backend::Cpu,
        }
    }
}

/// The demonstrator's scenes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Scene {
    /// A small sphere dropped on a large static torus (figure 7.6).
    #[default]
    MeshOnMesh,
    /// A torus dropped on a plane (figure 7.8).
    MeshOnPlane,
    /// Three cubes stacked on a plane (the face-sampling case of §5.1.1).
    BoxStack,
    /// A line through a static mesh; move it with [`World::set_line`] (figure 7.7).
    LineThroughMesh,
}

impl Scene {
    pub const ALL: [Scene; 4] = [
        Scene::MeshOnMesh,
        Scene::MeshOnPlane,
        Scene::BoxStack,
        Scene::LineThroughMesh,
    ];

    /// The name scripts and the command line use.
    pub(crate) fn short_name(self) -> &'static str {
        match self {
            Scene::MeshOnMesh => "drop-on-mesh",
            Scene::MeshOnPlane => "drop-on-plane",
            Scene::BoxStack => "box-stack",
            Scene::LineThroughMesh => "line",
        }
    }

    pub fn from_short_name(name: &str) -> Option<Scene> {
        Scene::ALL.into_iter().find(|s| s.short_name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Scene::MeshOnMesh => "mesh on mesh",
            Scene::MeshOnPlane => "mesh on plane",
            Scene::BoxStack => "stack of boxes",
            Scene::LineThroughMesh => "line through mesh",
        }
    }
}

/// A running simulation: shapes, bodies, the last contacts and the history.
pub struct World {
    pub scene: Scene,
    pub shapes: Vec<ColliderShape>,
    /// Object-frame meshes of the shapes (for drawing).
    pub meshes: Vec<Mesh>,
    pub bodies: Vec<RigidBody>,
    pub steps: usize,
    pub contacts: ContactSet,
    history: Vec<Vec<BodyState>>,
    resident: Option<ResidentShapes>,
}

fn shape_of(mesh: &Mesh, resolution: u32) -> Result<ColliderShape, ColliderError> {
    ColliderShape::from_mesh(
        mesh,
        &SdfParams {
            resolution,
            ..SdfParams::default()
        },
        &SamplingParams::default(),
    )
}

impl World {
    /// Builds a scene (fields and samples on the CPU).
    pub fn new(scene: Scene) -> Result<World, ColliderError> {
        let plane = RigidBody::fixed(
            BodyShape::Plane {
                normal: Vec3::Y,
                offset: 0.0,
            },
            Vec3::ZERO,
            Quat::IDENTITY,
        );
        let (meshes, resolutions, bodies): (Vec<Mesh>, Vec<u32>, Vec<RigidBody>) = match scene {
            Scene::MeshOnMesh => {
                let big = torus(48, 24, 1.0, 0.35);
                let small = uv_sphere(10, 20).transformed(Mat4::from_scale(Vec3::splat(0.6)));
                (
                    vec![big, small],
                    vec![48, 16],
                    vec![
                        RigidBody::fixed(BodyShape::Mesh(0), Vec3::ZERO, Quat::IDENTITY),
                        RigidBody::dynamic(
                            BodyShape::Mesh(1),
                            Vec3::new(0.85, 1.2, 0.1),
                            Quat::IDENTITY,
                            1.0,
                            Vec3::splat(0.6),
                        ),
                    ],
                )
            }
            Scene::MeshOnPlane => {
                let ring = torus(24, 12, 0.4, 0.15);
                (
                    vec![ring],
                    vec![24],
                    vec![
                        plane,
                        RigidBody::dynamic(
                            BodyShape::Mesh(0),
                            Vec3::new(0.0, 1.0, 0.0),
                            Quat::from_rotation_x(0.6) * Quat::from_rotation_z(0.3),
                            1.0,
                            Vec3::new(1.1, 0.3, 1.1),
                        ),
                    ],
                )
            }
            Scene::BoxStack => {
                let mut bodies = vec![plane];
                for (i, y) in [0.5f32, 1.55, 2.6].into_iter().enumerate() {
                    bodies.push(RigidBody::dynamic(
                        BodyShape::Mesh(0),
                        Vec3::new(0.02 * i as f32, y, 0.0),
                        Quat::from_rotation_y(0.1 * i as f32),
                        1.0,
                        Vec3::ONE,
                    ));
                }
                (vec![box_mesh(3)], vec![16], bodies)
            }
            Scene::LineThroughMesh => (
                vec![torus(48, 24, 0.6, 0.25)],
                vec![40],
                vec![
                    RigidBody::fixed(BodyShape::Mesh(0), Vec3::ZERO, Quat::IDENTITY),
                    RigidBody::fixed(
                        BodyShape::Segment {
                            a: Vec3::new(-1.5, 0.0, 0.0),
                            b: Vec3::new(1.5, 0.0, 0.0),
                        },
                        Vec3::new(0.0, 0.05, 0.1),
                        Quat::IDENTITY,
                    ),
                ],
            ),
        };
        let shapes = meshes
            .iter()
            .zip(&resolutions)
            .map(|(m, &r)| shape_of(m, r))
            .collect::<Result<Vec<_>, _>>()?;
        let mut world = World {
            scene,
            shapes,
            meshes,
            bodies,
            steps: 0,
            contacts: ContactSet::default(),
            history: Vec::new(),
            resident: None,
        };
        world.history.push(world.states());
        Ok(world)
    }

    pub fn states(&self) -> Vec<BodyState> {
        self.bodies.iter().map(|b| b.state).collect()
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

    /// The pairs worth testing: any with a dynamic body, and segment pairs.
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        collide::all_pairs(&self.collider_bodies())
            .into_iter()
            .filter(|&(i, j)| {
                let (a, b) = (&self.bodies[i], &self.bodies[j]);
                !a.is_static()
                    || !b.is_static()
                    || matches!(a.shape, BodyShape::Segment { .. })
                    || matches!(b.shape, BodyShape::Segment { .. })
            })
            .collect()
    }

    /// Moves the line of the line scene (world position of its middle).
    pub fn set_line(&mut self, position: Vec3, rotation: Quat) {
        for b in &mut self.bodies {
            if matches!(b.shape, BodyShape::Segment { .. }) {
                b.state.position = position;
                b.state.rotation = rotation;
            }
        }
    }

    /// Runs the colliders on the current state (no motion).
    pub fn detect(
        &mut self,
        params: &RigidParams,
        gpu: Option<&ColliderGpu>,
    ) -> Result<&ContactSet, ColliderError> {
        let bodies = self.collider_bodies();
        let pairs = self.pairs();
        match (params.backend, gpu) {
            (collide::Backend::Gpu, Some(gpu)) => {
                if self.resident.is_none() {
                    self.resident = Some(gpu.upload(&self.shapes)?);
                }
                let resident = self
                    .resident
                    .as_ref()
                    .ok_or_else(|| crate::gpu::GpuError::NoAdapter("no resident shapes".into()))?;
                // Into the last step's set: its allocation is reused.
                gpu.detect_into(
                    &mut self.contacts,
                    resident,
                    &self.shapes,
                    &bodies,
                    &pairs,
                    &params.colliders,
                )?;
            }
            (backend, gpu) => {
                self.contacts = collide::detect(
                    &self.shapes,
                    &bodies,
                    &pairs,
                    &params.colliders,
                    backend,
                    gpu,
                )?;
            }
        }
        Ok(&self.contacts)
    }

    /// One time step.
    pub fn step(
        &mut self,
        params: &RigidParams,
        gpu: Option<&ColliderGpu>,
    ) -> Result<(), ColliderError> {
        integrate_velocities(&mut self.bodies, params);
        self.detect(params, gpu)?;
        respond(&mut self.bodies, &self.contacts.contacts, params);
        self.steps += 1;
        self.history.push(self.states());
        if self.history.len() > HISTORY {
            self.history.remove(0);
        }
        Ok(())
    }

    /// Steps kept that [`World::rewind`] can go back.
    pub fn history_len(&self) -> usize {
        self.history.len().saturating_sub(1)
    }

    /// Goes back `steps` steps (as far as the history reaches).
    pub fn rewind(&mut self, steps: usize) {
        let back = steps.min(self.history_len());
        self.history.truncate(self.history.len() - back);
        if let Some(last) = self.history.last() {
            for (b, s) in self.bodies.iter_mut().zip(last) {
                b.state = *s;
            }
        }
        self.steps -= back.min(self.steps);
        self.contacts = ContactSet::default();
    }
}

/// Gravity on every dynamic body's velocity over `params.dt`.
pub fn integrate_velocities(bodies: &mut [RigidBody], params: &RigidParams) {
    for b in bodies.iter_mut().filter(|b| !b.is_static()) {
        b.state.velocity += params.gravity * params.dt;
    }
}

/// One contact's solver row ([`solve_contacts`] builds them,
/// [`relax_contacts`] sweeps them again).
#[derive(Clone, Debug)]
pub struct ContactRow {
    i: usize,
    j: usize,
    n: Vec3,
    ra: Vec3,
    rb: Vec3,
    /// Normal speed aimed at by the biased sweeps: restitution or position
    /// correction, whichever is larger.
    target: f32,
    /// Normal speed aimed at by the relaxing sweeps: restitution alone.
    bounce: f32,
    mass_n: f32,
    acc_n: f32,
    acc_t: Vec3,
}

/// The targets of a contact of `depth` approaching at `vn` (negative:
/// closing) between bodies whose smaller size is `size`: `(biased,
/// relaxed)` normal speeds ([`RigidParams`]; the module docs say why each
/// tolerance scales with the size). The resident GPU step computes the same
/// in `prepare_main`.
pub fn contact_targets(params: &RigidParams, depth: f32, vn: f32, size: f32) -> (f32, f32) {
    let resting = params.gravity_steps * params.gravity.length() * params.dt;
    let bounce = if vn < -resting {
        -params.restitution * vn
    } else {
        0.0
    };
    let correction = (params.baumgarte / params.dt * (depth - params.slop * size).max(0.0))
        .min((params.recovery_speed * size).max(resting));
    (bounce.max(correction), bounce)
}

fn velocity_at(b: &RigidBody, r: Vec3) -> Vec3 {
    b.state.velocity + b.state.angular_velocity.cross(r)
}

/// Sequential impulses (Catto) over `contacts`: per contact an accumulated
/// non-negative normal impulse reaching [`contact_targets`]' biased speed,
/// then Coulomb friction clamped to `friction × normal impulse`;
/// `params.iterations` sweeps. The rows come back for
/// [`relax_contacts`].
pub fn solve_contacts(
    bodies: &mut [RigidBody],
    contacts: &[Contact],
    params: &RigidParams,
) -> Vec<ContactRow> {
    let mut rows: Vec<ContactRow> = Vec::with_capacity(contacts.len());
    for c in contacts {
        let (i, j) = (c.body as usize, c.other as usize);
        let (a, b) = (&bodies[i], &bodies[j]);
        if a.is_static() && b.is_static() {
            continue;
        }
        let ra = c.position - a.state.position;
        let rb = c.position - b.state.position;
        let n = c.normal;
        let k = a.inverse_mass
            + b.inverse_mass
            + n.dot((a.inverse_inertia_world() * ra.cross(n)).cross(ra))
            + n.dot((b.inverse_inertia_world() * rb.cross(n)).cross(rb));
        if k <= 0.0 {
            continue;
        }
        let vn = (velocity_at(a, ra) - velocity_at(b, rb)).dot(n);
        let (target, bounce) = contact_targets(params, c.depth, vn, a.size.min(b.size));
        rows.push(ContactRow {
            i,
            j,
            n,
            ra,
            rb,
            target,
            bounce,
            mass_n: 1.0 / k,
            acc_n: 0.0,
            acc_t: Vec3::ZERO,
        });
    }
    sweep(bodies, &mut rows, params, false);
    rows
}

/// The relaxing sweeps, after the positions moved: the same rows aim at
/// the restitution alone, taking back the velocity position correction
/// added (so correction never turns into kinetic energy).
pub fn relax_contacts(bodies: &mut [RigidBody], rows: &mut [ContactRow], params: &RigidParams) {
    sweep(bodies, rows, params, true);
}

/// Solves the contacts, moves the bodies and relaxes: one substep after
/// gravity and detection.
pub fn respond(bodies: &mut [RigidBody], contacts: &[Contact], params: &RigidParams) {
    let mut rows = solve_contacts(bodies, contacts, params);
    integrate_positions(bodies, params.dt);
    relax_contacts(bodies, &mut rows, params);
}

fn sweep(bodies: &mut [RigidBody], rows: &mut [ContactRow], params: &RigidParams, relax: bool) {
    let apply = |bodies: &mut [RigidBody], row: &ContactRow, impulse: Vec3| {
        let a = &mut bodies[row.i];
        a.state.velocity += impulse * a.inverse_mass;
        a.state.angular_velocity += a.inverse_inertia_world() * row.ra.cross(impulse);
        let b = &mut bodies[row.j];
        b.state.velocity -= impulse * b.inverse_mass;
        b.state.angular_velocity -= b.inverse_inertia_world() * row.rb.cross(impulse);
    };
    for _ in 0..params.iterations {
        for row in rows.iter_mut() {
            let target = if relax { row.bounce } else { row.target };
            let rel = velocity_at(&bodies[row.i], row.ra) - velocity_at(&bodies[row.j], row.rb);
            let vn = rel.dot(row.n);
            let new = (row.acc_n + (target - vn) * row.mass_n).max(0.0);
            let dj = new - row.acc_n;
            row.acc_n = new;
            apply(bodies, row, row.n * dj);
            // Friction against the tangential slip, clamped to the cone.
            let rel = velocity_at(&bodies[row.i], row.ra) - velocity_at(&bodies[row.j], row.rb);
            let vt = rel - row.n * rel.dot(row.n);
            let wanted = row.acc_t - vt * row.mass_n;
            let limit = params.friction * row.acc_n;
            let clamped = if wanted.length() > limit {
                wanted.normalize_or_zero() * limit
            } else {
                wanted
            };
            let dt = clamped - row.acc_t;
            row.acc_t = clamped;
            apply(bodies, row, dt);
        }
    }
}

/// Angular velocity kept per step by [`integrate_positions`].
pub const ANGULAR_DAMPING: f32 = 0.998;

/// Semi-implicit Euler on positions and orientations of the dynamic bodies,
/// with a little angular damping that keeps resting contact quiet.
pub fn integrate_positions(bodies: &mut [RigidBody], dt: f32) {
    for b in bodies.iter_mut().filter(|b| !b.is_static()) {
        let s = &mut b.state;
        s.position += s.velocity * dt;
        let w = s.angular_velocity;
        let dq = Quat::from_xyzw(w.x, w.y, w.z, 0.0) * s.rotation;
        s.rotation =
            Quat::from_vec4(glam::Vec4::from(s.rotation) + 0.5 * dt * glam::Vec4::from(dq))
                .normalize();
        s.angular_velocity *= ANGULAR_DAMPING;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torus_dropped_on_plane_comes_to_rest_on_it() {
        let mut world = World::new(Scene::MeshOnPlane).expect("scene");
        let params = RigidParams::default();
        for _ in 0..360 {
            world.step(&params, None).expect("step");
        }
        let b = &world.bodies[1];
        assert!(b.state.velocity.length() < 0.2, "{:?}", b.state);
        // Lying flat: centre about one tube radius above the plane.
        assert!(
            (b.state.position.y - 0.15).abs() < 0.06,
            "{:?}",
            b.state.position
        );
        assert!(!world.contacts.contacts.is_empty());
    }

    #[test]
    fn box_stack_stays_stacked_and_rewind_restores_states() {
        let mut world = World::new(Scene::BoxStack).expect("scene");
        let params = RigidParams::default();
        for _ in 0..240 {
            world.step(&params, None).expect("step");
        }
        for (k, b) in world.bodies[1..].iter().enumerate() {
            let want = 0.5 + k as f32;
            assert!(
                (b.state.position.y - want).abs() < 0.08 && b.state.position.x.abs() < 0.15,
                "box {k}: {:?}",
                b.state.position
            );
        }
        let at_100 = {
            let mut w = World::new(Scene::BoxStack).expect("scene");
            for _ in 0..100 {
                w.step(&params, None).expect("step");
            }
            w.states()
        };
        world.rewind(140);
        assert_eq!(world.steps, 100);
        assert_eq!(world.states(), at_100);
    }
}
