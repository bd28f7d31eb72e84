//! The viewer's `#[repr(C)]` types and constants that `shaders/view.wgsl`
//! mirrors, for `tests/it/shader_layouts.rs`. Not an API.

pub use super::vertices::{
    FILTER_BAND, FILTER_CLIP, FILTER_INSIDE, FILTER_OUTSIDE, LineVertex, MeshVertex, ViewUniforms,
};
