//! Exact geometric predicates and small kernels shared by the stages.

mod aabb;
mod closest_point;

pub use aabb::Aabb;
pub use closest_point::*;
