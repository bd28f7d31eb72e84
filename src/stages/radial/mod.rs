//! Radial fields (Friston & Steed 2019): per-bone cylindrical distance
//! fields around a character's limbs, rasterised every frame.
//!
//! [`frame`] holds a field's axis, its cylindrical space (§4.2, equations
//! 1–3) and the GPU layout of a set of fields, shared by the rasterising
//! stage and the simulations that collide against the fields
//! ([`crate::sim`]).

pub mod frame;

pub use frame::{BoneFrame, Cylindrical, FieldFrameGpu, FrameError};
