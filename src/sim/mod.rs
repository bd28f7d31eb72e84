//! Simulations that consume stages frame after frame.
//!
//! A stage ([`crate::stages`]) turns one input into one product; a
//! simulation owns state that evolves over time and calls stages every step
//! for what it needs (contacts, fields). Today: the rigid-body demonstrator
//! ([`rigid`]), stepping on the colliders' contacts.

#[doc(hidden)]
pub mod layouts;
pub mod radial;
pub mod rigid;
