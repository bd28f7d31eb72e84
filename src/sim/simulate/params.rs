//! The simulation's parameters ([`PipelineParams`]): what a frame is (its
//! time step and substeps), the solver's constants, and how they reach the
//! CPU solver ([`RigidParams`]) and the resident GPU step ([`StepParams`]).

use glam::Vec3;

use super::resident::layout::StepParams;
use super::{BroadPhase, GroundPlane, PipelineBackend};
use crate::sim::collide::{ANGULAR_DAMPING, RigidParams};
use crate::stages::collide::ColliderParams;

/// The longest substep: longer frames take more substeps.
pub const MAX_SUBSTEP: f32 = 1.0 / 60.0;

/// Simulation parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PipelineParams {
    /// Seconds per frame.
    pub timestep: f32,
    /// Steps per frame (each runs every phase); more when a step would be
    /// longer than [`MAX_SUBSTEP`] ([`PipelineParams::substeps_per_frame`]).
    pub substeps: u32,
    pub gravity: Vec3,
    pub restitution: f32,
    pub friction: f32,
    /// Sequential-impulse sweeps per step (CPU solver).
    pub iterations: u32,
    /// Jacobi sweeps per step of the GPU solver: it converges more slowly
    /// than Gauss–Seidel (`resident`), so it gets more.
    pub gpu_iterations: u32,
    /// Bounding boxes grow by this much (world units) on every side.
    pub margin: f32,
    pub colliders: ColliderParams,
    pub backend: PipelineBackend,
    /// Sort-and-sweep or the image-space test (`image_broad`; the `cpu`
    /// and `gpu-detect` backends — the resident step sweeps).
    pub broad: BroadPhase,
    /// Pixels along each side of the image-space phase's views.
    pub image_resolution: u32,
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
            gpu_iterations: 24,
            margin: 0.01,
            // Resting contact needs the depth at the point: the cell
            // centre's value is off by up to half a cell diagonal, which
            // position correction would turn into a jitter.
            colliders: ColliderParams {
                interpolated_depth: true,
                ..ColliderParams::default()
            },
            backend: PipelineBackend::Gpu,
            broad: BroadPhase::SortAndSweep,
            image_resolution: 256,
        }
    }
}

impl PipelineParams {
    /// How much the bounding boxes grow on every side: the margin, and the
    /// contact threshold, within which bodies that do not touch yet are in
    /// contact (a pair within it must be a candidate).
    pub fn box_margin(&self) -> f32 {
        self.margin + self.colliders.contact_threshold
    }

    /// Substeps each frame runs: `substeps`, or more so that none is longer
    /// than [`MAX_SUBSTEP`].
    pub fn substeps_per_frame(&self) -> u32 {
        // A hair under the quotient: 0.2 s is 12 steps of 1/60 s, not 13
        // by the rounding of 1/60.
        let needed = (self.timestep / MAX_SUBSTEP * (1.0 - 1e-6)).ceil();
        // NaN and negative steps are refused where the scene is read; the
        // cap keeps a huge step from asking for billions.
        let needed = if needed.is_finite() {
            needed.clamp(1.0, 65536.0) as u32
        } else {
            1
        };
        self.substeps.max(needed)
    }

    /// The solver's parameters for one substep.
    pub(super) fn rigid(&self) -> RigidParams {
        RigidParams {
            gravity: self.gravity,
            dt: self.timestep / self.substeps_per_frame() as f32,
            iterations: self.iterations,
            restitution: self.restitution,
            friction: self.friction,
            colliders: self.colliders,
            ..RigidParams::default()
        }
    }

    /// The resident step's constants for one substep.
    pub(super) fn step_params(&self, ground: Option<&GroundPlane>) -> StepParams {
        let rigid = self.rigid();
        StepParams {
            gravity: self.gravity.to_array(),
            dt: rigid.dt,
            plane: ground.map_or([0.0; 4], |g| g.normal.extend(g.offset).to_array()),
            ground: u32::from(ground.is_some()),
            flags: u32::from(self.colliders.interpolated_depth)
                | (u32::from(self.colliders.reject_flipped) << 1),
            contact_threshold: self.colliders.contact_threshold,
            restitution: self.restitution,
            friction: self.friction,
            baumgarte: rigid.baumgarte,
            slop: rigid.slop,
            recovery_speed: rigid.recovery_speed,
            gravity_steps: rigid.gravity_steps,
            margin: self.box_margin(),
            damping: ANGULAR_DAMPING,
            ..bytemuck::Zeroable::zeroed()
        }
    }
}
