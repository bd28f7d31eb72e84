//! The stages' `#[repr(C)]` types and constants that the shaders mirror,
//! in one list for `tests/it/shader_layouts.rs`, which checks each against
//! the WGSL as naga lays it out. Not an API: the stages use the types
//! where they are defined.

pub use super::adaptive::gpu::{
    GPU_STACK as SDF_ADAPTIVE_GPU_STACK, Params as SdfAdaptiveParams, QUERY_ARGS,
    STATE_GROUP_COUNT, STATE_NODE_COUNT, STATE_OVERFLOW, STATE_RSS_NODE_COUNT, STATE_STATS,
    WIDE_ARGS, WORKGROUP as SDF_ADAPTIVE_WORKGROUP,
};
pub use super::adaptive::rss_bvh_gpu::{BuildParams, LARGE_ARGS, SMALL_ARGS};
pub use super::adaptive::{NONE, OctreeNode, RssNode};
pub use super::collide::compact::GpuContact;
pub use super::collide::gpu::{
    FieldInfo, PASS_COUNT, PASS_WRITE, Params as CollidersParams,
    SUMMARY_START as COLLIDERS_SUMMARY_START, WORKGROUP as COLLIDERS_WORKGROUP,
};
pub use super::collide::octahedral::ZERO_NORMAL;
pub use super::collide::{
    TASK_SAMPLES_BOX, TASK_SAMPLES_FIELD, TASK_SAMPLES_PLANE, TASK_SAMPLES_SPHERE,
    TASK_SEGMENT_FIELD, Task,
};
pub use super::interfere::compute::{
    GpuEdge as ComputeEdge, LARGE_GROUP as COMPUTE_LARGE_GROUP, Params as ComputeParams,
    REGION_WORDS as COMPUTE_REGION_WORDS, SMALL_FACE as COMPUTE_SMALL_FACE,
    TALLY_HEAD as COMPUTE_TALLY_HEAD, WORKGROUP as COMPUTE_WORKGROUP,
};
pub use super::interfere::gpu::Uniforms as InterferenceUniforms;
pub use super::interfere::gpu::plan::{CULL_GROUP, CullJob};
pub use super::interfere::gpu::upload::EdgeVertex;
pub use super::interfere::identify::{GROUP as IDENTIFY_GROUP, Params as IdentifyParams};
pub use super::iso_surface::table::CASE_WORDS as ISO_CASE_WORDS;
pub use super::iso_surface::{GpuParams as IsoParams, WORKGROUP as ISO_WORKGROUP};
pub use super::particles::collider::MapKind as ParticleMapKind;
pub use super::particles::gpu::{
    Frame as ParticleFrame, GpuCollider as ParticleCollider, GpuEmitter as ParticleEmitter,
    GpuFlight as ParticleFlight, GpuImpact as ParticleImpact, WORKGROUP as PARTICLES_WORKGROUP,
};
pub use super::radial::compute::{
    CLEAR_GROUP as RADIAL_COMPUTE_CLEAR_GROUP, RASTER_GROUP as RADIAL_RASTER_GROUP,
    SMALL_CELLS as RADIAL_SMALL_CELLS,
};
pub use super::radial::gpu::{CLEAR_GROUP as RADIAL_CLEAR_GROUP, INF_BITS as RADIAL_INF_BITS};
pub use super::radial::setup::{
    MAX_DISTANCE as RADIAL_MAX_DISTANCE, NEAR_AXIS as RADIAL_NEAR_AXIS,
};
pub use super::radial::{
    FieldFrameGpu, RasterParams as RadialParams, SUBPIXEL_BITS as RADIAL_SUBPIXEL_BITS,
};
pub use super::sampling::GpuSample;
pub use super::sampling::gpu::{Params as SamplingParams, WORKGROUP as SAMPLING_WORKGROUP};
pub use super::sdf::corners_gpu::{CORNERS_WORKGROUP, CornerParams};
pub use super::sdf::gpu::{
    GPU_STACK as SDF_GRID_GPU_STACK, Params as SdfGridParams, WORKGROUP as SDF_GRID_WORKGROUP,
};
pub use super::sdf::grid::BRICK;
pub use super::sdf::point_winding::{PointWindingParams, WORKGROUP as POINT_WINDING_WORKGROUP};
pub use super::sdf::points_gpu::{POINTS_WORKGROUP, PointsParams};
pub use super::sdf::slab_bvh::SlabNode;
pub use super::sdf::slab_gpu::{SLABS_WORKGROUP, SlabParams};
pub use super::sdf::winding_cap_gpu::{CAP_WORKGROUP, CapParams};
pub use super::sdf::winding_gpu::WindingParams as SdfWindingParams;
pub use super::sdf::winding_tree::{
    EXACT_BLOCK as WINDING_EXACT_BLOCK, EXACT_CAPACITY as WINDING_EXACT_CAPACITY,
    REFINE_ARGS as WINDING_REFINE_ARGS, REFINE_STEPS as WINDING_REFINE_STEPS,
    REFINE_WORKGROUP as WINDING_REFINE_WORKGROUP, WALK_LIST as WINDING_WALK_LIST,
    WALK_TARGET_GROUPS as WINDING_WALK_TARGET_GROUPS, WINDING_STACK as SDF_WINDING_STACK,
    WINDING_STACK as POINT_WINDING_STACK,
};
pub use super::tritri::gpu::{
    B_PER_GROUP, GPU_STACK as TRITRI_GPU_STACK, MODE_ALL_PAIRS, MODE_TUTORIAL,
    Params as TritriParams, QueryPose, WORKGROUP as TRITRI_WORKGROUP,
};
pub use crate::geom::WindingNode;
