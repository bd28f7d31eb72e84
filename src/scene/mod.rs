//! What is loaded and how the pipeline runs on it, independent of the UI:
//! the mesh source, the prepared mesh, a mesh that deforms, and background
//! jobs that run stages off the UI thread with progress and cancellation.

mod inflate;
mod jobs;

pub use inflate::InflatingMesh;
pub use jobs::{Job, JobError, Latest};

use std::path::PathBuf;
use std::sync::Arc;

use crate::mesh::PreparedMesh;
use crate::mesh::{FaceProblem, Mesh, MeshError};

/// Where a mesh came from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum MeshSource {
    /// A sample embedded in the binary ([`crate::assets::SAMPLES`]).
    Sample(String),
    File(PathBuf),
}

impl MeshSource {
    pub fn label(&self) -> String {
        match self {
            MeshSource::Sample(name) => format!("{name} (sample)"),
            MeshSource::File(p) => p.display().to_string(),
        }
    }

    pub fn load(&self) -> Result<Mesh, MeshError> {
        self.load_checked().map(|(mesh, _)| mesh)
    }

    /// [`MeshSource::load`], with the face statements of a file that were
    /// not loaded as written.
    pub fn load_checked(&self) -> Result<(Mesh, Vec<FaceProblem>), MeshError> {
        match self {
            MeshSource::Sample(name) => Ok((crate::assets::load_sample(name)?, Vec::new())),
            MeshSource::File(path) => crate::mesh::load_file_merged(path),
        }
    }
}

/// A mesh that loaded, validated and prepared for the stages.
pub struct LoadedMesh {
    pub source: MeshSource,
    pub raw: Mesh,
    pub prepared: Arc<PreparedMesh>,
    /// Face statements of the file that were not loaded as written.
    pub problems: Vec<FaceProblem>,
}

impl LoadedMesh {
    /// Loads and prepares; an error leaves whatever scene the caller had.
    pub fn load(source: MeshSource) -> Result<Self, MeshError> {
        let (raw, problems) = source.load_checked()?;
        let prepared = Arc::new(PreparedMesh::new(&raw)?);
        Ok(LoadedMesh {
            source,
            raw,
            prepared,
            problems,
        })
    }
}
