//! Pipeline stages. Each stage has a CPU reference and a GPU implementation
//! that take the same inputs and return the same product type.

pub mod colliders;
pub mod interference;
#[doc(hidden)]
pub mod layouts;
pub mod sampling;
pub mod sdf_adaptive;
pub mod sdf_grid;
pub mod tri_tri;
