//! The simulations' `#[repr(C)]` types that the shaders mirror, for
//! `tests/shader_layouts.rs`. Not an API: use the types where they are
//! defined.

pub use super::pipeline::{BodyBox, BroadParams, FLAG_STATIC};
