//! Exact geometric predicates and small kernels shared by the stages.

mod aabb;
mod bvh;
mod closest_point;

pub use aabb::Aabb;
pub use bvh::{BINS, Bvh, BvhNode, LEAF_BIT};
pub use closest_point::*;
