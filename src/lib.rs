//! collidoscope: GPU collision-detection pipelines with CPU references.
//!
//! See `README.md` for what the tool does and `DESIGN.md` (in `shared/`) for
//! the architecture: meshes → stages (each with a CPU reference and a GPU
//! implementation returning the same product) → viewer and CLI.

pub mod geom;
pub mod mesh;
pub mod view;
