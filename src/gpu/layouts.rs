//! The `#[repr(C)]` types and constants of this module that
//! `shaders/radix_sort.wgsl` mirrors, for `tests/it/shader_layouts.rs`. Not an
//! API.

pub use super::radix_sort::{Params as RadixSortParams, RADIX, RADIX_BITS, TILE as RADIX_TILE};
