//! The simulations' `#[repr(C)]` types and constants that the shaders
//! mirror, in one list for `tests/it/shader_layouts.rs`. Not an API: use the
//! types where they are defined.

pub use super::radial::NO_CONTACT as RADIAL_NO_CONTACT;
pub use super::radial::bone_sdf_gpu::{
    BoneBox as RadialBoneBox, SdfParams as RadialSdfParams, WORKGROUP as RADIAL_SDF_WORKGROUP,
};
pub use super::radial::bvh_gpu::{BvhParams as RadialBvhParams, WORKGROUP as RADIAL_BVH_WORKGROUP};
pub use super::radial::cloth::{LINK_BEND, Link as ClothLink};
pub use super::radial::cloth_gpu::Params as ClothParams;
pub use super::radial::gpu::{
    COLLIDE_LANES as RADIAL_COLLIDE_LANES, Params as RadialParticleParams,
    WORKGROUP as RADIAL_WORKGROUP,
};
pub use super::radial::hash_gpu::{
    HashParams as RadialHashParams, SCAN_GROUP as RADIAL_HASH_SCAN_GROUP,
    WORKGROUP as RADIAL_HASH_WORKGROUP,
};
pub use super::radial::techniques::FAR as RADIAL_FAR;
pub use super::simulate::resident::layout::{
    ACCUM as STEP_ACCUM, GpuBody, GpuRow, GpuShape, GpuSummary, SCALE as STEP_SCALE, StepParams,
};
pub use super::simulate::{BodyBox, BroadParams, FLAG_STATIC};
