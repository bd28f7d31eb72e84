//! collidoscope: GPU collision-detection pipelines with CPU references.
//!
//! Meshes ([`mesh`]) go through stages ([`stages`]), each with a CPU reference
//! and a GPU implementation ([`gpu`]) that return the same product; the
//! viewer ([`app`]) and the CLI ([`cli`]) only draw ([`view`]) and export
//! products.

pub mod app;
pub mod assets;
pub mod cli;
pub mod dataset;
pub mod geom;
pub mod gpu;
pub mod io;
pub mod mesh;
pub mod plot;
pub mod progress;
pub mod scene;
pub mod sim;
pub mod stages;
pub mod timing;
pub mod view;
