//! Simulations that consume stages frame after frame.
//!
//! A stage ([`crate::stages`]) turns one input into one product; a
//! simulation owns state that evolves over time and calls stages every step
//! for what it needs (contacts, fields): the rigid-body demonstrator of the
//! `collide` mode ([`collide`]), stepping on the colliders' contacts; the
//! full collision pipeline of many bodies ([`simulate`]: broad phase,
//! narrow phase and response every frame, on the GPU or the CPU); and the
//! radial fields' simulations ([`radial`]): the skinned, animated character
//! carrying the fields ([`radial::character`]), and particles and PBD cloth
//! colliding with those fields.

pub mod collide;
#[doc(hidden)]
pub mod layouts;
pub mod radial;
pub mod simulate;
