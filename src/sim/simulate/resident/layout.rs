//! The `#[repr(C)]` mirrors of `shaders/simulate_step.wgsl`'s structs
//! (checked against the shader by tests/it/shader_layouts.rs).

/// `struct Params`: one substep's constants.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct StepParams {
    pub gravity: [f32; 3],
    pub dt: f32,
    /// The ground: unit normal and offset (`n·x = w`).
    pub plane: [f32; 4],
    /// Bodies with a box (the ground not counted).
    pub bodies: u32,
    /// 1 when the ground is body `bodies`.
    pub ground: u32,
    /// Bit 0: interpolated depth; bit 1: reject flipped normals.
    pub flags: u32,
    pub pair_capacity: u32,
    pub contact_capacity: u32,
    /// The contact threshold `ε` (`ColliderParams::contact_threshold`).
    pub contact_threshold: f32,
    /// Fastest push-out, body sizes per second (`RigidParams::recovery_speed`).
    pub recovery_speed: f32,
    /// Resting speed, in steps of gravity (`|g|·dt`; `RigidParams::gravity_steps`).
    pub gravity_steps: f32,
    pub restitution: f32,
    pub friction: f32,
    pub baumgarte: f32,
    /// Depth tolerated without correction, per unit of body size.
    pub slop: f32,
    pub margin: f32,
    /// Angular velocity kept per step.
    pub damping: f32,
    pub _pad3: u32,
    pub _pad4: u32,
}
const _: () = assert!(std::mem::size_of::<StepParams>() == 96);

/// `struct Body`: one body's resident state and mass.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuBody {
    /// Of the centre of mass.
    pub position: [f32; 3],
    /// 0 for a static body.
    pub inverse_mass: f32,
    /// Quaternion x, y, z, w.
    pub rotation: [f32; 4],
    pub velocity: [f32; 3],
    /// Mesh index.
    pub shape: u32,
    pub angular_velocity: [f32; 3],
    pub _pad0: u32,
    /// Principal inverse moments, object frame.
    pub inverse_inertia: [f32; 3],
    /// Length scale of the contact tolerances (`RigidBody::size`).
    pub size: f32,
}
const _: () = assert!(std::mem::size_of::<GpuBody>() == 80);

/// `struct Shape`: a mesh's bounds and samples.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuShape {
    pub lo: [f32; 3],
    pub sample_start: u32,
    pub hi: [f32; 3],
    pub sample_count: u32,
}
const _: () = assert!(std::mem::size_of::<GpuShape>() == 32);

/// `struct Row`: one contact and its solver row.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuRow {
    pub position: [f32; 3],
    pub depth: f32,
    pub normal: [f32; 3],
    pub mass_n: f32,
    pub ra: [f32; 3],
    pub target_speed: f32,
    pub rb: [f32; 3],
    pub acc_n: f32,
    pub acc_t: [f32; 3],
    pub body: u32,
    pub other: u32,
    /// Normal speed the relaxing sweeps aim at (the restitution's).
    pub bounce_speed: f32,
    pub _pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<GpuRow>() == 96);

/// `struct Summary`: what a frame reports, read back asynchronously.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuSummary {
    /// Candidate pairs found (may exceed the capacity).
    pub pairs: u32,
    /// Contacts found (may exceed the capacity).
    pub contacts: u32,
    pub max_depth: f32,
    pub energy: f32,
    pub pair_capacity: u32,
    pub contact_capacity: u32,
    pub _pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<GpuSummary>() == 32);

/// `ACCUM`: 32-bit words per body in the accumulators.
pub const ACCUM: u32 = 8;
/// `SCALE`: fixed-point units per the substep's speed bound of the summed
/// velocity changes (angular ones times the body's size).
pub const SCALE: f32 = 134_217_728.0;
