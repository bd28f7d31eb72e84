//! Exact geometric predicates and small kernels shared by the stages.

mod aabb;
mod bvh;
mod cap;
mod closest_point;
mod exact_frame;
mod morton;
mod rss;
mod solid_angle;
#[cfg(test)]
pub(crate) mod test_rng;
mod triangle_batch;
mod tritri;
mod winding;

pub use aabb::Aabb;
pub use bvh::{BINS, Bvh, BvhNode, LEAF_BIT};
pub use cap::{
    CAP_BUDGET, Cap, boundary_cap, boundary_edges, cap_brick_bound, cap_solid_angle_bound,
    ray_crossings,
};
pub use closest_point::*;
pub use exact_frame::{exact_frame, is_exact_frame};
pub use morton::*;
pub use rss::*;
pub use solid_angle::{EXACT_CHUNK, solid_angle_triangle, winding_number_exact};
pub use triangle_batch::{LANES, TriangleBatch, with_simd};
pub use tritri::*;
pub use winding::{BETA, BoundedWinding, FastWinding, PackedWinding, REFINE_BETA, WindingNode};
