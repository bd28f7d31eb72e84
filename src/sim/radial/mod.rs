//! Particles and cloth colliding with radial fields (Friston & Steed 2019,
//! §6 and §8), on the GPU with CPU references.
//!
//! - [`character`]: the skinned, animated character that carries the
//!   fields (skeleton, animation, skinning on the CPU and the GPU,
//!   humanoid, field fitting, glTF loading);
//! - [`fields`]: the field set the kernels read (current and previous
//!   frames, broad-phase radii, cells) and the surface approximation of a
//!   cell (§6.3.1);
//! - `collide`: broad phase, pseudo-continuous detection and response
//!   with friction (§6.1–6.3), the CPU reference;
//! - [`particles`]: the position-based particle step (predict, collide,
//!   update) and the free particle stream, on the CPU;
//! - [`cloth`]: PBD cloth (§8), distance and bending constraints, on the
//!   CPU;
//! - [`gpu`]: the particles on the GPU (`shaders/radial_particles.wgsl`);
//! - [`cloth_gpu`]: the cloth's constraints on the GPU
//!   (`shaders/radial_cloth.wgsl`);
//! - [`alternatives`]: table 1's spatial hash and BVH on the same mesh
//!   and particles, and the radial fields' answer to the same question;
//! - [`bone_sdf`]: table 1's per-bone distance grids, on the CPU;
//! - [`techniques`], [`hash_gpu`], [`bvh_gpu`], [`bone_sdf_gpu`]: the
//!   alternatives on the GPU, rebuilt or refitted from the skinned mesh
//!   every frame;
//! - [`table1`]: those techniques bound to one mesh and points and timed,
//!   for `bench radial` and the viewer's radial mode.
//!
//! The fields come from the rasterising stage ([`crate::stages::radial`])
//! or, in tests, are filled analytically (a cylinder of radius r: every
//! cell r).

pub mod alternatives;
pub mod bone_sdf;
pub mod bone_sdf_gpu;
pub mod bvh_gpu;
pub mod character;
pub mod cloth;
pub mod cloth_gpu;
pub mod collide;
pub mod fields;
pub mod gpu;
pub mod hash_gpu;
pub mod particles;
pub mod table1;
pub mod techniques;

pub use cloth::{Cloth, ClothError, ClothParams};
pub use cloth_gpu::{ClothGpu, GpuCloth};
pub use collide::{CollideParams, Collision, NO_CONTACT, collide};
pub use fields::{FieldSet, FieldSetError, MAX_SUBSTEPS, Plane};
pub use gpu::{GpuFields, GpuParticles, RadialSimError, RadialSimGpu};
pub use particles::{Particles, StepParams, stream};
