//! Exact geometric predicates and small kernels shared by the stages.

mod aabb;

pub use aabb::Aabb;
