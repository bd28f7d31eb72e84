//! Simulations that consume stages frame after frame.
//!
//! A stage ([`crate::stages`]) turns one input into one product; a
//! simulation owns state that evolves over time and calls stages every step
//! for what it needs (contacts, fields): the rigid-body demonstrator
//! ([`collide`], the simulation of the `collide` mode), stepping on the colliders' contacts; the full collision
//! pipeline of many bodies ([`simulate`]: broad phase, narrow phase and
//! response every frame, on the GPU or the CPU); the skinned, animated
//! character carrying radial fields ([`character`]), and particles and PBD
//! cloth colliding with those fields ([`radial`]).

pub mod character;
pub mod collide;
#[doc(hidden)]
pub mod layouts;
pub mod simulate;
pub mod radial;
