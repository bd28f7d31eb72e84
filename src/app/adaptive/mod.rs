//! The adaptive field scene: the octree of [`crate::stages::sdf_adaptive`]
//! on the current mesh, shown as the paper shows it (Liu & Kim 2014,
//! figures 4 and 13) and taken apart for inspection.
//!
//! * [`draw`]: node centres as point sprites coloured by signed distance
//!   (the viewer's colour maps and cell filters apply unchanged), octree
//!   cells as line boxes with one colour per depth, and the uniform field
//!   beside the adaptive one, split by a plane through the mesh's centre.
//! * [`stats`]: the per-depth table (nodes, leaves, split nodes, the slack
//!   of the parent's upper bound), declared as a list of columns.
//! * [`probe`]: one node taken apart: its value, its closest triangle, and
//!   the §5.1 upper bound its query started from — the exact distance from
//!   its centre to the parent's closest triangle — against the true
//!   distance; and the adaptive field against the uniform grid's trilinear
//!   interpolation at every node centre inside the grid.
//! * [`state`]: the scene's parameters and its background jobs: one
//!   debounced rebuild per parameter change, or one per frame while the
//!   mesh inflates and deflates ([`crate::scene::InflatingMesh`]).
//!
//! The panel (`panels/adaptive.rs`) holds the controls; while the scene is
//! shown it owns the viewport, as the triangle–triangle and collide panels
//! do.

pub mod draw;
pub mod probe;
mod state;
pub mod stats;

pub use state::{AdaptiveState, apply_step, update};
